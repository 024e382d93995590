-- DB Dyno run history, version 1. See docs/history.md for what each table holds.
-- No secret is ever stored: snapshots are serialized from types that skip passwords.

CREATE TABLE runs (
    id                INTEGER PRIMARY KEY AUTOINCREMENT,
    env               TEXT    NOT NULL,
    -- 'dbdyno' (recorded live) or 'import' (read from sysbench text output).
    source            TEXT    NOT NULL,
    command           TEXT    NOT NULL,
    state             TEXT    NOT NULL
        CHECK (state IN ('running', 'complete', 'cancelled', 'failed', 'interrupted')),
    started_at_ms     INTEGER NOT NULL,
    ended_at_ms       INTEGER,
    tool_version      TEXT    NOT NULL,
    labels_json       TEXT    NOT NULL DEFAULT '[]',
    -- The profile as used (no secrets), the validated plan, and the environment snapshot.
    profile_json      TEXT,
    plan_json         TEXT,
    environment_json  TEXT,
    prepare_json      TEXT,
    prewarm_json      TEXT,
    failure           TEXT,
    -- Who writes this run: a run left 'running' whose writer is gone was interrupted.
    writer_pid        INTEGER,
    writer_start_s    INTEGER
);
CREATE INDEX runs_env_started ON runs (env, started_at_ms);
CREATE INDEX runs_state ON runs (state);

CREATE TABLE steps (
    run_id          INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    step_index      INTEGER NOT NULL,
    scenario        TEXT    NOT NULL,
    threads         INTEGER NOT NULL,
    started_unix_ms INTEGER NOT NULL,
    ended_unix_ms   INTEGER NOT NULL,
    -- Headline figures, copied out of result_json for listings and SQL queries.
    tps             REAL    NOT NULL,
    qps             REAL    NOT NULL,
    latency_pct_ms  REAL    NOT NULL,
    p95_ms          REAL    NOT NULL,
    p99_ms          REAL    NOT NULL,
    -- The engine's StepResult as JSON, without its intervals and histogram (stored below).
    result_json     TEXT    NOT NULL,
    -- HdrHistogram V2 + DEFLATE, base64 (microseconds); '' when the source had none.
    histogram       TEXT    NOT NULL,
    PRIMARY KEY (run_id, step_index)
);

-- Per-second (per report-interval) engine records of each step.
CREATE TABLE intervals (
    run_id        INTEGER NOT NULL,
    step_index    INTEGER NOT NULL,
    seq           INTEGER NOT NULL,
    elapsed_s     REAL    NOT NULL,
    duration_s    REAL    NOT NULL,
    end_unix_ms   INTEGER NOT NULL,
    threads       INTEGER NOT NULL,
    tps           REAL    NOT NULL,
    qps           REAL    NOT NULL,
    reads_ps      REAL    NOT NULL,
    writes_ps     REAL    NOT NULL,
    other_ps      REAL    NOT NULL,
    latency_ms    REAL    NOT NULL,
    percentile    REAL    NOT NULL,
    errors_ps     REAL    NOT NULL,
    reconnects_ps REAL    NOT NULL,
    PRIMARY KEY (run_id, step_index, seq),
    FOREIGN KEY (run_id, step_index) REFERENCES steps (run_id, step_index) ON DELETE CASCADE
);

-- Per-second server samples (the monitor's ServerSample) and MySQL status samples, as
-- JSON so that new fields need no migration. step_index is NULL between steps.
CREATE TABLE server_samples (
    run_id      INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    step_index  INTEGER,
    unix_ms     INTEGER NOT NULL,
    sample_json TEXT    NOT NULL
);
CREATE INDEX server_samples_run ON server_samples (run_id, unix_ms);

CREATE TABLE mysql_samples (
    run_id      INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    step_index  INTEGER,
    unix_ms     INTEGER NOT NULL,
    sample_json TEXT    NOT NULL
);
CREATE INDEX mysql_samples_run ON mysql_samples (run_id, unix_ms);

CREATE TABLE warnings (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id     INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    step_index INTEGER,
    at_ms      INTEGER NOT NULL,
    text       TEXT    NOT NULL
);
CREATE INDEX warnings_run ON warnings (run_id);
