//! Programs that run another command (PERM-1, PERM-2): where that command
//! is among their words.
//!
//! A deny rule for `npm publish*` or `rm -rf *` must deny the command
//! however it is started: `npm exec -- npm publish`, `npx npm publish`,
//! `script -c "rm -rf build"`, `timeout 5 rm -rf build`, `sudo -u x rm …`
//! (outside attacker's integrations #6 and secrets5 #16). The shell judge
//! asks [`launched`] for every simple command; what a launcher starts is
//! judged as a simple command of its own (its own unit: rules must allow
//! it, a deny on it denies), and a command line a launcher hands to a shell
//! (`script -c STRING`, `npm exec -c STRING`, `flock -c`, `watch 'a; b'`,
//! `yarn exec`, `parallel`) is judged as shell, like `sh -c STRING`: deny
//! rules see inside it and no allow rule covers it.
//!
//! Each launcher's options are an allowlist: an option ploy does not know
//! may or may not take the next word, so both readings are judged (every
//! reading's command must be allowed; a deny on any denies). A word
//! computed at run time where the launcher reads its options, or a
//! launcher that runs what ploy cannot see (`env -S`, `script` with no
//! `-c`, `parallel` reading commands from its input), is unknown: no allow
//! rule covers it, so it asks.
//!
//! Pure: no I/O.

use ploy_shell::Word;

/// What a launcher starts.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Launched {
    /// The launched command starts at one of these argument indexes (one
    /// per reading of the launcher's options).
    pub starts: Vec<usize>,
    /// Command lines the launcher hands to a shell.
    pub lines: Vec<String>,
    /// Why ploy cannot see what it starts; set: a unit no allow rule covers.
    pub unknown: Option<String>,
    /// The words at `starts` may be a script of the project rather than a
    /// program (`pnpm build`, `pipenv run test`): deny and ask rules see
    /// them as a command, but the launcher's own allow rule is enough.
    pub deny_only: bool,
}

/// One option list: which options take the next word, which take none,
/// which take a command line a shell runs, and which start the command
/// right after them (`nix develop -c CMD ARGS`).
#[derive(Clone, Copy)]
struct Opts {
    values: &'static [&'static str],
    flags: &'static [&'static str],
    lines: &'static [&'static str],
}

const NO_OPTS: Opts = Opts {
    values: &[],
    flags: &[],
    lines: &[],
};

/// How one launcher reads its words after its own name (and subcommand).
#[derive(Clone, Copy)]
struct Spec {
    opts: Opts,
    /// Operands before the command (a duration, a lock file, a user).
    positionals: usize,
    /// The command words are joined into one line a shell runs (`watch`,
    /// `yarn exec`, `parallel`), unless one of `direct` is given.
    joined: bool,
    /// Options that make a joining launcher run the words directly (`watch -x`).
    direct: &'static [&'static str],
    /// `NAME=value` words before the command are settings (`env`).
    assignments: bool,
    /// Words that end the command (`parallel … ::: args`).
    enders: &'static [&'static str],
    /// The command is only after `--` (`mise exec TOOLS -- CMD`).
    after_dashes: bool,
    /// Without a command (or `-c` line), the launcher runs what ploy
    /// cannot see (`script` starts a shell reading its input).
    bare: Option<&'static str>,
    /// Its operands are files, not a command (`script LOG`, `nix-shell
    /// shell.nix`): only its line options launch.
    no_command: bool,
}

/// A launcher with options (`values` take the next word) and no line options.
const fn wrapper(values: &'static [&'static str], flags: &'static [&'static str]) -> Spec {
    spec(Opts {
        values,
        flags,
        lines: &[],
    })
}

const fn spec(opts: Opts) -> Spec {
    Spec {
        opts,
        positionals: 0,
        joined: false,
        direct: &[],
        assignments: false,
        enders: &[],
        after_dashes: false,
        bare: None,
        no_command: false,
    }
}

/// npm's own options (before and after `exec`) for `npm exec`/`npx`.
const NPM_EXEC: Opts = Opts {
    values: &[
        "--package",
        "-w",
        "--workspace",
        "--loglevel",
        "--prefix",
        "--registry",
        "--userconfig",
        "--cache",
    ],
    flags: &[
        "-y",
        "--yes",
        "--no",
        "--no-yes",
        "-ws",
        "--workspaces",
        "--include-workspace-root",
        "-q",
        "--quiet",
        "-s",
        "--silent",
        "-d",
        "--verbose",
        "--offline",
        "--prefer-offline",
        "--prefer-online",
        "--ignore-existing",
        "--no-install",
    ],
    lines: &["-c", "--call"],
};

/// `npx`: npm's exec with `-p` for `--package`.
const NPX: Opts = Opts {
    values: &[
        "-p",
        "--package",
        "-w",
        "--workspace",
        "--loglevel",
        "--registry",
        "--userconfig",
        "--cache",
    ],
    flags: NPM_EXEC.flags,
    lines: &["-c", "--call"],
};

/// `pnpm exec` / `pnpm dlx` (and pnpm's options before them).
const PNPM: Opts = Opts {
    values: &[
        "-C",
        "--dir",
        "--filter",
        "-F",
        "--resume-from",
        "--reporter",
        "--loglevel",
        "--package",
        "--allow-build",
        "--workspace-concurrency",
    ],
    flags: &[
        "-r",
        "--recursive",
        "--parallel",
        "--no-reporter-hide-prefix",
        "--report-summary",
        "-w",
        "--workspace-root",
        "-s",
        "--silent",
        "--stream",
        "--aggregate-output",
        "--no-bail",
        "--use-stderr",
        "-c",
        "--shell-mode",
    ],
    // `-c` / `--shell-mode` run the command words through a shell.
    lines: &[],
};

/// pnpm's shell-mode options: the words are one shell line.
const PNPM_SHELL: &[&str] = &["-c", "--shell-mode"];

/// pnpm's commands (`pnpm help`): any other first word is run as a
/// script or a program (`pnpm git push` runs `git push`).
const PNPM_COMMANDS: &[&str] = &[
    "add",
    "approve-builds",
    "audit",
    "bin",
    "c",
    "cat-file",
    "cat-index",
    "config",
    "create",
    "dedupe",
    "deploy",
    "dlx",
    "doctor",
    "env",
    "exec",
    "fetch",
    "find-hash",
    "get",
    "help",
    "i",
    "ignored-builds",
    "import",
    "init",
    "install",
    "install-test",
    "it",
    "licenses",
    "link",
    "list",
    "ll",
    "ln",
    "ls",
    "m",
    "multi",
    "outdated",
    "pack",
    "patch",
    "patch-commit",
    "patch-remove",
    "prune",
    "publish",
    "rb",
    "rebuild",
    "recursive",
    "remove",
    "rm",
    "root",
    "run",
    "run-script",
    "server",
    "set",
    "setup",
    "self-update",
    "start",
    "store",
    "t",
    "test",
    "tst",
    "un",
    "uninstall",
    "unlink",
    "up",
    "update",
    "upgrade",
    "why",
];

/// Where the command of `name args…` starts, if `name` launches one.
pub(crate) fn launched(name: &str, args: &[&Word]) -> Option<Launched> {
    let texts: Vec<&str> = args.iter().map(|w| text_of(w)).collect();
    let (spec, from) = match name {
        "env" => {
            if texts.iter().any(|t| {
                *t == "-S"
                    || t.starts_with("--split-string")
                    || (t.starts_with("-S") && !t.starts_with("--"))
            }) {
                return Some(unknown("`env -S` splits a string into a command"));
            }
            let mut s = wrapper(
                &["-u", "--unset", "-C", "--chdir", "-a", "--argv0", "-P"],
                &[
                    "-i",
                    "--ignore-environment",
                    "-0",
                    "--null",
                    "-v",
                    "--debug",
                    "--list-signal-handling",
                ],
            );
            s.assignments = true;
            (s, 0)
        }
        "command" => (wrapper(&[], &["-p", "-v", "-V"]), 0),
        "builtin" | "nohup" | "eatmydata" | "catchsegv" => (wrapper(&[], &[]), 0),
        "exec" => (wrapper(&["-a"], &["-c", "-l"]), 0),
        "setsid" => (
            wrapper(&[], &["-c", "--ctty", "-f", "--fork", "-w", "--wait"]),
            0,
        ),
        "time" => (
            wrapper(
                &["-f", "--format", "-o", "--output"],
                &[
                    "-a",
                    "--append",
                    "-p",
                    "--portability",
                    "-v",
                    "--verbose",
                    "-q",
                    "--quiet",
                ],
            ),
            0,
        ),
        "unbuffer" => (wrapper(&[], &["-p"]), 0),
        "chronic" => (wrapper(&[], &["-e", "-v", "-h"]), 0),
        "nice" => (wrapper(&["-n", "--adjustment"], &[]), 0),
        "timeout" => {
            let mut s = wrapper(
                &["-s", "--signal", "-k", "--kill-after"],
                &["--preserve-status", "--foreground", "-v", "--verbose"],
            );
            s.positionals = 1;
            (s, 0)
        }
        "xargs" => (
            wrapper(
                &[
                    "-a",
                    "--arg-file",
                    "-d",
                    "--delimiter",
                    "-E",
                    "-I",
                    "-L",
                    "--max-lines",
                    "--process-slot-var",
                    "-n",
                    "--max-args",
                    "-P",
                    "--max-procs",
                    "-s",
                    "--max-chars",
                ],
                &[
                    "-0",
                    "--null",
                    "-r",
                    "--no-run-if-empty",
                    "-t",
                    "--verbose",
                    "-p",
                    "--interactive",
                    "-x",
                    "--exit",
                    "-o",
                    "--open-tty",
                    "--show-limits",
                    // Values only glued: `-e[EOF]`, `-i[R]`, `-l[N]`.
                    "-e",
                    "-i",
                    "-l",
                    "--eof",
                    "--replace",
                ],
            ),
            0,
        ),
        "sudo" => (
            wrapper(
                &[
                    "-u",
                    "-g",
                    "-h",
                    "-p",
                    "-C",
                    "-D",
                    "-r",
                    "-t",
                    "-U",
                    "-T",
                    "--user",
                    "--group",
                    "--host",
                    "--prompt",
                    "--close-from",
                    "--chdir",
                    "--role",
                    "--type",
                    "--other-user",
                    "--command-timeout",
                ],
                &[
                    "-A",
                    "-b",
                    "-E",
                    "-e",
                    "-H",
                    "-i",
                    "-K",
                    "-k",
                    "-l",
                    "-n",
                    "-P",
                    "-S",
                    "-s",
                    "-V",
                    "-v",
                    "-B",
                    "-N",
                    "--askpass",
                    "--background",
                    "--preserve-env",
                    "--edit",
                    "--set-home",
                    "--login",
                    "--remove-timestamp",
                    "--reset-timestamp",
                    "--list",
                    "--non-interactive",
                    "--preserve-groups",
                    "--stdin",
                    "--shell",
                    "--validate",
                    "--bell",
                    "--no-update",
                ],
            ),
            0,
        ),
        "doas" => (wrapper(&["-u", "-C"], &["-n", "-s", "-L"]), 0),
        "pkexec" => (
            wrapper(&["--user"], &["--keep-cwd", "--disable-internal-agent"]),
            0,
        ),
        "gosu" | "su-exec" => {
            let mut s = wrapper(&[], &[]);
            s.positionals = 1;
            (s, 0)
        }
        "stdbuf" => (
            wrapper(&["-i", "-o", "-e", "--input", "--output", "--error"], &[]),
            0,
        ),
        "ionice" => (
            wrapper(
                &[
                    "-c",
                    "--class",
                    "-n",
                    "--classdata",
                    "-p",
                    "--pid",
                    "-P",
                    "--pgid",
                    "-u",
                    "--uid",
                ],
                &["-t", "--ignore"],
            ),
            0,
        ),
        "chrt" => {
            let mut s = wrapper(
                &[
                    "-T",
                    "-P",
                    "-D",
                    "--sched-runtime",
                    "--sched-period",
                    "--sched-deadline",
                ],
                &[
                    "-a",
                    "-b",
                    "-d",
                    "-e",
                    "-f",
                    "-i",
                    "-o",
                    "-r",
                    "-m",
                    "-v",
                    "-R",
                    "--all-tasks",
                    "--batch",
                    "--deadline",
                    "--fifo",
                    "--idle",
                    "--other",
                    "--rr",
                    "--reset-on-fork",
                    "--verbose",
                ],
            );
            s.positionals = 1;
            (s, 0)
        }
        "taskset" => {
            let mut s = wrapper(&[], &["-a", "-c", "--all-tasks", "--cpu-list"]);
            s.positionals = 1;
            (s, 0)
        }
        "flock" => {
            let mut s = spec(Opts {
                values: &["-w", "--timeout", "-E", "--conflict-exit-code"],
                flags: &[
                    "-s",
                    "--shared",
                    "-x",
                    "-e",
                    "--exclusive",
                    "-n",
                    "--nb",
                    "--nonblock",
                    "-u",
                    "--unlock",
                    "-o",
                    "--close",
                    "-F",
                    "--no-fork",
                    "--verbose",
                ],
                lines: &["-c", "--command"],
            });
            s.positionals = 1;
            (s, 0)
        }
        "watch" => {
            let mut s = wrapper(
                &["-n", "--interval", "-q", "--equexit"],
                &[
                    "-b",
                    "--beep",
                    "-c",
                    "--color",
                    "-C",
                    "--no-color",
                    "-d",
                    "--differences",
                    "-e",
                    "--errexit",
                    "-g",
                    "--chgexit",
                    "-p",
                    "--precise",
                    "-r",
                    "--no-rerun",
                    "-t",
                    "--no-title",
                    "-w",
                    "--no-wrap",
                    "-x",
                    "--exec",
                ],
            );
            // watch runs `sh -c "WORDS…"` unless `-x`.
            s.joined = true;
            s.direct = &["-x", "--exec"];
            (s, 0)
        }
        "strace" | "ltrace" => (
            wrapper(
                &[
                    "-e", "-o", "-p", "-s", "-u", "-E", "-P", "-I", "-b", "-a", "-O", "-S", "-X",
                    "-A", "-U", "-n",
                ],
                &[
                    "-f", "-ff", "-c", "-C", "-d", "-D", "-i", "-k", "-q", "-qq", "-r", "-t",
                    "-tt", "-ttt", "-T", "-v", "-V", "-w", "-x", "-xx", "-y", "-yy", "-z", "-Z",
                    "-h", "-l", "-L", "-S",
                ],
            ),
            0,
        ),
        "faketime" => {
            if texts.iter().any(|t| t.starts_with("--date-prog")) {
                return Some(unknown("`faketime --date-prog` runs a program it names"));
            }
            let mut s = wrapper(
                &["-p"],
                &["-m", "-f", "--exclude-monotonic", "--disable-shm"],
            );
            s.positionals = 1;
            (s, 0)
        }
        "script" => {
            let mut s = spec(Opts {
                values: &[
                    "-E",
                    "--echo",
                    "-I",
                    "--log-in",
                    "-O",
                    "--log-out",
                    "-B",
                    "--log-io",
                    "-T",
                    "--log-timing",
                    "-m",
                    "--logging-format",
                ],
                flags: &[
                    "-a", "--append", "-e", "--return", "-f", "--flush", "--force", "-q",
                    "--quiet", "-t", "--timing",
                ],
                lines: &["-c", "--command"],
            });
            // The operand is the typescript file, not a command.
            s.no_command = true;
            s.bare = Some("`script` without `-c` starts a shell that runs its input");
            (s, 0)
        }
        "parallel" => {
            let mut s = wrapper(
                &[
                    "-j",
                    "--jobs",
                    "-n",
                    "--max-args",
                    "-N",
                    "-I",
                    "-d",
                    "--delimiter",
                    "-L",
                    "--max-lines",
                    "--colsep",
                    "-C",
                    "--timeout",
                    "--halt",
                    "--delay",
                    "--retries",
                    "-S",
                    "--sshlogin",
                    "--tmpdir",
                    "--results",
                    "--joblog",
                    "-a",
                    "--arg-file",
                    "--tag-string",
                    "--env",
                ],
                &[
                    "-k",
                    "--keep-order",
                    "-v",
                    "--verbose",
                    "-q",
                    "--quote",
                    "--dry-run",
                    "--tag",
                    "-u",
                    "--ungroup",
                    "--line-buffer",
                    "--group",
                    "-0",
                    "--null",
                    "-X",
                    "-m",
                    "--xargs",
                    "--bar",
                    "--progress",
                    "--eta",
                    "--will-cite",
                ],
            );
            s.joined = true;
            s.enders = &[":::", "::::", ":::+", "::::+"];
            s.bare = Some("`parallel` without a command runs the command lines of its input");
            (s, 0)
        }
        "chroot" => {
            let mut s = wrapper(&["--userspec", "--groups"], &["--skip-chdir"]);
            s.positionals = 1;
            (s, 0)
        }
        "unshare" => (
            wrapper(
                &[
                    "-S",
                    "-G",
                    "-R",
                    "-w",
                    "--setuid",
                    "--setgid",
                    "--root",
                    "--wd",
                    "--propagation",
                    "--setgroups",
                    "--map-user",
                    "--map-group",
                    "--map-users",
                    "--map-groups",
                    "--monotonic",
                    "--boottime",
                ],
                &[
                    "-m",
                    "-u",
                    "-i",
                    "-n",
                    "-p",
                    "-U",
                    "-C",
                    "-T",
                    "-f",
                    "-r",
                    "-c",
                    "--fork",
                    "--map-root-user",
                    "--map-current-user",
                    "--mount-proc",
                    "--kill-child",
                    "--keep-caps",
                    "--mount",
                    "--uts",
                    "--ipc",
                    "--net",
                    "--pid",
                    "--user",
                    "--cgroup",
                    "--time",
                ],
            ),
            0,
        ),
        "fakeroot" => (
            wrapper(
                &["-l", "--lib", "--faked", "-s", "-i", "-b"],
                &["-u", "--unknown-is-real"],
            ),
            0,
        ),
        "torsocks" => (wrapper(&["-u", "-p", "-a", "-P"], &["-i", "-d", "-q"]), 0),
        "proxychains" | "proxychains4" => (wrapper(&["-f"], &["-q"]), 0),
        "dbus-run-session" => (wrapper(&[], &[]), 0),
        "npx" => (spec(NPX), 0),
        "bunx" => (
            wrapper(&["-p", "--package"], &["--bun", "--silent", "--verbose"]),
            0,
        ),
        "pnpx" => (spec(PNPM), 0),
        "npm" => return npm(&texts, args),
        "pnpm" => return pnpm(&texts, args),
        "yarn" => {
            let (sub, from) = subcommand(&texts, &["--cwd"])?;
            match sub {
                "exec" => {
                    // Yarn (Berry) runs `yarn exec`'s words in its shell.
                    let mut s = spec(NO_OPTS);
                    s.joined = true;
                    (s, from)
                }
                "dlx" => (wrapper(&["-p", "--package"], &["-q", "--quiet"]), from),
                _ => return None,
            }
        }
        "bun" => {
            let (sub, from) = subcommand(&texts, &["--cwd", "-c", "--config"])?;
            match sub {
                "x" => (
                    wrapper(&["-p", "--package"], &["--bun", "--silent", "--verbose"]),
                    from,
                ),
                // `bun exec "LINE"` runs the line in Bun's shell.
                "exec" => {
                    let mut s = spec(NO_OPTS);
                    s.joined = true;
                    (s, from)
                }
                _ => return None,
            }
        }
        "uv" => {
            let (sub, from) = subcommand(&texts, UV_GLOBAL)?;
            match sub {
                "run" => (wrapper(UV_RUN_VALUES, UV_RUN_FLAGS), from),
                "tool" if texts.get(from) == Some(&"run") => {
                    (wrapper(UV_RUN_VALUES, UV_RUN_FLAGS), from + 1)
                }
                _ => return None,
            }
        }
        "uvx" => (wrapper(UV_RUN_VALUES, UV_RUN_FLAGS), 0),
        "poetry" | "pipenv" | "pdm" | "rye" | "hatch" => {
            let (sub, from) = subcommand(&texts, &["-C", "--directory", "-P", "--project"])?;
            if sub != "run" {
                return None;
            }
            let mut launched = read_spec(
                &texts,
                args,
                from,
                &wrapper(&[], &["-q", "--quiet", "-v", "--verbose"]),
            );
            // poetry runs programs; the others also run the project's
            // named scripts, which an allow rule for them may cover.
            launched.deny_only = name != "poetry";
            return Some(launched);
        }
        "bundle" => {
            let (sub, from) = subcommand(&texts, &["--gemfile"])?;
            if sub != "exec" {
                return None;
            }
            (wrapper(&["--gemfile"], &["--keep-file-descriptors"]), from)
        }
        "conda" | "mamba" | "micromamba" => {
            let (sub, from) = subcommand(&texts, &[])?;
            if sub != "run" {
                return None;
            }
            (
                wrapper(
                    &["-n", "--name", "-p", "--prefix", "--cwd"],
                    &["--live-stream", "--no-capture-output", "-v", "--verbose"],
                ),
                from,
            )
        }
        "direnv" => {
            let (sub, from) = subcommand(&texts, &[])?;
            if sub != "exec" {
                return None;
            }
            let mut s = wrapper(&[], &[]);
            s.positionals = 1;
            (s, from)
        }
        "mise" | "rtx" => {
            let (sub, from) = subcommand(&texts, &["-C", "--cd", "-E", "--env", "-j", "--jobs"])?;
            if !matches!(sub, "exec" | "x") {
                return None;
            }
            let mut s = spec(Opts {
                values: &["-j", "--jobs"],
                flags: &["--raw", "--no-prepare", "-q", "--quiet", "-v", "--verbose"],
                lines: &["-c", "--command"],
            });
            s.after_dashes = true;
            (s, from)
        }
        // Everyday wrappers that run the command after their options
        // (round6 #10); options not listed are read both ways.
        "dotenv" => (
            wrapper(&["-e", "-v", "-c", "-p"], &["-o", "--debug", "--quiet"]),
            0,
        ),
        "xvfb-run" => (
            wrapper(
                &[
                    "-n",
                    "--server-num",
                    "-s",
                    "--server-args",
                    "-f",
                    "--auth-file",
                    "-e",
                    "--error-file",
                    "-p",
                    "--xauth-protocol",
                    "-w",
                    "--wait",
                ],
                &["-a", "--auto-servernum", "-l", "--listen-tcp"],
            ),
            0,
        ),
        "valgrind" | "firejail" => (wrapper(&[], &["-q", "-v", "--quiet", "--verbose"]), 0),
        "systemd-run" => (
            wrapper(
                &[
                    "-p",
                    "--property",
                    "-u",
                    "--unit",
                    "--slice",
                    "-E",
                    "--setenv",
                    "-M",
                    "--machine",
                    "-H",
                    "--host",
                    "--description",
                    "--on-calendar",
                    "--on-active",
                    "--working-directory",
                    "--uid",
                    "--gid",
                    "--nice",
                ],
                &[
                    "--user",
                    "--system",
                    "--scope",
                    "-t",
                    "--pty",
                    "-P",
                    "--pipe",
                    "-q",
                    "--quiet",
                    "--wait",
                    "-G",
                    "--collect",
                    "--no-block",
                    "--same-dir",
                    "-d",
                    "--remain-after-exit",
                    "-r",
                    "--no-ask-password",
                ],
            ),
            0,
        ),
        "proot" => (
            wrapper(
                &[
                    "-r",
                    "--rootfs",
                    "-b",
                    "--bind",
                    "-m",
                    "--mount",
                    "-w",
                    "--pwd",
                    "--cwd",
                    "-q",
                    "--qemu",
                    "-k",
                    "--kernel-release",
                    "-i",
                ],
                &["-0", "--root-id", "-v", "--verbose", "-R", "-S"],
            ),
            0,
        ),
        "nsenter" => (
            wrapper(
                &["-t", "--target", "-S", "--setuid", "-G", "--setgid"],
                &[
                    "-a",
                    "--all",
                    "-m",
                    "-u",
                    "-i",
                    "-n",
                    "-p",
                    "-U",
                    "-C",
                    "-T",
                    "--mount",
                    "--uts",
                    "--ipc",
                    "--net",
                    "--pid",
                    "--user",
                    "--cgroup",
                    "--time",
                    "-F",
                    "--no-fork",
                    "--preserve-credentials",
                ],
            ),
            0,
        ),
        "sg" => {
            // `sg GROUP -c LINE` / `sg GROUP LINE`: the words are one line `sh -c` runs.
            let mut s = spec(Opts {
                values: &[],
                flags: &[],
                lines: &["-c"],
            });
            s.positionals = 1;
            s.joined = true;
            (s, 0)
        }
        "gdb" | "cgdb" => {
            if texts.iter().any(|t| {
                let name = t
                    .split('=')
                    .next()
                    .unwrap_or_default()
                    .trim_start_matches('-');
                matches!(
                    name,
                    "ex" | "eval-command"
                        | "x"
                        | "command"
                        | "iex"
                        | "init-eval-command"
                        | "ix"
                        | "init-command"
                )
            }) {
                return Some(unknown(
                    "`gdb -ex`/`-x` runs gdb commands ploy does not read (`shell …` runs any command)",
                ));
            }
            let at = texts.iter().position(|t| *t == "--args")?;
            return Some(Launched {
                starts: (at + 1 < texts.len())
                    .then_some(at + 1)
                    .into_iter()
                    .collect(),
                ..Launched::default()
            });
        }
        "op" => {
            let (sub, from) = subcommand(&texts, &["--account", "--config", "--session"])?;
            if sub != "run" {
                return None;
            }
            (
                wrapper(
                    &[
                        "--env-file",
                        "--account",
                        "--config",
                        "--session",
                        "--encoding",
                    ],
                    &["--no-masking", "--cache", "--iso-timestamps", "--debug"],
                ),
                from,
            )
        }
        "volta" => {
            let (sub, from) = subcommand(&texts, &[])?;
            if sub != "run" {
                return None;
            }
            (
                wrapper(
                    &["--node", "--npm", "--yarn", "--pnpm", "--env"],
                    &[
                        "--bundled-npm",
                        "--no-yarn",
                        "--no-pnpm",
                        "--verbose",
                        "--quiet",
                    ],
                ),
                from,
            )
        }
        "fnm" => {
            let (sub, from) = subcommand(&texts, &["--log-level", "--arch", "--fnm-dir"])?;
            if sub != "exec" {
                return None;
            }
            (
                wrapper(
                    &["--using", "--log-level", "--arch", "--fnm-dir"],
                    &["--using-file"],
                ),
                from,
            )
        }
        "asdf" => {
            let (sub, from) = subcommand(&texts, &[])?;
            if sub != "exec" {
                return None;
            }
            (wrapper(&[], &[]), from)
        }
        "corepack" => {
            // `corepack npm …` / `pnpm` / `yarn`: npm's own shim runs the package manager.
            let (sub, from) = subcommand(&texts, &[])?;
            if !matches!(sub, "npm" | "npx" | "pnpm" | "pnpx" | "yarn" | "yarnpkg") {
                return None;
            }
            return Some(Launched {
                starts: vec![from - 1],
                ..Launched::default()
            });
        }
        "pixi" | "devbox" | "deno" => {
            let (sub, from) = subcommand(
                &texts,
                &["--manifest-path", "-c", "--config", "-e", "--environment"],
            )?;
            if sub != "run" {
                return None;
            }
            let mut launched = read_spec(
                &texts,
                args,
                from,
                &wrapper(
                    &[
                        "-e",
                        "--environment",
                        "--manifest-path",
                        "-c",
                        "--config",
                        "--env",
                        "--env-file",
                        "--import-map",
                        "--lock",
                        "--cert",
                        "--location",
                        "--seed",
                    ],
                    &[
                        "-q",
                        "--quiet",
                        "-v",
                        "--verbose",
                        "--frozen",
                        "--locked",
                        "-A",
                        "--allow-all",
                        "-r",
                        "--reload",
                        "--no-check",
                        "--no-prompt",
                        "--watch",
                    ],
                ),
            );
            // Their operand may be a task or a script of the project
            // (`pixi run test`, `deno run main.ts`): deny and ask rules see
            // it as a command (`deno run npm:npm publish` is `npm publish`),
            // the launcher's own allow rule is enough otherwise.
            launched.deny_only = true;
            return Some(launched);
        }
        "nix-shell" => {
            // `nix-shell --run LINE` / `--command LINE`; a bare nix-shell
            // starts an interactive shell (nothing launched here).
            let mut s = spec(Opts {
                values: &[
                    "-p",
                    "--packages",
                    "-A",
                    "--attr",
                    "-I",
                    "--arg",
                    "--argstr",
                    "--option",
                ],
                flags: &[
                    "--pure",
                    "--impure",
                    "-v",
                    "--verbose",
                    "-Q",
                    "--no-build-output",
                ],
                lines: &["--run", "--command"],
            });
            // Its operands are nix files or package names, not a command.
            s.no_command = true;
            (s, 0)
        }
        _ => return None,
    };
    Some(read_spec(&texts, args, from, &spec))
}

/// Programs whose operands are text or files to show, never a command they
/// run: their words are not tried as commands ([`inner_forms`]).
const DATA_PROGRAMS: &[&str] = &[
    "echo", "printf", "cat", "grep", "egrep", "fgrep", "rg", "ag", "ack", "man", "which",
    "whereis", "whatis", "type", "apropos", "head", "tail", "wc", "ls",
];

/// How many words of one command are tried as the start of a command it
/// may run; past it the command asks.
const MAX_INNER_STARTS: usize = 128;

/// The name a word runs as a program: its basename, without a registry
/// prefix or a version (`npm:npm@10` and `/usr/bin/npm` are `npm`).
pub(crate) fn program_name(word: &str) -> &str {
    let word = match word.split_once(':') {
        Some(("npm" | "jsr" | "node", rest)) => rest,
        _ => word,
    };
    let word = match word.get(1..).and_then(|tail| tail.find('@')) {
        Some(at) => &word[..at + 1],
        None => word,
    };
    word.rsplit('/').next().unwrap_or_default()
}

/// Commands among the words of `program args…` that it may run, for a
/// program ploy has no launcher entry for (the class of round6 #10:
/// `dotenv -- npm publish`, `xvfb-run npm publish`, any wrapper not listed):
/// every suffix of its words that starts with a word that can name a
/// program, also as that program reads its own words ([`crate::subcommand`]).
/// A deny or ask rule matching one makes the command ask rather than be
/// allowed by the wrapper's own allow rule (`crate::Permission::assert`);
/// it never denies, since the program may well take those words as data.
/// `Err`: too many words to try, so no allow rule covers the command.
pub(crate) fn inner_forms(program: &str, args: &[&str]) -> Result<Vec<String>, String> {
    let mut forms = Vec::new();
    if DATA_PROGRAMS.contains(&program) {
        return Ok(forms);
    }
    let mut tried = 0;
    for (i, word) in args.iter().enumerate() {
        let can_name = !word.is_empty()
            && !word.starts_with('-')
            && !word.contains('=')
            && !word.chars().any(char::is_whitespace);
        if !can_name {
            continue;
        }
        tried += 1;
        if tried > MAX_INNER_STARTS {
            return Err(format!(
                "`{program}` has more than {MAX_INNER_STARTS} words that may name a command it \
                 runs; ploy does not try them all"
            ));
        }
        let name = program_name(word);
        let rest = &args[i + 1..];
        let mut form = name.to_string();
        for word in rest {
            form.push(' ');
            form.push_str(word);
        }
        if !forms.contains(&form) {
            forms.push(form);
        }
        for form in crate::subcommand::normalise(name, rest).forms {
            if !forms.contains(&form) {
                forms.push(form);
            }
        }
    }
    Ok(forms)
}

/// `uv`'s options before the subcommand that take the next word.
const UV_GLOBAL: &[&str] = &[
    "--directory",
    "--project",
    "--cache-dir",
    "--config-file",
    "--color",
    "--python-preference",
];

const UV_RUN_VALUES: &[&str] = &[
    "--with",
    "--with-editable",
    "--with-requirements",
    "--from",
    "-p",
    "--python",
    "--package",
    "--extra",
    "--group",
    "--only-group",
    "--no-group",
    "--env-file",
    "--directory",
    "--project",
    "--index",
    "--default-index",
    "-i",
    "--index-url",
    "--extra-index-url",
    "-f",
    "--find-links",
    "--cache-dir",
    "--config-file",
    "--color",
];

const UV_RUN_FLAGS: &[&str] = &[
    "--all-extras",
    "--no-dev",
    "--dev",
    "--frozen",
    "--locked",
    "--isolated",
    "--no-sync",
    "--no-project",
    "--active",
    "--offline",
    "-q",
    "--quiet",
    "-v",
    "--verbose",
    "--no-cache",
    "-n",
    "--no-env-file",
    "--exact",
    "--all-packages",
    "-U",
    "--upgrade",
];

fn unknown(why: &str) -> Launched {
    Launched {
        unknown: Some(why.to_string()),
        ..Launched::default()
    }
}

fn text_of(word: &Word) -> &str {
    word.value.as_deref().unwrap_or(&word.raw)
}

/// The first plain word (the subcommand) after options, and the index
/// after it; `global` options take the next word. `None` when there is no
/// plain word (nothing launched).
fn subcommand<'a>(texts: &[&'a str], global: &[&str]) -> Option<(&'a str, usize)> {
    let mut i = 0;
    while i < texts.len() {
        let text = texts[i];
        if text == "--" {
            // The end of the options: the next word is the subcommand as
            // the program dispatches it (round6 #1: `pnpm -- dlx npm …`).
            return texts.get(i + 1).map(|sub| (*sub, i + 2));
        }
        if text.starts_with('-') {
            i += if global.contains(&text) { 2 } else { 1 };
            continue;
        }
        return Some((text, i + 1));
    }
    None
}

/// `npm exec` / `npm x` (npm's command found as [`crate::subcommand`] finds it,
/// every reading of the options before it).
fn npm(texts: &[&str], args: &[&Word]) -> Option<Launched> {
    let (starts, unsure) = crate::subcommand::npm_starts(texts);
    let mut out = Launched::default();
    let mut any = false;
    for start in starts {
        if crate::subcommand::npm_command_at(texts, start) != Some("exec") {
            continue;
        }
        any = true;
        let one = read_spec(texts, args, start + 1, &spec(NPM_EXEC));
        merge(&mut out, one);
    }
    if !any {
        return None;
    }
    if let Some(why) = unsure {
        out.unknown.get_or_insert(why);
    }
    Some(out)
}

/// `pnpm exec`, `pnpm dlx`, and `pnpm WORD` for a word that is not one of
/// pnpm's commands (pnpm runs it as a script or a program).
fn pnpm(texts: &[&str], args: &[&Word]) -> Option<Launched> {
    let globals = PNPM.values;
    let (sub, from) = subcommand(texts, globals)?;
    let mut s = spec(PNPM);
    let shell_mode = texts.iter().any(|t| PNPM_SHELL.contains(t));
    s.joined = shell_mode;
    match sub {
        "exec" | "dlx" => Some(read_spec(texts, args, from, &s)),
        other if !PNPM_COMMANDS.contains(&other) => Some(Launched {
            starts: vec![from - 1],
            deny_only: true,
            ..Launched::default()
        }),
        _ => None,
    }
}

fn merge(out: &mut Launched, one: Launched) {
    for start in one.starts {
        if !out.starts.contains(&start) {
            out.starts.push(start);
        }
    }
    for line in one.lines {
        if !out.lines.contains(&line) {
            out.lines.push(line);
        }
    }
    if let Some(why) = one.unknown {
        out.unknown.get_or_insert(why);
    }
}

/// How many readings of unknown options are followed before giving up.
const MAX_READINGS: usize = 16;

/// Reads a launcher's words from `from` with `s`: every reading's start of
/// the command, the lines it hands a shell, and why ploy is unsure.
fn read_spec(texts: &[&str], args: &[&Word], from: usize, s: &Spec) -> Launched {
    let mut out = Launched::default();
    let mut pending = vec![(from, s.positionals)];
    let mut readings = 0;
    let mut direct = false;
    while let Some((mut i, mut left)) = pending.pop() {
        readings += 1;
        if readings > MAX_READINGS {
            out.unknown
                .get_or_insert_with(|| "too many ways to read the launcher's options".into());
            break;
        }
        let mut dashes = false;
        while i < texts.len() {
            let text = texts[i];
            if args[i].value.is_none() && !dashes {
                out.unknown.get_or_insert_with(|| {
                    format!(
                        "`{}` is computed at run time where the launcher reads its options or \
                         its command",
                        args[i].raw
                    )
                });
            }
            if text == "--" && !dashes {
                dashes = true;
                i += 1;
                continue;
            }
            if !dashes && text.starts_with('-') && text.len() > 1 {
                let long = text.starts_with("--");
                let (name, inline) = match text.split_once('=') {
                    Some((name, value)) if long => (name, Some(value)),
                    _ => (text, None),
                };
                if s.direct.contains(&name) {
                    direct = true;
                }
                if s.opts.lines.contains(&name) {
                    let value = match inline {
                        Some(value) => Some(value.to_string()),
                        None => {
                            i += 1;
                            args.get(i).and_then(|w| line_text(w, &mut out))
                        }
                    };
                    out.lines.extend(value);
                    i += 1;
                    continue;
                }
                if s.opts.values.contains(&name) {
                    i += if inline.is_some() { 1 } else { 2 };
                    continue;
                }
                if s.opts.flags.contains(&name) || inline.is_some() {
                    i += 1;
                    continue;
                }
                if !long {
                    // A cluster: each letter a flag until one takes a value
                    // (glued, or the next word) or a line.
                    match cluster(&text[1..], &s.opts) {
                        Cluster::Flags => {
                            i += 1;
                            continue;
                        }
                        Cluster::Glued => {
                            i += 1;
                            continue;
                        }
                        Cluster::TakesNext => {
                            i += 2;
                            continue;
                        }
                        Cluster::LineGlued(at) => {
                            out.lines.push(text[1 + at..].to_string());
                            i += 1;
                            continue;
                        }
                        Cluster::LineNext => {
                            i += 1;
                            if let Some(word) = args.get(i) {
                                let line = line_text(word, &mut out);
                                out.lines.extend(line);
                            }
                            i += 1;
                            continue;
                        }
                        Cluster::Unknown => {}
                    }
                }
                if text[1..].chars().all(|c| c.is_ascii_digit()) {
                    // `nice -10`: a number.
                    i += 1;
                    continue;
                }
                // Not known: it may or may not take the next word.
                if pending.len() < MAX_READINGS {
                    pending.push((i + 2, left));
                }
                i += 1;
                continue;
            }
            if s.assignments && !dashes && text.contains('=') && !text.starts_with('=') {
                i += 1;
                continue;
            }
            if s.after_dashes && !dashes {
                // Tool names before `--` (`mise exec node@20 -- CMD`).
                i += 1;
                continue;
            }
            if left > 0 || s.no_command {
                left = left.saturating_sub(1);
                i += 1;
                continue;
            }
            if !out.starts.contains(&i) {
                out.starts.push(i);
            }
            break;
        }
    }
    out.starts.sort_unstable();
    if s.joined && !direct {
        for start in std::mem::take(&mut out.starts) {
            let end = (start..texts.len())
                .find(|k| s.enders.contains(&texts[*k]))
                .unwrap_or(texts.len());
            if args[start..end].iter().any(|w| w.value.is_none()) {
                out.unknown.get_or_insert_with(|| {
                    "the command line the launcher runs is computed at run time".into()
                });
            }
            out.lines.push(texts[start..end].join(" "));
        }
    }
    if out.starts.is_empty()
        && out.lines.is_empty()
        && let Some(why) = s.bare
    {
        out.unknown.get_or_insert_with(|| why.to_string());
    }
    out
}

/// The text of a line option's value; a computed one is unknown.
fn line_text(word: &Word, out: &mut Launched) -> Option<String> {
    match word.value.as_deref() {
        Some(text) => Some(text.to_string()),
        None => {
            out.unknown.get_or_insert_with(|| {
                format!(
                    "the command line `{}` the launcher runs is computed at run time",
                    word.raw
                )
            });
            None
        }
    }
}

/// How a cluster of short letters (`-Eu`, `-uroot`, `-qc`) reads.
enum Cluster {
    /// Only flags.
    Flags,
    /// A letter takes the rest of the word as its value.
    Glued,
    /// The last letter takes the next word.
    TakesNext,
    /// A line option with its line glued (at this byte offset of the letters).
    LineGlued(usize),
    /// The last letter is a line option: the next word is the line.
    LineNext,
    /// A letter ploy does not know.
    Unknown,
}

fn cluster(letters: &str, opts: &Opts) -> Cluster {
    for (at, letter) in letters.char_indices() {
        let name = format!("-{letter}");
        let last = at + letter.len_utf8() == letters.len();
        if opts.lines.contains(&name.as_str()) {
            return if last {
                Cluster::LineNext
            } else {
                Cluster::LineGlued(at + letter.len_utf8())
            };
        }
        if opts.values.contains(&name.as_str()) {
            return if last {
                Cluster::TakesNext
            } else {
                Cluster::Glued
            };
        }
        if !opts.flags.contains(&name.as_str()) {
            return Cluster::Unknown;
        }
    }
    Cluster::Flags
}
