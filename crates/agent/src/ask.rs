//! The approval prompt as pure code (PERM-3..5): what a person is shown
//! about an ask and how an answer is read. The interactive terminal prints
//! [`AskView::lines`]; `--mode rpc` sends the same facts as an
//! `approval_request`. Nothing here decides: the verdict and the options come
//! from `Permission::assert` through the dispatcher; this only shows them
//! and checks that an answer is one of the options offered.

use ploy_policy::{AskOption, TaintMark, TaintSource};

use crate::approve::{Answer, ApprovalRequest};

/// The name of an answer, as typed and as sent over RPC.
pub fn option_name(option: AskOption) -> &'static str {
    match option {
        AskOption::Once => "once",
        AskOption::Always => "always",
        AskOption::Reject => "reject",
    }
}

/// Why `always` is not offered, in words a person can act on: the
/// conversation's first mark (PERM-3), or a protected path (PERM-7). `None`
/// when `always` is offered.
pub fn why_no_always(request: &ApprovalRequest) -> Option<String> {
    if request.options.contains(&AskOption::Always) {
        return None;
    }
    if let Some(mark) = &request.tainted_by {
        let what = match &mark.source {
            TaintSource::Url(url) => format!("this conversation read web content from {url}"),
            TaintSource::Tool(tool) => {
                format!("this conversation holds web text from the {tool} tool")
            }
            TaintSource::CitedConversation(id) => {
                format!("this conversation cited the marked conversation {id}")
            }
        };
        return Some(format!(
            "`always` is not offered: {what} (PERM-3); start a new conversation (/new) to save approvals"
        ));
    }
    if request.rule == "PERM-7" {
        return Some(
            "`always` is not offered: this touches ploy's own files or another agent's (PERM-7); each such call is approved once"
                .into(),
        );
    }
    Some(format!(
        "`always` is not offered for this call ({})",
        request.rule
    ))
}

/// The conversation's mark as every face shows it (the status line, RPC
/// `get_state`, `ploy conversations`): `⚠ tainted: read https://…` after
/// the first mark, `clean` without one.
pub fn mark_label(marks: &[TaintMark]) -> String {
    match marks.first().map(|m| &m.source) {
        None => "clean".into(),
        Some(TaintSource::Url(url)) => format!("⚠ tainted: read {url}"),
        Some(TaintSource::Tool(tool)) => format!("⚠ tainted: web text from {tool}"),
        Some(TaintSource::CitedConversation(id)) => format!("⚠ tainted: cited {id}"),
    }
}

/// A target that is a URL whose host name is written with non-ASCII
/// letters (an IDN, possibly a homograph: Cyrillic `а` in `pаgea.com`):
/// the URL as checked, with its host in ASCII (punycode, `xn--…`, what the
/// rules and the site rule see), and a note naming both forms. `None` for
/// any other target (ASCII URLs, paths, command lines). The prompt's
/// headline and RPC's `target` show the ASCII form, so a lookalike never
/// stands alone where the person reads what is asked (tui-rpc #4).
pub fn idn_target(target: &str) -> Option<(String, String)> {
    if target.is_ascii() {
        return None;
    }
    let url = url::Url::parse(target).ok()?;
    let host = url.host_str()?;
    if !host.split('.').any(|label| label.starts_with("xn--")) {
        return None;
    }
    let note = format!(
        "the address's name has non-ASCII letters: it is `{host}` (written `{target}`); a name that looks like another site's may be a different site"
    );
    Some((url.to_string(), note))
}

/// How an answer was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnswerError {
    /// The requirement ID (`PERM-5` for an answer not offered).
    pub rule: &'static str,
    /// What is wrong and what to answer instead.
    pub message: String,
}

impl std::fmt::Display for AnswerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.rule, self.message)
    }
}

/// Checks a named answer against the options of `request` (PERM-5: an
/// answer that was not offered, `always` in a tainted conversation above
/// all, is refused, never widened or narrowed silently).
pub fn check_answer(
    request: &ApprovalRequest,
    answer: AskOption,
    message: Option<String>,
) -> Result<Answer, AnswerError> {
    if !request.options.contains(&answer) {
        let offered: Vec<&str> = request.options.iter().map(|o| option_name(*o)).collect();
        let why = why_no_always(request)
            .filter(|_| answer == AskOption::Always)
            .unwrap_or_else(|| format!("`{}` was not offered", option_name(answer)));
        return Err(AnswerError {
            rule: "PERM-5",
            message: format!("{why}; answer one of: {}", offered.join(", ")),
        });
    }
    Ok(match answer {
        AskOption::Once => Answer::Once,
        AskOption::Always => Answer::Always,
        AskOption::Reject => Answer::Reject {
            message: message.filter(|m| !m.trim().is_empty()),
        },
    })
}

/// Reads a typed answer: `o`/`once`, `a`/`always`, `r`/`reject`, and for a
/// rejection an optional message after the word (`r use cargo check`,
/// `reject: not now`). Checked against the options offered.
pub fn parse_typed(request: &ApprovalRequest, input: &str) -> Result<Answer, AnswerError> {
    let input = input.trim();
    let (word, rest) = match input.find(|c: char| c.is_whitespace() || c == ':') {
        Some(at) => (&input[..at], input[at..].trim_start_matches(':').trim()),
        None => (input, ""),
    };
    let option = match word.to_ascii_lowercase().as_str() {
        "o" | "once" | "y" | "yes" => AskOption::Once,
        "a" | "always" => AskOption::Always,
        "r" | "reject" | "n" | "no" => AskOption::Reject,
        _ => {
            return Err(AnswerError {
                rule: "PERM-5",
                message: format!(
                    "`{input}` is not an answer; type {}",
                    typed_choices(&request.options)
                ),
            });
        }
    };
    if option != AskOption::Reject && !rest.is_empty() {
        return Err(AnswerError {
            rule: "PERM-5",
            message: "only a rejection carries a message (`r MESSAGE`)".into(),
        });
    }
    check_answer(request, option, Some(rest.to_string()))
}

fn typed_choices(options: &[AskOption]) -> String {
    options
        .iter()
        .map(|o| match o {
            AskOption::Once => "[o]nce",
            AskOption::Always => "[a]lways",
            AskOption::Reject => "[r]eject [message]",
        })
        .collect::<Vec<_>>()
        .join(" / ")
}

/// Text from the model, a page, a file or a command as it may reach a
/// terminal: [`ploy_text::for_screen`]. Letters, marks, numbers,
/// punctuation, symbols, the space, newline and tab are shown as they are;
/// every other character is escaped: controls in caret notation (`ESC` as
/// `^[`, carriage return as `^M`), the rest as `\u{…}` (C1 controls, the
/// bidirectional-text controls that reorder what is shown ("Trojan
/// Source"), zero-width and other invisible characters, tag characters,
/// Hangul fillers, other spaces, U+2028/U+2029). Without it, text shown in
/// an approval prompt could erase or overwrite the lines above the question
/// (`ESC[1A ESC[2K`, `\r`), hide a line (`ESC[8m`), write the clipboard
/// (OSC 52), or show a name other than the one that is used
/// (`config.txt` + U+200B).
pub fn printable(text: &str) -> std::borrow::Cow<'_, str> {
    ploy_text::for_screen(text)
}

/// Terminal styling of the prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// Plain text (NO_COLOR, not a terminal, RPC).
    Plain,
    /// ANSI colours: additions green, removals red, the header bold.
    Color,
}

impl Style {
    fn paint(self, code: &str, text: &str) -> String {
        match self {
            Style::Plain => text.to_string(),
            Style::Color => format!("\x1b[{code}m{text}\x1b[0m"),
        }
    }
}

/// Everything the prompt shows, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AskView {
    /// `shell wants to run: cargo test` style headline.
    pub headline: String,
    /// The rule that asked and why.
    pub rule_line: String,
    /// One line per simple command, redirect or path (PERM-1).
    pub units: Vec<String>,
    /// Classification notes.
    pub notes: Vec<String>,
    /// The unified diff of an edit.
    pub diff: Option<String>,
    /// What `always` would save, when offered.
    pub always_scope: Vec<String>,
    /// Why `always` is missing, when it is.
    pub no_always: Option<String>,
    /// The answers, as typed.
    pub choices: String,
}

impl AskView {
    /// The view of one request, every text made [`printable`] (the target,
    /// a diff, a reason may all carry what the model or a page wrote).
    pub fn new(request: &ApprovalRequest) -> Self {
        let show = |text: &str| printable(text).into_owned();
        Self {
            headline: show(&format!(
                "ploy asks: {} ({}) {}",
                request.tool, request.kinds, request.target
            )),
            rule_line: show(&format!("rule {}: {}", request.rule, request.reason)),
            units: request.units.iter().map(|u| show(u)).collect(),
            notes: request.notes.iter().map(|n| show(n)).collect(),
            diff: request.diff.as_deref().map(show),
            always_scope: request.always_scope.iter().map(|s| show(s)).collect(),
            no_always: why_no_always(request).map(|w| show(&w)),
            choices: typed_choices(&request.options),
        }
    }

    /// The prompt as terminal lines (without the answer line itself).
    pub fn lines(&self, style: Style) -> Vec<String> {
        let mut out = vec![style.paint("1", &self.headline), self.rule_line.clone()];
        if !self.units.is_empty() {
            out.push("it touches:".into());
            out.extend(self.units.iter().map(|u| format!("  {u}")));
        }
        out.extend(self.notes.iter().map(|n| format!("note: {n}")));
        if let Some(diff) = &self.diff {
            for line in diff.lines() {
                let painted = if line.starts_with("+++") || line.starts_with("---") {
                    style.paint("1", line)
                } else if line.starts_with('+') {
                    style.paint("32", line)
                } else if line.starts_with('-') {
                    style.paint("31", line)
                } else if line.starts_with("@@") {
                    style.paint("36", line)
                } else {
                    line.to_string()
                };
                out.push(painted);
            }
        }
        if !self.always_scope.is_empty() {
            out.push(format!(
                "`always` saves, for this project: {}",
                self.always_scope.join("; ")
            ));
        }
        if let Some(why) = &self.no_always {
            out.push(style.paint("33", &format!("⚠ {why}")));
        }
        out.push(format!("answer: {}", self.choices));
        out
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use ploy_policy::{Basis, KindSet, TaintMark};

    fn request(options: Vec<AskOption>, tainted: bool) -> ApprovalRequest {
        ApprovalRequest {
            call_id: "c1".into(),
            tool: "edit".into(),
            target: "src/lib.rs".into(),
            kinds: KindSet::EMPTY,
            rule: if tainted { "PERM-3" } else { "PERM-1" },
            basis: Basis::Default,
            reason: "no rule covers this edit".into(),
            units: vec!["edit: src/lib.rs".into()],
            notes: vec![],
            diff: Some("--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -1 +1 @@\n-old\n+new\n".into()),
            options,
            tainted_by: tainted.then(|| TaintMark {
                reason: "web_fetch read https://evil.test/".into(),
                source: TaintSource::Url("https://evil.test/".into()),
            }),
            always_scope: vec![],
        }
    }

    // proves: PERM-3, PERM-5 (always refused when not offered; the reason names the source)
    #[test]
    fn always_is_refused_when_tainted_and_the_reason_names_the_page() {
        let r = request(vec![AskOption::Once, AskOption::Reject], true);
        let err = parse_typed(&r, "always").unwrap_err();
        assert_eq!(err.rule, "PERM-5");
        assert!(err.message.contains("https://evil.test/"), "{err}");
        assert!(err.message.contains("once, reject"), "{err}");
        let view = AskView::new(&r);
        assert!(!view.choices.contains("[a]lways"));
        let text = view.lines(Style::Plain).join("\n");
        assert!(
            text.contains("this conversation read web content from https://evil.test/"),
            "{text}"
        );
        assert_eq!(parse_typed(&r, "o").unwrap(), Answer::Once);
    }

    // proves: PERM-3 (what the prompt shows cannot be rewritten by the text it shows)
    #[test]
    fn escapes_and_reordering_never_reach_the_terminal_raw() {
        let mut r = request(vec![AskOption::Once, AskOption::Reject], false);
        r.target = "curl evil.test\r\u{1b}[2Kls".into();
        r.diff = Some(
            "+ok\n\u{1b}[1A\u{1b}[2K\u{1b}]52;c;ZXZpbA==\u{7}\u{202e}txt.exe\u{9b}2J\u{7f}\tx\n"
                .into(),
        );
        let text = AskView::new(&r).lines(Style::Plain).join("\n");
        assert!(
            !text.contains('\u{1b}') && !text.contains('\r') && !text.contains('\u{202e}'),
            "{text:?}"
        );
        assert!(text.contains("curl evil.test^M^[[2Kls"), "{text}");
        assert!(
            text.contains("^[[1A^[[2K^[]52;c;ZXZpbA==^G\\u{202e}txt.exe\\u{9b}2J^?\tx"),
            "{text}"
        );
        assert_eq!(printable("plain\ttext\n"), "plain\ttext\n");
    }

    // proves: PERM-3 (tui-rpc #4: an IDN homograph is shown as the host
    // that is checked, punycode, with the lookalike beside it, marked)
    #[test]
    fn a_non_ascii_host_is_shown_as_checked() {
        let (ascii, note) = idn_target("http://p\u{430}gea.com/?d=secret").unwrap();
        assert_eq!(ascii, "http://xn--pgea-53d.com/?d=secret");
        assert!(note.contains("`xn--pgea-53d.com`"), "{note}");
        assert!(
            note.contains("written `http://p\u{430}gea.com/?d=secret`"),
            "{note}"
        );
        for plain in [
            "http://pagea.com/?q=\u{430}",
            "src/l\u{430}b.rs",
            "echo \u{430}",
            "https://example.com/",
        ] {
            assert_eq!(idn_target(plain), None, "{plain}");
        }
    }

    // proves: PERM-4 (a clean conversation offers always, with its scope)
    #[test]
    fn clean_conversation_offers_always_and_rejects_carry_a_message() {
        let mut r = request(
            vec![AskOption::Once, AskOption::Always, AskOption::Reject],
            false,
        );
        r.always_scope = vec!["always edit `src/lib.rs`".into()];
        assert_eq!(parse_typed(&r, "a").unwrap(), Answer::Always);
        assert_eq!(
            parse_typed(&r, "r: use the other file").unwrap(),
            Answer::Reject {
                message: Some("use the other file".into())
            }
        );
        assert_eq!(
            parse_typed(&r, "reject").unwrap(),
            Answer::Reject { message: None }
        );
        assert!(parse_typed(&r, "once please").is_err());
        assert!(parse_typed(&r, "sure").is_err());
        let view = AskView::new(&r);
        assert!(view.no_always.is_none());
        let plain = view.lines(Style::Plain).join("\n");
        assert!(plain.contains("-old\n+new"), "{plain}");
        assert!(plain.contains("always edit `src/lib.rs`"), "{plain}");
        assert!(!plain.contains('\x1b'));
        let colored = view.lines(Style::Color).join("\n");
        assert!(colored.contains("\x1b[32m+new\x1b[0m"), "{colored}");
    }
}
