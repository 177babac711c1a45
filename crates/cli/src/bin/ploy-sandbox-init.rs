//! `ploy-sandbox-init`: the sandbox's init, and nothing else.
//!
//! `ploy` starts this small binary (found next to itself) as PID 1 of each
//! sandbox instead of re-executing its own 18 MB image: less to map and
//! relocate at every start. It reads its request from a private descriptor
//! and does nothing useful when started any other way (it refuses unless it
//! is PID 1 of a fresh PID namespace). The code lives in `ploy-proof`.

fn main() -> std::process::ExitCode {
    ploy_proof::sandbox::init_main()
}
