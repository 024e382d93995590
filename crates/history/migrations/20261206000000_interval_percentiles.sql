-- DB Dyno run history: every per-second record's p95 and p99 in ms (issue 10, the
-- p99 interval of every step). `latency_ms` keeps the `--percentile` figure sysbench
-- prints; these two give the step's confidence a p95 and a p99 series whatever that
-- percentile is. NULL when the source did not give the figure: intervals stored before
-- this version (nothing is made up for them) and an imported log's line for the
-- percentile it does not print.
ALTER TABLE intervals ADD COLUMN p95_ms REAL;
ALTER TABLE intervals ADD COLUMN p99_ms REAL;
