//! Fuzz the redactor (REDACT-1), its detection API (BEYOND-6) and the cap (CAP-1): secrets and text come
//! from the fuzzer; no secret may survive, the stream must equal the one-shot
//! result for the fuzzer's chunking, and caps must stay on code points.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ploy_secrets::Redactor;
use ploy_secrets::cap::truncate_on_char_boundary;

fuzz_target!(|data: &[u8]| {
    // Layout: [secret count][chunk size][secrets separated by 0xFF][text].
    let [count, chunk, rest @ ..] = data else { return };
    let mut parts = rest.splitn(usize::from(*count % 4) + 2, |&b| b == 0xFF);
    let mut secrets = Vec::new();
    for _ in 0..(count % 4) {
        let Some(raw) = parts.next() else { return };
        // Lower-case letters only, so no secret can be formed anew by the
        // upper-case `[REDACTED]` marker and its neighbours.
        secrets.push(raw.iter().map(|b| char::from(b'a' + b % 26)).collect::<String>());
    }
    let text: Vec<u8> = parts.flatten().copied().collect();
    let (redactor, rejected) = Redactor::new(&secrets);
    let one_shot = redactor.redact_bytes(&text).into_owned();
    for secret in &secrets {
        if secret.len() >= 8 {
            assert!(
                !one_shot.windows(secret.len()).any(|w| w == secret.as_bytes()),
                "secret survived"
            );
        }
    }
    assert_eq!(rejected.len(), secrets.iter().filter(|s| s.len() < 8).count());
    // The detection API (BEYOND-6) sees exactly what the redactor removes,
    // through every decoded view of the fuzzer's bytes.
    assert_eq!(
        redactor.find_secret(&text).is_some(),
        one_shot.as_slice() != text.as_slice(),
        "find_secret and redact disagree"
    );

    let mut streamed = Vec::new();
    let mut stream = redactor.stream();
    for piece in text.chunks(usize::from(*chunk).max(1)) {
        stream.push(piece, &mut streamed);
    }
    stream.finish(&mut streamed);
    assert_eq!(streamed, one_shot, "stream differs from one-shot");

    let lossy = String::from_utf8_lossy(&text);
    let kept = truncate_on_char_boundary(&lossy, usize::from(*chunk));
    assert!(kept.len() <= usize::from(*chunk) && lossy.is_char_boundary(kept.len()));
});
