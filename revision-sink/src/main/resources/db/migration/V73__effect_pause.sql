-- The stop switch of a model's effects (docs/semantics.md §10.12, issue 33).
--
-- effect_pause          one row per paused model: while it exists, no dispatcher claims an effect
--                       of that model (PREPARED -> DISPATCHING, nor UNKNOWN -> DISPATCHING after a
--                       receipt query); effects already DISPATCHING finish and their outcomes are
--                       written. Each claim checks it in its own statement, so a pause committed
--                       mid-pass stops the rest of that pass. Removed by a resume.
-- effect_pause_history  every pause and resume, who and why: the record of an incident.

CREATE TABLE effect_pause (
  model     text        PRIMARY KEY,
  paused_at timestamptz NOT NULL DEFAULT now(),
  paused_by text        NOT NULL,
  reason    text
);

CREATE TABLE effect_pause_history (
  model  text        NOT NULL,
  action text        NOT NULL CHECK (action IN ('pause', 'resume')),
  actor  text        NOT NULL,
  reason text,
  at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX effect_pause_history_by_model ON effect_pause_history (model, at);
