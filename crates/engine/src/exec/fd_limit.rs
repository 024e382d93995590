//! Room for a step's sockets. Each connection is a file descriptor, and many desktops
//! start programs with a soft limit of 1,024 open files: a step of a thousand threads
//! would fail on its last connects with "Too many open files". The soft limit may be
//! raised up to the hard one without privileges, as sysbench users do with `ulimit -n`.

/// Descriptors kept free beside the connections (history, logs, SSH, the terminal).
const SPARE: u64 = 128;

/// Raises the soft open-files limit so that `connections` sockets fit, as far as the
/// hard limit allows. Returns a note when they still do not fit.
#[cfg(unix)]
pub fn make_room_for(connections: u32) -> Option<String> {
    let need = u64::from(connections) + SPARE;
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes into the struct we own.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) } != 0 {
        return None;
    }
    // rlim_t is u64 on 64-bit Linux and macOS, narrower elsewhere.
    #[allow(clippy::unnecessary_cast)]
    let (soft, hard) = (lim.rlim_cur as u64, lim.rlim_max as u64);
    if soft >= need {
        return None;
    }
    lim.rlim_cur = need.min(hard) as libc::rlim_t;
    // SAFETY: setrlimit reads the struct we own.
    let raised = unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &lim) } == 0;
    let now = if raised { need.min(hard) } else { soft };
    (now < need).then(|| {
        format!(
            "{connections} connections need about {need} open files and this process may open {now} (hard limit {hard}): raise it with `ulimit -n {need}` or in /etc/security/limits.conf"
        )
    })
}

#[cfg(not(unix))]
pub fn make_room_for(_connections: u32) -> Option<String> {
    None
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn a_small_step_needs_nothing_and_an_impossible_one_says_so() {
        assert_eq!(make_room_for(1), None);
        let note = make_room_for(u32::MAX).expect("more than any hard limit");
        assert!(note.contains("ulimit -n"), "{note}");
    }
}
