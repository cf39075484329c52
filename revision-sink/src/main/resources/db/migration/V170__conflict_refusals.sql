-- A conflict is recorded once (one revision_conflict row per refused record), but refused, and
-- reported, every time it is offered (docs/decisions/0040). Each refusal, the first and every
-- later one, gives the row the next number of revision_refusal: `streamform run` reads the highest
-- number before its job and, when the job has ended, counts its model's and generation's rows
-- whose last refusal is above it — the conflicts this run offered, new or recorded by an earlier
-- run. recorded_at stays the time of the first refusal, last_refused_at is that of the last.

CREATE SEQUENCE revision_refusal;

ALTER TABLE revision_conflict
  ADD COLUMN last_refusal    bigint      NOT NULL DEFAULT nextval('revision_refusal'),
  ADD COLUMN last_refused_at timestamptz NOT NULL DEFAULT now();

ALTER SEQUENCE revision_refusal OWNED BY revision_conflict.last_refusal;

UPDATE revision_conflict SET last_refused_at = recorded_at;

CREATE INDEX revision_conflict_by_refusal ON revision_conflict (model, generation, last_refusal);
