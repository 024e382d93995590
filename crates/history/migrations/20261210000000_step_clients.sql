-- DB Dyno run history: each load client's share of a step run from several clients
-- (issue 12), copied out of result_json's `clients` for listings and SQL queries. A step
-- run from this machine alone has no row here. The step's own row in `steps` holds the
-- exact merge of these shares; `lost_after_s` and `lost_reason` are set for a client
-- lost during the step, which makes the step partial.
CREATE TABLE step_clients (
    run_id          INTEGER NOT NULL,
    step_index      INTEGER NOT NULL,
    -- `local`, or the client's `ssh://user@host:port` as the user named it.
    client          TEXT    NOT NULL,
    threads         INTEGER NOT NULL,
    tps             REAL    NOT NULL,
    qps             REAL    NOT NULL,
    -- At the step's percentile, from this client's own histogram.
    latency_pct_ms  REAL    NOT NULL,
    transactions    INTEGER NOT NULL,
    errors          INTEGER NOT NULL,
    reconnects      INTEGER NOT NULL,
    -- The load generator's CPU as a share of that client machine's cores, in percent.
    client_cpu_pct  REAL    NOT NULL,
    client_bound    INTEGER NOT NULL,
    lost_after_s    REAL,
    lost_reason     TEXT,
    PRIMARY KEY (run_id, step_index, client),
    FOREIGN KEY (run_id, step_index) REFERENCES steps (run_id, step_index) ON DELETE CASCADE
);
