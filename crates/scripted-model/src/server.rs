//! The HTTP side: a real OpenAI-compatible server on 127.0.0.1:0.

use std::convert::Infallible;
use std::io;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use bytes::Bytes;
use http::{HeaderValue, Method, Request, Response, StatusCode, header};
use http_body_util::{BodyExt, Full, Limited, StreamBody, combinators::UnsyncBoxBody};
use hyper::body::{Frame, Incoming};
use hyper_util::rt::TokioIo;
use ploy_model::types::{ChunkChoice, Delta, FunctionDelta, ToolCallDelta, ToolKind};
use ploy_model::{
    AssistantMessage, ChatChunk, ChatCompletionRequest, ChatResponse, FinishReason, Usage,
};
use serde_json::{Value, json};
use tokio::net::TcpListener;

use crate::record;
use crate::script::{Answer, Script};

/// The path the model answers on.
pub const CHAT_PATH: &str = "/v1/chat/completions";

/// The largest request body read (bigger ones get 413).
const MAX_REQUEST_BYTES: usize = 32 * 1024 * 1024;

/// One request the model received.
#[derive(Debug, Clone, PartialEq)]
pub struct Recorded {
    /// `POST`, `GET`, …
    pub method: String,
    /// Path and query.
    pub target: String,
    /// Header names (lower case) and values.
    pub headers: Vec<(String, String)>,
    /// The body as text.
    pub body: String,
    /// The body parsed, when it is a chat completion request.
    pub request: Option<ChatCompletionRequest>,
}

impl Recorded {
    /// The request head as text (request line, `name: value` lines, blank line).
    pub fn head(&self) -> String {
        record::head_text(&self.method, &self.target, &self.headers)
    }

    /// The first value of header `name` (any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        record::header(&self.headers, name)
    }
}

struct State {
    script: Mutex<(Script, u64)>,
    requests: Mutex<Vec<Recorded>>,
    answers: Mutex<Vec<Answer>>,
    /// Requests received (recorded or not).
    received: AtomicUsize,
    finished: AtomicUsize,
    cancelled: AtomicUsize,
    model: String,
    /// False for a [`Script::forgetful`] script.
    records: bool,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panicking test thread must not hide what the model saw.
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

enum Stop {
    Task(tokio::task::JoinHandle<()>),
    Thread(Option<tokio::sync::oneshot::Sender<()>>),
}

/// A running scripted model. Dropping it stops the server.
pub struct ScriptedModel {
    addr: SocketAddr,
    state: Arc<State>,
    stop: Stop,
}

impl std::fmt::Debug for ScriptedModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScriptedModel")
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}

impl Drop for ScriptedModel {
    fn drop(&mut self) {
        match &mut self.stop {
            Stop::Task(task) => task.abort(),
            Stop::Thread(sender) => {
                if let Some(sender) = sender.take() {
                    let _ = sender.send(());
                }
            }
        }
    }
}

/// Starts the model on 127.0.0.1:0 on the current tokio runtime.
pub async fn serve(script: Script) -> io::Result<ScriptedModel> {
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    let state = new_state(script);
    let task = tokio::spawn(accept_loop(listener, state.clone()));
    Ok(ScriptedModel {
        addr,
        state,
        stop: Stop::Task(task),
    })
}

/// Starts the model on 127.0.0.1:0 on its own thread and runtime: for
/// synchronous tests and commands (the server outlives no caller: dropping
/// the handle stops it).
pub fn serve_in_thread(script: Script) -> io::Result<ScriptedModel> {
    let state = new_state(script);
    let (ready, addr) = std::sync::mpsc::channel();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let thread_state = state.clone();
    std::thread::Builder::new()
        .name("ploy-scripted-model".into())
        .spawn(move || {
            let runtime = match tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            {
                Ok(runtime) => runtime,
                Err(error) => {
                    let _ = ready.send(Err(error));
                    return;
                }
            };
            runtime.block_on(async move {
                let listener = match TcpListener::bind("127.0.0.1:0").await {
                    Ok(listener) => listener,
                    Err(error) => {
                        let _ = ready.send(Err(error));
                        return;
                    }
                };
                let _ = ready.send(listener.local_addr());
                tokio::select! {
                    () = accept_loop(listener, thread_state) => {}
                    _ = stopped => {}
                }
            });
        })?;
    let addr = addr
        .recv()
        .map_err(|_| io::Error::other("the scripted model's thread ended before listening"))??;
    Ok(ScriptedModel {
        addr,
        state,
        stop: Stop::Thread(Some(stop)),
    })
}

fn new_state(script: Script) -> Arc<State> {
    let records = script.records();
    Arc::new(State {
        records,
        script: Mutex::new((script, 0)),
        requests: Mutex::new(Vec::new()),
        answers: Mutex::new(Vec::new()),
        received: AtomicUsize::new(0),
        finished: AtomicUsize::new(0),
        cancelled: AtomicUsize::new(0),
        model: "ploy-scripted".into(),
    })
}

impl ScriptedModel {
    /// The listening address (127.0.0.1).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://127.0.0.1:<port>/v1/chat/completions`.
    pub fn url(&self) -> String {
        format!("http://{}{CHAT_PATH}", self.addr)
    }

    /// `http://127.0.0.1:<port>/v1` (what OpenAI clients call the base URL).
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// Every request received, in order (none for a forgetful script).
    pub fn requests(&self) -> Vec<Recorded> {
        lock(&self.state.requests).clone()
    }

    /// Whether any request (head or body) contained `needle`: the check
    /// that the model never saw a secret. Panics for a
    /// [`Script::forgetful`] model, which could only answer "no".
    pub fn saw(&self, needle: &str) -> bool {
        assert!(
            self.state.records,
            "a forgetful scripted model keeps no requests: it cannot say what it saw"
        );
        lock(&self.state.requests).iter().any(|request| {
            request.body.contains(needle)
                || request.target.contains(needle)
                || request
                    .headers
                    .iter()
                    .any(|(n, v)| n.contains(needle) || v.contains(needle))
        })
    }

    /// Every answer given, in order (with why: directive, rule, script).
    pub fn answers(&self) -> Vec<Answer> {
        lock(&self.state.answers).clone()
    }

    /// Requests received, recorded or not.
    pub fn received(&self) -> usize {
        self.state.received.load(Ordering::SeqCst)
    }

    /// Answers delivered to the end.
    pub fn finished(&self) -> usize {
        self.state.finished.load(Ordering::SeqCst)
    }

    /// Streamed answers whose client went away before the end.
    pub fn cancelled(&self) -> usize {
        self.state.cancelled.load(Ordering::SeqCst)
    }

    /// Scripted turns not yet used.
    pub fn remaining_turns(&self) -> usize {
        lock(&self.state.script).0.remaining()
    }
}

async fn accept_loop(listener: TcpListener, state: Arc<State>) {
    while let Ok((stream, _)) = listener.accept().await {
        let state = state.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |request| {
                let state = state.clone();
                async move { Ok::<_, Infallible>(handle(request, &state).await) }
            });
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

type Body = UnsyncBoxBody<Bytes, Infallible>;

fn json_response(status: StatusCode, value: &Value) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::from(value.to_string())).boxed_unsync());
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

fn error_response(status: StatusCode, message: &str) -> Response<Body> {
    json_response(
        status,
        &json!({"error": {"message": message, "type": "scripted_model_error"}}),
    )
}

async fn handle(request: Request<Incoming>, state: &Arc<State>) -> Response<Body> {
    let (parts, body) = request.into_parts();
    let body = match Limited::new(body, MAX_REQUEST_BYTES).collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(_) => {
            return error_response(
                StatusCode::PAYLOAD_TOO_LARGE,
                "scripted model: the request body is too large",
            );
        }
    };
    let parsed = serde_json::from_slice::<ChatCompletionRequest>(&body);
    let number = state.received.fetch_add(1, Ordering::SeqCst) + 1;
    if state.records {
        lock(&state.requests).push(Recorded {
            method: parts.method.as_str().to_owned(),
            target: record::target(&parts),
            headers: record::headers(&parts),
            body: String::from_utf8_lossy(&body).into_owned(),
            request: parsed.as_ref().ok().cloned(),
        });
    }
    match (&parts.method, parts.uri.path()) {
        (&Method::GET, "/v1/models") => {
            return json_response(
                StatusCode::OK,
                &json!({"object": "list", "data": [{"id": state.model, "object": "model", "owned_by": "ploy"}]}),
            );
        }
        (&Method::POST, CHAT_PATH) => {}
        _ => {
            return error_response(
                StatusCode::NOT_FOUND,
                "scripted model: only POST /v1/chat/completions and GET /v1/models",
            );
        }
    }
    let request = match parsed {
        Ok(request) => request,
        Err(error) => {
            return error_response(
                StatusCode::BAD_REQUEST,
                &format!("scripted model: not a chat completion request ({error})"),
            );
        }
    };
    let answer = {
        let mut guard = lock(&state.script);
        let (script, next_id) = &mut *guard;
        script.respond(&request, next_id)
    };
    if state.records {
        lock(&state.answers).push(answer.clone());
    }
    if let Some((status, message)) = &answer.error {
        state.finished.fetch_add(1, Ordering::SeqCst);
        return error_response(
            StatusCode::from_u16(*status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
            message,
        );
    }
    let id = format!("chatcmpl-scripted-{number}");
    if !request.stream {
        if !answer.pause.is_zero() {
            tokio::time::sleep(answer.pause).await;
        }
        state.finished.fetch_add(1, Ordering::SeqCst);
        return json_response(StatusCode::OK, &completion(&answer, &id, &state.model));
    }
    let events = stream_events(&answer, &id, &state.model);
    let mut response = Response::new(event_body(events, answer.pause, state.clone()));
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

fn finish_reason(answer: &Answer) -> FinishReason {
    if answer.calls.is_empty() {
        FinishReason::Stop
    } else {
        FinishReason::ToolCalls
    }
}

/// The non-streamed reply (`chat.completion`).
fn completion(answer: &Answer, id: &str, model: &str) -> Value {
    let response = ChatResponse {
        id: id.to_owned(),
        model: model.to_owned(),
        choices: vec![ploy_model::types::Choice {
            index: 0,
            message: AssistantMessage {
                content: answer.text.clone(),
                tool_calls: answer.calls.clone(),
            },
            finish_reason: Some(finish_reason(answer)),
        }],
        usage: Some(Usage::default()),
    };
    let mut value = serde_json::to_value(&response).unwrap_or(Value::Null);
    if let Some(object) = value.as_object_mut() {
        object.insert("object".into(), json!("chat.completion"));
        // OpenAI writes the role on the message.
        if let Some(message) = object
            .get_mut("choices")
            .and_then(|c| c.get_mut(0))
            .and_then(|c| c.get_mut("message"))
            .and_then(Value::as_object_mut)
        {
            message.insert("role".into(), json!("assistant"));
        }
    }
    value
}

fn chunk(id: &str, model: &str, delta: Delta, finish: Option<FinishReason>) -> String {
    let chunk = ChatChunk {
        id: id.to_owned(),
        model: model.to_owned(),
        choices: vec![ChunkChoice {
            index: 0,
            delta,
            finish_reason: finish,
        }],
        usage: None,
    };
    let mut value = serde_json::to_value(&chunk).unwrap_or(Value::Null);
    if let Some(object) = value.as_object_mut() {
        object.insert("object".into(), json!("chat.completion.chunk"));
    }
    value.to_string()
}

/// The SSE events of a streamed reply: the role, the text pieces, each
/// call's head then its arguments in two pieces, the finish, `[DONE]`.
fn stream_events(answer: &Answer, id: &str, model: &str) -> Vec<String> {
    let mut events = Vec::new();
    let mut pieces = answer.pieces.iter();
    events.push(chunk(
        id,
        model,
        Delta {
            role: Some("assistant".into()),
            content: pieces.next().cloned(),
            tool_calls: Vec::new(),
        },
        None,
    ));
    for piece in pieces {
        events.push(chunk(
            id,
            model,
            Delta {
                content: Some(piece.clone()),
                ..Delta::default()
            },
            None,
        ));
    }
    for (index, call) in answer.calls.iter().enumerate() {
        let index = u32::try_from(index).unwrap_or(u32::MAX);
        events.push(chunk(
            id,
            model,
            Delta {
                tool_calls: vec![ToolCallDelta {
                    index: Some(index),
                    id: Some(call.id.clone()),
                    kind: Some(ToolKind::Function),
                    function: Some(FunctionDelta {
                        name: Some(call.function.name.clone()),
                        arguments: Some(String::new()),
                    }),
                }],
                ..Delta::default()
            },
            None,
        ));
        let arguments = &call.function.arguments;
        let mut middle = arguments.len() / 2;
        while !arguments.is_char_boundary(middle) {
            middle += 1;
        }
        for part in [&arguments[..middle], &arguments[middle..]] {
            events.push(chunk(
                id,
                model,
                Delta {
                    tool_calls: vec![ToolCallDelta {
                        index: Some(index),
                        function: Some(FunctionDelta {
                            name: None,
                            arguments: Some(part.to_owned()),
                        }),
                        ..ToolCallDelta::default()
                    }],
                    ..Delta::default()
                },
                None,
            ));
        }
    }
    events.push(chunk(
        id,
        model,
        Delta::default(),
        Some(finish_reason(answer)),
    ));
    events.push("[DONE]".to_owned());
    events
}

/// Counts a stream as finished when it ends, cancelled when dropped early.
struct StreamGuard {
    state: Arc<State>,
    done: bool,
}

impl StreamGuard {
    /// The stream reached its end.
    fn finish(mut self) {
        self.done = true;
    }
}

impl Drop for StreamGuard {
    fn drop(&mut self) {
        let counter = if self.done {
            &self.state.finished
        } else {
            &self.state.cancelled
        };
        counter.fetch_add(1, Ordering::SeqCst);
    }
}

fn event_body(events: Vec<String>, pause: std::time::Duration, state: Arc<State>) -> Body {
    let guard = StreamGuard { state, done: false };
    let stream = futures_util::stream::unfold(
        (events.into_iter(), 0usize, guard),
        move |(mut events, sent, guard)| async move {
            let Some(event) = events.next() else {
                guard.finish();
                return None;
            };
            if sent > 0 && !pause.is_zero() {
                tokio::time::sleep(pause).await;
            }
            let frame = Frame::data(Bytes::from(format!("data: {event}\n\n")));
            Some((Ok::<_, Infallible>(frame), (events, sent + 1, guard)))
        },
    );
    StreamBody::new(stream).boxed_unsync()
}
