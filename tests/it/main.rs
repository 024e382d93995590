//! One integration-test binary (as ripgrep does): the real `dbdyno` and engine against
//! the real sandbox MariaDB. Each test works in a schema of its own.

mod bad_input;
mod counters;
mod ladder;
mod restart;
mod safety;
mod workloads;
