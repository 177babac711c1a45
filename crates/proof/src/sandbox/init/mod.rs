//! The sandbox's init: PID 1 of fresh user, mount, PID, network, IPC and UTS
//! namespaces, single-threaded, started by the parent's one `clone` (see
//! `launch.rs`) as the small dedicated `ploy-sandbox-init` binary.
//!
//! In order: become non-dumpable (so nothing in the sandbox can open its
//! descriptors, read its memory or trace it), read the request from its
//! private descriptor, close every other descriptor, check it is PID 1,
//! build the root (`root.rs`), apply the limits, Landlock, the capability
//! drop and seccomp (`confine.rs`), then run the work (`runner.rs`) under
//! the memory guard (`memory.rs`) and report how it ended. Every step that
//! fails reports `ERR <layer>` on the status channel and stops: nothing runs
//! (SBX-5).

mod confine;
mod created;
mod memory;
mod root;
mod runner;

use std::process::ExitCode;

use ploy_validate::{Pipeline, PlanCommand, ProofPlan, StreamTarget};

pub(crate) use confine::kernel_landlock_abi;

use super::{
    collect::Termination,
    policy::Layer,
    protocol::{InitRequest, MAX_REQUEST_BYTES, PROTOCOL, REQUEST_FD, STATUS_FD, StatusLine, Work},
};
use runner::{PlanEnd, RunError, Runner};

type StepResult<T = ()> = Result<T, (Layer, String)>;

fn write_status(line: &StatusLine) {
    let mut bytes = line.render().into_bytes();
    bytes.push(b'\n');
    let mut written = 0;
    while written < bytes.len() {
        // SAFETY: writes from a live buffer to the status fd we were given.
        let n = unsafe {
            libc::write(
                STATUS_FD,
                bytes[written..].as_ptr().cast(),
                bytes.len() - written,
            )
        };
        if n <= 0 {
            if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return;
        }
        written += n as usize;
    }
}

fn report_ok(layer: Layer, detail: &str) {
    write_status(&StatusLine::Ok(layer, detail.to_string()));
}

fn simulated(request: &InitRequest, layer: Layer) -> StepResult {
    if request.simulate_missing.contains(&layer) {
        return Err((
            layer,
            format!("simulated: the {} layer is unavailable", layer.name()),
        ));
    }
    Ok(())
}

/// The init's entry: read the request, then set up and run the sandbox as
/// its PID 1. The dedicated init binary calls this first thing.
pub(crate) fn main() -> ExitCode {
    // First of all: no process in the sandbox, even one of the same user, may
    // open this process's descriptors through /proc/1/fd, read its memory or
    // trace it. The status channel is one of those descriptors, so only the
    // init can ever write the verdict (the kernel resets this at each exec,
    // so the programs themselves stay ordinary).
    let _ = rustix::process::set_dumpable_behavior(rustix::process::DumpableBehavior::NotDumpable);
    // The status fd must not leak into the program.
    // SAFETY: the number is only passed to fcntl, which checks it.
    let status = unsafe { rustix::fd::BorrowedFd::borrow_raw(STATUS_FD) };
    if let Ok(flags) = rustix::io::fcntl_getfd(status) {
        let _ = rustix::io::fcntl_setfd(status, flags | rustix::io::FdFlags::CLOEXEC);
    }
    let request = read_request();
    // Nothing but 0, 1, 2 and the status channel stays open in the init.
    // SAFETY: close_range with integer arguments (rustix has none).
    unsafe { libc::close_range((STATUS_FD + 1) as libc::c_uint, libc::c_uint::MAX, 0) };
    let outcome = request
        .map_err(|err| (Layer::Filesystem, err))
        .and_then(|request| {
            if request.protocol != PROTOCOL {
                return Err((
                    Layer::Filesystem,
                    format!(
                        "the sandbox init speaks protocol {PROTOCOL} but was sent {}: ploy and \
                     ploy-sandbox-init come from different builds; reinstall both",
                        request.protocol
                    ),
                ));
            }
            set_up_and_run(&request)
        });
    match outcome {
        Ok(code) => ExitCode::from(code.clamp(0, 255) as u8),
        Err((layer, detail)) => {
            write_status(&StatusLine::Err(layer, detail));
            ExitCode::from(125)
        }
    }
}

/// Reads the request from its private descriptor (a sealed memfd).
fn read_request() -> Result<InitRequest, String> {
    use std::io::Read;
    use std::os::fd::FromRawFd;
    // SAFETY: the number is only passed to fcntl, which checks it.
    let borrowed = unsafe { rustix::fd::BorrowedFd::borrow_raw(REQUEST_FD) };
    if rustix::io::fcntl_getfd(borrowed).is_err() {
        return Err("missing launcher request".to_string());
    }
    // SAFETY: REQUEST_FD is open (checked above) and nothing else owns it;
    // the File closes it when dropped.
    let mut file = unsafe { std::fs::File::from_raw_fd(REQUEST_FD) };
    let mut text = Vec::new();
    file.by_ref()
        .take(MAX_REQUEST_BYTES)
        .read_to_end(&mut text)
        .map_err(|err| format!("cannot read the launcher request: {err}"))?;
    serde_json::from_slice(&text).map_err(|err| format!("bad launcher request: {err}"))
}

/// Checks the namespaces, builds every layer, then runs the work.
fn set_up_and_run(request: &InitRequest) -> StepResult<i32> {
    simulated(request, Layer::UserNamespaces)?;
    // Fail closed when started any other way (e.g. by hand, outside fresh
    // namespaces): only PID 1 of a new PID namespace may go on.
    if rustix::process::getpid().as_raw_nonzero().get() != 1 {
        return Err((
            Layer::UserNamespaces,
            "the sandbox init is not PID 1 of a fresh PID namespace; start it through ploy"
                .to_string(),
        ));
    }
    report_ok(
        Layer::UserNamespaces,
        &format!(
            "user, mount, pid, net, ipc and uts namespaces (uid {} mapped to itself)",
            request.uid
        ),
    );
    // Set again after exec (the clone child set it before): the sandbox dies
    // with the thread that started it.
    let _ = rustix::process::set_parent_process_death_signal(Some(rustix::process::Signal::KILL));
    simulated(request, Layer::Filesystem)?;
    let built = root::build(request)?;
    report_ok(
        Layer::Filesystem,
        "private root: system folders read-only, project, private /tmp, fresh /proc, minimal \
         /dev, no home; PERM-7 paths read-only, sockets cut off",
    );
    let _ = rustix::system::sethostname(b"ploy-sandbox");

    simulated(request, Layer::Limits)?;
    confine::set_limits(&request.limits).map_err(|err| (Layer::Limits, err))?;
    report_ok(
        Layer::Limits,
        &format!(
            "processes, CPU, file size, open files; memory {} MiB in total (summed by the init, \
             SysV shared memory included{}) and per process (RLIMIT_DATA); no memfd",
            request.limits.memory_bytes >> 20,
            if built.ipc_capped {
                " and capped by the kernel"
            } else {
                ""
            }
        ),
    );

    simulated(request, Layer::Landlock)?;
    let landlock =
        confine::apply_landlock(&request.view.project, request.view.build_cache.is_some())
            .map_err(|err| (Layer::Landlock, err))?;
    report_ok(Layer::Landlock, &landlock);

    simulated(request, Layer::Seccomp)?;
    confine::drop_capabilities().map_err(|err| (Layer::Seccomp, err))?;
    let filters = confine::install_seccomp().map_err(|err| (Layer::Seccomp, err))?;
    report_ok(
        Layer::Seccomp,
        &format!("no_new_privs, no capabilities, {filters} filters in one program"),
    );
    let mut guard = memory::MemoryGuard::new(
        request.limits.memory_bytes,
        built.cow,
        built.cache.map(|fd| {
            (
                fd,
                request.limits.build_cache_bytes,
                request.limits.build_cache_inodes,
            )
        }),
    );
    if !request.view.copy_on_write {
        let watch = created::CreationWatch::start(&request.view.project, &request.view.protected)
            .map_err(|err| (Layer::Filesystem, format!("SBX-6: {err}")))?;
        guard.watch_creations(watch);
    }
    run_work(request, &mut guard)
}

/// Runs what the request asks for and reports how it ended.
fn run_work(request: &InitRequest, guard: &mut memory::MemoryGuard) -> StepResult<i32> {
    let single;
    let (plan, exec_errors_fatal) = match &request.work {
        Work::Probe => {
            write_status(&StatusLine::Ready);
            return Ok(0);
        }
        Work::Program { argv } => {
            if argv.is_empty() {
                return Err((Layer::Exec, "no program to run".to_string()));
            }
            single = ProofPlan {
                first: Pipeline {
                    negated: false,
                    commands: vec![PlanCommand {
                        argv: argv.clone(),
                        stdout: StreamTarget::Inherit,
                        stderr: StreamTarget::Inherit,
                    }],
                },
                rest: Vec::new(),
            };
            (&single, true)
        }
        Work::Plan(plan) => {
            // The plan crossed a process boundary: check it again here.
            plan.check().map_err(|err| (Layer::Exec, err.to_string()))?;
            (plan, false)
        }
    };
    runner::block_child_signal();
    let mut runner = Runner::new(exec_errors_fatal, guard).map_err(run_error)?;
    let result = runner.run_plan(plan);
    drop(runner);
    let end = match result {
        Ok(PlanEnd::Code(code)) => Termination::Exited(code),
        Ok(PlanEnd::Signal(signal)) => Termination::Signaled(signal),
        Err(RunError::Limit(reason)) => {
            // Everything was killed: the run fails, whatever `||` followed.
            let which = if guard.creation_tripped() {
                "protected path"
            } else if guard.cache_tripped() {
                "build cache"
            } else {
                "memory"
            };
            write_status(&StatusLine::Limit(which.to_string(), reason));
            Termination::Signaled(libc::SIGKILL)
        }
        Err(err) => return Err(run_error(err)),
    };
    write_status(&StatusLine::Exit(end));
    Ok(match end {
        Termination::Exited(code) => code,
        Termination::Signaled(signal) => 128 + signal,
    })
}

fn run_error(err: RunError) -> (Layer, String) {
    match err {
        RunError::Exec(detail) | RunError::Init(detail) | RunError::Limit(detail) => {
            (Layer::Exec, detail)
        }
    }
}
