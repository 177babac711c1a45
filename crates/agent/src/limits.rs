//! Limits of one prompt: model calls, wall time, and the loop guard (the
//! same tool call with the same arguments three times in a row ends the
//! turn with an error).

use std::time::{Duration, Instant};

/// How many identical calls in a row end the turn.
pub const LOOP_GUARD_REPEATS: usize = 3;

/// Which limit stopped a turn.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LimitHit {
    /// `agent.max_turns` model calls were made.
    #[error("the prompt used its {0} model calls (agent.max_turns) without a final answer")]
    Turns(u32),
    /// `agent.max_seconds` passed.
    #[error("the prompt ran past its wall-time limit of {0:?} (agent.max_seconds)")]
    WallTime(Duration),
    /// The loop guard tripped.
    #[error(
        "the model called `{0}` with the same arguments {LOOP_GUARD_REPEATS} times in a row; the turn was stopped (loop guard)"
    )]
    Loop(String),
}

impl LimitHit {
    /// The limit's name for the `error` event's `rule`.
    pub fn rule(&self) -> &'static str {
        match self {
            LimitHit::Turns(_) => "agent.max_turns",
            LimitHit::WallTime(_) => "agent.max_seconds",
            LimitHit::Loop(_) => "loop_guard",
        }
    }
}

/// Counts one prompt's model calls, time and repeated calls.
#[derive(Debug, Clone)]
pub struct Limits {
    max_turns: u32,
    wall_time: Duration,
    started: Instant,
    turns: u32,
    last_call: Option<(String, String)>,
    repeats: usize,
}

impl Limits {
    /// Limits for a prompt starting now.
    pub fn start(max_turns: u32, wall_time: Duration) -> Self {
        Self {
            max_turns,
            wall_time,
            started: Instant::now(),
            turns: 0,
            last_call: None,
            repeats: 0,
        }
    }

    /// Before a model call: counts it, or says which limit is reached.
    pub fn model_call(&mut self) -> Result<(), LimitHit> {
        self.check_time()?;
        if self.turns >= self.max_turns {
            return Err(LimitHit::Turns(self.max_turns));
        }
        self.turns += 1;
        Ok(())
    }

    /// The time left before the wall-time limit.
    pub fn remaining(&self) -> Duration {
        self.wall_time.saturating_sub(self.started.elapsed())
    }

    /// Fails once the wall time has passed.
    pub fn check_time(&self) -> Result<(), LimitHit> {
        if self.started.elapsed() >= self.wall_time {
            return Err(LimitHit::WallTime(self.wall_time));
        }
        Ok(())
    }

    /// Before a tool call: trips on the third identical call in a row.
    /// Arguments compare as parsed JSON when they parse (key order and
    /// spacing do not make a call new).
    pub fn tool_call(&mut self, name: &str, arguments: &str) -> Result<(), LimitHit> {
        let canonical = serde_json::from_str::<serde_json::Value>(arguments)
            .map(|v| v.to_string())
            .unwrap_or_else(|_| arguments.to_string());
        let key = (name.to_string(), canonical);
        if self.last_call.as_ref() == Some(&key) {
            self.repeats += 1;
        } else {
            self.last_call = Some(key);
            self.repeats = 1;
        }
        if self.repeats >= LOOP_GUARD_REPEATS {
            return Err(LimitHit::Loop(name.to_string()));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn the_third_identical_call_trips_the_guard() {
        let mut limits = Limits::start(40, Duration::from_secs(60));
        limits.tool_call("read", r#"{"path":"a"}"#).unwrap();
        limits.tool_call("read", r#"{ "path" : "a" }"#).unwrap();
        assert_eq!(
            limits.tool_call("read", r#"{"path":"a"}"#),
            Err(LimitHit::Loop("read".into()))
        );
        let mut limits = Limits::start(40, Duration::from_secs(60));
        for path in ["a", "a", "b", "a", "a", "b"] {
            limits
                .tool_call("read", &format!(r#"{{"path":"{path}"}}"#))
                .unwrap();
        }
    }

    #[test]
    fn turns_are_counted() {
        let mut limits = Limits::start(2, Duration::from_secs(60));
        limits.model_call().unwrap();
        limits.model_call().unwrap();
        assert_eq!(limits.model_call(), Err(LimitHit::Turns(2)));
    }
}
