-- Effect rules that could not be evaluated on a canonical revision (SEMANTICS §10, issue 28).
--
-- effect_rule_error  one row per (projection, revision, effect type) whose rule the revision sink
--                    could not evaluate (values that do not compare, an unknown output schema).
--                    The effect of that window is left as it was and the batch goes on: failing
--                    it would fail every retry the same way and stall the sink. Shown by
--                    `streamform effects show`, a problem for `streamform effects verify` until
--                    resolved_at is set.

CREATE TABLE effect_rule_error (
  rule_error_id     bigserial   PRIMARY KEY,
  model             text        NOT NULL,
  effect_type       text        NOT NULL,
  rule              text        NOT NULL,   -- the rule's `when:` as declared
  logical_window_id text        NOT NULL,
  projection_id     text        NOT NULL,
  generation        integer     NOT NULL,
  revision          integer     NOT NULL,
  error             text        NOT NULL,
  recorded_at       timestamptz NOT NULL DEFAULT now(),
  resolved_at       timestamptz,
  -- a retried or replayed batch records the same error once
  UNIQUE (projection_id, revision, effect_type)
);
CREATE INDEX effect_rule_error_by_model ON effect_rule_error (model, recorded_at);
