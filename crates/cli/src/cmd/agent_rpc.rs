//! `ploy --mode rpc`: commands as JSON lines on stdin, events and responses
//! as JSON lines on stdout (docs/rpc.md). The protocol and its approver are
//! ploy_agent::rpc; this module reads lines, opens sessions through
//! [`Wiring`] and runs one prompt at a time while still answering
//! `approve`, `abort` and `get_state`.
//!
//! A reader thread splits stdin on the byte `\n` only (a trailing `\r` is
//! stripped; U+2028/2029 never split). Closing stdin ends the process:
//! a running prompt is cancelled (its tool work too), waiting approvals are
//! rejected, exit 0.

use std::io::{BufRead, Read as _};
use std::process::ExitCode;
use std::sync::Arc;

use ploy_agent::ask::mark_label;
use ploy_agent::event::{Event, EventSink, json_line};
use ploy_agent::rpc::{
    BadLine, Command, LineOut, MAX_LINE_BYTES, RpcApprover, parse_line, response, unframe,
};
use ploy_agent::session::{Resume, Session};
use ploy_secrets::{Redactor, SharedRedactor};
use ploy_trust::UiMode;
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::agent::{AgentArgs, Failure, Linked, Wiring, runtime, runtime_for_agent};

/// stdout, one JSON value per line (println! locks stdout for the whole
/// line; a closed stdout ends the process quietly, out.rs), every character
/// a terminal would act on escaped (`json_line`, tui-rpc #2).
struct Stdout;

impl LineOut for Stdout {
    fn line(&self, value: &Value) {
        println!("{}", json_line(value));
    }
}

impl EventSink for Stdout {
    fn emit(&self, event: &Event) {
        println!("{}", event.to_json_line());
    }
}

/// What the reader thread hands over.
enum Input {
    Line(Vec<u8>),
    TooLong,
    Closed,
}

/// Reads stdin into lines until it closes (or fails: the same).
fn read_lines(tx: mpsc::Sender<Input>) {
    let stdin = std::io::stdin();
    let mut stdin = stdin.lock();
    loop {
        let mut line = Vec::new();
        let read = (&mut stdin)
            .take(MAX_LINE_BYTES as u64 + 1)
            .read_until(b'\n', &mut line);
        let input = match read {
            Ok(0) | Err(_) => Input::Closed,
            Ok(_) if line.len() > MAX_LINE_BYTES && !line.ends_with(b"\n") => {
                // Skip the rest of the long line, then report it.
                let mut rest = Vec::new();
                let _ = stdin.read_until(b'\n', &mut rest);
                Input::TooLong
            }
            Ok(_) => {
                if line.last() == Some(&b'\n') {
                    line.pop();
                }
                Input::Line(unframe(&line).to_vec())
            }
        };
        let closed = matches!(input, Input::Closed);
        if tx.blocking_send(input).is_err() || closed {
            return;
        }
    }
}

/// One decoded input.
enum Next {
    Command(Command),
    Bad(BadLine),
    Nothing,
    Closed,
}

fn decode(input: Option<Input>) -> Next {
    match input {
        None | Some(Input::Closed) => Next::Closed,
        Some(Input::TooLong) => Next::Bad(BadLine {
            id: None,
            command: "unknown".into(),
            error: format!("the line is longer than {MAX_LINE_BYTES} bytes"),
        }),
        Some(Input::Line(bytes)) => match parse_line(&bytes) {
            Ok(Some(command)) => Next::Command(command),
            Ok(None) => Next::Nothing,
            Err(bad) => Next::Bad(bad),
        },
    }
}

/// The state every face agrees on (the mark above all).
fn state(
    wiring: &Wiring,
    redactor: &Redactor,
    session: Option<(&str, &ploy_agent::dispatch::Policy)>,
    busy: bool,
    approver: &RpcApprover,
) -> Value {
    let marks = session.map(|(_, p)| p.marks()).unwrap_or_default();
    json!({
        "conversation_id": session.map(|(id, _)| id),
        "project": wiring.project.to_string_lossy(),
        "profile": wiring.profile.to_string(),
        "tainted": !marks.is_empty(),
        "mark": redactor.redact(&mark_label(&marks)),
        "marks": marks.iter().map(|m| json!({
            "reason": redactor.redact(&m.reason),
            "source": redactor.redact(&m.source.to_string()),
        })).collect::<Vec<_>>(),
        "busy": busy,
        "pending_approvals": approver.pending_ids(),
    })
}

struct Rpc<'a> {
    wiring: &'a Wiring,
    linked: &'a Linked,
    out: Arc<Stdout>,
    approver: Arc<RpcApprover>,
    rx: mpsc::Receiver<Input>,
}

impl Rpc<'_> {
    fn respond(&self, id: Option<&str>, command: &str, result: Result<Value, String>) {
        self.out.line(&response(id, command, result));
    }

    fn bad(&self, bad: &BadLine) {
        self.respond(bad.id.as_deref(), &bad.command, Err(bad.error.clone()));
    }

    fn open(&self, resume: Resume, title: &str) -> Result<Session, String> {
        self.wiring
            .open(self.linked, resume, title, self.out.clone())
            .map_err(|f| match f.hint {
                Some(hint) => format!("{} ({hint})", f.message),
                None => f.message,
            })
    }

    fn session_state(&self, session: Option<&Session>, busy: bool) -> Value {
        state(
            self.wiring,
            &self.linked.redactor,
            session.map(|s| (s.conversation_id(), s.dispatcher().policy().as_ref())),
            busy,
            &self.approver,
        )
    }

    /// The idle loop: one command at a time; returns when stdin closes.
    async fn serve(&mut self, mut session: Option<Session>) {
        loop {
            let input = self.rx.recv().await;
            let command = match decode(input) {
                Next::Closed => return,
                Next::Nothing => continue,
                Next::Bad(bad) => {
                    self.bad(&bad);
                    continue;
                }
                Next::Command(command) => command,
            };
            let (id, name) = (command.id().map(str::to_string), command.name());
            let id = id.as_deref();
            match command {
                Command::Prompt { message, .. } => {
                    if message.trim().is_empty() {
                        self.respond(id, name, Err("the message is empty".into()));
                        continue;
                    }
                    if session.is_none() {
                        match self.open(Resume::New, &message) {
                            Ok(opened) => session = Some(opened),
                            Err(error) => {
                                self.respond(id, name, Err(error));
                                continue;
                            }
                        }
                    }
                    let Some(current) = session.as_mut() else {
                        continue;
                    };
                    self.respond(
                        id,
                        name,
                        Ok(json!({"conversation_id": current.conversation_id()})),
                    );
                    if self.run_prompt(current, &message).await {
                        return;
                    }
                }
                Command::Approve {
                    id: ask,
                    answer,
                    message,
                } => {
                    // Nothing waits between prompts: the approver refuses.
                    let result = self
                        .approver
                        .answer(&ask, answer, message)
                        .map(|()| Value::Null)
                        .map_err(|e| e.to_string());
                    self.respond(Some(&ask), name, result);
                }
                Command::Abort { .. } => self.respond(id, name, Ok(json!({"aborted": false}))),
                Command::GetState { .. } => {
                    let data = self.session_state(session.as_ref(), false);
                    self.respond(id, name, Ok(data));
                }
                Command::NewConversation { .. } => {
                    // Opened by the next prompt (titled by it), so an unused
                    // `new_conversation` leaves nothing in the store.
                    session = None;
                    let data = self.session_state(None, false);
                    self.respond(id, name, Ok(data));
                }
                Command::Resume {
                    conversation_id, ..
                } => match self.open(Resume::Id(conversation_id), "") {
                    Ok(opened) => {
                        let data = self.session_state(Some(&opened), false);
                        session = Some(opened);
                        self.respond(id, name, Ok(data));
                    }
                    Err(error) => self.respond(id, name, Err(error)),
                },
            }
        }
    }

    /// One prompt, while commands keep being read. True when stdin closed.
    async fn run_prompt(&mut self, session: &mut Session, message: &str) -> bool {
        let cancel = CancellationToken::new();
        let conversation_id = session.conversation_id().to_string();
        let policy = session.dispatcher().policy().clone();
        let approver = self.approver.clone();
        let mut closing = false;
        let outcome = {
            let run = session.prompt(message, approver.as_ref(), &cancel);
            tokio::pin!(run);
            loop {
                tokio::select! {
                    outcome = &mut run => break outcome,
                    input = self.rx.recv(), if !closing => {
                        let command = match decode(input) {
                            Next::Closed => {
                                // The client is gone: stop the turn and its
                                // tool work; nobody answers the asks.
                                closing = true;
                                cancel.cancel();
                                approver.clear();
                                continue;
                            }
                            Next::Nothing => continue,
                            Next::Bad(bad) => {
                                self.bad(&bad);
                                continue;
                            }
                            Next::Command(command) => command,
                        };
                        let (id, name) = (command.id().map(str::to_string), command.name());
                        let id = id.as_deref();
                        match command {
                            Command::Approve { id: ask, answer, message } => {
                                let result = approver
                                    .answer(&ask, answer, message)
                                    .map(|()| Value::Null)
                                    .map_err(|e| e.to_string());
                                self.respond(Some(&ask), name, result);
                            }
                            Command::Abort { .. } => {
                                cancel.cancel();
                                approver.clear();
                                self.respond(id, name, Ok(json!({"aborted": true})));
                            }
                            Command::GetState { .. } => {
                                let data = state(
                                    self.wiring,
                                    &self.linked.redactor,
                                    Some((&conversation_id, policy.as_ref())),
                                    true,
                                    &approver,
                                );
                                self.respond(id, name, Ok(data));
                            }
                            Command::Prompt { .. }
                            | Command::NewConversation { .. }
                            | Command::Resume { .. } => self.respond(
                                id,
                                name,
                                Err("a prompt is running: send `abort`, or wait for its `end` event".into()),
                            ),
                        }
                    }
                }
            }
        };
        approver.clear();
        self.out.emit(&Event::End {
            exit_code: outcome.exit_code(),
        });
        closing
    }
}

/// Run `ploy --mode rpc`.
pub(crate) fn run(args: &AgentArgs, log: Option<&SharedRedactor>) -> Result<ExitCode, Failure> {
    let wiring = Wiring::load(args, UiMode::Rpc, None)?;
    let rt = runtime_for_agent()?;
    let (tx, rx) = mpsc::channel(64);
    std::thread::Builder::new()
        .name("ploy-rpc-stdin".into())
        .spawn(move || read_lines(tx))
        .map_err(|e| runtime(format!("cannot start the stdin reader: {e}")))?;
    let result = rt.block_on(async {
        let linked = wiring.link(args, log).await?;
        let out = Arc::new(Stdout);
        let session = match Wiring::resume_of(args) {
            Resume::New => None,
            resume => Some(wiring.open(&linked, resume, "", out.clone())?),
        };
        let mut rpc = Rpc {
            wiring: &wiring,
            linked: &linked,
            approver: Arc::new(RpcApprover::new(out.clone(), wiring.profile.asks_user())),
            out,
            rx,
        };
        rpc.serve(session).await;
        Ok::<(), Failure>(())
    });
    // A sandboxed command of a cancelled turn is not waited for.
    rt.shutdown_background();
    result?;
    Ok(ExitCode::SUCCESS)
}
