//! HTML → readable text with a real HTML parser (html5ever through
//! `scraper`): the page's main content, not its navigation, scripts or
//! styles; control and bidi-override characters removed so the text is plain
//! data.

use scraper::{ElementRef, Html, Node, Selector};

/// Text taken from one page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Extracted {
    /// The page title (`<title>`, else the first `<h1>`), cleaned.
    pub title: String,
    /// The readable main text, cleaned.
    pub text: String,
}

/// Elements whose content is never page text.
const SKIPPED: &[&str] = &[
    "script", "style", "noscript", "template", "svg", "math", "nav", "header", "footer", "aside",
    "form", "button", "select", "textarea", "iframe", "object", "embed", "canvas", "head",
];

/// Elements that end a line of text.
const BLOCKS: &[&str] = &[
    "p",
    "div",
    "section",
    "article",
    "main",
    "br",
    "li",
    "ul",
    "ol",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "tr",
    "table",
    "blockquote",
    "pre",
    "dd",
    "dt",
    "dl",
    "figcaption",
    "hr",
    "body",
];

/// A main-content region shorter than this is not trusted to be the page's
/// text (some sites wrap only a teaser in `<main>`); the body is used instead.
const MIN_MAIN_CHARS: usize = 200;

/// Nesting deeper than this is not given to the HTML parser: html5ever's
/// scope checks walk the stack of open elements, so a hostile page nesting
/// elements a hundred thousand deep would cost quadratic time. Such a page
/// gets the plain tag stripper instead.
pub const MAX_PARSED_DEPTH: usize = 512;

/// HTML beyond this many bytes is not parsed: a run keeps at most 24 KiB of
/// text per page and 50 KiB in all (CAP-1), so parsing the rest of a large
/// page would only cost time.
pub const MAX_PARSED_HTML_BYTES: usize = 512 * 1024;

/// Extracts the title and main text of an HTML document (its first
/// [`MAX_PARSED_HTML_BYTES`]).
pub fn html_to_text(html: &str) -> Extracted {
    let html = ploy_secrets::cap::truncate_on_char_boundary(html, MAX_PARSED_HTML_BYTES);
    if max_nesting(html) > MAX_PARSED_DEPTH {
        return Extracted {
            title: String::new(),
            text: strip_tags(html),
        };
    }
    let document = Html::parse_document(html);
    let title = first_text(&document, "title")
        .filter(|title| !title.is_empty())
        .or_else(|| first_text(&document, "h1"))
        .unwrap_or_default();

    let main = ["main", "article", "[role=main]"]
        .iter()
        .filter_map(|css| Selector::parse(css).ok())
        .find_map(|selector| {
            let text = element_text(document.select(&selector).next()?);
            (text.chars().count() >= MIN_MAIN_CHARS).then_some(text)
        });
    let text = main.unwrap_or_else(|| {
        Selector::parse("body")
            .ok()
            .and_then(|body| document.select(&body).next())
            .map_or_else(|| element_text(document.root_element()), element_text)
    });
    Extracted { title, text }
}

/// Text of a plain-text (or JSON/XML) page: cleaned, nothing dropped.
pub fn plain_to_text(text: &str) -> String {
    clean(text)
}

/// The text of an HTML fragment (a search snippet with `<b>` marks).
pub fn fragment_to_text(html: &str) -> String {
    let fragment = Html::parse_fragment(html);
    element_text(fragment.root_element())
}

fn first_text(document: &Html, css: &str) -> Option<String> {
    let selector = Selector::parse(css).ok()?;
    let element = document.select(&selector).next()?;
    Some(clean(&element.text().collect::<String>()))
}

/// Walks the element's subtree iteratively (a hostile page may nest
/// elements a million deep; recursion would overflow the stack).
fn element_text(root: ElementRef<'_>) -> String {
    let mut out = String::new();
    let mut skip_depth = 0usize;
    for edge in root.traverse() {
        match edge {
            ego_tree_edge::Open(node) => match node.value() {
                Node::Element(element) => {
                    let name = element.name();
                    if SKIPPED.contains(&name) || skip_depth > 0 {
                        skip_depth += 1;
                    } else if BLOCKS.contains(&name) {
                        out.push('\n');
                    }
                }
                Node::Text(text) if skip_depth == 0 => out.push_str(&text.text),
                _ => {}
            },
            ego_tree_edge::Close(node) => {
                if let Node::Element(element) = node.value() {
                    if skip_depth > 0 {
                        skip_depth -= 1;
                    } else if BLOCKS.contains(&element.name()) {
                        out.push('\n');
                    }
                }
            }
        }
    }
    clean(&out)
}

/// The traversal edges of scraper's tree (ego_tree).
mod ego_tree_edge {
    pub use ego_tree::iter::Edge::{Close, Open};
}

/// Removes control characters (except line breaks and tabs, which become
/// spaces or line breaks), bidi overrides and zero-width characters that can
/// hide text; collapses spaces and keeps at most one blank line.
pub fn clean(text: &str) -> String {
    let mut out = String::with_capacity(text.len().min(1 << 20));
    let mut pending_space = false;
    let mut newlines = 0usize;
    for c in text.chars() {
        if c == '\n' || c == '\r' || c == '\u{2028}' || c == '\u{2029}' {
            if !out.is_empty() {
                newlines += 1;
            }
            pending_space = false;
            continue;
        }
        if c.is_whitespace() || c == '\t' {
            pending_space = true;
            continue;
        }
        if is_hidden(c) {
            continue;
        }
        if newlines > 0 {
            out.push_str(if newlines > 1 { "\n\n" } else { "\n" });
            newlines = 0;
        } else if pending_space && !out.is_empty() {
            out.push(' ');
        }
        pending_space = false;
        out.push(c);
    }
    out
}

/// Elements that never hold content, or that the parser closes by itself
/// when a sibling opens: they do not deepen the tree.
const NOT_NESTING: &[&str] = &[
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source",
    "track", "wbr", "p", "li", "dt", "dd", "option", "tr", "td", "th", "tbody", "thead", "tfoot",
    "!doctype",
];

/// An over-estimate of the element nesting depth, from a linear scan of the
/// tags (no parsing).
fn max_nesting(html: &str) -> usize {
    let bytes = html.as_bytes();
    let (mut depth, mut deepest) = (0usize, 0usize);
    let mut i = 0;
    while let Some(offset) = bytes[i..].iter().position(|&b| b == b'<') {
        i += offset + 1;
        match bytes.get(i) {
            Some(b'/') => depth = depth.saturating_sub(1),
            Some(b) if b.is_ascii_alphabetic() => {
                let end = bytes[i..]
                    .iter()
                    .position(|b| !b.is_ascii_alphanumeric())
                    .map_or(bytes.len(), |n| i + n);
                let name = html[i..end].to_ascii_lowercase();
                if !NOT_NESTING.contains(&name.as_str()) {
                    depth += 1;
                    deepest = deepest.max(depth);
                }
            }
            _ => {}
        }
    }
    deepest
}

/// The fallback for pages the parser is not given: tags removed, script
/// and style content dropped, the common entities decoded, then cleaned.
fn strip_tags(html: &str) -> String {
    let mut out = String::with_capacity(html.len() / 2);
    let lower = html.to_ascii_lowercase();
    let mut rest = 0;
    while let Some(offset) = html[rest..].find('<') {
        let start = rest + offset;
        out.push_str(&html[rest..start]);
        let Some(close) = html[start..].find('>') else {
            rest = html.len();
            break;
        };
        let tag_end = start + close + 1;
        let tag = &lower[start..tag_end];
        rest = tag_end;
        for hidden in ["script", "style", "noscript", "template"] {
            if tag.starts_with(&format!("<{hidden}")) {
                let end_tag = format!("</{hidden}");
                rest = lower[tag_end..]
                    .find(&end_tag)
                    .map_or(html.len(), |n| tag_end + n);
                break;
            }
        }
        out.push(' ');
    }
    if rest < html.len() {
        out.push_str(&html[rest..]);
    }
    let decoded = out
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&nbsp;", " ")
        .replace("&amp;", "&");
    clean(&decoded)
}

/// Removes hidden characters (controls other than line breaks and tabs,
/// bidi overrides, zero-width characters) and keeps the layout otherwise:
/// for the model's answer, which is derived from web text.
pub fn strip_hidden(text: &str) -> String {
    text.chars()
        .filter(|&c| c == '\n' || c == '\t' || !is_hidden(c))
        .collect()
}

/// Characters that are not visible text: controls, the shared list of
/// invisible and reordering characters (bidi embeddings and overrides,
/// zero-width characters, the BOM, tags: `ploy_text::is_invisible`), and
/// the replacement character.
fn is_hidden(c: char) -> bool {
    c.is_control() || ploy_text::is_invisible(c) || c == '\u{FFFD}'
}

#[cfg(test)]
mod tests {
    use super::*;

    // proves: PLUGIN-1 (navigation, scripts and styles are not page text)
    #[test]
    fn main_content_not_navigation() {
        let body = "Rust is a language. ".repeat(20);
        let html = format!(
            "<html><head><title>T &amp; U</title><script>steal()</script></head><body>\
             <nav>Home | About</nav><main><h1>Head</h1><p>{body}</p><style>p{{}}</style></main>\
             <footer>copyright</footer></body></html>"
        );
        let out = html_to_text(&html);
        assert_eq!(out.title, "T & U");
        assert!(out.text.contains("Rust is a language."));
        for gone in ["Home | About", "steal()", "copyright", "p{}"] {
            assert!(
                !out.text.contains(gone),
                "{gone} leaked into {:?}",
                out.text
            );
        }
    }

    // proves: PLUGIN-1 (control and bidi characters never reach the model)
    #[test]
    fn control_and_bidi_characters_are_removed() {
        let out = html_to_text(
            "<body><p>a\u{0000}b\u{001b}[31mc\u{202E}d\u{200B}e\u{0007}</p><p>next</p></body>",
        );
        assert_eq!(out.text, "ab[31mcde\n\nnext");
        assert!(!out.text.chars().any(|c| c != '\n' && is_hidden(c)));
    }

    // proves: FAIL-1 (a pathologically deep page neither overflows the
    // stack nor costs quadratic time)
    #[test]
    fn deep_nesting_is_fast_and_does_not_overflow() {
        let html = format!(
            "<script>x()</script>{}deep &amp; text{}",
            "<div><span>".repeat(40_000),
            "</span></div>".repeat(40_000)
        );
        let started = std::time::Instant::now();
        let out = html_to_text(&html);
        assert!(out.text.contains("deep & text"), "{:?}", &out.text);
        assert!(!out.text.contains("x()"));
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
        // Just under the limit still goes through the real parser.
        let html = format!("{}fine{}", "<div>".repeat(500), "</div>".repeat(500));
        assert_eq!(html_to_text(&html).text, "fine");
    }

    #[test]
    fn snippet_fragments_lose_their_markup() {
        assert_eq!(
            fragment_to_text("The <b>Rust</b> book &quot;x&quot;"),
            "The Rust book \"x\""
        );
    }
}
