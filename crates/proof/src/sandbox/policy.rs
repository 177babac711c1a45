//! What a sandbox allows: the policy, its limits, its layers, and the checks
//! that refuse a policy before anything starts (BEYOND-3, SBX-2, SBX-3).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// Where the sandboxed program's `HOME` points (inside the private `/tmp`).
pub const SANDBOX_HOME: &str = "/tmp/home";

/// Where the project's build cache is mounted inside the sandbox (BEYOND-4).
pub const BUILD_CACHE_MOUNT: &str = "/var/cache/ploy-build";

/// Build tools' cache and output variables pointed into the run's own build
/// cache, so nothing a proof builds lands in the project (where the host
/// could later run it). Each is a sub-folder of [`BUILD_CACHE_MOUNT`].
/// Python's bytecode is handled apart (`mod.rs::python_env`): the system's
/// own is used, the project's is hidden.
pub const BUILD_CACHE_VARIABLES: &[(&str, &str)] = &[
    ("CARGO_TARGET_DIR", "cargo-target"),
    ("GOCACHE", "go-build"),
    ("npm_config_cache", "npm"),
    ("XDG_CACHE_HOME", "xdg"),
    ("CCACHE_DIR", "ccache"),
];

/// The most `__pycache__` folders a project may hold for Python to run with
/// the system's own bytecode (each is hidden by one mount); past it, or when
/// one is a link, Python gets a private bytecode folder of the run instead
/// and compiles the standard library again (slower, as safe).
pub const MAX_BYTECODE_MASKS: usize = 64;

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
    // cargo's configuration can hold registry tokens too (`[registries]`).
    ".cargo/config",
    ".cargo/config.toml",
    ".vault-token",
    ".boto",
    ".s3cfg",
    ".terraform.d/credentials.tfrc.json",
    ".local/share/keyrings",
    ".config/hub",
    ".docker/config.json",
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

/// The parts of a cargo home a build needs (installed tools, the registry's
/// downloaded crates, git checkouts). Never its `config.toml` or
/// `credentials.toml`, which can hold registry tokens (SBX-3).
pub const CARGO_HOME_PARTS: &[&str] = &["bin", "registry", "git"];

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
    /// Resource limits (processes, memory in total, CPU, file size).
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

    /// The layer with this name.
    pub fn from_name(name: &str) -> Option<Layer> {
        Layer::PROBED
            .into_iter()
            .chain([Layer::Exec])
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
    /// Memory of the whole sandbox: the init sums the private memory of
    /// every process in it, plus what its `/tmp`, `/dev/shm` and
    /// copy-on-write layer hold, and kills them all past this. Also each
    /// process's data segment (RLIMIT_DATA: heap and private mappings; not
    /// RLIMIT_AS, which breaks V8 and Go).
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
    /// The most a run may write to its build cache (BEYOND-4): the cache is
    /// the run's own and is removed when it ends; during the run the init
    /// kills the sandbox once the disk holding the cache has this much more
    /// in use than at the start.
    pub build_cache_bytes: u64,
    /// The most files and folders a run may create on the disk holding its
    /// build cache (BEYOND-4, SBX-2; proof5 #6: empty files cost an inode
    /// each and almost no bytes, so a byte bound alone let one run use up
    /// the disk's inodes): counted like [`Limits::build_cache_bytes`], from
    /// the disk's inodes in use. Not enforced on a file system that reports
    /// no inode count (btrfs).
    pub build_cache_inodes: u64,
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
            build_cache_bytes: 8 << 30,
            build_cache_inodes: 1_000_000,
            output_bytes: 1 << 20,
        }
    }
}

/// How the project folder is seen inside the sandbox.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ProjectView {
    /// Copy-on-write (BEYOND-4): every write lands in a throwaway layer and
    /// vanishes when the run ends. Build output goes to the project's build
    /// cache outside the project ([`SandboxPolicy::build_cache_root`]).
    #[default]
    CopyOnWrite,
    /// The project is bound writable: writes persist (the shell tool). The
    /// PERM-7 paths in it stay read-only (SBX-6).
    Writable,
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
    /// Where ploy keeps build caches (one sub-folder per project), outside
    /// every project. When set, the project's cache is mounted writable at
    /// [`BUILD_CACHE_MOUNT`] and [`BUILD_CACHE_VARIABLES`] point into it.
    pub build_cache_root: Option<PathBuf>,
}

impl SandboxPolicy {
    /// A policy with defaults for `project`: copy-on-write, default limits,
    /// no build cache, nothing extra.
    pub fn new(project: impl Into<PathBuf>) -> Self {
        SandboxPolicy {
            project: project.into(),
            view: ProjectView::default(),
            limits: Limits::default(),
            extra_read_only: Vec::new(),
            extra_env: Vec::new(),
            set_env: Vec::new(),
            build_cache_root: None,
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
    /// The policy itself is refused (bad project folder, sensitive extra
    /// folder, a build cache inside the project...).
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
    /// The init could not be started or talked to, or its report is not
    /// trusted.
    #[error("SBX-5: the sandbox init failed, so no result is given: {0}")]
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

pub(super) fn refuse(rule: &'static str, reason: String) -> SandboxError {
    SandboxError::PolicyRefused { rule, reason }
}

/// Toolchains installed in the home folder that proofs commonly need
/// (rustup and cargo: `~/.rustup`, `~/.cargo`, or `RUSTUP_HOME`/`CARGO_HOME`),
/// bound read-only with their variables set, so `cargo test` works while the
/// rest of the home folder stays hidden. Of the cargo home only
/// [`CARGO_HOME_PARTS`] are bound: never `config.toml` or the credentials
/// files (SBX-3).
pub fn add_home_toolchains(policy: &mut SandboxPolicy) {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    for (variable, default) in [("RUSTUP_HOME", ".rustup"), ("CARGO_HOME", ".cargo")] {
        let dir = std::env::var_os(variable)
            .map(PathBuf::from)
            .or_else(|| home.as_ref().map(|h| h.join(default)));
        let Some(dir) = dir.and_then(|d| d.canonicalize().ok()) else {
            continue;
        };
        let Some(text) = dir.to_str().filter(|_| dir.is_dir()) else {
            continue;
        };
        policy
            .set_env
            .push((variable.to_string(), text.to_string()));
        if variable == "CARGO_HOME" {
            for part in CARGO_HOME_PARTS {
                let sub = dir.join(part);
                if sub.is_dir() {
                    policy.extra_read_only.push(sub);
                }
            }
        } else {
            policy.extra_read_only.push(dir);
        }
    }
}

/// Resolves the project folder and refuses folders that would expose the home
/// folder or a sensitive folder (BEYOND-3, SBX-3), or that the overlay cannot name.
pub(super) fn check_project(project: &Path, home: Option<&Path>) -> Result<PathBuf, SandboxError> {
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

/// Absolute sensitive paths: under the home folder, the cargo home's
/// credentials and configuration (wherever `CARGO_HOME` points), and ploy's
/// own folders.
/// The user's home folder as the user database names it (`getpwuid`), which
/// `HOME` may not be (a wrapper, CI or `sudo -E` can change `HOME`): a
/// project check against `HOME` alone would let the real home through.
pub(super) fn passwd_home() -> Option<PathBuf> {
    use std::os::unix::ffi::OsStrExt;
    let mut buffer = vec![0u8; 16 * 1024];
    // SAFETY: a zeroed passwd is a valid out-parameter for getpwuid_r.
    let mut entry: libc::passwd = unsafe { std::mem::zeroed() };
    let mut found: *mut libc::passwd = std::ptr::null_mut();
    // SAFETY: every pointer is valid for the call and the buffer's length
    // is its real size; getuid has no preconditions.
    let rc = unsafe {
        libc::getpwuid_r(
            libc::getuid(),
            &mut entry,
            buffer.as_mut_ptr().cast(),
            buffer.len(),
            &mut found,
        )
    };
    if rc != 0 || found.is_null() || entry.pw_dir.is_null() {
        return None;
    }
    // SAFETY: getpwuid_r succeeded: pw_dir points to a NUL-terminated string
    // inside `buffer`, which is still alive.
    let dir = unsafe { std::ffi::CStr::from_ptr(entry.pw_dir) };
    let dir = PathBuf::from(std::ffi::OsStr::from_bytes(dir.to_bytes()));
    (dir.is_absolute() && dir != Path::new("/")).then_some(dir)
}

pub(super) fn sensitive_paths(home: Option<&Path>) -> Vec<PathBuf> {
    let mut paths = Vec::new();
    if let Some(home) = home {
        let home = home.canonicalize().unwrap_or_else(|_| home.to_path_buf());
        paths.extend(SENSITIVE_HOME_ENTRIES.iter().map(|entry| home.join(entry)));
    }
    if let Some(cargo) = std::env::var_os("CARGO_HOME").filter(|v| !v.is_empty()) {
        let cargo = PathBuf::from(cargo);
        let cargo = cargo.canonicalize().unwrap_or(cargo);
        for name in ["credentials", "credentials.toml", "config", "config.toml"] {
            paths.push(cargo.join(name));
        }
    }
    for name in ["PLOY_CONFIG_DIR", "PLOY_STATE_DIR"] {
        if let Some(dir) = std::env::var_os(name).filter(|v| !v.is_empty()) {
            let dir = PathBuf::from(dir);
            paths.push(dir.canonicalize().unwrap_or(dir));
        }
    }
    paths
}

/// Checks the extra read-only folders: each must resolve, must not be or lie
/// inside a sensitive folder, and must not hold the whole home folder.
/// Returns them resolved.
pub(super) fn check_extra_read_only(
    extra: &[PathBuf],
    home: Option<&Path>,
    sensitive: &[PathBuf],
) -> Result<Vec<PathBuf>, SandboxError> {
    let home = home.and_then(|h| h.canonicalize().ok());
    let mut out = Vec::with_capacity(extra.len());
    for folder in extra {
        let canonical = folder.canonicalize().map_err(|err| {
            refuse(
                "SBX-3",
                format!(
                    "the extra read-only folder {} cannot be resolved ({err}); fix or remove it",
                    folder.display()
                ),
            )
        })?;
        if sensitive.iter().any(|s| canonical.starts_with(s))
            || home.as_ref().is_some_and(|h| h.starts_with(&canonical))
        {
            return Err(refuse(
                "SBX-3",
                format!(
                    "the extra read-only folder {} is or lies inside a sensitive folder, or \
                     holds the whole home folder; name a narrower folder",
                    canonical.display()
                ),
            ));
        }
        out.push(canonical);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn extra_folders_holding_the_home_or_inside_a_sensitive_one_are_refused() {
        let base = std::env::temp_dir()
            .canonicalize()
            .unwrap()
            .join(format!("ploy-sbx-extra-{}", std::process::id()));
        let home = base.join("home");
        std::fs::create_dir_all(home.join(".ssh/sub")).unwrap();
        std::fs::create_dir_all(home.join(".cargo/bin")).unwrap();
        let sensitive = sensitive_paths(Some(&home));
        for bad in [base.clone(), home.clone(), home.join(".ssh/sub")] {
            let err = check_extra_read_only(std::slice::from_ref(&bad), Some(&home), &sensitive)
                .unwrap_err();
            assert_eq!(err.rule(), "SBX-3", "{}: {err}", bad.display());
        }
        let ok = check_extra_read_only(&[home.join(".cargo/bin")], Some(&home), &sensitive);
        assert_eq!(ok.unwrap(), vec![home.join(".cargo/bin")]);
        std::fs::remove_dir_all(&base).unwrap();
    }

    #[test]
    fn layer_names_round_trip() {
        for layer in Layer::PROBED.into_iter().chain([Layer::Exec]) {
            assert_eq!(Layer::from_name(layer.name()), Some(layer));
        }
        assert_eq!(Layer::from_name("network"), None);
    }
}
