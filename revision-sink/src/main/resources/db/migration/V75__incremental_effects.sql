-- Incremental effects (docs/semantics.md §10, issue 33 item 6), for providers that take
-- adjustments (points, credits).
--
-- A delta effect is an effect row of its own, delivered under the same rules as any effect
-- (PREPARED before any I/O, compare-and-set claims, receipts, never a blind retry):
--   effect_key   = H(["delta", delta_of, made_true_by]): the base effect's key and the revision
--                  whose correction it carries, so a replay of that revision names the same delta
--   delta_of     the base effect (the one the rule made true), which is never touched again
--   predecessor  the effect the delta adjusts from: the base effect or the previous delta
--                (a PREPARED delta overtaken by a newer correction is CANCELLED and skipped)
--   payload      {"delta": {column: new - old, ...}, "values": the window's values after it, ...}
-- The values of the base effect plus every delivered delta equal the window's current values.

ALTER TABLE effect
  ADD COLUMN delta_of    text REFERENCES effect (effect_key),
  ADD COLUMN predecessor text REFERENCES effect (effect_key);

CREATE INDEX effect_deltas ON effect (delta_of, made_true_by) WHERE delta_of IS NOT NULL;
