//! The init confines itself (and so everything it starts): resource limits,
//! Landlock, no capabilities, no_new_privs, then seccomp (SBX-1, SBX-2).

use std::path::Path;

use landlock::{
    ABI, Access, AccessFs, AccessNet, CompatLevel, Compatible, PathBeneath, PathFd, Ruleset,
    RulesetAttr, RulesetCreatedAttr, RulesetStatus, Scope,
};
use rustix::{
    process::{Resource, Rlimit},
    thread::{CapabilitySet, CapabilitySets},
};

use crate::sandbox::{
    policy::{BUILD_CACHE_MOUNT, Limits},
    seccomp,
};

/// The lowest Landlock ABI ploy accepts: filesystem rights plus TCP rules.
const MIN_LANDLOCK_ABI: i64 = 4;

/// The kernel's Landlock ABI version (0 when unsupported).
pub(crate) fn kernel_landlock_abi() -> i64 {
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

/// Resource limits; never raises a hard limit the session already lowered.
/// Memory per process is RLIMIT_DATA (heap and private mappings), never
/// RLIMIT_AS, which breaks runtimes that reserve address space (V8, Go);
/// the total is the memory guard's job.
pub(super) fn set_limits(limits: &Limits) -> Result<(), String> {
    for (resource, name, value) in [
        (Resource::Nproc, "processes", limits.processes),
        (Resource::Cpu, "cpu seconds", limits.cpu_seconds),
        (Resource::Data, "memory", limits.memory_bytes),
        (Resource::Fsize, "file size", limits.file_size_bytes),
        (Resource::Nofile, "open files", limits.open_files),
        (Resource::Core, "core size", 0),
    ] {
        let hard = rustix::process::getrlimit(resource).maximum;
        let value = hard.map_or(value, |hard| value.min(hard));
        rustix::process::setrlimit(
            resource,
            Rlimit {
                current: Some(value),
                maximum: Some(value),
            },
        )
        .map_err(|err| format!("setrlimit {name}: {err}"))?;
    }
    Ok(())
}

/// Landlock: read and execute everywhere visible, write only in the project,
/// /tmp, /dev/shm and the build cache (plus writing to the /dev nodes), no
/// TCP bind or connect, no abstract unix sockets or signals outside the
/// sandbox (ABI 6); fails unless fully enforced (SBX-2, SBX-1).
pub(super) fn apply_landlock(project: &Path, build_cache: bool) -> Result<String, String> {
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
    let path_fd = |path: &Path| PathFd::new(path).map_err(|e| err(&path.display().to_string(), &e));
    let mut created = ruleset
        .create()
        .map_err(|e| err("create", &e))?
        .add_rule(PathBeneath::new(path_fd(Path::new("/"))?, read))
        .map_err(|e| err("rule /", &e))?
        .add_rule(PathBeneath::new(path_fd(project)?, all))
        .map_err(|e| err("rule project", &e))?
        .add_rule(PathBeneath::new(path_fd(Path::new("/tmp"))?, all))
        .map_err(|e| err("rule /tmp", &e))?
        .add_rule(PathBeneath::new(path_fd(Path::new("/dev"))?, dev))
        .map_err(|e| err("rule /dev", &e))?
        .add_rule(PathBeneath::new(path_fd(Path::new("/dev/shm"))?, all))
        .map_err(|e| err("rule /dev/shm", &e))?;
    if build_cache {
        created = created
            .add_rule(PathBeneath::new(
                path_fd(Path::new(BUILD_CACHE_MOUNT))?,
                all,
            ))
            .map_err(|e| err("rule build cache", &e))?;
    }
    let status = created
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
/// sets, so even a program mapped to uid 0 has none after exec; then sets
/// no_new_privs.
pub(super) fn drop_capabilities() -> Result<(), String> {
    for bit in 0..64 {
        // EINVAL: past the last capability this kernel knows.
        if rustix::thread::remove_capability_from_bounding_set(CapabilitySet::from_bits_retain(
            1 << bit,
        )) == Err(rustix::io::Errno::INVAL)
        {
            break;
        }
    }
    rustix::thread::clear_ambient_capability_set()
        .map_err(|err| format!("clear ambient capabilities: {err}"))?;
    rustix::thread::set_capabilities(
        None,
        CapabilitySets {
            effective: CapabilitySet::empty(),
            permitted: CapabilitySet::empty(),
            inheritable: CapabilitySet::empty(),
        },
    )
    .map_err(|err| format!("capset: {err}"))?;
    rustix::thread::set_no_new_privs(true).map_err(|err| format!("no_new_privs: {err}"))?;
    Ok(())
}

/// Installs the seccomp filters; returns how many.
pub(super) fn install_seccomp() -> Result<usize, String> {
    seccomp::install()
}
