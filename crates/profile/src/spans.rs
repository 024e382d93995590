//! Line numbers for dotted field paths, from the spans `toml` keeps while parsing.

use std::ops::Range;

use toml::de::{DeTable, DeValue};
use toml::Spanned;

/// Line (from 1) of byte offset `at` in `text`.
pub fn line_of(text: &str, at: usize) -> usize {
    text.as_bytes()[..at.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// The span of the value at `path` (`plan.threads[2]`), or of the deepest part of it
/// that exists in the file (a missing key points at its table).
pub fn span_of(root: &Spanned<DeTable<'_>>, path: &str) -> Option<Range<usize>> {
    let mut best: Option<Range<usize>> = None;
    let mut table: Option<&DeTable<'_>> = Some(root.get_ref());
    let mut value: Option<&Spanned<DeValue<'_>>> = None;
    for part in path.split('.') {
        let (name, index) = match part.split_once('[') {
            Some((n, rest)) => (n, rest.trim_end_matches(']').parse::<usize>().ok()),
            None => (part, None),
        };
        let t = match (table, value.map(|v| v.get_ref())) {
            (Some(t), _) => t,
            (None, Some(DeValue::Table(t))) => t,
            _ => break,
        };
        let Some((k, v)) = t.iter().find(|(k, _)| k.get_ref().as_ref() == name) else {
            break;
        };
        best = Some(k.span());
        value = Some(v);
        table = None;
        if let (Some(i), DeValue::Array(a)) = (index, v.get_ref()) {
            match a.get(i) {
                Some(item) => {
                    best = Some(item.span());
                    value = Some(item);
                }
                None => break,
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_of_nested_keys_and_array_items() {
        let text = "name = \"x\"\n\n[plan]\nthreads = [\n  1,\n  0,\n]\ntime = 3\n";
        let doc = DeTable::parse(text).unwrap();
        let line = |p: &str| span_of(&doc, p).map(|s| line_of(text, s.start));
        assert_eq!(line("name"), Some(1));
        assert_eq!(line("plan.time"), Some(8));
        assert_eq!(line("plan.threads[1]"), Some(6));
        assert_eq!(line("plan.threads"), Some(4));
        assert_eq!(
            line("plan.nothing"),
            Some(3),
            "a missing key points at its table"
        );
        assert_eq!(line("mysql.host"), None);
    }
}
