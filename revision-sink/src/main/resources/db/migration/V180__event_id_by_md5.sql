-- An event_id is the source's own text, of any length. A btree entry holds at most 2,704 bytes, so
-- an index on event_id itself failed every write of a decision (or a reconcile row) whose event id
-- was longer (about 2.7 KB that does not compress): "index row size … exceeds btree version 4
-- maximum 2704", and the whole batch rolled back on every retry (docs/decisions/0207). These
-- indexes hold md5(event_id) instead; a lookup by event id asks for md5(event_id) = md5(?) to use
-- them and compares event_id = ? as well, so two ids of the same md5 are never taken for one.
DROP INDEX decision_by_event;
CREATE INDEX decision_by_event ON decision (model, md5(event_id), revision);
DROP INDEX decision_reconcile_by_event;
CREATE INDEX decision_reconcile_by_event ON decision_reconcile (model, md5(event_id));
