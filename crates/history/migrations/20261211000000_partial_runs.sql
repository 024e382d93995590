-- DB Dyno run history: a run whose ladder went on past failed steps
-- (`--on-step-error=continue`) ends 'partial', not 'complete'; its `failure` holds one
-- line per failed step, "label: why" (the steps themselves have no row: they were not
-- measured). SQLite cannot change a CHECK constraint in place, so `runs` is rebuilt.
-- Every other table points at `runs (id)` with ON DELETE CASCADE: migrations run on a
-- connection without foreign keys (db.rs), so dropping the old table empties none of
-- them, and renaming the new one makes their references point at it.
CREATE TABLE runs_v8 (
    id                INTEGER PRIMARY KEY AUTOINCREMENT,
    env               TEXT    NOT NULL,
    source            TEXT    NOT NULL,
    command           TEXT    NOT NULL,
    state             TEXT    NOT NULL
        CHECK (state IN ('running', 'complete', 'partial', 'cancelled', 'failed', 'interrupted')),
    started_at_ms     INTEGER NOT NULL,
    ended_at_ms       INTEGER,
    tool_version      TEXT    NOT NULL,
    labels_json       TEXT    NOT NULL DEFAULT '[]',
    profile_json      TEXT,
    plan_json         TEXT,
    environment_json  TEXT,
    prepare_json      TEXT,
    prewarm_json      TEXT,
    failure           TEXT,
    writer_pid        INTEGER,
    writer_start_s    INTEGER,
    monitoring_json   TEXT
);
INSERT INTO runs_v8 (id, env, source, command, state, started_at_ms, ended_at_ms,
                     tool_version, labels_json, profile_json, plan_json, environment_json,
                     prepare_json, prewarm_json, failure, writer_pid, writer_start_s,
                     monitoring_json)
    SELECT id, env, source, command, state, started_at_ms, ended_at_ms,
           tool_version, labels_json, profile_json, plan_json, environment_json,
           prepare_json, prewarm_json, failure, writer_pid, writer_start_s,
           monitoring_json
    FROM runs;
DROP TABLE runs;
ALTER TABLE runs_v8 RENAME TO runs;
CREATE INDEX runs_env_started ON runs (env, started_at_ms);
CREATE INDEX runs_state ON runs (state);
