//! A load client as the user names it: `local` (this machine, in a child process) or
//! `ssh://[user@]host[:port]`. The profile's parser is the one parser of these names
//! (the same text is read from `--clients`, `plan.clients` and `[[clients]]` urls), so
//! the clients crate takes its type rather than keeping a second one.

pub use dbdyno_profile::clients::{ClientUrl as ClientSpec, ClientUrlError as SpecError};
