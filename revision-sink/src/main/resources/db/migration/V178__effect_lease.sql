-- The lease a claim took (docs/decisions/0194).
--
-- effect.lease_until
--                 when the dispatcher that began the effect's current attempt lets it go: its
--                 claim's time plus that dispatcher's --lease. Another dispatcher takes a
--                 DISPATCHING effect for dead, and asks for its receipt, only after this, not
--                 after a shorter --lease of its own (which took an attempt still in flight from
--                 a live dispatcher, and sent it again). Null for attempts begun before this
--                 migration: those are judged by the reading dispatcher's own lease, as before.

ALTER TABLE effect ADD COLUMN lease_until timestamptz;
