//! The sandbox's init: runs in the re-executed launcher, single-threaded.
//!
//! The parent creates the launcher with one `clone` directly inside new
//! user, mount, PID, network, IPC and UTS namespaces, so the launcher is PID 1
//! of the sandbox (no intermediate process: one fork and one process fewer).
//! Stage A checks it is that PID 1 (the IDs were mapped before exec); stage B
//! builds the root view, applies the limits, Landlock, capability drop and
//! seccomp, then forks and executes the program and reports how it ended.
//! Every step that fails reports `ERR <layer>` on the status fd and stops:
//! nothing runs (SBX-5).

use std::{
    ffi::CString,
    fs,
    os::unix::fs::{PermissionsExt, symlink},
    path::{Path, PathBuf},
    process::ExitCode,
};

use landlock::{
    ABI, Access, AccessFs, AccessNet, CompatLevel, Compatible, PathBeneath, PathFd, Ruleset,
    RulesetAttr, RulesetCreatedAttr, RulesetStatus, Scope,
};
use nix::{
    mount::{MntFlags, MsFlags, mount, umount2},
    sys::resource::{Resource, getrlimit, setrlimit},
    unistd::{chdir, pivot_root, sethostname},
};

use ploy_validate::{Pipeline, PlanCommand, ProofPlan, StreamTarget};

use super::{
    InitRequest, Layer, ProjectView, Work,
    runner::{self, PlanEnd, RunError, Runner},
    seccomp,
};

/// The status pipe's descriptor number in the launcher.
pub(super) const STATUS_FD: libc::c_int = 3;

/// The request's descriptor number in the launcher (read, then closed).
pub(super) const REQUEST_FD: libc::c_int = 4;

/// The largest request the init reads (a plan is bounded far below this).
const MAX_REQUEST_BYTES: u64 = 16 << 20;

/// The lowest Landlock ABI ploy accepts: filesystem rights plus TCP rules.
const MIN_LANDLOCK_ABI: i64 = 4;

type StepResult<T = ()> = Result<T, (Layer, String)>;

fn write_status(line: &str) {
    let mut bytes = line.as_bytes().to_vec();
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

fn report_failure(layer: Layer, detail: &str) {
    let detail = detail.replace(['\n', '\t'], " ");
    write_status(&format!("ERR\t{}\t{detail}", layer.name()));
}

fn report_ok(layer: Layer, detail: &str) {
    write_status(&format!("OK\t{}\t{detail}", layer.name()));
}

/// The kernel's Landlock ABI version (0 when unsupported).
pub(super) fn kernel_landlock_abi() -> i64 {
    // SAFETY: landlock_create_ruleset(NULL, 0, VERSION) only returns a number.
    let abi = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<libc::c_void>(),
            0usize,
            1u32,
        )
    };
    abi.max(0)
}

/// The launcher's entry: read the request, then set up and run the sandbox
/// as its PID 1.
pub(super) fn main() -> ExitCode {
    // First of all: no process in the sandbox, even one of the same user, may
    // open this process's descriptors through /proc/1/fd, read its memory or
    // trace it. The status channel is one of those descriptors, so only the
    // init can ever write the verdict (the kernel resets this at each exec,
    // so the programs themselves stay ordinary).
    // SAFETY: prctl with integer arguments.
    unsafe { libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0) };
    // The status fd must not leak into the program.
    // SAFETY: fcntl on our own fd number.
    unsafe {
        let flags = libc::fcntl(STATUS_FD, libc::F_GETFD);
        if flags >= 0 {
            libc::fcntl(STATUS_FD, libc::F_SETFD, flags | libc::FD_CLOEXEC);
        }
    }
    let request = read_request();
    // Nothing but 0, 1, 2 and the status channel stays open in the init.
    // SAFETY: close_range with integer arguments.
    unsafe { libc::close_range((STATUS_FD + 1) as libc::c_uint, libc::c_uint::MAX, 0) };
    let request: InitRequest = match request {
        Ok(request) => request,
        Err(err) => {
            report_failure(Layer::Filesystem, &err);
            return ExitCode::from(125);
        }
    };
    match stage_a(&request) {
        Ok(code) => ExitCode::from(code.clamp(0, 255) as u8),
        Err((layer, detail)) => {
            report_failure(layer, &detail);
            ExitCode::from(125)
        }
    }
}

/// Reads the request from its private descriptor (a sealed memfd).
fn read_request() -> Result<InitRequest, String> {
    use std::io::Read;
    use std::os::fd::FromRawFd;
    // SAFETY: fcntl on a descriptor number only checks that it is open.
    if unsafe { libc::fcntl(REQUEST_FD, libc::F_GETFD) } < 0 {
        return Err("missing launcher request".to_string());
    }
    // SAFETY: REQUEST_FD is open (checked above) and nothing else owns it;
    // the File closes it when dropped.
    let mut file = unsafe { fs::File::from_raw_fd(REQUEST_FD) };
    let mut text = Vec::new();
    file.by_ref()
        .take(MAX_REQUEST_BYTES)
        .read_to_end(&mut text)
        .map_err(|err| format!("cannot read the launcher request: {err}"))?;
    serde_json::from_slice(&text).map_err(|err| format!("bad launcher request: {err}"))
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

/// The launcher was created by the parent's `clone` directly inside new user,
/// mount, PID, network, IPC and UTS namespaces, as PID 1: map the caller's
/// IDs to themselves, then build the sandbox.
fn stage_a(request: &InitRequest) -> StepResult<i32> {
    simulated(request, Layer::UserNamespaces)?;
    // Fail closed when started any other way (e.g. by hand, outside fresh
    // namespaces): only PID 1 of a new PID namespace may go on.
    if nix::unistd::getpid().as_raw() != 1 {
        return Err((
            Layer::UserNamespaces,
            "the sandbox init is not PID 1 of a fresh PID namespace; start it through ploy"
                .to_string(),
        ));
    }
    // The parent's clone child wrote the ID maps before exec.
    let uid = request.uid;
    report_ok(
        Layer::UserNamespaces,
        &format!("user, mount, pid, net, ipc and uts namespaces (uid {uid} mapped to itself)"),
    );
    stage_b(request)
}

/// Stage B: PID 1 of the sandbox.
fn stage_b(request: &InitRequest) -> StepResult<i32> {
    // Set again after exec (the clone child set it before): the sandbox dies
    // with the thread that started it.
    // SAFETY: prctl with plain integer arguments.
    unsafe {
        libc::prctl(
            libc::PR_SET_PDEATHSIG,
            libc::SIGKILL as libc::c_ulong,
            0,
            0,
            0,
        )
    };
    simulated(request, Layer::Filesystem)?;
    build_root(request)?;
    report_ok(
        Layer::Filesystem,
        "private root: system folders read-only, project, private /tmp, fresh /proc, minimal /dev, no home",
    );
    let _ = sethostname("ploy-sandbox");

    simulated(request, Layer::Limits)?;
    set_limits(request).map_err(|err| (Layer::Limits, err))?;
    report_ok(
        Layer::Limits,
        "processes, memory, CPU, file size, open files",
    );

    simulated(request, Layer::Landlock)?;
    let landlock = apply_landlock(&request.project).map_err(|err| (Layer::Landlock, err))?;
    report_ok(Layer::Landlock, &landlock);

    simulated(request, Layer::Seccomp)?;
    drop_capabilities().map_err(|err| (Layer::Seccomp, err))?;
    let filters = seccomp::install().map_err(|err| (Layer::Seccomp, err))?;
    report_ok(
        Layer::Seccomp,
        &format!("no_new_privs, no capabilities, {filters} filters"),
    );

    run_work(request)
}

/// Runs what the request asks for and reports how it ended.
fn run_work(request: &InitRequest) -> StepResult<i32> {
    let single;
    let (plan, exec_errors_fatal) = match &request.work {
        Work::Probe => {
            write_status("READY");
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
    let mut watch = runner::NoWatch;
    let mut runner = Runner::new(exec_errors_fatal, &mut watch).map_err(run_error)?;
    match runner.run_plan(plan).map_err(run_error)? {
        PlanEnd::Code(code) => {
            write_status(&format!("EXIT\tcode\t{code}"));
            Ok(code)
        }
        PlanEnd::Signal(signal) => {
            write_status(&format!("EXIT\tsignal\t{signal}"));
            Ok(128 + signal)
        }
    }
}

fn run_error(err: RunError) -> (Layer, String) {
    match err {
        RunError::Exec(detail) | RunError::Init(detail) => (Layer::Exec, detail),
    }
}

/// `/oldroot` + `path` (the host's view during setup).
fn host(path: &Path) -> PathBuf {
    Path::new("/oldroot").join(path.strip_prefix("/").unwrap_or(path))
}

/// `/newroot` + `path` (the sandbox's future root).
fn inside(path: &Path) -> PathBuf {
    Path::new("/newroot").join(path.strip_prefix("/").unwrap_or(path))
}

fn fs_err(what: impl std::fmt::Display, err: impl std::fmt::Display) -> (Layer, String) {
    (Layer::Filesystem, format!("{what}: {err}"))
}

fn do_mount(
    source: Option<&Path>,
    target: &Path,
    fstype: Option<&str>,
    flags: MsFlags,
    data: Option<&str>,
) -> StepResult {
    mount(source, target, fstype, flags, data).map_err(|err| {
        fs_err(
            format!(
                "mount {} on {} ({})",
                source.map(|s| s.display().to_string()).unwrap_or_default(),
                target.display(),
                fstype.unwrap_or("bind")
            ),
            err,
        )
    })
}

/// mount_setattr(2): add flags (read-only, nosuid...) to a mount, optionally
/// to every mount beneath it. Adding restrictions is always allowed, unlike a
/// remount, which must repeat the locked flags.
fn restrict_mount(target: &Path, attrs: u64, recursive: bool) -> StepResult {
    #[repr(C)]
    struct MountAttr {
        attr_set: u64,
        attr_clr: u64,
        propagation: u64,
        userns_fd: u64,
    }
    let attr = MountAttr {
        attr_set: attrs,
        attr_clr: 0,
        propagation: 0,
        userns_fd: 0,
    };
    let path = CString::new(target.as_os_str().as_encoded_bytes())
        .map_err(|_| fs_err("path with NUL", target.display()))?;
    let flags: libc::c_uint = if recursive {
        libc::AT_RECURSIVE as libc::c_uint
    } else {
        0
    };
    // SAFETY: valid C string, a live struct and its exact size.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_mount_setattr,
            libc::AT_FDCWD,
            path.as_ptr(),
            flags,
            &attr as *const MountAttr,
            std::mem::size_of::<MountAttr>(),
        )
    };
    if rc != 0 {
        return Err(fs_err(
            format!("mount_setattr on {}", target.display()),
            std::io::Error::last_os_error(),
        ));
    }
    Ok(())
}

const ATTR_RDONLY: u64 = 0x1;
const ATTR_NOSUID: u64 = 0x2;
const ATTR_NODEV: u64 = 0x4;

fn mkdir_all(path: &Path) -> StepResult {
    if path.is_dir() {
        return Ok(());
    }
    fs::create_dir_all(path).map_err(|err| fs_err(format!("mkdir {}", path.display()), err))
}

fn touch(path: &Path) -> StepResult {
    if let Some(parent) = path.parent() {
        mkdir_all(parent)?;
    }
    if path.symlink_metadata().is_ok() {
        return Ok(());
    }
    fs::File::create(path)
        .map(drop)
        .map_err(|err| fs_err(format!("create {}", path.display()), err))
}

/// Binds `source` (host view) read-only at the same path in the new root;
/// symlinks are recreated, missing paths skipped.
fn bind_read_only(path: &Path) -> StepResult {
    let source = host(path);
    let target = inside(path);
    let Ok(meta) = source.symlink_metadata() else {
        return Ok(());
    };
    if meta.file_type().is_symlink() {
        let link = fs::read_link(&source).map_err(|err| fs_err("readlink", err))?;
        if let Some(parent) = target.parent() {
            mkdir_all(parent)?;
        }
        if target.symlink_metadata().is_err() {
            symlink(&link, &target)
                .map_err(|err| fs_err(format!("symlink {}", target.display()), err))?;
        }
        return Ok(());
    }
    if meta.is_dir() {
        mkdir_all(&target)?;
    } else {
        touch(&target)?;
    }
    do_mount(
        Some(&source),
        &target,
        None,
        MsFlags::MS_BIND | MsFlags::MS_REC,
        None,
    )?;
    restrict_mount(&target, ATTR_RDONLY | ATTR_NOSUID | ATTR_NODEV, true)
}

fn tmpfs(target: &Path, options: &str, flags: MsFlags) -> StepResult {
    mkdir_all(target)?;
    do_mount(
        Some(Path::new("tmpfs")),
        target,
        Some("tmpfs"),
        flags,
        Some(options),
    )
}

/// Builds the new root and pivots into it (BEYOND-3, SBX-2, SBX-3, BEYOND-4).
fn build_root(request: &InitRequest) -> StepResult {
    do_mount(
        None,
        Path::new("/"),
        None,
        MsFlags::MS_REC | MsFlags::MS_PRIVATE,
        None,
    )?;
    // Scaffold: a tmpfs that becomes the root during setup, holding the new
    // root, the old root and the overlay's upper layer. Mounting it on /tmp
    // and pivoting keeps the host's /tmp reachable at /oldroot/tmp.
    let scaffold_size = format!(
        "size={},mode=0755",
        request.limits.overlay_bytes.max(1 << 20)
    );
    tmpfs(
        Path::new("/tmp"),
        &scaffold_size,
        MsFlags::MS_NOSUID | MsFlags::MS_NODEV,
    )?;
    mkdir_all(Path::new("/tmp/oldroot"))?;
    mkdir_all(Path::new("/tmp/newroot"))?;
    pivot_root("/tmp", "/tmp/oldroot").map_err(|err| fs_err("pivot_root to the scaffold", err))?;
    chdir("/").map_err(|err| fs_err("chdir /", err))?;

    tmpfs(
        Path::new("/newroot"),
        "size=16m,mode=0755",
        MsFlags::MS_NOSUID | MsFlags::MS_NODEV,
    )?;
    // Private /tmp with the sandbox's HOME inside.
    tmpfs(
        &inside(Path::new("/tmp")),
        &format!("size={},mode=1777", request.limits.tmp_bytes.max(1 << 20)),
        MsFlags::MS_NOSUID | MsFlags::MS_NODEV,
    )?;
    let home = inside(Path::new(super::SANDBOX_HOME));
    mkdir_all(&home)?;
    let _ = fs::set_permissions(&home, fs::Permissions::from_mode(0o700));
    // After /tmp, so a read-only folder under /tmp is not covered by it.
    for path in &request.read_only {
        bind_read_only(path)?;
    }
    build_dev()?;
    mount_project(request)?;
    for mask in &request.masks {
        mask_path(mask)?;
    }
    let proc_dir = inside(Path::new("/proc"));
    mkdir_all(&proc_dir)?;
    do_mount(
        Some(Path::new("proc")),
        &proc_dir,
        Some("proc"),
        MsFlags::MS_NOSUID | MsFlags::MS_NODEV | MsFlags::MS_NOEXEC,
        None,
    )?;
    // Kernel knobs stay read-only even for a program mapped to uid 0 (as
    // container runtimes do); Landlock refuses these writes a second time.
    for knob in ["sys", "sysrq-trigger", "irq", "bus"] {
        let path = proc_dir.join(knob);
        if path.symlink_metadata().is_ok() {
            do_mount(
                Some(&path),
                &path,
                None,
                MsFlags::MS_BIND | MsFlags::MS_REC,
                None,
            )?;
            restrict_mount(&path, ATTR_RDONLY | ATTR_NOSUID | ATTR_NODEV, true)?;
        }
    }
    // Into the new root; the scaffold (and the host root under it) is
    // detached, so no path leads back to the host.
    chdir("/newroot").map_err(|err| fs_err("chdir /newroot", err))?;
    pivot_root(".", ".").map_err(|err| fs_err("pivot_root to the new root", err))?;
    umount2(".", MntFlags::MNT_DETACH).map_err(|err| fs_err("detach the old root", err))?;
    chdir("/").map_err(|err| fs_err("chdir /", err))?;
    restrict_mount(
        Path::new("/"),
        ATTR_RDONLY | ATTR_NOSUID | ATTR_NODEV,
        false,
    )?;
    restrict_mount(Path::new("/dev"), ATTR_RDONLY | ATTR_NOSUID, false)?;
    chdir(&request.project)
        .map_err(|err| fs_err(format!("chdir {}", request.project.display()), err))?;
    Ok(())
}

/// A minimal /dev: null, zero, full, random, urandom, fd links, shm.
fn build_dev() -> StepResult {
    let dev = inside(Path::new("/dev"));
    tmpfs(
        &dev,
        "size=64k,mode=0755",
        MsFlags::MS_NOSUID | MsFlags::MS_NOEXEC,
    )?;
    for name in ["null", "zero", "full", "random", "urandom"] {
        let target = dev.join(name);
        touch(&target)?;
        do_mount(
            Some(&Path::new("/oldroot/dev").join(name)),
            &target,
            None,
            MsFlags::MS_BIND,
            None,
        )?;
    }
    for (name, link) in [
        ("fd", "/proc/self/fd"),
        ("stdin", "/proc/self/fd/0"),
        ("stdout", "/proc/self/fd/1"),
        ("stderr", "/proc/self/fd/2"),
    ] {
        symlink(link, dev.join(name)).map_err(|err| fs_err(format!("symlink /dev/{name}"), err))?;
    }
    tmpfs(
        &dev.join("shm"),
        "size=64m,mode=1777",
        MsFlags::MS_NOSUID | MsFlags::MS_NODEV | MsFlags::MS_NOEXEC,
    )
}

/// The project at its own path: overlay (copy-on-write, writable sub-folders
/// bound on top) or a writable bind.
fn mount_project(request: &InitRequest) -> StepResult {
    let source = host(&request.project);
    let target = inside(&request.project);
    mkdir_all(&target)?;
    match &request.view {
        ProjectView::Writable => {
            // The project needs no overlay here, but every layer is checked on
            // every run (SBX-5): mount a throwaway overlay in the scaffold.
            overlay_self_test(request)?;
            do_mount(
                Some(&source),
                &target,
                None,
                MsFlags::MS_BIND | MsFlags::MS_REC,
                None,
            )
        }
        ProjectView::CopyOnWrite { writable } => {
            simulated(request, Layer::Overlay)?;
            let overlay_err = |err: &dyn std::fmt::Display| {
                (
                    Layer::Overlay,
                    format!("overlayfs on {}: {err}", request.project.display()),
                )
            };
            for dir in ["/ovl/upper", "/ovl/work"] {
                fs::create_dir_all(dir).map_err(|err| overlay_err(&err))?;
            }
            let lower = source.display().to_string();
            let options = format!("lowerdir={lower},upperdir=/ovl/upper,workdir=/ovl/work");
            let flags = MsFlags::MS_NOSUID | MsFlags::MS_NODEV;
            let mounted = mount(
                Some("overlay"),
                &target,
                Some("overlay"),
                flags,
                Some(format!("{options},userxattr").as_str()),
            )
            .or_else(|_| {
                mount(
                    Some("overlay"),
                    &target,
                    Some("overlay"),
                    flags,
                    Some(options.as_str()),
                )
            });
            mounted.map_err(|err| overlay_err(&err))?;
            report_ok(
                Layer::Overlay,
                "copy-on-write project layer (writes vanish when the run ends)",
            );
            for sub in writable {
                let sub_source = source.join(sub);
                let Ok(meta) = sub_source.symlink_metadata() else {
                    continue;
                };
                // The parent checked this; check again here, where it counts.
                let resolved = sub_source
                    .canonicalize()
                    .map_err(|err| fs_err(format!("resolve {}", sub_source.display()), err))?;
                if !meta.is_dir() || resolved != sub_source {
                    return Err((
                        Layer::Filesystem,
                        format!(
                            "the writable folder {} is not a plain folder inside the project",
                            sub.display()
                        ),
                    ));
                }
                do_mount(
                    Some(&sub_source),
                    &target.join(sub),
                    None,
                    MsFlags::MS_BIND | MsFlags::MS_REC,
                    None,
                )?;
            }
            Ok(())
        }
    }
}

/// Mounts and unmounts an overlay made of scaffold folders, to prove the
/// layer works when the project itself is bound writable.
fn overlay_self_test(request: &InitRequest) -> StepResult {
    simulated(request, Layer::Overlay)?;
    let overlay_err =
        |err: &dyn std::fmt::Display| (Layer::Overlay, format!("overlayfs self-test: {err}"));
    for dir in ["/ovl/lower", "/ovl/upper", "/ovl/work", "/ovl/merged"] {
        fs::create_dir_all(dir).map_err(|err| overlay_err(&err))?;
    }
    let options = "lowerdir=/ovl/lower,upperdir=/ovl/upper,workdir=/ovl/work";
    let flags = MsFlags::MS_NOSUID | MsFlags::MS_NODEV;
    mount(
        Some("overlay"),
        "/ovl/merged",
        Some("overlay"),
        flags,
        Some(format!("{options},userxattr").as_str()),
    )
    .or_else(|_| {
        mount(
            Some("overlay"),
            "/ovl/merged",
            Some("overlay"),
            flags,
            Some(options),
        )
    })
    .map_err(|err| overlay_err(&err))?;
    umount2("/ovl/merged", MntFlags::MNT_DETACH).map_err(|err| overlay_err(&err))?;
    report_ok(Layer::Overlay, "overlayfs mounts inside the user namespace");
    Ok(())
}

/// Hides a sensitive path inside the project: an empty read-only tmpfs over a
/// folder, an empty read-only file over a file (SBX-3).
fn mask_path(path: &Path) -> StepResult {
    let target = inside(path);
    let Ok(meta) = target.symlink_metadata() else {
        return Ok(());
    };
    if meta.file_type().is_symlink() {
        // Resolved inside the sandbox's own view, where home folders are absent.
        return Ok(());
    }
    if meta.is_dir() {
        do_mount(
            Some(Path::new("tmpfs")),
            &target,
            Some("tmpfs"),
            MsFlags::MS_RDONLY | MsFlags::MS_NOSUID | MsFlags::MS_NODEV | MsFlags::MS_NOEXEC,
            Some("size=4k,mode=0500"),
        )
    } else {
        let empty = Path::new("/ovl/empty");
        touch(empty)?;
        let _ = fs::set_permissions(empty, fs::Permissions::from_mode(0o400));
        do_mount(Some(empty), &target, None, MsFlags::MS_BIND, None)?;
        restrict_mount(&target, ATTR_RDONLY | ATTR_NOSUID | ATTR_NODEV, false)
    }
}

/// Resource limits; never raises a hard limit the session already lowered.
fn set_limits(request: &InitRequest) -> Result<(), String> {
    let limits = &request.limits;
    for (resource, name, value) in [
        (Resource::RLIMIT_NPROC, "processes", limits.processes),
        (Resource::RLIMIT_CPU, "cpu seconds", limits.cpu_seconds),
        (Resource::RLIMIT_DATA, "memory", limits.memory_bytes),
        (Resource::RLIMIT_FSIZE, "file size", limits.file_size_bytes),
        (Resource::RLIMIT_NOFILE, "open files", limits.open_files),
        (Resource::RLIMIT_CORE, "core size", 0),
    ] {
        let (_, hard) = getrlimit(resource).map_err(|err| format!("getrlimit {name}: {err}"))?;
        let value = value.min(hard);
        setrlimit(resource, value, value).map_err(|err| format!("setrlimit {name}: {err}"))?;
    }
    Ok(())
}

/// Landlock: read and execute everywhere visible, write only in the project,
/// /tmp and /dev/shm (plus writing to the /dev nodes), no TCP bind or
/// connect; fails unless fully enforced (SBX-2, SBX-1).
fn apply_landlock(project: &Path) -> Result<String, String> {
    let kernel = kernel_landlock_abi();
    if kernel < MIN_LANDLOCK_ABI {
        return Err(format!(
            "the kernel's Landlock ABI is {kernel}; ploy needs {MIN_LANDLOCK_ABI} or newer"
        ));
    }
    let abi = match kernel {
        4 => ABI::V4,
        5 => ABI::V5,
        _ => ABI::V6,
    };
    let err = |what: &str, e: &dyn std::fmt::Display| format!("landlock {what}: {e}");
    let read = AccessFs::from_read(abi);
    let all = AccessFs::from_all(abi);
    let mut dev = read | AccessFs::WriteFile;
    if abi >= ABI::V5 {
        dev |= AccessFs::IoctlDev;
    }
    let mut ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::HardRequirement)
        .handle_access(all)
        .map_err(|e| err("handle fs", &e))?
        .handle_access(AccessNet::from_all(abi))
        .map_err(|e| err("handle net", &e))?;
    if abi >= ABI::V6 {
        ruleset = ruleset
            .scope(Scope::AbstractUnixSocket | Scope::Signal)
            .map_err(|e| err("scope", &e))?;
    }
    let path_fd = |path: &str| PathFd::new(path).map_err(|e| err(path, &e));
    let project_fd = PathFd::new(project).map_err(|e| err("project", &e))?;
    let status = ruleset
        .create()
        .map_err(|e| err("create", &e))?
        .add_rule(PathBeneath::new(path_fd("/")?, read))
        .map_err(|e| err("rule /", &e))?
        .add_rule(PathBeneath::new(project_fd, all))
        .map_err(|e| err("rule project", &e))?
        .add_rule(PathBeneath::new(path_fd("/tmp")?, all))
        .map_err(|e| err("rule /tmp", &e))?
        .add_rule(PathBeneath::new(path_fd("/dev")?, dev))
        .map_err(|e| err("rule /dev", &e))?
        .add_rule(PathBeneath::new(path_fd("/dev/shm")?, all))
        .map_err(|e| err("rule /dev/shm", &e))?
        .no_new_privs(true)
        .restrict_self()
        .map_err(|e| err("restrict_self", &e))?;
    if status.ruleset != RulesetStatus::FullyEnforced {
        return Err(format!(
            "the ruleset is not fully enforced ({:?})",
            status.ruleset
        ));
    }
    Ok(format!(
        "ABI {kernel} (using {abi:?}), fully enforced, TCP bind/connect denied"
    ))
}

/// Drops every capability: bounding set, ambient set, then the process's own
/// sets, so even a program mapped to uid 0 has none after exec.
fn drop_capabilities() -> Result<(), String> {
    for cap in 0..64 {
        // SAFETY: prctl with integers; EINVAL for caps this kernel lacks is fine.
        unsafe { libc::prctl(libc::PR_CAPBSET_DROP, cap as libc::c_ulong, 0, 0, 0) };
    }
    // SAFETY: prctl with integers.
    unsafe {
        libc::prctl(
            libc::PR_CAP_AMBIENT,
            libc::PR_CAP_AMBIENT_CLEAR_ALL as libc::c_ulong,
            0,
            0,
            0,
        )
    };
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
    let header = CapHeader {
        version: 0x2008_0522,
        pid: 0,
    };
    let data = [CapData {
        effective: 0,
        permitted: 0,
        inheritable: 0,
    }; 2];
    // SAFETY: capset with a v3 header and two data structs, as the ABI asks.
    let rc = unsafe { libc::syscall(libc::SYS_capset, &header as *const CapHeader, data.as_ptr()) };
    if rc != 0 {
        return Err(format!("capset: {}", std::io::Error::last_os_error()));
    }
    // SAFETY: prctl with integers.
    if unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) } != 0 {
        return Err(format!("no_new_privs: {}", std::io::Error::last_os_error()));
    }
    Ok(())
}
