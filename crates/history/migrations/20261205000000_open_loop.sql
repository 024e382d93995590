-- DB Dyno run history: the arrival queue of open-loop steps (--rate, --rates), one row
-- per interval as `dbdyno` printed it: arrivals due and not started at the interval's
-- end (sysbench's "queue length"), transactions in flight then ("concurrency"), the
-- interval's late starts and its longest start lag in ms. All NULL for a closed-loop
-- interval and for intervals stored before this version. The step's own open-loop
-- figures (target rate, connections, sustained or not) live in its result_json.
ALTER TABLE intervals ADD COLUMN queue_length INTEGER;
ALTER TABLE intervals ADD COLUMN concurrency INTEGER;
ALTER TABLE intervals ADD COLUMN late_starts INTEGER;
ALTER TABLE intervals ADD COLUMN max_lag_ms REAL;
