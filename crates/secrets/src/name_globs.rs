//! The secret-file rule's globs, matched without compiling them (issue 16:
//! ploy's hook is one process per tool call, and compiling the rule with
//! `globset` cost more than the whole rest of a call).
//!
//! The rule ([`crate::files`]) is written as globs and stays the one
//! rule: this module reads the same glob text, with `globset`'s meaning
//! for the options the rule uses (`literal_separator`, `backslash_escape`,
//! bytes compared as bytes, `(?-u)`):
//!
//! * `?` one byte other than `/`; `*` any run of bytes without `/`;
//! * `[abc]`, `[a-z]`, `[!abc]` one byte (a negated class never takes `/`);
//! * `{a,b}` alternatives (expanded here: each spelling is matched alone);
//! * `**/` at the start: nothing, `/`, or anything ending in `/`;
//!   `/**` at the end: `/` then anything;
//! * `\x` the byte `x`.
//!
//! Anything else (`**` elsewhere, nested braces, classes over non-ASCII
//! characters) is refused at build time: the caller then fails closed
//! (every path a secret file), and the tests catch it. The tests also
//! check, path by path, that the answers are `globset`'s.
//!
//! Speed: each pattern keeps its fixed tail (the bytes after its last
//! wildcard) and the number of `/` it spans, so a path is compared only
//! with the patterns whose tail it ends with, from the one place where the
//! pattern can start.

/// One step of a pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Byte(u8),
    /// `?`
    Any,
    /// `*`
    Star,
    /// `[...]` / `[!...]` over ASCII bytes.
    Class {
        negated: bool,
        ranges: Vec<(u8, u8)>,
    },
    /// `**/` at the start.
    AnyFolders,
    /// `/**` at the end.
    Below,
}

/// One spelling of a glob (braces expanded).
#[derive(Debug)]
struct Pattern {
    /// The glob's index in the list given to [`NameGlobs::new`].
    index: usize,
    /// Without a leading [`Token::AnyFolders`] (see `anchored`).
    tokens: Vec<Token>,
    /// Whether the glob started with `**/`.
    any_folders: bool,
    /// How many `/` the tokens match exactly, when none of them can match
    /// a `/` otherwise (`None`: a [`Token::Below`]); with `any_folders`
    /// this fixes where in a path the tokens must start.
    slashes: Option<usize>,
    /// The bytes every match ends with (after the last wildcard).
    tail: Vec<u8>,
    /// The byte every match starts with, when the tokens start with one:
    /// most paths are told apart by it before anything else is compared.
    head: Option<u8>,
}

/// The globs of the secret-file rule, ready to match.
#[derive(Debug)]
pub(crate) struct NameGlobs {
    patterns: Vec<Pattern>,
    /// Patterns by the last byte of their tail (most patterns end with a
    /// fixed name or extension), in index order.
    by_last: Vec<Vec<usize>>,
    /// Patterns without a fixed last byte (`id_rsa*`), in index order.
    open_ended: Vec<usize>,
}

impl NameGlobs {
    /// Reads `globs`; `None` when one uses syntax this module does not
    /// take (see the module docs).
    pub(crate) fn new<'a>(globs: impl IntoIterator<Item = &'a str>) -> Option<Self> {
        let mut patterns = Vec::new();
        for (index, glob) in globs.into_iter().enumerate() {
            for tokens in parse(glob.as_bytes())? {
                patterns.push(Pattern::new(index, tokens)?);
            }
        }
        let mut by_last = vec![Vec::new(); 256];
        let mut open_ended = Vec::new();
        for (at, pattern) in patterns.iter().enumerate() {
            match pattern.tail.last() {
                Some(byte) => by_last[usize::from(*byte)].push(at),
                None => open_ended.push(at),
            }
        }
        Some(Self {
            patterns,
            by_last,
            open_ended,
        })
    }

    /// The smallest index of a glob matching `path`, as `globset` would
    /// answer `GlobSet::matches(path).min()`.
    pub(crate) fn first_match(&self, path: &[u8]) -> Option<usize> {
        let ending: &[usize] = match path.last() {
            Some(byte) => &self.by_last[usize::from(*byte)],
            None => &[],
        };
        let starts = Starts::of(path);
        let mut best: Option<usize> = None;
        for &at in ending.iter().chain(&self.open_ended) {
            let pattern = &self.patterns[at];
            if best.is_some_and(|b| b <= pattern.index) {
                continue;
            }
            if pattern.matches(path, &starts) {
                best = Some(pattern.index);
            }
        }
        best
    }
}

impl Pattern {
    fn new(index: usize, mut tokens: Vec<Token>) -> Option<Self> {
        let any_folders = tokens.first() == Some(&Token::AnyFolders);
        if any_folders {
            tokens.remove(0);
        }
        if tokens.contains(&Token::AnyFolders) {
            return None;
        }
        if tokens
            .iter()
            .position(|t| *t == Token::Below)
            .is_some_and(|at| at + 1 != tokens.len())
        {
            return None;
        }
        let slashes = (!tokens.contains(&Token::Below))
            .then(|| tokens.iter().filter(|t| **t == Token::Byte(b'/')).count());
        let mut tail: Vec<u8> = tokens
            .iter()
            .rev()
            .map_while(|t| match t {
                Token::Byte(b) => Some(*b),
                _ => None,
            })
            .collect();
        tail.reverse();
        let head = match tokens.first() {
            Some(Token::Byte(byte)) => Some(*byte),
            _ => None,
        };
        Some(Self {
            index,
            tokens,
            any_folders,
            slashes,
            tail,
            head,
        })
    }

    fn matches(&self, path: &[u8], starts: &Starts) -> bool {
        if !self.any_folders {
            return path.ends_with(&self.tail) && matches_from(&self.tokens, path);
        }
        match self.slashes {
            // The tokens match exactly `n` slashes and nothing else can
            // take one: they start after the `n + 1`-th `/` from the end,
            // or at the start when the path has exactly `n`.
            Some(n) => match starts.start(path, n) {
                Some(start) => {
                    let part = &path[start..];
                    self.head.is_none_or(|head| part.first() == Some(&head))
                        && part.ends_with(&self.tail)
                        && matches_from(&self.tokens, part)
                }
                None => false,
            },
            // `(?:/?|.*/)`: nothing, or up to any `/`.
            None => {
                (path.ends_with(&self.tail) && matches_from(&self.tokens, path))
                    || path
                        .iter()
                        .enumerate()
                        .any(|(at, b)| *b == b'/' && matches_from(&self.tokens, &path[at + 1..]))
            }
        }
    }
}

/// How many spans [`Starts`] keeps (the rule's globs span at most 2 `/`).
const SPANS: usize = 8;

/// Where in one path the part spanning exactly `n` `/` to its end starts,
/// found once per path for every pattern (issue 11: each pattern scanned
/// the path again, on every file of a project's walk).
struct Starts {
    /// `at[n]`: after the `n + 1`-th `/` from the end; 0 when the path
    /// has exactly `n`; `None` when it has fewer.
    at: [Option<usize>; SPANS],
}

impl Starts {
    fn of(path: &[u8]) -> Self {
        let mut at = [None; SPANS];
        let mut seen = 0;
        for (index, byte) in path.iter().enumerate().rev() {
            if *byte == b'/' {
                at[seen] = Some(index + 1);
                seen += 1;
                if seen == SPANS {
                    return Self { at };
                }
            }
        }
        at[seen] = Some(0);
        Self { at }
    }

    /// The start for `n` `/` (scanned again only past [`SPANS`]).
    fn start(&self, path: &[u8], n: usize) -> Option<usize> {
        if let Some(start) = self.at.get(n) {
            return *start;
        }
        let mut seen = 0;
        for (at, byte) in path.iter().enumerate().rev() {
            if *byte == b'/' {
                seen += 1;
                if seen == n + 1 {
                    return Some(at + 1);
                }
            }
        }
        (seen == n).then_some(0)
    }
}

/// Whether `tokens` match all of `text`.
fn matches_from(tokens: &[Token], text: &[u8]) -> bool {
    let Some((first, rest)) = tokens.split_first() else {
        return text.is_empty();
    };
    match first {
        Token::Byte(b) => text.first() == Some(b) && matches_from(rest, &text[1..]),
        Token::Any => text.first().is_some_and(|c| *c != b'/') && matches_from(rest, &text[1..]),
        Token::Class { negated, ranges } => {
            text.first().is_some_and(|c| {
                let inside = ranges.iter().any(|(from, to)| (*from..=*to).contains(c));
                if *negated {
                    !inside && *c != b'/'
                } else {
                    inside && *c != b'/'
                }
            }) && matches_from(rest, &text[1..])
        }
        Token::Star => {
            for end in 0..=text.len() {
                if matches_from(rest, &text[end..]) {
                    return true;
                }
                if text.get(end) == Some(&b'/') {
                    break;
                }
            }
            false
        }
        // `/.*`: the last token (checked at build time).
        Token::Below => text.first() == Some(&b'/'),
        // Only at the start, handled by `Pattern::matches`.
        Token::AnyFolders => false,
    }
}

/// A glob's spellings (one per brace alternative), as tokens; `None` for
/// syntax outside the module's dialect.
fn parse(glob: &[u8]) -> Option<Vec<Vec<Token>>> {
    let mut spellings: Vec<Vec<Token>> = vec![Vec::new()];
    let mut at = 0;
    while at < glob.len() {
        let byte = glob[at];
        match byte {
            b'{' => {
                let close = at + glob[at..].iter().position(|b| *b == b'}')?;
                let inside = &glob[at + 1..close];
                // Literal alternatives only, none empty (globset drops an
                // empty one).
                if inside
                    .iter()
                    .any(|b| matches!(b, b'{' | b'[' | b'*' | b'?' | b'\\'))
                    || inside.split(|b| *b == b',').any(<[u8]>::is_empty)
                {
                    return None;
                }
                let mut next = Vec::new();
                for spelling in &spellings {
                    for alternative in inside.split(|b| *b == b',') {
                        let mut grown = spelling.clone();
                        grown.extend(alternative.iter().map(|b| Token::Byte(*b)));
                        next.push(grown);
                    }
                }
                spellings = next;
                at = close + 1;
            }
            b'}' => return None,
            b'[' => {
                let (token, used) = class(&glob[at..])?;
                spellings.iter_mut().for_each(|s| s.push(token.clone()));
                at += used;
            }
            b'\\' => {
                let escaped = *glob.get(at + 1)?;
                spellings
                    .iter_mut()
                    .for_each(|s| s.push(Token::Byte(escaped)));
                at += 2;
            }
            b'?' => {
                spellings.iter_mut().for_each(|s| s.push(Token::Any));
                at += 1;
            }
            b'*' if glob.get(at + 1) == Some(&b'*') => {
                // `**` only as a whole part: `**/` first or `/**` last.
                if at == 0 && glob.get(2) == Some(&b'/') {
                    spellings.iter_mut().for_each(|s| s.push(Token::AnyFolders));
                    at = 3;
                } else if at + 2 == glob.len() && at > 0 && glob[at - 1] == b'/' {
                    for spelling in &mut spellings {
                        spelling.pop();
                        spelling.push(Token::Below);
                    }
                    at += 2;
                } else {
                    return None;
                }
            }
            b'*' => {
                spellings.iter_mut().for_each(|s| s.push(Token::Star));
                at += 1;
            }
            _ => {
                spellings.iter_mut().for_each(|s| s.push(Token::Byte(byte)));
                at += 1;
            }
        }
    }
    Some(spellings)
}

/// A `[...]` class at the start of `text`: the token and the bytes used.
fn class(text: &[u8]) -> Option<(Token, usize)> {
    let mut at = 1;
    let negated = matches!(text.get(at), Some(b'!' | b'^'));
    if negated {
        at += 1;
    }
    let mut members = Vec::new();
    // A `]` first is a member.
    let mut first = true;
    loop {
        let byte = *text.get(at)?;
        if byte == b']' && !first {
            break;
        }
        first = false;
        if !byte.is_ascii() {
            return None;
        }
        members.push(byte);
        at += 1;
    }
    let mut ranges = Vec::new();
    let mut i = 0;
    while i < members.len() {
        if members.get(i + 1) == Some(&b'-') && i + 2 < members.len() {
            let (from, to) = (members[i], members[i + 2]);
            if from > to {
                return None;
            }
            ranges.push((from, to));
            i += 3;
        } else {
            ranges.push((members[i], members[i]));
            i += 1;
        }
    }
    Some((Token::Class { negated, ranges }, at + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn globset_first(globs: &[&str], path: &str) -> Option<usize> {
        let mut builder = globset::GlobSetBuilder::new();
        for glob in globs {
            builder.add(
                globset::GlobBuilder::new(glob)
                    .literal_separator(true)
                    .backslash_escape(true)
                    .build()
                    .unwrap(),
            );
        }
        builder.build().unwrap().matches(path).into_iter().min()
    }

    // The dialect, case by case, against globset itself.
    #[test]
    fn each_form_means_what_globset_means() {
        let globs = [
            "**/.env",
            "**/*.pem",
            "**/.env[!.]*",
            "**/{#,.#}.env*",
            "**/secrets.{json,yaml}",
            "**/.envs/**",
            "**/.aws/sso/cache/*.json",
            "**/?*.env.*",
            "**/*[_.-]secret.{json,xml}",
            "**/id_rsa*",
            "**/a\\*b",
            "**/x[a-c]y",
            "plain/name",
        ];
        let matcher = NameGlobs::new(globs).unwrap();
        for path in [
            ".env",
            "/.env",
            "a/b/.env",
            "a/.env/b",
            "x.pem",
            "a/.pem",
            "a/b/c.pem/d",
            ".envrc",
            ".env.local",
            "#.env#",
            ".#.env.x",
            "secrets.json",
            "secrets.jsonx",
            ".envs/",
            ".envs",
            "a/.envs/.prod/.django",
            ".aws/sso/cache/t.json",
            "h/.aws/sso/cache/t.json",
            ".aws/sso/cache/a/t.json",
            "p.env.x",
            ".env.x",
            "a/b.env.",
            "my_secret.json",
            "mysecret.json",
            "x-secret.xml",
            "id_rsa",
            "id_rsa.pub",
            "a*b",
            "axb",
            "xby",
            "xdy",
            "plain/name",
            "a/plain/name",
            "",
            "/",
            "é.env",
            // More `/` than `Starts` keeps (SPANS), and exactly that many.
            "1/2/3/4/5/6/7/8/9/.aws/sso/cache/t.json",
            "1/2/3/4/5/6/7/8/9/x.pem",
            "1/2/3/4/5/6/7/8/9/10/id_rsa",
            "2/3/4/5/6/7/8/.env",
            "1/2/3/4/5/6/7/8/.env",
            "1/2/3/4/5/6/7/8/9/plain/name",
            "1/2/3/4/5/6/7/8/9/.envs/a",
        ] {
            assert_eq!(
                matcher.first_match(path.as_bytes()),
                globset_first(&globs, path),
                "{path}"
            );
        }
    }

    #[test]
    fn syntax_outside_the_dialect_is_refused() {
        for glob in ["a/**/b", "{a,{b,c}}", "a}", "[é]", "x**", "[z-a]", "{,a}"] {
            assert!(NameGlobs::new([glob]).is_none(), "{glob}");
        }
    }
}
