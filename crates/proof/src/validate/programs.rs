//! PROOF-2 (programs, subcommands, dangerous flags, wrappers) and the hand-off
//! to PROOF-4 (inline code). Works on a command's static argv: by the time a
//! command gets here every word has a known run-time value.

use super::{Checker, MAX_WRAPPER_DEPTH, inline};

/// Programs a proof may never run, grouped by why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeniedProgram {
    /// Why they are refused.
    pub why: &'static str,
    /// Program names (lower case, without a path). A name ending in `*`
    /// matches every name with that prefix followed by `.` or a digit (`mkfs*`:
    /// `mkfs.ext4`).
    pub names: &'static [&'static str],
}

const PRIVILEGE: &str = "runs commands as another user";
const DELETES: &str = "deletes or overwrites files";
const WRITES: &str = "creates or changes files; a proof only reads";
const DISKS: &str = "changes disks or file systems";
const PERMISSIONS: &str = "changes permissions or ownership";
const PROCESSES: &str = "stops or controls other processes";
const SYSTEM: &str = "changes the system or its services";
const NETWORK: &str = "uses the network";
const PACKAGES: &str = "installs or removes software";
const CONTAINERS: &str = "controls containers, machines or clusters";
const DESKTOP: &str = "opens files or programs on the desktop";
const LAUNCHER: &str = "launches other programs in ways the validator cannot follow";
const INTERACTIVE: &str = "is an interactive pager or editor that can run commands";
const SHELL_STATE: &str = "changes the shell itself (variables, options, aliases, traps), which can change what later commands do";
const DEBUGGER: &str = "can inspect or control other processes";
const DATABASE: &str = "is a database shell that can write files or run commands";
const SECRETS: &str = "handles keys, credentials or the clipboard";

macro_rules! denied {
    ($why:expr => $($name:literal),+ $(,)?) => {
        DeniedProgram { why: $why, names: &[$($name),+] }
    };
}

/// The programs a proof may never run (PROOF-2), as one documented table.
/// Matching is on the lower-cased last path component, so `/bin/rm`, `RM`
/// (case-insensitive file systems) and `\rm` are all `rm`.
pub const DENIED_PROGRAMS: &[DeniedProgram] = &[
    denied!(PRIVILEGE => "sudo", "su", "doas", "pkexec", "sudoedit", "runuser", "setpriv", "run0"),
    denied!(DELETES => "rm", "rmdir", "unlink", "shred", "dd", "wipe", "srm", "trash", "trash-put", "gio"),
    denied!(WRITES => "cp", "mv", "ln", "install", "touch", "mkdir", "mknod", "mkfifo", "truncate", "fallocate",
        "patch", "split", "csplit", "rename", "zip", "gzip", "gunzip", "bzip2", "bunzip2", "xz", "unxz", "zstd",
        "unzstd", "lz4", "compress", "uncompress", "cpio", "pax", "strip", "objcopy", "ar", "sponge", "chattr",
        "setfattr", "ed", "ex"),
    denied!(DISKS => "mkfs*", "mkswap", "fdisk", "sfdisk", "cfdisk", "parted", "gdisk", "wipefs", "mount", "umount",
        "losetup", "swapon", "swapoff", "fsck*", "e2fsck", "tune2fs", "resize2fs", "cryptsetup", "lvm", "mdadm", "blkdiscard"),
    denied!(PERMISSIONS => "chmod", "chown", "chgrp", "setfacl", "setcap", "umask"),
    denied!(PROCESSES => "kill", "pkill", "killall", "skill", "renice", "disown", "fg", "bg", "jobs", "wait"),
    denied!(SYSTEM => "reboot", "shutdown", "halt", "poweroff", "init", "telinit", "systemctl", "service", "launchctl",
        "crontab", "at", "batch", "sysctl", "modprobe", "insmod", "rmmod", "iptables", "ip6tables", "nft", "ufw",
        "ifconfig", "ip", "route", "useradd", "userdel", "usermod", "groupadd", "groupdel", "passwd", "chpasswd",
        "visudo", "hostnamectl", "timedatectl", "loginctl", "journalctl", "dmesg", "chroot", "unshare", "nsenter",
        "capsh", "defaults", "scutil", "networksetup", "pmset", "diskutil", "csrutil", "spctl", "tmutil", "systemd-run"),
    denied!(NETWORK => "curl", "wget", "ssh", "scp", "sftp", "rsync", "nc*", "ncat*", "netcat*", "socat", "telnet", "ftp",
        "tftp", "ping", "ping6", "traceroute", "dig", "nslookup", "host", "whois", "aria2c", "lynx", "w3m", "links",
        "http", "https", "xh", "websocat", "grpcurl", "mosh", "rclone", "s3cmd", "aws", "gcloud", "gsutil", "az", "gh",
        "hub", "glab", "openssl", "ssh-keyscan", "nmap", "tcpdump", "ngrok", "cloudflared", "tailscale", "smbclient",
        "mail", "sendmail", "mutt", "curlie", "wget2", "axel", "fetch", "lwp-request", "logger", "wall", "write", "git-remote-http", "git-remote-https", "git-upload-pack", "git-receive-pack"),
    denied!(PACKAGES => "brew", "apt", "apt-get", "aptitude", "dpkg", "yum", "dnf", "rpm", "pacman", "yay", "snap",
        "flatpak", "port", "zypper", "apk", "emerge", "nix", "nix-env", "nix-shell", "npx", "pnpx", "bunx", "pipx",
        "uv", "uvx", "poetry", "pdm", "conda", "mamba", "micromamba", "cpan", "cpanm", "luarocks", "opam", "rustup",
        "nvm", "pyenv", "rbenv", "asdf", "mise", "sdk", "corepack", "easy_install", "softwareupdate", "mas"),
    denied!(CONTAINERS => "docker", "podman", "kubectl", "helm", "minikube", "kind", "vagrant", "virsh", "qemu-system-x86_64",
        "lxc", "incus", "nerdctl", "ctr", "crictl", "buildah", "skopeo", "terraform", "ansible", "ansible-playbook"),
    denied!(DESKTOP => "open", "xdg-open", "osascript", "gnome-open", "kde-open", "sensible-browser", "x-www-browser",
        "firefox", "chromium", "google-chrome", "notify-send", "say"),
    denied!(LAUNCHER => "dc", "watch", "parallel", "flock", "chronic", "ionice", "taskset", "chrt", "prlimit", "unbuffer",
        "faketime", "caffeinate", "script", "expect", "screen", "tmux", "firejail", "bwrap", "fakeroot", "proot",
        "entr", "inotifywait", "daemonize", "start-stop-daemon", "runcon", "sg", "newgrp",
        "pwsh", "powershell", "cmd", "wine", "tclsh", "wish", "expectk", "guile", "irb", "jshell", "scala",
        "groovy", "ghci", "r", "rscript", "julia", "octave", "swipl", "gdbus", "dbus-send", "busctl", "xdotool"),
    denied!(INTERACTIVE => "less", "more", "most", "pg", "man", "info", "vi", "vim", "nvim", "view", "vimdiff", "emacs",
        "nano", "pico", "joe", "mcedit", "micro", "helix", "hx", "kak", "code", "subl", "top", "htop", "mc", "ranger", "nnn"),
    denied!(SHELL_STATE => "export", "declare", "typeset", "local", "readonly", "alias", "unalias", "unset", "set",
        "shopt", "enable", "trap", "hash", "bind", "complete", "compgen", "compopt", "fc", "history", "let", "read",
        "mapfile", "readarray", "getopts", "shift", "pushd", "popd", "dirs", "ulimit", "source", ".", "caller", "suspend", "logout", "coproc"),
    denied!(DEBUGGER => "strace", "ltrace", "gdb", "lldb", "perf", "bpftrace", "valgrind", "rr", "dtrace", "dtruss"),
    denied!(DATABASE => "sqlite3", "psql", "mysql", "mariadb", "mongo", "mongosh", "redis-cli", "duckdb"),
    denied!(SECRETS => "ssh-keygen", "ssh-add", "ssh-agent", "gpg", "gpg2", "gpg-agent", "pass", "security", "keyctl",
        "secret-tool", "pbcopy", "pbpaste", "xclip", "xsel", "wl-copy", "wl-paste"),
];

/// How a command's exit status relates to what it checks (PROOF-5).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Class {
    /// Its status says something about the project.
    Verifies,
    /// Passes data through; its status only says it could read its input.
    Filter,
    /// Always succeeds (`true`, `echo`, a constant test).
    AlwaysSucceeds,
    /// Checks nothing and does not force success (`false`).
    NoOp,
}

/// What a simple command effectively runs once wrappers are peeled.
#[derive(Debug, Clone)]
pub(crate) struct Run {
    /// The program as written (for messages).
    pub name: String,
    pub class: Class,
    /// `exit`/`return`: sets the status by hand.
    pub exits: bool,
    pub negated: bool,
}

impl Run {
    fn new(name: &str, class: Class) -> Self {
        Self {
            name: name.to_owned(),
            class,
            exits: false,
            negated: false,
        }
    }
}

const ALWAYS_SUCCEEDS: &[&str] = &[
    "true", ":", "echo", "printf", "sleep", "yes", "pwd", "date", "whoami", "id", "uname",
    "hostname", "printenv", "clear", "tput", "sync", "times", "type", "seq", "basename", "dirname",
    "help", "logname", "tty", "nproc", "arch", "users", "groups", "cal", "env", "usleep",
    "readlink", "realpath",
];
const FILTERS: &[&str] = &[
    "cat", "tail", "head", "tee", "sort", "uniq", "wc", "tr", "cut", "column", "fmt", "fold", "nl",
    "rev", "xxd", "od", "hexdump", "base64", "paste", "expand", "unexpand", "tac", "strings", "ls",
    "sed", "awk",
];
const EXITS: &[&str] = &["exit", "return"];

/// The name a family of programs shares (`python3.12` → `python`).
fn family(base: &str) -> &str {
    let trimmed = base.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    match trimmed {
        "python" | "pypy" => "python",
        "pip" => "pip",
        "node" | "nodejs" => "node",
        "perl" => "perl",
        "ruby" => "ruby",
        "php" => "php",
        "lua" | "luajit" => "lua",
        "awk" | "gawk" | "mawk" | "nawk" | "busybox-awk" => "awk",
        "sh" | "bash" | "zsh" | "dash" | "ksh" | "mksh" | "ash" | "yash" | "fish" | "csh"
        | "tcsh" | "posh" | "rbash" => "sh",
        "sed" | "gsed" => "sed",
        "find" | "gfind" => "find",
        "tar" | "gtar" | "bsdtar" => "tar",
        "make" | "gmake" => "make",
        _ => base,
    }
}

/// The table indexed by name, built once: a proof line checks up to dozens of
/// commands and the table has hundreds of names.
static DENIED_INDEX: std::sync::LazyLock<DeniedIndex> = std::sync::LazyLock::new(|| {
    let mut exact = std::collections::HashMap::new();
    let mut prefixes = Vec::new();
    for group in DENIED_PROGRAMS {
        for name in group.names {
            match name.strip_suffix('*') {
                Some(prefix) => prefixes.push((prefix, group)),
                None => {
                    exact.entry(*name).or_insert(group);
                }
            }
        }
    }
    DeniedIndex { exact, prefixes }
});

struct DeniedIndex {
    exact: std::collections::HashMap<&'static str, &'static DeniedProgram>,
    prefixes: Vec<(&'static str, &'static DeniedProgram)>,
}

fn denied(base: &str) -> Option<&'static DeniedProgram> {
    let index = &*DENIED_INDEX;
    if let Some(group) = index.exact.get(base) {
        return Some(group);
    }
    index.prefixes.iter().find_map(|(prefix, group)| {
        let matches = base == *prefix
            || base
                .strip_prefix(prefix)
                .is_some_and(|rest| rest.starts_with(|c: char| c == '.' || c.is_ascii_digit()));
        matches.then_some(*group)
    })
}

/// PROOF-2/4 on one command's argv (argv[0] is the program). Returns what it
/// effectively runs, for PROOF-5.
pub(crate) fn check_argv(checker: &mut Checker, argv: &[String], depth: usize) -> Run {
    let Some(program) = argv.first() else {
        return Run::new("", Class::NoOp);
    };
    if depth > MAX_WRAPPER_DEPTH {
        checker.refuse("PROOF-2", format!("wrappers nest more than {MAX_WRAPPER_DEPTH} deep at `{program}`; run the check directly"));
        return Run::new(program, Class::Verifies);
    }
    let base = program
        .rsplit('/')
        .next()
        .unwrap_or(program)
        .to_ascii_lowercase();
    let fam = family(&base);
    let args = &argv[1..];
    if let Some(entry) = denied(&base).or_else(|| denied(fam)) {
        checker.refuse("PROOF-2", format!("`{program}` {}", entry.why));
        // Keep looking inside launchers so every tripped rule is listed.
        return Run::new(program, Class::Verifies);
    }
    if EXITS.contains(&fam) {
        let mut run = Run::new(program, Class::NoOp);
        run.exits = true;
        return run;
    }
    match fam {
        "env" => wrapper_env(checker, program, args, depth),
        "command" => wrapper_command(checker, program, args, depth),
        "exec" => {
            if args.first().is_some_and(|a| a.starts_with('-')) {
                checker.refuse(
                    "PROOF-2",
                    "`exec` with options changes how the program starts; run the check directly",
                );
            }
            unwrap_rest(checker, program, args, depth)
        }
        "builtin" | "busybox" | "toybox" | "nohup" => unwrap_rest(checker, program, args, depth),
        "eval" => {
            for arg in args {
                checker.code(arg);
            }
            let text = args.join(" ");
            nested_line(checker, "eval", &text, depth);
            Run::new(program, Class::Verifies)
        }
        "sh" => shell(checker, program, args, depth),
        "xargs" => {
            checker.refuse(
                "PROOF-2",
                "`xargs` runs a command with arguments read at run time, which cannot be checked; name the files in the line",
            );
            let rest = skip_options(
                args,
                &[
                    "-I",
                    "-i",
                    "-n",
                    "-L",
                    "-l",
                    "-P",
                    "-s",
                    "-d",
                    "-E",
                    "-e",
                    "-a",
                    "--arg-file",
                    "--delimiter",
                    "--max-args",
                    "--max-procs",
                    "--replace",
                ],
            );
            if !rest.is_empty() {
                let _ = check_argv(checker, rest, depth + 1);
            }
            Run::new(program, Class::Verifies)
        }
        "timeout" => {
            let rest = skip_options(args, &["-s", "--signal", "-k", "--kill-after"]);
            // The first operand is the duration.
            unwrap_rest(checker, program, rest.get(1..).unwrap_or_default(), depth)
        }
        "nice" => {
            let rest = skip_options(args, &["-n", "--adjustment"]);
            unwrap_rest(checker, program, rest, depth)
        }
        "time" => {
            if args.iter().take_while(|a| a.starts_with('-')).any(|a| {
                a.starts_with("-o") || a.starts_with("--output") || a == "-a" || a == "--append"
            }) {
                checker.refuse("PROOF-2", "`time -o` writes a file; a proof only reads");
            }
            let rest = skip_options(args, &["-o", "--output", "-f", "--format"]);
            unwrap_rest(checker, program, rest, depth)
        }
        "stdbuf" => {
            let rest = skip_options(args, &["-i", "-o", "-e"]);
            unwrap_rest(checker, program, rest, depth)
        }
        "setsid" => {
            if args
                .iter()
                .take_while(|a| a.starts_with('-'))
                .any(|a| a == "-f" || a == "--fork")
            {
                checker.refuse(
                    "PROOF-3",
                    "`setsid --fork` leaves a job running in the background",
                );
            }
            let rest = skip_options(args, &[]);
            unwrap_rest(checker, program, rest, depth)
        }
        "git" => git(checker, program, args),
        "cargo" => cargo(checker, program, args),
        "npm" => npm(checker, program, args),
        "yarn" | "pnpm" | "bun" => js_package_manager(checker, program, args),
        "pip" => pip(checker, program, args),
        "gem" | "bundle" | "composer" | "go" | "dotnet" | "cabal" | "stack" | "mvn" | "gradle"
        | "deno" => ecosystem(checker, program, fam, args, depth),
        "python" => python(checker, program, args, depth),
        "node" => node(checker, program, args),
        "perl" | "ruby" | "php" | "lua" => scripting(checker, program, fam, args),
        "awk" => awk(checker, program, args),
        "sed" => sed(checker, program, args),
        "find" => find(checker, program, args),
        "tar" => tar(checker, program, args),
        "make" => make(checker, program, args),
        "unzip" => {
            if !args
                .iter()
                .any(|a| matches!(a.as_str(), "-l" | "-t" | "-v" | "-Z" | "-tq" | "-qt"))
            {
                checker.refuse("PROOF-2", "`unzip` extracts (writes) files; only `unzip -l` / `unzip -t` may check an archive");
            }
            Run::new(program, Class::Verifies)
        }
        "sort" | "shuf" => {
            if args.iter().any(|a| {
                a == "-o"
                    || a.starts_with("--output")
                    || (a.starts_with("-o") && a.len() > 2 && !a.starts_with("--"))
            }) {
                checker.refuse(
                    "PROOF-2",
                    format!("`{program} -o` writes a file; a proof only reads"),
                );
            }
            Run::new(program, Class::Filter)
        }
        "tee" => {
            if args.iter().any(|a| !a.starts_with('-') || a == "-") {
                checker.refuse("PROOF-2", "`tee FILE` writes a file; a proof only reads");
            }
            Run::new(program, Class::Filter)
        }
        "uniq" => {
            if args.iter().filter(|a| !a.starts_with('-')).count() > 1 {
                checker.refuse(
                    "PROOF-2",
                    "`uniq IN OUT` writes its second file; a proof only reads",
                );
            }
            Run::new(program, Class::Filter)
        }
        "printf" => {
            if args.first().is_some_and(|a| a == "-v") {
                checker.refuse("PROOF-2", "`printf -v` assigns a shell variable");
            }
            Run::new(program, Class::AlwaysSucceeds)
        }
        "test" | "[" | "[[" => test_command(checker, program, args),
        "grep" | "egrep" | "fgrep" | "rg" | "ag" | "ack" => {
            if fam == "rg" && args.iter().any(|a| a == "--pre" || a.starts_with("--pre=")) {
                checker.refuse("PROOF-2", "`rg --pre` runs a program on every file");
            }
            patterns(
                checker,
                args,
                &["-e", "--regexp"],
                &[
                    "-f",
                    "--file",
                    "-m",
                    "--max-count",
                    "-A",
                    "-B",
                    "-C",
                    "--context",
                    "-g",
                    "--glob",
                    "-t",
                    "--type",
                    "-T",
                    "--type-not",
                    "--include",
                    "--exclude",
                    "--exclude-dir",
                    "-d",
                    "-D",
                    "--label",
                    "-j",
                    "--threads",
                    "-M",
                    "--max-columns",
                    "-r",
                    "--replace",
                    "--color",
                    "--colors",
                ],
            );
            Run::new(program, Class::Verifies)
        }
        "jq" | "gojq" => {
            if args.iter().any(|a| a == "-f" || a == "--from-file") {
                checker.refuse(
                    "PROOF-4",
                    format!(
                        "`{program} -f` reads its filter from a file, which cannot be inspected"
                    ),
                );
            }
            patterns(
                checker,
                args,
                &[],
                &[
                    "--arg",
                    "--argjson",
                    "--slurpfile",
                    "--rawfile",
                    "--indent",
                    "--args-",
                    "-L",
                ],
            );
            Run::new(program, Class::Verifies)
        }
        "which" => Run::new(program, Class::Verifies),
        "cmake" => {
            if args.iter().any(|a| a == "-E" || a == "-P") {
                checker.refuse("PROOF-2", "`cmake -E`/`cmake -P` run file commands or scripts (remove, copy, execute_process)");
            }
            Run::new(program, Class::Verifies)
        }
        "yq" => {
            if args
                .iter()
                .any(|a| a == "-i" || a == "--inplace" || a.starts_with("--inplace="))
            {
                checker.refuse(
                    "PROOF-2",
                    "`yq -i` edits files in place; a proof only reads",
                );
            }
            patterns(checker, args, &[], &["--arg", "-I", "--indent"]);
            Run::new(program, Class::Verifies)
        }
        "xxd" => {
            if args.iter().filter(|a| !a.starts_with('-')).count() > 1 {
                checker.refuse(
                    "PROOF-2",
                    "`xxd IN OUT` writes its second file; a proof only reads",
                );
            }
            Run::new(program, Class::Filter)
        }
        "iconv" => {
            if args.iter().any(|a| a == "-o" || a.starts_with("--output")) {
                checker.refuse("PROOF-2", "`iconv -o` writes a file; a proof only reads");
            }
            Run::new(program, Class::Filter)
        }
        "hostname" | "date" => {
            let sets = if fam == "date" {
                args.iter().any(|a| a == "-s" || a.starts_with("--set"))
            } else {
                args.iter().any(|a| !a.starts_with('-'))
            };
            if sets {
                checker.refuse(
                    "PROOF-2",
                    format!("`{program}` with a value changes the system"),
                );
            }
            Run::new(program, Class::AlwaysSucceeds)
        }
        "cd" => {
            // `cd` alone goes to $HOME and `cd -` to $OLDPWD; a named folder is
            // checked like every other path (no `..`, not absolute).
            match args {
                [dir] if dir != "-" && !dir.starts_with('-') => {}
                _ => checker.refuse("PROOF-3", "`cd` must name one folder inside the project (`cd` alone goes to the home folder)"),
            }
            Run::new(program, Class::NoOp)
        }
        _ => {
            if ALWAYS_SUCCEEDS.contains(&fam) {
                Run::new(program, Class::AlwaysSucceeds)
            } else if fam == "false" {
                Run::new(program, Class::NoOp)
            } else if FILTERS.contains(&fam) {
                Run::new(program, Class::Filter)
            } else {
                Run::new(program, Class::Verifies)
            }
        }
    }
}

/// Registers the pattern (or filter) arguments of a search tool as code: given
/// with `pattern_options`, or else the first operand. `with_value` lists
/// options whose value is the next word.
fn patterns(checker: &mut Checker, args: &[String], pattern_options: &[&str], with_value: &[&str]) {
    let mut i = 0;
    let mut given = false;
    let mut first_operand: Option<&String> = None;
    while let Some(arg) = args.get(i) {
        if arg == "--" {
            first_operand = first_operand.or(args.get(i + 1));
            break;
        }
        if pattern_options.contains(&arg.as_str()) {
            if let Some(pattern) = args.get(i + 1) {
                checker.code(pattern);
            }
            given = true;
            i += 2;
            continue;
        }
        if arg.starts_with('-') && arg != "-" {
            // `--arg name value` takes two words.
            i += match arg.as_str() {
                "--arg" | "--argjson" | "--slurpfile" | "--rawfile" => 3,
                a if with_value.contains(&a) => 2,
                _ => 1,
            };
            continue;
        }
        first_operand = first_operand.or(Some(arg));
        i += 1;
        if !given {
            break;
        }
    }
    if !given && let Some(pattern) = first_operand {
        checker.code(pattern);
    }
}

/// Skips leading options; `with_value` lists options whose value is the next
/// word (their `--opt=value` and glued `-ovalue` forms are handled too).
fn skip_options<'a>(args: &'a [String], with_value: &[&str]) -> &'a [String] {
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        if arg == "--" {
            return &args[i + 1..];
        }
        if !arg.starts_with('-') || arg == "-" {
            break;
        }
        i += if with_value.contains(&arg.as_str()) {
            2
        } else {
            1
        };
    }
    args.get(i..).unwrap_or_default()
}

/// A wrapper whose remaining words are the wrapped command: it must pass as if
/// it stood alone.
fn unwrap_rest(checker: &mut Checker, program: &str, rest: &[String], depth: usize) -> Run {
    if rest.is_empty() {
        if program == "busybox" || program == "builtin" || program == "nohup" || program == "exec" {
            checker.refuse(
                "PROOF-2",
                format!("`{program}` without a command does not check anything"),
            );
        }
        return Run::new(program, Class::NoOp);
    }
    check_argv(checker, rest, depth + 1)
}

/// A whole command line run by a wrapper (`sh -c`, `eval`): it must pass
/// exactly as if it stood alone.
fn nested_line(checker: &mut Checker, wrapper: &str, text: &str, depth: usize) {
    if depth >= MAX_WRAPPER_DEPTH {
        checker.refuse("PROOF-2", format!("wrappers nest more than {MAX_WRAPPER_DEPTH} deep at `{wrapper}`; run the check directly"));
        return;
    }
    let saved = std::mem::take(&mut checker.context);
    checker.context = format!("{saved}in `{wrapper}`: ");
    checker.line(text, depth + 1);
    checker.context = saved;
}

fn wrapper_env(checker: &mut Checker, program: &str, args: &[String], depth: usize) -> Run {
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        match arg.as_str() {
            "-i" | "--ignore-environment" | "-" => i += 1,
            "--" => {
                i += 1;
                break;
            }
            "-u" | "--unset" => i += 2,
            a if a.starts_with('-') => {
                checker.refuse(
                    "PROOF-2",
                    format!("`env {a}` changes how the program starts; run the check directly"),
                );
                i += 1;
            }
            _ => break,
        }
    }
    let mut sets = false;
    while args.get(i).is_some_and(|a| a.contains('=')) {
        sets = true;
        i += 1;
    }
    if sets {
        checker.refuse(
            "PROOF-2",
            "`env NAME=value` sets a variable for the program (like `PAGER=…` or `LD_PRELOAD=…`); a proof sets nothing",
        );
    }
    match args.get(i..) {
        Some(rest) if !rest.is_empty() => check_argv(checker, rest, depth + 1),
        _ => Run::new(program, Class::AlwaysSucceeds),
    }
}

fn wrapper_command(checker: &mut Checker, program: &str, args: &[String], depth: usize) -> Run {
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        match arg.as_str() {
            "-p" => i += 1,
            "-v" | "-V" => return Run::new("command -v", Class::Verifies),
            "--" => {
                i += 1;
                break;
            }
            _ => break,
        }
    }
    unwrap_rest(checker, program, args.get(i..).unwrap_or_default(), depth)
}

/// `sh -c 'LINE'` runs LINE, which must pass as if it stood alone; `sh FILE`
/// runs a project script (the sandbox's job, like `make test`); `sh` alone
/// reads commands from standard input, which cannot be checked.
fn shell(checker: &mut Checker, program: &str, args: &[String], depth: usize) -> Run {
    let mut i = 0;
    let mut command_mode = false;
    while let Some(arg) = args.get(i) {
        if arg == "--" || arg == "-" {
            i += 1;
            break;
        }
        if arg == "-o" || arg == "+o" {
            i += 2;
            continue;
        }
        let Some(flags) = arg.strip_prefix('-').or_else(|| arg.strip_prefix('+')) else {
            break;
        };
        if arg.starts_with("--") {
            checker.refuse(
                "PROOF-2",
                format!("`{program} {arg}` changes which start-up files the shell reads"),
            );
            i += 1;
            continue;
        }
        for flag in flags.chars() {
            match flag {
                'c' => command_mode = true,
                'e' | 'u' | 'x' | 'v' | 'f' | 'n' => {}
                's' | 'i' => checker.refuse(
                    "PROOF-2",
                    format!("`{program} -{flag}` reads commands from standard input, which cannot be checked"),
                ),
                'l' => checker.refuse("PROOF-2", format!("`{program} -l` reads the login start-up files from the home folder")),
                other => checker.refuse("PROOF-2", format!("`{program} -{other}` is not an option a proof needs")),
            }
        }
        i += 1;
    }
    let rest = args.get(i..).unwrap_or_default();
    if command_mode {
        match rest.first() {
            Some(text) => {
                checker.code(text);
                if rest.len() > 1 {
                    checker.refuse("PROOF-2", format!("`{program} -c` with extra arguments sets $0, $1…; put everything in the one line"));
                }
                nested_line(checker, &format!("{program} -c"), text, depth);
            }
            None => checker.refuse(
                "PROOF-1",
                format!("`{program} -c` is missing its command line"),
            ),
        }
        return Run::new(program, Class::Verifies);
    }
    if rest.is_empty() {
        checker.refuse(
            "PROOF-2",
            format!("`{program}` with no script reads its commands from standard input, which cannot be checked"),
        );
    }
    Run::new(program, Class::Verifies)
}

/// git: only read-only subcommands; no global option that runs programs.
fn git(checker: &mut Checker, program: &str, args: &[String]) -> Run {
    const READ_ONLY: &[&str] = &[
        "status",
        "diff",
        "log",
        "show",
        "ls-files",
        "grep",
        "rev-parse",
        "describe",
        "blame",
        "annotate",
        "shortlog",
        "cat-file",
        "ls-tree",
        "diff-index",
        "diff-files",
        "diff-tree",
        "merge-base",
        "rev-list",
        "check-ignore",
        "check-attr",
        "name-rev",
        "for-each-ref",
        "show-ref",
        "count-objects",
        "whatchanged",
        "cherry",
        "range-diff",
        "fsck",
        "verify-commit",
        "verify-tag",
        "version",
        "var",
        "check-ref-format",
    ];
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        match arg.as_str() {
            "--no-pager"
            | "-P"
            | "--no-optional-locks"
            | "--literal-pathspecs"
            | "--no-replace-objects"
            | "--glob-pathspecs"
            | "--noglob-pathspecs"
            | "--icase-pathspecs" => i += 1,
            "-C" => i += 2,
            a if a.starts_with('-') => {
                let why = match a.split('=').next().unwrap_or(a) {
                    "-c" | "--config-env" => {
                        "sets configuration, which can name programs to run (`core.pager`, `core.sshCommand`, aliases)"
                    }
                    "--exec-path" => "changes where git finds the programs it runs",
                    "--upload-pack" | "--receive-pack" => "names a program for git to run",
                    "-p" | "--paginate" => "runs a pager, which can run commands",
                    "--git-dir" | "--work-tree" | "--namespace" | "--super-prefix" => {
                        "points git at another repository"
                    }
                    _ => "is not a git option a proof needs",
                };
                checker.refuse("PROOF-2", format!("`git {a}` {why}"));
                i += if matches!(
                    a,
                    "-c" | "--config-env" | "--git-dir" | "--work-tree" | "--namespace"
                ) {
                    2
                } else {
                    1
                };
            }
            _ => break,
        }
    }
    let Some(sub) = args.get(i) else {
        return Run::new(program, Class::AlwaysSucceeds);
    };
    let rest = &args[i + 1..];
    if !READ_ONLY.contains(&sub.as_str()) {
        let why = match sub.as_str() {
            "push" | "pull" | "fetch" | "clone" | "ls-remote" | "send-email" | "request-pull"
            | "daemon" => "uses the network",
            "remote" | "submodule" => "changes remotes or submodules (and may use the network)",
            "config" => "changes configuration, which can name programs to run",
            "clean" | "reset" | "checkout" | "restore" | "switch" | "stash" | "rm" | "mv" => {
                "changes or deletes files in the work tree"
            }
            _ => {
                "changes the repository or is not on the read-only list (status, diff, log, show, ls-files, grep, rev-parse, …)"
            }
        };
        checker.refuse("PROOF-2", format!("`git {sub}` {why}"));
        return Run::new(program, Class::Verifies);
    }
    for arg in rest {
        let name = arg.split('=').next().unwrap_or(arg);
        let why = match name {
            "--output" => Some("writes a file"),
            "--ext-diff" => Some("runs an external diff program"),
            "-O" | "--open-files-in-pager" => Some("runs a pager, which can run commands"),
            _ if sub == "grep" && arg.starts_with("-O") => {
                Some("runs a pager, which can run commands")
            }
            _ => None,
        };
        if let Some(why) = why {
            checker.refuse("PROOF-2", format!("`git {sub} {arg}` {why}"));
        }
    }
    Run::new(program, Class::Verifies)
}

fn cargo(checker: &mut Checker, program: &str, args: &[String]) -> Run {
    let mut sub: Option<&str> = None;
    for arg in args {
        let name = arg.split('=').next().unwrap_or(arg);
        if name == "--config" || arg.starts_with("-Z") {
            checker.refuse(
                "PROOF-2",
                format!(
                    "`cargo {arg}` changes cargo's configuration, which can name programs to run"
                ),
            );
        }
        if sub.is_none() && !arg.starts_with('-') && !arg.starts_with('+') {
            sub = Some(arg.as_str());
        }
    }
    let Some(sub) = sub else {
        return Run::new(program, Class::AlwaysSucceeds);
    };
    let why = match sub {
        "install" | "uninstall" | "binstall" => Some("installs or removes programs"),
        "publish" | "login" | "logout" | "owner" | "yank" | "search" | "fetch" | "vendor"
        | "update" | "generate-lockfile" => Some("uses the network or the registry"),
        "add" | "remove" | "rm" | "new" | "init" | "fix" | "clean" => {
            Some("changes the project's files")
        }
        "fmt" if !args.iter().any(|a| a == "--check") => {
            Some("rewrites source files; use `cargo fmt --check`")
        }
        "clippy" if args.iter().any(|a| a == "--fix") => Some("rewrites source files"),
        "doc" if args.iter().any(|a| a == "--open") => Some("opens a browser"),
        _ => None,
    };
    if let Some(why) = why {
        checker.refuse("PROOF-2", format!("`cargo {sub}` {why}"));
    }
    Run::new(program, Class::Verifies)
}

fn npm(checker: &mut Checker, program: &str, args: &[String]) -> Run {
    const ALLOWED: &[&str] = &[
        "test",
        "t",
        "tst",
        "run",
        "run-script",
        "ls",
        "list",
        "ll",
        "la",
        "explain",
        "why",
    ];
    for arg in args {
        if [
            "--script-shell",
            "--node-options",
            "--userconfig",
            "--globalconfig",
            "--registry",
        ]
        .iter()
        .any(|o| arg.starts_with(o))
        {
            checker.refuse(
                "PROOF-2",
                format!("`npm {arg}` changes which programs npm runs or where it connects"),
            );
        }
    }
    let rest = skip_options(args, &["--prefix", "-C", "-w", "--workspace"]);
    match rest.first() {
        None => Run::new(program, Class::AlwaysSucceeds),
        Some(sub) if ALLOWED.contains(&sub.as_str()) => Run::new(program, Class::Verifies),
        Some(sub) => {
            let why = match sub.as_str() {
                "install" | "i" | "ci" | "add" | "uninstall" | "remove" | "rm" | "update"
                | "up" | "link" | "rebuild" => "installs or removes packages",
                "publish" | "unpublish" | "login" | "adduser" | "deprecate" | "dist-tag"
                | "owner" | "access" => "uses the registry",
                "exec" | "x" => "downloads and runs a package",
                _ => "is not on the list a proof may use (test, run, ls, explain)",
            };
            checker.refuse("PROOF-2", format!("`npm {sub}` {why}"));
            Run::new(program, Class::Verifies)
        }
    }
}

fn js_package_manager(checker: &mut Checker, program: &str, args: &[String]) -> Run {
    const ALLOWED: &[&str] = &["test", "run", "list", "ls", "why", "--version", "-v"];
    let rest = skip_options(args, &["--cwd", "-C", "--dir", "--filter", "-F"]);
    match rest.first() {
        None => {
            checker.refuse("PROOF-2", format!("`{program}` alone installs packages"));
        }
        Some(sub) if ALLOWED.contains(&sub.as_str()) => {}
        Some(sub) => {
            checker.refuse(
                "PROOF-2",
                format!("`{program} {sub}` may install, download or run packages; a proof may use test, run, list, why"),
            );
        }
    }
    Run::new(program, Class::Verifies)
}

fn pip(checker: &mut Checker, program: &str, args: &[String]) -> Run {
    const ALLOWED: &[&str] = &["list", "show", "freeze", "check", "--version", "-V", "help"];
    let rest = skip_options(args, &[]);
    if let Some(sub) = rest.first()
        && !ALLOWED.contains(&sub.as_str())
    {
        checker.refuse(
            "PROOF-2",
            format!("`{program} {sub}` installs, removes or downloads packages"),
        );
    }
    Run::new(program, Class::Verifies)
}

fn ecosystem(
    checker: &mut Checker,
    program: &str,
    fam: &str,
    args: &[String],
    depth: usize,
) -> Run {
    let rest = skip_options(args, &[]);
    let sub = rest.first().map(String::as_str).unwrap_or("");
    let bad: &[&str] = match fam {
        "gem" => &[
            "install",
            "uninstall",
            "update",
            "push",
            "yank",
            "owner",
            "fetch",
            "sources",
            "cert",
            "signin",
        ],
        "bundle" => &[
            "install", "add", "update", "remove", "exec", "binstubs", "config", "package", "cache",
        ],
        "composer" => &[
            "install",
            "require",
            "update",
            "remove",
            "global",
            "exec",
            "run-script",
            "create-project",
            "config",
        ],
        "go" => &["install", "get", "generate", "clean", "work", "env"],
        "dotnet" => &[
            "add", "remove", "restore", "tool", "new", "nuget", "workload", "publish",
        ],
        "cabal" | "stack" => &["install", "update", "upload", "exec", "run"],
        "mvn" | "gradle" => &["deploy", "install", "release:perform", "publish"],
        "deno" => &["install", "uninstall", "upgrade", "compile", "jupyter"],
        _ => &[],
    };
    if bad.contains(&sub)
        || (fam == "go"
            && sub == "mod"
            && rest
                .get(1)
                .is_some_and(|s| s != "verify" && s != "why" && s != "graph"))
    {
        checker.refuse(
            "PROOF-2",
            format!("`{program} {sub}` installs, downloads, publishes or generates code"),
        );
    }
    if fam == "go" {
        for arg in args {
            let name = arg.split('=').next().unwrap_or(arg);
            if matches!(
                name,
                "-exec" | "-toolexec" | "-vettool" | "--exec" | "--toolexec" | "-overlay"
            ) {
                checker.refuse(
                    "PROOF-2",
                    format!("`go {arg}` names a program for go to run"),
                );
            }
        }
    }
    if fam == "deno" {
        if sub == "eval" {
            if let Some(code) = rest.get(1) {
                inline::inspect_registered(
                    checker,
                    "deno eval",
                    inline::Language::JavaScript,
                    code,
                );
            }
        } else if args.iter().any(|a| {
            a == "-A"
                || a.starts_with("--allow-all")
                || a.starts_with("--allow-run")
                || a.starts_with("--allow-net")
                || a.starts_with("--allow-write")
                || a.starts_with("--allow-ffi")
        }) {
            checker.refuse("PROOF-2", "`deno` permission flags let the script run programs, use the network or write files");
        }
    }
    let _ = depth;
    Run::new(program, Class::Verifies)
}

/// python: `-c CODE` is inspected (PROOF-4); `-m MODULE` only for test and
/// check modules; no program at all means it reads code from standard input.
fn python(checker: &mut Checker, program: &str, args: &[String], depth: usize) -> Run {
    const MODULES: &[&str] = &[
        "pytest",
        "unittest",
        "doctest",
        "mypy",
        "flake8",
        "pylint",
        "pyflakes",
        "pycodestyle",
        "pydocstyle",
        "json.tool",
        "tabnanny",
        "ruff",
        "black",
        "isort",
        "tox",
        "nox",
        "coverage",
    ];
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        if arg == "-" {
            return refuse_program_from_stdin(checker, program, "-");
        }
        if arg == "--" || !arg.starts_with('-') {
            break;
        }
        if arg.starts_with("--") {
            i += 1;
            continue;
        }
        // A cluster like `-Bc CODE`, `-cCODE`, `-m pytest`, `-W error`.
        let flags = &arg[1..];
        for (at, flag) in flags.char_indices() {
            let glued = &flags[at + flag.len_utf8()..];
            let value = || {
                if glued.is_empty() {
                    args.get(i + 1).cloned()
                } else {
                    Some(glued.to_owned())
                }
            };
            match flag {
                'c' => {
                    match value() {
                        Some(code) => inline::inspect_registered(
                            checker,
                            &format!("{program} -c"),
                            inline::Language::Python,
                            &code,
                        ),
                        None => {
                            checker.refuse("PROOF-1", format!("`{program} -c` is missing its code"))
                        }
                    }
                    return Run::new(program, Class::Verifies);
                }
                'm' => {
                    let module = value().unwrap_or_default();
                    let module_args = args
                        .get(i + if glued.is_empty() { 2 } else { 1 }..)
                        .unwrap_or_default();
                    if module == "pip" {
                        let mut argv = vec!["pip".to_owned()];
                        argv.extend(module_args.iter().cloned());
                        return check_argv(checker, &argv, depth + 1);
                    }
                    if !MODULES.contains(&module.as_str()) {
                        checker.refuse(
                            "PROOF-2",
                            format!("`{program} -m {module}` is not a test or check module a proof may run (pytest, unittest, mypy, …)"),
                        );
                    }
                    return Run::new(program, Class::Verifies);
                }
                'i' => {
                    checker.refuse(
                        "PROOF-4",
                        format!("`{program} -i` is interactive and reads standard input"),
                    );
                }
                'W' | 'X' | 'Q' => {
                    if glued.is_empty() {
                        i += 1;
                    }
                    break;
                }
                _ => {}
            }
        }
        i += 1;
    }
    if args
        .get(i)
        .is_none_or(|a| a == "--" && args.get(i + 1).is_none())
    {
        refuse_program_from_stdin(checker, program, "");
    }
    Run::new(program, Class::Verifies)
}

/// An interpreter told to read its program from standard input (`prog -`, or
/// no script at all): the code cannot be inspected, so it is refused (PROOF-4).
fn refuse_program_from_stdin(checker: &mut Checker, program: &str, dash: &str) -> Run {
    let how = if dash.is_empty() {
        format!("`{program}` with no script")
    } else {
        format!("`{program} {dash}`")
    };
    checker.refuse(
        "PROOF-4",
        format!("{how} reads its program from standard input, which cannot be inspected"),
    );
    Run::new(program, Class::Verifies)
}

fn node(checker: &mut Checker, program: &str, args: &[String]) -> Run {
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        if arg == "-" {
            return refuse_program_from_stdin(checker, program, "-");
        }
        if arg == "--" || !arg.starts_with('-') {
            break;
        }
        let (name, glued) = match arg.split_once('=') {
            Some((n, v)) => (n, Some(v.to_owned())),
            None => (arg.as_str(), None),
        };
        match name {
            "-e" | "--eval" | "-p" | "--print" | "-pe" | "-ep" => {
                match glued.or_else(|| args.get(i + 1).cloned()) {
                    Some(code) => inline::inspect(
                        checker,
                        &format!("{program} {name}"),
                        inline::Language::JavaScript,
                        &code,
                    ),
                    None => {
                        checker.refuse("PROOF-1", format!("`{program} {name}` is missing its code"))
                    }
                }
                return Run::new(program, Class::Verifies);
            }
            "-i" | "--interactive" => {
                checker.refuse(
                    "PROOF-4",
                    format!("`{program} -i` is interactive and reads standard input"),
                );
                i += 1;
            }
            "--test" | "--version" | "-v" | "--help" | "-h" | "--v8-options" => {
                // Runs the project's test files or prints; no program from stdin.
                return Run::new(program, Class::Verifies);
            }
            "-r"
            | "--require"
            | "--import"
            | "--loader"
            | "--experimental-loader"
            | "-C"
            | "--conditions" => {
                let module = glued
                    .or_else(|| args.get(i + 1).cloned())
                    .unwrap_or_default();
                if !module.starts_with("./") {
                    checker.refuse(
                        "PROOF-4",
                        format!(
                            "`{program} {name} {module}` preloads code that cannot be inspected"
                        ),
                    );
                }
                i += if arg.contains('=') { 1 } else { 2 };
            }
            _ => i += 1,
        }
    }
    if args.get(i).is_none() {
        refuse_program_from_stdin(checker, program, "");
    }
    Run::new(program, Class::Verifies)
}

/// perl / ruby / php / lua: `-e`/`-E`/`-r` code is inspected (PROOF-4); in-place
/// editing and module preloading are refused (PROOF-2).
fn scripting(checker: &mut Checker, program: &str, fam: &str, args: &[String]) -> Run {
    let (code_flags, language): (&[char], inline::Language) = match fam {
        "perl" => (&['e', 'E'], inline::Language::Perl),
        "ruby" => (&['e'], inline::Language::Ruby),
        "php" => (&['r'], inline::Language::Php),
        _ => (&['e'], inline::Language::Lua),
    };
    let mut i = 0;
    let mut saw_code = false;
    while let Some(arg) = args.get(i) {
        if arg == "-" {
            return refuse_program_from_stdin(checker, program, "-");
        }
        if arg == "--" || !arg.starts_with('-') {
            break;
        }
        if arg.starts_with("--") {
            i += 1;
            continue;
        }
        let flags = &arg[1..];
        let mut consumed_next = false;
        for (at, flag) in flags.char_indices() {
            let glued = &flags[at + flag.len_utf8()..];
            if code_flags.contains(&flag) {
                let code = if glued.is_empty() {
                    consumed_next = true;
                    args.get(i + 1).cloned()
                } else {
                    Some(glued.to_owned())
                };
                match code {
                    Some(code) => {
                        inline::inspect(checker, &format!("{program} -{flag}"), language, &code)
                    }
                    None => checker.refuse(
                        "PROOF-1",
                        format!("`{program} -{flag}` is missing its code"),
                    ),
                }
                saw_code = true;
                break;
            }
            match (fam, flag) {
                ("perl" | "ruby", 'i') => {
                    checker.refuse(
                        "PROOF-2",
                        format!("`{program} -i` edits files in place; a proof only reads"),
                    );
                    break;
                }
                ("perl", 'M' | 'm') | ("ruby", 'r') | ("lua", 'l') | ("php", 'd') => {
                    checker.refuse(
                        "PROOF-4",
                        format!("`{program} -{flag}` loads code that cannot be inspected"),
                    );
                    if glued.is_empty() {
                        consumed_next = true;
                    }
                    break;
                }
                ("php", 'S' | 't') => {
                    checker.refuse(
                        "PROOF-2",
                        format!("`{program} -{flag}` starts a web server"),
                    );
                    break;
                }
                ("php", 'a') | ("lua", 'i') => {
                    checker.refuse(
                        "PROOF-4",
                        format!("`{program} -{flag}` is interactive and reads standard input"),
                    );
                }
                ("perl", 'x' | 'S') => {
                    checker.refuse("PROOF-4", format!("`{program} -{flag}` finds its program in a way that cannot be inspected"));
                }
                ("php", 'f' | 'c' | 'B' | 'R' | 'F' | 'E' | 'z')
                | ("ruby", 'C' | 'I' | 'x')
                | ("perl", 'I' | 'C') => {
                    if glued.is_empty() {
                        consumed_next = true;
                    }
                    if fam == "php" && flag != 'f' {
                        checker.refuse(
                            "PROOF-4",
                            format!("`{program} -{flag}` runs code that cannot be inspected"),
                        );
                    }
                    break;
                }
                _ => {}
            }
        }
        i += if consumed_next { 2 } else { 1 };
    }
    if !saw_code
        && args
            .get(i)
            .is_none_or(|a| a == "--" && args.get(i + 1).is_none())
    {
        refuse_program_from_stdin(checker, program, "");
    }
    Run::new(program, Class::Verifies)
}

fn awk(checker: &mut Checker, program: &str, args: &[String]) -> Run {
    let mut i = 0;
    let mut program_text: Option<String> = None;
    while let Some(arg) = args.get(i) {
        if arg == "--" {
            i += 1;
            break;
        }
        if !arg.starts_with('-') || arg == "-" {
            break;
        }
        let name = arg.split('=').next().unwrap_or(arg);
        match name {
            "-f" | "--file" => {
                checker.refuse("PROOF-4", format!("`{program} -f` reads its program from a file, which cannot be inspected here; write it inline"));
                i += 2;
                program_text = Some(String::new());
            }
            "-e" | "--source" => {
                program_text = args.get(i + 1).cloned();
                i += 2;
            }
            "-i" | "--include" | "-l" | "--load" => {
                checker.refuse(
                    "PROOF-2",
                    format!("`{program} {name}` loads extensions (including in-place editing)"),
                );
                i += 2;
            }
            "-F" | "-v" | "--assign" | "--field-separator" => {
                i += if arg.len() > 2 && !arg.starts_with("--") || arg.contains('=') {
                    1
                } else {
                    2
                }
            }
            _ => i += 1,
        }
    }
    let text = match program_text {
        Some(text) => text,
        None => match args.get(i) {
            Some(text) => text.clone(),
            None => {
                checker.refuse("PROOF-4", format!("`{program}` has no program"));
                return Run::new(program, Class::Filter);
            }
        },
    };
    checker.code(&text);
    inline::inspect_awk(checker, program, &text);
    Run::new(program, Class::Filter)
}

fn sed(checker: &mut Checker, program: &str, args: &[String]) -> Run {
    let mut scripts: Vec<String> = Vec::new();
    let mut i = 0;
    let mut script_given_by_option = false;
    while let Some(arg) = args.get(i) {
        if arg == "--" {
            i += 1;
            break;
        }
        if !arg.starts_with('-') || arg == "-" {
            break;
        }
        if arg.starts_with("--") {
            let name = arg.split('=').next().unwrap_or(arg);
            match name {
                "--in-place" => checker.refuse(
                    "PROOF-2",
                    format!("`{program} {arg}` edits files in place; a proof only reads"),
                ),
                "--expression" => {
                    script_given_by_option = true;
                    match arg.split_once('=') {
                        Some((_, s)) => scripts.push(s.to_owned()),
                        None => {
                            scripts.extend(args.get(i + 1).cloned());
                            i += 1;
                        }
                    }
                }
                "--file" => {
                    script_given_by_option = true;
                    checker.refuse("PROOF-2", format!("`{program} --file` reads its script from a file, which cannot be checked"));
                    if !arg.contains('=') {
                        i += 1;
                    }
                }
                _ => {}
            }
            i += 1;
            continue;
        }
        let flags = &arg[1..];
        let mut consumed_next = false;
        for (at, flag) in flags.char_indices() {
            let glued = &flags[at + flag.len_utf8()..];
            match flag {
                'i' => {
                    checker.refuse(
                        "PROOF-2",
                        format!("`{program} -i` edits files in place; a proof only reads"),
                    );
                    break;
                }
                'e' | 'f' => {
                    script_given_by_option = true;
                    let value = if glued.is_empty() {
                        consumed_next = true;
                        args.get(i + 1).cloned()
                    } else {
                        Some(glued.to_owned())
                    };
                    if flag == 'f' {
                        checker.refuse("PROOF-2", format!("`{program} -f` reads its script from a file, which cannot be checked"));
                    } else {
                        scripts.extend(value);
                    }
                    break;
                }
                'l' => {
                    if glued.is_empty() {
                        consumed_next = true;
                    }
                    break;
                }
                _ => {}
            }
        }
        i += if consumed_next { 2 } else { 1 };
    }
    if !script_given_by_option {
        match args.get(i) {
            Some(script) => scripts.push(script.clone()),
            None => checker.refuse("PROOF-1", format!("`{program}` has no script")),
        }
    }
    for script in &scripts {
        checker.code(script);
        for finding in inline::sed_findings(script) {
            checker.refuse("PROOF-2", format!("`{program}` script {finding}"));
        }
    }
    Run::new(program, Class::Filter)
}

fn find(checker: &mut Checker, program: &str, args: &[String]) -> Run {
    for arg in args {
        let why = match arg.as_str() {
            "-exec" | "-execdir" | "-ok" | "-okdir" => Some("runs a program on every match"),
            "-delete" => Some("deletes files"),
            "-fprint" | "-fprint0" | "-fprintf" | "-fls" => Some("writes a file"),
            _ => None,
        };
        if let Some(why) = why {
            checker.refuse("PROOF-2", format!("`{program} {arg}` {why}"));
        }
    }
    Run::new(program, Class::Verifies)
}

fn tar(checker: &mut Checker, program: &str, args: &[String]) -> Run {
    let mut lists = false;
    for (i, arg) in args.iter().enumerate() {
        let name = arg.split('=').next().unwrap_or(arg);
        let why = match name {
            "--to-command"
            | "--use-compress-program"
            | "--checkpoint-action"
            | "--info-script"
            | "--new-volume-script"
            | "--rsh-command"
            | "--rmt-command"
            | "-I"
            | "-F" => Some("runs a program"),
            "--extract" | "--get" | "--create" | "--append" | "--update" | "--catenate"
            | "--concatenate" | "--delete" => {
                Some("writes files or archives; only listing (`tar -tf`) may check an archive")
            }
            "--list" => {
                lists = true;
                None
            }
            _ => None,
        };
        if let Some(why) = why {
            checker.refuse("PROOF-2", format!("`{program} {arg}` {why}"));
        }
        // Short clusters (`-xzf`) and the old style first word (`xzf`).
        let cluster = if let Some(c) = arg.strip_prefix('-').filter(|c| !c.starts_with('-')) {
            Some(c)
        } else if i == 0 && !arg.starts_with('-') {
            Some(arg.as_str())
        } else {
            None
        };
        if let Some(cluster) = cluster {
            for flag in cluster.chars() {
                match flag {
                    't' => lists = true,
                    'x' | 'c' | 'r' | 'u' | 'A' => checker.refuse(
                        "PROOF-2",
                        format!("`{program} {arg}` writes files or archives; only listing (`tar -tf`) may check an archive"),
                    ),
                    'I' | 'F' => checker.refuse("PROOF-2", format!("`{program} {arg}` runs a program")),
                    'f' => break,
                    _ => {}
                }
            }
        }
        if (name == "-f" || name == "--file" || arg.ends_with('f'))
            && args.get(i + 1).is_some_and(|f| f.contains(':'))
        {
            checker.refuse(
                "PROOF-2",
                format!("`{program}` archive names with `:` are remote (run over rsh/ssh)"),
            );
        }
    }
    if !lists {
        checker.refuse(
            "PROOF-2",
            format!("`{program}` may only list an archive (`tar -tf FILE`)"),
        );
    }
    Run::new(program, Class::Verifies)
}

fn make(checker: &mut Checker, program: &str, args: &[String]) -> Run {
    for arg in args {
        let name = arg.split('=').next().unwrap_or(arg);
        if name == "--eval" || name == "-E" || arg.starts_with("-E") && !arg.starts_with("--") {
            checker.refuse(
                "PROOF-2",
                format!("`{program} {arg}` evaluates extra makefile text, which can run commands"),
            );
        } else if !arg.starts_with('-') && arg.contains('=') {
            checker.refuse(
                "PROOF-2",
                format!("`{program} {arg}` overrides a make variable (such as SHELL), which can change the commands make runs"),
            );
        }
    }
    Run::new(program, Class::Verifies)
}

/// `test` / `[` / `[[`: operands bash may evaluate as arithmetic must be plain;
/// a test with no file operator compares constants and verifies nothing.
fn test_command(checker: &mut Checker, program: &str, args: &[String]) -> Run {
    const FILE_OPERATORS: &[&str] = &[
        "-e", "-f", "-d", "-s", "-r", "-w", "-x", "-L", "-h", "-p", "-S", "-b", "-c", "-g", "-u",
        "-k", "-O", "-G", "-N", "-nt", "-ot", "-ef", "-a",
    ];
    if args.iter().any(|a| a == "-v" || a == "-R") {
        checker.refuse("PROOF-3", format!("`{program} -v` evaluates a variable name (with array subscripts that can run commands)"));
    }
    for arg in args {
        if arg.contains('$') || arg.contains('`') {
            checker.refuse(
                "PROOF-3",
                format!("`{program}` operand `{arg}` can be evaluated as arithmetic, which can run commands"),
            );
        }
    }
    if args.iter().any(|a| FILE_OPERATORS.contains(&a.as_str())) {
        Run::new(program, Class::Verifies)
    } else {
        Run::new(program, Class::AlwaysSucceeds)
    }
}
