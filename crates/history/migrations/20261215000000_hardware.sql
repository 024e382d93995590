-- DB Dyno run history: the environments' hardware records. One row per measurement of
-- a database host (`dbdyno hwtest`, the app's "Measure the server") or per imported
-- sysbench fileio/cpu/memory log: each test's whole result as JSON, plus the headline
-- figures reports compare (NULL when the record has no test that gives them).
CREATE TABLE hardware_records (
    id                  INTEGER PRIMARY KEY AUTOINCREMENT,
    env                 TEXT    NOT NULL,
    recorded_at_ms      INTEGER NOT NULL,
    source              TEXT    NOT NULL CHECK (source IN ('measured', 'imported')),
    host                TEXT,
    disk_device         TEXT,
    disk_model          TEXT,
    cpu_model           TEXT,
    rnd_read_iops       REAL,
    rnd_write_iops      REAL,
    fsyncs_per_s        REAL,
    seq_mib_per_s       REAL,
    cpu_events_per_s    REAL,
    memory_mib_per_s    REAL,
    -- JSON array of dbdyno_hwtest::HwTestResult, in the order the tests ran.
    results_json        TEXT    NOT NULL,
    tool_version        TEXT    NOT NULL
);
CREATE INDEX hardware_records_env ON hardware_records (env, recorded_at_ms);
