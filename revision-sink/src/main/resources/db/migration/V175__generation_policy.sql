-- The time policy a generation ran with (docs/semantics.md §9.5; docs/decisions/0141): streamform
-- run records the model's time policy (as inspect-plan prints it) per generation the first time it
-- runs into the ledger, and refuses before the job a declaration whose watermark topology differs
-- from the recorded one once the generation has published projections — such a change needs a new
-- generation, like a partition count (generation_partitions). Never deleted, like the ledger.
CREATE TABLE generation_policy (
  model         text        NOT NULL,
  generation    integer     NOT NULL CHECK (generation > 0),
  policy        text        NOT NULL,
  policy_digest text        NOT NULL,
  recorded_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (model, generation)
);
