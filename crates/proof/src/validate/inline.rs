//! PROOF-4: inline code (`python -c`, `node -e`, `perl -e`, `awk '…'`, …) and
//! sed scripts are inspected. The test is deliberately blunt: a proof's inline
//! code should only compute and assert, so any sign of running programs,
//! touching files, using the network, building code at run time or hiding
//! names is refused. When in doubt, refuse: a proof can be written more plainly.

use super::Checker;

/// The language of an inline program.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Language {
    Python,
    JavaScript,
    Perl,
    Ruby,
    Php,
    Lua,
}

/// Lower-case fragments refused in every language, with the reason group.
const COMMON: &[(&str, &str)] = &[
    // Running programs.
    ("system", RUNS),
    ("exec", RUNS),
    ("spawn", RUNS),
    ("popen", RUNS),
    ("fork", RUNS),
    ("subprocess", RUNS),
    ("child_process", RUNS),
    ("pty", RUNS),
    ("shell", RUNS),
    ("startfile", RUNS),
    ("process.binding", RUNS),
    ("dlopen", RUNS),
    ("ctypes", RUNS),
    ("cffi", RUNS),
    ("ffi", RUNS),
    ("loadlib", RUNS),
    ("kill", RUNS),
    ("signal", RUNS),
    ("`", RUNS),
    ("qx", RUNS),
    ("%x", RUNS),
    ("open3", RUNS),
    ("syscall", RUNS),
    // Deleting, moving or writing files.
    ("unlink", FILES),
    ("remove", FILES),
    ("rmtree", FILES),
    ("rmdir", FILES),
    ("rmsync", FILES),
    ("rm(", FILES),
    ("rm_rf", FILES),
    ("rm_r", FILES),
    ("truncate", FILES),
    ("rename", FILES),
    ("chmod", FILES),
    ("chown", FILES),
    ("symlink", FILES),
    ("link(", FILES),
    ("mkdir", FILES),
    ("makedirs", FILES),
    ("write", FILES),
    ("appendfile", FILES),
    ("copyfile", FILES),
    ("cp(", FILES),
    ("cpsync", FILES),
    ("shutil", FILES),
    ("fileutils", FILES),
    ("utime", FILES),
    ("move", FILES),
    ("put_contents", FILES),
    // The network.
    ("socket", NETWORK),
    ("urllib", NETWORK),
    ("urlopen", NETWORK),
    ("http", NETWORK),
    ("requests", NETWORK),
    ("fetch", NETWORK),
    ("net.", NETWORK),
    ("net/", NETWORK),
    ("net::", NETWORK),
    ("'net'", NETWORK),
    ("\"net\"", NETWORK),
    ("xmlhttprequest", NETWORK),
    ("websocket", NETWORK),
    ("dgram", NETWORK),
    ("dns", NETWORK),
    ("tls", NETWORK),
    ("ftp", NETWORK),
    ("smtp", NETWORK),
    ("telnet", NETWORK),
    ("curl", NETWORK),
    ("wget", NETWORK),
    ("ssh", NETWORK),
    ("connect", NETWORK),
    ("lwp", NETWORK),
    ("uri", NETWORK),
    ("download", NETWORK),
    ("mail(", NETWORK),
    // Code built or loaded at run time.
    ("__import__", DYNAMIC),
    ("importlib", DYNAMIC),
    ("eval", DYNAMIC),
    ("compile(", DYNAMIC),
    ("getattr", DYNAMIC),
    ("setattr", DYNAMIC),
    ("globals", DYNAMIC),
    ("builtins", DYNAMIC),
    ("__", DYNAMIC),
    ("function(", DYNAMIC),
    ("import(", DYNAMIC),
    ("constructor", DYNAMIC),
    ("prototype", DYNAMIC),
    ("vm.", DYNAMIC),
    ("worker", DYNAMIC),
    ("marshal", DYNAMIC),
    ("pickle", DYNAMIC),
    ("loadstring", DYNAMIC),
    ("loadfile", DYNAMIC),
    ("dofile", DYNAMIC),
    ("send(", DYNAMIC),
    ("const_get", DYNAMIC),
    ("include", DYNAMIC),
    ("call_user_func", DYNAMIC),
    ("globalthis", DYNAMIC),
    ("global[", DYNAMIC),
    ("reflect", DYNAMIC),
    ("proxy", DYNAMIC),
    ("deno.", DYNAMIC),
    ("bun.", DYNAMIC),
    ("debug.", DYNAMIC),
    ("putenv", DYNAMIC),
    ("environ[", DYNAMIC),
    // Hidden names.
    ("chr(", HIDDEN),
    ("fromcharcode", HIDDEN),
    ("atob", HIDDEN),
    ("base64", HIDDEN),
    ("codecs", HIDDEN),
    ("decode", HIDDEN),
    ("\\x", HIDDEN),
    ("\\u", HIDDEN),
    ("\\0", HIDDEN),
    ("[::-1]", HIDDEN),
    ("fromhex", HIDDEN),
    ("unhexlify", HIDDEN),
    ("rot13", HIDDEN),
    ("reverse", HIDDEN),
    ("['", HIDDEN),
    ("[\"", HIDDEN),
    ("[`", HIDDEN),
];

const RUNS: &str = "runs programs";
const FILES: &str = "deletes, moves or writes files";
const NETWORK: &str = "uses the network";
const DYNAMIC: &str = "builds or loads code at run time";
const HIDDEN: &str = "hides names from inspection";

/// Python modules whose import alone is refused.
const PYTHON_MODULES: &[&str] = &[
    "os",
    "subprocess",
    "shutil",
    "socket",
    "pty",
    "ctypes",
    "urllib",
    "urllib2",
    "urllib3",
    "http",
    "httpx",
    "requests",
    "aiohttp",
    "ftplib",
    "smtplib",
    "telnetlib",
    "poplib",
    "imaplib",
    "nntplib",
    "importlib",
    "multiprocessing",
    "asyncio",
    "signal",
    "tempfile",
    "pathlib",
    "webbrowser",
    "runpy",
    "code",
    "codeop",
    "builtins",
    "platform",
    "pip",
    "setuptools",
    "distutils",
    "zipfile",
    "tarfile",
    "sqlite3",
    "dbm",
    "shelve",
    "pickle",
    "marshal",
    "mmap",
    "fcntl",
    "resource",
    "posix",
    "nt",
    "fileinput",
    "io",
    "glob",
    "threading",
    "concurrent",
    "selectors",
    "select",
    "ssl",
    "xmlrpc",
    "socketserver",
];

/// Node modules a proof's inline code may `require`.
const NODE_MODULES: &[&str] = &[
    "fs",
    "node:fs",
    "path",
    "node:path",
    "assert",
    "node:assert",
    "util",
    "node:util",
];

/// Registers an inline program as code (its text is not a path) and inspects it.
pub(crate) fn inspect_registered(
    checker: &mut Checker,
    what: &str,
    language: Language,
    code: &str,
) {
    checker.code(code);
    inspect(checker, what, language, code);
}

/// PROOF-4: inline code that names an absolute path, the home folder or a
/// parent folder reaches outside the project.
fn outside_paths(lower: &str) -> Option<&'static str> {
    if ["'/", "\"/", "`/", "'~", "\"~"]
        .iter()
        .any(|f| lower.contains(f))
    {
        return Some("names an absolute path or the home folder");
    }
    if ["../", "/..", "'..", "\"..", "`.."]
        .iter()
        .any(|f| lower.contains(f))
    {
        return Some("names a parent folder (`..`)");
    }
    None
}

/// Inspects one inline program; every finding becomes a PROOF-4 refusal and a
/// forced exit a PROOF-5 refusal.
pub(crate) fn inspect(checker: &mut Checker, what: &str, language: Language, code: &str) {
    let lower = code.to_lowercase();
    let mut found: Vec<String> = Vec::new();
    let mut why: Vec<&str> = Vec::new();
    let mut note = |fragment: &str, reason: &'static str| {
        if !found.iter().any(|f| f == fragment) {
            found.push(fragment.to_owned());
        }
        if !why.contains(&reason) {
            why.push(reason);
        }
    };
    for (fragment, reason) in COMMON {
        if lower.contains(fragment) {
            note(fragment.trim_end_matches('('), reason);
        }
    }
    if let Some(reason) = outside_paths(&lower) {
        note("a path outside the project", reason);
    }
    match language {
        Language::Python => {
            for module in imported_python_modules(&lower) {
                if PYTHON_MODULES.contains(&module.as_str()) {
                    note(
                        &format!("import {module}"),
                        "imports a module that can run programs, touch files or use the network",
                    );
                }
            }
            if lower.contains("open(")
                && ["'w", "\"w", "'a", "\"a", "'x", "\"x", "+'", "+\"", "mode"]
                    .iter()
                    .any(|m| lower.contains(m))
            {
                note("open(…, 'w')", FILES);
            }
        }
        Language::JavaScript => {
            for module in required_node_modules(&lower) {
                match module {
                    Some(module)
                        if NODE_MODULES.contains(&module.as_str()) || module.starts_with("./") => {}
                    Some(module) => note(
                        &format!("require('{module}')"),
                        "loads a module that can run programs, touch files or use the network",
                    ),
                    None => note("require(…)", DYNAMIC),
                }
            }
            for fragment in [
                "open(",
                "opensync",
                "import ",
                "process.dlopen",
                "linksync",
                "mkdtemp",
                "lchmod",
            ] {
                if lower.contains(fragment) {
                    note(fragment.trim(), FILES);
                }
            }
        }
        Language::Perl | Language::Ruby | Language::Php | Language::Lua => {
            // `open` in these languages can start a program (`open(F, "cmd|")`).
            for fragment in [
                "open", "require", "use ", "do ", "glob", "$^i", "<*", "dir.", "file.", "io.",
                "kernel", "load",
            ] {
                if lower.contains(fragment) && !(fragment == "use " && only_pragmas(&lower)) {
                    note(fragment.trim(), RUNS);
                }
            }
            let extra: &[&str] = match language {
                // `s/…/…/e` evaluates the replacement as Perl code.
                Language::Perl => &["$^i", "%env"],
                Language::Ruby => &["method(", "binding", "objectspace", "instance_variable"],
                Language::Php => &[
                    "assert(",
                    ")(",
                    "$_",
                    "preg_replace",
                    "array_map",
                    "usort",
                    "extract(",
                ],
                _ => &[
                    "_g[", "_g.", "_env", "getfenv", "setfenv", "rawget", "rawset", ")(",
                ],
            };
            for fragment in extra {
                if lower.contains(fragment) {
                    note(fragment, DYNAMIC);
                }
            }
            if language == Language::Perl && substitution_evaluates(&lower) {
                note("s/…/…/e", DYNAMIC);
            }
            if language == Language::Php && calls_variable_function(&lower) {
                note("$name(…)", DYNAMIC);
            }
        }
    }
    if !found.is_empty() {
        checker.refuse(
            "PROOF-4",
            format!(
                "`{what}` code uses {} ({}); a proof's inline code only computes and asserts",
                found
                    .iter()
                    .map(|f| format!("`{f}`"))
                    .collect::<Vec<_>>()
                    .join(", "),
                why.join("; ")
            ),
        );
    }
    let squeezed: String = lower.chars().filter(|c| !c.is_whitespace()).collect();
    if [
        "exit(0)",
        "exit(true)",
        "_exit(0)",
        "exit0",
        "exit!(0)",
        "exitcode=0",
    ]
    .iter()
    .any(|f| squeezed.contains(f))
        || squeezed.ends_with("exit")
    {
        checker.refuse(
            "PROOF-5",
            format!("`{what}` code forces a success status with exit(0)"),
        );
    }
}

/// Perl `s/…/…/e` (or `ee`, any delimiter, `s{…}{…}e`): the replacement is
/// evaluated as code. Over-inclusive: any `s` starting a word and followed by
/// a delimiter counts as a substitution.
fn substitution_evaluates(lower: &str) -> bool {
    let chars: Vec<char> = lower.chars().collect();
    for at in 0..chars.len() {
        if chars[at] != 's'
            || (at > 0
                && (chars[at - 1].is_ascii_alphanumeric()
                    || chars[at - 1] == '_'
                    || chars[at - 1] == '$'))
        {
            continue;
        }
        let Some(&open) = chars.get(at + 1) else {
            continue;
        };
        let close = match open {
            '{' => '}',
            '(' => ')',
            '[' => ']',
            '<' => '>',
            c if c.is_ascii_punctuation() => c,
            _ => continue,
        };
        let mut i = at + 2;
        let mut parts = 0;
        while i < chars.len() && parts < 2 {
            match chars[i] {
                '\\' => i += 1,
                c if c == close => {
                    parts += 1;
                    if open != close && parts == 1 {
                        // `s{a}{b}`: skip to the second opening bracket.
                        while i + 1 < chars.len() && chars[i + 1] != open {
                            i += 1;
                        }
                        i += 1;
                    }
                }
                _ => {}
            }
            i += 1;
        }
        if parts == 2
            && chars[i..]
                .iter()
                .take_while(|c| c.is_ascii_alphabetic())
                .any(|c| *c == 'e')
        {
            return true;
        }
    }
    false
}

/// PHP `$f(…)`: calls the function whose name is in a variable.
fn calls_variable_function(lower: &str) -> bool {
    lower.match_indices('$').any(|(at, _)| {
        let name_len = lower[at + 1..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .map(char::len_utf8)
            .sum::<usize>();
        name_len > 0 && lower[at + 1 + name_len..].trim_start().starts_with('(')
    })
}

/// Perl's `use strict; use warnings;` are pragmas, not loaded code.
fn only_pragmas(lower: &str) -> bool {
    lower.match_indices("use ").all(|(at, _)| {
        ["use strict", "use warnings", "use utf8"]
            .iter()
            .any(|p| lower[at..].starts_with(p))
    })
}

/// Top-level module names after `import` and `from` (over-inclusive on purpose).
fn imported_python_modules(lower: &str) -> Vec<String> {
    let tokens: Vec<&str> = lower
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
        .filter(|t| !t.is_empty())
        .collect();
    let mut modules = Vec::new();
    for (i, token) in tokens.iter().enumerate() {
        if *token == "import" || *token == "from" {
            for next in tokens.iter().skip(i + 1).take(8) {
                if *next == "as" {
                    break;
                }
                let top = next.split('.').next().unwrap_or(next);
                modules.push(top.to_owned());
            }
        }
    }
    modules
}

/// Module names passed to `require('…')` as string literals.
fn required_node_modules(lower: &str) -> Vec<Option<String>> {
    let mut modules = Vec::new();
    for (at, _) in lower.match_indices("require(") {
        let rest = lower[at + "require(".len()..].trim_start();
        let literal = rest
            .chars()
            .next()
            .filter(|c| matches!(c, '\'' | '"'))
            .and_then(|quote| {
                let end = rest[1..].find(quote)?;
                // Only `require('name')`: anything after the literal computes the name.
                rest[1 + end + 1..]
                    .trim_start()
                    .starts_with(')')
                    .then(|| rest[1..1 + end].to_owned())
            });
        modules.push(literal);
    }
    modules
}

/// PROOF-4 for awk programs: no `system`, no pipes (which run commands), no
/// `print > file`, no extensions.
pub(crate) fn inspect_awk(checker: &mut Checker, program: &str, text: &str) {
    let lower = text.to_lowercase();
    let mut found: Vec<&str> = Vec::new();
    for (fragment, label) in [
        ("system", "`system(…)` runs a command"),
        (
            "|",
            "a pipe (`print | \"cmd\"`, `\"cmd\" | getline`) runs a command",
        ),
        ("@load", "`@load` loads an extension"),
        ("@include", "`@include` loads other code"),
        ("inplace", "in-place editing writes files"),
    ] {
        if lower.contains(fragment) {
            found.push(label);
        }
    }
    if let Some(reason) = outside_paths(&lower) {
        found.push(reason);
    }
    if prints_to_file(&lower) {
        found.push("`print > file` writes a file");
    }
    if !found.is_empty() {
        checker.refuse(
            "PROOF-4",
            format!("`{program}` program: {}", found.join("; ")),
        );
    }
}

/// True when a `print`/`printf` statement is followed by `>` before the
/// statement ends (in awk, `print a > b` writes the file b).
fn prints_to_file(lower: &str) -> bool {
    lower.match_indices("print").any(|(at, _)| {
        lower[at..]
            .split([';', '}', '\n'])
            .next()
            .is_some_and(|statement| statement.contains('>'))
    })
}

/// Findings in a sed script that PROOF-2 refuses: the `e` command and the `e`
/// flag (run commands), `w`/`W` and the `w` flag (write files), `r`/`R` (read
/// any file). A script the scanner cannot follow is refused too.
pub(crate) fn sed_findings(script: &str) -> Vec<String> {
    let chars: Vec<char> = script.chars().collect();
    let mut findings = Vec::new();
    let mut i = 0;
    let unknown = |c: char| {
        format!("contains `{c}`, which the validator cannot follow; write a simpler script")
    };
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() || c == ';' {
            i += 1;
            continue;
        }
        if !skip_address(&chars, &mut i) {
            findings.push("has an address the validator cannot follow".to_owned());
            return findings;
        }
        let Some(&command) = chars.get(i) else {
            findings.push("ends after an address".to_owned());
            return findings;
        };
        i += 1;
        match command {
            '{' | '}' | '=' | 'd' | 'D' | 'g' | 'G' | 'h' | 'H' | 'n' | 'N' | 'p' | 'P' | 'x'
            | 'z' | 'F' => {}
            'l' | 'q' | 'Q' | 'L' => {
                while chars
                    .get(i)
                    .is_some_and(|c| c.is_ascii_digit() || *c == ' ')
                {
                    i += 1;
                }
            }
            ':' | 'b' | 't' | 'T' | 'v' => {
                while chars.get(i).is_some_and(|c| *c != ';' && *c != '\n') {
                    i += 1;
                }
            }
            '#' | 'a' | 'i' | 'c' => {
                // Text (or a comment) runs to the end of the line; `\` continues it.
                while let Some(&c) = chars.get(i) {
                    i += 1;
                    if c == '\\' {
                        i += 1;
                    } else if c == '\n' {
                        break;
                    }
                }
            }
            's' | 'y' => {
                let Some(&delimiter) = chars.get(i) else {
                    findings.push(format!("has an unfinished `{command}` command"));
                    return findings;
                };
                if delimiter == '\n' || delimiter == '\\' {
                    findings.push(unknown(delimiter));
                    return findings;
                }
                i += 1;
                for _ in 0..2 {
                    if !skip_delimited(&chars, &mut i, delimiter) {
                        findings.push(format!("has an unfinished `{command}` command"));
                        return findings;
                    }
                }
                if command == 's' {
                    while let Some(&flag) = chars.get(i) {
                        match flag {
                            'g' | 'p' | 'i' | 'I' | 'm' | 'M' | '0'..='9' => i += 1,
                            'e' => {
                                findings.push(
                                    "uses the `e` flag of `s`, which runs the result as a command"
                                        .to_owned(),
                                );
                                i += 1;
                            }
                            'w' => {
                                findings.push(
                                    "uses the `w` flag of `s`, which writes a file".to_owned(),
                                );
                                i = chars.len();
                            }
                            _ => break,
                        }
                    }
                }
            }
            'e' => {
                findings.push("uses the `e` command, which runs a command".to_owned());
                skip_line(&chars, &mut i);
            }
            'w' | 'W' => {
                findings.push(format!("uses the `{command}` command, which writes a file"));
                skip_line(&chars, &mut i);
            }
            'r' | 'R' => {
                findings.push(format!(
                    "uses the `{command}` command, which reads any file into the output"
                ));
                skip_line(&chars, &mut i);
            }
            other => {
                findings.push(unknown(other));
                return findings;
            }
        }
    }
    findings
}

fn skip_line(chars: &[char], i: &mut usize) {
    while chars.get(*i).is_some_and(|c| *c != '\n') {
        *i += 1;
    }
}

/// Skips text up to and including an unescaped `delimiter`.
fn skip_delimited(chars: &[char], i: &mut usize, delimiter: char) -> bool {
    while let Some(&c) = chars.get(*i) {
        *i += 1;
        if c == '\\' {
            *i += 1;
        } else if c == delimiter {
            return true;
        }
    }
    false
}

/// Skips an optional address or address range, then `!` and spaces.
fn skip_address(chars: &[char], i: &mut usize) -> bool {
    for part in 0..2 {
        match chars.get(*i) {
            Some(c) if c.is_ascii_digit() => {
                while chars
                    .get(*i)
                    .is_some_and(|c| c.is_ascii_digit() || *c == '~')
                {
                    *i += 1;
                }
            }
            Some('$') => *i += 1,
            Some('+') | Some('~') if part == 1 => {
                *i += 1;
                while chars.get(*i).is_some_and(char::is_ascii_digit) {
                    *i += 1;
                }
            }
            Some('/') => {
                *i += 1;
                if !skip_delimited(chars, i, '/') {
                    return false;
                }
                while chars.get(*i).is_some_and(|c| matches!(c, 'I' | 'M')) {
                    *i += 1;
                }
            }
            Some('\\') => {
                let Some(&delimiter) = chars.get(*i + 1) else {
                    return false;
                };
                *i += 2;
                if !skip_delimited(chars, i, delimiter) {
                    return false;
                }
                while chars.get(*i).is_some_and(|c| matches!(c, 'I' | 'M')) {
                    *i += 1;
                }
            }
            _ => {
                if part == 1 {
                    return false;
                }
                break;
            }
        }
        if part == 0 && chars.get(*i) == Some(&',') {
            *i += 1;
            continue;
        }
        break;
    }
    while chars.get(*i).is_some_and(|c| *c == '!' || *c == ' ') {
        *i += 1;
    }
    true
}
