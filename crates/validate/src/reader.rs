//! The plan reader: a small, strict reading of a proof line into a
//! [`ProofPlan`], independent of the bash parser.
//!
//! It knows only the subset of shell syntax whose meaning is the same for
//! bash, for dash and for the plan runner (which is neither: it executes
//! argv vectors): words of plain characters, `'…'`, `"…"` without `$`,
//! `` ` `` or `\`, backslash escapes outside quotes, `&&`, `||`, `|`, a
//! leading `!`, and the redirections `>/dev/null`, `2>/dev/null` and `2>&1`.
//! Anything else is refused with the construct it found. The validator
//! builds the plan from this reading and refuses the line when bash (through
//! `ploy-shell`) reads it differently, so a line never means one thing to
//! the person reading it and another to the runner.

use crate::plan::{Connector, Pipeline, PlanCommand, ProofPlan, StreamTarget};
use crate::{PROOF_1, PROOF_2, PROOF_3, PROOF_5, Refusal};

/// Characters that stand for themselves outside quotes in every shell.
fn is_plain(c: char) -> bool {
    c.is_ascii_alphanumeric()
        || matches!(
            c,
            '-' | '_' | '.' | '/' | '=' | ',' | '+' | '%' | '@' | ':' | '^'
        )
}

/// Words bash treats as reserved in command position; none is a program a
/// proof may run, and a quoted one would mean something else to bash.
const RESERVED: &[&str] = &[
    "if", "then", "else", "elif", "fi", "do", "done", "case", "esac", "while", "until", "for",
    "in", "function", "select", "time", "coproc", "{", "}", "[[", "]]",
];

#[derive(Debug, PartialEq)]
enum Token {
    Word {
        text: String,
        /// Some character was quoted or escaped (`'!'` is not negation).
        quoted: bool,
    },
    And,
    Or,
    Pipe,
    /// A redirection of descriptor `fd` (1 or 2) to `/dev/null`.
    ToNull(u8),
    /// `2>&1`.
    ErrToOut,
}

fn refuse(rule: &'static str, detail: impl Into<String>) -> Refusal {
    Refusal::new(rule, detail)
}

struct Lexer<'a> {
    src: &'a str,
    /// Byte offset of the next character.
    at: usize,
    tokens: Vec<Token>,
}

impl<'a> Lexer<'a> {
    fn peek(&self) -> Option<char> {
        let b = *self.src.as_bytes().get(self.at)?;
        if b.is_ascii() {
            Some(char::from(b))
        } else {
            self.src[self.at..].chars().next()
        }
    }

    fn next(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.at += c.len_utf8();
        Some(c)
    }

    /// The text from here to the first of `stops` (or the end), consumed.
    fn run_until(&mut self, stops: &[char]) -> &'a str {
        let rest = &self.src[self.at..];
        let end = rest.find(stops).unwrap_or(rest.len());
        self.at += end;
        &rest[..end]
    }

    fn skip_blanks(&mut self) {
        while matches!(self.peek(), Some(' ' | '\t')) {
            self.next();
        }
    }

    fn run(mut self) -> Result<Vec<Token>, Refusal> {
        loop {
            self.skip_blanks();
            let Some(c) = self.peek() else {
                return Ok(self.tokens);
            };
            match c {
                '&' => {
                    self.next();
                    if self.peek() == Some('&') {
                        self.next();
                        self.tokens.push(Token::And);
                    } else if self.peek() == Some('>') {
                        return Err(refuse(
                            PROOF_3,
                            "`&>` is read as one redirection by bash but as `&` then `>` by sh; \
                             write `>/dev/null 2>&1`",
                        ));
                    } else {
                        return Err(refuse(
                            PROOF_3,
                            "`&` starts a background job; a proof runs in the foreground",
                        ));
                    }
                }
                '|' => {
                    self.next();
                    match self.peek() {
                        Some('|') => {
                            self.next();
                            self.tokens.push(Token::Or);
                        }
                        Some('&') => {
                            return Err(refuse(PROOF_3, "`|&` is bash only; write `2>&1 |`"));
                        }
                        _ => self.tokens.push(Token::Pipe),
                    }
                }
                ';' => {
                    return Err(refuse(
                        PROOF_5,
                        "`;` ignores the status of the command before it; join checks with &&",
                    ));
                }
                '(' | ')' => {
                    return Err(refuse(
                        PROOF_3,
                        "parentheses (a subshell or a function) are not part of a proof; join plain \
                         commands with && and quote a literal `(`",
                    ));
                }
                '<' => {
                    return Err(refuse(
                        PROOF_3,
                        "input redirection (`<`, here-documents, here-strings) is not part of a \
                         proof; name the file as an argument",
                    ));
                }
                '>' => self.redirect(None)?,
                _ => self.word()?,
            }
        }
    }

    /// After a word made only of unquoted digits immediately followed by `>`
    /// (`fd` is that number), or at a bare `>`.
    fn redirect(&mut self, fd: Option<String>) -> Result<(), Refusal> {
        self.next(); // '>'
        let fd: u8 = match fd.as_deref() {
            None | Some("1") => 1,
            Some("2") => 2,
            Some(other) => {
                return Err(refuse(
                    PROOF_3,
                    format!("redirecting descriptor {other} is not part of a proof"),
                ));
            }
        };
        match self.peek() {
            Some('>') => {
                return Err(refuse(
                    PROOF_3,
                    "`>>` appends to a file; a proof writes no file (only `>/dev/null`)",
                ));
            }
            Some('|') => {
                return Err(refuse(
                    PROOF_3,
                    "`>|` writes a file; a proof writes no file (only `>/dev/null`)",
                ));
            }
            Some('&') => {
                self.next();
                let mut target = String::new();
                while let Some(c) = self.peek().filter(|c| !matches!(c, ' ' | '\t')) {
                    if matches!(c, '&' | '|' | ';' | '<' | '>' | '(' | ')') {
                        break;
                    }
                    target.push(c);
                    self.next();
                }
                if fd == 2 && target == "1" {
                    self.tokens.push(Token::ErrToOut);
                    return Ok(());
                }
                return Err(refuse(
                    PROOF_3,
                    format!(
                        "`{}>&{target}` is not one of the redirections a proof may use \
                         (`>/dev/null`, `2>/dev/null`, `2>&1`)",
                        if fd == 2 { "2" } else { "" }
                    ),
                ));
            }
            _ => {}
        }
        self.skip_blanks();
        let before = self.tokens.len();
        if self.peek().is_none() || matches!(self.peek(), Some('&' | '|' | ';' | '<' | '>')) {
            return Err(refuse(PROOF_1, "a redirection without a target"));
        }
        self.word()?;
        match self.tokens.pop() {
            Some(Token::Word { text, .. })
                if self.tokens.len() == before && text == "/dev/null" =>
            {
                self.tokens.push(Token::ToNull(fd));
                Ok(())
            }
            Some(Token::Word { text, .. }) => Err(refuse(
                PROOF_3,
                format!("`> {text}` writes a file; a proof writes no file (only `>/dev/null`)"),
            )),
            _ => Err(refuse(PROOF_1, "a redirection without a target")),
        }
    }

    fn word(&mut self) -> Result<(), Refusal> {
        let mut text = String::new();
        let mut quoted = false;
        let mut all_plain_digits = true;
        while let Some(c) = self.peek() {
            match c {
                ' ' | '\t' | '&' | '|' | ';' | '<' | '(' | ')' => break,
                '>' => {
                    if !quoted && all_plain_digits && !text.is_empty() {
                        return self.redirect(Some(text));
                    }
                    break;
                }
                '\'' => {
                    self.next();
                    quoted = true;
                    all_plain_digits = false;
                    text.push_str(self.run_until(&['\'']));
                    if self.next() != Some('\'') {
                        return Err(refuse(PROOF_1, "an unterminated `'` quote"));
                    }
                }
                '"' => {
                    self.next();
                    quoted = true;
                    all_plain_digits = false;
                    text.push_str(self.run_until(&['"', '$', '`', '\\']));
                    match self.next() {
                        Some('"') => {}
                        Some(_) => {
                            return Err(refuse(
                                PROOF_3,
                                "`$`, `` ` `` and `\\` act inside double quotes (expansion, \
                                 substitution, escapes); use single quotes for literal text",
                            ));
                        }
                        None => return Err(refuse(PROOF_1, "an unterminated `\"` quote")),
                    }
                }
                '\\' => {
                    self.next();
                    quoted = true;
                    all_plain_digits = false;
                    match self.next() {
                        Some('\n' | '\r') | None => {
                            return Err(refuse(
                                PROOF_1,
                                "a backslash at the end of the line continues it; a proof is one line",
                            ));
                        }
                        Some(c) => text.push(c),
                    }
                }
                c if is_plain(c) => {
                    let bytes = &self.src.as_bytes()[self.at..];
                    let len = bytes
                        .iter()
                        .position(|b| !is_plain(char::from(*b)))
                        .unwrap_or(bytes.len());
                    let run = &self.src[self.at..self.at + len];
                    all_plain_digits &= run.bytes().all(|b| b.is_ascii_digit());
                    text.push_str(run);
                    self.at += len;
                }
                c => {
                    // `[` and `]` are plain only as whole words (the test
                    // bracket); `!` is negation only as a whole word in
                    // command position (bash does no history expansion
                    // outside an interactive shell). Checked at the word's end.
                    if matches!(c, '[' | ']' | '!') {
                        self.next();
                        text.push(c);
                        all_plain_digits = false;
                        continue;
                    }
                    return Err(refuse(PROOF_3, unplain_reason(c)));
                }
            }
        }
        if !quoted
            && !matches!(text.as_str(), "[" | "]")
            && let Some(special) = text.chars().find(|c| matches!(c, '[' | ']'))
        {
            return Err(refuse(
                PROOF_3,
                format!(
                    "`{text}`: an unquoted `{special}` is a glob character to a shell; \
                     quote the word"
                ),
            ));
        }
        self.tokens.push(Token::Word { text, quoted });
        Ok(())
    }
}

fn unplain_reason(c: char) -> String {
    match c {
        '$' => "`$` expands a variable or runs a command substitution; write the value out, or \
                quote it with single quotes"
            .into(),
        '`' => "backticks run a hidden command".into(),
        '*' | '?' => format!(
            "an unquoted `{c}` is a glob: it names files only known at run time; quote it or \
             name the files"
        ),
        '{' | '}' => format!("an unquoted `{c}` is brace expansion or a command group; quote it"),
        '~' => "`~` points into the home folder; a proof works inside the project".into(),
        '#' => "`#` starts a comment (text that does not run); remove it or quote it".into(),
        '\n' | '\r' => "a line break; a proof is exactly one line".into(),
        c if !c.is_ascii() => format!(
            "`{c}`: text outside ASCII must be quoted (a shell may split or read it differently)"
        ),
        c => format!("`{c}` has a meaning to the shell; quote it"),
    }
}

/// Reads a line into a plan, or says which construct is outside the subset.
pub(crate) fn read(line: &str) -> Result<ProofPlan, Refusal> {
    let tokens = Lexer {
        src: line,
        at: 0,
        tokens: Vec::new(),
    }
    .run()?;
    Parser {
        tokens: tokens.into_iter().peekable(),
    }
    .plan()
}

struct Parser {
    tokens: std::iter::Peekable<std::vec::IntoIter<Token>>,
}

/// Where a descriptor of the command points while its redirections are
/// applied in order.
#[derive(Clone, Copy, PartialEq)]
enum Sink {
    Out,
    Err,
    Null,
}

impl Parser {
    fn plan(&mut self) -> Result<ProofPlan, Refusal> {
        if self.tokens.peek().is_none() {
            return Err(refuse(
                PROOF_5,
                "the line runs nothing; a proof must check something",
            ));
        }
        let first = self.pipeline()?;
        let mut rest = Vec::new();
        while let Some(token) = self.tokens.next() {
            let connector = match token {
                Token::And => Connector::And,
                Token::Or => Connector::Or,
                _ => {
                    return Err(refuse(
                        PROOF_1,
                        "the line does not parse as one command list",
                    ));
                }
            };
            rest.push((connector, self.pipeline()?));
        }
        Ok(ProofPlan { first, rest })
    }

    fn pipeline(&mut self) -> Result<Pipeline, Refusal> {
        let mut negated = false;
        if matches!(self.tokens.peek(), Some(Token::Word { text, quoted: false }) if text == "!") {
            self.tokens.next();
            negated = true;
            if matches!(self.tokens.peek(), Some(Token::Word { text, quoted: false }) if text == "!")
            {
                return Err(refuse(
                    PROOF_5,
                    "`! !` cancels itself (and shells disagree on it); negate once or not at all",
                ));
            }
        }
        let mut commands = vec![self.command()?];
        while matches!(self.tokens.peek(), Some(Token::Pipe)) {
            self.tokens.next();
            if matches!(self.tokens.peek(), Some(Token::Word { text, quoted: false }) if text == "!")
            {
                return Err(refuse(
                    PROOF_1,
                    "`!` negates a whole pipeline and may only stand at its start",
                ));
            }
            commands.push(self.command()?);
        }
        Ok(Pipeline { negated, commands })
    }

    fn command(&mut self) -> Result<PlanCommand, Refusal> {
        let mut argv: Vec<String> = Vec::new();
        let (mut out, mut err) = (Sink::Out, Sink::Err);
        while let Some(token) = self.tokens.peek() {
            match token {
                Token::And | Token::Or | Token::Pipe => break,
                _ => {}
            }
            match self.tokens.next() {
                Some(Token::Word { text, quoted }) => {
                    if argv.is_empty() && !quoted {
                        if RESERVED.contains(&text.as_str()) || text == "!" {
                            return Err(refuse(
                                PROOF_3,
                                format!(
                                    "`{text}` is a shell keyword here; a proof is plain commands \
                                     joined by && and ||"
                                ),
                            ));
                        }
                        if let Some((name, _)) = text.split_once('=')
                            && is_assignment_name(name)
                        {
                            return Err(refuse(
                                PROOF_2,
                                format!(
                                    "`{text}` sets a variable for the command; a proof sets nothing \
                                     (variables like PAGER or LD_PRELOAD change what programs do)"
                                ),
                            ));
                        }
                    }
                    argv.push(text);
                }
                Some(Token::ToNull(1)) => out = Sink::Null,
                Some(Token::ToNull(_)) => err = Sink::Null,
                Some(Token::ErrToOut) => err = out,
                _ => {}
            }
        }
        if argv.is_empty() {
            return Err(refuse(
                PROOF_1,
                "a command with no program (an empty pipeline part or only redirections)",
            ));
        }
        let stdout = match out {
            Sink::Out => StreamTarget::Inherit,
            Sink::Null => StreamTarget::Null,
            Sink::Err => unreachable_sink()?,
        };
        let stderr = match (err, out) {
            (Sink::Err, _) => StreamTarget::Inherit,
            (Sink::Null, _) => StreamTarget::Null,
            (Sink::Out, Sink::Out) => StreamTarget::Stdout,
            (Sink::Out, _) => {
                return Err(refuse(
                    PROOF_3,
                    "`2>&1` before `>/dev/null` sends errors where output used to go; write \
                     `>/dev/null 2>&1`, or `2>&1` alone",
                ));
            }
        };
        Ok(PlanCommand {
            argv,
            stdout,
            stderr,
        })
    }
}

/// Stdout never points at stderr: `>&2` is refused by the lexer.
fn unreachable_sink() -> Result<StreamTarget, Refusal> {
    Err(refuse(
        PROOF_3,
        "stdout redirected to stderr is not part of a proof",
    ))
}

/// `NAME` of `NAME=value` as bash recognises an assignment (also `NAME+`).
fn is_assignment_name(name: &str) -> bool {
    let name = name.strip_suffix('+').unwrap_or(name);
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argvs(line: &str) -> Vec<Vec<String>> {
        read(line)
            .unwrap_or_else(|r| panic!("{line}: {r:?}"))
            .commands()
            .map(|c| c.argv.clone())
            .collect()
    }

    #[test]
    fn words_quotes_and_escapes() {
        assert_eq!(
            argvs(r#"grep -q "fn main" 'src/main.rs' a\ b"#),
            vec![vec!["grep", "-q", "fn main", "src/main.rs", "a b"]]
        );
        assert_eq!(argvs("[ -f x ]"), vec![vec!["[", "-f", "x", "]"]]);
        assert_eq!(argvs("test ! -f x"), vec![vec!["test", "!", "-f", "x"]]);
        assert_eq!(argvs("grep '*' f"), vec![vec!["grep", "*", "f"]]);
    }

    #[test]
    fn structure_and_redirections() {
        let plan = read("! grep -q x f 2>&1 | grep -q y && cargo test >/dev/null 2>&1 || make check 2>/dev/null").unwrap();
        assert!(plan.first.negated);
        assert_eq!(plan.first.commands[0].stderr, StreamTarget::Stdout);
        assert_eq!(plan.rest[0].0, Connector::And);
        assert_eq!(plan.rest[0].1.commands[0].stdout, StreamTarget::Null);
        assert_eq!(plan.rest[0].1.commands[0].stderr, StreamTarget::Null);
        assert_eq!(plan.rest[1].0, Connector::Or);
        assert_eq!(plan.rest[1].1.commands[0].stderr, StreamTarget::Null);
        assert_eq!(plan.rest[1].1.commands[0].stdout, StreamTarget::Inherit);
        // `a2>x`: not a descriptor number (bash agrees).
        assert!(read("grep a2>/dev/null f").is_ok());
        assert_eq!(argvs("grep a2>/dev/null f"), vec![vec!["grep", "a2", "f"]]);
    }

    #[test]
    fn everything_outside_the_subset_is_refused() {
        for line in [
            "grep -q x f &>/dev/null rm -rf t",
            "cargo test &",
            "grep x f |& grep y",
            "a; b",
            "(a)",
            "a < f",
            "a >> /dev/null",
            "a > out.txt",
            "a >&2",
            "a 3>/dev/null",
            "a 2>&1 >/dev/null",
            "echo $HOME",
            "echo \"$x\"",
            "echo `id`",
            "cat *.rs",
            "cat {a,b}",
            "cat ~/x",
            "a # comment",
            "! ! a",
            "a | ! b",
            "time a",
            "X=1 a",
            "'unterminated",
            "a \\",
            "cat [ab]",
            "cat é",
            "",
            "a &&",
            "| a",
        ] {
            assert!(read(line).is_err(), "{line} was read");
        }
        // Quoted keywords and `!` are plain words to every shell.
        assert!(read("'time' x").is_ok());
        assert_eq!(argvs("grep '!' f"), vec![vec!["grep", "!", "f"]]);
    }
}
