//! Counts in DB Dyno's own words: "1 thread", "2 threads", "1 cell".
//!
//! Lines that copy sysbench's output keep sysbench's wording (`Threads started!`,
//! `threads: 8`); everything DB Dyno says in its own sentences counts through here.

/// "1 thread", "8 threads", "0 threads": `n` and the noun, plural unless `n` is 1.
pub fn count(n: impl Into<f64> + Copy + std::fmt::Display, noun: &str) -> String {
    format!("{n} {}", plural(n.into(), noun))
}

/// The noun for `n` of it: English plurals of the nouns DB Dyno counts (thread, cell,
/// table, step, row, repeat, run, second, warehouse, client, connection, query, ...).
pub fn plural(n: f64, noun: &str) -> String {
    if n == 1.0 {
        return noun.to_string();
    }
    match noun {
        "query" => "queries".into(),
        "is" => "are".into(),
        "was" => "were".into(),
        _ if noun.ends_with('s') || noun.ends_with("sh") || noun.ends_with("ch") => {
            format!("{noun}es")
        }
        _ => format!("{noun}s"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_is_singular_every_other_count_plural() {
        assert_eq!(count(1u32, "thread"), "1 thread");
        assert_eq!(count(2u32, "thread"), "2 threads");
        assert_eq!(count(0u32, "cell"), "0 cells");
        assert_eq!(count(1u32, "cell"), "1 cell");
        assert_eq!(count(3u32, "query"), "3 queries");
        assert_eq!(count(2u32, "process"), "2 processes");
        assert_eq!(count(1.5f64, "second"), "1.5 seconds");
        assert_eq!(plural(1.0, "was"), "was");
        assert_eq!(plural(4.0, "was"), "were");
    }
}
