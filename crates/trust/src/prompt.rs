//! The trust question asked when there is a UI (TRUST-4) and no earlier rule
//! decided. A trait, so tests script the answers and a terminal reads them.

use std::{
    collections::VecDeque,
    io::{BufRead, Write},
    path::Path,
};

use serde::Serialize;

use crate::detect::Resource;

/// The five answers the trust question offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PromptChoice {
    /// Trust, and save it for the working directory.
    Trust,
    /// Trust, and save it for the parent folder (covers sibling projects).
    TrustParent,
    /// Trust for this session only (nothing saved).
    TrustSession,
    /// Do not trust, and save it for the working directory.
    DoNotTrust,
    /// Do not trust for this session only (nothing saved).
    DoNotTrustSession,
}

impl PromptChoice {
    /// All choices, in menu order.
    pub const ALL: [PromptChoice; 5] = [
        PromptChoice::Trust,
        PromptChoice::TrustParent,
        PromptChoice::TrustSession,
        PromptChoice::DoNotTrust,
        PromptChoice::DoNotTrustSession,
    ];

    /// Menu text.
    pub fn label(self) -> &'static str {
        match self {
            PromptChoice::Trust => "Trust",
            PromptChoice::TrustParent => "Trust parent folder",
            PromptChoice::TrustSession => "Trust for this session only",
            PromptChoice::DoNotTrust => "Do not trust",
            PromptChoice::DoNotTrustSession => "Do not trust for this session only",
        }
    }

    /// Whether the answer trusts the project.
    pub fn trusts(self) -> bool {
        matches!(
            self,
            PromptChoice::Trust | PromptChoice::TrustParent | PromptChoice::TrustSession
        )
    }
}

/// What the question shows.
#[derive(Debug, Clone, Copy)]
pub struct PromptRequest<'a> {
    /// The canonical working directory.
    pub cwd: &'a Path,
    /// The folder "Trust parent folder" would save.
    pub parent: &'a Path,
    /// The resources that need trust.
    pub resources: &'a [Resource],
}

/// Asks the user. An `Err` (closed input, nonsense) is treated as "do not
/// trust for this session" by the resolver: fail closed.
pub trait TrustPrompt {
    /// Shows the question and returns the user's choice.
    fn ask(&mut self, request: &PromptRequest<'_>) -> Result<PromptChoice, String>;
}

/// A terminal question: a numbered menu on `output`, one line read from
/// `input`. Accepts the number (1-5); up to three tries.
#[derive(Debug)]
pub struct LinePrompt<R, W> {
    input: R,
    output: W,
}

impl<R: BufRead, W: Write> LinePrompt<R, W> {
    /// A prompt reading `input` and writing `output` (normally stdin/stderr).
    pub fn new(input: R, output: W) -> Self {
        Self { input, output }
    }
}

impl<R: BufRead, W: Write> TrustPrompt for LinePrompt<R, W> {
    fn ask(&mut self, request: &PromptRequest<'_>) -> Result<PromptChoice, String> {
        let io = |e: std::io::Error| e.to_string();
        writeln!(
            self.output,
            "This project has files that change what ploy loads:\n  {}",
            request.cwd.display()
        )
        .map_err(io)?;
        for resource in request.resources {
            writeln!(
                self.output,
                "    {} ({})",
                resource.path.display(),
                resource.kind.label()
            )
            .map_err(io)?;
        }
        writeln!(
            self.output,
            "Trust is a load gate, not a sandbox: trusting lets these load with your rights."
        )
        .map_err(io)?;
        for (n, choice) in PromptChoice::ALL.iter().enumerate() {
            let extra = if *choice == PromptChoice::TrustParent {
                format!(" ({})", request.parent.display())
            } else {
                String::new()
            };
            writeln!(self.output, "  {}) {}{extra}", n + 1, choice.label()).map_err(io)?;
        }
        for _ in 0..3 {
            write!(self.output, "Choose 1-5: ").map_err(io)?;
            self.output.flush().map_err(io)?;
            let mut line = String::new();
            if self.input.read_line(&mut line).map_err(io)? == 0 {
                return Err("input closed before an answer".to_owned());
            }
            if let Ok(n) = line.trim().parse::<usize>()
                && let Some(choice) = n.checked_sub(1).and_then(|i| PromptChoice::ALL.get(i))
            {
                return Ok(*choice);
            }
            writeln!(self.output, "Please type a number from 1 to 5.").map_err(io)?;
        }
        Err("no valid answer after three tries".to_owned())
    }
}

/// Answers from a script, in order; records how often it was asked. For
/// tests and for embedding ploy behind another UI.
#[derive(Debug, Default, Clone)]
pub struct ScriptedPrompt {
    answers: VecDeque<Result<PromptChoice, String>>,
    asked: usize,
}

impl ScriptedPrompt {
    /// A prompt that gives `answers` in order, then errors.
    pub fn new(answers: impl IntoIterator<Item = PromptChoice>) -> Self {
        Self {
            answers: answers.into_iter().map(Ok).collect(),
            asked: 0,
        }
    }

    /// A prompt whose next answer is an error (closed terminal).
    pub fn failing(reason: &str) -> Self {
        Self {
            answers: VecDeque::from([Err(reason.to_owned())]),
            asked: 0,
        }
    }

    /// How many times the question was asked.
    pub fn asked(&self) -> usize {
        self.asked
    }
}

impl TrustPrompt for ScriptedPrompt {
    fn ask(&mut self, _request: &PromptRequest<'_>) -> Result<PromptChoice, String> {
        self.asked += 1;
        self.answers
            .pop_front()
            .unwrap_or_else(|| Err("script has no more answers".to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request() -> PromptRequest<'static> {
        PromptRequest {
            cwd: Path::new("/p/q"),
            parent: Path::new("/p"),
            resources: &[],
        }
    }

    // proves: TRUST-4
    #[test]
    fn line_prompt_reads_numbers_and_rejects_nonsense() {
        for (input, expected) in [
            ("1\n", Ok(PromptChoice::Trust)),
            ("2\n", Ok(PromptChoice::TrustParent)),
            ("x\n3\n", Ok(PromptChoice::TrustSession)),
            ("0\n6\n4\n", Ok(PromptChoice::DoNotTrust)),
            ("5", Ok(PromptChoice::DoNotTrustSession)),
        ] {
            let mut out = Vec::new();
            let got = LinePrompt::new(input.as_bytes(), &mut out).ask(&request());
            assert_eq!(got, expected, "{input:?}");
            let shown = String::from_utf8(out).unwrap();
            assert!(shown.contains("Trust parent folder (/p)"));
            assert!(shown.contains("not a sandbox"));
        }
        let mut out = Vec::new();
        assert!(
            LinePrompt::new("".as_bytes(), &mut out)
                .ask(&request())
                .is_err()
        );
        let mut out = Vec::new();
        assert!(
            LinePrompt::new("y\nyes\ntrust\n1\n".as_bytes(), &mut out)
                .ask(&request())
                .is_err()
        );
    }
}
