-- Receipt queries of an UNKNOWN effect back off like its deliveries (ADR 0108):
--
-- receipt_queries  queries since the effect's last claim or outcome that left it UNKNOWN (the
--                  query failed, or its answer cannot settle the effect); each one moves
--                  next_attempt_at by the doubling backoff. The first query after an outcome is
--                  made at once; the next ones only once next_attempt_at has passed.
-- receipt_error    what the last such query said, for `streamform effects show`.
ALTER TABLE effect ADD COLUMN receipt_queries integer NOT NULL DEFAULT 0 CHECK (receipt_queries >= 0);
ALTER TABLE effect ADD COLUMN receipt_error text;
