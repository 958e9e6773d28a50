//! Which `Host` a request may name (against DNS rebinding).
//!
//! A page on `evil.example` can point its name at this server's address
//! (127.0.0.1, or the machine's LAN address); the browser then sends
//! `Host: evil.example` and treats the answers as that site's own. So the
//! server answers only at the names it knows: loopback names, the address
//! it is bound to, and names given with `--allow-host`.

use std::net::IpAddr;

/// The names and addresses a server answers at.
#[derive(Debug, Clone)]
pub struct Hosts {
    /// The address the server listens on.
    pub(crate) bound: IpAddr,
    /// Further names it answers at (`--allow-host`), as given.
    pub(crate) names: Vec<String>,
}

impl Hosts {
    /// A server bound to `bound`, answering also at `names`.
    pub fn new(bound: IpAddr, names: Vec<String>) -> Hosts {
        Hosts { bound, names }
    }

    /// Whether a request with `Host: host` (with or without a port) is
    /// answered: `localhost` and loopback addresses always; a name given
    /// with `--allow-host`; and, bound beyond loopback, the bound address,
    /// or any IP address when bound to all of them (`0.0.0.0`, `::`): an
    /// address typed in a URL cannot be rebound, only a DNS name can.
    pub(crate) fn allows(&self, host: &str) -> bool {
        let name = name_of(host);
        if name.is_empty() {
            return false;
        }
        let ip = name.parse::<IpAddr>().ok();
        if name.eq_ignore_ascii_case("localhost") || ip.is_some_and(|ip| ip.is_loopback()) {
            return true;
        }
        if self.names.iter().any(|n| same_name(n, name)) {
            return true;
        }
        match ip {
            Some(_) if self.bound.is_loopback() => false,
            Some(_) if self.bound.is_unspecified() => true,
            Some(ip) => ip == self.bound,
            None => false,
        }
    }

    /// Why `host` is refused, for the 403's message.
    pub(crate) fn refusal(&self, host: &str) -> String {
        let extra = if self.names.is_empty() {
            String::new()
        } else {
            format!(", {}", self.names.join(", "))
        };
        if self.bound.is_loopback() {
            format!(
                "this server answers only at 127.0.0.1 or localhost{extra}, not at `{host}`; \
                 start it with --allow-host NAME to answer at another name"
            )
        } else {
            let at = if self.bound.is_unspecified() {
                "its IP addresses".to_string()
            } else {
                self.bound.to_string()
            };
            format!(
                "this server answers only at {at}, localhost{extra}, not at `{host}`; \
                 start it with --allow-host NAME to answer at another name"
            )
        }
    }
}

/// The name of a `Host` value: without the port, brackets and a final dot.
fn name_of(host: &str) -> &str {
    let host = host.trim();
    let name = if let Some(rest) = host.strip_prefix('[') {
        rest.split(']').next().unwrap_or_default()
    } else {
        host.rsplit_once(':').map_or(host, |(name, _)| name)
    };
    name.strip_suffix('.').unwrap_or(name)
}

/// A name given with `--allow-host` (port and final dot optional) names
/// `name`, case aside.
fn same_name(given: &str, name: &str) -> bool {
    name_of(given).eq_ignore_ascii_case(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hosts(bound: &str, names: &[&str]) -> Hosts {
        Hosts::new(
            bound.parse().unwrap(),
            names.iter().map(|n| n.to_string()).collect(),
        )
    }

    #[test]
    fn loopback_answers_loopback_names_and_allowed_names_only() {
        let h = hosts("127.0.0.1", &["glossa.test"]);
        for ok in [
            "127.0.0.1:8080",
            "localhost",
            "LOCALHOST:1",
            "[::1]:8080",
            "127.1.2.3",
            "glossa.test:8080",
            "GLOSSA.test.",
        ] {
            assert!(h.allows(ok), "{ok}");
        }
        for bad in [
            "evil.example:8080",
            "10.0.0.2:8080",
            "",
            "localhost.evil.example",
            "[::2]:80",
            "glossa.test.evil.example",
        ] {
            assert!(!h.allows(bad), "{bad}");
        }
    }

    #[test]
    fn beyond_loopback_the_bound_address_localhost_and_allowed_names() {
        let h = hosts("192.0.2.7", &["glossa.lan"]);
        for ok in [
            "192.0.2.7:8080",
            "localhost:8080",
            "glossa.lan",
            "127.0.0.1",
        ] {
            assert!(h.allows(ok), "{ok}");
        }
        for bad in ["192.0.2.8:8080", "evil.example", "lan", ""] {
            assert!(!h.allows(bad), "{bad}");
        }
        // Bound to every address: any address, but still no other name.
        let all = hosts("0.0.0.0", &[]);
        assert!(all.allows("10.1.2.3:8080") && all.allows("[fe80::1]:80"));
        assert!(!all.allows("evil.example:8080"));
        assert!(all.refusal("evil.example").contains("--allow-host"));
    }
}
