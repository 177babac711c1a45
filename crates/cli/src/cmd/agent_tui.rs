//! `ploy` alone: the interactive terminal.
//!
//! A rustyline line editor with history (kept redacted, owner-only, in the
//! state folder), the model's text streamed as it comes, an indicatif
//! spinner while the model thinks (drawn only when stdout is a terminal),
//! colours unless `NO_COLOR` is set or stdout is not a terminal, and a
//! status line before every prompt with the conversation's mark and the
//! execution profile (ploy_agent::ask::mark_label: the same words as RPC
//! `get_state` and `ploy conversations`).
//!
//! Ctrl-C during a turn cancels it: the model call and a fetch stop, a
//! sandboxed command is killed through its stop flag (ploy-agent's shell
//! tool), and the session goes on. Ctrl-C at the prompt clears the line;
//! Ctrl-D leaves. Approvals (PERM-3..5) are asked with
//! ploy_agent::ask::AskView and read with ploy_agent::ask::parse_typed; the
//! decision is only ever `Permission::assert`'s, through the dispatcher.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use ploy_agent::approve::{Answer, ApprovalRequest, Approver, NoPerson};
use ploy_agent::ask::{AskView, Style, mark_label, parse_typed, printable};
use ploy_agent::event::{Event, EventSink};
use ploy_agent::session::{Resume, Session};
use ploy_agent::tool::BoxFuture;
use ploy_secrets::{Redactor, SharedRedactor};
use ploy_trust::{LinePrompt, UiMode};
use rustyline::error::ReadlineError;
use rustyline::history::FileHistory;
use tokio_util::sync::CancellationToken;

use super::agent::{AgentArgs, Failure, Linked, Wiring, runtime, runtime_for_agent};

type Editor = rustyline::Editor<(), FileHistory>;

/// How the terminal is drawn.
#[derive(Debug, Clone, Copy)]
struct Look {
    style: Style,
    spinner: bool,
}

impl Look {
    /// Colours only on a terminal and without `NO_COLOR` (any non-empty
    /// value, no-color.org); the spinner only when stdout is a terminal.
    fn detect() -> Self {
        let tty = std::io::stdout().is_terminal();
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        Self {
            style: if tty && !no_color {
                Style::Color
            } else {
                Style::Plain
            },
            spinner: tty,
        }
    }

    /// `text` (made [`printable`]: it may carry what the model, a page or
    /// a command wrote) in colour `code`.
    fn paint(self, code: &str, text: &str) -> String {
        let text = printable(text);
        match self.style {
            Style::Plain => text.into_owned(),
            Style::Color => format!("\x1b[{code}m{text}\x1b[0m"),
        }
    }
}

/// Prints the events of a turn. Every text in an event is redacted already.
struct Screen {
    look: Look,
    spinner: Mutex<Option<indicatif::ProgressBar>>,
    streamed: Mutex<bool>,
}

fn out(text: &str) {
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(text.as_bytes());
    let _ = stdout.flush();
}

/// The first `lines` lines of `text`, with a count of the rest.
fn head(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.lines().collect();
    let mut shown = all
        .iter()
        .take(lines)
        .map(|l| format!("  │ {l}"))
        .collect::<Vec<_>>()
        .join("\n");
    if all.len() > lines {
        shown.push_str(&format!("\n  │ … {} more lines", all.len() - lines));
    }
    shown
}

impl Screen {
    fn new(look: Look) -> Self {
        Self {
            look,
            spinner: Mutex::new(None),
            streamed: Mutex::new(false),
        }
    }

    /// The spinner while the model thinks (nothing when not a terminal).
    fn think(&self) {
        if !self.look.spinner {
            return;
        }
        if let Ok(mut spinner) = self.spinner.lock()
            && spinner.is_none()
        {
            let bar = indicatif::ProgressBar::with_draw_target(
                None,
                indicatif::ProgressDrawTarget::stdout(),
            );
            bar.set_style(indicatif::ProgressStyle::default_spinner());
            bar.set_message("thinking…");
            bar.enable_steady_tick(Duration::from_millis(120));
            *spinner = Some(bar);
        }
    }

    fn quiet(&self) {
        if let Ok(mut spinner) = self.spinner.lock()
            && let Some(bar) = spinner.take()
        {
            bar.finish_and_clear();
        }
    }

    fn line(&self, text: &str) {
        self.quiet();
        out(&format!("{text}\n"));
    }
}

impl EventSink for Screen {
    fn emit(&self, event: &Event) {
        match event {
            Event::Session { .. } | Event::Answer { .. } | Event::End { .. } => {}
            Event::Message { role, text } if role == "user" => {
                let _ = text;
                if let Ok(mut streamed) = self.streamed.lock() {
                    *streamed = false;
                }
                self.think();
            }
            Event::MessageDelta { text } => {
                self.quiet();
                if let Ok(mut streamed) = self.streamed.lock() {
                    *streamed = true;
                }
                out(&printable(text));
            }
            Event::Message { text, .. } => {
                let streamed = self
                    .streamed
                    .lock()
                    .map(|mut s| std::mem::replace(&mut *s, false))
                    .unwrap_or(false);
                if streamed {
                    self.line("");
                } else {
                    self.line(&printable(text));
                }
            }
            Event::ToolCall { name, args, .. } => {
                let args = args.to_string();
                let args: String = args.chars().take(200).collect();
                self.line(&self.look.paint("2", &format!("● {name} {args}")));
            }
            Event::Decision {
                verdict,
                rule,
                reason,
                ..
            } if verdict == "deny" => {
                self.line(
                    &self
                        .look
                        .paint("31", &format!("✗ refused ({rule}): {reason}")),
                );
            }
            Event::Decision { .. } => self.quiet(),
            Event::ToolResult { ok, output, .. } => {
                let status = if *ok { "done" } else { "refused or failed" };
                self.line(&self.look.paint("2", &format!("  ⎿ {status}")));
                self.line(&self.look.paint("2", &head(output, 4)));
                self.think();
            }
            Event::Mark { reason, .. } => self.line(&self.look.paint(
                "33",
                &format!("⚠ this conversation is now marked ploy_tainted: {reason}"),
            )),
            Event::Error { message, rule } => {
                let rule = rule
                    .as_deref()
                    .map(|r| format!(" ({r})"))
                    .unwrap_or_default();
                self.line(&self.look.paint("31", &format!("error{rule}: {message}")));
            }
        }
    }
}

/// Asks a person at the terminal.
struct Person {
    editor: Arc<Mutex<Editor>>,
    screen: Arc<Screen>,
    /// The running turn, cancelled when Ctrl-C is typed at the question.
    turn: Arc<Mutex<Option<CancellationToken>>>,
}

/// The most tries at one question before it counts as a rejection.
const TRIES: usize = 5;

impl Person {
    fn answer(&self, request: &ApprovalRequest) -> Answer {
        let view = AskView::new(request);
        for line in view.lines(self.screen.look.style) {
            self.screen.line(&line);
        }
        for _ in 0..TRIES {
            let read = match self.editor.lock() {
                Ok(mut editor) => editor.readline("answer › "),
                Err(_) => return Answer::Reject { message: None },
            };
            match read {
                Ok(typed) => match parse_typed(request, &typed) {
                    Ok(answer) => return answer,
                    Err(err) => self
                        .screen
                        .line(&self.screen.look.paint("31", &err.to_string())),
                },
                Err(ReadlineError::Interrupted) => {
                    // Ctrl-C at the question: the whole turn stops.
                    if let Ok(turn) = self.turn.lock()
                        && let Some(token) = turn.as_ref()
                    {
                        token.cancel();
                    }
                    return Answer::Reject { message: None };
                }
                Err(_) => return Answer::Reject { message: None },
            }
        }
        Answer::Reject { message: None }
    }
}

struct PersonHandle(Arc<Person>);

impl Approver for PersonHandle {
    fn can_answer(&self) -> bool {
        true
    }

    fn ask<'a>(&'a self, request: &'a ApprovalRequest) -> BoxFuture<'a, Answer> {
        let person = self.0.clone();
        let request = request.clone();
        Box::pin(async move {
            // The line editor blocks; the runtime's workers stay free.
            tokio::task::spawn_blocking(move || person.answer(&request))
                .await
                .unwrap_or(Answer::Reject { message: None })
        })
    }
}

const HELP: &str = "\
Type a message for the agent. Commands:
  /new            start a new conversation (a clean mark)
  /conversations  this project's conversations and their marks
  /approvals      the approvals saved for this project
  /trust          whether this project's files were trusted, and why
  /help           this text
Ctrl-C stops the running turn (and its commands); Ctrl-D leaves.";

struct Tui<'a> {
    wiring: &'a Wiring,
    linked: &'a Linked,
    look: Look,
    screen: Arc<Screen>,
    editor: Arc<Mutex<Editor>>,
    turn: Arc<Mutex<Option<CancellationToken>>>,
    session: Option<Session>,
    trust: String,
}

impl Tui<'_> {
    fn status(&self) -> String {
        let (marks, conversation) = match &self.session {
            Some(s) => (
                s.dispatcher().policy().marks(),
                format!("conversation {}", s.conversation_id()),
            ),
            None => (Vec::new(), "new conversation".to_string()),
        };
        let mark = self
            .linked
            .redactor
            .redact(&mark_label(&marks))
            .into_owned();
        let mark = if marks.is_empty() {
            self.look.paint("32", &mark)
        } else {
            self.look.paint("33", &mark)
        };
        format!(
            "{} {mark} · {} · {conversation}",
            self.look.paint("2", "ploy"),
            self.wiring.profile
        )
    }

    fn slash(&mut self, command: &str) {
        let redactor: &Redactor = &self.linked.redactor;
        match command.split_whitespace().next().unwrap_or("") {
            "/help" => self.screen.line(HELP),
            "/new" => {
                self.session = None;
                self.screen
                    .line("a new conversation starts with your next message");
            }
            "/conversations" => match super::conversations::Local::open()
                .and_then(|local| super::conversations::project_rows(&local))
            {
                Ok(rows) if rows.is_empty() => self.screen.line("no conversations yet"),
                Ok(rows) => {
                    for row in rows {
                        self.screen.line(&row);
                    }
                }
                Err((_, message, _)) => self.screen.line(&format!("ploy: {}", printable(&message))),
            },
            "/approvals" => match super::conversations::Local::open() {
                Ok(local) => match local.store.approvals_in(&local.project) {
                    Ok(saved) if saved.is_empty() => {
                        self.screen.line("no saved approvals for this project")
                    }
                    Ok(saved) => {
                        for entry in saved {
                            self.screen.line(&format!(
                                "{}  {}",
                                entry.id,
                                printable(
                                    &redactor.redact(&super::approvals::describe(&entry.approval))
                                )
                            ));
                        }
                        self.screen.line("(`ploy approvals revoke ID` removes one)");
                    }
                    Err(err) => self
                        .screen
                        .line(&format!("ploy: {}", printable(&err.to_string()))),
                },
                Err((_, message, _)) => self.screen.line(&format!("ploy: {}", printable(&message))),
            },
            "/trust" => self.screen.line(&printable(&self.trust)),
            other => self.screen.line(&format!(
                "unknown command {}; /help lists them",
                printable(other)
            )),
        }
    }

    async fn prompt(&mut self, text: &str) {
        if self.session.is_none() {
            match self
                .wiring
                .open(self.linked, Resume::New, text, self.screen.clone())
            {
                Ok(session) => self.session = Some(session),
                Err(failure) => {
                    self.screen
                        .line(&format!("ploy: {}", printable(&failure.message)));
                    return;
                }
            }
        }
        let Some(session) = self.session.as_mut() else {
            return;
        };
        let cancel = CancellationToken::new();
        if let Ok(mut turn) = self.turn.lock() {
            *turn = Some(cancel.clone());
        }
        let person = PersonHandle(Arc::new(Person {
            editor: self.editor.clone(),
            screen: self.screen.clone(),
            turn: self.turn.clone(),
        }));
        let approver: &dyn Approver = if self.wiring.profile.asks_user() {
            &person
        } else {
            &NoPerson
        };
        let outcome = session.prompt(text, approver, &cancel).await;
        if let Ok(mut turn) = self.turn.lock() {
            *turn = None;
        }
        self.screen.quiet();
        if outcome.exit_code() == 130 {
            self.screen
                .line(&self.look.paint("33", "interrupted; the session goes on"));
        }
    }
}

fn history_path(wiring: &Wiring) -> std::path::PathBuf {
    wiring.dirs.state.join("history")
}

/// Run the interactive terminal.
pub(crate) fn run(args: &AgentArgs, log: Option<&SharedRedactor>) -> Result<ExitCode, Failure> {
    if !std::io::stdin().is_terminal() {
        return Err(Failure {
            code: 2,
            message: "the interactive mode needs a terminal; run one prompt with `ploy -p \"PROMPT\"`, or many with `ploy --mode rpc`".into(),
            hint: None,
        });
    }
    // TRUST-7: on a terminal the project-trust question may be asked.
    let mut question = LinePrompt::new(std::io::stdin().lock(), std::io::stderr());
    let wiring = Wiring::load(args, UiMode::Interactive, Some(&mut question))?;
    let trust = wiring.trust.clone();
    let rt = runtime_for_agent()?;
    let look = Look::detect();
    // With stdout redirected (a file, a pipe) the editor draws on the
    // terminal itself, so stdout gets the conversation and no editing codes.
    let behavior = if std::io::stdout().is_terminal() {
        rustyline::config::Behavior::Stdio
    } else {
        rustyline::config::Behavior::PreferTerm
    };
    let config = rustyline::Config::builder()
        .behavior(behavior)
        .auto_add_history(false)
        .build();
    let mut editor =
        Editor::with_config(config).map_err(|e| runtime(format!("the line editor: {e}")))?;
    let history = history_path(&wiring);
    let _ = editor.load_history(&history);
    let result = rt.block_on(async {
        let linked = wiring.link(args, log).await?;
        let screen = Arc::new(Screen::new(look));
        let session = match Wiring::resume_of(args) {
            Resume::New => None,
            resume => Some(wiring.open(&linked, resume, "", screen.clone())?),
        };
        let turn: Arc<Mutex<Option<CancellationToken>>> = Arc::new(Mutex::new(None));
        // Ctrl-C while a turn runs (the terminal is not in the editor's raw
        // mode then) arrives as SIGINT: it cancels the turn, never the process.
        // Registered here, before the first line is read, not on a task's
        // first poll: a SIGINT in between would kill the process.
        let mut interrupts =
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt())
                .map_err(|e| runtime(format!("cannot handle Ctrl-C: {e}")))?;
        let on_signal = turn.clone();
        let signals = tokio::spawn(async move {
            while interrupts.recv().await.is_some() {
                if let Ok(turn) = on_signal.lock()
                    && let Some(token) = turn.as_ref()
                {
                    token.cancel();
                }
            }
        });
        let mut tui = Tui {
            wiring: &wiring,
            linked: &linked,
            look,
            screen,
            editor: Arc::new(Mutex::new(editor)),
            turn,
            session,
            trust,
        };
        tui.screen.line(&format!(
            "ploy — {} — /help for commands, Ctrl-D to leave",
            printable(&wiring.project.to_string_lossy())
        ));
        loop {
            tui.screen.line(&tui.status());
            let editor = tui.editor.clone();
            let read = tokio::task::spawn_blocking(move || match editor.lock() {
                Ok(mut editor) => editor.readline("› "),
                Err(_) => Err(ReadlineError::Eof),
            })
            .await
            .unwrap_or(Err(ReadlineError::Eof));
            match read {
                Ok(line) if line.trim().is_empty() => {}
                Ok(line) => {
                    // History keeps no secret the process knows.
                    let kept = linked.redactor.redact(line.trim()).into_owned();
                    if let Ok(mut editor) = tui.editor.lock() {
                        let _ = editor.add_history_entry(kept);
                    }
                    if line.trim_start().starts_with('/') {
                        tui.slash(line.trim());
                    } else {
                        tui.prompt(&line).await;
                    }
                }
                Err(ReadlineError::Interrupted) => {}
                Err(_) => break,
            }
        }
        signals.abort();
        if let Ok(mut editor) = tui.editor.lock()
            && editor.save_history(&history).is_ok()
        {
            use std::os::unix::fs::PermissionsExt;
            let _ = std::fs::set_permissions(&history, std::fs::Permissions::from_mode(0o600));
        }
        Ok::<(), Failure>(())
    });
    rt.shutdown_background();
    result?;
    Ok(ExitCode::SUCCESS)
}
