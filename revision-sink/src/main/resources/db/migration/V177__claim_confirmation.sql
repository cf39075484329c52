-- What a claim confirmed (docs/decisions/0161), so that `effects verify` can check a send against
-- the canonical state the claim read rather than against timestamps.
--
-- canonical_alias.version
--                 counts the alias's changes: 1 when the sink's first write makes it, one more at
--                 each `alias set`. An alias made before this migration starts at 0: no history
--                 row records that state.
-- canonical_alias_history.version
--                 the version the change made (null for the changes made before this migration).
-- effect_transition.confirmed_generation, .confirmed_revision, .alias_version, .attempt
--                 on a claim (to DISPATCHING): the generation and revision it confirmed, the
--                 alias's version it read under its lock, and the attempt it began (the effect's
--                 attempts after the claim). Null on every other move, and on the claims made
--                 before this migration (verify says those cannot be checked).

ALTER TABLE canonical_alias ADD COLUMN version bigint NOT NULL DEFAULT 0 CHECK (version >= 0);
ALTER TABLE canonical_alias ALTER COLUMN version SET DEFAULT 1;

ALTER TABLE canonical_alias_history ADD COLUMN version bigint;
CREATE UNIQUE INDEX canonical_alias_history_by_version
  ON canonical_alias_history (model, version) WHERE version IS NOT NULL;

ALTER TABLE effect_transition
  ADD COLUMN confirmed_generation integer,
  ADD COLUMN confirmed_revision integer,
  ADD COLUMN alias_version bigint,
  ADD COLUMN attempt integer;
