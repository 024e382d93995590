//! One integration-test binary (as ripgrep does): the real `dbdyno` and engine against
//! the real sandbox MariaDB. Each test works in a schema of its own.

mod bad_input;
mod checks;
mod clients;
mod clients_profile;
mod connections;
mod counters;
mod drain;
mod gate;
mod gate_lint;
mod history;
mod hwtest;
mod hwtest_remote;
mod import;
mod ladder;
mod monitoring;
mod open_loop;
mod prewarm;
mod profiles;
mod remote;
mod report_history;
mod restart;
mod safety;
mod secret_leaks;
mod secrets;
mod sla;
mod sshd;
mod step_errors;
mod storage_faults;
mod sysbench_spellings;
mod tpcc_data;
mod tpcc_prewarm;
mod tpcc_report;
mod tpcc_run;
mod verdicts;
mod workloads;
