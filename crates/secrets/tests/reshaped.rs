//! Outside findings secrets5 #4/#12 and proof5 #7: a known secret printed
//! in a reversible shape by ordinary tools must not reach the model. Each
//! output is what the named tool prints (built here in Rust).
#![allow(clippy::expect_used, clippy::unwrap_used)]

use ploy_secrets::{REDACTED, Redactor, SecretForm};

const SECRET: &str = "RootTok3nValue99887766";
const KEY: &str = "sk-live-abcdef0123456789XYZ";

fn redactor() -> Redactor {
    let (redactor, rejected) = Redactor::new([SECRET, KEY]);
    assert!(rejected.is_empty());
    redactor
}

/// The shape is found, named, and nothing of it is left after redaction.
fn assert_gone(text: &str, leak: &str, form: SecretForm) {
    let redactor = redactor();
    let found = redactor.find_secret(text.as_bytes());
    assert_eq!(found.map(|m| m.form), Some(form), "{text:?}");
    let out = redactor.redact(text).into_owned();
    assert!(out.contains(REDACTED), "{out}");
    assert!(!out.contains(leak), "{leak:?} survived in {out:?}");
    // Streamed in chunks, behind enough text that windows are cut, the
    // result is the same.
    let filler = "an ordinary log line, 42 items\n".repeat(400);
    let long = format!("{filler}{text}{filler}");
    let mut stream = redactor.stream();
    let mut streamed = Vec::new();
    for chunk in long.as_bytes().chunks(997) {
        stream.push(chunk, &mut streamed);
    }
    stream.finish(&mut streamed);
    assert_eq!(
        String::from_utf8(streamed).unwrap(),
        redactor.redact(&long),
        "{text:?}"
    );
}

fn decimal(value: &str, sep: &str) -> String {
    value
        .bytes()
        .map(|b| b.to_string())
        .collect::<Vec<_>>()
        .join(sep)
}

// proves: REDACT-1, BEYOND-6 (secrets5 #12: `od -An -tu1`, byte arrays,
// a comma list in a URL)
#[test]
fn decimal_byte_lists_are_redacted() {
    let config = format!("DB = \"{SECRET}\"\n");
    let od: String = config
        .as_bytes()
        .chunks(16)
        .map(|line| line.iter().map(|b| format!("{b:4}")).collect::<String>() + "\n")
        .collect();
    assert_gone(&od, " 84 111 107  51 110", SecretForm::Decimal);
    let list = decimal(KEY, ",");
    assert_gone(
        &format!("GET /dec?d={list} HTTP/1.1"),
        &list[10..40],
        SecretForm::Decimal,
    );
    assert_gone(
        &format!("String.fromCharCode({})", decimal(KEY, ", ")),
        "108, 105, 118",
        SecretForm::Decimal,
    );
}

// proves: REDACT-1 (proof5 #7, secrets5 #12: `grep -o . e`, `sed 's/./&\n/g'`)
#[test]
fn one_character_per_line_is_redacted() {
    let grep_o: String = format!("DB_TOKEN={SECRET}")
        .chars()
        .map(|c| format!("{c}\n"))
        .collect();
    assert_gone(&grep_o, "T\no\nk\n3\nn", SecretForm::Spread);
}

// proves: REDACT-1, BEYOND-6 (secrets5 #4/#12: full-width, NFD, zero-width)
#[test]
fn compatibility_forms_and_invisible_characters_are_redacted() {
    let full_width: String = KEY
        .chars()
        .map(|c| char::from_u32(c as u32 + 0xFEE0).unwrap())
        .collect();
    assert_gone(
        &format!("d={full_width}&x=1"),
        "ｌｉｖｅ－ａｂｃｄｅｆ",
        SecretForm::Folded,
    );
    let zero_width: String = KEY.chars().flat_map(|c| [c, '\u{200b}']).collect();
    assert_gone(
        &format!("[{zero_width}]"),
        "0\u{200b}1\u{200b}2",
        SecretForm::Folded,
    );

    let (redactor, _) = Redactor::new(["Pässwörd2024!xyzÆ"]);
    let nfd = "Pa\u{308}sswo\u{308}rd2024!xyzÆ";
    assert!(redactor.contains_secret(nfd));
    assert!(!redactor.redact(nfd).contains("sswo"));
}

// Ordinary text with numbers, lists and one-letter lines is left alone.
#[test]
fn ordinary_output_is_kept() {
    let redactor = redactor();
    for text in [
        "ports: 8080, 8081, 8082, 8083, 8084, 8085, 8086, 8087, 8088\n",
        " 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15\n",
        "a\nb\nc\nd\ne\nf\ng\nh\ni\n",
        "ｆｕｌｌ－ｗｉｄｔｈ ｔｅｘｔ ａｎｄ café\n",
    ] {
        assert_eq!(redactor.redact(text), text);
    }
}

/// `value` cut into lines of `width` characters (`fold -w WIDTH`).
fn fold(value: &str, width: usize) -> String {
    let chars: Vec<char> = value.chars().collect();
    chars
        .chunks(width)
        .map(|line| line.iter().collect::<String>() + "\n")
        .collect()
}

// proves: REDACT-1, BEYOND-6 (round6 #5: `fold -w2`/`-w3`, `grep -n -o .`,
// `grep -b -o .`, `cat -n` of one character per line, Python's
// `print(list(s))`, a JSON array of characters, Unicode tag characters,
// decimal bytes joined by `.`, `-`, `_`, `/`, zero-padded, octal)
#[test]
fn round6_reshapings_are_redacted() {
    let line = format!("TOKEN={KEY}");
    assert_gone(&fold(&line, 2), "ab\ncd\nef", SecretForm::Spread);
    assert_gone(&fold(&line, 3), "abc\ndef\n012", SecretForm::Spread);
    let grep_n: String = line.chars().map(|c| format!("1:{c}\n")).collect();
    assert_gone(&grep_n, "1:a\n1:b\n1:c", SecretForm::Spread);
    let grep_b: String = line
        .chars()
        .enumerate()
        .map(|(at, c)| format!("{at}:{c}\n"))
        .collect();
    assert_gone(&grep_b, ":a\n", SecretForm::Spread);
    let cat_n: String = line
        .chars()
        .enumerate()
        .map(|(at, c)| format!("{:6}\t{c}\n", at + 1))
        .collect();
    assert_gone(&cat_n, "\ta\n", SecretForm::Spread);
    let python = format!(
        "[{}]",
        KEY.chars()
            .map(|c| format!("'{c}'"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    assert_gone(&python, "'a', 'b', 'c'", SecretForm::Spread);
    let json = serde_json::to_string(&KEY.chars().map(String::from).collect::<Vec<_>>()).unwrap();
    assert_gone(&json, r#""a","b","c""#, SecretForm::Spread);
    let pretty =
        serde_json::to_string_pretty(&KEY.chars().map(String::from).collect::<Vec<_>>()).unwrap();
    assert_gone(&pretty, "\"a\",\n", SecretForm::Spread);
    let tags: String = KEY
        .chars()
        .map(|c| char::from_u32(0xE0000 + c as u32).unwrap())
        .collect();
    assert_gone(&format!("hello{tags}"), &tags[8..40], SecretForm::Folded);
    for sep in [".", "-", "_", "/"] {
        let list = decimal(KEY, sep);
        assert_gone(&format!("d={list}"), &list[12..40], SecretForm::Decimal);
    }
    let padded: String = KEY.bytes().map(|b| format!("{b:03}")).collect();
    assert_gone(&format!("d={padded}"), &padded[12..40], SecretForm::Decimal);
    let octal = KEY
        .bytes()
        .map(|b| format!("{b:o}"))
        .collect::<Vec<_>>()
        .join(",");
    assert_gone(&format!("d={octal}"), &octal[12..40], SecretForm::Decimal);
    // `od -b` with its offset column: 16 bytes a line.
    let od_b: String = format!("TOKEN={KEY}\n")
        .as_bytes()
        .chunks(16)
        .enumerate()
        .map(|(line, bytes)| {
            let octal: String = bytes.iter().map(|b| format!(" {b:03o}")).collect();
            format!("{:07o}{octal}\n", line * 16)
        })
        .collect();
    assert_gone(&od_b, " 141 142 143", SecretForm::Decimal);
}

// Ordinary lists, numbered lines, JSON and code are left alone.
#[test]
fn round6_ordinary_shapes_are_kept() {
    let redactor = redactor();
    for text in [
        "['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i']\n",
        "{\"k\":\"v\",\"x\":\"y\"}\n",
        "     1\tfn main() {\n     2\t}\n",
        "1:a\n2:b\n3:c\n4:d\n5:e\n6:f\n7:g\n8:h\n",
        "v1.2.3-rc.4 2026-11-29 10.0.0.1/24 12:30:45\n",
        "}\n}\n)\n;\nend\nfi\ndone\n",
    ] {
        assert_eq!(redactor.redact(text), text);
    }
}
