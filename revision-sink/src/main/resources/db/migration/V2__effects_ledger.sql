-- One-time effects (SEMANTICS §10), in schema `streamform`.
--
-- effect         one row per effect_key = H(["effect", effect_type, logical_window_id, subject]):
--                no revision and no generation in the key, so corrections, policy generations and
--                replays name the same effect. Written PREPARED by the revision sink in the same
--                transaction as the canonical revision that made its rule true (the outbox), then
--                moved by the dispatcher, each step a compare-and-set on `state`:
--                  PREPARED -> DISPATCHING -> DONE
--                                          -> UNKNOWN   (outcome not known: resolved only by a receipt query)
--                  PREPARED -> CANCELLED  (the rule became false before anything was sent)
--                  DISPATCHING -> PREPARED (the provider was unreachable: nothing was sent)
-- effect_compensation
--                for a person: an effect already dispatched (DISPATCHING, UNKNOWN or DONE) whose
--                rule a later canonical revision made false, or whose payload it changed. Never a
--                second effect, never a silent change of the effect row.

CREATE TABLE effect (
  effect_key          text        PRIMARY KEY CHECK (effect_key ~ '^[0-9a-f]{64}$'),
  effect_type         text        NOT NULL,
  model               text        NOT NULL,
  logical_window_id   text        NOT NULL CHECK (logical_window_id ~ '^[0-9a-f]{64}$'),
  subject             jsonb       NOT NULL,
  generation          integer     NOT NULL CHECK (generation > 0),
  made_true_by        integer     NOT NULL CHECK (made_true_by > 0),  -- the revision that made the rule true
  revision            integer     NOT NULL CHECK (revision > 0),      -- the latest canonical revision that confirmed it
  provider            text        NOT NULL,
  payload             jsonb       NOT NULL,
  payload_digest      text        NOT NULL CHECK (payload_digest ~ '^[0-9a-f]{64}$'),
  state               text        NOT NULL CHECK (state IN ('PREPARED', 'DISPATCHING', 'DONE', 'UNKNOWN', 'CANCELLED')),
  attempts            integer     NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  receipt             text,
  last_error          text,
  dispatcher          text,
  prepared_at         timestamptz NOT NULL DEFAULT now(),
  dispatched_at       timestamptz,
  resolved_at         timestamptz,
  updated_at          timestamptz NOT NULL DEFAULT now(),
  CHECK ((state = 'DONE') = (receipt IS NOT NULL))
);
CREATE INDEX effect_by_state ON effect (state, prepared_at);
CREATE INDEX effect_by_window ON effect (logical_window_id);

-- every move of an effect, for `streamform effects show` and for audits
CREATE TABLE effect_transition (
  effect_key  text        NOT NULL REFERENCES effect (effect_key),
  from_state  text,
  to_state    text        NOT NULL,
  revision    integer,
  note        text,
  at          timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX effect_transition_by_key ON effect_transition (effect_key, at);

CREATE TABLE effect_compensation (
  compensation_id     bigserial   PRIMARY KEY,
  effect_key          text        NOT NULL REFERENCES effect (effect_key),
  generation          integer     NOT NULL,
  revision            integer     NOT NULL,   -- the canonical revision that made the rule false or changed the payload
  effect_state        text        NOT NULL,   -- the effect's state when it was recorded
  reason              text        NOT NULL CHECK (reason IN ('rule_false', 'payload_changed')),
  payload             jsonb,                  -- the payload the revision would give (null when the rule is false)
  payload_digest      text,
  recorded_at         timestamptz NOT NULL DEFAULT now(),
  resolved_at         timestamptz,
  resolution          text,
  -- a replayed revision records nothing twice
  UNIQUE (effect_key, generation, revision)
);
