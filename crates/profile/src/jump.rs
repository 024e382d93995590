//! The `[ssh] jump` value: OpenSSH's `ProxyJump` syntax, parsed into hops, nearest
//! first. The SSH floor (`dbdyno-ssh`) connects through them; here they are only text.

/// One hop of a `ProxyJump` list, as the user wrote it: `[user@]host[:port]`, or
/// `ssh://[user@]host[:port]`. Missing parts are filled in by whoever builds the target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JumpHost {
    pub user: Option<String>,
    pub host: String,
    pub port: Option<u16>,
}

/// Parses OpenSSH's `ProxyJump` value: hops separated by commas, nearest first.
/// `none` (OpenSSH's word for "no jump host") is an empty list.
pub fn parse_jump_hosts(spec: &str) -> Result<Vec<JumpHost>, String> {
    let spec = spec.trim();
    if spec.is_empty() || spec.eq_ignore_ascii_case("none") {
        return Ok(Vec::new());
    }
    spec.split(',').map(|hop| parse_hop(hop.trim())).collect()
}

fn parse_hop(hop: &str) -> Result<JumpHost, String> {
    let bare = hop.strip_prefix("ssh://").unwrap_or(hop);
    let (user, rest) = match bare.rsplit_once('@') {
        Some((u, r)) if !u.is_empty() => (Some(u.to_string()), r),
        Some(_) => return Err(format!("jump host `{hop}`: the user before `@` is empty")),
        None => (None, bare),
    };
    // `[::1]:2222` or `[::1]`: an IPv6 literal is bracketed when a port may follow.
    let (host, port) = if let Some(inner) = rest.strip_prefix('[') {
        let (h, after) = inner
            .split_once(']')
            .ok_or_else(|| format!("jump host `{hop}`: `[` without `]`"))?;
        (h, after.strip_prefix(':'))
    } else {
        match rest.rsplit_once(':') {
            Some((h, p)) if !h.contains(':') => (h, Some(p)),
            _ => (rest, None),
        }
    };
    if host.is_empty() {
        return Err(format!("jump host `{hop}`: no host name"));
    }
    let port = port
        .map(|p| {
            p.parse::<u16>()
                .ok()
                .filter(|&p| p > 0)
                .ok_or_else(|| format!("jump host `{hop}`: `{p}` is not a port (1-65535)"))
        })
        .transpose()?;
    Ok(JumpHost {
        user,
        host: host.to_string(),
        port,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hop(user: Option<&str>, host: &str, port: Option<u16>) -> JumpHost {
        JumpHost {
            user: user.map(str::to_string),
            host: host.to_string(),
            port,
        }
    }

    #[test]
    fn proxy_jump_values_as_openssh_writes_them() {
        assert_eq!(parse_jump_hosts("none").unwrap(), vec![]);
        assert_eq!(parse_jump_hosts("  ").unwrap(), vec![]);
        assert_eq!(
            parse_jump_hosts("bastion").unwrap(),
            vec![hop(None, "bastion", None)]
        );
        assert_eq!(
            parse_jump_hosts("ops@bastion:2222, ssh://root@[::1]:22,inner,[fe80::1]").unwrap(),
            vec![
                hop(Some("ops"), "bastion", Some(2222)),
                hop(Some("root"), "::1", Some(22)),
                hop(None, "inner", None),
                hop(None, "fe80::1", None),
            ]
        );
        // A bare IPv6 literal has no port: its colons are the address's.
        assert_eq!(
            parse_jump_hosts("::1").unwrap(),
            vec![hop(None, "::1", None)]
        );
        for bad in [
            "bastion:0",
            "bastion:ssh",
            "@bastion",
            "[::1",
            "ops@",
            "a,,b",
        ] {
            let e = parse_jump_hosts(bad).unwrap_err();
            assert!(e.starts_with("jump host `"), "{bad}: {e}");
        }
    }
}
