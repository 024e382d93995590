-- DB Dyno run history, version 2: what monitoring recorded about a run (the checks
-- crate's environment snapshot, per-step server figures, sample gaps and the metrics
-- that were missing, as the `monitoring` object of `--json`). NULL when not monitored.
ALTER TABLE runs ADD COLUMN monitoring_json TEXT;
