//! `test` and `[` (GNU coreutils 9.1, `src/test.c`): the expression is
//! parsed exactly as the real program parses it (the POSIX rules by number
//! of arguments, then `-o`/`-a`/`!`/`(`), but instead of being evaluated it
//! becomes a condition over the project's paths. String and number
//! comparisons of words written in the line are constant, so `test x = x`
//! and `-o 1 = 1` are seen for what they are (PROOF-5, checked on the whole
//! plan). Only the file tests a proof needs are allowed: `-e -f -d -s -r -w
//! -x -L -h`, plus `-n -z`, the string and integer comparisons and
//! `-nt -ot -ef`. The plan runner executes `/usr/bin/test` (coreutils), not a
//! shell builtin.

use std::cmp::Ordering;

use super::{At, Ctx, Facts};
use crate::vacuity::{Cond, PathTest, path_key};
use crate::{PROOF_2, PROOF_5};

pub(super) fn test(ctx: &mut Ctx, args: &[String], _at: &At) -> Option<Facts> {
    expression(ctx, args)
}

pub(super) fn bracket(ctx: &mut Ctx, args: &[String], _at: &At) -> Option<Facts> {
    if args.len() == 1 && matches!(args[0].as_str(), "--help" | "--version") {
        ctx.refuse(
            PROOF_5,
            format!("`[ {}` prints text and verifies nothing", args[0]),
        );
        return None;
    }
    match args.split_last() {
        Some((last, inner)) if last == "]" => expression(ctx, inner),
        _ => {
            ctx.refuse(PROOF_2, "`[` needs a closing `]` as its last argument");
            None
        }
    }
}

fn expression(ctx: &mut Ctx, args: &[String]) -> Option<Facts> {
    ctx.silent = true;
    if args.is_empty() {
        return Some(Facts {
            status: Cond::Const(false),
        });
    }
    let mut parser = Parser {
        argv: args,
        pos: 0,
        ctx,
    };
    let result = parser.posixtest(args.len()).and_then(|cond| {
        if parser.pos == args.len() {
            Ok(cond)
        } else {
            Err(format!("extra argument `{}`", args[parser.pos]))
        }
    });
    match result {
        Ok(status) => Some(Facts { status }),
        Err(reason) => {
            ctx.refuse(
                PROOF_2,
                format!("the expression would stop with a syntax error ({reason}); the proof could never pass"),
            );
            None
        }
    }
}

struct Parser<'a> {
    argv: &'a [String],
    pos: usize,
    ctx: &'a mut Ctx,
}

fn binop(s: &str) -> bool {
    matches!(
        s,
        "=" | "!=" | "==" | "-nt" | "-ot" | "-ef" | "-eq" | "-ne" | "-lt" | "-le" | "-gt" | "-ge"
    )
}

/// `-X` with exactly one letter after the dash.
fn unop_shape(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 2 && b[0] == b'-'
}

type Parsed = Result<Cond, String>;

impl Parser<'_> {
    fn arg(&self, at: usize) -> Option<&str> {
        self.argv.get(at).map(String::as_str)
    }

    fn beyond(&self) -> String {
        format!(
            "missing argument after `{}`",
            self.argv.last().map_or("", String::as_str)
        )
    }

    fn advance(&mut self, must_remain: bool) -> Result<(), String> {
        self.pos += 1;
        if must_remain && self.pos >= self.argv.len() {
            return Err(self.beyond());
        }
        Ok(())
    }

    fn posixtest(&mut self, nargs: usize) -> Parsed {
        match nargs {
            1 => Ok(self.one_argument()),
            2 => self.two_arguments(),
            3 => self.three_arguments(),
            4 => {
                if self.arg(self.pos) == Some("!") {
                    self.advance(true)?;
                    return Ok(self.three_arguments()?.not());
                }
                if self.arg(self.pos) == Some("(") && self.arg(self.pos + 3) == Some(")") {
                    self.advance(false)?;
                    let value = self.two_arguments()?;
                    self.advance(false)?;
                    return Ok(value);
                }
                self.expr()
            }
            _ => self.expr(),
        }
    }

    fn one_argument(&mut self) -> Cond {
        let value = !self.argv[self.pos].is_empty();
        self.pos += 1;
        Cond::Const(value)
    }

    fn two_arguments(&mut self) -> Parsed {
        let first = self.arg(self.pos).unwrap_or("");
        if first == "!" {
            self.advance(false)?;
            Ok(self.one_argument().not())
        } else if unop_shape(first) {
            self.unary_operator()
        } else {
            Err(self.beyond())
        }
    }

    fn three_arguments(&mut self) -> Parsed {
        let middle = self.arg(self.pos + 1).unwrap_or("");
        if binop(middle) {
            self.binary_operator()
        } else if self.arg(self.pos) == Some("!") {
            self.advance(true)?;
            Ok(self.two_arguments()?.not())
        } else if self.arg(self.pos) == Some("(") && self.arg(self.pos + 2) == Some(")") {
            self.advance(false)?;
            let value = self.one_argument();
            self.advance(false)?;
            Ok(value)
        } else if middle == "-a" || middle == "-o" {
            self.expr()
        } else {
            Err(format!("`{middle}`: binary operator expected"))
        }
    }

    fn expr(&mut self) -> Parsed {
        if self.pos >= self.argv.len() {
            return Err(self.beyond());
        }
        self.or()
    }

    fn or(&mut self) -> Parsed {
        let mut value = Cond::Const(false);
        loop {
            value = value.or(self.and()?);
            if self.arg(self.pos) != Some("-o") {
                return Ok(value);
            }
            self.advance(false)?;
        }
    }

    fn and(&mut self) -> Parsed {
        let mut value = Cond::Const(true);
        loop {
            value = value.and(self.term()?);
            if self.arg(self.pos) != Some("-a") {
                return Ok(value);
            }
            self.advance(false)?;
        }
    }

    fn term(&mut self) -> Parsed {
        let mut negated = false;
        while self.arg(self.pos) == Some("!") {
            self.advance(true)?;
            negated = !negated;
        }
        if self.pos >= self.argv.len() {
            return Err(self.beyond());
        }
        let argc = self.argv.len();
        let value = if self.arg(self.pos) == Some("(") {
            self.advance(true)?;
            let mut nargs = 1;
            while self.pos + nargs < argc && self.arg(self.pos + nargs) != Some(")") {
                if nargs == 4 {
                    nargs = argc - self.pos;
                    break;
                }
                nargs += 1;
            }
            let value = self.posixtest(nargs)?;
            match self.arg(self.pos) {
                None => return Err("`)` expected".into()),
                Some(")") => {}
                Some(other) => return Err(format!("`)` expected, found `{other}`")),
            }
            self.advance(false)?;
            value
        } else if argc - self.pos >= 4
            && self.arg(self.pos) == Some("-l")
            && binop(self.arg(self.pos + 2).unwrap_or(""))
        {
            return Err("`-l` (string length) is not supported in a proof".into());
        } else if argc - self.pos >= 3 && binop(self.arg(self.pos + 1).unwrap_or("")) {
            self.binary_operator()?
        } else if unop_shape(&self.argv[self.pos]) {
            self.unary_operator()?
        } else {
            let value = !self.argv[self.pos].is_empty();
            self.advance(false)?;
            Cond::Const(value)
        };
        Ok(if negated { value.not() } else { value })
    }

    fn binary_operator(&mut self) -> Parsed {
        let op_at = self.pos + 1;
        if op_at + 2 < self.argv.len() && self.arg(op_at + 1) == Some("-l") {
            return Err("`-l` (string length) is not supported in a proof".into());
        }
        let left = self.argv[self.pos].clone();
        let op = self.argv[op_at].clone();
        let right = self.argv[op_at + 1].clone();
        self.pos += 3;
        Ok(match op.as_str() {
            "-eq" | "-ne" | "-lt" | "-le" | "-gt" | "-ge" => {
                let ordering = compare_integers(&left, &right)?;
                Cond::Const(match op.as_str() {
                    "-eq" => ordering == Ordering::Equal,
                    "-ne" => ordering != Ordering::Equal,
                    "-lt" => ordering == Ordering::Less,
                    "-le" => ordering != Ordering::Greater,
                    "-gt" => ordering == Ordering::Greater,
                    _ => ordering != Ordering::Less,
                })
            }
            "=" | "==" => Cond::Const(left == right),
            "!=" => Cond::Const(left != right),
            // -nt, -ot, -ef: compare two paths.
            _ => {
                self.ctx.path(&left, "the path");
                self.ctx.path(&right, "the path");
                let (a, b) = (path_key(&left).0, path_key(&right).0);
                match op.as_str() {
                    "-ef" if a == b => Cond::path(PathTest::Exists, &left),
                    "-nt" | "-ot" if a == b => Cond::Const(false),
                    "-ef" => {
                        let (x, y) = if a <= b { (a, b) } else { (b, a) };
                        Cond::Unknown(format!("{x}\0-ef\0{y}"))
                    }
                    "-nt" => Cond::Unknown(format!("{a}\0-nt\0{b}")),
                    _ => Cond::Unknown(format!("{b}\0-nt\0{a}")),
                }
            }
        })
    }

    fn unary_operator(&mut self) -> Parsed {
        let op = self.argv[self.pos].clone();
        let letter = op.as_bytes()[1];
        let known = b"erwxNOGfdsScbpLhugktnz";
        if !known.contains(&letter) {
            return Err(format!("`{op}`: unary operator expected"));
        }
        self.advance(true)?;
        let operand = self.argv[self.pos].clone();
        self.pos += 1;
        let test = match letter {
            b'e' => PathTest::Exists,
            b'f' => PathTest::File,
            b'd' => PathTest::Dir,
            b's' => PathTest::NonEmpty,
            b'r' => PathTest::Readable,
            b'w' => PathTest::Writable,
            b'x' => PathTest::Executable,
            b'L' | b'h' => PathTest::Symlink,
            b'n' => return Ok(Cond::Const(!operand.is_empty())),
            b'z' => return Ok(Cond::Const(operand.is_empty())),
            b't' => {
                return Err(format!(
                    "`-t {operand}` asks whether a descriptor is a terminal, which says nothing about the project"
                ));
            }
            _ => {
                return Err(format!(
                    "`{op}` is not among the tests a proof may use (-e -f -d -s -r -w -x -L -h -n -z)"
                ));
            }
        };
        self.ctx.path(&operand, "the path");
        Ok(Cond::path(test, &operand))
    }
}

/// coreutils' `find_int`: blanks, an optional `+` or `-`, digits, blanks.
fn parse_int(text: &str) -> Result<(bool, String), String> {
    let trimmed = text.trim_start_matches([' ', '\t']);
    let (negative, digits) = if let Some(rest) = trimmed.strip_prefix('+') {
        (false, rest)
    } else if let Some(rest) = trimmed.strip_prefix('-') {
        (true, rest)
    } else {
        (false, trimmed)
    };
    let number: String = digits.chars().take_while(char::is_ascii_digit).collect();
    let rest = &digits[number.len()..];
    if number.is_empty() || !rest.chars().all(|c| c == ' ' || c == '\t') {
        return Err(format!("invalid integer `{text}`"));
    }
    let significant = number.trim_start_matches('0').to_string();
    Ok((negative && !significant.is_empty(), significant))
}

fn compare_integers(left: &str, right: &str) -> Result<Ordering, String> {
    let (ln, l) = parse_int(left)?;
    let (rn, r) = parse_int(right)?;
    let magnitude = l.len().cmp(&r.len()).then_with(|| l.cmp(&r));
    Ok(match (ln, rn) {
        (false, false) => magnitude,
        (true, true) => magnitude.reverse(),
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vacuity::{Outcome, outcome};

    fn cond(args: &[&str]) -> Result<Cond, Vec<crate::Refusal>> {
        let mut ctx = Ctx::new("test");
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        match expression(&mut ctx, &args) {
            Some(f) if ctx.ok() => Ok(f.status),
            _ => Err(ctx.refusals),
        }
    }

    fn fixed(args: &[&str]) -> bool {
        matches!(outcome(&cond(args).unwrap()), Outcome::Fixed(_))
    }

    #[test]
    fn posix_argument_count_rules() {
        assert!(fixed(&["x"]));
        assert!(fixed(&["-f"])); // one argument: a non-empty string
        assert!(fixed(&["x", "=", "x"]));
        assert!(fixed(&["!", "x", "=", "y"]));
        assert!(fixed(&["-n", "x"]));
        assert!(fixed(&["(", "x", ")"]));
        assert!(fixed(&["1", "-eq", "01"]));
        assert!(fixed(&["-f", "x", "-o", "1", "=", "1"]));
        assert!(fixed(&["-e", "x", "-o", "!", "-e", "x"]));
        assert!(fixed(&["-e", "."]));
        assert!(fixed(&["a", "-nt", "./a"]));
        assert!(!fixed(&["-f", "x"]));
        assert!(!fixed(&["!", "-f", "x"]));
        assert!(!fixed(&["-f", "x", "-a", "-d", "y"]));
        assert!(!fixed(&["(", "-f", "x", ")", "-o", "-d", "y"]));
        assert!(!fixed(&["a", "-nt", "b"]));
        // `-a` with one argument after it is a string test in 3-argument form.
        assert!(fixed(&["x", "-a", "y"]));
    }

    #[test]
    fn syntax_errors_and_unsupported_tests_are_refused() {
        for args in [
            &["-f"][..],
            &["-f", "x", "y"],
            &["1", "-eq", "a"],
            &["-t", "1"],
            &["-p", "fifo"],
            &["-v", "x"],
            &["(", "-f", "x"],
            &["-l", "x", "-gt", "1"],
            &["-f", "/etc/passwd"],
            &["-d", "../x"],
        ] {
            if args == ["-f"] {
                continue;
            }
            assert!(cond(args).is_err(), "{args:?}");
        }
        assert_eq!(compare_integers(" -0", "0"), Ok(Ordering::Equal));
        assert_eq!(compare_integers("-10", "-9"), Ok(Ordering::Less));
        assert_eq!(
            compare_integers("+12345678901234567890123", "9"),
            Ok(Ordering::Greater)
        );
    }
}
