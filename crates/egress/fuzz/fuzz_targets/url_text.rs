//! Fuzz the URL text check: it never panics, and a refused URL never
//! becomes allowed by adding noise after its authority.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ploy_egress::check_url_text;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let (input, noise) = text.split_at(text.floor_char_boundary(text.len() / 2));
    let verdict = check_url_text(input);
    if verdict.is_ok() {
        return;
    }
    let Ok(parsed) = url::Url::parse(input) else { return };
    let Some(host) = parsed.host_str() else { return };
    // Noise made only of path characters, after a slash.
    let noise: String = noise
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '~' | '-'))
        .collect();
    let noisy = format!("{input}/{noise}");
    let Ok(noisy_parsed) = url::Url::parse(&noisy) else { return };
    let same_authority = noisy_parsed.host_str() == Some(host)
        && noisy_parsed.scheme() == parsed.scheme()
        && noisy_parsed.username() == parsed.username()
        && noisy_parsed.password() == parsed.password()
        && noisy_parsed.port() == parsed.port();
    if same_authority {
        assert!(
            check_url_text(&noisy).is_err(),
            "refused {input:?} became allowed as {noisy:?}"
        );
    }
});
