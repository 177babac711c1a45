//! The fast path for plain lines: simple commands of plain words joined by
//! `&&`, `||` and `|`, with an optional leading `!` and a few plain
//! redirections, summarised without brush-parser.
//!
//! Why: most lines the policy and the proof validator see are exactly
//! that (`cargo test -q && grep -q 'fn main' src/main.rs`), and brush's
//! token parser spends most of a line's cost on them (it runs its
//! assignment-word grammar, and then its error reporting, on every word).
//! A proof line of 400 characters must validate in under 100 µs (issue 12).
//!
//! What keeps it exact: [`walk_plain`] answers only for a line made of
//! nothing but the pieces below, and returns `None` (the caller then runs
//! the full parser) at the first byte or shape outside them. Its answer is
//! the summary the full parse gives for the same line, field for field;
//! `tests/plain_differential.rs` (property tests over the pieces and over
//! random bytes of every special character) and the fuzz target compare the
//! two on every line they make. The pieces:
//!
//! * words of plain bytes (letters, digits, `-_./,+%@:^`), `'…'` and `"…"`
//!   without `$`, `` ` `` or `\` inside, and the whole words `[`, `]` and
//!   `!` (the same words [`crate::word`] takes without its parser), each
//!   analysed by the same word analysis the full walk uses;
//! * `=` only in words that start with `-`, which can never be assignments;
//! * a leading `!` on a pipeline;
//! * `&&`, `||`, `|` between commands, each command with a program;
//! * redirections `>`, `>>`, `<` to a word, and `>&N`, `<&N` with one digit
//!   `N`, each with an optional one-digit descriptor written against it.
//!
//! Anything else (`;`, `&`, `|&`, parentheses, braces, `$`, backquotes,
//! backslashes, globs, `~`, `#`, reserved words, other redirections, line
//! breaks, any byte outside ASCII outside quotes) takes the full parser.

use crate::word::simple_word;
use crate::{CommandLine, Redirect, RedirectOp, Separator, SimpleCommand, Word};

/// Words that bash (and brush) read as reserved in some position. A plain
/// line holding one anywhere, unquoted, takes the full parser.
const RESERVED: &[&str] = &[
    "!", "{", "}", "case", "do", "done", "elif", "else", "esac", "fi", "for", "if", "in", "then",
    "until", "while", "[[", "]]", "function", "select", "coproc", "time",
];

/// The summary of a plain line, or `None` when the line is not plain (see
/// the module docs); then only the full parse may answer.
pub(crate) fn walk_plain(line: &str) -> Option<CommandLine> {
    // A line break, even quoted, sets `Constructs::newline`: full parse.
    if line.contains(['\n', '\r']) {
        return None;
    }
    let mut reader = Reader {
        bytes: line.as_bytes(),
        line,
        at: 0,
    };
    let mut out = CommandLine::default();
    let mut command = SimpleCommand::default();
    let mut started = false;
    let mut negated = false;
    // A `!` may stand only where a pipeline starts.
    let mut pipeline_start = true;
    let mut follows: Option<Separator> = None;
    loop {
        reader.skip_blanks();
        let Some(&b) = reader.bytes.get(reader.at) else {
            break;
        };
        let separator = match (b, reader.bytes.get(reader.at + 1)) {
            (b'&', Some(b'&')) => Some((Separator::And, 2)),
            (b'|', Some(b'|')) => Some((Separator::Or, 2)),
            (b'|', Some(b'&')) | (b'&', _) => return None,
            (b'|', _) => Some((Separator::Pipe, 1)),
            _ => None,
        };
        if let Some((separator, width)) = separator {
            // Every command has a program (`&& a`, `a | | b`: full parse).
            command.program.as_ref()?;
            finish(&mut out, &mut command, follows, negated);
            out.separators.push(separator);
            follows = Some(separator);
            reader.at += width;
            started = false;
            if separator != Separator::Pipe {
                negated = false;
                pipeline_start = true;
            }
            continue;
        }
        if matches!(b, b'<' | b'>') {
            let redirect = reader.redirect(None)?;
            push_redirect(&mut out, &mut command, redirect);
            started = true;
            pipeline_start = false;
            continue;
        }
        let raw = reader.word()?;
        // A word of digits written against `<` or `>` is its descriptor;
        // only one digit is taken here.
        if raw.bytes().all(|b| b.is_ascii_digit())
            && matches!(reader.bytes.get(reader.at), Some(b'<' | b'>'))
        {
            let [digit] = raw.as_bytes() else {
                return None;
            };
            let fd = u32::from(digit - b'0');
            let redirect = reader.redirect(Some(fd))?;
            push_redirect(&mut out, &mut command, redirect);
            started = true;
            pipeline_start = false;
            continue;
        }
        if raw == "!" && command.program.is_none() {
            if !pipeline_start || started || negated {
                return None;
            }
            // `!` is a word only when a blank follows it.
            if !matches!(reader.bytes.get(reader.at), Some(b' ' | b'\t')) {
                return None;
            }
            negated = true;
            pipeline_start = false;
            out.constructs.negation = true;
            continue;
        }
        // `!` after the program is an argument (`test ! -e x`).
        let argument_bang = raw == "!" && command.program.is_some();
        if (RESERVED.contains(&raw) && !argument_bang)
            || (raw.contains('=') && !raw.starts_with('-'))
        {
            return None;
        }
        let word = plain_word(raw)?;
        started = true;
        pipeline_start = false;
        if command.program.is_none() {
            command.program = Some(word);
        } else {
            command.args.push(word);
        }
    }
    command.program.as_ref()?;
    finish(&mut out, &mut command, follows, negated);
    Some(out)
}

/// A word the word analysis takes without its parser (plain bytes and
/// simple quotes: a static value), exactly as that analysis gives it;
/// `None` for any other word.
fn plain_word(raw: &str) -> Option<Word> {
    simple_word(raw)
}

fn push_redirect(out: &mut CommandLine, command: &mut SimpleCommand, redirect: Redirect) {
    out.constructs.redirect_writes |= redirect.writes_file();
    out.redirects.push(redirect.clone());
    command.redirects.push(redirect);
}

fn finish(
    out: &mut CommandLine,
    command: &mut SimpleCommand,
    follows: Option<Separator>,
    negated: bool,
) {
    let mut done = std::mem::take(command);
    done.follows = follows;
    done.negated = negated;
    out.commands.push(done);
}

struct Reader<'a> {
    bytes: &'a [u8],
    line: &'a str,
    at: usize,
}

impl<'a> Reader<'a> {
    fn skip_blanks(&mut self) {
        while matches!(self.bytes.get(self.at), Some(b' ' | b'\t')) {
            self.at += 1;
        }
    }

    /// One word as written (quotes kept), ending at a blank, an operator
    /// byte or the end; `None` at any byte a plain line may not hold.
    fn word(&mut self) -> Option<&'a str> {
        let start = self.at;
        while let Some(&b) = self.bytes.get(self.at) {
            match b {
                b' ' | b'\t' | b'&' | b'|' | b'<' | b'>' => break,
                b'\'' => {
                    let close = self.bytes[self.at + 1..].iter().position(|&c| c == b'\'')?;
                    self.at += close + 2;
                }
                b'"' => {
                    let close = self.bytes[self.at + 1..].iter().position(|&c| c == b'"')?;
                    let inner = &self.bytes[self.at + 1..self.at + 1 + close];
                    if inner.iter().any(|c| matches!(c, b'$' | b'`' | b'\\')) {
                        return None;
                    }
                    self.at += close + 2;
                }
                b'[' | b']' | b'!' | b'=' => self.at += 1,
                _ if is_plain(b) => self.at += 1,
                _ => return None,
            }
        }
        (self.at > start).then(|| &self.line[start..self.at])
    }

    /// A redirection starting at the operator, with the descriptor written
    /// before it.
    fn redirect(&mut self, fd: Option<u32>) -> Option<Redirect> {
        let next = self.bytes.get(self.at + 1).copied();
        let (op, width) = match (self.bytes.get(self.at)?, next) {
            (b'>', Some(b'>')) => (RedirectOp::Append, 2),
            (b'>', Some(b'&')) => (RedirectOp::DuplicateOutput, 2),
            (b'<', Some(b'&')) => (RedirectOp::DuplicateInput, 2),
            (b'>', Some(b'|')) | (b'<', Some(b'<' | b'>')) => return None,
            (b'>', _) => (RedirectOp::Write, 1),
            (b'<', _) => (RedirectOp::Read, 1),
            _ => return None,
        };
        self.at += width;
        if matches!(op, RedirectOp::DuplicateOutput | RedirectOp::DuplicateInput) {
            // Only `>&N`: one digit written against the operator, then
            // the end of the word.
            let digit = *self.bytes.get(self.at)?;
            if !digit.is_ascii_digit()
                || !matches!(
                    self.bytes.get(self.at + 1),
                    None | Some(b' ' | b'\t' | b'&' | b'|')
                )
            {
                return None;
            }
            self.at += 1;
            let target = plain_word(&self.line[self.at - 1..self.at])?;
            return Some(Redirect { fd, op, target });
        }
        self.skip_blanks();
        let raw = self.word()?;
        if RESERVED.contains(&raw) || raw.contains(['=', '!', '[', ']']) {
            return None;
        }
        let target = plain_word(raw)?;
        Some(Redirect { fd, op, target })
    }
}

/// The bytes [`crate::word`] reads as their own value outside quotes.
fn is_plain(b: u8) -> bool {
    b.is_ascii_alphanumeric()
        || matches!(
            b,
            b'-' | b'_' | b'.' | b'/' | b',' | b'+' | b'%' | b'@' | b':' | b'^'
        )
}

#[cfg(test)]
mod tests {
    use super::walk_plain;

    /// The fast path answers for the lines it is for (the differential test
    /// in tests/plain_differential.rs checks that the answers equal the full
    /// parse's), and leaves the rest to the parser.
    #[test]
    fn takes_plain_lines_and_leaves_the_rest() {
        for line in [
            "cargo test -q",
            "! grep -q TODO src/main.rs && test -f 'a b'",
            "grep -rn x src | grep -q \"fn main\" 2>&1 >/dev/null",
            "[ -d src ] || test ! -e x",
            "2>/dev/null grep --regexp=x f",
        ] {
            assert!(walk_plain(line).is_some(), "{line:?}");
        }
        for line in [
            "x=1 cargo test",
            "a ; b",
            "a & b",
            "echo $x",
            "echo *.rs",
            "time grep x f",
            "! ! grep x f",
            "a | ! b",
            "grep x f 12>/dev/null",
            "grep x f >&file",
            "grep x f &>/dev/null",
            "cat 'a\nb'",
            "echo a#b",
            "echo é",
            "a &&",
        ] {
            assert!(walk_plain(line).is_none(), "{line:?}");
        }
    }
}
