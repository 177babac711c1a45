//! What a read-looking program's own options do (PERM-1, PERM-2).
//!
//! An allow rule for `rg *`, `sort *`, `find *` or `git log *` reads as
//! "let it search and print", but these programs write files and run
//! programs through their options: `rg --pre PROG`, `sort -o FILE`,
//! `sort --compress-program=PROG`, `find -delete` / `-fprint FILE`,
//! `git log --output=FILE`, a `sed` script's `w FILE` or `e` command, an
//! `awk` program's `system()` (an outside attacker ran them under such
//! rules, tui-rpc #9). [`judge`] reads the words as the program does and
//! says what they do beyond reading:
//!
//! * an option that writes a file → [`Effect::Writes`] (the shell judge makes
//!   it an `edit` unit: an `edit` rule must allow it, PERM-7 applies);
//! * an option that runs a program → [`Effect::Runs`] (a `shell` unit of its
//!   own, as for `xargs PROG`);
//! * what no rule can name (deletes whatever it matches, runs programs it
//!   picks itself) → [`Effect::Blocked`];
//! * **allowlist**: for a program listed here, an option ploy does not know,
//!   a word computed at run time where an option may stand, or a glob that
//!   may expand to a file name that reads as an option (`rg x *` with a file
//!   named `--pre=sh`) makes the command `unknown`: no allow rule covers it,
//!   so it asks, naming why. Abbreviated long options (`sort --outp=F`,
//!   which getopt accepts) are unknown too.
//!
//! Programs not listed here are judged as before (the allow rule names
//! them). Pure: no I/O.

use ploy_shell::Word;

use crate::action::ActionKind;

/// What a command does through its options, beyond what its unit says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Effect {
    /// Writes (or creates, truncates) this file.
    Writes(String),
    /// Runs this program (its arguments are made by the outer program).
    Runs(String),
    /// Does something of this kind no rule can name: (kind, what, why).
    Blocked(ActionKind, String, String),
}

/// The judgement of one command's words.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Judged {
    /// What its options do beyond reading.
    pub effects: Vec<Effect>,
    /// Why ploy cannot tell what the words do; set: no allow rule covers
    /// the command.
    pub unknown: Option<String>,
}

impl Judged {
    fn unknown(&mut self, why: String) {
        self.unknown.get_or_insert(why);
    }
}

/// What one option does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Does {
    /// Its value is a file it writes.
    WritesValue,
    /// Its value is a program it runs.
    RunsValue,
    /// It runs programs ploy cannot name (the reason).
    RunsOthers(&'static str),
    /// It writes every file operand in place.
    WritesOperands,
}

/// One program's options, as its manual lists them. A short letter or long
/// name not listed is unknown. A letter is listed as taking a value only
/// when the program really takes the next word as its value: a wrong
/// "takes a value" would hide the next word from this judge.
struct Table {
    /// Short letters that take no value (clustered: `-rn`).
    short_flags: &'static str,
    /// Short letters that take a value, glued (`-oF`) or the next word.
    short_values: &'static str,
    /// Short letters whose value is optional and only glued (`sed -i.bak`).
    short_optional: &'static str,
    /// `-5` means a number (grep's context).
    digits: bool,
    /// Long options that take no value.
    long_flags: &'static [&'static str],
    /// Long options that take a value (`--x=V` or `--x V`).
    long_values: &'static [&'static str],
    /// Long options whose value is optional and only after `=`.
    long_optional: &'static [&'static str],
    /// Options (`-o`, `--output`) that do more than read.
    effects: &'static [(&'static str, Does)],
    /// Options are read after operands too (GNU getopt); otherwise the
    /// first operand ends them.
    permute: bool,
}

const SORT: Table = Table {
    short_flags: "bdfgiMhnRrVcCmsuz",
    short_values: "kotST",
    short_optional: "",
    digits: false,
    long_flags: &[
        "--ignore-leading-blanks",
        "--dictionary-order",
        "--ignore-case",
        "--general-numeric-sort",
        "--ignore-nonprinting",
        "--month-sort",
        "--human-numeric-sort",
        "--numeric-sort",
        "--random-sort",
        "--reverse",
        "--version-sort",
        "--debug",
        "--merge",
        "--stable",
        "--unique",
        "--zero-terminated",
        "--help",
        "--version",
    ],
    long_values: &[
        "--key",
        "--field-separator",
        "--buffer-size",
        "--temporary-directory",
        "--parallel",
        "--batch-size",
        "--sort",
        "--output",
        "--compress-program",
    ],
    long_optional: &["--check"],
    effects: &[
        ("-o", Does::WritesValue),
        ("--output", Does::WritesValue),
        ("--compress-program", Does::RunsValue),
    ],
    permute: true,
};

const GREP: Table = Table {
    short_flags: "EFGPiyvwxcoqsbHhnTZzlLaIrRUV",
    short_values: "efmABCdD",
    short_optional: "",
    digits: true,
    long_flags: &[
        "--extended-regexp",
        "--fixed-strings",
        "--basic-regexp",
        "--perl-regexp",
        "--ignore-case",
        "--no-ignore-case",
        "--invert-match",
        "--word-regexp",
        "--line-regexp",
        "--count",
        "--only-matching",
        "--quiet",
        "--silent",
        "--no-messages",
        "--byte-offset",
        "--with-filename",
        "--no-filename",
        "--line-number",
        "--initial-tab",
        "--null",
        "--null-data",
        "--files-with-matches",
        "--files-without-match",
        "--text",
        "--recursive",
        "--dereference-recursive",
        "--binary",
        "--line-buffered",
        "--no-group-separator",
        "--help",
        "--version",
    ],
    long_values: &[
        "--regexp",
        "--file",
        "--max-count",
        "--after-context",
        "--before-context",
        "--context",
        "--directories",
        "--devices",
        "--include",
        "--exclude",
        "--exclude-from",
        "--exclude-dir",
        "--binary-files",
        "--label",
        "--group-separator",
    ],
    long_optional: &["--color", "--colour"],
    effects: &[],
    permute: true,
};

const RG: Table = Table {
    short_flags: "bsclFLhiv.nxUIN0opPqzSauVHw",
    short_values: "ABCEfgMmerjtTd",
    short_optional: "",
    digits: false,
    long_flags: &[
        "--auto-hybrid-regex",
        "--no-auto-hybrid-regex",
        "--binary",
        "--no-binary",
        "--block-buffered",
        "--no-block-buffered",
        "--byte-offset",
        "--no-byte-offset",
        "--case-sensitive",
        "--column",
        "--no-column",
        "--no-context-separator",
        "--count",
        "--count-matches",
        "--crlf",
        "--no-crlf",
        "--debug",
        "--trace",
        "--files",
        "--files-with-matches",
        "--files-without-match",
        "--fixed-strings",
        "--no-fixed-strings",
        "--follow",
        "--no-follow",
        "--glob-case-insensitive",
        "--no-glob-case-insensitive",
        "--help",
        "--heading",
        "--no-heading",
        "--hidden",
        "--no-hidden",
        "--ignore-case",
        "--ignore-file-case-insensitive",
        "--no-ignore-file-case-insensitive",
        "--include-zero",
        "--no-include-zero",
        "--invert-match",
        "--no-invert-match",
        "--json",
        "--no-json",
        "--line-buffered",
        "--no-line-buffered",
        "--line-number",
        "--no-line-number",
        "--line-regexp",
        "--max-columns-preview",
        "--no-max-columns-preview",
        "--mmap",
        "--no-mmap",
        "--multiline",
        "--no-multiline",
        "--multiline-dotall",
        "--no-multiline-dotall",
        "--no-config",
        "--no-filename",
        "--with-filename",
        "--no-ignore",
        "--ignore",
        "--no-ignore-dot",
        "--no-ignore-exclude",
        "--no-ignore-files",
        "--no-ignore-global",
        "--no-ignore-messages",
        "--no-ignore-parent",
        "--no-ignore-vcs",
        "--no-messages",
        "--no-pcre2-unicode",
        "--pcre2-unicode",
        "--no-require-git",
        "--no-unicode",
        "--unicode",
        "--null",
        "--null-data",
        "--one-file-system",
        "--no-one-file-system",
        "--only-matching",
        "--passthru",
        "--pcre2",
        "--no-pcre2",
        "--pcre2-version",
        "--pretty",
        "--quiet",
        "--smart-case",
        "--stats",
        "--no-stats",
        "--stop-on-nonmatch",
        "--text",
        "--no-text",
        "--trim",
        "--no-trim",
        "--type-list",
        "--unrestricted",
        "--version",
        "--vimgrep",
        "--word-regexp",
        "--no-search-zip",
        "--no-pre",
    ],
    long_values: &[
        "--after-context",
        "--before-context",
        "--color",
        "--colors",
        "--context",
        "--context-separator",
        "--dfa-size-limit",
        "--encoding",
        "--engine",
        "--field-context-separator",
        "--field-match-separator",
        "--file",
        "--glob",
        "--iglob",
        "--ignore-file",
        "--max-columns",
        "--max-count",
        "--max-depth",
        "--maxdepth",
        "--max-filesize",
        "--path-separator",
        "--pre",
        "--pre-glob",
        "--regex-size-limit",
        "--regexp",
        "--replace",
        "--sort",
        "--sortr",
        "--threads",
        "--type",
        "--type-add",
        "--type-clear",
        "--type-not",
        "--hostname-bin",
        "--hyperlink-format",
    ],
    long_optional: &[],
    effects: &[
        ("--pre", Does::RunsValue),
        ("--hostname-bin", Does::RunsValue),
        (
            "-z",
            Does::RunsOthers("decompression programs found on the search path (gzip, xz, zstd, …)"),
        ),
        (
            "--search-zip",
            Does::RunsOthers("decompression programs found on the search path (gzip, xz, zstd, …)"),
        ),
    ],
    permute: true,
};

const SED: Table = Table {
    short_flags: "nEsruz",
    short_values: "efl",
    short_optional: "i",
    digits: false,
    long_flags: &[
        "--quiet",
        "--silent",
        "--debug",
        "--follow-symlinks",
        "--posix",
        "--regexp-extended",
        "--separate",
        "--sandbox",
        "--unbuffered",
        "--null-data",
        "--help",
        "--version",
    ],
    long_values: &["--expression", "--file", "--line-length"],
    long_optional: &["--in-place"],
    effects: &[
        ("-i", Does::WritesOperands),
        ("--in-place", Does::WritesOperands),
    ],
    permute: true,
};

/// awk's portable options only (gawk's and mawk's others are unknown).
const AWK: Table = Table {
    short_flags: "",
    short_values: "Fv",
    short_optional: "",
    digits: false,
    long_flags: &[],
    long_values: &[],
    long_optional: &[],
    effects: &[],
    permute: false,
};

/// curl's options (curl 8, `curl --help all`) that only fetch and print,
/// and the ones that write files: `-o`/`--output` (secrets5 #5: `curl
/// -sSo.git/hooks/pre-commit URL` planted a hook under `curl *`), the
/// cookie jar, header dumps, traces, caches. `-O` names the file after the
/// URL and `-J` lets the server name it ([`curl_outputs`]); `-K` reads
/// options from a file ploy does not read. Any option not listed is unknown.
const CURL: Table = Table {
    short_flags: "#0123468aBfgGIijJklLMNnOpqRsSvVZ",
    short_values: "AbcCdDeEFHKmoPQrtTuUwxXyYz",
    short_optional: "",
    digits: false,
    long_flags: &[
        "--anyauth",
        "--append",
        "--basic",
        "--ca-native",
        "--compressed",
        "--compressed-ssh",
        "--create-dirs",
        "--crlf",
        "--digest",
        "--disable",
        "--disable-eprt",
        "--disable-epsv",
        "--fail",
        "--fail-early",
        "--fail-with-body",
        "--false-start",
        "--form-escape",
        "--ftp-create-dirs",
        "--ftp-pasv",
        "--ftp-skip-pasv-ip",
        "--ftp-ssl-ccc",
        "--get",
        "--globoff",
        "--head",
        "--help",
        "--http0.9",
        "--http1.0",
        "--http1.1",
        "--http2",
        "--http2-prior-knowledge",
        "--http3",
        "--http3-only",
        "--ignore-content-length",
        "--include",
        "--insecure",
        "--ipv4",
        "--ipv6",
        "--junk-session-cookies",
        "--list-only",
        "--location",
        "--location-trusted",
        "--manual",
        "--negotiate",
        "--netrc",
        "--netrc-optional",
        "--next",
        "--no-alpn",
        "--no-buffer",
        "--no-clobber",
        "--no-keepalive",
        "--no-npn",
        "--no-progress-meter",
        "--no-sessionid",
        "--ntlm",
        "--parallel",
        "--parallel-immediate",
        "--path-as-is",
        "--post301",
        "--post302",
        "--post303",
        "--progress-bar",
        "--proxy-anyauth",
        "--proxy-basic",
        "--proxy-ca-native",
        "--proxy-digest",
        "--proxy-insecure",
        "--proxy-negotiate",
        "--proxy-ntlm",
        "--proxytunnel",
        "--raw",
        "--remote-header-name",
        "--remote-name",
        "--remote-name-all",
        "--remote-time",
        "--remove-on-error",
        "--retry-all-errors",
        "--retry-connrefused",
        "--show-error",
        "--show-headers",
        "--silent",
        "--skip-existing",
        "--ssl",
        "--ssl-no-revoke",
        "--ssl-reqd",
        "--ssl-revoke-best-effort",
        "--styled-output",
        "--suppress-connect-headers",
        "--tcp-fastopen",
        "--tcp-nodelay",
        "--tlsv1",
        "--tlsv1.0",
        "--tlsv1.1",
        "--tlsv1.2",
        "--tlsv1.3",
        "--tr-encoding",
        "--use-ascii",
        "--verbose",
        "--version",
    ],
    long_values: &[
        "--abstract-unix-socket",
        "--alt-svc",
        "--aws-sigv4",
        "--cacert",
        "--capath",
        "--cert",
        "--cert-type",
        "--ciphers",
        "--config",
        "--connect-timeout",
        "--connect-to",
        "--continue-at",
        "--cookie",
        "--cookie-jar",
        "--crlfile",
        "--data",
        "--data-ascii",
        "--data-binary",
        "--data-raw",
        "--data-urlencode",
        "--dns-servers",
        "--doh-url",
        "--dump-header",
        "--etag-compare",
        "--etag-save",
        "--expect100-timeout",
        "--form",
        "--form-string",
        "--ftp-port",
        "--header",
        "--hsts",
        "--interface",
        "--json",
        "--keepalive-time",
        "--key",
        "--key-type",
        "--libcurl",
        "--limit-rate",
        "--local-port",
        "--max-filesize",
        "--max-redirs",
        "--max-time",
        "--noproxy",
        "--oauth2-bearer",
        "--output",
        "--output-dir",
        "--parallel-max",
        "--pass",
        "--pinnedpubkey",
        "--preproxy",
        "--proto",
        "--proto-default",
        "--proto-redir",
        "--proxy",
        "--proxy-cacert",
        "--proxy-cert",
        "--proxy-header",
        "--proxy-key",
        "--proxy-user",
        "--quote",
        "--range",
        "--rate",
        "--referer",
        "--request",
        "--request-target",
        "--resolve",
        "--retry",
        "--retry-delay",
        "--retry-max-time",
        "--speed-limit",
        "--speed-time",
        "--stderr",
        "--telnet-option",
        "--time-cond",
        "--tls-max",
        "--trace",
        "--trace-ascii",
        "--trace-config",
        "--unix-socket",
        "--upload-file",
        "--url",
        "--url-query",
        "--user",
        "--user-agent",
        "--variable",
        "--write-out",
    ],
    long_optional: &[],
    effects: &[
        ("-c", Does::WritesValue),
        ("--cookie-jar", Does::WritesValue),
        ("-D", Does::WritesValue),
        ("--dump-header", Does::WritesValue),
        ("--trace", Does::WritesValue),
        ("--trace-ascii", Does::WritesValue),
        ("--stderr", Does::WritesValue),
        ("--libcurl", Does::WritesValue),
        ("--etag-save", Does::WritesValue),
        ("--hsts", Does::WritesValue),
        ("--alt-svc", Does::WritesValue),
    ],
    permute: true,
};

const XARGS: Table = Table {
    short_flags: "0rtpxo",
    short_values: "adEILnPs",
    short_optional: "eil",
    digits: false,
    long_flags: &[
        "--null",
        "--no-run-if-empty",
        "--verbose",
        "--interactive",
        "--exit",
        "--open-tty",
        "--show-limits",
        "--help",
        "--version",
    ],
    long_values: &[
        "--arg-file",
        "--delimiter",
        "--max-args",
        "--max-chars",
        "--max-lines",
        "--max-procs",
        "--process-slot-var",
    ],
    long_optional: &["--eof", "--replace"],
    effects: &[],
    // The first operand is the command xargs runs: options end there.
    permute: false,
};

/// Options of `git diff`, `git log`, `git show` and `git whatchanged`
/// (`git diff --help`, `git log --help`) that only select and format.
/// Taking a value after `=` (or glued to a short letter) is always fine;
/// the ones that also take the next word are in [`GIT_SEPARATE_VALUES`].
const GIT_LOG_FLAGS: &[&str] = &[
    "-p",
    "-u",
    "-s",
    "--patch",
    "--no-patch",
    "--raw",
    "--patch-with-raw",
    "--patch-with-stat",
    "--indent-heuristic",
    "--no-indent-heuristic",
    "--minimal",
    "--patience",
    "--histogram",
    "--anchored",
    "--diff-algorithm",
    "--stat",
    "--compact-summary",
    "--numstat",
    "--shortstat",
    "--dirstat",
    "--cumulative",
    "--dirstat-by-file",
    "--summary",
    "-z",
    "--name-only",
    "--name-status",
    "--submodule",
    "--color",
    "--no-color",
    "--color-moved",
    "--no-color-moved",
    "--color-moved-ws",
    "--no-color-moved-ws",
    "--word-diff",
    "--word-diff-regex",
    "--color-words",
    "--no-renames",
    "--rename-empty",
    "--no-rename-empty",
    "--check",
    "--ws-error-highlight",
    "--full-index",
    "--binary",
    "--abbrev",
    "--no-abbrev",
    "--break-rewrites",
    "--find-renames",
    "--find-copies",
    "--find-copies-harder",
    "-D",
    "--irreversible-delete",
    "--diff-filter",
    "--find-object",
    "--pickaxe-all",
    "--pickaxe-regex",
    "--skip-to",
    "--rotate-to",
    "-R",
    "--relative",
    "--no-relative",
    "-a",
    "--text",
    "--ignore-cr-at-eol",
    "--ignore-space-at-eol",
    "-b",
    "--ignore-space-change",
    "-w",
    "--ignore-all-space",
    "--ignore-blank-lines",
    "--ignore-matching-lines",
    "--inter-hunk-context",
    "-W",
    "--function-context",
    "--exit-code",
    "--quiet",
    "--no-ext-diff",
    "--no-textconv",
    "--ignore-submodules",
    "--src-prefix",
    "--dst-prefix",
    "--no-prefix",
    "--default-prefix",
    "--line-prefix",
    "--ita-invisible-in-index",
    "--ita-visible-in-index",
    "--unified",
    "--cached",
    "--staged",
    "--merge-base",
    "--no-index",
    "--base",
    "--ours",
    "--theirs",
    "-0",
    "-1",
    "-2",
    "-3",
    // `git log` / `git show`
    "--max-count",
    "--skip",
    "--since",
    "--after",
    "--since-as-filter",
    "--until",
    "--before",
    "--author",
    "--committer",
    "--grep-reflog",
    "--grep",
    "--all-match",
    "--invert-grep",
    "-i",
    "--regexp-ignore-case",
    "--basic-regexp",
    "-E",
    "--extended-regexp",
    "-F",
    "--fixed-strings",
    "-P",
    "--perl-regexp",
    "--remove-empty",
    "--merges",
    "--no-merges",
    "--min-parents",
    "--max-parents",
    "--no-min-parents",
    "--no-max-parents",
    "--first-parent",
    "--exclude-first-parent-only",
    "--not",
    "--all",
    "--branches",
    "--tags",
    "--remotes",
    "--glob",
    "--exclude",
    "--reflog",
    "--single-worktree",
    "--ignore-missing",
    "--bisect",
    "--cherry-mark",
    "--cherry-pick",
    "--left-only",
    "--right-only",
    "--cherry",
    "-g",
    "--walk-reflogs",
    "--merge",
    "--boundary",
    "--simplify-by-decoration",
    "--full-history",
    "--dense",
    "--sparse",
    "--simplify-merges",
    "--ancestry-path",
    "--show-pulls",
    "--date-order",
    "--author-date-order",
    "--topo-order",
    "--reverse",
    "--no-walk",
    "--do-walk",
    "--pretty",
    "--format",
    "--abbrev-commit",
    "--no-abbrev-commit",
    "--oneline",
    "--encoding",
    "--expand-tabs",
    "--no-expand-tabs",
    "--notes",
    "--no-notes",
    "--show-notes",
    "--relative-date",
    "--date",
    "--parents",
    "--children",
    "--left-right",
    "--graph",
    "--show-linear-break",
    "--decorate",
    "--no-decorate",
    "--decorate-refs",
    "--decorate-refs-exclude",
    "--clear-decorations",
    "--source",
    "--use-mailmap",
    "--no-use-mailmap",
    "--mailmap",
    "--no-mailmap",
    "--log-size",
    "--follow",
    "--no-follow",
    "--full-diff",
    "--diff-merges",
    "--no-diff-merges",
    "--combined-all-paths",
    "--cc",
    "-c",
    "-m",
    "--dd",
    "--remerge-diff",
    "-t",
    "-r",
    "--root",
    "--no-standard-notes",
    "--standard-notes",
    "--show-signature",
    "--no-show-signature",
];

/// git options (of [`GIT_LOG_FLAGS`]) that also take the next word as their
/// value (`git log --author NAME`, `-n 5`).
const GIT_SEPARATE_VALUES: &[&str] = &[
    "-n",
    "--max-count",
    "--skip",
    "--since",
    "--after",
    "--until",
    "--before",
    "--author",
    "--committer",
    "--grep",
    "-S",
    "-G",
    "--output",
];

/// git short options whose value is glued (`-U5`, `-M50%`, `-Sfoo`, `-n5`,
/// `-l100`, `-I<regex>`, `-O<file>` reads an order file).
const GIT_GLUED: &str = "UMBCSGlnIOLX";

/// git subcommands judged with [`GIT_LOG_FLAGS`].
const GIT_LOG_LIKE: [&str; 4] = ["diff", "log", "show", "whatchanged"];

/// git's global options that make it read the configuration (which names
/// programs: `core.pager`, `diff.external`, filters) of a repository other
/// than the project's own, or change where it finds its commands.
const GIT_ELSEWHERE: [&str; 5] = [
    "-C",
    "--git-dir",
    "--work-tree",
    "--exec-path",
    "--namespace",
];

/// What `program args…` does through its options (`program`: basename).
/// `from_input`: the outer command adds operands from its input (`xargs
/// CMD`, `find -exec CMD {}`), so files written in place are not on the
/// line.
pub(crate) fn judge(program: &str, args: &[&Word], from_input: bool) -> Judged {
    let mut judged = Judged::default();
    match program {
        "sort" => {
            table_judge(program, &SORT, args, &mut judged);
        }
        "grep" | "egrep" | "fgrep" => {
            table_judge(program, &GREP, args, &mut judged);
        }
        "rg" => {
            table_judge(program, &RG, args, &mut judged);
        }
        "xargs" => {
            table_judge(program, &XARGS, args, &mut judged);
        }
        "sed" => {
            let parsed = table_judge(program, &SED, args, &mut judged);
            sed_script(&parsed, from_input, &mut judged);
        }
        "awk" | "gawk" | "mawk" | "nawk" => {
            let parsed = table_judge(program, &AWK, args, &mut judged);
            awk_program(&parsed, &mut judged);
        }
        "curl" => {
            let parsed = table_judge(program, &CURL, args, &mut judged);
            curl_outputs(&parsed, &mut judged);
        }
        "find" => find(args, &mut judged),
        "git" => git(args, &mut judged),
        _ => {}
    }
    judged
}

/// The words of one command as its option parser read them.
#[derive(Debug, Default)]
struct Parsed {
    /// (option as written before any value, its value if any).
    options: Vec<(String, Option<String>)>,
    /// Operands in order (text; `None` for a word computed at run time).
    operands: Vec<Option<String>>,
}

impl Parsed {
    fn values_of(&self, names: &[&str]) -> Vec<&str> {
        self.options
            .iter()
            .filter(|(name, _)| names.contains(&name.as_str()))
            .filter_map(|(_, value)| value.as_deref())
            .collect()
    }

    fn has(&self, names: &[&str]) -> bool {
        self.options
            .iter()
            .any(|(name, _)| names.contains(&name.as_str()))
    }
}

/// A word as the program receives it, or why ploy cannot know it while
/// options are still being read.
/// With `strict_globs` false (a program with no option that writes or
/// runs), a glob is an operand wherever it stands.
fn word_text(word: &Word, options_open: bool, strict_globs: bool) -> Result<Option<&str>, String> {
    if let Some(value) = word.value.as_deref() {
        return Ok(Some(value));
    }
    if !options_open {
        return Ok(None);
    }
    let glob_only = word.flags.glob && !crate::shell::expands_beyond_glob(&word.flags);
    if glob_only && (!strict_globs || !word.raw.starts_with(['*', '?', '['])) {
        // `src/*.rs` expands to names starting `src/`: never an option.
        return Ok(None);
    }
    Err(format!(
        "`{}` is expanded at run time and may read as an option (a file named `--pre=sh` or \
         `-delete` is one)",
        word.raw
    ))
}

/// Reads `args` with `table`, records option effects, and returns what it
/// read. Anything unknown sets `judged.unknown`.
fn table_judge(program: &str, table: &Table, args: &[&Word], judged: &mut Judged) -> Parsed {
    let mut parsed = Parsed::default();
    let mut options_open = true;
    let mut i = 0;
    while i < args.len() {
        let word = args[i];
        i += 1;
        let text = match word_text(word, options_open, !table.effects.is_empty()) {
            Ok(Some(text)) => text,
            Ok(None) => {
                parsed.operands.push(None);
                if !table.permute {
                    options_open = false;
                }
                continue;
            }
            Err(why) => {
                judged.unknown(why);
                parsed.operands.push(None);
                continue;
            }
        };
        if !options_open || text == "-" || !text.starts_with('-') {
            parsed.operands.push(Some(text.to_string()));
            if !table.permute {
                options_open = false;
            }
            continue;
        }
        if text == "--" {
            options_open = false;
            continue;
        }
        if let Some(long) = text.strip_prefix("--") {
            let (name, inline) = match long.split_once('=') {
                Some((name, value)) => (format!("--{name}"), Some(value.to_string())),
                None => (text.to_string(), None),
            };
            let known = |list: &[&str]| list.contains(&name.as_str());
            let value = if known(table.long_values) {
                match inline {
                    Some(value) => Some(value),
                    None => match args.get(i) {
                        Some(next) => {
                            i += 1;
                            computed_value(program, &name, next, judged);
                            Some(text_of(next).to_string())
                        }
                        None => None,
                    },
                }
            } else if known(table.long_optional) || (known(table.long_flags) && inline.is_none()) {
                inline
            } else {
                judged.unknown(format!(
                    "`{program} {text}` is an option ploy does not know (it may write files or \
                     run programs)"
                ));
                continue;
            };
            parsed.options.push((name, value));
            continue;
        }
        // A cluster of short letters.
        let letters: Vec<char> = text[1..].chars().collect();
        if table.digits && letters.iter().all(char::is_ascii_digit) {
            continue;
        }
        let mut k = 0;
        while k < letters.len() {
            let letter = letters[k];
            let name = format!("-{letter}");
            let glued: String = letters[k + 1..].iter().collect();
            if table.short_values.contains(letter) {
                let value = if glued.is_empty() {
                    let next = args.get(i);
                    if let Some(next) = next {
                        computed_value(program, &name, next, judged);
                    }
                    i += 1;
                    next.map(|w| text_of(w).to_string())
                } else {
                    Some(glued)
                };
                parsed.options.push((name, value));
                break;
            }
            if table.short_optional.contains(letter) {
                parsed
                    .options
                    .push((name, (!glued.is_empty()).then_some(glued)));
                break;
            }
            if !table.short_flags.contains(letter) {
                judged.unknown(format!(
                    "`{program} {text}`: `-{letter}` is an option ploy does not know (it may \
                     write files or run programs)"
                ));
                break;
            }
            parsed.options.push((name, None));
            k += 1;
        }
    }
    for (name, value) in &parsed.options {
        let Some((_, does)) = table.effects.iter().find(|(n, _)| n == name) else {
            continue;
        };
        match (does, value) {
            (Does::WritesValue, Some(path)) => judged.effects.push(Effect::Writes(path.clone())),
            (Does::RunsValue, Some(prog)) => judged.effects.push(Effect::Runs(prog.clone())),
            (Does::RunsOthers(what), _) => judged.effects.push(Effect::Blocked(
                ActionKind::Shell,
                format!("{program} {name}"),
                format!("`{program} {name}` runs {what}"),
            )),
            (Does::WritesOperands, _) => {}
            (_, None) => judged.unknown(format!("`{program} {name}` is missing its value")),
        }
    }
    parsed
}

/// An option's value given as the next word, computed at run time: what it
/// names is not on the line.
fn computed_value(program: &str, option: &str, value: &Word, judged: &mut Judged) {
    if value.value.is_none() {
        judged.unknown(format!(
            "the value `{}` of `{program} {option}` is computed at run time",
            value.raw
        ));
    }
}

fn text_of(word: &Word) -> &str {
    word.value.as_deref().unwrap_or(&word.raw)
}

/// `curl`: the files its output options write. `-o FILE` (and `--output`)
/// lands below `--output-dir` when one is given; `-O` writes the last part
/// of each URL's path there; `-J` takes the name the server sends. A name
/// ploy cannot work out (a `#1` glob reference, a percent-escape or glob in
/// the URL's name) is a write no rule can name. `-K` reads options (an
/// `output` among them) from a file ploy does not read. `-` and `%` are
/// stdout and stderr.
fn curl_outputs(parsed: &Parsed, judged: &mut Judged) {
    if parsed.has(&["-K", "--config"]) {
        judged.unknown("`curl -K` reads options from a file ploy does not read".into());
    }
    // The table recorded the other writers' values; a dash means stdout.
    judged
        .effects
        .retain(|e| !matches!(e, Effect::Writes(path) if matches!(path.as_str(), "-" | "%")));
    let dir = parsed
        .values_of(&["--output-dir"])
        .last()
        .map(|d| d.to_string());
    if let Some(dir) = &dir {
        judged.effects.push(Effect::Writes(dir.clone()));
    }
    let place = |name: &str| match &dir {
        Some(dir) if !name.starts_with('/') => format!("{}/{name}", dir.trim_end_matches('/')),
        _ => name.to_string(),
    };
    let blocked = |why: String| Effect::Blocked(ActionKind::Edit, "curl output".into(), why);
    for name in parsed.values_of(&["-o", "--output"]) {
        if name == "-" {
            continue;
        }
        if name.contains('#') {
            judged.effects.push(blocked(format!(
                "`curl -o {name}` names the file it writes after the URL's glob (`#1`)"
            )));
            continue;
        }
        judged.effects.push(Effect::Writes(place(name)));
    }
    if parsed.has(&["-J", "--remote-header-name"]) {
        judged.effects.push(blocked(
            "`curl -J` writes a file the server names (Content-Disposition)".into(),
        ));
    }
    if parsed.has(&["-O", "--remote-name", "--remote-name-all"]) {
        let urls = parsed
            .operands
            .iter()
            .map(|u| u.as_deref())
            .chain(parsed.values_of(&["--url"]).into_iter().map(Some));
        for url in urls {
            match url.and_then(url_file_name) {
                Some(name) => judged.effects.push(Effect::Writes(place(&name))),
                None => judged.effects.push(blocked(format!(
                    "`curl -O` writes a file named after `{}`, a name ploy cannot work out",
                    url.unwrap_or("a URL computed at run time")
                ))),
            }
        }
    }
    for format in parsed.values_of(&["-w", "--write-out"]) {
        // `%output{FILE}` (curl 8.3) sends the rest of the output to FILE.
        let mut rest = format;
        while let Some(at) = rest.find("%output{") {
            rest = &rest[at + "%output{".len()..];
            let end = rest.find('}').unwrap_or(rest.len());
            let path = rest[..end].trim_start_matches(">>");
            judged.effects.push(Effect::Writes(place(path)));
            rest = &rest[end..];
        }
    }
}

/// The file name `curl -O` takes from a URL: the last part of its path,
/// or `None` when ploy cannot be sure of it (none, a percent-escape, a
/// curl glob).
fn url_file_name(url: &str) -> Option<String> {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let path = rest.split(['?', '#']).next().unwrap_or_default();
    let (_, path) = path.split_once('/')?;
    let name = path.rsplit('/').next().unwrap_or_default();
    let unsure = name.is_empty()
        || matches!(name, "." | "..")
        || name.contains(['%', '{', '}', '[', ']', '\\']);
    (!unsure).then(|| name.to_string())
}

/// `sed`: the script (first operand, or every `-e`), checked command by
/// command; `-i` writes every file operand; `-f FILE` hides the script.
fn sed_script(parsed: &Parsed, from_input: bool, judged: &mut Judged) {
    if parsed.has(&["-f", "--file"]) {
        judged.unknown("`sed -f` runs a script file ploy does not read".into());
    }
    let expressions = parsed.values_of(&["-e", "--expression"]);
    let mut operands = parsed.operands.iter();
    let script = if parsed.has(&["-e", "--expression"]) || parsed.has(&["-f", "--file"]) {
        expressions.join("\n")
    } else {
        match operands.next() {
            Some(Some(script)) => script.clone(),
            Some(None) => {
                judged.unknown("the `sed` script is computed at run time".into());
                return;
            }
            None => return,
        }
    };
    if let Err(why) = sed_commands(&script, judged) {
        judged.unknown(format!("`sed` script: {why}"));
    }
    if parsed.has(&["-i", "--in-place"]) {
        let files: Vec<&Option<String>> = operands.collect();
        if from_input || files.is_empty() || files.iter().any(|f| f.as_deref() == Some("{}")) {
            judged.effects.push(Effect::Blocked(
                ActionKind::Edit,
                "sed -i".into(),
                "`sed -i` rewrites files named on its input (`xargs`, `find -exec`): no rule \
                 can name them"
                    .into(),
            ));
        }
        for operand in files {
            match operand {
                Some(path) => judged.effects.push(Effect::Writes(path.clone())),
                None => judged.effects.push(Effect::Blocked(
                    ActionKind::Edit,
                    "sed -i".into(),
                    "`sed -i` rewrites a file whose name is computed at run time".into(),
                )),
            }
        }
    }
}

/// Walks a sed script as GNU sed parses it. Commands that only print and
/// edit the pattern space pass; `w FILE`, `W FILE` (and the `w` flag of
/// `s`) are writes; `e`, `r`, `R`… and anything not recognised are errors. Where
/// this reader could disagree with sed, it stops a text early, so sed's
/// extra text is read here as commands (stricter, never looser).
fn sed_commands(script: &str, judged: &mut Judged) -> Result<(), String> {
    let chars: Vec<char> = script.chars().collect();
    let mut i = 0;
    let rest_of_line = |i: &mut usize| -> String {
        let start = *i;
        while *i < chars.len() && chars[*i] != '\n' {
            *i += 1;
        }
        chars[start..*i].iter().collect::<String>()
    };
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() || c == ';' {
            i += 1;
            continue;
        }
        if c == '#' {
            rest_of_line(&mut i);
            continue;
        }
        // Addresses.
        for _ in 0..2 {
            i = sed_address(&chars, i)?;
            while i < chars.len() && chars[i] == ' ' {
                i += 1;
            }
            if i < chars.len() && chars[i] == ',' {
                i += 1;
                while i < chars.len() && chars[i] == ' ' {
                    i += 1;
                }
                if i < chars.len() && matches!(chars[i], '+' | '~') {
                    i += 1;
                }
                continue;
            }
            break;
        }
        while i < chars.len() && matches!(chars[i], ' ' | '!') {
            i += 1;
        }
        let Some(&command) = chars.get(i) else {
            return Err("an address without a command".into());
        };
        i += 1;
        match command {
            '{' | '}' | '=' | 'd' | 'D' | 'g' | 'G' | 'h' | 'H' | 'n' | 'N' | 'p' | 'P' | 'x'
            | 'z' | 'F' => {}
            'l' | 'q' | 'Q' | 'L' => {
                while i < chars.len() && (chars[i].is_ascii_digit() || chars[i] == ' ') {
                    i += 1;
                }
                if command == 'L' {
                    return Err("`L` is a command ploy does not know".into());
                }
            }
            ':' | 'b' | 't' | 'T' => {
                // A label: stop at the first character that may end it.
                while i < chars.len() && !matches!(chars[i], '\n' | ';' | '}') {
                    i += 1;
                }
            }
            'a' | 'i' | 'c' => {
                // `a\` then the text on the next line (GNU's classic form).
                if rest_of_line(&mut i).trim() == "\\" {
                    i += 1;
                    rest_of_line(&mut i);
                }
            }
            's' => {
                let delimiter = *chars.get(i).ok_or("`s` without a delimiter")?;
                if matches!(delimiter, '\n' | '\\') {
                    return Err("`s` with a newline or backslash delimiter".into());
                }
                i = sed_delimited(&chars, i + 1, delimiter)?;
                i = sed_delimited(&chars, i, delimiter)?;
                while let Some(&flag) = chars.get(i) {
                    match flag {
                        'g' | 'p' | 'i' | 'I' | 'm' | 'M' | '0'..='9' => i += 1,
                        'w' => {
                            i += 1;
                            let path = rest_of_line(&mut i).trim().to_string();
                            sed_write(&path, judged)?;
                        }
                        'e' => {
                            return Err("the `e` flag of `s` runs the result as a command".into());
                        }
                        ';' | '\n' | '}' | ' ' | '#' => break,
                        other => return Err(format!("`s` flag `{other}` ploy does not know")),
                    }
                }
            }
            'y' => {
                let delimiter = *chars.get(i).ok_or("`y` without a delimiter")?;
                if matches!(delimiter, '\n' | '\\') {
                    return Err("`y` with a newline or backslash delimiter".into());
                }
                i = sed_delimited(&chars, i + 1, delimiter)?;
                i = sed_delimited(&chars, i, delimiter)?;
            }
            // `W` writes the first line of the pattern space: a write too.
            'w' | 'W' => {
                let path = rest_of_line(&mut i).trim().to_string();
                sed_write(&path, judged)?;
            }
            'e' => return Err("`e` runs a command".into()),
            'r' | 'R' => return Err(format!("`{command}` reads a file the line does not name")),
            'v' => {
                while i < chars.len() && !matches!(chars[i], '\n' | ';' | '}') {
                    i += 1;
                }
            }
            other => return Err(format!("`{other}` is a command ploy does not know")),
        }
    }
    Ok(())
}

/// `w FILE` in a sed script: `/dev/stdout` and `/dev/stderr` are sed's own.
fn sed_write(path: &str, judged: &mut Judged) -> Result<(), String> {
    if path.is_empty() {
        return Err("`w` without a file".into());
    }
    if !matches!(path, "/dev/stdout" | "/dev/stderr") {
        judged.effects.push(Effect::Writes(path.to_string()));
    }
    Ok(())
}

/// Skips one sed address at `i` (none is fine): a number, `$`,
/// `first~step`, `/regex/` or `\cregexc`, with `I`/`M` after a regex.
fn sed_address(chars: &[char], mut i: usize) -> Result<usize, String> {
    match chars.get(i) {
        Some('$') => Ok(i + 1),
        Some(c) if c.is_ascii_digit() => {
            while i < chars.len() && (chars[i].is_ascii_digit() || chars[i] == '~') {
                i += 1;
            }
            Ok(i)
        }
        Some('/') => {
            i = sed_delimited(chars, i + 1, '/')?;
            Ok(skip_regex_flags(chars, i))
        }
        Some('\\') => {
            let delimiter = *chars.get(i + 1).ok_or("`\\` address without a delimiter")?;
            if delimiter == '\n' {
                return Err("an address with a newline delimiter".into());
            }
            i = sed_delimited(chars, i + 2, delimiter)?;
            Ok(skip_regex_flags(chars, i))
        }
        _ => Ok(i),
    }
}

fn skip_regex_flags(chars: &[char], mut i: usize) -> usize {
    while i < chars.len() && matches!(chars[i], 'I' | 'M') {
        i += 1;
    }
    i
}

/// The index just past the closing `delimiter` of a part starting at `i`
/// (a backslash escapes the next character, as in GNU sed's `match_slash`).
fn sed_delimited(chars: &[char], mut i: usize, delimiter: char) -> Result<usize, String> {
    while i < chars.len() {
        match chars[i] {
            '\\' => i += 2,
            c if c == delimiter => return Ok(i + 1),
            '\n' => return Err("a regular expression broken by a newline".into()),
            _ => i += 1,
        }
    }
    Err("an unterminated `s`, `y` or address".into())
}

/// `awk`: the program text (first operand) may not print to files or
/// pipes, run commands or read files by itself; `-f` hides it.
fn awk_program(parsed: &Parsed, judged: &mut Judged) {
    if parsed.has(&["-f"]) {
        judged.unknown("`awk -f` runs a program file ploy does not read".into());
        return;
    }
    let Some(program) = parsed.operands.first() else {
        return;
    };
    let Some(program) = program else {
        judged.unknown("the `awk` program is computed at run time".into());
        return;
    };
    // Any of these may write a file, start a command or read another file:
    // `print > "f"`, `print | "sh"`, `"cmd" | getline`, `system("…")`,
    // `getline < "f"`, gawk's `@load`/`@include`. A `>` comparison asks too
    // (stricter, never looser).
    for (needle, what) in [
        ("system", "`system()` runs a command"),
        ("|", "a pipe runs a command"),
        (">", "`>` may print into a file"),
        ("getline", "`getline` may read a file or a command's output"),
        ("@", "gawk's `@load`/`@include` load code"),
        ("<", "`<` may read a file"),
    ] {
        if program.contains(needle) {
            judged.unknown(format!("the `awk` program: {what}"));
            return;
        }
    }
}

/// `find`'s expression words (GNU find): tests and actions that only
/// select and print, by how many value words follow.
const FIND_TESTS: &[(&str, usize)] = &[
    ("-name", 1),
    ("-iname", 1),
    ("-path", 1),
    ("-ipath", 1),
    ("-wholename", 1),
    ("-iwholename", 1),
    ("-regex", 1),
    ("-iregex", 1),
    ("-regextype", 1),
    ("-lname", 1),
    ("-ilname", 1),
    ("-type", 1),
    ("-xtype", 1),
    ("-size", 1),
    ("-mtime", 1),
    ("-mmin", 1),
    ("-atime", 1),
    ("-amin", 1),
    ("-ctime", 1),
    ("-cmin", 1),
    ("-used", 1),
    ("-newer", 1),
    ("-anewer", 1),
    ("-cnewer", 1),
    ("-newermm", 1),
    ("-newerma", 1),
    ("-newermc", 1),
    ("-neweram", 1),
    ("-newercm", 1),
    ("-perm", 1),
    ("-user", 1),
    ("-group", 1),
    ("-uid", 1),
    ("-gid", 1),
    ("-links", 1),
    ("-inum", 1),
    ("-samefile", 1),
    ("-fstype", 1),
    ("-maxdepth", 1),
    ("-mindepth", 1),
    ("-printf", 1),
    ("-context", 1),
    ("-nouser", 0),
    ("-nogroup", 0),
    ("-empty", 0),
    ("-readable", 0),
    ("-writable", 0),
    ("-executable", 0),
    ("-depth", 0),
    ("-d", 0),
    ("-mount", 0),
    ("-xdev", 0),
    ("-follow", 0),
    ("-noleaf", 0),
    ("-daystart", 0),
    ("-ignore_readdir_race", 0),
    ("-noignore_readdir_race", 0),
    ("-warn", 0),
    ("-nowarn", 0),
    ("-print", 0),
    ("-print0", 0),
    ("-ls", 0),
    ("-prune", 0),
    ("-quit", 0),
    ("-true", 0),
    ("-false", 0),
    ("-not", 0),
    ("-a", 0),
    ("-and", 0),
    ("-o", 0),
    ("-or", 0),
    ("-help", 0),
    ("--help", 0),
    ("-version", 0),
    ("--version", 0),
    ("!", 0),
    ("(", 0),
    (")", 0),
    (",", 0),
];

/// `find`: start points, then an expression of known tests. `-fprint FILE`,
/// `-fprint0 FILE`, `-fls FILE`, `-fprintf FILE FORMAT` write FILE;
/// `-delete` deletes what it matches below the start points (no rule can
/// name that set); `-exec`, `-execdir`, `-ok`, `-okdir` run the command the
/// shell judge already made a unit of (up to `;` or `+`).
fn find(args: &[&Word], judged: &mut Judged) {
    let mut i = 0;
    // Options before the start points.
    while let Some(word) = args.get(i) {
        match word.value.as_deref() {
            Some("-H" | "-L" | "-P") => i += 1,
            Some("-D") => i += 2,
            Some(o) if o.starts_with("-O") => i += 1,
            _ => break,
        }
    }
    let mut starts: Vec<String> = Vec::new();
    while let Some(word) = args.get(i) {
        let text = match word_text(word, true, true) {
            Ok(Some(text)) => text,
            Ok(None) => {
                starts.push(word.raw.clone());
                i += 1;
                continue;
            }
            Err(why) => {
                judged.unknown(why);
                i += 1;
                continue;
            }
        };
        if text.starts_with('-') || matches!(text, "!" | "(" | ")" | ",") {
            break;
        }
        starts.push(text.to_string());
        i += 1;
    }
    if starts.is_empty() {
        starts.push(".".into());
    }
    while let Some(word) = args.get(i) {
        i += 1;
        let text = match word_text(word, true, true) {
            Ok(Some(text)) => text,
            Ok(None) => {
                judged.unknown(format!(
                    "`find` expression word `{}` ploy cannot read",
                    word.raw
                ));
                continue;
            }
            Err(why) => {
                judged.unknown(why);
                continue;
            }
        };
        match text {
            "-fprint" | "-fprint0" | "-fls" | "-fprintf" => {
                match args.get(i).map(|w| w.value.as_deref()) {
                    Some(Some(path)) => judged.effects.push(Effect::Writes(path.to_string())),
                    Some(None) => judged.effects.push(Effect::Blocked(
                        ActionKind::Edit,
                        format!("find {text}"),
                        format!("`find {text}` writes a file whose name is computed at run time"),
                    )),
                    None => judged.unknown(format!("`find {text}` is missing its file")),
                }
                i += if text == "-fprintf" { 2 } else { 1 };
            }
            "-delete" => judged.effects.push(Effect::Blocked(
                ActionKind::Edit,
                format!("find {} -delete", starts.join(" ")),
                format!(
                    "`find -delete` deletes every file it matches below {}; no rule can name \
                     them",
                    starts.join(", ")
                ),
            )),
            "-exec" | "-execdir" | "-ok" | "-okdir" => {
                while let Some(word) = args.get(i) {
                    i += 1;
                    if matches!(text_of(word), ";" | "+") {
                        break;
                    }
                }
            }
            other => match FIND_TESTS.iter().find(|(name, _)| *name == other) {
                Some((_, values)) => i += values,
                None => judged.unknown(format!(
                    "`find {other}` is an expression ploy does not know (it may write files or \
                     run programs)"
                )),
            },
        }
    }
}

/// `git`: global options that send git to another repository's
/// configuration are unknown; `git diff|log|show|whatchanged` options are
/// read against [`GIT_LOG_FLAGS`] (`--output=FILE` writes; `--ext-diff`,
/// `--textconv` and anything not listed are unknown); `git grep -O` runs a
/// program; `git cat-file --textconv|--filters` runs configured filters.
fn git(args: &[&Word], judged: &mut Judged) {
    let texts: Vec<&str> = args.iter().map(|w| text_of(w)).collect();
    // `crate::subcommand` makes the others (an unknown option, `-c` with
    // a setting that may name a program) unknown already.
    let Ok(Some(start)) = crate::subcommand::git_start(&texts) else {
        return;
    };
    for text in &texts[..start] {
        let name = text.split('=').next().unwrap_or_default();
        if GIT_ELSEWHERE.contains(&name) && (name != "--exec-path" || text.contains('=')) {
            judged.unknown(format!(
                "`git {text}` makes git read another repository's configuration or commands \
                 (they may name programs git runs)"
            ));
        }
    }
    let sub = texts[start];
    let rest = &args[start + 1..];
    if GIT_LOG_LIKE.contains(&sub) {
        git_log_options(sub, rest, judged);
        return;
    }
    for word in rest {
        let text = text_of(word);
        if text == "--" {
            break;
        }
        let runs = match sub {
            "grep" => {
                text.starts_with("--open-files-in-pager")
                    || (text.starts_with('-') && !text.starts_with("--") && text.contains('O'))
            }
            "cat-file" => matches!(text, "--textconv" | "--filters"),
            _ => false,
        };
        if runs {
            judged.effects.push(Effect::Blocked(
                ActionKind::Shell,
                format!("git {sub} {text}"),
                format!("`git {sub} {text}` runs a program (a pager or configured filters)"),
            ));
        }
    }
}

/// `git diff|log|show` options against the allowlist.
fn git_log_options(sub: &str, args: &[&Word], judged: &mut Judged) {
    let mut i = 0;
    while i < args.len() {
        let word = args[i];
        i += 1;
        let text = match word_text(word, true, true) {
            Ok(Some(text)) => text,
            Ok(None) => continue,
            Err(why) => {
                judged.unknown(why);
                continue;
            }
        };
        if text == "--" {
            return;
        }
        if !text.starts_with('-') {
            continue;
        }
        let (name, inline) = match text.split_once('=') {
            Some((name, value)) if text.starts_with("--") => (name, Some(value)),
            _ => (text, None),
        };
        if name == "--output" {
            let path = match inline {
                Some(value) => Some(value.to_string()),
                None => {
                    i += 1;
                    args.get(i - 1).and_then(|w| w.value.clone())
                }
            };
            match path {
                Some(path) => judged.effects.push(Effect::Writes(path)),
                None => judged.effects.push(Effect::Blocked(
                    ActionKind::Edit,
                    format!("git {sub} --output"),
                    format!("`git {sub} --output` writes a file whose name is computed"),
                )),
            }
            continue;
        }
        if GIT_SEPARATE_VALUES.contains(&name) && inline.is_none() {
            i += 1;
            continue;
        }
        if GIT_LOG_FLAGS.contains(&name) {
            continue;
        }
        let short = !text.starts_with("--");
        // `-5` (a count), `-U3`, `-M50%`, `-Sfoo`, `-n5`: a glued value.
        if short && text[1..].chars().all(|c| c.is_ascii_digit()) {
            continue;
        }
        if short
            && let Some(letter) = text[1..].chars().next()
            && GIT_GLUED.contains(letter)
        {
            continue;
        }
        judged.unknown(format!(
            "`git {sub} {text}` is an option ploy does not know (it may write files or run \
             programs: `--output`, `--ext-diff`, `--textconv`)"
        ));
    }
}
