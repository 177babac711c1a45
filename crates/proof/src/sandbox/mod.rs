//! The Linux sandbox that fails closed (SBX-1..6, BEYOND-3, BEYOND-4).
//!
//! How a run works:
//! 1. **Policy** (`policy.rs`): the parent checks the project folder, the
//!    extra read-only folders and the build cache, and builds the program's
//!    environment from an allowlist (`env.rs`, SBX-4).
//! 2. **Project view** (`view.rs`): it walks the project for the PERM-7 paths
//!    (through `ploy_policy::ProtectedPaths::protects`, the one PERM-7
//!    function), the `.git` folders to pin and the socket files to cut off
//!    (SBX-6), and lists what to hide (SBX-3).
//! 3. **Launch** (`launch.rs`): one `clone` starts the small dedicated init
//!    binary (`ploy-sandbox-init`, next to `ploy`) directly as PID 1 of new
//!    user, mount, PID, network, IPC and UTS namespaces, with exactly that
//!    environment, stdin from `/dev/null`, and the request on a private
//!    sealed memfd. Nothing else the caller holds reaches it.
//! 4. **The init** (`init/`): non-dumpable from its first instruction, it
//!    builds the root, applies the limits, Landlock, the capability drop and
//!    seccomp, then runs the program or the typed proof plan itself (no
//!    shell), summing the whole sandbox's memory as it waits (`init/memory.rs`).
//! 5. **Output collection** (`collect.rs`, `protocol.rs`): one poll loop reads
//!    the output (capped), the status channel and the init's exit, and kills
//!    the sandbox at the wall-time limit. A result is accepted only when the
//!    init confirmed every layer and its report has the one shape only the
//!    init writes, agreeing with its own exit status (SBX-5).

mod build_cache;
mod collect;
mod env;
mod init;
mod launch;
pub mod macos;
mod policy;
mod protocol;
mod seccomp;
mod system_secrets;
mod view;

use std::{
    path::{Path, PathBuf},
    process::ExitCode,
    sync::{Arc, Mutex, OnceLock, atomic::AtomicBool},
};

use ploy_validate::ProofPlan;
use serde::Serialize;

pub use collect::{RunOutput, Termination};
pub use env::{ALLOWED_ENV_NAMES, build_env, child_path, git_pinned_env, looks_secret, safe_path};
pub use policy::{
    BUILD_CACHE_MOUNT, BUILD_CACHE_VARIABLES, CARGO_HOME_PARTS, Layer, Limits, MAX_BYTECODE_MASKS,
    ProjectView, SANDBOX_HOME, SENSITIVE_HOME_ENTRIES, SYSTEM_READ_ONLY, SandboxError,
    SandboxPolicy, add_home_toolchains,
};
pub use view::unmapped_owner;

use launch::{Launched, launch};
use policy::{check_extra_read_only, check_project, sensitive_paths};
use protocol::{InitRequest, PROTOCOL, StatusReport, ViewSpec, Work};

/// The hidden first argument the init is started with. A binary that is
/// not the dedicated init (a test helper) can serve as its own init by
/// calling [`init_entry_if_requested`] first thing in `main`.
pub const INIT_MARKER: &str = "__ploy-sandbox-init";

/// The dedicated init binary, installed next to `ploy` (`cargo install`
/// installs both).
pub const INIT_BINARY: &str = "ploy-sandbox-init";

/// The state of one layer on this machine.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LayerStatus {
    /// The layer.
    pub layer: Layer,
    /// `ok`, `missing` or `not-checked` (an earlier layer failed).
    pub state: LayerState,
    /// What was found.
    pub detail: String,
}

/// Whether a layer works.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum LayerState {
    /// Built and exercised in a real probe sandbox.
    Ok,
    /// Failed; nothing can run.
    Missing,
    /// Not reached because an earlier layer failed.
    NotChecked,
}

/// The result of [`Sandbox::probe`]: every layer, the Landlock ABI and the
/// verdict (SBX-5).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ProbeReport {
    /// Every probed layer in setup order.
    pub layers: Vec<LayerStatus>,
    /// The kernel's Landlock ABI version (0 when Landlock is unavailable).
    pub landlock_abi: i64,
    /// Whether ploy runs as root (the process-count limit is then not
    /// enforced by the kernel).
    pub running_as_root: bool,
    /// How the memory limit holds in total on this machine.
    pub memory_mechanism: String,
}

impl ProbeReport {
    /// True only when every layer is `ok`.
    pub fn can_run(&self) -> bool {
        self.layers
            .iter()
            .all(|status| status.state == LayerState::Ok)
    }

    /// The first missing layer, as the error that stops every run.
    pub fn first_missing(&self) -> Option<SandboxError> {
        self.layers
            .iter()
            .find(|status| status.state == LayerState::Missing)
            .or_else(|| {
                self.layers
                    .iter()
                    .find(|status| status.state != LayerState::Ok)
            })
            .map(|status| SandboxError::LayerMissing {
                layer: status.layer,
                detail: status.detail.clone(),
            })
    }
}

/// How the memory limit holds in total, as `ploy doctor` says it.
pub fn memory_mechanism() -> String {
    "summed by the sandbox init: the private and shared memory of every process in the \
     sandbox plus its /tmp, /dev/shm and copy-on-write layer (bytes, and 1536 bytes per file \
     or folder; each has an inode bound) and SysV segments and queued messages (its own IPC \
     namespace, also capped by kernel.shmall where allowed), checked every 5-50 ms; memfd_create absent; \
     RLIMIT_DATA per process (a delegated cgroup v2 memory controller is not used, so kernel \
     socket and pipe buffers are not counted)"
        .to_string()
}

/// The sandbox: a checked policy plus the init binary.
#[derive(Debug, Clone)]
pub struct Sandbox {
    policy: SandboxPolicy,
    project: PathBuf,
    /// System and extra folders bound read-only.
    read_only: Vec<PathBuf>,
    sensitive: Vec<PathBuf>,
    /// The project's folder under the build-cache root; each run gets its
    /// own private, empty cache in it (`build_cache.rs`).
    build_cache: Option<PathBuf>,
    set_env: Vec<(String, String)>,
    init: PathBuf,
    /// ploy's state folder, where the list of the host's secrets under
    /// `/etc` is kept between runs (`system_secrets.rs`); `None`: walked at
    /// every run.
    state: Option<PathBuf>,
    simulate_missing: Vec<Layer>,
    /// Set from outside to end the run at once (a cancelled agent turn).
    stop: Option<Arc<AtomicBool>>,
    /// Whether SIGINT, SIGTERM and SIGHUP end the run ([`Self::stop_on_signals`]).
    stop_on_signal: bool,
}

/// The probe result of this process, per init binary (SBX-5: probe before
/// the first run).
static PROBE_CACHE: OnceLock<Mutex<Vec<(PathBuf, ProbeReport)>>> = OnceLock::new();

/// The dedicated init next to the running executable.
fn sibling_init() -> Result<PathBuf, SandboxError> {
    let exe = std::env::current_exe().map_err(|err| {
        SandboxError::Launcher(format!("cannot find the running executable: {err}"))
    })?;
    let init = exe.with_file_name(INIT_BINARY);
    if !init.is_file() {
        return Err(SandboxError::Launcher(format!(
            "the sandbox init {} is missing; it is installed next to {} (`cargo install` and \
             `cargo build -p ploy` build both): reinstall ploy",
            init.display(),
            exe.display()
        )));
    }
    Ok(init)
}

impl Sandbox {
    /// Checks the policy and prepares a sandbox that runs the dedicated init
    /// binary [`INIT_BINARY`] found next to the running executable.
    pub fn new(policy: SandboxPolicy) -> Result<Sandbox, SandboxError> {
        Sandbox::with_init(policy, sibling_init()?)
    }

    /// Like [`Sandbox::new`] with an explicit init binary: the dedicated one,
    /// or a binary that calls [`init_entry_if_requested`] first in `main`.
    pub fn with_init(policy: SandboxPolicy, init: PathBuf) -> Result<Sandbox, SandboxError> {
        let home = std::env::var_os("HOME").map(PathBuf::from);
        let project = check_project(&policy.project, home.as_deref())?;
        let mut sensitive = sensitive_paths(home.as_deref());
        // BEYOND-3 holds for the home the user database names too, when
        // HOME says otherwise (found attacking it: HOME=/tmp/x let `--project
        // <real home>` through, dotfiles and tokens included).
        if let Some(real) = policy::passwd_home()
            && home.as_ref().and_then(|h| h.canonicalize().ok()) != real.canonicalize().ok()
        {
            check_project(&policy.project, Some(&real))?;
            sensitive.extend(sensitive_paths(Some(&real)));
        }
        let mut read_only: Vec<PathBuf> = SYSTEM_READ_ONLY.iter().map(PathBuf::from).collect();
        read_only.extend(check_extra_read_only(
            &policy.extra_read_only,
            home.as_deref(),
            &sensitive,
        )?);
        let build_cache = policy
            .build_cache_root
            .as_deref()
            .map(|root| build_cache::project_cache_dir(root, &project))
            .transpose()?;
        let mut set_env: Vec<(String, String)> = policy
            .set_env
            .iter()
            .filter(|(name, _)| !looks_secret(name) && !matches!(name.as_str(), "HOME" | "TMPDIR"))
            .cloned()
            .collect();
        // ploy's own fixed paths, set after the filter above: a name like
        // `npm_config_cache` reads as secret-looking to it, its value is not.
        if build_cache.is_some() {
            for (variable, sub) in BUILD_CACHE_VARIABLES {
                set_env.retain(|(name, _)| name != variable);
                set_env.push((variable.to_string(), format!("{BUILD_CACHE_MOUNT}/{sub}")));
            }
        }
        Ok(Sandbox {
            policy,
            project,
            read_only,
            sensitive,
            build_cache,
            set_env,
            init,
            state: ploy_dirs::PloyDirs::from_env().ok().map(|dirs| dirs.state),
            simulate_missing: Vec::new(),
            stop: None,
            stop_on_signal: false,
        })
    }

    /// Test seam (SBX-5): make the init treat `layer` as missing, as it
    /// would on a machine without it. It can only remove layers, never skip one.
    pub fn simulate_missing_layer(&mut self, layer: Layer) {
        self.simulate_missing.push(layer);
    }

    /// Ends the run at once when `flag` becomes true: the init (PID 1 of
    /// the sandbox) is killed, so every process in it dies, and the output
    /// says `cancelled`. An agent whose turn is cancelled (Ctrl-C, RPC
    /// `abort`) sets it; without it a cancelled turn's command would run on
    /// in a process that lives on. Checked at least every 50 ms.
    pub fn stop_on(&mut self, flag: Arc<AtomicBool>) {
        self.stop = Some(flag);
    }

    /// For a command-line run: SIGINT (Ctrl-C), SIGTERM and SIGHUP end the
    /// run like [`Self::stop_on`] instead of killing ploy, so what follows a
    /// run still happens: the PERM-7 paths the program created in a writable
    /// project are moved aside and reported (SBX-6), the run's build cache
    /// is removed (BEYOND-4). Found attacking it: a program that created
    /// `.envrc` and waited was left in place by a Ctrl-C, with no word.
    /// Installs process-wide handlers that only set a flag.
    pub fn stop_on_signals(&mut self) -> Result<(), SandboxError> {
        for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
            // SAFETY: a zeroed sigaction with a handler that only stores to
            // an atomic (async-signal-safe); no SA_RESTART, so the output
            // loop's poll returns at once.
            let installed = unsafe {
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = note_stop_signal as *const () as libc::sighandler_t;
                libc::sigemptyset(&mut action.sa_mask);
                libc::sigaction(signal, &action, std::ptr::null_mut())
            };
            if installed != 0 {
                return Err(SandboxError::Launcher(format!(
                    "cannot take signal {signal} to stop the sandbox cleanly: {}",
                    std::io::Error::last_os_error()
                )));
            }
        }
        self.stop_on_signal = true;
        Ok(())
    }

    /// The canonical project folder.
    pub fn project(&self) -> &Path {
        &self.project
    }

    /// The policy this sandbox was built from.
    pub fn policy(&self) -> &SandboxPolicy {
        &self.policy
    }

    /// The project's build-cache folder on the host, when the policy has
    /// one. Each run builds in its own private folder inside it, removed
    /// when the run ends: nothing one proof writes there is seen by another
    /// (BEYOND-4, SBX-5).
    pub fn build_cache(&self) -> Option<&Path> {
        self.build_cache.as_deref()
    }

    /// Probes every layer by building a real sandbox around an empty project
    /// and stopping before a program would start (SBX-5). Cached per init
    /// binary for the life of the process (not when a layer is simulated
    /// missing).
    pub fn probe(&self) -> ProbeReport {
        let cacheable = self.simulate_missing.is_empty();
        let cache = PROBE_CACHE.get_or_init(|| Mutex::new(Vec::new()));
        if cacheable
            && let Ok(entries) = cache.lock()
            && let Some((_, report)) = entries.iter().find(|(l, _)| *l == self.init)
        {
            return report.clone();
        }
        let report = probe_with(&self.init, &self.simulate_missing);
        if cacheable
            && report.can_run()
            && let Ok(mut entries) = cache.lock()
        {
            entries.push((self.init.clone(), report.clone()));
        }
        report
    }

    /// Runs `program args...` in the sandbox, in the project folder, and
    /// captures its output. Refuses to run anything when a layer is missing;
    /// a program that cannot be started is an error ([`SandboxError::Exec`]).
    ///
    /// Every run is its own probe (SBX-5): the init checks each layer before
    /// the program starts and stops at the first missing one, and the result
    /// is only accepted when the init confirmed every layer.
    pub fn run(&self, program: &str, args: &[String]) -> Result<RunOutput, SandboxError> {
        let mut argv = Vec::with_capacity(args.len() + 1);
        argv.push(program.to_string());
        argv.extend(args.iter().cloned());
        self.run_work(Work::Program { argv })
    }

    /// Runs a validated proof plan in the sandbox: the init runs each
    /// command itself (argv vectors, pipes, `&&`, `||`, `!`, `/dev/null` and
    /// `2>&1`), never a shell (PROOF-6). Statuses are as POSIX defines them
    /// ([`ProofPlan::evaluate`]); a command that cannot be started has status
    /// 127 (not found) or 126, as in a shell. The plan is checked here and
    /// again by the init ([`ProofPlan::check`]).
    pub fn run_plan(&self, plan: &ProofPlan) -> Result<RunOutput, SandboxError> {
        plan.check().map_err(|err| SandboxError::PolicyRefused {
            rule: "PROOF-6",
            reason: format!("{err}; nothing was run"),
        })?;
        self.run_work(Work::Plan(plan.clone()))
    }

    /// The file system the init builds for this run, from a fresh walk of
    /// the project (SBX-3, SBX-6).
    fn view_spec(&self, build_cache: Option<&Path>) -> Result<ViewParts, SandboxError> {
        let scan = view::scan_project(&self.project, view::Unlistable::Refuse)?;
        let mut masks = view::masks_inside(&self.project, &self.sensitive);
        // ploy's own folders (PLOY_CONFIG_DIR, PLOY_STATE_DIR) and a cargo
        // home's credentials may live under a folder that is bound read-only,
        // e.g. /opt: hide them there too.
        for path in &self.sensitive {
            if self.read_only.iter().any(|dir| path.starts_with(dir))
                && path.symlink_metadata().is_ok()
                && !masks.contains(path)
            {
                masks.push(path.clone());
            }
        }
        // The host's secrets under /etc (not readable by everyone), which a
        // project link such as `etcd -> /etc` would otherwise show (SBX-3).
        let system = system_secrets::system_secrets(&self.read_only, self.state.as_deref())?;
        masks.extend(system.masks);
        let python = python_env(&scan, build_cache.is_some());
        if python.iter().any(|(name, _)| name == PYTHON_NO_BYTECODE) {
            masks.extend(scan.bytecode.iter().cloned());
        }
        let spec = ViewSpec {
            project: self.project.clone(),
            copy_on_write: self.policy.view == ProjectView::CopyOnWrite,
            read_only: self.read_only.clone(),
            masks,
            protected: scan.protected.clone(),
            pinned: scan.pinned.clone(),
            sockets: scan.sockets.clone(),
            build_cache: build_cache.map(Path::to_path_buf),
        };
        Ok((spec, scan, system.notes, python))
    }

    fn run_work(&self, work: Work) -> Result<RunOutput, SandboxError> {
        // This run's own empty build cache (proof5 #2/#2b/#2c): nothing an
        // earlier or concurrent run wrote is ever mounted.
        let (run_cache, mut cache_notes) = match &self.build_cache {
            Some(dir) => {
                let (cache, notes) = build_cache::RunCache::create(dir)?;
                (Some(cache), notes)
            }
            None => (None, Vec::new()),
        };
        let (view, before, view_notes, python) =
            self.view_spec(run_cache.as_ref().map(|c| c.path()))?;
        cache_notes.extend(view_notes);
        // A proof's git uses the project's own repository and none of the
        // programs its configuration can name (PROOF-3, proof5 #1 / #14).
        // `ploy sandbox run` runs what the caller asked for, git included,
        // as they set it up.
        let pinned = match &work {
            Work::Plan(_) => git_pinned_env(&self.project),
            _ => Vec::new(),
        };
        let request = InitRequest {
            protocol: PROTOCOL,
            uid: rustix::process::geteuid().as_raw(),
            gid: rustix::process::getegid().as_raw(),
            view,
            limits: self.policy.limits.clone(),
            work,
            simulate_missing: self.simulate_missing.clone(),
        };
        let mut env = build_env(std::env::vars_os(), &self.policy.extra_env, SANDBOX_HOME);
        // Where Python finds bytecode is ploy's choice alone (extra_env or
        // set_env could name a project folder).
        env.retain(|(name, _)| !PYTHON_BYTECODE_VARIABLES.contains(&name.as_str()));
        for (name, value) in self.set_env.iter().chain(&python).chain(&pinned) {
            if PYTHON_BYTECODE_VARIABLES.contains(&name.as_str())
                && !python.iter().any(|(ours, _)| ours == name)
            {
                continue;
            }
            env.retain(|(known, _)| known != name);
            env.push((name.clone(), value.clone()));
        }
        // No PATH entry names the project, whoever set it (round7 #15).
        env::keep_safe_path(&mut env, &self.project);
        let stop = self
            .stop
            .as_deref()
            .or(self.stop_on_signal.then_some(&STOP_SIGNALLED));
        // Before the launch: what the run writes has a later change time.
        let started = std::time::SystemTime::now();
        let launched = launch(&self.init, &request, &env, stop);
        // BEYOND-4: whatever the run's end, its build cache goes with it.
        if let Some(cache) = run_cache {
            cache_notes.extend(cache.finish());
        }
        let mut output = accept(launched?)?;
        output.notes.extend(cache_notes);
        match self.policy.view {
            ProjectView::Writable => {
                let created = created_protected_paths(&self.project, &before, started);
                output.notes.extend(created);
            }
            ProjectView::CopyOnWrite => {
                output.notes.extend(copy_up_failure(&self.project, &output));
            }
        }
        Ok(output)
    }
}

/// What [`Sandbox::view_spec`] gives: the view, the scan it came from, notes
/// for the run, and Python's bytecode variables.
type ViewParts = (
    ViewSpec,
    view::ProjectScan,
    Vec<String>,
    Vec<(String, String)>,
);

/// Set for a run in which Python loads only the system's bytecode.
const PYTHON_NO_BYTECODE: &str = "PYTHONDONTWRITEBYTECODE";

/// The variables that say where Python reads and writes bytecode.
const PYTHON_BYTECODE_VARIABLES: [&str; 2] = [PYTHON_NO_BYTECODE, "PYTHONPYCACHEPREFIX"];

/// Python's bytecode variables for one run (BEYOND-4, SBX-5; proof5 #2).
/// Python loads a module's bytecode instead of its source when the
/// bytecode's header matches the source's time and size, which anyone who
/// can write the bytecode can forge; so no bytecode an earlier run could
/// write may be read. The system's own (`/usr/lib/python3*/__pycache__`,
/// written by the package manager, read-only in every sandbox) may: with
/// it, `python3 -m unittest` does not compile the standard library at every
/// run (3.3x the CPU). So, when the project's `__pycache__` folders are few
/// and all plain folders, they are hidden (empty, read-only) and Python
/// writes no bytecode (`PYTHONDONTWRITEBYTECODE=1`): it reads the system's
/// and compiles the project's in memory. Otherwise Python reads and writes
/// bytecode only in a folder of this run (`PYTHONPYCACHEPREFIX`: the run's
/// build cache, or its private `/tmp`), never the project's or the system's.
fn python_env(scan: &view::ProjectScan, build_cache: bool) -> Vec<(String, String)> {
    if scan.bytecode.len() <= MAX_BYTECODE_MASKS && !scan.bytecode_odd {
        return vec![(PYTHON_NO_BYTECODE.to_string(), "1".to_string())];
    }
    let prefix = if build_cache {
        format!("{BUILD_CACHE_MOUNT}/pycache")
    } else {
        "/tmp/.ploy-pycache".to_string()
    };
    vec![("PYTHONPYCACHEPREFIX".to_string(), prefix)]
}

/// Set by the handlers [`Sandbox::stop_on_signals`] installs.
static STOP_SIGNALLED: AtomicBool = AtomicBool::new(false);

extern "C" fn note_stop_signal(_: libc::c_int) {
    STOP_SIGNALLED.store(true, std::sync::atomic::Ordering::SeqCst);
}

/// Turns a launch into a result, or the error that says why there is none.
fn accept(launched: Launched) -> Result<RunOutput, SandboxError> {
    let init_status = launched.init_status;
    let report = launched.report.map_err(|what| {
        SandboxError::Launcher(format!(
            "the sandbox's status channel carried {what}; the verdict is not trusted \
             (init {init_status})"
        ))
    })?;
    match report.failure {
        Some((Layer::Exec, detail)) => return Err(SandboxError::Exec(detail)),
        Some((layer, detail)) => return Err(SandboxError::LayerMissing { layer, detail }),
        None => {}
    }
    for layer in Layer::PROBED {
        if report.confirmed(layer).is_none() {
            return Err(SandboxError::LayerMissing {
                layer,
                detail: "the sandbox init did not confirm this layer".to_string(),
            });
        }
    }
    let termination = match (report.exit, launched.timed_out || launched.cancelled) {
        (Some(end), _) => end,
        (None, true) => Termination::Signaled(libc::SIGKILL),
        (None, false) => {
            // The init never reported the program's end: something killed it
            // or it failed without a word. Never a pass.
            return Err(SandboxError::Launcher(format!(
                "the sandbox init ended without a report (init {init_status}; stderr: {})",
                String::from_utf8_lossy(&launched.stderr).trim()
            )));
        }
    };
    let notes = report
        .limits
        .iter()
        .map(|(which, detail)| match which.as_str() {
            // Says itself what happened (SBX-6).
            "protected path" => detail.clone(),
            _ => format!("SBX-5: the {which} limit stopped the run: {detail}"),
        })
        .collect();
    Ok(RunOutput {
        termination,
        timed_out: launched.timed_out,
        cancelled: launched.cancelled,
        duration: launched.duration,
        stdout: launched.stdout,
        stderr: launched.stderr,
        output_truncated: launched.output_truncated,
        memory_exceeded: report.limits.iter().any(|(which, _)| which == "memory"),
        notes,
    })
}

/// strerror(EOVERFLOW) as glibc and musl print it.
const EOVERFLOW_TEXTS: [&str; 2] = [
    "Value too large for defined data type",
    "Value too large for data type",
];

/// When a write failed with EOVERFLOW in a copy-on-write run, the reason in
/// words: the file belongs to a user or group the sandbox's user namespace
/// cannot map, so the copy-on-write layer cannot copy it up (only the
/// caller's own IDs are mapped). Names one such file and the fix.
fn copy_up_failure(project: &Path, output: &RunOutput) -> Option<String> {
    let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
    let (out, err) = (text(&output.stdout), text(&output.stderr));
    if !EOVERFLOW_TEXTS
        .iter()
        .any(|needle| out.contains(needle) || err.contains(needle))
    {
        return None;
    }
    let (path, uid, gid) = view::unmapped_owner(project)?;
    Some(format!(
        "BEYOND-4: a write failed with EOVERFLOW (\"Value too large for defined data type\"): \
         {} belongs to uid {uid} / gid {gid}, which the sandbox's user namespace cannot map, so \
         the copy-on-write layer cannot copy it; chown or chgrp the project's files to yourself \
         (`ploy doctor` lists such files)",
        shown_path(&path)
    ))
}

/// PERM-7 paths that exist now but did not when the run started. A writable
/// run can only lock paths that exist when it starts (SBX-6), so each new
/// one is moved aside, under a name no tool reads (`NAME.ploy-blocked`), and
/// reported: a `.git` folder made in a sub-folder would otherwise run its
/// configuration at the next `git status`, which many shell prompts run on
/// entering the folder. Every process of the run is dead by now, so nothing
/// races the move; nothing is deleted. Then the same for the code caches
/// the host would run instead of the project's sources
/// ([`planted_code_caches`]).
fn created_protected_paths(
    project: &Path,
    before: &view::ProjectScan,
    started: std::time::SystemTime,
) -> Vec<String> {
    let after = match view::scan_project(project, view::Unlistable::Repair) {
        Ok(after) => after,
        Err(err) => {
            return vec![format!(
                "{err} (found after the run: the program may have planted PERM-7 paths there; \
                 review the folder before any tool reads it)"
            )];
        }
    };
    let mut notes: Vec<String> = after
        .repaired
        .iter()
        .map(|dir| {
            format!(
                "SBX-6: the program took away your permission to list {}; it was given back \
                 (u+rx) so its contents could be checked",
                in_project(project, dir)
            )
        })
        .collect();
    for (path, what) in &after.described {
        if before.described.iter().any(|(old, _)| old == path) {
            continue;
        }
        let shown = in_project(project, path);
        notes.push(match view::quarantine(path) {
            Ok(moved) => format!(
                "SBX-6: the program created {shown} ({what}); it was moved aside to {} so \
                 nothing runs it. Review it; rename it back only if you made it yourself",
                in_project(project, &moved)
            ),
            Err(err) => format!(
                "SBX-6: the program created {shown} ({what}) and it could not be moved aside \
                 ({err}): review it before any tool reads it"
            ),
        });
    }
    notes.extend(planted_code_caches(project, before, &after, started));
    notes
}

/// How long before the run's start a change still counts as the run's:
/// file change times come from the kernel's coarse clock, which lags the
/// clock `started` was read from by a few milliseconds. A file the host
/// changed in that second is moved aside too, which costs a cache rebuild.
const CHANGE_CLOCK_SLACK: std::time::Duration = std::time::Duration::from_secs(1);

/// Whether `path` (not followed) changed at or after `since`: its change
/// time, which no program can set back (writing, renaming, linking and
/// `utime` all move it to now).
fn changed_since(path: &Path, since: std::time::SystemTime) -> bool {
    use std::os::unix::fs::MetadataExt;
    let Ok(meta) = path.symlink_metadata() else {
        return false;
    };
    let since = since
        .checked_sub(CHANGE_CLOCK_SLACK)
        .unwrap_or(std::time::UNIX_EPOCH);
    let Ok(since) = since.duration_since(std::time::UNIX_EPOCH) else {
        return true;
    };
    let changed = (meta.ctime(), meta.ctime_nsec());
    let since = (
        i64::try_from(since.as_secs()).unwrap_or(i64::MAX),
        i64::from(since.subsec_nanos()),
    );
    changed >= since
}

/// Code caches a writable run left in the project that the host would run
/// instead of the sources beside them (BEYOND-4, round8 #6), each moved
/// aside (`NAME.ploy-blocked`, a name Python does not load) and reported:
/// * a `__pycache__` that did not exist when the run started, and every
///   entry of an earlier one that the run wrote or replaced: Python loads
///   `__pycache__/m.cpython-3X.pyc` instead of `m.py` when the bytecode's
///   header matches the source's time and size, which whoever writes the
///   bytecode can forge, so the host's next import (or test run) would run
///   what the program wrote without reading the `.py` (inside the run,
///   `PYTHONDONTWRITEBYTECODE`/`PYTHONPYCACHEPREFIX` keep Python's own
///   bytecode out of the project, `python_env`, but the program can write
///   a `.pyc` itself);
/// * an extension module the run wrote beside a `.py` of the same module
///   (`m.cpython-311-x86_64-linux-gnu.so` next to `m.py`), which Python
///   imports before the source.
///
/// Other caches were checked and left: cargo's `target/` (a writable run
/// builds there only when told to; cargo rebuilds from sources whose times
/// changed, but a planted binary with forged fingerprints would run: not
/// handled, the writable project is the program's to write, like any
/// script), `node_modules/.cache` and `.mypy_cache`/`.pytest_cache`/
/// `.ruff_cache` (data, not code the host executes in place of a source).
fn planted_code_caches(
    project: &Path,
    before: &view::ProjectScan,
    after: &view::ProjectScan,
    started: std::time::SystemTime,
) -> Vec<String> {
    let mut planted: Vec<(PathBuf, &str)> = Vec::new();
    const BYTECODE: &str = "Python bytecode, which Python runs instead of the source beside it \
                            when its header matches the source's time and size";
    const EXTENSION: &str = "a Python extension module beside the module's `.py`, which Python \
                             imports instead of the source";
    for folder in &after.bytecode {
        if !before.bytecode.contains(folder) {
            planted.push((folder.clone(), BYTECODE));
            continue;
        }
        let is_plain_folder = folder
            .symlink_metadata()
            .is_ok_and(|meta| meta.file_type().is_dir());
        if !is_plain_folder {
            if changed_since(folder, started) {
                planted.push((folder.clone(), BYTECODE));
            }
            continue;
        }
        let Ok(entries) = std::fs::read_dir(folder) else {
            planted.push((folder.clone(), BYTECODE));
            continue;
        };
        for entry in entries.flatten() {
            if changed_since(&entry.path(), started) {
                planted.push((entry.path(), BYTECODE));
            }
        }
    }
    for module in &after.extension_shadows {
        if changed_since(module, started) {
            planted.push((module.clone(), EXTENSION));
        }
    }
    planted
        .into_iter()
        .map(|(path, what)| {
            let shown = in_project(project, &path);
            match view::quarantine(&path) {
                Ok(moved) => format!(
                    "BEYOND-4: the program wrote {shown} ({what}); it was moved aside to {} so \
                     the host does not run it",
                    in_project(project, &moved)
                ),
                Err(err) => format!(
                    "BEYOND-4: the program wrote {shown} ({what}) and it could not be moved \
                     aside ({err}): delete it before running Python in the project"
                ),
            }
        })
        .collect()
}

/// `path` relative to the project (`.` for the project itself), safe to print.
fn in_project(project: &Path, path: &Path) -> String {
    match path.strip_prefix(project) {
        Ok(rel) if rel.as_os_str().is_empty() => ".".to_string(),
        Ok(rel) => shown_path(rel),
        Err(_) => shown_path(path),
    }
}

/// A path the program chose, safe to print: control characters (a terminal
/// escape sequence in a file name) are shown escaped, never sent raw.
pub fn shown_path(path: &Path) -> String {
    path.to_string_lossy()
        .chars()
        .flat_map(|c| {
            let escaped: Vec<char> = if c.is_control() {
                c.escape_default().collect()
            } else {
                vec![c]
            };
            escaped
        })
        .collect()
}

/// Probes every layer with the dedicated init next to the running
/// executable (what `ploy doctor` shows).
pub fn probe() -> ProbeReport {
    match sibling_init() {
        Ok(init) => probe_with(&init, &[]),
        Err(err) => ProbeReport {
            layers: Layer::PROBED
                .into_iter()
                .map(|layer| LayerStatus {
                    layer,
                    state: LayerState::Missing,
                    detail: err.to_string(),
                })
                .collect(),
            landlock_abi: init::kernel_landlock_abi(),
            running_as_root: rustix::process::geteuid().is_root(),
            memory_mechanism: memory_mechanism(),
        },
    }
}

/// The Landlock ABI of the running kernel (0 when unavailable).
pub fn landlock_abi() -> i64 {
    init::kernel_landlock_abi()
}

/// The dedicated init binary's `main`: call it first thing (the
/// `ploy-sandbox-init` binary does nothing else).
pub fn init_main() -> ExitCode {
    init::main()
}

/// For a binary that serves as its own init (a test helper): call it first
/// in `main`; it returns `None` unless this process was started as the init
/// (hidden first argument [`INIT_MARKER`]).
pub fn init_entry_if_requested() -> Option<ExitCode> {
    if std::env::args_os().nth(1).as_deref() != Some(std::ffi::OsStr::new(INIT_MARKER)) {
        return None;
    }
    Some(init::main())
}

fn probe_with(init: &Path, simulate_missing: &[Layer]) -> ProbeReport {
    let landlock_abi = init::kernel_landlock_abi();
    let running_as_root = rustix::process::geteuid().is_root();
    let mut layers: Vec<LayerStatus> = Vec::new();
    let outcome = ProbeProject::create().and_then(|project| {
        let request = InitRequest {
            protocol: PROTOCOL,
            uid: rustix::process::geteuid().as_raw(),
            gid: rustix::process::getegid().as_raw(),
            view: ViewSpec {
                project: project.path.clone(),
                copy_on_write: true,
                read_only: SYSTEM_READ_ONLY.iter().map(PathBuf::from).collect(),
                ..ViewSpec::default()
            },
            limits: Limits::default(),
            work: Work::Probe,
            simulate_missing: simulate_missing.to_vec(),
        };
        let env = build_env(std::env::vars_os(), &[], SANDBOX_HOME);
        launch(init, &request, &env, None)
    });
    let (report, stderr, init_status) = match outcome {
        Err(err) => {
            for layer in Layer::PROBED {
                let first = layer == Layer::UserNamespaces;
                layers.push(LayerStatus {
                    layer,
                    state: if first {
                        LayerState::Missing
                    } else {
                        LayerState::NotChecked
                    },
                    detail: if first {
                        err.to_string()
                    } else {
                        "not checked: the probe could not start".to_string()
                    },
                });
            }
            return ProbeReport {
                layers,
                landlock_abi,
                running_as_root,
                memory_mechanism: memory_mechanism(),
            };
        }
        Ok(launched) => (
            launched.report.unwrap_or_else(|what| StatusReport {
                failure: Some((
                    Layer::UserNamespaces,
                    format!("the probe's report carried {what}"),
                )),
                ..StatusReport::default()
            }),
            String::from_utf8_lossy(&launched.stderr).trim().to_string(),
            launched.init_status,
        ),
    };
    for layer in Layer::PROBED {
        let (state, detail) = match (&report.failure, report.confirmed(layer)) {
            (_, Some(detail)) => (LayerState::Ok, detail.to_string()),
            (Some((failed, detail)), None) if *failed == layer => {
                (LayerState::Missing, detail.clone())
            }
            (Some(_), None) => (
                LayerState::NotChecked,
                "not checked: another layer is missing".to_string(),
            ),
            (_, _) => (
                LayerState::Missing,
                format!(
                    "the probe did not confirm this layer (init {init_status}; stderr: {stderr})"
                ),
            ),
        };
        layers.push(LayerStatus {
            layer,
            state,
            detail,
        });
    }
    // Every layer confirmed but no end marker: the probe did not finish.
    if !report.ready
        && let Some(last) = layers.last_mut()
        && last.state == LayerState::Ok
    {
        last.state = LayerState::Missing;
        last.detail = format!(
            "the probe ended without its final report (init {init_status}; stderr: {stderr})"
        );
    }
    ProbeReport {
        layers,
        landlock_abi,
        running_as_root,
        memory_mechanism: memory_mechanism(),
    }
}

/// An empty temporary folder used as the probe's project; removed on drop.
struct ProbeProject {
    path: PathBuf,
}

impl ProbeProject {
    fn create() -> Result<ProbeProject, SandboxError> {
        let base = std::env::temp_dir()
            .canonicalize()
            .unwrap_or_else(|_| PathBuf::from("/tmp"));
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        let path = base.join(format!("ploy-probe-{}-{nanos}", std::process::id()));
        std::fs::create_dir(&path).map_err(|err| {
            SandboxError::Launcher(format!(
                "cannot create the probe folder {}: {err}",
                path.display()
            ))
        })?;
        Ok(ProbeProject { path })
    }
}

impl Drop for ProbeProject {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}
