-- The reconcile queue holds one row per reconciled event by its place in the log (ADR 0071):
-- event_id is the source's declared id when it has one, and two events may share it (a repeat
-- after its duplicates horizon); keyed by it, the second would be dropped without a trace.
-- Rows written before this were keyed by the position, so they stay unique by place.
ALTER TABLE decision_reconcile DROP CONSTRAINT decision_reconcile_pkey;
ALTER TABLE decision_reconcile ADD PRIMARY KEY (model, event_partition, event_offset);
CREATE INDEX decision_reconcile_by_event ON decision_reconcile (model, event_id);
