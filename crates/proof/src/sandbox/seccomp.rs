//! The seccomp deny list of the sandbox (installed after no_new_privs).
//!
//! Denied calls fail with EPERM; [`ABSENT_SYSCALLS`] with ENOSYS (`clone3`,
//! whose flags live in memory a filter cannot read, so libc falls back to
//! `clone`, whose flags the filter checks; the memfd calls, whose memory
//! could not be counted). On x86-64 the x32 syscall numbers are refused as a
//! whole, or every rule could be bypassed through them.

use std::collections::BTreeMap;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

/// System calls refused outright.
pub(super) const DENIED_SYSCALLS: &[(&str, libc::c_long)] = &[
    ("ptrace", libc::SYS_ptrace),
    ("process_vm_readv", libc::SYS_process_vm_readv),
    ("process_vm_writev", libc::SYS_process_vm_writev),
    ("pidfd_getfd", libc::SYS_pidfd_getfd),
    ("kcmp", libc::SYS_kcmp),
    ("mount", libc::SYS_mount),
    ("umount2", libc::SYS_umount2),
    ("pivot_root", libc::SYS_pivot_root),
    ("chroot", libc::SYS_chroot),
    ("open_tree", libc::SYS_open_tree),
    ("move_mount", libc::SYS_move_mount),
    ("fsopen", libc::SYS_fsopen),
    ("fsconfig", libc::SYS_fsconfig),
    ("fsmount", libc::SYS_fsmount),
    ("fspick", libc::SYS_fspick),
    ("mount_setattr", libc::SYS_mount_setattr),
    ("unshare", libc::SYS_unshare),
    ("setns", libc::SYS_setns),
    ("keyctl", libc::SYS_keyctl),
    ("add_key", libc::SYS_add_key),
    ("request_key", libc::SYS_request_key),
    ("bpf", libc::SYS_bpf),
    ("perf_event_open", libc::SYS_perf_event_open),
    ("userfaultfd", libc::SYS_userfaultfd),
    ("io_uring_setup", libc::SYS_io_uring_setup),
    ("io_uring_enter", libc::SYS_io_uring_enter),
    ("io_uring_register", libc::SYS_io_uring_register),
    ("kexec_load", libc::SYS_kexec_load),
    ("kexec_file_load", libc::SYS_kexec_file_load),
    ("init_module", libc::SYS_init_module),
    ("finit_module", libc::SYS_finit_module),
    ("delete_module", libc::SYS_delete_module),
    ("open_by_handle_at", libc::SYS_open_by_handle_at),
    ("name_to_handle_at", libc::SYS_name_to_handle_at),
    ("acct", libc::SYS_acct),
    ("swapon", libc::SYS_swapon),
    ("swapoff", libc::SYS_swapoff),
    ("reboot", libc::SYS_reboot),
    ("syslog", libc::SYS_syslog),
    ("vhangup", libc::SYS_vhangup),
];

/// System calls that fail with ENOSYS, as on a kernel without them, so
/// programs take their fallback: `clone3` (its flags live in memory a filter
/// cannot read; libc falls back to `clone`, whose flags the filter checks),
/// and the anonymous memory files (`memfd_create`, `memfd_secret`), whose
/// pages nobody can count once the file is unmapped and only a descriptor
/// holds it, in a process or in flight in a socket (found attacking the
/// memory cap: 6 GB held under 4 GiB). Programs fall back to `/dev/shm` or
/// `/tmp`, which the memory guard counts.
pub(super) const ABSENT_SYSCALLS: &[(&str, libc::c_long)] = &[
    ("clone3", libc::SYS_clone3),
    ("memfd_create", libc::SYS_memfd_create),
    ("memfd_secret", libc::SYS_memfd_secret),
];

/// ioctl requests refused: pushing bytes into a terminal's input.
// The request type is c_ulong on some targets and c_int on others.
#[allow(clippy::unnecessary_cast)]
pub(super) const DENIED_IOCTLS: &[u64] = &[libc::TIOCSTI as u64, libc::TIOCLINUX as u64];

/// Namespace flags refused in `clone`.
const CLONE_NAMESPACE_FLAGS: &[u64] = &[
    libc::CLONE_NEWUSER as u64,
    libc::CLONE_NEWNS as u64,
    libc::CLONE_NEWPID as u64,
    libc::CLONE_NEWNET as u64,
    libc::CLONE_NEWIPC as u64,
    libc::CLONE_NEWUTS as u64,
    libc::CLONE_NEWCGROUP as u64,
];

fn arch() -> Result<TargetArch, String> {
    TargetArch::try_from(std::env::consts::ARCH)
        .map_err(|err| format!("seccomp: unsupported architecture: {err}"))
}

fn condition(
    arg: u8,
    len: SeccompCmpArgLen,
    op: SeccompCmpOp,
    value: u64,
) -> Result<SeccompCondition, String> {
    SeccompCondition::new(arg, len, op, value).map_err(|err| format!("seccomp condition: {err}"))
}

fn rule(conditions: Vec<SeccompCondition>) -> Result<SeccompRule, String> {
    SeccompRule::new(conditions).map_err(|err| format!("seccomp rule: {err}"))
}

/// Compiles the filters, in install order.
pub(super) fn filters() -> Result<Vec<BpfProgram>, String> {
    let arch = arch()?;
    let mut deny: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    for (_, nr) in DENIED_SYSCALLS {
        deny.insert(*nr, Vec::new());
    }
    let mut ioctl_rules = Vec::new();
    for request in DENIED_IOCTLS {
        ioctl_rules.push(rule(vec![condition(
            1,
            SeccompCmpArgLen::Dword,
            SeccompCmpOp::Eq,
            *request,
        )?])?);
    }
    deny.insert(libc::SYS_ioctl, ioctl_rules);
    // Only AF_UNIX sockets: no IP, netlink, packet or vsock (SBX-1).
    deny.insert(
        libc::SYS_socket,
        vec![rule(vec![condition(
            0,
            SeccompCmpArgLen::Dword,
            SeccompCmpOp::Ne,
            libc::AF_UNIX as u64,
        )?])?],
    );
    let mut clone_rules = Vec::new();
    for flag in CLONE_NAMESPACE_FLAGS {
        clone_rules.push(rule(vec![condition(
            0,
            SeccompCmpArgLen::Qword,
            SeccompCmpOp::MaskedEq(*flag),
            *flag,
        )?])?);
    }
    deny.insert(libc::SYS_clone, clone_rules);
    let deny_filter = SeccompFilter::new(
        deny,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        arch,
    )
    .map_err(|err| format!("seccomp filter: {err}"))?;
    let mut clone3 = BTreeMap::new();
    for (_, nr) in ABSENT_SYSCALLS {
        clone3.insert(*nr, Vec::new());
    }
    let clone3_filter = SeccompFilter::new(
        clone3,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::ENOSYS as u32),
        arch,
    )
    .map_err(|err| format!("seccomp filter: {err}"))?;
    let mut programs: Vec<BpfProgram> = Vec::new();
    for filter in [deny_filter, clone3_filter] {
        programs.push(
            filter
                .try_into()
                .map_err(|err: seccompiler::BackendError| format!("seccomp compile: {err}"))?,
        );
    }
    if let Some(x32) = x32_filter() {
        programs.push(x32);
    }
    Ok(programs)
}

/// On x86-64: refuse every x32 syscall number (bit 30 set) with ENOSYS.
#[cfg(target_arch = "x86_64")]
fn x32_filter() -> Option<BpfProgram> {
    use seccompiler::sock_filter;
    const BPF_LD_W_ABS: u16 = (libc::BPF_LD | libc::BPF_W | libc::BPF_ABS) as u16;
    const BPF_JGE_K: u16 = (libc::BPF_JMP | libc::BPF_JGE | libc::BPF_K) as u16;
    const BPF_RET_K: u16 = (libc::BPF_RET | libc::BPF_K) as u16;
    const X32_SYSCALL_BIT: u32 = 0x4000_0000;
    Some(vec![
        // seccomp_data.nr is at offset 0.
        sock_filter {
            code: BPF_LD_W_ABS,
            jt: 0,
            jf: 0,
            k: 0,
        },
        sock_filter {
            code: BPF_JGE_K,
            jt: 0,
            jf: 1,
            k: X32_SYSCALL_BIT,
        },
        sock_filter {
            code: BPF_RET_K,
            jt: 0,
            jf: 0,
            k: libc::SECCOMP_RET_ERRNO | libc::ENOSYS as u32,
        },
        sock_filter {
            code: BPF_RET_K,
            jt: 0,
            jf: 0,
            k: libc::SECCOMP_RET_ALLOW,
        },
    ])
}

#[cfg(not(target_arch = "x86_64"))]
fn x32_filter() -> Option<BpfProgram> {
    None
}

/// Installs the filters on the calling thread (no_new_privs must be set).
pub(super) fn install() -> Result<usize, String> {
    let programs = filters()?;
    for program in &programs {
        seccompiler::apply_filter(program).map_err(|err| format!("seccomp install: {err}"))?;
    }
    Ok(programs.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    // proves: SBX-1
    #[test]
    fn filters_compile_and_cover_the_issue_deny_list() {
        let programs = filters().unwrap();
        assert!(programs.len() >= 2);
        let names: Vec<&str> = DENIED_SYSCALLS.iter().map(|(n, _)| *n).collect();
        for required in [
            "ptrace",
            "process_vm_readv",
            "process_vm_writev",
            "mount",
            "umount2",
            "pivot_root",
            "unshare",
            "setns",
            "keyctl",
            "add_key",
            "bpf",
            "perf_event_open",
            "userfaultfd",
            "io_uring_setup",
            "io_uring_enter",
            "io_uring_register",
            "kexec_load",
            "init_module",
        ] {
            assert!(names.contains(&required), "{required} missing");
        }
        assert!(DENIED_IOCTLS.contains(&0x5412)); // TIOCSTI
        assert!(DENIED_IOCTLS.contains(&0x541C)); // TIOCLINUX
    }
}
