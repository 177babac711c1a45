//! The panel's page (ADMIN-8, ADMIN-12): one HTML document with a small
//! script (no framework), its only script and style allowed by a nonce made
//! for each response. No secret is in it: the token is typed by the user,
//! kept in `sessionStorage` and sent as a bearer header; there are no
//! cookies at all.
//!
//! The script builds every control itself (`createElement`/`textContent`,
//! never HTML strings: the CSP also requires Trusted Types, so an HTML sink
//! would throw) and listens through two delegated listeners on its root.
//! Registration is idempotent: a second load aborts the first load's
//! listeners (one `AbortController`, kept on `window`) and rebuilds the one
//! set of controls, so loading it twice adds nothing twice.

/// The Content-Security-Policy of every panel answer that is not the page
/// (JSON and denials): nothing may load, frame or submit.
pub const API_CSP: &str =
    "default-src 'none'; frame-ancestors 'none'; form-action 'none'; base-uri 'none'; sandbox";

/// The page's Content-Security-Policy for `nonce`.
pub fn page_csp(nonce: &str) -> String {
    format!(
        "default-src 'none'; script-src 'nonce-{nonce}'; style-src 'nonce-{nonce}'; \
         connect-src 'self'; img-src 'none'; frame-ancestors 'none'; form-action 'none'; \
         base-uri 'none'; require-trusted-types-for 'script'; trusted-types 'none'"
    )
}

/// The page with `nonce` on its script and style.
pub fn page_html(nonce: &str) -> String {
    PAGE.replace("{NONCE}", nonce)
}

/// The script alone (what the page embeds), for tests that load it twice.
pub fn script() -> &'static str {
    SCRIPT.trim()
}

const PAGE: &str = concat!(
    "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">",
    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">",
    "<meta name=\"referrer\" content=\"no-referrer\">",
    "<title>ploy · keys</title>\n<style nonce=\"{NONCE}\">",
    include_str!("page.css"),
    "</style></head>\n<body><main id=\"ploy-keys\" aria-live=\"polite\"></main>",
    "<noscript>This page needs JavaScript. The same actions are available as <code>ploy keys</code>.</noscript>\n",
    "<script nonce=\"{NONCE}\">",
    include_str!("page.js"),
    "</script></body></html>\n"
);

const SCRIPT: &str = include_str!("page.js");

#[cfg(test)]
mod tests {
    use super::*;

    // proves: ADMIN-8, ADMIN-12
    #[test]
    fn page_has_no_inline_handlers_and_nonced_elements_only() {
        let html = page_html("abc123");
        assert_eq!(html.matches("nonce=\"abc123\"").count(), 2);
        assert_eq!(html.matches("<script").count(), 1);
        assert_eq!(html.matches("<style").count(), 1);
        let lower = html.to_ascii_lowercase();
        for forbidden in [
            " onclick",
            " onload",
            " onsubmit",
            " onerror",
            "javascript:",
            "innerhtml",
            "outerhtml",
            "insertadjacenthtml",
            "document.write",
            "eval(",
            "new function",
            "settimeout(\"",
            "cookie",
            "localstorage",
            " style=\"",
        ] {
            assert!(!lower.contains(forbidden), "{forbidden}");
        }
        assert!(html.contains("sessionStorage"));
        assert!(script().contains("AbortController"));
        let csp = page_csp("abc123");
        for part in [
            "default-src 'none'",
            "script-src 'nonce-abc123'",
            "connect-src 'self'",
            "frame-ancestors 'none'",
            "form-action 'none'",
            "base-uri 'none'",
        ] {
            assert!(csp.contains(part), "{part}");
        }
        assert!(!csp.contains("unsafe"));
    }
}
