//! The `addopts` of a project's pytest configuration (round8 #7, PROOF-5).
//!
//! pytest puts the `addopts` of its configuration file before the command
//! line's arguments, so `addopts = --co` in `pytest.ini` turns `pytest -q
//! tests` into a run that collects the tests and runs none, and passes.
//! The configuration is a project file the model can write. This module
//! reads the text of one candidate file (pure: `ploy proof run` finds the
//! files, see `ploy_proof::proof_run`) and judges its `addopts` with the
//! grammar of the proof line, plus the few options a configuration
//! commonly holds that change no test's outcome.
//!
//! The reading errs one way: every `addopts` of every section pytest could
//! read is judged (`[pytest]` and `[tool:pytest]` in any INI file, every
//! pytest table of a TOML file), inline comment text included (pytest's
//! INI reader keeps it: `-q # --co` hands `#` and `--co` to pytest), and a
//! file that cannot be read is refused.

use crate::{PROOF_5, Refusal};

/// The file names pytest looks for in each folder, in its order (pytest
/// 7 to 9; `pytest.toml` and `.pytest.toml` are pytest 9's).
pub const PYTEST_CONFIG_FILES: &[&str] = &[
    "pytest.toml",
    ".pytest.toml",
    "pytest.ini",
    ".pytest.ini",
    "pyproject.toml",
    "tox.ini",
    "setup.cfg",
];

/// PROOF-5 refusals for the pytest configuration file `file_name` (one of
/// [`PYTEST_CONFIG_FILES`]) holding `text`: empty when its `addopts` (if
/// any) leave the proof's pytest run deciding.
pub fn pytest_config_refusals(file_name: &str, text: &str) -> Vec<Refusal> {
    let found = if file_name.ends_with(".toml") {
        toml_addopts(text)
    } else {
        Ok(ini_addopts(text))
    };
    let values = match found {
        Ok(values) => values,
        Err(why) => {
            return vec![Refusal::new(
                PROOF_5,
                format!(
                    "the project's pytest configuration `{file_name}` cannot be read here ({why}), so what it adds to the run (`addopts`) is unknown; fix the file"
                ),
            )];
        }
    };
    let mut refusals = Vec::new();
    for value in values {
        let args = match value {
            Addopts::Line(line) => match split_like_python(&line) {
                Some(args) => args,
                None => {
                    refusals.push(Refusal::new(
                        PROOF_5,
                        format!("the `addopts` of `{file_name}` has an unclosed quote or a trailing `\\`, which pytest cannot split; fix it"),
                    ));
                    continue;
                }
            },
            Addopts::List(args) => args,
        };
        for refusal in crate::grammar::pytest_addopts(&args) {
            refusals.push(Refusal::new(
                PROOF_5,
                format!(
                    "the `addopts` of the project's `{file_name}` (`{}`), which pytest adds to the proof's command line: {}",
                    args.join(" "),
                    refusal.detail
                ),
            ));
        }
    }
    refusals
}

/// One `addopts` value: a line pytest splits as Python's `shlex.split`
/// does, or (TOML) a list of arguments taken as they are.
enum Addopts {
    Line(String),
    List(Vec<String>),
}

/// Every `addopts` value of the `[pytest]` and `[tool:pytest]` sections
/// (section and key names in any case), as pytest's INI reader
/// (`iniconfig`) reads them: `key = value` or `key: value`, lines that
/// start with white space continue the value.
fn ini_addopts(text: &str) -> Vec<Addopts> {
    let mut out: Vec<String> = Vec::new();
    let mut in_pytest = false;
    let mut collecting = false;
    for line in text.lines() {
        let trimmed = line.trim();
        let continues = line.starts_with([' ', '\t']) && !trimmed.is_empty();
        if collecting && continues {
            if let Some(last) = out.last_mut() {
                last.push('\n');
                last.push_str(trimmed);
            }
            continue;
        }
        collecting = false;
        if let Some(section) = trimmed.strip_prefix('[') {
            let name = section.split(']').next().unwrap_or("").trim();
            in_pytest =
                name.eq_ignore_ascii_case("pytest") || name.eq_ignore_ascii_case("tool:pytest");
            continue;
        }
        if !in_pytest || trimmed.starts_with(['#', ';']) {
            continue;
        }
        // iniconfig splits at the first `=`, unless the name before it
        // holds a `:`; then at the first `:`.
        let split = match trimmed.split_once('=') {
            Some((name, value)) if !name.contains(':') => Some((name, value)),
            _ => trimmed.split_once(':'),
        };
        if let Some((name, value)) = split
            && name.trim().eq_ignore_ascii_case("addopts")
        {
            out.push(value.trim().to_string());
            collecting = true;
        }
    }
    out.into_iter().map(Addopts::Line).collect()
}

/// Every `addopts` of the tables pytest reads in a TOML file:
/// `[tool.pytest.ini_options]` and `[tool.pytest]` (pyproject.toml),
/// `[pytest]` (pytest.toml).
fn toml_addopts(text: &str) -> Result<Vec<Addopts>, String> {
    let doc: toml_edit::DocumentMut = text.parse().map_err(|e| format!("not TOML: {e}"))?;
    let root = doc.as_item();
    let mut out = Vec::new();
    for path in [
        &["tool", "pytest", "ini_options"][..],
        &["tool", "pytest"],
        &["pytest"],
        &["pytest", "ini_options"],
    ] {
        let mut item = Some(root);
        for key in path {
            item = item.and_then(|i| i.get(key));
        }
        let Some(value) = item.and_then(|i| i.get("addopts")) else {
            continue;
        };
        if let Some(line) = value.as_str() {
            out.push(Addopts::Line(line.to_string()));
        } else if let Some(array) = value.as_array() {
            let mut args = Vec::new();
            for element in array.iter() {
                match element.as_str() {
                    Some(arg) => args.push(arg.to_string()),
                    None => {
                        return Err("an `addopts` list holds something other than strings".into());
                    }
                }
            }
            out.push(Addopts::List(args));
        } else {
            return Err("`addopts` is neither a string nor a list of strings".into());
        }
    }
    Ok(out)
}

/// Python's `shlex.split(text)` (POSIX mode, no comments): white space
/// (space, tab, line breaks) separates words; `'…'` is literal; in `"…"` a
/// backslash escapes only `"` and `\`; elsewhere a backslash escapes any
/// character. `None` where Python raises (an unclosed quote, a trailing
/// backslash).
pub(crate) fn split_like_python(text: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' | '\n' | '\r' => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next()? {
                        '\'' => break,
                        other => word.push(other),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next()? {
                        '"' => break,
                        '\\' => match chars.next()? {
                            escaped @ ('"' | '\\') => word.push(escaped),
                            other => {
                                word.push('\\');
                                word.push(other);
                            }
                        },
                        other => word.push(other),
                    }
                }
            }
            '\\' => {
                in_word = true;
                word.push(chars.next()?);
            }
            other => {
                in_word = true;
                word.push(other);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    Some(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_as_python_shlex() {
        let split = |t: &str| split_like_python(t).unwrap();
        assert_eq!(split("-q  --tb=short"), ["-q", "--tb=short"]);
        assert_eq!(split("-k 'not slow'"), ["-k", "not slow"]);
        assert_eq!(split(r#"-W "a\"b\c""#), ["-W", r#"a"b\c"#]);
        assert_eq!(split(r"a\ b"), ["a b"]);
        assert_eq!(split("-q # --co"), ["-q", "#", "--co"]);
        assert_eq!(split("''"), [""]);
        assert_eq!(split_like_python("'open"), None);
        assert_eq!(split_like_python("end\\"), None);
    }

    #[test]
    fn ini_values_with_continuations_in_either_section() {
        let values = |t: &str| -> Vec<String> {
            ini_addopts(t)
                .into_iter()
                .map(|a| match a {
                    Addopts::Line(l) => l,
                    Addopts::List(l) => l.join(" "),
                })
                .collect()
        };
        assert_eq!(
            values("[pytest]\naddopts = -q\n  --co\nother = 1\n"),
            ["-q\n--co"]
        );
        assert_eq!(values("[tool:pytest]\nAddOpts: -x\n"), ["-x"]);
        assert!(values("[other]\naddopts = --co\n").is_empty());
    }

    #[test]
    fn toml_tables_pytest_reads() {
        let count = |t: &str| toml_addopts(t).map(|v| v.len());
        assert_eq!(
            count("[tool.pytest.ini_options]\naddopts = \"--co\"\n"),
            Ok(1)
        );
        assert_eq!(count("[tool.pytest]\naddopts = [\"--co\"]\n"), Ok(1));
        assert_eq!(count("[project]\nname = \"x\"\n"), Ok(0));
        assert!(toml_addopts("[tool.pytest.ini_options]\naddopts = 3\n").is_err());
        assert!(toml_addopts("not toml = = \n").is_err());
    }
}
