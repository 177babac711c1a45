//! A closed stdout or stderr ends `ploy` quietly, once for the whole binary.
//!
//! `ploy … | head -c 1` closes the pipe ploy prints into; the next write
//! fails with EPIPE (Rust ignores SIGPIPE, so the process is not killed).
//! std's `print!`/`println!`/`eprint!`/`eprintln!` then panic with "failed
//! printing to stdout: Broken pipe", a backtrace on stderr and exit code 101.
//!
//! The fix is one panic hook, installed first thing in `main`: a panic whose
//! message is std's "failed printing to stdout|stderr: …" with an OS error
//! whose kind is `BrokenPipe` exits at once with [`CLOSED_OUTPUT`] (141, what
//! a shell reports for a process killed by SIGPIPE, as `seq 1 100000 | head
//! -c 1` reports for `seq`), printing nothing. Every other panic goes to the
//! previous hook unchanged. Code that writes to stdout itself (a `Write` on
//! `io::stdout()`) asks [`is_closed_pipe`] and returns [`closed_exit`].
//!
//! Why not restore SIGPIPE's default action: ploy also writes into pipes to
//! its own children (extensions' stdin, the sandbox's report pipe); with the
//! default action a child that closes its end would kill ploy mid-decision
//! instead of giving an error ploy can handle ("every failure is no answer").
//!
//! The hook matches std's message text; `crates/cli/tests/epipe.rs` runs
//! every printing command into a closed pipe, so a change in std's wording
//! fails the tests instead of bringing the backtrace back.

use std::any::Any;
use std::io;
use std::process::ExitCode;

/// The exit code after the reader of ploy's output went away: 128 + SIGPIPE.
pub const CLOSED_OUTPUT: u8 = 141;

/// Install the hook (see the module docs). Call once, first in `main`.
pub fn exit_quietly_on_closed_output() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if is_closed_output_panic(info.payload()) {
            std::process::exit(i32::from(CLOSED_OUTPUT));
        }
        previous(info);
    }));
}

/// True for an I/O error that means "the reader went away".
pub fn is_closed_pipe(err: &io::Error) -> bool {
    err.kind() == io::ErrorKind::BrokenPipe
}

/// The exit code to return when the reader of ploy's output went away.
pub fn closed_exit() -> ExitCode {
    ExitCode::from(CLOSED_OUTPUT)
}

/// std's panic for a failed print: `failed printing to stdout: <io error>`,
/// where an OS error displays as `… (os error N)`.
fn is_closed_output_panic(payload: &(dyn Any + Send)) -> bool {
    let message = payload
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| payload.downcast_ref::<&str>().copied());
    let Some(message) = message else {
        return false;
    };
    let Some(error) = message
        .strip_prefix("failed printing to stdout: ")
        .or_else(|| message.strip_prefix("failed printing to stderr: "))
    else {
        return false;
    };
    os_error_code(error).is_some_and(|code| is_closed_pipe(&io::Error::from_raw_os_error(code)))
}

/// The `N` of a trailing `(os error N)`.
fn os_error_code(text: &str) -> Option<i32> {
    let start = text.rfind("(os error ")? + "(os error ".len();
    text[start..].strip_suffix(')')?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_exactly_std_print_failures_on_a_closed_pipe() {
        let epipe = io::Error::from(io::ErrorKind::BrokenPipe);
        assert!(is_closed_pipe(&epipe));
        let raw = io::Error::from_raw_os_error(32);
        for stream in ["stdout", "stderr"] {
            let msg = format!("failed printing to {stream}: {raw}");
            assert!(is_closed_output_panic(&msg), "{msg}");
        }
        let other = io::Error::from_raw_os_error(28); // ENOSPC
        for msg in [
            format!("failed printing to stdout: {other}"),
            "failed printing to stdout: formatter error".to_string(),
            format!("something else: {raw}"),
            "index out of bounds".to_string(),
        ] {
            assert!(!is_closed_output_panic(&msg), "{msg}");
        }
        assert!(!is_closed_output_panic(&7_u32));
        assert!(is_closed_output_panic(
            &"failed printing to stdout: Broken pipe (os error 32)"
        ));
    }
}
