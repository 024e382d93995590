//! The rows prepare loads, written either as LOAD DATA's tab-separated lines or as
//! INSERT tuples, and the random values they are made of (sysbench's
//! `sysbench.rand.uniform`, `uniform_double` and `string` templates, as tpcc_common.lua
//! uses them: `@` a lowercase letter, `#` a digit).
//!
//! Every value prepare writes is a number, a NULL, a timestamp or a string of letters,
//! digits, `-` and `.`: nothing needs escaping in either form.

use std::io::Write as _;

use crate::workload::rand::SbRand;
use crate::workload::RandOptions;

use super::random;

/// A loader thread's random source: sysbench's uniform generator ([`SbRand`]), seeded
/// from the clock as sysbench is by default.
pub struct RowRng(SbRand);

impl RowRng {
    pub fn new() -> RowRng {
        RowRng(SbRand::new(&RandOptions::default(), 0))
    }

    /// `sysbench.rand.uniform(a, b)`: inclusive bounds.
    pub fn uniform(&mut self, a: u32, b: u32) -> u32 {
        self.0.uniform(a as u64, b as u64) as u32
    }

    /// `sysbench.rand.uniform_double()`: in [0, 1).
    pub fn uniform_double(&mut self) -> f64 {
        self.0.next_u32() as f64 / (u32::MAX as f64 + 1.0)
    }

    /// `NURand(A, x, y)`, the run side's ([`random::nurand`]).
    pub fn nurand(&mut self, a: u32, x: u32, y: u32) -> u32 {
        random::nurand(&mut self.0, a as u64, x as u64, y as u64) as u32
    }

    /// A random lowercase letter (`@` in a template).
    pub fn letter(&mut self) -> u8 {
        self.0.letter()
    }

    fn digit(&mut self) -> u8 {
        self.0.digit()
    }

    /// Shuffles `v` as the reference does (Fisher-Yates: slot i takes a uniform pick
    /// from i..=n).
    pub fn shuffle<T>(&mut self, v: &mut [T]) {
        let n = v.len();
        for i in 0..n.saturating_sub(1) {
            let j = self.0.uniform(i as u64, (n - 1) as u64) as usize;
            v.swap(i, j);
        }
    }
}

impl Default for RowRng {
    fn default() -> Self {
        RowRng::new()
    }
}

/// How the rows reach the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowFormat {
    /// `a\tb\t\N\n`: LOAD DATA's default field and line terminators.
    Tsv,
    /// `(a,'b',NULL),`: tuples for `INSERT ... VALUES`, each followed by a comma.
    Values,
}

/// The rows of one table for one statement (or several INSERTs), and where each ends.
pub struct RowBuf {
    format: RowFormat,
    bytes: Vec<u8>,
    /// End offset of each row in `bytes`.
    row_ends: Vec<usize>,
    first_field: bool,
}

impl RowBuf {
    pub fn new(format: RowFormat) -> RowBuf {
        RowBuf {
            format,
            bytes: Vec::with_capacity(1 << 20),
            row_ends: Vec::new(),
            first_field: true,
        }
    }

    pub fn clear(&mut self, format: RowFormat) {
        self.format = format;
        self.bytes.clear();
        self.row_ends.clear();
        self.first_field = true;
    }

    pub fn rows(&self) -> usize {
        self.row_ends.len()
    }

    pub fn bytes_mut(&mut self) -> &mut Vec<u8> {
        &mut self.bytes
    }

    fn separate(&mut self) {
        if self.first_field {
            self.first_field = false;
            if self.format == RowFormat::Values {
                self.bytes.push(b'(');
            }
        } else {
            self.bytes.push(if self.format == RowFormat::Tsv {
                b'\t'
            } else {
                b','
            });
        }
    }

    fn open_string(&mut self) {
        self.separate();
        if self.format == RowFormat::Values {
            self.bytes.push(b'\'');
        }
    }

    fn close_string(&mut self) {
        if self.format == RowFormat::Values {
            self.bytes.push(b'\'');
        }
    }

    pub fn int(&mut self, v: i64) -> &mut Self {
        self.separate();
        let _ = write!(self.bytes, "{v}");
        self
    }

    /// A DECIMAL(…,2) value (every decimal column prepare fills has scale 2), as the
    /// server stores the reference's text of it: `%f`'s six decimals, rounded half away
    /// from zero to two. Sent already rounded, because the server notes every value it
    /// has to round (a "Data truncated" note per row and column, 1.7 million at scale 4).
    pub fn decimal(&mut self, v: f64) -> &mut Self {
        self.separate();
        let six = format!("{:.6}", v.abs());
        let micros: u64 = six.replace('.', "").parse().unwrap_or(0);
        let cents = (micros + 5_000) / 10_000;
        let sign = if v < 0.0 && cents > 0 { "-" } else { "" };
        let _ = write!(self.bytes, "{sign}{}.{:02}", cents / 100, cents % 100);
        self
    }

    pub fn null(&mut self) -> &mut Self {
        self.separate();
        self.bytes.extend_from_slice(match self.format {
            RowFormat::Tsv => b"\\N",
            RowFormat::Values => b"NULL",
        });
        self
    }

    /// A string taken as is (a fixed value, a name, a timestamp).
    pub fn text(&mut self, s: &str) -> &mut Self {
        self.open_string();
        self.bytes.extend_from_slice(s.as_bytes());
        self.close_string();
        self
    }

    /// `sysbench.rand.string(template)`: `@` becomes a random lowercase letter, `#` a
    /// random digit, anything else stays.
    pub fn template(&mut self, rng: &mut RowRng, template: &str) -> &mut Self {
        self.open_string();
        for &c in template.as_bytes() {
            let b = match c {
                b'@' => rng.letter(),
                b'#' => rng.digit(),
                other => other,
            };
            self.bytes.push(b);
        }
        self.close_string();
        self
    }

    /// `string.rep(sysbench.rand.string("@"), n)`: one random letter, `n` times.
    pub fn repeated_letter(&mut self, rng: &mut RowRng, n: u32) -> &mut Self {
        self.open_string();
        let letter = rng.letter();
        self.bytes.extend(std::iter::repeat_n(letter, n as usize));
        self.close_string();
        self
    }

    /// `string.rep("@", n)` through `sysbench.rand.string`: `n` random letters.
    pub fn random_letters(&mut self, rng: &mut RowRng, prefix: &str, n: u32) -> &mut Self {
        self.open_string();
        self.bytes.extend_from_slice(prefix.as_bytes());
        for _ in 0..n {
            let l = rng.letter();
            self.bytes.push(l);
        }
        self.close_string();
        self
    }

    pub fn end_row(&mut self) {
        match self.format {
            RowFormat::Tsv => self.bytes.push(b'\n'),
            RowFormat::Values => self.bytes.extend_from_slice(b"),"),
        }
        self.row_ends.push(self.bytes.len());
        self.first_field = true;
    }

    /// The tuples cut into INSERT statements of about `max_bytes` each (Values only).
    pub fn insert_statements(&self, prefix: &str, max_bytes: usize) -> Vec<String> {
        let mut out = Vec::new();
        let mut start = 0;
        let mut last_end = 0;
        for &end in &self.row_ends {
            if end - start > max_bytes && last_end > start {
                out.push(self.statement(prefix, start, last_end));
                start = last_end;
            }
            last_end = end;
        }
        if last_end > start {
            out.push(self.statement(prefix, start, last_end));
        }
        out
    }

    fn statement(&self, prefix: &str, start: usize, end: usize) -> String {
        // Each tuple ends with a comma: the last one's is dropped.
        let tuples = String::from_utf8_lossy(&self.bytes[start..end - 1]);
        format!("{prefix} VALUES {tuples}")
    }

    #[cfg(test)]
    fn as_str(&self) -> &str {
        std::str::from_utf8(&self.bytes).unwrap()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(format: RowFormat) -> RowBuf {
        let mut rng = RowRng::new();
        let mut b = RowBuf::new(format);
        b.int(7).text("OE").null().decimal(0.125).end_row();
        b.int(-10).template(&mut rng, "zip-#####").end_row();
        b
    }

    #[test]
    fn tsv_rows_use_tabs_newlines_and_backslash_n() {
        let b = sample(RowFormat::Tsv);
        let s = b.as_str();
        let lines: Vec<&str> = s.lines().collect();
        assert_eq!(lines[0], "7\tOE\t\\N\t0.13");
        assert!(lines[1].starts_with("-10\tzip-"), "{s}");
        assert_eq!(b.rows(), 2);
    }

    #[test]
    fn values_rows_quote_strings_and_split_into_statements() {
        let b = sample(RowFormat::Values);
        assert!(
            b.as_str().starts_with("(7,'OE',NULL,0.13),(-10,'zip-"),
            "{}",
            b.as_str()
        );
        let one = b.insert_statements("INSERT INTO t", 1 << 20);
        assert_eq!(one.len(), 1);
        assert!(one[0].starts_with("INSERT INTO t VALUES (7,"), "{}", one[0]);
        assert!(one[0].ends_with("')"), "{}", one[0]);
        let two = b.insert_statements("INSERT INTO t", 5);
        assert_eq!(two.len(), 2, "{two:?}");
        assert_eq!(two[0], "INSERT INTO t VALUES (7,'OE',NULL,0.13)");
    }

    #[test]
    fn decimals_are_rounded_as_the_server_rounds_six_decimals() {
        let mut b = RowBuf::new(RowFormat::Tsv);
        for v in [
            1.234567,
            2.345678,
            0.125,
            0.0,
            9999.994999,
            100.999_999_9,
            -10.005,
        ] {
            b.decimal(v);
        }
        b.end_row();
        assert_eq!(
            b.as_str(),
            "1.23\t2.35\t0.13\t0.00\t9999.99\t101.00\t-10.01\n"
        );
    }

    #[test]
    fn templates_fill_letters_and_digits() {
        let mut rng = RowRng::new();
        let mut b = RowBuf::new(RowFormat::Tsv);
        b.template(&mut rng, "name-@@@@@")
            .template(&mut rng, "#####");
        b.repeated_letter(&mut rng, 24).end_row();
        let s = b.as_str().trim_end().to_string();
        let f: Vec<&str> = s.split('\t').collect();
        assert!(f[0].starts_with("name-") && f[0][5..].bytes().all(|c| c.is_ascii_lowercase()));
        assert!(f[1].len() == 5 && f[1].bytes().all(|c| c.is_ascii_digit()));
        assert_eq!(f[2].len(), 24);
        assert!(f[2].bytes().all(|c| c == f[2].as_bytes()[0]));
    }

    #[test]
    fn uniform_stays_within_its_bounds_and_reaches_both() {
        let mut rng = RowRng::new();
        let v: Vec<u32> = (0..2_000).map(|_| rng.uniform(5, 15)).collect();
        assert!(v.iter().all(|x| (5..=15).contains(x)));
        assert!(v.contains(&5) && v.contains(&15));
        let d: Vec<f64> = (0..2_000).map(|_| rng.uniform_double()).collect();
        assert!(d.iter().all(|x| (0.0..1.0).contains(x)));
    }
}
