-- DB Dyno run history, version 3.
-- 1. The headline figures of a step may be unknown: an imported sysbench log prints only
--    its --percentile figure (p95 or p99, not both), and a log cut off before its
--    summary has no totals. They are NULL then, never a made-up 0. SQLite cannot drop a
--    NOT NULL constraint in place, so `steps` is rebuilt. Migrations run in a
--    transaction, where foreign keys cannot be switched off, and dropping the old
--    `steps` would cascade into `intervals`: so `intervals` is rebuilt first, pointing
--    at the new table, and the old one is dropped before the old `steps`. Renaming the
--    new tables then rewrites the reference to the final name.
-- 2. `import_files`: the SHA-256 of each imported file, so the same log is not imported
--    twice by mistake. Deleting the run deletes its row.
CREATE TABLE steps_v3 (
    run_id          INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    step_index      INTEGER NOT NULL,
    scenario        TEXT    NOT NULL,
    threads         INTEGER NOT NULL,
    started_unix_ms INTEGER NOT NULL,
    ended_unix_ms   INTEGER NOT NULL,
    -- Headline figures, copied out of result_json for listings and SQL queries;
    -- NULL when the source did not give them.
    tps             REAL,
    qps             REAL,
    latency_pct_ms  REAL,
    p95_ms          REAL,
    p99_ms          REAL,
    result_json     TEXT    NOT NULL,
    histogram       TEXT    NOT NULL,
    PRIMARY KEY (run_id, step_index)
);
INSERT INTO steps_v3
    SELECT run_id, step_index, scenario, threads, started_unix_ms, ended_unix_ms,
           tps, qps, latency_pct_ms, p95_ms, p99_ms, result_json, histogram
    FROM steps;

CREATE TABLE intervals_v3 (
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
    FOREIGN KEY (run_id, step_index) REFERENCES steps_v3 (run_id, step_index) ON DELETE CASCADE
);
INSERT INTO intervals_v3 SELECT * FROM intervals;

DROP TABLE intervals;
DROP TABLE steps;
ALTER TABLE steps_v3 RENAME TO steps;
ALTER TABLE intervals_v3 RENAME TO intervals;

CREATE TABLE import_files (
    run_id  INTEGER PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,
    sha256  TEXT    NOT NULL,
    file    TEXT    NOT NULL
);
CREATE INDEX import_files_sha256 ON import_files (sha256);
