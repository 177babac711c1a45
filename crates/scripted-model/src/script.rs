//! The script engine (pure: a request in, an answer out, no I/O).

use std::time::Duration;

use ploy_model::{ChatCompletionRequest, Message, ToolCall};
use serde_json::Value;

use crate::directive::{Obedience, directives_in};
use crate::placeholder::{Context, expand_value};

/// One answer of the model: text, tool calls, or an HTTP error.
#[derive(Debug, Clone, PartialEq)]
pub struct Turn {
    pub(crate) text: Option<String>,
    /// Explicit stream pieces for the text (else it is cut automatically).
    pub(crate) pieces: Option<Vec<String>>,
    pub(crate) calls: Vec<(String, Value)>,
    pub(crate) error: Option<(u16, String)>,
    pub(crate) pause: Duration,
}

impl Turn {
    /// An assistant message with `text` (placeholders expanded).
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            text: Some(text.into()),
            pieces: None,
            calls: Vec::new(),
            error: None,
            pause: Duration::ZERO,
        }
    }

    /// Text streamed in exactly these pieces (one SSE event each).
    pub fn pieces<S: Into<String>>(pieces: impl IntoIterator<Item = S>) -> Self {
        let pieces: Vec<String> = pieces.into_iter().map(Into::into).collect();
        Self {
            text: Some(pieces.concat()),
            pieces: Some(pieces),
            ..Self::text("")
        }
    }

    /// One tool call of `tool` with `arguments` (a JSON object; placeholders
    /// in its strings are expanded).
    pub fn call(tool: impl Into<String>, arguments: Value) -> Self {
        Self {
            text: None,
            ..Self::text("")
        }
        .and_call(tool, arguments)
    }

    /// Adds another tool call to the same turn.
    pub fn and_call(mut self, tool: impl Into<String>, arguments: Value) -> Self {
        self.calls.push((tool.into(), arguments));
        self
    }

    /// An HTTP error answer (`{"error": {"message": …}}` with `status`).
    pub fn error(status: u16, message: impl Into<String>) -> Self {
        Self {
            text: None,
            error: Some((status, message.into())),
            ..Self::text("")
        }
    }

    /// Waits `pause` before every streamed event after the first (and
    /// before a non-streamed answer).
    pub fn pause(mut self, pause: Duration) -> Self {
        self.pause = pause;
        self
    }
}

/// When a rule answers instead of the next scripted turn. Every matcher
/// but [`Matcher::AnyContains`] looks only at the *new input*: the messages
/// after the model's last assistant message (the tool results of its last
/// calls, or the newest user message).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Matcher {
    /// A tool result in the new input contains the text.
    ToolResultContains(String),
    /// A user message in the new input contains the text.
    UserContains(String),
    /// Any message of the conversation contains the text.
    AnyContains(String),
    /// The new input holds a result of a call to this tool.
    ResultOf(String),
    /// Every request.
    Always,
}

impl Matcher {
    fn matches(&self, messages: &[Message], new_input: &[Message]) -> bool {
        match self {
            Self::ToolResultContains(text) => new_input
                .iter()
                .any(|m| matches!(m, Message::Tool { .. }) && m.text().contains(text.as_str())),
            Self::UserContains(text) => new_input
                .iter()
                .any(|m| matches!(m, Message::User { .. }) && m.text().contains(text.as_str())),
            Self::AnyContains(text) => messages.iter().any(|m| m.text().contains(text.as_str())),
            Self::ResultOf(tool) => new_input.iter().any(|m| match m {
                Message::Tool { tool_call_id, .. } => {
                    tool_of_call(messages, tool_call_id).is_some_and(|name| name == tool)
                }
                _ => false,
            }),
            Self::Always => true,
        }
    }
}

/// The name of the tool a call id belongs to, from the assistant messages.
fn tool_of_call<'a>(messages: &'a [Message], id: &str) -> Option<&'a str> {
    messages.iter().find_map(|m| match m {
        Message::Assistant(assistant) => assistant
            .tool_calls
            .iter()
            .find(|call| call.id == id)
            .map(|call| call.function.name.as_str()),
        _ => None,
    })
}

#[derive(Debug, Clone)]
struct Rule {
    matcher: Matcher,
    turn: Turn,
    once: bool,
    spent: bool,
}

/// What the model says, in order, and how it reacts.
///
/// Each request is answered by the first of: the directives in the new
/// input (if obedient), a matching rule, the next scripted turn, the
/// repeated turn, or an HTTP 500 saying the script is used up.
#[derive(Debug, Clone, Default)]
pub struct Script {
    turns: std::collections::VecDeque<Turn>,
    rules: Vec<Rule>,
    obedience: Option<Obedience>,
    /// Orders read but not yet obeyed ([`Obedience::one_at_a_time`]).
    pending: std::collections::VecDeque<(String, Value)>,
    repeat: Option<Turn>,
    used: usize,
    forgetful: bool,
}

impl Script {
    /// An empty script.
    pub fn new() -> Self {
        Self::default()
    }

    /// A script that obeys every directive it reads (see the crate docs),
    /// with the default tool names (`shell`/`command`, `web_fetch`/`url`).
    pub fn obedient() -> Self {
        Self::new().obey(Obedience::default())
    }

    /// Obeys directives, mapping plain-language forms with `obedience`.
    pub fn obey(mut self, obedience: Obedience) -> Self {
        self.obedience = Some(obedience);
        self
    }

    /// Appends a turn.
    pub fn then(mut self, turn: Turn) -> Self {
        self.turns.push_back(turn);
        self
    }

    /// Appends a text turn.
    pub fn text(self, text: impl Into<String>) -> Self {
        self.then(Turn::text(text))
    }

    /// Appends a one-call turn.
    pub fn call(self, tool: impl Into<String>, arguments: Value) -> Self {
        self.then(Turn::call(tool, arguments))
    }

    /// Answers `turn` whenever `matcher` matches (before the script).
    pub fn on(mut self, matcher: Matcher, turn: Turn) -> Self {
        self.rules.push(Rule {
            matcher,
            turn,
            once: false,
            spent: false,
        });
        self
    }

    /// Answers `turn` the first time `matcher` matches, then never again.
    pub fn once_on(mut self, matcher: Matcher, turn: Turn) -> Self {
        self.rules.push(Rule {
            matcher,
            turn,
            once: true,
            spent: false,
        });
        self
    }

    /// After the scripted turns, answers `turn` forever.
    pub fn repeat(mut self, turn: Turn) -> Self {
        self.repeat = Some(turn);
        self
    }

    /// The server keeps no requests and no answers (for long benchmarks
    /// that measure the client's memory, not the recorder's). Asking such a
    /// model what it saw is a test bug: [`crate::ScriptedModel::saw`] panics.
    pub fn forgetful(mut self) -> Self {
        self.forgetful = true;
        self
    }

    /// Whether the server records requests and answers.
    pub fn records(&self) -> bool {
        !self.forgetful
    }

    /// How many scripted turns are left.
    pub fn remaining(&self) -> usize {
        self.turns.len()
    }

    /// The answer to `request`. `next_id` numbers tool calls across the run.
    pub fn respond(&mut self, request: &ChatCompletionRequest, next_id: &mut u64) -> Answer {
        let messages = &request.request.messages;
        let new_input = new_input(messages);
        let context = Context::new(messages);
        if let Some(obedience) = &self.obedience {
            let mut calls = Vec::new();
            for message in new_input {
                if obedience.reads(message) {
                    calls.extend(directives_in(message.text(), obedience));
                }
            }
            if obedience.one_at_a_time {
                self.pending.extend(calls);
                calls = self.pending.pop_front().into_iter().collect();
            }
            if !calls.is_empty() {
                let turn = Turn {
                    text: None,
                    ..Turn::text("")
                };
                let turn = calls
                    .into_iter()
                    .fold(turn, |turn, (tool, args)| turn.and_call(tool, args));
                return Answer::from_turn(&turn, &context, next_id, Source::Directive);
            }
        }
        for rule in &mut self.rules {
            if !rule.spent && rule.matcher.matches(messages, new_input) {
                rule.spent = rule.once;
                return Answer::from_turn(&rule.turn, &context, next_id, Source::Rule);
            }
        }
        if let Some(turn) = self.turns.pop_front() {
            self.used += 1;
            return Answer::from_turn(&turn, &context, next_id, Source::Script);
        }
        if let Some(turn) = &self.repeat {
            return Answer::from_turn(turn, &context, next_id, Source::Script);
        }
        Answer::from_turn(
            &Turn::error(
                500,
                format!(
                    "scripted model: the script is used up ({} turns answered)",
                    self.used
                ),
            ),
            &context,
            next_id,
            Source::Exhausted,
        )
    }
}

/// The messages after the last assistant message: what is new to the model.
pub fn new_input(messages: &[Message]) -> &[Message] {
    let start = messages
        .iter()
        .rposition(|m| matches!(m, Message::Assistant(_)))
        .map_or(0, |i| i + 1);
    &messages[start..]
}

/// Why the model answered what it did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// It obeyed directives it read.
    Directive,
    /// A rule matched.
    Rule,
    /// The next scripted (or repeated) turn.
    Script,
    /// Nothing left to say: an error.
    Exhausted,
}

/// A resolved answer: placeholders expanded, calls numbered.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    /// The text, if any.
    pub text: Option<String>,
    /// Stream pieces of the text.
    pub pieces: Vec<String>,
    /// The tool calls, with ids and argument text.
    pub calls: Vec<ToolCall>,
    /// An HTTP error instead of a reply.
    pub error: Option<(u16, String)>,
    /// Pause between streamed events.
    pub pause: Duration,
    /// Why.
    pub source: Source,
}

impl Answer {
    fn from_turn(turn: &Turn, context: &Context<'_>, next_id: &mut u64, source: Source) -> Self {
        let text = turn.text.as_ref().map(|t| context.expand(t));
        let pieces = match (&turn.pieces, &text) {
            (Some(pieces), _) => pieces.iter().map(|p| context.expand(p)).collect(),
            (None, Some(text)) => cut(text, 24),
            (None, None) => Vec::new(),
        };
        let calls = turn
            .calls
            .iter()
            .map(|(tool, args)| {
                *next_id += 1;
                ToolCall::function(
                    format!("call_{next_id}"),
                    tool.clone(),
                    &expand_value(args, context),
                )
            })
            .collect();
        Self {
            text,
            pieces,
            calls,
            error: turn.error.clone(),
            pause: turn.pause,
            source,
        }
    }
}

/// `text` in pieces of at most `size` bytes, cut at character boundaries.
fn cut(text: &str, size: usize) -> Vec<String> {
    let mut pieces = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let mut end = size.min(rest.len());
        while !rest.is_char_boundary(end) {
            end += 1;
        }
        pieces.push(rest[..end].to_owned());
        rest = &rest[end..];
    }
    pieces
}
