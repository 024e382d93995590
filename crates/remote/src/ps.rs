//! Reading `ps -eo pid=,args=` output.

/// The command that lists every process as `<pid> <command line>`.
pub const LIST_PROCESSES: &str = "ps -eo pid=,args=";

/// PIDs of the processes whose program (first word of the command line) is `program`.
pub fn pids_running(ps_output: &str, program: &str) -> Vec<u32> {
    ps_output
        .lines()
        .filter_map(|line| {
            let line = line.trim_start();
            let (pid, args) = line.split_once(char::is_whitespace)?;
            let first = args.split_whitespace().next()?;
            (first == program).then(|| pid.parse().ok()).flatten()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const BIN: &str = "/home/u/.cache/dbdyno/bin/ab12/dbdyno";

    #[test]
    fn finds_the_program_and_nothing_that_merely_mentions_it() {
        let out = format!(
            "    1 /sbin/init\n\
             \x20 812 {BIN} agent --listen\n\
             \x20 813 sh -c {BIN} agent\n\
             \x20 900 grep {BIN}\n\
             12345 {BIN}\n\
             \x20 999 {BIN}-old agent\n\
             \x20  77 ps -eo pid=,args=\n"
        );
        assert_eq!(pids_running(&out, BIN), vec![812, 12345]);
    }

    #[test]
    fn empty_and_odd_lines_are_skipped() {
        assert!(pids_running("", BIN).is_empty());
        assert!(pids_running("\n  \nabc\nx y\n", BIN).is_empty());
    }
}
