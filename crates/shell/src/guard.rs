//! The parser's guard: bounds checked before brush-parser sees a line, a
//! panic net around it, and a watchdog with a deadline and a cap on
//! unfinished workers for the shapes it is slow on. Every answer the guard
//! gives instead of a parse is a parse error, which no caller treats as safe.
//!
//! Kept apart from [`crate::walk`] (which only turns a parse into the
//! summary) so the limits that make the parser safe to call on hostile
//! input live in one place.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::plain::walk_plain;
use crate::walk::walk_line;
use crate::{CommandLine, MAX_EXPANSION_NESTING, MAX_LINE_BYTES, MAX_NESTING, MAX_PAREN_NESTING};

/// Analyses one line with every guard on (see the module docs); `fast`
/// lets a plain line skip the full parser ([`crate::plain`]).
pub(crate) fn analyze_line(line: &str, fast: bool) -> CommandLine {
    if !needs_watchdog(line) {
        return analyze_caught(line, fast);
    }
    // brush-parser is super-linear on some shapes of `${`, `{`, `(` and `<<`
    // (fuzzing found 120 bytes taking 4 s). Lines with those characters are
    // analysed on a worker thread with a deadline; past it the answer is a
    // parse error (fail closed) and the worker is left to finish on its own.
    //
    // A worker that misses the deadline keeps a core busy until it ends (some
    // tokenizer loops never do). In a long-lived process, hostile lines could
    // pile those up, so at most MAX_UNFINISHED_WORKERS may be outstanding; past
    // that every watched line is refused at once, unparsed (fail closed).
    if WORKERS_IN_FLIGHT.fetch_add(1, Ordering::SeqCst) >= MAX_UNFINISHED_WORKERS {
        WORKERS_IN_FLIGHT.fetch_sub(1, Ordering::SeqCst);
        return failed(
            line,
            format!(
                "{MAX_UNFINISHED_WORKERS} earlier lines are still being parsed past their deadline; \
                 this line is not analysed"
            ),
        );
    }
    let (sender, receiver) = std::sync::mpsc::channel();
    let owned = line.to_owned();
    let spawned = std::thread::Builder::new()
        .name("ploy-shell-analyze".to_owned())
        .stack_size(16 * 1024 * 1024)
        .spawn(move || {
            let summary = analyze_caught(&owned, fast);
            WORKERS_IN_FLIGHT.fetch_sub(1, Ordering::SeqCst);
            let _ = sender.send(summary);
        });
    let Ok(worker) = spawned else {
        WORKERS_IN_FLIGHT.fetch_sub(1, Ordering::SeqCst);
        return failed(
            line,
            "the shell parser could not be started for this line".to_owned(),
        );
    };
    match receiver.recv_timeout(ANALYSIS_DEADLINE) {
        Ok(summary) => {
            // The worker has sent its answer and is exiting: reap it.
            let _ = worker.join();
            summary
        }
        Err(_) => failed(
            line,
            format!(
                "the shell parser took longer than {} ms on this line; not analysed",
                ANALYSIS_DEADLINE.as_millis()
            ),
        ),
    }
}

/// Analysis workers started and not yet finished (including those that
/// missed their deadline and still run).
static WORKERS_IN_FLIGHT: AtomicUsize = AtomicUsize::new(0);

/// How many unfinished workers may exist before watched lines are refused
/// without parsing.
const MAX_UNFINISHED_WORKERS: usize = 4;

/// How long one line may take to analyse before it counts as unparseable.
const ANALYSIS_DEADLINE: std::time::Duration = std::time::Duration::from_millis(1000);

/// Lines with none of the characters brush-parser is slow on run inline
/// (no thread to start): ordinary command lines.
fn needs_watchdog(line: &str) -> bool {
    line.contains("${")
        || line.contains("<<")
        || line.bytes().filter(|b| *b == b'{').count() > 2
        || line.bytes().filter(|b| *b == b'(').count() > 6
}

fn failed(line: &str, reason: String) -> CommandLine {
    let mut summary = CommandLine::default();
    summary.constructs.newline = line.contains(['\n', '\r']);
    summary.constructs.parse_error = true;
    summary.parse_error = Some(reason);
    summary
}

fn analyze_caught(line: &str, fast: bool) -> CommandLine {
    // brush-parser is third-party code with unwraps inside (fuzzing found one
    // in its brace parser): any panic while parsing the line or its words
    // reads as "not parsed", never takes the caller down.
    match catch_unwind(AssertUnwindSafe(|| analyze_line_unguarded(line, fast))) {
        Ok(summary) => summary,
        Err(_) => failed(line, "the shell parser failed on this line".to_owned()),
    }
}

/// The line's shape is refused before parsing when it is too long, holds a
/// control character, or nests or delimits in the ways brush-parser is
/// slow or unsafe on; otherwise a plain line is summarised by the fast
/// path ([`crate::plain`], equal to the full parse by test) and any other
/// is parsed and walked.
fn analyze_line_unguarded(line: &str, fast: bool) -> CommandLine {
    match shape_problem(line) {
        Some(reason) => failed(line, reason),
        None => match fast.then(|| walk_plain(line)).flatten() {
            Some(summary) => summary,
            None => walk_line(line),
        },
    }
}

fn shape_problem(line: &str) -> Option<String> {
    if line.len() > MAX_LINE_BYTES {
        return Some(format!(
            "the line is {} bytes; lines over {MAX_LINE_BYTES} bytes are not analysed",
            line.len()
        ));
    }
    // Control characters (other than tab and line breaks) have no business in
    // a command line, and brush's tokenizer takes seconds on some of them
    // (found by fuzzing: a form feed after `<<`). Not analysed: fail closed.
    if let Some(c) = line
        .chars()
        .find(|c| c.is_control() && !matches!(c, '\t' | '\n' | '\r'))
    {
        return Some(format!(
            "the line contains the control character U+{:04X}, which is not analysed",
            u32::from(c)
        ));
    }
    risky_heredoc_delimiter(line).or_else(|| too_deep(line))
}

/// brush's tokenizer never returns on a here-document delimiter holding a
/// command substitution with quotes (found by fuzzing: `cat <<$('')`), nor on
/// an empty one followed by a blank (`cat <<'' `). Bash
/// takes such a delimiter literally; no real command needs one, so any `$(` or
/// backquote in a delimiter is refused before tokenizing. Quote-blind: it can
/// only refuse more.
fn risky_heredoc_delimiter(line: &str) -> Option<String> {
    let bytes = line.as_bytes();
    let mut at = 0;
    while let Some(found) = line[at..].find("<<") {
        let mut i = at + found + 2;
        at = i;
        if bytes.get(i) == Some(&b'<') {
            // `<<<`: a here-string.
            at = i + 1;
            continue;
        }
        if bytes.get(i) == Some(&b'-') {
            i += 1;
        }
        while matches!(bytes.get(i), Some(b' ' | b'\t')) {
            i += 1;
        }
        let mut quote: Option<u8> = None;
        let start = i;
        while let Some(&b) = bytes.get(i) {
            match quote {
                Some(q) if b == q => quote = None,
                Some(_) => {}
                None if b == b'\'' || b == b'"' => quote = Some(b),
                None if b.is_ascii_whitespace()
                    || matches!(b, b';' | b'&' | b'|' | b'<' | b'>') =>
                {
                    break;
                }
                None => {}
            }
            i += 1;
        }
        let delimiter = &line[start..i];
        // An empty delimiter (`<<''`) also makes the tokenizer spin.
        if delimiter
            .chars()
            .all(|c| matches!(c, '\'' | '"' | '\\' | '$'))
        {
            return Some(format!(
                "the here-document delimiter {delimiter:?} is empty, which is not analysed"
            ));
        }
        if delimiter.contains("$(") || delimiter.contains('`') {
            return Some(format!(
                "the here-document delimiter {delimiter:?} holds a command substitution, which is not analysed"
            ));
        }
    }
    None
}

/// A cheap, quote-blind upper bound on bracket nesting: it can only
/// over-count, so deep lines are refused before the recursive parser sees them.
/// Parentheses have their own, lower bound: brush's parser backtracks
/// exponentially on unclosed `(` (found by fuzzing: 30 took 40 s).
fn too_deep(line: &str) -> Option<String> {
    let mut depth: usize = 0;
    let mut max = 0;
    let mut parens: usize = 0;
    let mut max_parens = 0;
    let mut expansions: usize = 0;
    let mut max_expansions = 0;
    let bytes = line.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'{' && i > 0 && bytes[i - 1] == b'$' {
            expansions += 1;
            max_expansions = max_expansions.max(expansions);
        } else if b == b'}' {
            expansions = expansions.saturating_sub(1);
        }
        match b {
            b'(' | b'{' | b'[' | b'`' => {
                depth += 1;
                max = max.max(depth);
                if b == b'(' {
                    parens += 1;
                    max_parens = max_parens.max(parens);
                }
            }
            b')' | b'}' | b']' => {
                depth = depth.saturating_sub(1);
                if b == b')' {
                    parens = parens.saturating_sub(1);
                }
            }
            _ => {}
        }
    }
    if max_expansions > MAX_EXPANSION_NESTING {
        Some(format!(
            "`${{…}}` expansions nest {max_expansions} deep; more than {MAX_EXPANSION_NESTING} is not analysed"
        ))
    } else if max_parens > MAX_PAREN_NESTING {
        Some(format!(
            "parentheses nest {max_parens} deep; more than {MAX_PAREN_NESTING} is not analysed"
        ))
    } else if max > MAX_NESTING {
        Some(format!(
            "brackets nest {max} deep; more than {MAX_NESTING} is not analysed"
        ))
    } else {
        None
    }
}
