-- The revision ledger of windowed models (SEMANTICS §8), in schema `streamform`.
--
-- projection               one row per projection_id (a window of a key, per generation): its
--                          current revision, status, values and digest; moved only by
--                          compare-and-set on (projection_id, revision = n - 1)
-- correction_ledger        append-only: one row per applied (projection_id, revision)
-- held_revision            revisions (and final records) that arrived ahead of their predecessor,
--                          applied and removed when the gap closes
-- revision_conflict        refused records: a (projection_id, revision) offered again with
--                          another digest, or a final record that contradicts the projection
-- canonical_alias          per model, the approved generation; its history in canonical_alias_history
-- canonical_projection     the view readers read: the projections of each model's approved generation
--
-- Values, keys and offsets are stored as the canonical JSON that RevisionIdentity hashes, so the
-- ledger's digests can be recomputed from what is stored (`streamform ledger verify`).

CREATE TABLE projection (
  projection_id     text        PRIMARY KEY CHECK (projection_id ~ '^[0-9a-f]{64}$'),
  model             text        NOT NULL,
  logical_window_id text        NOT NULL CHECK (logical_window_id ~ '^[0-9a-f]{64}$'),
  generation        integer     NOT NULL CHECK (generation > 0),
  window_key        jsonb       NOT NULL,
  window_start      timestamptz NOT NULL,
  window_end        timestamptz NOT NULL CHECK (window_end > window_start),
  revision          integer     NOT NULL CHECK (revision > 0),
  status            text        NOT NULL CHECK (status IN ('on_time', 'corrected', 'final')),
  aggregate_values  jsonb       NOT NULL,
  aggregate_digest  text        NOT NULL CHECK (aggregate_digest ~ '^[0-9a-f]{64}$'),
  updated_at        timestamptz NOT NULL DEFAULT now(),
  finalized_at      timestamptz,
  UNIQUE (logical_window_id, generation)
);
CREATE INDEX projection_by_model ON projection (model, generation, window_start);

CREATE TABLE correction_ledger (
  projection_id    text        NOT NULL REFERENCES projection (projection_id),
  revision         integer     NOT NULL CHECK (revision > 0),
  predecessor      integer     CHECK ((revision = 1 AND predecessor IS NULL) OR predecessor = revision - 1),
  status           text        NOT NULL CHECK (status IN ('on_time', 'corrected')),
  aggregate_values jsonb       NOT NULL,
  aggregate_digest text        NOT NULL CHECK (aggregate_digest ~ '^[0-9a-f]{64}$'),
  offsets          jsonb       NOT NULL,
  recorded_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (projection_id, revision)
);

-- Append-only means it: no row of the ledger is ever changed or removed.
CREATE FUNCTION refuse_ledger_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'streamform.correction_ledger is append-only: % refused', TG_OP
    USING ERRCODE = 'insufficient_privilege';
END
$$;
CREATE TRIGGER correction_ledger_append_only
  BEFORE UPDATE OR DELETE ON correction_ledger
  FOR EACH ROW EXECUTE FUNCTION refuse_ledger_change();
CREATE TRIGGER correction_ledger_no_truncate
  BEFORE TRUNCATE ON correction_ledger
  FOR EACH STATEMENT EXECUTE FUNCTION refuse_ledger_change();

CREATE TABLE held_revision (
  projection_id     text        NOT NULL,
  revision          integer     NOT NULL CHECK (revision > 0),
  final             boolean     NOT NULL,   -- a final record waiting for its revision
  model             text        NOT NULL,
  logical_window_id text        NOT NULL,
  generation        integer     NOT NULL,
  window_key        jsonb       NOT NULL,
  window_start      timestamptz NOT NULL,
  window_end        timestamptz NOT NULL,
  predecessor       integer,
  status            text        NOT NULL CHECK (status IN ('on_time', 'corrected', 'final')),
  aggregate_values  jsonb       NOT NULL,
  aggregate_digest  text        NOT NULL,
  offsets           jsonb       NOT NULL,
  held_at           timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (projection_id, revision, final)
);
CREATE INDEX held_revision_by_model ON held_revision (model);

CREATE TABLE revision_conflict (
  conflict_id       bigserial   PRIMARY KEY,
  projection_id     text        NOT NULL,
  model             text        NOT NULL,
  generation        integer     NOT NULL,
  revision          integer     NOT NULL,
  final             boolean     NOT NULL,
  reason            text        NOT NULL,
  stored_digest     text,       -- what the database holds for that revision, when it holds one
  offered_digest    text        NOT NULL,
  offered_values    jsonb       NOT NULL,
  offered_offsets   jsonb       NOT NULL,
  recorded_at       timestamptz NOT NULL DEFAULT now(),
  -- the same refused record delivered again is one conflict, not two
  UNIQUE (projection_id, revision, final, offered_digest)
);
CREATE INDEX revision_conflict_by_model ON revision_conflict (model);

CREATE TABLE canonical_alias (
  model      text        PRIMARY KEY,
  generation integer     NOT NULL CHECK (generation > 0),
  set_at     timestamptz NOT NULL DEFAULT now(),
  set_by     text        NOT NULL   -- 'first write' or 'alias set'
);

CREATE TABLE canonical_alias_history (
  model               text        NOT NULL,
  generation          integer     NOT NULL,
  previous_generation integer,
  set_at              timestamptz NOT NULL DEFAULT now(),
  set_by              text        NOT NULL
);

CREATE VIEW canonical_projection AS
  SELECT p.model, p.window_key, p.window_start, p.window_end, p.aggregate_values, p.revision,
         p.status, p.aggregate_digest, p.generation, p.logical_window_id, p.projection_id,
         p.updated_at, p.finalized_at
    FROM projection p
    JOIN canonical_alias a ON a.model = p.model AND a.generation = p.generation;
