//! Room for the file set: `df` of the chosen directory over SSH, checked before anything
//! is written there.

/// What is kept free beyond the file set: a tenth of it, at least 1 GiB, so the test
/// never fills the filesystem the database writes to.
pub fn margin_bytes(file_set: u64) -> u64 {
    (file_set / 10).max(1 << 30)
}

/// The shell command whose output [`parse_df_available`] reads (POSIX output, KiB).
pub fn df_command(quoted_dir: &str) -> String {
    format!("df -Pk -- {quoted_dir}")
}

/// Bytes available to the user on the filesystem, from `df -Pk`'s second line.
pub fn parse_df_available(output: &str) -> Option<u64> {
    let line = output.lines().nth(1)?;
    let kib: u64 = line.split_whitespace().nth(3)?.parse().ok()?;
    Some(kib * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_available_column() {
        let out = "Filesystem     1024-blocks     Used Available Capacity Mounted on\n\
                   /dev/vda         264212084 70181676  25104212      74% /\n";
        assert_eq!(parse_df_available(out), Some(25_104_212 * 1024));
        assert_eq!(
            parse_df_available("df: /nope: No such file or directory\n"),
            None
        );
    }

    #[test]
    fn the_margin_is_a_tenth_but_at_least_a_gibibyte() {
        assert_eq!(margin_bytes(2 << 30), 1 << 30);
        assert_eq!(margin_bytes(100 << 30), 10 << 30);
    }
}
