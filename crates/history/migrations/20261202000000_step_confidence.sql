-- DB Dyno run history, version 4: each step's confidence (issue "Confidence for every
-- figure"). The headline 95% intervals, copied out of result_json's `confidence` for
-- listings and SQL queries: bounds of TPS, QPS, p95 and p99, the coefficient of
-- variation of the per-second TPS (percent) and whether the step settled (0/1).
-- NULL when the step has no interval of that figure (too few per-second records, a
-- percentile the records do not carry, an imported log without interval lines).
--
-- Steps stored before this version get them from their stored per-second records when
-- the history is opened (batch means need Rust, not SQL; see `backfill.rs`): `settled`
-- stays NULL exactly for the steps whose confidence was never made.
ALTER TABLE steps ADD COLUMN tps_lo REAL;
ALTER TABLE steps ADD COLUMN tps_hi REAL;
ALTER TABLE steps ADD COLUMN qps_lo REAL;
ALTER TABLE steps ADD COLUMN qps_hi REAL;
ALTER TABLE steps ADD COLUMN p95_lo REAL;
ALTER TABLE steps ADD COLUMN p95_hi REAL;
ALTER TABLE steps ADD COLUMN p99_lo REAL;
ALTER TABLE steps ADD COLUMN p99_hi REAL;
ALTER TABLE steps ADD COLUMN cv_pct REAL;
ALTER TABLE steps ADD COLUMN settled INTEGER;
