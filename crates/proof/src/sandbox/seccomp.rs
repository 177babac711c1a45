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

/// Compiles the filters: the absent calls, the deny list, then the x32 door
/// (last: it does not check the architecture, which the others do first,
/// killing the process on any other).
fn filters() -> Result<Vec<BpfProgram>, String> {
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
    let mut absent = BTreeMap::new();
    for (_, nr) in ABSENT_SYSCALLS {
        absent.insert(*nr, Vec::new());
    }
    let absent_filter = SeccompFilter::new(
        absent,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::ENOSYS as u32),
        arch,
    )
    .map_err(|err| format!("seccomp filter: {err}"))?;
    let mut programs: Vec<BpfProgram> = Vec::new();
    for filter in [absent_filter, deny_filter] {
        programs.push(
            filter
                .try_into()
                .map_err(|err: seccompiler::BackendError| format!("seccomp compile: {err}"))?,
        );
    }
    programs.extend(x32_filter());
    Ok(programs)
}

/// `RET k` in classic BPF.
const BPF_RET_K: u16 = (libc::BPF_RET | libc::BPF_K) as u16;
/// An unconditional forward jump by `k` instructions.
const BPF_JA: u16 = (libc::BPF_JMP | libc::BPF_JA) as u16;

/// Joins classic BPF seccomp programs: in every program but the last, each
/// `RET ALLOW` becomes a jump to the first instruction of the next program.
/// Jumps in classic BPF are relative and only go forward, so every other
/// instruction keeps its meaning; a program that returns anything else
/// still ends the run there. Fails on a program that returns the
/// accumulator (`RET A`), whose value cannot be seen here.
fn chain(programs: Vec<BpfProgram>) -> Result<BpfProgram, String> {
    let count = programs.len();
    let mut joined: BpfProgram = Vec::new();
    for (index, program) in programs.into_iter().enumerate() {
        let last = index + 1 == count;
        let len = program.len();
        for (at, mut instruction) in program.into_iter().enumerate() {
            if instruction.code & 0x07 == libc::BPF_RET as u16 {
                if instruction.code != BPF_RET_K {
                    return Err("seccomp: cannot chain a filter that returns a register".into());
                }
                if instruction.k == libc::SECCOMP_RET_ALLOW && !last {
                    instruction = seccompiler::sock_filter {
                        code: BPF_JA,
                        jt: 0,
                        jf: 0,
                        // To one past this program's last instruction.
                        k: u32::try_from(len - at - 1)
                            .map_err(|_| "seccomp: filter too long".to_string())?,
                    };
                }
            }
            joined.push(instruction);
        }
    }
    // The kernel's bound on one program.
    if joined.len() > 4096 {
        return Err(format!(
            "seccomp: the joined filter has {} instructions, more than 4096",
            joined.len()
        ));
    }
    Ok(joined)
}

/// On x86-64: refuse every x32 syscall number (bit 30 set) with ENOSYS.
#[cfg(target_arch = "x86_64")]
fn x32_filter() -> Option<BpfProgram> {
    use seccompiler::sock_filter;
    const BPF_LD_W_ABS: u16 = (libc::BPF_LD | libc::BPF_W | libc::BPF_ABS) as u16;
    const BPF_JGE_K: u16 = (libc::BPF_JMP | libc::BPF_JGE | libc::BPF_K) as u16;
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

/// Installs [`filters`] chained into one program on the calling thread
/// (no_new_privs must be set), so the kernel checks and compiles one filter
/// instead of three at every sandbox start (issue 13). A call gets the first
/// refusal any of them gives, or is allowed when none refuses: the same
/// result as installing them one by one, since no call is refused by two of
/// them (the sets are disjoint; tested below against the separate
/// programs). Returns how many filters the program holds.
pub(super) fn install() -> Result<usize, String> {
    let programs = filters()?;
    let count = programs.len();
    let program = chain(programs)?;
    seccompiler::apply_filter(&program).map_err(|err| format!("seccomp install: {err}"))?;
    Ok(count)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs a classic BPF seccomp program on one `seccomp_data` (the
    /// instructions seccompiler and this module emit; any other fails the
    /// test).
    fn run(program: &[seccompiler::sock_filter], data: &[u8; 64]) -> u32 {
        let word = |at: u32| {
            let at = at as usize;
            u32::from_le_bytes(data[at..at + 4].try_into().unwrap())
        };
        let (mut pc, mut acc) = (0usize, 0u32);
        loop {
            let op = &program[pc];
            let jump = |taken: bool| pc + 1 + usize::from(if taken { op.jt } else { op.jf });
            pc = match op.code {
                0x20 => {
                    acc = word(op.k);
                    pc + 1
                }
                0x54 => {
                    acc &= op.k;
                    pc + 1
                }
                0x05 => pc + 1 + op.k as usize,
                0x15 => jump(acc == op.k),
                0x25 => jump(acc > op.k),
                0x35 => jump(acc >= op.k),
                0x06 => return op.k,
                other => panic!("instruction {other:#x} not understood by this test"),
            };
        }
    }

    /// What the kernel answers when `programs` are installed one by one
    /// (the last one installed runs first): the most restrictive action,
    /// the newest filter's on a tie.
    fn kernel(programs: &[BpfProgram], data: &[u8; 64]) -> u32 {
        let action = |ret: u32| (ret & libc::SECCOMP_RET_ACTION_FULL) as i32;
        let mut answer = libc::SECCOMP_RET_ALLOW;
        for program in programs.iter().rev() {
            let ret = run(program, data);
            if action(ret) < action(answer) {
                answer = ret;
            }
        }
        answer
    }

    fn data(arch: u32, nr: u32, args: [u64; 6]) -> [u8; 64] {
        let mut data = [0u8; 64];
        data[0..4].copy_from_slice(&nr.to_le_bytes());
        data[4..8].copy_from_slice(&arch.to_le_bytes());
        for (i, arg) in args.iter().enumerate() {
            data[16 + 8 * i..24 + 8 * i].copy_from_slice(&arg.to_le_bytes());
        }
        data
    }

    // proves: SBX-1 (the one joined filter answers every call exactly as
    // the separate filters did: the deny list, the absent calls, the x32
    // door, the socket, ioctl and clone argument rules, other architectures)
    #[test]
    // The ioctl request type differs between targets.
    #[allow(clippy::unnecessary_cast)]
    fn the_joined_filter_answers_as_the_separate_filters_do() {
        let programs = filters().unwrap();
        let joined = chain(programs.clone()).unwrap();
        let native = match std::env::consts::ARCH {
            "x86_64" => 0xc000_003e,
            "aarch64" => 0xc000_00b7,
            _ => 0xc000_00f3,
        };
        let mut args_seen: Vec<[u64; 6]> = vec![[0; 6]];
        for flag in CLONE_NAMESPACE_FLAGS {
            args_seen.push([*flag | libc::SIGCHLD as u64, 0, 0, 0, 0, 0]);
        }
        for family in [
            libc::AF_UNIX,
            libc::AF_INET,
            libc::AF_INET6,
            libc::AF_NETLINK,
        ] {
            args_seen.push([family as u64, 1, 0, 0, 0, 0]);
            args_seen.push([family as u64 | (1 << 32), 1, 0, 0, 0, 0]);
        }
        for request in DENIED_IOCTLS {
            args_seen.push([1, *request, 0, 0, 0, 0]);
            args_seen.push([1, *request | (1 << 32), 0, 0, 0, 0]);
        }
        args_seen.push([1, libc::TIOCGWINSZ as u64, 0, 0, 0, 0]);
        let mut refused = 0;
        for arch in [native, 0x4000_0003] {
            for nr in (0..600).chain([0x4000_0000, 0x4000_0065, 0x4000_0200, u32::MAX]) {
                for args in &args_seen {
                    let data = data(arch, nr, *args);
                    let (one, many) = (run(&joined, &data), kernel(&programs, &data));
                    assert_eq!(one, many, "arch {arch:#x} nr {nr} args {args:?}");
                    refused += usize::from(one != libc::SECCOMP_RET_ALLOW);
                }
            }
        }
        // The rules bite at all (a filter that allows everything would pass
        // the comparison above if the separate ones did too).
        let answer = |nr: libc::c_long, args| run(&joined, &data(native, nr as u32, args));
        let eperm = libc::SECCOMP_RET_ERRNO | libc::EPERM as u32;
        let enosys = libc::SECCOMP_RET_ERRNO | libc::ENOSYS as u32;
        assert_eq!(answer(libc::SYS_ptrace, [0; 6]), eperm);
        assert_eq!(answer(libc::SYS_clone3, [0; 6]), enosys);
        assert_eq!(answer(libc::SYS_memfd_create, [0; 6]), enosys);
        assert_eq!(
            answer(libc::SYS_socket, [libc::AF_INET as u64, 1, 0, 0, 0, 0]),
            eperm
        );
        assert_eq!(
            answer(libc::SYS_socket, [libc::AF_UNIX as u64, 1, 0, 0, 0, 0]),
            libc::SECCOMP_RET_ALLOW
        );
        assert_eq!(
            answer(libc::SYS_clone, [libc::CLONE_NEWUSER as u64, 0, 0, 0, 0, 0]),
            eperm
        );
        assert_eq!(answer(libc::SYS_read, [0; 6]), libc::SECCOMP_RET_ALLOW);
        if cfg!(target_arch = "x86_64") {
            assert_eq!(answer(0x4000_0000 | libc::SYS_ptrace, [0; 6]), enosys);
        }
        assert!(refused > 100, "{refused}");
    }

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
