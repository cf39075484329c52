-- The rows writers lock to serialize on a projection (SEMANTICS §8, issue 28).
--
-- projection_lock  one row per projection id ever written, never updated or removed. A batch
--                  inserts the rows it lacks, then locks its rows FOR UPDATE in projection-id
--                  order. A row lock lives in the row itself, not in the server's shared lock
--                  table, so a batch of 500 projections takes no more lock-table slots than a
--                  batch of one (an advisory lock per projection took one slot each, and 16
--                  parallel writers ran the table out: SQLSTATE 53200). It also covers a
--                  projection that has only held revisions and no projection row yet.

CREATE TABLE projection_lock (
  projection_id text PRIMARY KEY
);
