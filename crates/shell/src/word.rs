//! One word: quote removal as bash does it, and what the word expands.

use brush_parser::ParserOptions;
use brush_parser::word::{WordPiece, WordPieceWithSource};

use crate::{Word, WordFlags};

/// Words with more `${` / `$((` than this are not given to the word parser.
const MAX_EXPANSIONS_PER_WORD: usize = 3;

/// Words with more `{` than this are not given to the brace parser.
const MAX_BRACES_PARSED: usize = 4;

/// A word's summary plus the command texts found inside it (substitutions),
/// which the walker parses and lists as nested commands.
pub(crate) struct WordAnalysis {
    pub word: Word,
    pub nested_sources: Vec<String>,
}

/// Bytes that never mean anything special to bash inside a word: a word made
/// only of these is its own value, and the (slower) word parser is skipped.
fn is_plain_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric()
        || matches!(
            b,
            b'-' | b'_' | b'.' | b'/' | b'=' | b',' | b'+' | b'%' | b'@' | b':' | b'^'
        )
}

/// The value of a word made only of plain bytes, `'…'` and `"…"` without
/// `$`, `` ` `` or `\` inside: the cases where quote removal is unambiguous.
/// Anything else returns `None` and goes to bash's word parser. Also the test
/// brackets `[`, `]`, `[[`, `]]` and `!` as whole words (no glob without both).
fn simple_value(raw: &str) -> Option<(String, bool)> {
    if raw.is_empty() {
        return None;
    }
    if matches!(raw, "[" | "]" | "[[" | "]]" | "!") {
        return Some((raw.to_owned(), false));
    }
    let bytes = raw.as_bytes();
    let mut value = String::with_capacity(raw.len());
    let mut quoted = false;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if is_plain_byte(b) {
            let start = i;
            while i < bytes.len() && is_plain_byte(bytes[i]) {
                i += 1;
            }
            value.push_str(&raw[start..i]);
            continue;
        }
        let close = match b {
            b'\'' => raw[i + 1..].find('\'')?,
            b'"' => {
                let end = raw[i + 1..].find('"')?;
                if raw[i + 1..i + 1 + end].contains(['$', '`', '\\']) {
                    return None;
                }
                end
            }
            _ => return None,
        };
        value.push_str(&raw[i + 1..i + 1 + close]);
        quoted = true;
        i += close + 2;
    }
    Some((value, quoted))
}

/// The word's analysis when [`simple_value`] can give it (no parser
/// needed), else `None`.
pub(crate) fn simple_word(raw: &str) -> Option<Word> {
    let (value, quoted) = simple_value(raw)?;
    Some(Word {
        raw: raw.to_owned(),
        value: Some(value),
        flags: WordFlags {
            quoted,
            ..WordFlags::default()
        },
    })
}

/// Analyses one word as written. `Err` carries a reason when the word
/// parser rejects it (the caller reports it as a parse error).
pub(crate) fn analyze_word(raw: &str, opts: &ParserOptions) -> Result<WordAnalysis, String> {
    if let Some(word) = simple_word(raw) {
        return Ok(WordAnalysis {
            word,
            nested_sources: Vec::new(),
        });
    }
    let expansions = raw.matches("${").count() + raw.matches("$((").count();
    if expansions > MAX_EXPANSIONS_PER_WORD {
        // brush's word parser backtracks badly on several `${`/`$((` in one
        // word (found by fuzzing: a 35-byte word took 0.3 s). Not analysed:
        // the caller reports a parse error, which every caller treats as unsafe.
        return Err(format!(
            "word {raw:?} has {expansions} `${{`/`$((` expansions; more than {MAX_EXPANSIONS_PER_WORD} are not analysed"
        ));
    }
    let pieces = brush_parser::word::parse(raw, opts).map_err(|e| format!("word {raw:?}: {e}"))?;
    let mut state = PieceState {
        value: String::new(),
        dynamic: false,
        flags: WordFlags::default(),
        nested: Vec::new(),
    };
    state.pieces(raw, &pieces, false, opts)?;
    if raw.contains('{') && (raw.contains(',') || raw.contains("..")) {
        // brush's brace parser backtracks exponentially on runs of unmatched
        // `{` (found by fuzzing: 14 braces took seconds). Past a few braces,
        // assume an expansion without asking it: the word is then computed,
        // which every caller treats as the cautious case.
        if raw.matches('{').count() > MAX_BRACES_PARSED {
            state.flags.brace_expansion = true;
        }
    }
    if !state.flags.brace_expansion
        && raw.contains('{')
        && (raw.contains(',') || raw.contains(".."))
    {
        let braces = brush_parser::word::parse_brace_expansions(raw, opts)
            .map_err(|e| format!("word {raw:?}: {e}"))?;
        if braces.is_some_and(|parts| {
            parts
                .iter()
                .any(|p| matches!(p, brush_parser::word::BraceExpressionOrText::Expr(_)))
        }) {
            state.flags.brace_expansion = true;
        }
    }
    let flags = state.flags;
    let value = if state.dynamic || flags.has_expansion() {
        None
    } else {
        Some(state.value)
    };
    Ok(WordAnalysis {
        word: Word {
            raw: raw.to_owned(),
            value,
            flags,
        },
        nested_sources: state.nested,
    })
}

/// Analyses a here-document body (only meaningful when it is expanded).
pub(crate) fn analyze_heredoc(
    body: &str,
    expands: bool,
    opts: &ParserOptions,
) -> Result<WordAnalysis, String> {
    if !expands {
        return Ok(WordAnalysis {
            word: Word {
                raw: body.to_owned(),
                value: Some(body.to_owned()),
                flags: WordFlags {
                    quoted: true,
                    ..WordFlags::default()
                },
            },
            nested_sources: Vec::new(),
        });
    }
    let expansions = body.matches("${").count() + body.matches("$((").count();
    if expansions > MAX_EXPANSIONS_PER_WORD {
        return Err(format!(
            "a here-document has {expansions} `${{`/`$((` expansions; more than {MAX_EXPANSIONS_PER_WORD} are not analysed"
        ));
    }
    let pieces =
        brush_parser::word::parse_heredoc(body, opts).map_err(|e| format!("here-document: {e}"))?;
    let mut state = PieceState {
        value: String::new(),
        dynamic: false,
        flags: WordFlags::default(),
        nested: Vec::new(),
    };
    // Inside a here-document, quotes are literal and only `$`, `` ` `` and `\` act,
    // the same pieces as in double quotes.
    state.pieces(body, &pieces, true, opts)?;
    let flags = state.flags;
    let value = if state.dynamic || flags.has_expansion() {
        None
    } else {
        Some(state.value)
    };
    Ok(WordAnalysis {
        word: Word {
            raw: body.to_owned(),
            value,
            flags,
        },
        nested_sources: state.nested,
    })
}

struct PieceState {
    value: String,
    /// The value is not static for a reason not captured by a flag.
    dynamic: bool,
    flags: WordFlags,
    nested: Vec<String>,
}

impl PieceState {
    fn pieces(
        &mut self,
        raw: &str,
        pieces: &[WordPieceWithSource],
        in_double_quotes: bool,
        opts: &ParserOptions,
    ) -> Result<(), String> {
        for piece in pieces {
            let source = raw.get(piece.start_index..piece.end_index).unwrap_or("");
            match &piece.piece {
                WordPiece::Text(text) => {
                    if !in_double_quotes {
                        self.unquoted_text(text);
                    }
                    self.value.push_str(text);
                }
                WordPiece::SingleQuotedText(text) => {
                    self.flags.quoted = true;
                    self.value.push_str(text);
                }
                WordPiece::AnsiCQuotedText(_) => {
                    // Escapes like \x72 decode at run time: never a static value.
                    self.flags.ansi_c = true;
                    self.flags.quoted = true;
                }
                WordPiece::DoubleQuotedSequence(inner) => {
                    self.flags.quoted = true;
                    self.pieces(raw, inner, true, opts)?;
                }
                WordPiece::GettextDoubleQuotedSequence(inner) => {
                    self.flags.quoted = true;
                    self.flags.locale_string = true;
                    self.pieces(raw, inner, true, opts)?;
                }
                WordPiece::TildeExpansion(_) => self.flags.tilde = true,
                WordPiece::ParameterExpansion(_) => {
                    self.flags.parameter_expansion = true;
                    // `${x:-$(cmd)}`, `${x/$(a)/b}`: the operator text can hold
                    // substitutions; parse it as a word to find them.
                    if let Some(inner) = source.strip_prefix("${").and_then(|s| s.strip_suffix('}'))
                    {
                        self.inner_text(inner, opts)?;
                    }
                }
                WordPiece::CommandSubstitution(text) => {
                    self.flags.command_substitution = true;
                    self.nested.push(text.clone());
                }
                WordPiece::BackquotedCommandSubstitution(text) => {
                    self.flags.backticks = true;
                    self.nested.push(unescape_backquoted(text));
                }
                WordPiece::EscapeSequence(escape) => {
                    self.flags.quoted = true;
                    let escaped = escape.strip_prefix('\\').unwrap_or(escape);
                    if escaped == "\n" {
                        // Line continuation: removed entirely.
                    } else if in_double_quotes && !matches!(escaped, "$" | "`" | "\"" | "\\") {
                        self.value.push_str(escape);
                    } else {
                        self.value.push_str(escaped);
                    }
                }
                WordPiece::ArithmeticExpression(expr) => {
                    self.flags.arithmetic_expansion = true;
                    self.inner_text(&expr.value, opts)?;
                }
            }
        }
        Ok(())
    }

    /// Text outside any quotes: globs and tildes act here.
    fn unquoted_text(&mut self, text: &str) {
        let bytes = text.as_bytes();
        for (i, &b) in bytes.iter().enumerate() {
            match b {
                b'*' | b'?' => self.flags.glob = true,
                b'[' if bytes[i + 1..].contains(&b']') => self.flags.glob = true,
                b'(' if i > 0 && matches!(bytes[i - 1], b'@' | b'!' | b'+') => {
                    self.flags.glob = true
                }
                // `a=~/x` and `PATH=x:~/y`: bash expands these tildes too.
                b'~' if i == 0 || matches!(bytes[i - 1], b'=' | b':') => self.flags.tilde = true,
                _ => {}
            }
        }
    }

    /// Text inside `${…}` or `$((…))`: only substitutions inside it matter.
    fn inner_text(&mut self, inner: &str, opts: &ParserOptions) -> Result<(), String> {
        if !inner.contains(['$', '`', '(']) {
            return Ok(());
        }
        let pieces = brush_parser::word::parse(inner, opts)
            .map_err(|e| format!("expansion {inner:?}: {e}"))?;
        let mut sub = PieceState {
            value: String::new(),
            dynamic: false,
            flags: WordFlags::default(),
            nested: Vec::new(),
        };
        sub.pieces(inner, &pieces, false, opts)?;
        self.flags.command_substitution |= sub.flags.command_substitution;
        self.flags.backticks |= sub.flags.backticks;
        self.flags.parameter_expansion |= sub.flags.parameter_expansion;
        self.flags.arithmetic_expansion |= sub.flags.arithmetic_expansion;
        self.flags.ansi_c |= sub.flags.ansi_c;
        self.nested.append(&mut sub.nested);
        self.dynamic = true;
        Ok(())
    }
}

/// Inside backticks, `\$`, `` \` `` and `\\` lose their backslash before the
/// text is run as a command.
fn unescape_backquoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\'
            && let Some(&next) = chars.peek()
            && matches!(next, '$' | '`' | '\\')
        {
            out.push(next);
            chars.next();
            continue;
        }
        out.push(c);
    }
    out
}
