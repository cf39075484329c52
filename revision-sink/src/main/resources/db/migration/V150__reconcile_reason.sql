-- Why an event is in the reconcile queue when it is not for its declared late action (ADR 0050):
-- an event whose answer would reach below its key's freed horizon — state freed while its
-- partition was idle — gets no decision and is queued here with that reason; null for a late event
-- reconciled as declared. Such an event may have arrived while its partition's watermark was still
-- undefined, so arrival_watermark may be null.
ALTER TABLE decision_reconcile ADD COLUMN reason text;
ALTER TABLE decision_reconcile ALTER COLUMN arrival_watermark DROP NOT NULL;
