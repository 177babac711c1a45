//! BEYOND-6 as a property: any secret, in any encoding the door claims,
//! embedded anywhere in a URL (path, query key or value, fragment, a host
//! label, and so the Host header) or a JSON body (key or value), with any
//! text around it, is refused by the real fetcher before anything is
//! resolved or dialled.
#![allow(clippy::disallowed_methods, clippy::expect_used, clippy::unwrap_used)]

use base64::Engine as _;
use ploy_egress::{Credential, FetchOutcome, SecretDoor};
use ploy_testkit::net::*;
use proptest::prelude::*;
use tokio_util::sync::CancellationToken;

#[derive(Debug, Clone, Copy)]
enum Encoding {
    Plain,
    PercentEveryByte {
        upper: bool,
    },
    PercentComponent,
    PercentTwice,
    Base64 {
        offset: usize,
        url_safe: bool,
    },
    Hex {
        upper: bool,
    },
    UpperCase,
    LowerCase,
    Dotted {
        every: usize,
    },
    Slashed {
        every: usize,
    },
    /// JSON `\uXXXX` for every character (bodies only).
    JsonUnicode,
}

#[derive(Debug, Clone, Copy)]
enum Place {
    Path,
    QueryValue,
    QueryKey,
    Fragment,
    HostLabel,
    JsonValue,
    JsonKey,
}

fn percent_every(text: &str, upper: bool) -> String {
    text.bytes()
        .map(|b| {
            if upper {
                format!("%{b:02X}")
            } else {
                format!("%{b:02x}")
            }
        })
        .collect()
}

fn encode(secret: &str, encoding: Encoding) -> String {
    match encoding {
        Encoding::Plain => secret.to_owned(),
        Encoding::PercentEveryByte { upper } => percent_every(secret, upper),
        Encoding::PercentComponent => {
            url::form_urlencoded::byte_serialize(secret.as_bytes()).collect()
        }
        Encoding::PercentTwice => percent_every(&percent_every(secret, true), false),
        Encoding::Base64 { offset, url_safe } => {
            // Inside a longer blob, at any alignment (`user:secret`).
            let mut bytes = b"xyz"[..offset].to_vec();
            bytes.extend_from_slice(secret.as_bytes());
            if url_safe {
                base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
            } else {
                base64::engine::general_purpose::STANDARD.encode(bytes)
            }
        }
        Encoding::Hex { upper } => secret
            .bytes()
            .map(|b| {
                if upper {
                    format!("{b:02X}")
                } else {
                    format!("{b:02x}")
                }
            })
            .collect(),
        Encoding::UpperCase => secret.to_uppercase(),
        Encoding::LowerCase => secret.to_lowercase(),
        Encoding::Dotted { every } => split_join(secret, every, "."),
        Encoding::Slashed { every } => split_join(secret, every, "/"),
        Encoding::JsonUnicode => secret
            .chars()
            .map(|c| format!("\\u{:04x}", c as u32))
            .collect(),
    }
}

fn split_join(text: &str, every: usize, separator: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    chars
        .chunks(every)
        .map(|chunk| chunk.iter().collect::<String>())
        .collect::<Vec<_>>()
        .join(separator)
}

fn encoding() -> impl Strategy<Value = Encoding> {
    prop_oneof![
        Just(Encoding::Plain),
        any::<bool>().prop_map(|upper| Encoding::PercentEveryByte { upper }),
        Just(Encoding::PercentComponent),
        Just(Encoding::PercentTwice),
        (0usize..3, any::<bool>())
            .prop_map(|(offset, url_safe)| Encoding::Base64 { offset, url_safe }),
        any::<bool>().prop_map(|upper| Encoding::Hex { upper }),
        Just(Encoding::UpperCase),
        Just(Encoding::LowerCase),
        (2usize..6).prop_map(|every| Encoding::Dotted { every }),
        (2usize..6).prop_map(|every| Encoding::Slashed { every }),
        Just(Encoding::JsonUnicode),
    ]
}

fn place() -> impl Strategy<Value = Place> {
    prop_oneof![
        Just(Place::Path),
        Just(Place::QueryValue),
        Just(Place::QueryKey),
        Just(Place::Fragment),
        Just(Place::HostLabel),
        Just(Place::JsonValue),
        Just(Place::JsonKey),
    ]
}

/// A request to make: a GET URL, or a POST URL with a JSON body.
enum Request {
    Get(String),
    Post(String, String),
}

fn build(carried: &str, place: Place, before: &str, after: &str) -> Request {
    let around = format!("{before}{carried}{after}");
    let base = "http://api.example.com";
    match place {
        Place::Path => Request::Get(format!("{base}/docs/{around}/page")),
        Place::QueryValue => Request::Get(format!("{base}/search?q={around}&lang=en")),
        Place::QueryKey => Request::Get(format!("{base}/search?{around}=1")),
        Place::Fragment => Request::Get(format!("{base}/page#{around}")),
        Place::HostLabel => Request::Get(format!("http://{around}.api.example.com/")),
        Place::JsonValue => Request::Post(
            format!("{base}/search"),
            format!(r#"{{"query":"{around}","max_results":5}}"#),
        ),
        Place::JsonKey => Request::Post(
            format!("{base}/search"),
            format!(r#"{{"query":"rust","{around}":true}}"#),
        ),
    }
}

/// JSON `\u` escapes only make sense inside a JSON string.
fn applies(encoding: Encoding, place: Place) -> bool {
    !matches!(encoding, Encoding::JsonUnicode) || matches!(place, Place::JsonValue | Place::JsonKey)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    // proves: BEYOND-6
    #[test]
    fn any_secret_in_any_supported_encoding_anywhere_is_refused(
        secret in "[A-Za-z0-9]{5,12}[-_.~!]?[A-Za-z0-9]{7,20}",
        encoding in encoding(),
        place in place(),
        before in "[a-z0-9]{0,6}",
        after in "[a-z0-9]{0,6}",
    ) {
        prop_assume!(applies(encoding, place));
        let carried = encode(&secret, encoding);
        let request = build(&carried, place, &before, &after);
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let dial = MapDial::default();
        let resolver = ScriptedResolver::default();
        resolver.fixed("api.example.com", &[PUB_A]);
        let fetcher = fetcher(&resolver, &dial, quick_config())
            .with_secrets(SecretDoor::new([secret.as_str()]));
        let cancel = CancellationToken::new();
        let outcome = runtime.block_on(async {
            match &request {
                Request::Get(url) => fetcher.fetch(url, &cancel).await,
                Request::Post(url, body) => {
                    let key = Credential::bearer_for("tvly-unrelated-key-00000000", url).unwrap();
                    fetcher.post_json(url, &key, body.clone().into_bytes(), &cancel).await
                }
            }
        }).unwrap();
        let rule = match &outcome {
            FetchOutcome::Refused(refusal) => Some(refusal.rule),
            _ => None,
        };
        prop_assert_eq!(rule, Some("BEYOND-6"), "{:?} at {:?}: {:?}", encoding, place, outcome);
        prop_assert_eq!(resolver.queries(), 0);
        prop_assert!(dial.dialled().is_empty());
    }
}
