-- What a person settled by hand (`streamform effects settle`, ADR 0140): the cases the dispatcher
-- leaves "for a person" (docs/semantics.md §10).
--
-- effect_settlement  one row per settlement, who, when, why:
--                      applied       an UNKNOWN effect the person found applied at the provider:
--                                    DONE, the person's receipt as its receipt (as a receipt
--                                    query that answered applied)
--                      not_applied   an UNKNOWN effect the person found never applied: PREPARED
--                                    again when its provider dedupes by key (delivered again under
--                                    the same key), NOT_APPLIED when it does not (never sent again)
--                      done          a compensation record the person has dealt with: its
--                                    resolved_at and resolution are set with it
--                    Each is written in the transaction of the compare-and-set it records
--                    (UPDATE ... WHERE state = 'UNKNOWN', or WHERE resolved_at IS NULL).
-- effect.state       gains NOT_APPLIED: sent once, never applied (a person's word), never sent
--                    again. No dispatcher reads or moves it.

CREATE TABLE effect_settlement (
  settlement_id    bigserial   PRIMARY KEY,
  effect_key       text        NOT NULL REFERENCES effect (effect_key),
  compensation_id  bigint      REFERENCES effect_compensation (compensation_id),
  outcome          text        NOT NULL CHECK (outcome IN ('applied', 'not_applied', 'done')),
  from_state       text,       -- the effect's state before (null for a compensation)
  to_state         text,       -- the effect's state after (null for a compensation)
  receipt          text,       -- what the person gave as the provider's receipt (applied only)
  actor            text        NOT NULL,
  reason           text        NOT NULL CHECK (reason <> ''),
  at               timestamptz NOT NULL DEFAULT now(),
  CHECK ((outcome = 'done') = (compensation_id IS NOT NULL)),
  -- a compensation is closed once
  UNIQUE (compensation_id)
);
CREATE INDEX effect_settlement_by_key ON effect_settlement (effect_key, at);

ALTER TABLE effect DROP CONSTRAINT effect_state_check;
ALTER TABLE effect ADD CONSTRAINT effect_state_check
  CHECK (state IN ('PREPARED', 'DISPATCHING', 'DONE', 'UNKNOWN', 'CANCELLED', 'NOT_APPLIED'));
