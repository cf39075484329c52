-- Canary by key (docs/semantics.md §9.9, issue 33): the canonical alias may send a share of a
-- model's keys to another generation.
--
-- canonical_alias.canary_generation, .canary_basis_points
--                 while set, a key whose bucket is below the share (in basis points: 500 = 5%)
--                 reads canary_generation; every other key reads `generation` (the one that was
--                 canonical before the canary). Both null: every key reads `generation`.
-- key_bucket      the documented hash: the first 32 bits of SHA-256 of the key as PostgreSQL
--                 prints a jsonb value (e.g. {"merchant_id": 7}), unsigned, modulo 10 000. Of the
--                 key only: every window of a key, every run, every reader agree.
-- generation_for_key
--                 the generation a key reads under an alias row; the canonical view, the effect
--                 outbox and the dispatcher all resolve through it.

ALTER TABLE canonical_alias
  ADD COLUMN canary_generation integer CHECK (canary_generation > 0),
  ADD COLUMN canary_basis_points integer CHECK (canary_basis_points BETWEEN 1 AND 9999),
  ADD CONSTRAINT canary_generation_and_share
    CHECK ((canary_generation IS NULL) = (canary_basis_points IS NULL));

ALTER TABLE canonical_alias_history
  ADD COLUMN canary_generation integer,
  ADD COLUMN canary_basis_points integer;

CREATE FUNCTION key_bucket(key jsonb) RETURNS integer
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT (('x' || substr(encode(sha256(convert_to(key::text, 'UTF8')), 'hex'), 1, 8))::bit(32)
            ::bigint % 10000)::integer
  $$;

CREATE FUNCTION generation_for_key(
    generation integer, canary_generation integer, canary_basis_points integer, key jsonb)
  RETURNS integer LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE WHEN canary_generation IS NOT NULL
                 AND streamform.key_bucket(key) < canary_basis_points
                THEN canary_generation ELSE generation END
  $$;

CREATE OR REPLACE VIEW canonical_projection AS
  SELECT p.model, p.window_key, p.window_start, p.window_end, p.aggregate_values, p.revision,
         p.status, p.aggregate_digest, p.generation, p.logical_window_id, p.projection_id,
         p.updated_at, p.finalized_at
    FROM projection p
    JOIN canonical_alias a ON a.model = p.model
   WHERE p.generation = streamform.generation_for_key(
           a.generation, a.canary_generation, a.canary_basis_points, p.window_key);
