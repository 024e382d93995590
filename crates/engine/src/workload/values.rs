//! The c and pad column values: sysbench's templates of 11-digit groups joined by dashes.

use super::rand::SbRand;

/// 10 groups, 119 characters (`c_value_template` in oltp_common.lua).
pub const C_TEMPLATE: &str = "###########-###########-###########-###########-###########-###########-###########-###########-###########-###########";
/// 5 groups, 59 characters (`pad_value_template`).
pub const PAD_TEMPLATE: &str = "###########-###########-###########-###########-###########";

/// `sysbench.rand.string(template)`: `#` becomes a digit, `@` a letter, the rest stays.
/// Writes into `out` (cleared first) so the hot loop reuses one buffer.
pub fn fill_template(rng: &mut SbRand, template: &str, out: &mut String) {
    out.clear();
    out.reserve(template.len());
    for b in template.bytes() {
        let ch = match b {
            b'#' => rng.digit(),
            b'@' => rng.letter(),
            other => other,
        };
        out.push(ch as char);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::RandOptions;

    #[test]
    fn values_have_sysbench_format() {
        let mut r = SbRand::new(&RandOptions::default(), 0);
        let mut s = String::new();
        fill_template(&mut r, C_TEMPLATE, &mut s);
        assert_eq!(s.len(), 119);
        assert_eq!(s.split('-').count(), 10);
        assert!(s
            .split('-')
            .all(|g| g.len() == 11 && g.bytes().all(|b| b.is_ascii_digit())));
        fill_template(&mut r, PAD_TEMPLATE, &mut s);
        assert_eq!(s.len(), 59);
    }
}
