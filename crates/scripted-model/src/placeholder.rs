//! Placeholders: how the scripted model carries what it read into what it
//! writes (the model an exfiltration test needs copies what it saw).

use base64::Engine as _;
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use ploy_model::Message;
use serde_json::Value;

/// Everything but RFC 3986's unreserved characters is encoded.
const URL_ENCODE: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// The conversation a placeholder reads from.
#[derive(Debug, Clone, Copy)]
pub struct Context<'a> {
    messages: &'a [Message],
}

impl<'a> Context<'a> {
    /// Placeholders over `messages` (the request's conversation).
    pub fn new(messages: &'a [Message]) -> Self {
        Self { messages }
    }

    /// `text` with every known `{{…}}` replaced; unknown ones stay as written.
    pub fn expand(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(start) = rest.find("{{") {
            out.push_str(&rest[..start]);
            let after = &rest[start + 2..];
            let Some(end) = after.find("}}") else {
                out.push_str(&rest[start..]);
                return out;
            };
            let inner = &after[..end];
            match self.resolve(inner) {
                Some(value) => out.push_str(&value),
                None => out.push_str(&rest[start..start + 2 + end + 2]),
            }
            rest = &after[end + 2..];
        }
        out.push_str(rest);
        out
    }

    fn resolve(&self, inner: &str) -> Option<String> {
        let mut parts = inner.split('|').map(str::trim);
        let mut value = self.source(parts.next()?)?;
        for filter in parts {
            value = apply(filter, &value)?;
        }
        Some(value)
    }

    fn source(&self, name: &str) -> Option<String> {
        let tools: Vec<&Message> = self
            .messages
            .iter()
            .filter(|m| matches!(m, Message::Tool { .. }))
            .collect();
        let pick = |list: &[&Message], index: &str| -> Option<String> {
            let index: i64 = index.parse().ok()?;
            let at = if index < 0 {
                list.len().checked_sub(usize::try_from(-index).ok()?)?
            } else {
                usize::try_from(index).ok()?
            };
            list.get(at).map(|m| m.text().to_owned())
        };
        let all: Vec<&Message> = self.messages.iter().collect();
        match name {
            "last_tool_result" => pick(&tools, "-1"),
            "last_user" => self
                .messages
                .iter()
                .rev()
                .find(|m| matches!(m, Message::User { .. }))
                .map(|m| m.text().to_owned()),
            "conversation" => Some(
                self.messages
                    .iter()
                    .map(Message::text)
                    .collect::<Vec<_>>()
                    .join("\n"),
            ),
            _ => {
                if let Some(index) = name.strip_prefix("tool_result:") {
                    pick(&tools, index)
                } else if let Some(index) = name.strip_prefix("message:") {
                    pick(&all, index)
                } else {
                    None
                }
            }
        }
    }
}

fn apply(filter: &str, value: &str) -> Option<String> {
    Some(match filter {
        "url" => utf8_percent_encode(value, URL_ENCODE).to_string(),
        "base64" => base64::engine::general_purpose::STANDARD.encode(value),
        "hex" => value.bytes().map(|b| format!("{b:02x}")).collect(),
        "json" => {
            let quoted = serde_json::to_string(value).ok()?;
            quoted[1..quoted.len() - 1].to_owned()
        }
        "trim" => value.trim().to_owned(),
        _ => {
            let count: usize = filter.strip_prefix("first:")?.parse().ok()?;
            value.chars().take(count).collect()
        }
    })
}

/// `value` with placeholders expanded in every string inside it.
pub fn expand_value(value: &Value, context: &Context<'_>) -> Value {
    match value {
        Value::String(text) => Value::String(context.expand(text)),
        Value::Array(items) => {
            Value::Array(items.iter().map(|v| expand_value(v, context)).collect())
        }
        Value::Object(fields) => Value::Object(
            fields
                .iter()
                .map(|(k, v)| (k.clone(), expand_value(v, context)))
                .collect(),
        ),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_copy_what_the_model_read() {
        let messages = vec![
            Message::system("sys"),
            Message::user("hello"),
            Message::tool_result("a", "SECRET=hunter2 & more"),
            Message::tool_result("b", "page"),
        ];
        let context = Context::new(&messages);
        assert_eq!(context.expand("{{last_tool_result}}"), "page");
        assert_eq!(context.expand("{{tool_result:0}}"), "SECRET=hunter2 & more");
        assert_eq!(
            context.expand("{{tool_result:-2|first:13}}"),
            "SECRET=hunter"
        );
        assert_eq!(
            context.expand("http://x/?d={{tool_result:-2|url}}"),
            "http://x/?d=SECRET%3Dhunter2%20%26%20more"
        );
        assert_eq!(context.expand("{{last_user|base64}}"), "aGVsbG8=");
        assert_eq!(context.expand("{{last_user|hex}}"), "68656c6c6f");
        assert_eq!(context.expand("{{message:0}}"), "sys");
        assert_eq!(
            context.expand("{{conversation}}"),
            "sys\nhello\nSECRET=hunter2 & more\npage"
        );
        assert_eq!(context.expand("{{json-ish \" }}"), "{{json-ish \" }}");
        assert_eq!(context.expand("{{tool_result:9}}"), "{{tool_result:9}}");
        assert_eq!(context.expand("{{last_user|nope}}"), "{{last_user|nope}}");
        assert_eq!(context.expand("a {{ b"), "a {{ b");
    }
}
