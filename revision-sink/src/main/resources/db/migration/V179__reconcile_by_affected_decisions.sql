-- The reconcile queue keeps each generation's reconciliation of an event (docs/decisions/0196).
--
-- decision_reconcile.affected_digest
--                 md5 of affected_decisions, the decision ids the late event would have changed.
--                 A replay of the same event reconciles it against the same decisions (their ids
--                 are replay-stable): the same row, not added again. A new generation, or a changed
--                 scorer, has decisions of other ids: its reconciliation is a row of its own,
--                 beside the old one, as its decisions are. Keyed by the event's place alone, it
--                 was dropped without a trace. A digest, not the list: a burst can affect more
--                 decisions than an index entry holds.

ALTER TABLE decision_reconcile
  ADD COLUMN affected_digest text GENERATED ALWAYS AS (md5(affected_decisions::text)) STORED;
ALTER TABLE decision_reconcile DROP CONSTRAINT decision_reconcile_pkey;
ALTER TABLE decision_reconcile
  ADD PRIMARY KEY (model, event_partition, event_offset, affected_digest);
