-- A run of a scoring model with --jdbc-url asks, before its job, how many decisions its generation
-- has written and which generations the model's decisions name (docs/decisions/0145). The decision
-- ledger holds a row per scored event, so both are answered from this index, not by reading every
-- row of the model.
CREATE INDEX decision_by_generation ON decision (model, policy_generation);
