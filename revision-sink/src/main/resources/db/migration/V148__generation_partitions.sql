-- The partition count a generation ran with (docs/semantics.md §9.6; issue 33 item 7): streamform
-- run records it for a Kafka source that declares `partitions:`, and refuses another count for a
-- generation that has published projections — a partition count is part of the watermark
-- topology, so a new count needs a new generation. Never deleted, like the ledger.
CREATE TABLE generation_partitions (
  model       text        NOT NULL,
  generation  integer     NOT NULL CHECK (generation > 0),
  source      text        NOT NULL,
  partitions  integer     NOT NULL CHECK (partitions > 0),
  recorded_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (model, generation, source)
);
