-- A decision offered under a decision_id the ledger already holds with other features or another
-- score (docs/decisions/0209). The ledger keeps the row it holds (append-only); the refused
-- outcome is recorded here once per distinct outcome, and counted each time it is offered again,
-- so `streamform run` and `streamform decisions verify` can say it instead of writing "0 new
-- decisions" as for a replay. The usual cause is a declaration outside the decision's identity
-- (features_over, for one) changed under the same generation.
CREATE TABLE decision_conflict (
  decision_id       text NOT NULL,
  model             text NOT NULL,
  policy_generation integer NOT NULL,
  event_partition   integer NOT NULL,
  event_offset      bigint NOT NULL,
  refused_digest    text NOT NULL,
  features          jsonb NOT NULL,
  score             double precision NOT NULL,
  refusals          bigint NOT NULL DEFAULT 1,
  recorded_at       timestamptz NOT NULL DEFAULT now(),
  last_refused_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (decision_id, refused_digest)
);

CREATE INDEX decision_conflict_by_model ON decision_conflict (model, policy_generation);
