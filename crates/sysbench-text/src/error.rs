//! What can go wrong reading a sysbench log, said so that a person can fix the file.

/// A sysbench text could not be read. Line numbers count from 1, as editors do.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ParseError {
    /// A line was recognised by its label but its figures were not what sysbench prints.
    #[error("line {line}: expected {expected}, found '{found}'")]
    Malformed {
        line: usize,
        expected: String,
        found: String,
    },

    /// A summary block began but a line every sysbench summary has never came
    /// (a truncated or hand-edited log).
    #[error("line {line}: the summary starting here has no '{missing}' line; the log looks truncated or edited (expected sysbench's full report down to 'Threads fairness:')")]
    Incomplete { line: usize, missing: &'static str },

    /// Nothing in the text looks like a sysbench run.
    #[error("no sysbench run found: expected interval lines such as '[ 10s ] thds: 8 tps: ...' or a summary starting with 'SQL statistics:' or 'General statistics:'")]
    NoRun,
}

impl ParseError {
    pub(crate) fn malformed(line: usize, expected: impl Into<String>, found: &str) -> Self {
        ParseError::Malformed {
            line,
            expected: expected.into(),
            found: found.trim().to_string(),
        }
    }
}
