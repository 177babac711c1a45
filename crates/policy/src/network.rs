//! Which judged command lines reach the network on their own: the one list
//! both faces use when a line runs outside ploy's sandbox (the agent's
//! `shell` under `danger-full-access`, a Claude Code `Bash` call). Such a
//! line brings outside text in, so the conversation is marked before it
//! runs (TAINT-1), and what it sends is checked for known secrets
//! (BEYOND-6). A list of programs cannot be complete: the closed form is
//! the sandbox (no network at all).

use crate::action::{Action, ActionKind};

/// Programs that fetch from (or send to) the network whatever their
/// arguments.
/// Name lookups count: a query name carries data out and a TXT answer
/// brings outside text in (round7 #16).
const NETWORK_PROGRAMS: [&str; 45] = [
    "curl",
    "wget",
    "wget2",
    "gh",
    "glab",
    "hub",
    "http",
    "https",
    "xh",
    "aria2c",
    "lynx",
    "w3m",
    "links",
    "elinks",
    "nc",
    "ncat",
    "netcat",
    "socat",
    "telnet",
    "ssh",
    "ftp",
    "tftp",
    "scp",
    "sftp",
    "rsync",
    "svn",
    "hg",
    "httpie",
    "websocat",
    "openssl",
    "dig",
    "nslookup",
    "host",
    "drill",
    "kdig",
    "delv",
    "resolvectl",
    "getent",
    "ping",
    "ping6",
    "whois",
    "traceroute",
    "tracepath",
    "mtr",
    "nmap",
];

/// `git` subcommands that talk to a remote.
const NETWORK_GIT: [&str; 7] = [
    "fetch",
    "pull",
    "clone",
    "ls-remote",
    "archive",
    "push",
    "submodule",
];

impl Action {
    /// True when a judged shell line runs a program that reaches the
    /// network (by its name, through any launcher the judge sees through:
    /// `timeout 5 curl …`, `env X=1 wget …`).
    pub fn reaches_network(&self) -> bool {
        self.units()
            .iter()
            .filter(|u| u.kind == ActionKind::Shell)
            .flat_map(|u| u.candidates.iter().chain(&u.deny_candidates))
            .any(|words| {
                let mut words = words.split_whitespace();
                let program = words.next().unwrap_or("");
                let program = program.rsplit('/').next().unwrap_or(program);
                NETWORK_PROGRAMS.contains(&program)
                    || (program == "git" && words.any(|w| NETWORK_GIT.contains(&w)))
            })
    }
}

#[cfg(test)]
mod tests {
    use crate::{Action, ProjectRoot};

    fn line(text: &str) -> bool {
        let dir = std::env::temp_dir();
        let root = ProjectRoot::new(&dir).expect("root");
        Action::shell("shell", text, &root).reaches_network()
    }

    #[test]
    fn network_programs_are_seen_through_launchers_and_paths() {
        // proves: TAINT-1
        for text in [
            "curl -s http://example.com/",
            "/usr/bin/curl x",
            "timeout 5 wget -qO- x",
            "env A=1 nc host 80",
            "ls && git -C . fetch origin",
            "git push origin main",
            "echo x | ssh host cat",
            "dig +short TXT x.example.com",
            "nslookup secret.example.com",
            "ping -c1 x.example.com",
            "getent hosts x.example.com",
        ] {
            assert!(line(text), "{text} reaches the network");
        }
    }

    #[test]
    fn local_programs_do_not() {
        for text in [
            "ls -la",
            "git status",
            "cargo test",
            "grep -r curl src",
            "echo curl",
        ] {
            assert!(!line(text), "{text} is local");
        }
    }
}
