//! The Linux sandbox that fails closed (SBX-1..5, BEYOND-3, BEYOND-4).
//!
//! How a run works:
//! 1. The parent (this module) checks the policy, builds the program's
//!    environment from an allowlist (SBX-4) and probes every layer once
//!    (SBX-5): if any layer is missing, nothing runs.
//! 2. It re-executes a *launcher* binary (by default the running executable,
//!    which must call [`init_entry_if_requested`] first thing in `main`) with a
//!    hidden argument, a clean environment, a new session and "die with parent",
//!    created by one `clone` directly inside new user, mount, PID, network, IPC
//!    and UTS namespaces: the launcher is the sandbox's PID 1 (its user and
//!    group IDs mapped to themselves before exec).
//! 3. The launcher builds a fresh root (system folders read-only, the project
//!    copy-on-write or writable, private `/tmp`, fresh `/proc`, minimal
//!    `/dev`, no home folder), pivots into it, then applies rlimits, Landlock
//!    (writes only to the project and temp, no TCP), drops every capability,
//!    sets no_new_privs, installs a seccomp deny list and finally forks and
//!    executes the program.
//! 4. Any failure before the program starts is reported on a private pipe
//!    (fd 3 in the launcher) with the layer that failed, and the parent turns
//!    it into a [`SandboxError`]: the program never runs.

mod env;
mod init;
pub mod macos;
mod runner;
mod seccomp;

use std::{
    ffi::CString,
    io::Read,
    os::{
        fd::{AsRawFd, FromRawFd, OwnedFd},
        unix::process::ExitStatusExt,
    },
    path::{Component, Path, PathBuf},
    process::{ExitCode, ExitStatus},
    sync::{Mutex, OnceLock},
    time::{Duration, Instant},
};

use ploy_validate::ProofPlan;
use serde::{Deserialize, Serialize};

pub use env::{ALLOWED_ENV_NAMES, build_env, looks_secret};

/// The hidden first argument that turns the launcher binary into the
/// sandbox's init.
pub const INIT_MARKER: &str = "__ploy-sandbox-init";

/// Where the sandboxed program's `HOME` points (inside the private `/tmp`).
pub const SANDBOX_HOME: &str = "/tmp/home";

/// System folders bound read-only into the sandbox when they exist. The home
/// folders (`/home`, `/root`), `/run`, `/var`, `/mnt`, `/media` and `/srv`
/// are never bound (BEYOND-3).
pub const SYSTEM_READ_ONLY: &[&str] = &[
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/nix",
];

/// Folders and files under the user's home that are hidden in any case
/// (SBX-3), even when the project folder contains them.
pub const SENSITIVE_HOME_ENTRIES: &[&str] = &[
    ".ssh",
    ".aws",
    ".gnupg",
    ".kube",
    ".docker",
    ".netrc",
    ".azure",
    ".config/gcloud",
    ".config/gh",
    ".git-credentials",
    ".npmrc",
    ".pypirc",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".password-store",
    ".mozilla",
    ".config/google-chrome",
    ".config/chromium",
    ".config/BraveSoftware",
    ".config/microsoft-edge",
    "Library/Application Support/Google/Chrome",
    "Library/Application Support/Firefox",
    ".config/ploy",
    ".local/state/ploy",
    ".local/share/ploy",
];

/// One layer of the sandbox, as probed and reported (SBX-5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Layer {
    /// Unprivileged user namespaces (the root of everything else).
    UserNamespaces,
    /// Mount, PID, network and IPC namespaces and the private root view.
    Filesystem,
    /// overlayfs inside the user namespace (copy-on-write project, BEYOND-4).
    Overlay,
    /// Landlock: writes only to the project and temp, no TCP (SBX-2, SBX-1).
    Landlock,
    /// seccomp deny list with no_new_privs.
    Seccomp,
    /// Resource limits (processes, memory, CPU, file size).
    Limits,
    /// Starting the program itself (not a layer: "command not found" etc.).
    Exec,
}

impl Layer {
    /// Every layer the probe checks, in setup order.
    pub const PROBED: [Layer; 6] = [
        Layer::UserNamespaces,
        Layer::Filesystem,
        Layer::Overlay,
        Layer::Limits,
        Layer::Landlock,
        Layer::Seccomp,
    ];

    /// The layer's name as printed and in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Layer::UserNamespaces => "user-namespaces",
            Layer::Filesystem => "filesystem",
            Layer::Overlay => "overlay",
            Layer::Landlock => "landlock",
            Layer::Seccomp => "seccomp",
            Layer::Limits => "limits",
            Layer::Exec => "exec",
        }
    }

    fn from_name(name: &str) -> Option<Layer> {
        [
            Layer::UserNamespaces,
            Layer::Filesystem,
            Layer::Overlay,
            Layer::Landlock,
            Layer::Seccomp,
            Layer::Limits,
            Layer::Exec,
        ]
        .into_iter()
        .find(|layer| layer.name() == name)
    }

    /// How to make the layer available, for the error message.
    pub fn how_to_enable(self) -> &'static str {
        match self {
            Layer::UserNamespaces => {
                "allow unprivileged user namespaces: `sysctl -w kernel.unprivileged_userns_clone=1` \
                 (Debian), `sysctl -w user.max_user_namespaces=15000`, and on Ubuntu 24.04+ \
                 `sysctl -w kernel.apparmor_restrict_unprivileged_userns=0`; inside a container, \
                 run it with user namespaces allowed (e.g. a seccomp profile that permits unshare)"
            }
            Layer::Filesystem => {
                "the kernel refused a mount inside the user namespace (tmpfs, bind, proc or \
                 pivot_root); run on Linux 5.12+ without a container policy that blocks mounts"
            }
            Layer::Overlay => {
                "overlayfs must be mountable inside a user namespace: Linux 5.11+ with the \
                 `overlay` module loaded (`modprobe overlay`); the project folder must be on a \
                 filesystem overlayfs accepts as a lower layer"
            }
            Layer::Landlock => {
                "Landlock ABI 4 or newer is needed (Linux 6.7+) and must be enabled: add \
                 `landlock` to the `lsm=` kernel boot parameter (check /sys/kernel/security/lsm)"
            }
            Layer::Seccomp => {
                "the kernel must be built with CONFIG_SECCOMP_FILTER (every mainstream distribution \
                 kernel is)"
            }
            Layer::Limits => {
                "the hard resource limits of this session are lower than ploy's; raise them (`ulimit -H`)"
            }
            Layer::Exec => {
                "check that the program exists inside the sandbox (system folders or the project)"
            }
        }
    }

    /// The requirement a failure of this layer is refused under: without
    /// every layer nothing runs (SBX-5).
    pub fn requirement(self) -> &'static str {
        "SBX-5"
    }
}

/// Resource limits of one run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Limits {
    /// Wall-clock time, in milliseconds, before the whole sandbox is killed.
    pub wall_ms: u64,
    /// CPU seconds per process (RLIMIT_CPU).
    pub cpu_seconds: u64,
    /// Data segment bytes per process (RLIMIT_DATA: heap and private mappings).
    pub memory_bytes: u64,
    /// Processes of the sandbox user (RLIMIT_NPROC; not enforced by the
    /// kernel when ploy itself runs as root).
    pub processes: u64,
    /// Largest file a process may write (RLIMIT_FSIZE).
    pub file_size_bytes: u64,
    /// Open files per process (RLIMIT_NOFILE).
    pub open_files: u64,
    /// Size of the private `/tmp`.
    pub tmp_bytes: u64,
    /// Size of the copy-on-write layer over the project.
    pub overlay_bytes: u64,
    /// Bytes kept of each of stdout and stderr (the rest is read and dropped).
    pub output_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            wall_ms: 10 * 60 * 1000,
            cpu_seconds: 10 * 60,
            memory_bytes: 4 << 30,
            processes: 512,
            file_size_bytes: 1 << 30,
            open_files: 1024,
            tmp_bytes: 1 << 30,
            overlay_bytes: 1 << 30,
            output_bytes: 1 << 20,
        }
    }
}

/// How the project folder is seen inside the sandbox.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ProjectView {
    /// Copy-on-write (BEYOND-4): writes land in a throwaway layer and vanish
    /// when the run ends, except in the listed sub-folders (relative paths,
    /// e.g. `target`), which are bound writable so builds stay incremental.
    CopyOnWrite {
        /// Sub-folders of the project bound writable.
        writable: Vec<PathBuf>,
    },
    /// The project is bound writable: writes persist (the shell tool).
    Writable,
}

impl Default for ProjectView {
    fn default() -> Self {
        ProjectView::CopyOnWrite {
            writable: vec![PathBuf::from("target")],
        }
    }
}

/// What a sandbox allows: the project, how it is seen, limits and extras.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SandboxPolicy {
    /// The project folder; the program runs in it, at the same path.
    pub project: PathBuf,
    /// Copy-on-write or writable project.
    pub view: ProjectView,
    /// Resource limits.
    pub limits: Limits,
    /// Extra folders bound read-only (e.g. a toolchain outside the system
    /// folders). Refused when they are or contain a sensitive folder.
    pub extra_read_only: Vec<PathBuf>,
    /// Extra environment names passed when present (never secret-looking ones).
    pub extra_env: Vec<String>,
    /// Variables set to fixed values inside the sandbox (e.g. `CARGO_HOME`
    /// for a toolchain bound read-only). Secret-looking names are dropped.
    pub set_env: Vec<(String, String)>,
}

impl SandboxPolicy {
    /// A policy with defaults for `project`: copy-on-write with `target/`
    /// writable, default limits, nothing extra.
    pub fn new(project: impl Into<PathBuf>) -> Self {
        SandboxPolicy {
            project: project.into(),
            view: ProjectView::default(),
            limits: Limits::default(),
            extra_read_only: Vec::new(),
            extra_env: Vec::new(),
            set_env: Vec::new(),
        }
    }
}

/// Why the sandbox refused to run or failed to run.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    /// A layer is missing on this machine (SBX-5): nothing ran.
    #[error("SBX-5: the sandbox layer `{}` is not available, so nothing was run: {detail}. To enable it: {}", layer.name(), layer.how_to_enable())]
    LayerMissing {
        /// The missing layer.
        layer: Layer,
        /// What failed.
        detail: String,
    },
    /// The policy itself is refused (bad project folder, writable folder
    /// escaping the project, sensitive extra folder...).
    #[error("{rule}: {reason}")]
    PolicyRefused {
        /// The requirement ID.
        rule: &'static str,
        /// A human reason with what to change.
        reason: String,
    },
    /// The program could not be started inside the sandbox.
    #[error("SBX-5: the program could not be started inside the sandbox: {0}")]
    Exec(String),
    /// The launcher could not be started or talked to.
    #[error("SBX-5: the sandbox launcher failed, so nothing was run: {0}")]
    Launcher(String),
}

impl SandboxError {
    /// The requirement ID of the refusal.
    pub fn rule(&self) -> &'static str {
        match self {
            SandboxError::PolicyRefused { rule, .. } => rule,
            SandboxError::LayerMissing { .. }
            | SandboxError::Exec(_)
            | SandboxError::Launcher(_) => "SBX-5",
        }
    }
}

/// How the program ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "value")]
pub enum Termination {
    /// Exited with this status.
    Exited(i32),
    /// Killed by this signal (e.g. 9 after the wall-time limit, 25 SIGXFSZ).
    Signaled(i32),
}

impl Termination {
    /// The shell-style exit code: the status, or 128 + signal.
    pub fn exit_code(self) -> i32 {
        match self {
            Termination::Exited(code) => code,
            Termination::Signaled(signal) => 128 + signal,
        }
    }
}

/// What one sandboxed run produced. Output is raw (not redacted): redact it
/// before showing it (`ploy_secrets::Redactor`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RunOutput {
    /// How the program ended.
    pub termination: Termination,
    /// Whether the wall-time limit killed it.
    pub timed_out: bool,
    /// Wall time from launch to exit.
    pub duration: Duration,
    /// Captured stdout (at most `limits.output_bytes`).
    pub stdout: Vec<u8>,
    /// Captured stderr (at most `limits.output_bytes`).
    pub stderr: Vec<u8>,
    /// Whether stdout or stderr was longer than the cap.
    pub output_truncated: bool,
}

impl RunOutput {
    /// True when the program exited with status 0 in time.
    pub fn success(&self) -> bool {
        !self.timed_out && self.termination == Termination::Exited(0)
    }
}

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

/// What the launcher is asked to do. It travels as JSON on a private
/// descriptor ([`init::REQUEST_FD`], a sealed memfd), never in the argument
/// list, which every process in the sandbox could read in `/proc/1/cmdline`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct InitRequest {
    /// The caller's effective user and group IDs, mapped to themselves in the
    /// user namespace (the launcher starts inside it, where they read as
    /// "nobody" until mapped).
    uid: u32,
    gid: u32,
    project: PathBuf,
    view: ProjectView,
    masks: Vec<PathBuf>,
    read_only: Vec<PathBuf>,
    limits: Limits,
    work: Work,
    simulate_missing: Vec<Layer>,
}

/// What the init does once every layer is in place.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
enum Work {
    /// Stop before anything runs (the probe, SBX-5).
    Probe,
    /// One program with its arguments (`ploy sandbox run`).
    Program {
        /// `argv[0]` is looked up on `PATH` unless it contains a `/`.
        argv: Vec<String>,
    },
    /// A validated proof plan, run by the init itself (no shell).
    Plan(ProofPlan),
}

/// The sandbox: a checked policy plus the launcher binary.
#[derive(Debug, Clone)]
pub struct Sandbox {
    policy: SandboxPolicy,
    project: PathBuf,
    masks: Vec<PathBuf>,
    read_only: Vec<PathBuf>,
    launcher: PathBuf,
    simulate_missing: Vec<Layer>,
}

/// The probe result of this process, per launcher (SBX-5: probe before the first run).
static PROBE_CACHE: OnceLock<Mutex<Vec<(PathBuf, ProbeReport)>>> = OnceLock::new();

impl Sandbox {
    /// Checks the policy and prepares a sandbox that re-executes the running
    /// binary as its launcher (it must call [`init_entry_if_requested`]).
    pub fn new(policy: SandboxPolicy) -> Result<Sandbox, SandboxError> {
        let launcher = std::env::current_exe().map_err(|err| {
            SandboxError::Launcher(format!("cannot find the running executable: {err}"))
        })?;
        Sandbox::with_launcher(policy, launcher)
    }

    /// Like [`Sandbox::new`] with an explicit launcher binary.
    pub fn with_launcher(
        policy: SandboxPolicy,
        launcher: PathBuf,
    ) -> Result<Sandbox, SandboxError> {
        let home = std::env::var_os("HOME").map(PathBuf::from);
        let project = check_project(&policy.project, home.as_deref())?;
        let sensitive = sensitive_paths(home.as_deref());
        // Writable folders that do not exist yet are left out (never created
        // in the user's project); writes there vanish like any other.
        let mut view = policy.view.clone();
        if let ProjectView::CopyOnWrite { writable } = &mut view {
            let mut present = Vec::new();
            for sub in writable.iter() {
                if prepare_writable(&project, sub)? {
                    present.push(sub.clone());
                }
            }
            *writable = present;
        }
        let mut read_only: Vec<PathBuf> = SYSTEM_READ_ONLY.iter().map(PathBuf::from).collect();
        for extra in &policy.extra_read_only {
            let canonical = extra.canonicalize().map_err(|err| SandboxError::PolicyRefused {
                rule: "SBX-3",
                reason: format!(
                    "the extra read-only folder {} cannot be resolved ({err}); fix or remove it",
                    extra.display()
                ),
            })?;
            // Sensitive entries *inside* an extra folder (e.g. ~/.cargo/credentials.toml)
            // are masked below; an extra folder that is or lies in one, or that
            // would expose the whole home folder, is refused.
            let home_canonical = home.as_deref().and_then(|h| h.canonicalize().ok());
            if sensitive.iter().any(|s| canonical.starts_with(s))
                || home_canonical.is_some_and(|h| h.starts_with(&canonical))
            {
                return Err(SandboxError::PolicyRefused {
                    rule: "SBX-3",
                    reason: format!(
                        "the extra read-only folder {} is or lies inside a sensitive folder, or \
                         holds the whole home folder; name a narrower folder",
                        canonical.display()
                    ),
                });
            }
            read_only.push(canonical);
        }
        let mut masks = masks_inside(&project, &sensitive);
        // ploy's own folders (PLOY_CONFIG_DIR, PLOY_STATE_DIR) may live under a
        // folder that is bound read-only, e.g. /opt: hide them there too.
        for path in &sensitive {
            if read_only.iter().any(|dir| path.starts_with(dir))
                && path.symlink_metadata().is_ok()
                && !masks.contains(path)
            {
                masks.push(path.clone());
            }
        }
        Ok(Sandbox {
            policy: SandboxPolicy { view, ..policy },
            project,
            masks,
            read_only,
            launcher,
            simulate_missing: Vec::new(),
        })
    }

    /// Test seam (SBX-5): make the launcher treat `layer` as missing, as it
    /// would on a machine without it. It can only remove layers, never skip one.
    pub fn simulate_missing_layer(&mut self, layer: Layer) {
        self.simulate_missing.push(layer);
    }

    /// The canonical project folder.
    pub fn project(&self) -> &Path {
        &self.project
    }

    /// The policy this sandbox was built from.
    pub fn policy(&self) -> &SandboxPolicy {
        &self.policy
    }

    /// Probes every layer by building a real sandbox around an empty project
    /// and stopping before a program would start (SBX-5). Cached per launcher
    /// for the life of the process (not when a layer is simulated missing).
    pub fn probe(&self) -> ProbeReport {
        let cacheable = self.simulate_missing.is_empty();
        let cache = PROBE_CACHE.get_or_init(|| Mutex::new(Vec::new()));
        if cacheable
            && let Ok(entries) = cache.lock()
            && let Some((_, report)) = entries.iter().find(|(l, _)| *l == self.launcher)
        {
            return report.clone();
        }
        let report = probe_with(&self.launcher, &self.simulate_missing);
        if cacheable
            && report.can_run()
            && let Ok(mut entries) = cache.lock()
        {
            entries.push((self.launcher.clone(), report.clone()));
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

    fn run_work(&self, work: Work) -> Result<RunOutput, SandboxError> {
        let request = InitRequest {
            uid: nix::unistd::geteuid().as_raw(),
            gid: nix::unistd::getegid().as_raw(),
            project: self.project.clone(),
            view: self.policy.view.clone(),
            masks: self.masks.clone(),
            read_only: self.read_only.clone(),
            limits: self.policy.limits.clone(),
            work,
            simulate_missing: self.simulate_missing.clone(),
        };
        let mut env = build_env(std::env::vars_os(), &self.policy.extra_env, SANDBOX_HOME);
        for (name, value) in &self.policy.set_env {
            if looks_secret(name) || matches!(name.as_str(), "HOME" | "TMPDIR") {
                continue;
            }
            env.retain(|(known, _)| known != name);
            env.push((name.clone(), value.clone()));
        }
        let launched = launch(&self.launcher, &request, &env)?;
        if let Some(detail) = launched.tampered {
            return Err(SandboxError::Launcher(detail));
        }
        match launched.failure {
            Some((Layer::Exec, detail)) => Err(SandboxError::Exec(detail)),
            Some((layer, detail)) => Err(SandboxError::LayerMissing { layer, detail }),
            None => {
                for layer in Layer::PROBED {
                    let prefix = format!("OK\t{}\t", layer.name());
                    if !launched
                        .status_lines
                        .iter()
                        .any(|line| line.starts_with(&prefix))
                    {
                        return Err(SandboxError::LayerMissing {
                            layer,
                            detail: "the sandbox init did not confirm this layer".to_string(),
                        });
                    }
                }
                Ok(launched.output)
            }
        }
    }
}

/// Toolchains installed in the home folder that proofs commonly need
/// (rustup and cargo: `~/.rustup`, `~/.cargo`, or `RUSTUP_HOME`/`CARGO_HOME`),
/// bound read-only with their variables set, so `cargo test` works while the
/// rest of the home folder stays hidden. Credentials inside them are masked.
pub fn add_home_toolchains(policy: &mut SandboxPolicy) {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    for (variable, default) in [("RUSTUP_HOME", ".rustup"), ("CARGO_HOME", ".cargo")] {
        let dir = std::env::var_os(variable)
            .map(PathBuf::from)
            .or_else(|| home.as_ref().map(|h| h.join(default)));
        if let Some(dir) = dir.and_then(|d| d.canonicalize().ok())
            && dir.is_dir()
            && let Some(text) = dir.to_str()
        {
            policy
                .set_env
                .push((variable.to_string(), text.to_string()));
            policy.extra_read_only.push(dir);
        }
    }
}

/// Probes every layer with the running executable as launcher (what
/// `ploy doctor` shows). The running binary must call
/// [`init_entry_if_requested`] first thing in `main`.
pub fn probe() -> ProbeReport {
    match std::env::current_exe() {
        Ok(launcher) => probe_with(&launcher, &[]),
        Err(err) => ProbeReport {
            layers: Layer::PROBED
                .into_iter()
                .map(|layer| LayerStatus {
                    layer,
                    state: LayerState::Missing,
                    detail: format!("cannot find the running executable: {err}"),
                })
                .collect(),
            landlock_abi: init::kernel_landlock_abi(),
            running_as_root: nix::unistd::geteuid().is_root(),
        },
    }
}

/// The Landlock ABI of the running kernel (0 when unavailable).
pub fn landlock_abi() -> i64 {
    init::kernel_landlock_abi()
}

/// The entry point of the sandbox's init. Call it first in `main` of any
/// binary used as a launcher; it returns `None` unless this process was
/// started as the init (hidden first argument [`INIT_MARKER`]).
pub fn init_entry_if_requested() -> Option<ExitCode> {
    if std::env::args_os().nth(1).as_deref() != Some(std::ffi::OsStr::new(INIT_MARKER)) {
        return None;
    }
    Some(init::main())
}

fn refuse(rule: &'static str, reason: String) -> SandboxError {
    SandboxError::PolicyRefused { rule, reason }
}

/// Resolves the project folder and refuses folders that would expose the home
/// folder or a sensitive folder (BEYOND-3, SBX-3), or that the overlay cannot name.
fn check_project(project: &Path, home: Option<&Path>) -> Result<PathBuf, SandboxError> {
    let canonical = project.canonicalize().map_err(|err| {
        refuse(
            "BEYOND-3",
            format!(
                "the project folder {} cannot be resolved ({err}); pass an existing folder with --project",
                project.display()
            ),
        )
    })?;
    if !canonical.is_dir() {
        return Err(refuse(
            "BEYOND-3",
            format!("the project {} is not a folder", canonical.display()),
        ));
    }
    if canonical == Path::new("/") {
        return Err(refuse(
            "BEYOND-3",
            "the project folder cannot be `/`: pick the project's own folder".to_string(),
        ));
    }
    if let Some(home) = home
        && let Ok(home) = home.canonicalize()
    {
        if home.starts_with(&canonical) {
            return Err(refuse(
                "BEYOND-3",
                format!(
                    "the project folder {} is or contains your home folder, which the sandbox hides; \
                     use the project's own sub-folder",
                    canonical.display()
                ),
            ));
        }
        for sensitive in sensitive_paths(Some(&home)) {
            if canonical.starts_with(&sensitive) {
                return Err(refuse(
                    "SBX-3",
                    format!(
                        "the project folder lies inside the sensitive folder {}",
                        sensitive.display()
                    ),
                ));
            }
        }
    }
    for dir in SYSTEM_READ_ONLY {
        if canonical == Path::new(dir) {
            return Err(refuse(
                "BEYOND-3",
                format!("the project folder cannot be the system folder {dir}"),
            ));
        }
    }
    let text = canonical.to_str().ok_or_else(|| {
        refuse(
            "SBX-5",
            "the project path is not UTF-8; the sandbox cannot name it safely".to_string(),
        )
    })?;
    if text.contains([',', ':', '\\', '\n']) {
        return Err(refuse(
            "SBX-5",
            format!(
                "the project path {text} contains `,`, `:`, `\\` or a newline, which overlayfs \
                 options cannot carry; move or rename the folder"
            ),
        ));
    }
    Ok(canonical)
}

/// Absolute sensitive paths: under the home folder and ploy's own folders.
fn sensitive_paths(home: Option<&Path>) -> Vec<PathBuf> {
    let mut paths = Vec::new();
    if let Some(home) = home {
        let home = home.canonicalize().unwrap_or_else(|_| home.to_path_buf());
        paths.extend(SENSITIVE_HOME_ENTRIES.iter().map(|entry| home.join(entry)));
    }
    for name in ["PLOY_CONFIG_DIR", "PLOY_STATE_DIR"] {
        if let Some(dir) = std::env::var_os(name).filter(|v| !v.is_empty()) {
            let dir = PathBuf::from(dir);
            paths.push(dir.canonicalize().unwrap_or(dir));
        }
    }
    paths
}

/// Paths inside the project to hide: sensitive paths under it, and top-level
/// entries named like a sensitive home entry (a copied `.ssh`, `.aws`...).
fn masks_inside(project: &Path, sensitive: &[PathBuf]) -> Vec<PathBuf> {
    let mut masks: Vec<PathBuf> = sensitive
        .iter()
        .filter(|path| path.starts_with(project) && path.as_path() != project)
        .filter(|path| path.symlink_metadata().is_ok())
        .cloned()
        .collect();
    for entry in SENSITIVE_HOME_ENTRIES {
        let candidate = project.join(entry);
        if candidate.symlink_metadata().is_ok() && !masks.contains(&candidate) {
            masks.push(candidate);
        }
    }
    masks
}

/// Checks a writable sub-folder of a copy-on-write project: a plain relative
/// path whose resolved folder stays inside the project, so a symlink cannot
/// make the host writable (SBX-2). Ok(false) when it does not exist.
fn prepare_writable(project: &Path, sub: &Path) -> Result<bool, SandboxError> {
    let plain = !sub.as_os_str().is_empty()
        && sub
            .components()
            .all(|component| matches!(component, Component::Normal(_)));
    if !plain {
        return Err(refuse(
            "SBX-2",
            format!(
                "the writable folder `{}` must be a plain relative path inside the project (no `/`, `..` or `.` at its start)",
                sub.display()
            ),
        ));
    }
    let full = project.join(sub);
    if full.symlink_metadata().is_err() {
        return Ok(false);
    }
    let resolved = full.canonicalize().map_err(|err| {
        refuse(
            "SBX-2",
            format!(
                "cannot resolve the writable folder {}: {err}",
                full.display()
            ),
        )
    })?;
    if resolved != full || !resolved.is_dir() {
        return Err(refuse(
            "SBX-2",
            format!(
                "the writable folder {} is a symlink or not a folder (it resolves to {}); \
                 writes could escape the project, so it is refused",
                full.display(),
                resolved.display()
            ),
        ));
    }
    Ok(true)
}

/// A launched init's result: the output, or the layer that failed.
struct Launched {
    output: RunOutput,
    /// Why the status channel is not trusted (something but the init wrote).
    tampered: Option<String>,
    failure: Option<(Layer, String)>,
    status_lines: Vec<String>,
}

fn probe_with(launcher: &Path, simulate_missing: &[Layer]) -> ProbeReport {
    let landlock_abi = init::kernel_landlock_abi();
    let running_as_root = nix::unistd::geteuid().is_root();
    let mut layers: Vec<LayerStatus> = Vec::new();
    let outcome = ProbeProject::create().and_then(|project| {
        let request = InitRequest {
            uid: nix::unistd::geteuid().as_raw(),
            gid: nix::unistd::getegid().as_raw(),
            project: project.path.clone(),
            view: ProjectView::CopyOnWrite {
                writable: Vec::new(),
            },
            masks: Vec::new(),
            read_only: SYSTEM_READ_ONLY.iter().map(PathBuf::from).collect(),
            limits: Limits::default(),
            work: Work::Probe,
            simulate_missing: simulate_missing.to_vec(),
        };
        let env = build_env(std::env::vars_os(), &[], SANDBOX_HOME);
        launch(launcher, &request, &env)
    });
    match outcome {
        Err(err) => {
            for layer in Layer::PROBED {
                layers.push(LayerStatus {
                    layer,
                    state: if layer == Layer::UserNamespaces {
                        LayerState::Missing
                    } else {
                        LayerState::NotChecked
                    },
                    detail: if layer == Layer::UserNamespaces {
                        err.to_string()
                    } else {
                        "not checked: the probe could not start".to_string()
                    },
                });
            }
        }
        Ok(launched) => {
            for layer in Layer::PROBED {
                let ok_line = launched
                    .status_lines
                    .iter()
                    .find_map(|line| line.strip_prefix(&format!("OK\t{}\t", layer.name())));
                let (state, detail) = match (&launched.failure, ok_line) {
                    (_, Some(detail)) => (LayerState::Ok, detail.to_string()),
                    (Some((failed, detail)), None) if *failed == layer => {
                        (LayerState::Missing, detail.clone())
                    }
                    (Some(_), None) => (
                        LayerState::NotChecked,
                        "not checked: another layer is missing".to_string(),
                    ),
                    (None, None) => (
                        LayerState::Missing,
                        format!(
                            "the probe did not confirm this layer (launcher {:?}; stderr: {})",
                            launched.output.termination,
                            String::from_utf8_lossy(&launched.output.stderr).trim()
                        ),
                    ),
                };
                layers.push(LayerStatus {
                    layer,
                    state,
                    detail,
                });
            }
        }
    }
    ProbeReport {
        layers,
        landlock_abi,
        running_as_root,
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

/// Starts the launcher as the sandbox init, feeds nothing on stdin, captures
/// (capped) stdout/stderr and the private status pipe, enforces wall time.
fn launch(
    launcher: &Path,
    request: &InitRequest,
    env: &[(String, String)],
) -> Result<Launched, SandboxError> {
    let request_json = serde_json::to_string(request)
        .map_err(|err| SandboxError::Launcher(format!("cannot encode the request: {err}")))?;
    let request_fd = sealed_memfd("ploy-sandbox-request", request_json.as_bytes())
        .map_err(|err| SandboxError::Launcher(format!("cannot pass the request: {err}")))?;
    let (status_read, status_write) = nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC)
        .map_err(|err| SandboxError::Launcher(format!("cannot create the status pipe: {err}")))?;
    let started = Instant::now();
    let mut child = spawn_launcher(
        launcher,
        (request.uid, request.gid),
        &request_fd,
        env,
        &status_write,
    )
    .map_err(|err| match err {
        SpawnError::Namespaces(err) => SandboxError::LayerMissing {
            layer: Layer::UserNamespaces,
            detail: format!("new user, mount, pid, net, ipc and uts namespaces: {err}"),
        },
        SpawnError::Other(detail) => {
            SandboxError::Launcher(format!("cannot start {}: {detail}", launcher.display()))
        }
    })?;
    drop(status_write);
    let collected = collect(
        &mut child,
        std::fs::File::from(status_read),
        started + Duration::from_millis(request.limits.wall_ms),
        request.limits.output_bytes,
    );
    let timed_out = collected.timed_out;
    let launcher_status = child
        .wait()
        .map_err(|err| SandboxError::Launcher(format!("cannot wait for the launcher: {err}")))?;
    let duration = started.elapsed();
    let (stdout, out_cut) = (collected.stdout.kept, collected.stdout.truncated);
    let (stderr, err_cut) = (collected.stderr.kept, collected.stderr.truncated);
    let status_text = String::from_utf8_lossy(&collected.status.kept).into_owned();
    let status_lines: Vec<String> = status_text.lines().map(str::to_string).collect();
    let mut failure = None;
    let mut termination = None;
    let mut exits = 0;
    let mut malformed = None;
    for line in &status_lines {
        if exits > 0 && malformed.is_none() {
            malformed = Some("a line after the exit report");
        }
        let mut parts = line.splitn(3, '\t');
        match (parts.next(), parts.next(), parts.next()) {
            (Some("ERR"), Some(layer), Some(detail)) => {
                if failure.is_none() {
                    let layer = Layer::from_name(layer).unwrap_or(Layer::Filesystem);
                    failure = Some((layer, detail.to_string()));
                }
            }
            (Some("OK"), Some(layer), Some(_)) if Layer::from_name(layer).is_some() => {}
            (Some("READY"), None, None) => {}
            (Some("EXIT"), Some(kind), Some(value)) => {
                exits += 1;
                termination = match (kind, value.parse()) {
                    ("code", Ok(code)) => Some(Termination::Exited(code)),
                    ("signal", Ok(signal)) => Some(Termination::Signaled(signal)),
                    _ => {
                        malformed = Some("an exit report that does not parse");
                        None
                    }
                };
            }
            _ => malformed = malformed.or(Some("a line the init never writes")),
        }
    }
    // Only the init writes on the status channel, and it ends with exactly
    // one exit report, which its own exit status repeats (the kernel reports
    // that one, so the two are independent). Anything else means something
    // other than the init wrote there: the verdict is not trusted (SBX-5).
    let launcher_code = launcher_status.code();
    let agrees = match termination {
        Some(Termination::Exited(code)) => launcher_code == Some(code.clamp(0, 255)),
        Some(Termination::Signaled(signal)) => launcher_code == Some((128 + signal).clamp(0, 255)),
        None => true,
    };
    let tampered = malformed
        .or((exits > 1).then_some("more than one exit report"))
        .or((!agrees).then_some("an exit report the init's own exit status contradicts"))
        .map(|what| {
            format!(
                "the sandbox's status channel carried {what}; the verdict is not trusted \
                 (launcher {launcher_status})"
            )
        });
    let termination = termination.unwrap_or_else(|| {
        use std::os::unix::process::ExitStatusExt;
        match (launcher_status.code(), launcher_status.signal()) {
            (Some(code), _) => Termination::Exited(code),
            (None, Some(signal)) => Termination::Signaled(signal),
            (None, None) => Termination::Signaled(9),
        }
    });
    let probe_ready = status_lines.iter().any(|line| line == "READY");
    if failure.is_none()
        && !timed_out
        && !matches!(request.work, Work::Probe)
        && !status_lines.iter().any(|l| l.starts_with("EXIT\t"))
    {
        // The init never reported the program's end: something killed it or it
        // failed without a word. Treat as a launcher failure, never a pass.
        failure = Some((
            Layer::Filesystem,
            format!(
                "the sandbox init ended without a report (launcher {launcher_status}; stderr: {})",
                String::from_utf8_lossy(&stderr).trim()
            ),
        ));
    }
    if matches!(request.work, Work::Probe) && failure.is_none() && !probe_ready {
        failure = Some((
            Layer::UserNamespaces,
            format!(
                "the probe ended without a report (launcher {launcher_status}; stderr: {})",
                String::from_utf8_lossy(&stderr).trim()
            ),
        ));
    }
    Ok(Launched {
        output: RunOutput {
            termination,
            timed_out,
            duration,
            stdout,
            stderr,
            output_truncated: out_cut || err_cut,
        },
        failure,
        tampered,
        status_lines,
    })
}

/// The launcher process: PID 1 of the sandbox's fresh PID namespace, a child
/// of the calling thread, with its output pipes.
struct LauncherProcess {
    pid: libc::pid_t,
    stdout: Option<std::fs::File>,
    stderr: Option<std::fs::File>,
    status: Option<ExitStatus>,
}

impl LauncherProcess {
    /// Reaps the launcher if it has ended (never blocks).
    fn try_wait(&mut self) -> Option<ExitStatus> {
        if self.status.is_none() {
            let mut raw = 0;
            // SAFETY: waitpid on our own unreaped child, WNOHANG.
            if unsafe { libc::waitpid(self.pid, &mut raw, libc::WNOHANG) } == self.pid {
                self.status = Some(ExitStatus::from_raw(raw));
            }
        }
        self.status
    }

    /// SIGKILL to PID 1, which tears down the whole PID namespace.
    fn kill(&self) {
        if self.status.is_none() {
            // SAFETY: kill with our unreaped child's pid (it cannot be reused
            // before we reap it) and a constant signal.
            unsafe { libc::kill(self.pid, libc::SIGKILL) };
        }
    }

    /// Waits for the launcher to end and reaps it.
    fn wait(&mut self) -> std::io::Result<ExitStatus> {
        loop {
            if let Some(status) = self.status {
                return Ok(status);
            }
            let mut raw = 0;
            // SAFETY: blocking waitpid on our own unreaped child.
            let rc = unsafe { libc::waitpid(self.pid, &mut raw, 0) };
            if rc == self.pid {
                self.status = Some(ExitStatus::from_raw(raw));
            } else {
                let err = std::io::Error::last_os_error();
                if err.kind() != std::io::ErrorKind::Interrupted {
                    return Err(err);
                }
            }
        }
    }
}

/// Why the launcher could not be started.
enum SpawnError {
    /// The kernel refused the new namespaces (SBX-5: the user-namespaces layer).
    Namespaces(std::io::Error),
    /// Anything else (pipes, paths, exec of the launcher).
    Other(String),
}

/// Namespaces the launcher is created in: PID 1 of a fresh PID namespace,
/// inside new user, mount, network, IPC and UTS namespaces.
const LAUNCHER_NAMESPACES: libc::c_int = libc::CLONE_NEWUSER
    | libc::CLONE_NEWNS
    | libc::CLONE_NEWPID
    | libc::CLONE_NEWNET
    | libc::CLONE_NEWIPC
    | libc::CLONE_NEWUTS;

/// Everything the launcher's child side needs, prepared before `clone`
/// (the child may not allocate: it shares the parent's memory).
struct ChildSetup {
    path: *const libc::c_char,
    argv: *const *const libc::c_char,
    envp: *const *const libc::c_char,
    /// Descriptors to install as 0, 1, 2, [`init::STATUS_FD`] and
    /// [`init::REQUEST_FD`], all >= 10.
    fds: [libc::c_int; 5],
    empty_mask: libc::sigset_t,
    /// `/proc/self/setgroups`, `uid_map`, `gid_map` and what to write in each.
    id_maps: [(*const libc::c_char, *const libc::c_char); 3],
    /// The errno of a failed step, read by the parent.
    failed: std::sync::atomic::AtomicI32,
    /// Which step failed (an index into [`CHILD_STEPS`]).
    failed_step: std::sync::atomic::AtomicI32,
}

/// The child's steps, as named in errors; steps 1-3 are the user namespace's.
const CHILD_STEPS: [&str; 6] = [
    "session and signals",
    "setgroups",
    "uid_map",
    "gid_map",
    "standard descriptors",
    "exec",
];

/// The child side of the launcher's `clone`: only raw system calls, then exec.
///
/// The ID maps are written here, before exec, while the child still holds
/// every capability in its new user namespace; the capabilities are kept
/// across exec as ambient ones (a non-root exec would drop them) so the
/// launcher can build the sandbox, and it drops them all before the program
/// starts.
extern "C" fn launcher_child(arg: *mut libc::c_void) -> libc::c_int {
    use std::sync::atomic::Ordering;
    // SAFETY: `arg` is the parent's ChildSetup, alive while the parent is
    // suspended (CLONE_VFORK); every call below is async-signal-safe.
    unsafe {
        let setup = &*(arg as *const ChildSetup);
        let fail = |setup: &ChildSetup, step: i32| -> libc::c_int {
            let errno = *libc::__errno_location();
            setup.failed_step.store(step, Ordering::SeqCst);
            setup.failed.store(errno.max(1), Ordering::SeqCst);
            libc::_exit(127)
        };
        // Signals arrive blocked (the parent blocked them around clone): a
        // handler of the parent must never run here, on shared memory. Reset
        // every handled signal to its default (exec would anyway) and SIGPIPE
        // too (as std's Command does), then unblock all: the sandbox starts
        // clean even when a service thread blocked some.
        for signal in 1..65 {
            let mut current = std::mem::zeroed::<libc::sigaction>();
            if libc::sigaction(signal, std::ptr::null(), &mut current) != 0 {
                continue;
            }
            if current.sa_sigaction != libc::SIG_DFL
                && (current.sa_sigaction != libc::SIG_IGN || signal == libc::SIGPIPE)
            {
                let mut default = std::mem::zeroed::<libc::sigaction>();
                default.sa_sigaction = libc::SIG_DFL;
                libc::sigaction(signal, &default, std::ptr::null_mut());
            }
        }
        // Own session: no controlling terminal to push input into. The
        // sandbox dies with the thread that started it.
        if libc::sigprocmask(libc::SIG_SETMASK, &setup.empty_mask, std::ptr::null_mut()) != 0
            || libc::setsid() < 0
            || libc::prctl(
                libc::PR_SET_PDEATHSIG,
                libc::SIGKILL as libc::c_ulong,
                0,
                0,
                0,
            ) != 0
        {
            return fail(setup, 0);
        }
        for (step, (path, text)) in setup.id_maps.iter().enumerate() {
            let fd = libc::open(*path, libc::O_WRONLY | libc::O_CLOEXEC);
            if fd < 0 {
                return fail(setup, step as i32 + 1);
            }
            let len = libc::strlen(*text);
            let written = libc::write(fd, (*text).cast(), len);
            if written != len as isize {
                return fail(setup, step as i32 + 1);
            }
            libc::close(fd);
        }
        keep_capabilities_across_exec();
        for (target, fd) in [0, 1, 2, init::STATUS_FD, init::REQUEST_FD]
            .into_iter()
            .zip(setup.fds)
        {
            if libc::dup2(fd, target) < 0 {
                return fail(setup, 4);
            }
        }
        // Nothing else the caller holds reaches the init (a descriptor ploy
        // inherited from its own caller, e.g. `exec 8<~/.ssh/id_rsa`): every
        // other descriptor closes at exec.
        if libc::close_range(
            (init::REQUEST_FD + 1) as libc::c_uint,
            libc::c_uint::MAX,
            libc::CLOSE_RANGE_CLOEXEC as libc::c_int,
        ) != 0
        {
            return fail(setup, 4);
        }
        libc::execve(setup.path, setup.argv, setup.envp);
        fail(setup, 5)
    }
}

/// Makes the child's capabilities (all of them, inside its new user
/// namespace only) ambient so they survive exec. Failures are left to show
/// up as a refused mount in the launcher, which stops the run (SBX-5).
fn keep_capabilities_across_exec() {
    #[repr(C)]
    struct CapHeader {
        version: u32,
        pid: i32,
    }
    #[repr(C)]
    #[derive(Clone, Copy)]
    struct CapData {
        effective: u32,
        permitted: u32,
        inheritable: u32,
    }
    let mut header = CapHeader {
        version: 0x2008_0522,
        pid: 0,
    };
    let mut data = [CapData {
        effective: 0,
        permitted: 0,
        inheritable: 0,
    }; 2];
    // SAFETY: capget/capset with a v3 header and two data structs; prctl with
    // integers. All are plain system calls, safe in the vfork child.
    unsafe {
        if libc::syscall(
            libc::SYS_capget,
            &mut header as *mut CapHeader,
            data.as_mut_ptr(),
        ) != 0
        {
            return;
        }
        for item in &mut data {
            item.inheritable = item.permitted;
        }
        if libc::syscall(libc::SYS_capset, &header as *const CapHeader, data.as_ptr()) != 0 {
            return;
        }
        for cap in 0..64 {
            libc::prctl(
                libc::PR_CAP_AMBIENT,
                libc::PR_CAP_AMBIENT_RAISE as libc::c_ulong,
                cap as libc::c_ulong,
                0,
                0,
            );
        }
    }
}

/// A memfd holding `bytes`, sealed against any change, read from offset 0.
fn sealed_memfd(name: &str, bytes: &[u8]) -> std::io::Result<OwnedFd> {
    use std::io::{Seek, Write};
    let name = CString::new(name).map_err(|_| std::io::Error::other("memfd name"))?;
    // SAFETY: a valid C string and flags; returns a new descriptor or -1.
    let raw =
        unsafe { libc::memfd_create(name.as_ptr(), libc::MFD_CLOEXEC | libc::MFD_ALLOW_SEALING) };
    if raw < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: the kernel just returned this descriptor; we own it.
    let mut file = std::fs::File::from(unsafe { OwnedFd::from_raw_fd(raw) });
    file.write_all(bytes)?;
    file.rewind()?;
    let seals = libc::F_SEAL_SEAL | libc::F_SEAL_SHRINK | libc::F_SEAL_GROW | libc::F_SEAL_WRITE;
    // SAFETY: fcntl on our own descriptor with integer flags.
    if unsafe { libc::fcntl(file.as_raw_fd(), libc::F_ADD_SEALS, seals) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(OwnedFd::from(file))
}

/// A descriptor moved to number 10 or above (so installing 0..3 in the child
/// cannot overwrite another), close-on-exec.
fn high_fd(fd: OwnedFd) -> std::io::Result<OwnedFd> {
    // SAFETY: F_DUPFD_CLOEXEC on a live descriptor returns a new one or -1.
    let raw = unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_DUPFD_CLOEXEC, 10) };
    if raw < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: the kernel just returned this descriptor; we own it.
    Ok(unsafe { OwnedFd::from_raw_fd(raw) })
}

/// The one place the sandbox starts a process: the launcher, created directly
/// as PID 1 of new user, mount, PID, network, IPC and UTS namespaces (one
/// `clone`, no intermediate process), with exactly `env` (SBX-4), stdin from
/// /dev/null, piped output, its own session, killed when the spawning thread
/// dies, and the status pipe as fd 3. `CLONE_VM | CLONE_VFORK` (as
/// posix_spawn does) spares copying the parent's page tables.
fn spawn_launcher(
    launcher: &Path,
    (uid, gid): (u32, u32),
    request: &OwnedFd,
    env: &[(String, String)],
    status_write: &OwnedFd,
) -> Result<LauncherProcess, SpawnError> {
    use std::os::unix::ffi::OsStrExt;
    let other =
        |what: &str, err: &dyn std::fmt::Display| SpawnError::Other(format!("{what}: {err}"));
    let c_string = |bytes: &[u8]| {
        CString::new(bytes)
            .map_err(|_| SpawnError::Other("an argument contains a NUL byte".to_string()))
    };
    let path = c_string(launcher.as_os_str().as_bytes())?;
    let args = [path.clone(), c_string(INIT_MARKER.as_bytes())?];
    let mut env_strings = Vec::with_capacity(env.len());
    for (name, value) in env {
        env_strings.push(c_string(format!("{name}={value}").as_bytes())?);
    }
    let argv: Vec<*const libc::c_char> = args
        .iter()
        .map(|arg| arg.as_ptr())
        .chain(std::iter::once(std::ptr::null()))
        .collect();
    let envp: Vec<*const libc::c_char> = env_strings
        .iter()
        .map(|var| var.as_ptr())
        .chain(std::iter::once(std::ptr::null()))
        .collect();
    let stdin = std::fs::File::open("/dev/null").map_err(|err| other("open /dev/null", &err))?;
    let (out_read, out_write) = nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC)
        .map_err(|err| other("stdout pipe", &err))?;
    let (err_read, err_write) = nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC)
        .map_err(|err| other("stderr pipe", &err))?;
    let status_copy = status_write
        .try_clone()
        .map_err(|err| other("status pipe", &err))?;
    let request_copy = request.try_clone().map_err(|err| other("request", &err))?;
    let child_fds = [
        high_fd(OwnedFd::from(stdin)).map_err(|err| other("stdin", &err))?,
        high_fd(out_write).map_err(|err| other("stdout pipe", &err))?,
        high_fd(err_write).map_err(|err| other("stderr pipe", &err))?,
        high_fd(status_copy).map_err(|err| other("status pipe", &err))?,
        high_fd(request_copy).map_err(|err| other("request", &err))?,
    ];
    // SAFETY: sigemptyset initializes the set it is given.
    let empty_mask = unsafe {
        let mut set = std::mem::zeroed::<libc::sigset_t>();
        libc::sigemptyset(&mut set);
        set
    };
    let id_texts = [
        c_string(b"/proc/self/setgroups")?,
        c_string(b"deny")?,
        c_string(b"/proc/self/uid_map")?,
        c_string(format!("{uid} {uid} 1").as_bytes())?,
        c_string(b"/proc/self/gid_map")?,
        c_string(format!("{gid} {gid} 1").as_bytes())?,
    ];
    let setup = ChildSetup {
        id_maps: [
            (id_texts[0].as_ptr(), id_texts[1].as_ptr()),
            (id_texts[2].as_ptr(), id_texts[3].as_ptr()),
            (id_texts[4].as_ptr(), id_texts[5].as_ptr()),
        ],
        failed_step: std::sync::atomic::AtomicI32::new(0),
        path: path.as_ptr(),
        argv: argv.as_ptr(),
        envp: envp.as_ptr(),
        fds: [
            child_fds[0].as_raw_fd(),
            child_fds[1].as_raw_fd(),
            child_fds[2].as_raw_fd(),
            child_fds[3].as_raw_fd(),
            child_fds[4].as_raw_fd(),
        ],
        empty_mask,
        failed: std::sync::atomic::AtomicI32::new(0),
    };
    // The child runs on its own stack until exec; 256 KiB is far more than
    // the few system calls it makes.
    let mut stack = vec![0u8; 256 * 1024];
    // SAFETY: one past the end of the live allocation; clone aligns nothing,
    // so round down to 16 bytes as the x86-64 and aarch64 ABIs require.
    let stack_top = unsafe { stack.as_mut_ptr().add(stack.len()) } as usize & !15;
    let flags = libc::CLONE_VM | libc::CLONE_VFORK | LAUNCHER_NAMESPACES | libc::SIGCHLD;
    // SAFETY: the child only reads `setup` (alive until clone returns, as
    // CLONE_VFORK suspends us until the child execs or exits) and makes
    // async-signal-safe calls on its own stack; the signal masks are live
    // sets restored right after.
    let (pid, clone_error) = unsafe {
        // Block every signal across clone (as posix_spawn does) so none is
        // handled in the child before it resets the handlers.
        let mut all = std::mem::zeroed::<libc::sigset_t>();
        let mut previous = std::mem::zeroed::<libc::sigset_t>();
        libc::sigfillset(&mut all);
        libc::pthread_sigmask(libc::SIG_SETMASK, &all, &mut previous);
        let pid = libc::clone(
            launcher_child,
            stack_top as *mut libc::c_void,
            flags,
            &setup as *const ChildSetup as *mut libc::c_void,
        );
        let clone_error = std::io::Error::last_os_error();
        libc::pthread_sigmask(libc::SIG_SETMASK, &previous, std::ptr::null_mut());
        (pid, clone_error)
    };
    if pid < 0 {
        return Err(SpawnError::Namespaces(clone_error));
    }
    drop(stack);
    let failed = setup.failed.load(std::sync::atomic::Ordering::SeqCst);
    let mut process = LauncherProcess {
        pid,
        stdout: Some(std::fs::File::from(out_read)),
        stderr: Some(std::fs::File::from(err_read)),
        status: None,
    };
    if failed != 0 {
        let _ = process.wait();
        let step = setup.failed_step.load(std::sync::atomic::Ordering::SeqCst);
        let name = CHILD_STEPS.get(step as usize).copied().unwrap_or("set-up");
        let err = std::io::Error::from_raw_os_error(failed);
        return Err(if (1..=3).contains(&step) {
            SpawnError::Namespaces(std::io::Error::new(err.kind(), format!("{name}: {err}")))
        } else {
            SpawnError::Other(format!("{name}: {err}"))
        });
    }
    Ok(process)
}

/// Bytes read from one pipe, capped.
#[derive(Default)]
struct Captured {
    kept: Vec<u8>,
    truncated: bool,
}

impl Captured {
    fn push(&mut self, bytes: &[u8], cap: usize) {
        let room = cap.saturating_sub(self.kept.len());
        if bytes.len() > room {
            self.truncated = true;
        }
        self.kept.extend_from_slice(&bytes[..bytes.len().min(room)]);
    }
}

/// What [`collect`] gathered.
struct Collected {
    stdout: Captured,
    stderr: Captured,
    status: Captured,
    timed_out: bool,
}

/// How long to keep draining output after the launcher exited (everything in
/// the sandbox is dead by then; this only guards against a stuck pipe).
const DRAIN_GRACE: Duration = Duration::from_secs(2);

/// Largest status report kept (a few lines per layer).
const STATUS_CAP: usize = 64 * 1024;

/// One poll loop, no threads: reads stdout, stderr and the status pipe
/// (capped), notices the launcher's exit through a pidfd, and kills it at the
/// deadline. Fewer hand-offs between threads keeps start-up fast under load.
fn collect(
    child: &mut LauncherProcess,
    status: std::fs::File,
    deadline: Instant,
    cap: usize,
) -> Collected {
    let mut out = Collected {
        stdout: Captured::default(),
        stderr: Captured::default(),
        status: Captured::default(),
        timed_out: false,
    };
    let mut pipes: [Option<Box<dyn ReadFd>>; 3] = [
        child.stdout.take().map(|p| Box::new(p) as Box<dyn ReadFd>),
        child.stderr.take().map(|p| Box::new(p) as Box<dyn ReadFd>),
        Some(Box::new(status)),
    ];
    // SAFETY: pidfd_open takes a pid and flags and returns a new fd or -1.
    let raw = unsafe { libc::syscall(libc::SYS_pidfd_open, child.pid, 0) };
    // SAFETY: the kernel just returned this fd to us; we own it.
    let pidfd = (raw >= 0).then(|| unsafe { OwnedFd::from_raw_fd(raw as libc::c_int) });
    let mut exited_at: Option<Instant> = None;
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        if exited_at.is_none() && pidfd.is_none() && child.try_wait().is_some() {
            exited_at = Some(Instant::now());
        }
        let open = pipes.iter().any(Option::is_some);
        if !open && exited_at.is_some() {
            break;
        }
        let now = Instant::now();
        let until = match exited_at {
            Some(at) => at + DRAIN_GRACE,
            None => deadline,
        };
        if now >= until {
            if exited_at.is_some() {
                break;
            }
            // SIGKILL to the launcher, PID 1 of the sandbox: the kernel
            // kills everything else in its PID namespace.
            child.kill();
            out.timed_out = true;
            exited_at = Some(now);
            continue;
        }
        let mut fds: Vec<libc::pollfd> = Vec::with_capacity(4);
        let mut owners: Vec<Option<usize>> = Vec::with_capacity(4);
        for (index, pipe) in pipes.iter().enumerate() {
            if let Some(pipe) = pipe {
                fds.push(libc::pollfd {
                    fd: pipe.raw_fd(),
                    events: libc::POLLIN,
                    revents: 0,
                });
                owners.push(Some(index));
            }
        }
        if let (Some(pidfd), None) = (&pidfd, exited_at) {
            fds.push(libc::pollfd {
                fd: pidfd.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            });
            owners.push(None);
        }
        let mut wait = until.saturating_duration_since(now);
        if pidfd.is_none() && exited_at.is_none() {
            wait = wait.min(Duration::from_millis(5));
        }
        let millis = wait.as_millis().clamp(1, i32::MAX as u128) as libc::c_int;
        // SAFETY: a live array of pollfd and its length.
        let ready = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, millis) };
        if ready < 0 {
            if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            break;
        }
        for (fd, owner) in fds.iter().zip(&owners) {
            if fd.revents == 0 {
                continue;
            }
            match owner {
                None => exited_at = Some(Instant::now()),
                Some(index) => {
                    let Some(pipe) = pipes[*index].as_mut() else {
                        continue;
                    };
                    match pipe.read(&mut buf) {
                        Ok(0) => pipes[*index] = None,
                        Ok(n) => {
                            let (target, limit) = match index {
                                0 => (&mut out.stdout, cap),
                                1 => (&mut out.stderr, cap),
                                _ => (&mut out.status, STATUS_CAP),
                            };
                            target.push(&buf[..n], limit);
                        }
                        Err(err) if err.kind() == std::io::ErrorKind::Interrupted => {}
                        Err(_) => pipes[*index] = None,
                    }
                }
            }
        }
    }
    out
}

/// A readable pipe with its descriptor (stdout, stderr, the status pipe).
trait ReadFd: Read {
    fn raw_fd(&self) -> libc::c_int;
}

impl<T: Read + AsRawFd> ReadFd for T {
    fn raw_fd(&self) -> libc::c_int {
        self.as_raw_fd()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // proves: SBX-2
    #[test]
    fn writable_folder_must_be_plain_and_inside_the_project() {
        let base = std::env::temp_dir().join(format!("ploy-sbx-unit-{}", std::process::id()));
        let project = base.join("proj");
        std::fs::create_dir_all(&project).unwrap();
        let outside = base.join("outside");
        std::fs::create_dir_all(&outside).unwrap();
        std::os::unix::fs::symlink(&outside, project.join("escape")).unwrap();
        let project = project.canonicalize().unwrap();
        for bad in ["../outside", "/tmp", "escape", "", "./target"] {
            let err = prepare_writable(&project, Path::new(bad)).unwrap_err();
            assert_eq!(err.rule(), "SBX-2", "{bad}: {err}");
        }
        assert!(!prepare_writable(&project, Path::new("target")).unwrap());
        assert!(
            !project.join("target").exists(),
            "never created in the project"
        );
        std::fs::create_dir(project.join("target")).unwrap();
        assert!(prepare_writable(&project, Path::new("target")).unwrap());
        std::fs::remove_dir_all(&base).unwrap();
    }

    // proves: BEYOND-3
    #[test]
    fn project_that_is_or_contains_home_is_refused() {
        let base = std::env::temp_dir()
            .canonicalize()
            .unwrap()
            .join(format!("ploy-sbx-home-{}", std::process::id()));
        let home = base.join("home");
        std::fs::create_dir_all(home.join(".ssh/keys")).unwrap();
        for project in [&home, &base] {
            let err = check_project(project, Some(&home)).unwrap_err();
            assert_eq!(err.rule(), "BEYOND-3", "{err}");
        }
        let err = check_project(&home.join(".ssh/keys"), Some(&home)).unwrap_err();
        assert_eq!(err.rule(), "SBX-3", "{err}");
        assert!(check_project(Path::new("/"), None).is_err());
        std::fs::remove_dir_all(&base).unwrap();
    }

    // proves: SBX-3
    #[test]
    fn sensitive_entries_inside_the_project_are_masked() {
        let base = std::env::temp_dir().join(format!("ploy-sbx-mask-{}", std::process::id()));
        std::fs::create_dir_all(base.join(".ssh")).unwrap();
        std::fs::create_dir_all(base.join(".aws")).unwrap();
        std::fs::write(base.join(".netrc"), "machine x").unwrap();
        let base = base.canonicalize().unwrap();
        let masks = masks_inside(&base, &[]);
        for name in [".ssh", ".aws", ".netrc"] {
            assert!(
                masks.contains(&base.join(name)),
                "{name} not masked: {masks:?}"
            );
        }
        std::fs::remove_dir_all(&base).unwrap();
    }
}
