-- The decision ledger of scoring models (docs/semantics.md §11; issue 32): append-only, one row per
-- decision_id. A replay writes the same ids again and inserts nothing (ON CONFLICT DO NOTHING); a
-- revision is a row of its own that names the decision it supersedes. Every column that the
-- decision's identity hashes is stored, so `streamform decisions verify` can recompute it.
CREATE TABLE decision (
  decision_id          text PRIMARY KEY,
  model                text NOT NULL,
  event_id             text NOT NULL,
  event_partition      integer NOT NULL,
  event_offset         bigint NOT NULL,
  occurred_at          timestamptz NOT NULL,
  arrived_at           timestamptz NOT NULL,
  arrival_watermark    timestamptz,
  scored_at            timestamptz NOT NULL,
  contract             text NOT NULL,
  state_cutoff         timestamptz NOT NULL,
  state_revision       bigint NOT NULL,
  features             jsonb NOT NULL,
  score                double precision NOT NULL,
  model_digest         text NOT NULL,
  preprocessing_digest text NOT NULL,
  policy_generation    integer NOT NULL,
  revision             integer NOT NULL CHECK (revision >= 1),
  supersedes           text,
  revised_by           text,
  key_values           jsonb NOT NULL,
  record               jsonb NOT NULL,
  recorded_at          timestamptz NOT NULL DEFAULT now(),
  CHECK ((revision = 1) = (supersedes IS NULL))
);

-- an event's decisions in revision order (decisions show --event, the supersedes chain)
CREATE INDEX decision_by_event ON decision (model, event_id, revision);

-- Append-only: a decision is never changed or removed, whoever connects.
CREATE FUNCTION decision_append_only() RETURNS trigger AS $$
BEGIN
  RAISE EXCEPTION 'the decision ledger is append-only: % of decision % refused',
    TG_OP, OLD.decision_id;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER decision_append_only BEFORE UPDATE OR DELETE ON decision
  FOR EACH ROW EXECUTE FUNCTION decision_append_only();

-- The reconcile queue (late_action: reconcile): one row per late event, with the decisions it
-- would have changed, for a person or a batch job; resolved_at is set by whoever works it off.
CREATE TABLE decision_reconcile (
  model              text NOT NULL,
  event_id           text NOT NULL,
  event_partition    integer NOT NULL,
  event_offset       bigint NOT NULL,
  occurred_at        timestamptz NOT NULL,
  arrival_watermark  timestamptz NOT NULL,
  updated_state      boolean NOT NULL,
  affected_decisions jsonb NOT NULL,
  key_values         jsonb NOT NULL,
  record             jsonb NOT NULL,
  queued_at          timestamptz NOT NULL DEFAULT now(),
  resolved_at        timestamptz,
  PRIMARY KEY (model, event_id)
);
