-- Which run refused which conflict (docs/decisions/0114). A run reports, and exits 1 for, the
-- conflicts it offered itself: each writer of a run (`streamform run` gives its job a run id)
-- records here, in the transaction that refuses a record, one row per conflict it refused, however
-- many times it offered it; after the job the run counts its own rows. Counting the rows of
-- revision_conflict whose last_refusal (V170) is above a number read before the job also counted
-- what another run of the same model and generation refused meanwhile. A conflict two runs offered
-- has a row for each. A writer without a run id (a library user's pipeline) records none.

CREATE TABLE revision_conflict_refusal (
  run_id      text        NOT NULL CHECK (run_id <> ''),
  conflict_id bigint      NOT NULL REFERENCES revision_conflict (conflict_id) ON DELETE CASCADE,
  refused_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (run_id, conflict_id)
);
