-- The dispatcher's attempts (issue 28), each a compare-and-set on the attempt it belongs to:
--
-- attempt_token    a fresh random token per claim (PREPARED -> DISPATCHING or UNKNOWN ->
--                  DISPATCHING): an outcome is written only over the same attempt, so a slow or
--                  late dispatcher never overwrites another dispatcher's claim or outcome.
-- next_attempt_at  not before then is the effect claimed or delivered again: exponential backoff
--                  after "nothing sent" or an unknown outcome, instead of a retry every pass.
ALTER TABLE effect ADD COLUMN attempt_token text;
ALTER TABLE effect ADD COLUMN next_attempt_at timestamptz;

-- the claim's scan: a model's PREPARED effects in order (the filters run before its LIMIT)
CREATE INDEX effect_by_model_state ON effect (model, state, prepared_at, effect_key);
