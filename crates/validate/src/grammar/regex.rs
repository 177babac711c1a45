//! Whether a search pattern can match the empty string (PROOF-5, round8
//! #4): such a pattern matches every line (`''`, `.*`, `^`, `$`, `x*`,
//! `a\|`, `(|a)`), so a search with it answers alike whatever the file
//! holds (only whether it has a line at all).
//!
//! A small parser over the four pattern languages the allowlisted searchers
//! read: POSIX basic (grep's and git grep's default, with GNU's `\|`, `\+`,
//! `\?`), POSIX extended (`-E`), Perl-like (`-P`, and rg's default Rust
//! syntax) and fixed strings (`-F`). It answers one question and errs one
//! way: anything it cannot read (an unbalanced group, an unknown `(?`
//! form, verbose mode) counts as "can match the empty string", so a
//! pattern is refused, never wrongly accepted.

/// A pattern language.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flavor {
    /// POSIX basic regular expressions with GNU's extensions (`grep`, `-G`).
    Basic,
    /// POSIX extended (`grep -E`).
    Extended,
    /// PCRE (`grep -P`, `rg -P`) and Rust's regex syntax (rg's default).
    Perl,
    /// Fixed strings (`-F`).
    Fixed,
}

/// Whether `pattern` (one pattern: the caller splits grep's patterns at
/// line breaks) can match the empty string, read as `flavor`. Unreadable
/// patterns count as yes.
pub(crate) fn matches_empty(pattern: &str, flavor: Flavor) -> bool {
    if flavor == Flavor::Fixed {
        return pattern.is_empty();
    }
    let chars: Vec<char> = pattern.chars().collect();
    let mut parser = Parser {
        chars: &chars,
        at: 0,
        flavor,
    };
    match parser.alternation(0) {
        // Something left over (a stray `)` or `\)`) is not read here.
        Ok(nullable) => nullable || parser.at < chars.len(),
        Err(Unreadable) => true,
    }
}

/// The pattern could not be read.
struct Unreadable;

struct Parser<'a> {
    chars: &'a [char],
    at: usize,
    flavor: Flavor,
}

/// Deeper nesting than this is not read (counts as matching empty).
const MAX_DEPTH: usize = 64;

impl Parser<'_> {
    fn peek(&self, offset: usize) -> Option<char> {
        self.chars.get(self.at + offset).copied()
    }

    fn starts(&self, text: &str) -> bool {
        text.chars()
            .enumerate()
            .all(|(i, c)| self.peek(i) == Some(c))
    }

    fn at_alternation(&self) -> bool {
        match self.flavor {
            Flavor::Basic => self.starts("\\|"),
            _ => self.peek(0) == Some('|'),
        }
    }

    fn at_group_end(&self) -> bool {
        match self.flavor {
            Flavor::Basic => self.starts("\\)"),
            _ => self.peek(0) == Some(')'),
        }
    }

    /// `a|b|…`: nullable when any branch is.
    fn alternation(&mut self, depth: usize) -> Result<bool, Unreadable> {
        if depth > MAX_DEPTH {
            return Err(Unreadable);
        }
        let mut nullable = self.sequence(depth)?;
        while self.at_alternation() {
            self.at += if self.flavor == Flavor::Basic { 2 } else { 1 };
            nullable |= self.sequence(depth)?;
        }
        Ok(nullable)
    }

    /// Atoms in a row: nullable when every one is (an empty row is).
    fn sequence(&mut self, depth: usize) -> Result<bool, Unreadable> {
        let mut nullable = true;
        let mut first = true;
        while self.peek(0).is_some() && !self.at_alternation() && !self.at_group_end() {
            let mut atom = self.atom(depth, first)?;
            first = false;
            while let Some(min) = self.quantifier()? {
                if min == 0 {
                    atom = true;
                }
            }
            nullable &= atom;
        }
        Ok(nullable)
    }

    /// A quantifier after an atom, with its minimum count.
    fn quantifier(&mut self) -> Result<Option<u64>, Unreadable> {
        let min = match (self.flavor, self.peek(0), self.peek(1)) {
            (_, Some('*'), _) => {
                self.at += 1;
                0
            }
            (Flavor::Basic, Some('\\'), Some('?')) => {
                self.at += 2;
                0
            }
            (Flavor::Basic, Some('\\'), Some('+')) => {
                self.at += 2;
                1
            }
            (Flavor::Basic, Some('\\'), Some('{')) => {
                self.at += 2;
                return self.interval("\\}").map(Some).ok_or(Unreadable);
            }
            (Flavor::Extended | Flavor::Perl, Some('?'), _) => {
                self.at += 1;
                0
            }
            (Flavor::Extended | Flavor::Perl, Some('+'), _) => {
                self.at += 1;
                1
            }
            (Flavor::Extended | Flavor::Perl, Some('{'), _) => {
                let start = self.at;
                self.at += 1;
                match self.interval("}") {
                    Some(min) => min,
                    None => {
                        // Not an interval: a literal `{` (GNU, PCRE).
                        self.at = start;
                        return Ok(None);
                    }
                }
            }
            _ => return Ok(None),
        };
        // Perl's lazy and possessive forms (`*?`, `*+`) change nothing here.
        if self.flavor == Flavor::Perl && matches!(self.peek(0), Some('?' | '+')) {
            self.at += 1;
        }
        Ok(Some(min))
    }

    /// `m}`, `m,}`, `m,n}`, `,n}` after the opening brace: the minimum.
    fn interval(&mut self, close: &str) -> Option<u64> {
        let mut min: Option<u64> = None;
        let mut seen_comma = false;
        let mut digits = String::new();
        loop {
            if self.starts(close) {
                self.at += close.chars().count();
                let value = if seen_comma { min } else { digits.parse().ok() };
                return Some(value.unwrap_or(0));
            }
            match self.peek(0)? {
                c if c.is_ascii_digit() => digits.push(c),
                ',' if !seen_comma => {
                    seen_comma = true;
                    min = Some(digits.parse().unwrap_or(0));
                    digits.clear();
                }
                _ => return None,
            }
            self.at += 1;
            if digits.len() > 9 {
                return None;
            }
        }
    }

    /// One atom: whether it can match the empty string.
    fn atom(&mut self, depth: usize, first: bool) -> Result<bool, Unreadable> {
        let Some(c) = self.peek(0) else {
            return Ok(true);
        };
        match (self.flavor, c) {
            (_, '^' | '$') => {
                self.at += 1;
                Ok(true)
            }
            (_, '.') => {
                self.at += 1;
                Ok(false)
            }
            (_, '[') => {
                self.at += 1;
                self.bracket()?;
                Ok(false)
            }
            // A leading `*` is a literal in a basic expression.
            (Flavor::Basic, '*') if first => {
                self.at += 1;
                Ok(false)
            }
            // A quantifier with nothing before it: not read here.
            (Flavor::Extended | Flavor::Perl, '*' | '+' | '?') => Err(Unreadable),
            (Flavor::Basic, '\\') if self.peek(1) == Some('(') => {
                self.at += 2;
                self.group(depth)
            }
            (Flavor::Extended, '(') => {
                self.at += 1;
                self.group(depth)
            }
            (Flavor::Perl, '(') => {
                self.at += 1;
                self.perl_group(depth)
            }
            (_, '\\') => self.escape(),
            _ => {
                self.at += 1;
                Ok(false)
            }
        }
    }

    /// The inside of a group, through its closing parenthesis.
    fn group(&mut self, depth: usize) -> Result<bool, Unreadable> {
        let nullable = self.alternation(depth + 1)?;
        if !self.at_group_end() {
            return Err(Unreadable);
        }
        self.at += if self.flavor == Flavor::Basic { 2 } else { 1 };
        Ok(nullable)
    }

    /// `(…)`, `(?:…)`, `(?P<n>…)`, `(?<n>…)`, `(?'n'…)`, lookarounds
    /// (match no character: nullable), `(?i)` flags (nullable; verbose mode
    /// `x`, where spaces and `#` comments mean nothing, is not read).
    fn perl_group(&mut self, depth: usize) -> Result<bool, Unreadable> {
        if self.peek(0) != Some('?') {
            return self.group(depth);
        }
        self.at += 1;
        let lookaround =
            self.starts("=") || self.starts("!") || self.starts("<=") || self.starts("<!");
        if lookaround {
            self.at += if self.peek(0) == Some('<') { 2 } else { 1 };
            self.group(depth)?;
            return Ok(true);
        }
        if self.starts("P<") || self.starts("<") || self.starts("'") {
            let close = if self.peek(0) == Some('\'') {
                '\''
            } else {
                '>'
            };
            self.at += if self.peek(0) == Some('P') { 2 } else { 1 };
            loop {
                match self.peek(0) {
                    None => return Err(Unreadable),
                    Some(c) => {
                        self.at += 1;
                        if c == close {
                            break;
                        }
                    }
                }
            }
            return self.group(depth);
        }
        // Flags: `(?i)`, `(?i-s:…)`, `(?:…)`.
        while let Some(c) = self.peek(0) {
            match c {
                'x' => return Err(Unreadable),
                ')' => {
                    self.at += 1;
                    return Ok(true);
                }
                ':' => {
                    self.at += 1;
                    return self.group(depth);
                }
                c if c.is_ascii_alphabetic() || c == '-' || c == '^' => self.at += 1,
                _ => return Err(Unreadable),
            }
        }
        Err(Unreadable)
    }

    /// `\x`: anchors and back references match empty; character escapes
    /// and classes match one character.
    fn escape(&mut self) -> Result<bool, Unreadable> {
        let Some(next) = self.peek(1) else {
            return Err(Unreadable);
        };
        self.at += 2;
        match (self.flavor, next) {
            // Word and text boundaries, `\K`, back references (their group
            // can be empty): nullable.
            (_, 'b' | 'B' | '<' | '>' | '`' | '\'') => Ok(true),
            (_, '0'..='9') => Ok(true),
            (Flavor::Perl, 'A' | 'z' | 'Z' | 'G' | 'K' | 'E') => Ok(true),
            (Flavor::Perl, 'Q') => {
                // A literal up to `\E`: nullable when empty.
                let start = self.at;
                while self.peek(0).is_some() && !self.starts("\\E") {
                    self.at += 1;
                }
                let empty = self.at == start;
                if self.starts("\\E") {
                    self.at += 2;
                }
                Ok(empty)
            }
            (Flavor::Perl, 'p' | 'P' | 'x' | 'o' | 'u' | 'N' | 'g' | 'k') => {
                if self.peek(0) == Some('{') {
                    while let Some(c) = self.peek(0) {
                        self.at += 1;
                        if c == '}' {
                            break;
                        }
                    }
                } else if matches!(next, 'g' | 'k') {
                    // `\g1`, `\k<n>`: back references.
                    return Ok(true);
                }
                Ok(false)
            }
            _ => Ok(false),
        }
    }

    /// A bracket expression after its `[`, through its `]`; it matches one
    /// character. Perl-like syntax escapes with `\` and (Rust) nests.
    fn bracket(&mut self) -> Result<(), Unreadable> {
        if self.peek(0) == Some('^') {
            self.at += 1;
        }
        if self.peek(0) == Some(']') {
            self.at += 1;
        }
        loop {
            let Some(c) = self.peek(0) else {
                return Err(Unreadable);
            };
            match c {
                ']' => {
                    self.at += 1;
                    return Ok(());
                }
                '[' if matches!(self.peek(1), Some(':' | '=' | '.')) => {
                    let kind = self.peek(1).unwrap_or(':');
                    self.at += 2;
                    loop {
                        match self.peek(0) {
                            None => return Err(Unreadable),
                            Some(c) if c == kind && self.peek(1) == Some(']') => {
                                self.at += 2;
                                break;
                            }
                            Some(_) => self.at += 1,
                        }
                    }
                }
                '[' if self.flavor == Flavor::Perl => {
                    self.at += 1;
                    self.bracket()?;
                }
                '\\' if self.flavor == Flavor::Perl => self.at += 2,
                _ => self.at += 1,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_that_match_the_empty_string() {
        for (pattern, flavor) in [
            ("", Flavor::Basic),
            (".*", Flavor::Basic),
            ("^", Flavor::Basic),
            ("$", Flavor::Basic),
            ("x*", Flavor::Basic),
            ("^.*$", Flavor::Basic),
            ("a\\|", Flavor::Basic),
            ("\\(\\)", Flavor::Basic),
            ("x\\?", Flavor::Basic),
            ("x\\{0,3\\}", Flavor::Basic),
            ("\\(a*\\)\\+", Flavor::Basic),
            ("\\<", Flavor::Basic),
            ("(|a)", Flavor::Extended),
            ("a?", Flavor::Extended),
            ("a{0}", Flavor::Extended),
            ("a{,2}", Flavor::Extended),
            ("(a|b*)", Flavor::Extended),
            ("(?i)", Flavor::Perl),
            ("(?:a)*?", Flavor::Perl),
            ("(?=a)", Flavor::Perl),
            ("\\Q\\E", Flavor::Perl),
            ("\\b", Flavor::Perl),
            ("(?x) a", Flavor::Perl),
            ("", Flavor::Fixed),
            // Unreadable: counted as matching empty.
            ("\\(a", Flavor::Basic),
            ("(a", Flavor::Extended),
            ("[a", Flavor::Basic),
            ("a)", Flavor::Extended),
        ] {
            assert!(matches_empty(pattern, flavor), "{pattern:?} {flavor:?}");
        }
    }

    #[test]
    fn patterns_that_need_a_character() {
        for (pattern, flavor) in [
            ("a", Flavor::Basic),
            (".", Flavor::Basic),
            ("fn main", Flavor::Basic),
            ("*a", Flavor::Basic),
            ("a+", Flavor::Basic),
            ("a?", Flavor::Basic),
            ("a{0}", Flavor::Basic),
            ("(|a)", Flavor::Basic),
            ("a\\+", Flavor::Basic),
            ("^TODO", Flavor::Basic),
            ("[[:alpha:]]*x", Flavor::Basic),
            ("[]a]", Flavor::Basic),
            ("a{", Flavor::Extended),
            ("(a|b)c*", Flavor::Extended),
            ("x{2,}", Flavor::Extended),
            ("\\d+", Flavor::Perl),
            ("(?i)todo", Flavor::Perl),
            ("(?P<n>a)", Flavor::Perl),
            ("(?'n'a)", Flavor::Perl),
            ("(?<n>a)", Flavor::Perl),
            ("[a[b]]", Flavor::Perl),
            ("\\p{L}", Flavor::Perl),
            (".*", Flavor::Fixed),
            ("x", Flavor::Fixed),
        ] {
            assert!(!matches_empty(pattern, flavor), "{pattern:?} {flavor:?}");
        }
    }
}
