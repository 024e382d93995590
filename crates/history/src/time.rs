//! The history's dates: the engine's UTC text and parsing ([`dbdyno_engine::utc`]),
//! under the name the history's modules and its users have always called them by.

pub use dbdyno_engine::utc::{civil_from_days, days_from_civil, now_ms, parse_datetime, rfc3339};
