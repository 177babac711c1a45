//! The memory guard: memory limits that hold in total, not per process.
//!
//! Between waits the init (PID 1, the only process that sees all of the
//! sandbox) sums the resident private and shared-memory pages of every
//! process in its PID namespace (`/proc/PID/status`: `RssAnon` +
//! `RssShmem`) and what its tmpfs folders hold (`/tmp`, `/dev/shm`, the
//! copy-on-write layer). Past the cap it kills every process in the sandbox
//! at once and starts nothing more. It checks more often the closer the sum
//! is to the cap, so a fast allocator overshoots by at most a few
//! milliseconds' worth of allocation. Each process also keeps RLIMIT_DATA.
//!
//! Memory held only in descriptors is closed off or counted: `memfd_create`
//! is absent (seccomp, ENOSYS), and SysV shared memory and message queues
//! live in the sandbox's own IPC namespace, where every segment, attached
//! or not, and every queued message is counted from `/proc/sysvipc/shm` and
//! `/proc/sysvipc/msg` (proof5 #9: 500 MiB of queued messages went
//! uncounted when the kernel refused the init's `msgmni` cap, as it does
//! for an unprivileged user); the init also caps them with `kernel.shmall`
//! and `msgmni` where the kernel lets it (`limit_ipc`). The namespace and
//! its objects die with the sandbox. The files and folders in the tmpfs
//! folders cost kernel memory (an inode and a dentry, about 1.3 KB each,
//! proof5 #9) even when empty: each tmpfs has an inode bound (`nr_inodes`,
//! `root.rs`) and every inode in use counts [`INODE_BYTES`].
//! Not counted: kernel memory such as socket and pipe buffers, which only a
//! cgroup counts (ploy does not use a delegated cgroup v2 yet; `ploy doctor`
//! says which mechanism applies).

use std::{os::fd::OwnedFd, path::Path, time::Duration};

use super::runner::Watch;

/// What one file or folder in a tmpfs is counted as: its inode and dentry
/// in kernel memory (measured at about 1.3 KB on Linux 6.x, proof5 #9),
/// with a margin.
pub(super) const INODE_BYTES: u64 = 1536;

/// Sums the sandbox's memory and kills it past the cap; also kills it
/// when the disk holding the build cache fills past the cache's bound.
pub(super) struct MemoryGuard {
    cap: u64,
    cow: Option<OwnedFd>,
    tripped: Option<u64>,
    cache: Option<CacheWatch>,
    created: Option<super::created::CreationWatch>,
}

/// The build cache's disk (BEYOND-4, attack #12): the cache lives on the
/// host's disk, so what a run writes there stays. The bytes in use on that
/// file system now minus at the start bound what the run wrote (a host
/// program writing to the same disk meanwhile counts too: the run is
/// stopped rather than the disk filled). One `fstatfs`, cheap at every tick.
struct CacheWatch {
    fd: OwnedFd,
    start: u64,
    cap: u64,
    /// Inodes in use on the disk at the start, and the most the run may
    /// add (proof5 #6). `None`: the file system reports no inode count.
    start_inodes: Option<u64>,
    inode_cap: u64,
    tripped: Option<CacheOver>,
}

/// What stopped a run at its build cache's bound.
#[derive(Debug, Clone, Copy)]
enum CacheOver {
    /// Bytes the disk gained.
    Bytes(u64),
    /// Inodes the disk gained.
    Inodes(u64),
}

impl MemoryGuard {
    /// A guard for `cap` bytes; `cow` is the copy-on-write layer's tmpfs;
    /// `cache` the build cache's mount with the most bytes and inodes a run
    /// may add to its disk.
    pub(super) fn new(cap: u64, cow: Option<OwnedFd>, cache: Option<(OwnedFd, u64, u64)>) -> Self {
        let cache = cache.and_then(|(fd, cap, inode_cap)| {
            let stat = rustix::fs::fstatfs(&fd).ok()?;
            Some(CacheWatch {
                start: used_bytes(&stat),
                start_inodes: used_inodes(&stat),
                fd,
                cap,
                inode_cap,
                tripped: None,
            })
        });
        MemoryGuard {
            cap,
            cow,
            tripped: None,
            cache,
            created: None,
        }
    }

    /// Also stops the run the moment a PERM-7 path appears in the project
    /// (a writable run, SBX-6).
    pub(super) fn watch_creations(&mut self, watch: super::created::CreationWatch) {
        self.created = Some(watch);
    }

    /// True when a created PERM-7 path stopped the run.
    pub(super) fn creation_tripped(&self) -> bool {
        self.created.as_ref().is_some_and(|w| w.found().is_some())
    }

    /// True when the build cache's bound stopped the run (not memory).
    pub(super) fn cache_tripped(&self) -> bool {
        self.cache.as_ref().is_some_and(|c| c.tripped.is_some())
    }

    /// What the run added to the build cache's disk, past its bound.
    fn cache_over(&mut self) -> Option<CacheOver> {
        let cache = self.cache.as_mut()?;
        let stat = rustix::fs::fstatfs(&cache.fd).ok()?;
        let added = used_bytes(&stat).saturating_sub(cache.start);
        let over = if added > cache.cap {
            CacheOver::Bytes(added)
        } else {
            let made = used_inodes(&stat)?.saturating_sub(cache.start_inodes?);
            if made <= cache.inode_cap {
                return None;
            }
            CacheOver::Inodes(made)
        };
        cache.tripped = Some(over);
        Some(over)
    }

    /// Reads the creation watch; true (and every process killed) once a
    /// PERM-7 path or socket was made in the project.
    fn poll_creations(&mut self) -> bool {
        let Some(watch) = &mut self.created else {
            return false;
        };
        if !watch.poll() {
            return false;
        }
        kill_everything_else();
        self.tripped = Some(0);
        true
    }

    /// The sandbox's memory now, in bytes.
    fn total(&self) -> u64 {
        let mut total = 0u64;
        if let Ok(entries) = std::fs::read_dir("/proc") {
            for entry in entries.flatten() {
                let name = entry.file_name();
                let Some(name) = name.to_str() else { continue };
                if name.is_empty() || !name.bytes().all(|b| b.is_ascii_digit()) {
                    continue;
                }
                if let Ok(text) = std::fs::read_to_string(entry.path().join("status")) {
                    total = total.saturating_add(private_bytes(&text));
                }
            }
        }
        if let Ok(text) = std::fs::read_to_string("/proc/sysvipc/shm") {
            total = total.saturating_add(sysv_columns(&text, &["rss", "swap"]));
        }
        if let Ok(text) = std::fs::read_to_string("/proc/sysvipc/msg") {
            total = total.saturating_add(sysv_columns(&text, &["cbytes"]));
        }
        for dir in ["/tmp", "/dev/shm"] {
            if let Ok(stat) = rustix::fs::statfs(Path::new(dir)) {
                total = total.saturating_add(tmpfs_bytes(&stat));
            }
        }
        if let Some(cow) = &self.cow
            && let Ok(stat) = rustix::fs::fstatfs(cow)
        {
            total = total.saturating_add(tmpfs_bytes(&stat));
        }
        total
    }
}

impl Watch for MemoryGuard {
    fn tick(&mut self) -> Duration {
        if self.tripped.is_some() {
            // Again at every check until the run ends: a process forked while
            // the first kill went through the namespace dies too.
            kill_everything_else();
            return Duration::from_millis(5);
        }
        // First: a created PERM-7 path is moved aside before anything else
        // (SBX-6).
        if self.poll_creations() {
            return Duration::from_millis(5);
        }
        let total = self.total();
        if total > self.cap {
            kill_everything_else();
            self.tripped = Some(total);
            return Duration::from_millis(5);
        }
        if let Some(over) = self.cache_over() {
            kill_everything_else();
            self.tripped = Some(match over {
                CacheOver::Bytes(n) | CacheOver::Inodes(n) => n,
            });
            return Duration::from_millis(5);
        }
        next_check(total, self.cap)
    }

    fn watched(&mut self) {
        if self.tripped.is_none() {
            self.poll_creations();
        }
    }

    fn stopped(&self) -> Option<String> {
        if let Some(found) = self.created.as_ref().and_then(|w| w.found()) {
            return Some(found);
        }
        if let Some(cache) = &self.cache
            && let Some(over) = cache.tripped
        {
            return Some(match over {
                CacheOver::Bytes(added) => format!(
                    "the disk holding the build cache gained {} MiB during the run, over the {} \
                     MiB a run may write there (BEYOND-4), so every process in it was killed",
                    added >> 20,
                    cache.cap >> 20
                ),
                CacheOver::Inodes(made) => format!(
                    "{made} files and folders were made on the disk holding the build cache \
                     during the run, over the {} a run may make there (BEYOND-4), so every \
                     process in it was killed",
                    cache.inode_cap
                ),
            });
        }
        self.tripped.map(|total| {
            format!(
                "the sandbox used {} MiB in total, over the {} MiB limit, so every process in it was killed",
                total >> 20,
                self.cap >> 20
            )
        })
    }
}

/// kill(-1) from PID 1: every other process of the namespace at once
/// (rustix has no call for it).
fn kill_everything_else() {
    // SAFETY: kill with constant arguments.
    unsafe { libc::kill(-1, libc::SIGKILL) };
}

/// How long until the next check: rarely while far below the cap, every
/// 5 ms once past half of it.
fn next_check(total: u64, cap: u64) -> Duration {
    let millis = if total < cap / 4 {
        50
    } else if total < cap / 2 {
        20
    } else {
        5
    };
    Duration::from_millis(millis)
}

/// `RssAnon` + `RssShmem` of one `/proc/PID/status`, in bytes.
fn private_bytes(status: &str) -> u64 {
    status
        .lines()
        .filter_map(|line| {
            let rest = line
                .strip_prefix("RssAnon:")
                .or_else(|| line.strip_prefix("RssShmem:"))?;
            let kib: u64 = rest.trim().trim_end_matches("kB").trim().parse().ok()?;
            Some(kib.saturating_mul(1024))
        })
        .sum()
}

/// The sum of the `wanted` columns over every row of a `/proc/sysvipc`
/// table (the sandbox's own IPC namespace), found by the header's names:
/// `rss` and `swap` of each shared-memory segment in `shm`, `cbytes` of
/// each message queue in `msg`.
fn sysv_columns(table: &str, wanted: &[&str]) -> u64 {
    let mut lines = table.lines();
    let Some(header) = lines.next() else {
        return 0;
    };
    let columns: Vec<&str> = header.split_whitespace().collect();
    let at = |name: &str| columns.iter().position(|column| *column == name);
    let wanted: Vec<usize> = wanted.iter().copied().filter_map(at).collect();
    lines
        .map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            wanted
                .iter()
                .filter_map(|&index| fields.get(index)?.parse::<u64>().ok())
                .fold(0u64, u64::saturating_add)
        })
        .fold(0u64, u64::saturating_add)
}

/// Caps SysV IPC in the sandbox's own IPC namespace (`procfs` is its fresh
/// `/proc`, before `/proc/sys` is locked): shared memory in total at the
/// memory cap (`kernel.shmall`, in pages, and `shmmax`), and few message
/// queues (`kernel.msgmni`; each holds up to `msgmnb`, 16 KiB by default).
/// The guard counts every segment and queued message either way; these make
/// the kernel refuse what is past the cap in the first place, where it lets
/// the init set them (not in a namespace of an unprivileged user).
pub(super) fn limit_ipc(procfs: &Path, cap: u64) -> Result<(), String> {
    let page = rustix::param::page_size() as u64;
    let pages = cap.div_ceil(page).max(1);
    for (knob, value) in [
        ("kernel/shmall", pages),
        ("kernel/shmmax", cap),
        ("kernel/msgmni", 32),
    ] {
        let path = procfs.join("sys").join(knob);
        std::fs::write(&path, value.to_string())
            .map_err(|err| format!("cannot set {}: {err}", path.display()))?;
    }
    Ok(())
}

/// What a tmpfs holds in memory: its blocks in use plus [`INODE_BYTES`]
/// for each file and folder in it.
fn tmpfs_bytes(stat: &rustix::fs::StatFs) -> u64 {
    let inodes = used_inodes(stat).unwrap_or(0);
    used_bytes(stat).saturating_add(inodes.saturating_mul(INODE_BYTES))
}

/// Inodes in use, when the file system counts them (`None` when it reports
/// no total, as btrfs does).
// The field types differ between targets (u64 here, c_ulong elsewhere).
#[allow(clippy::unnecessary_cast)]
fn used_inodes(stat: &rustix::fs::StatFs) -> Option<u64> {
    let total = stat.f_files as u64;
    (total > 0).then(|| total.saturating_sub(stat.f_ffree as u64))
}

// The field types differ between targets (u64 here, c_ulong elsewhere).
#[allow(clippy::unnecessary_cast)]
fn used_bytes(stat: &rustix::fs::StatFs) -> u64 {
    let blocks = (stat.f_blocks as u64).saturating_sub(stat.f_bfree as u64);
    blocks.saturating_mul(stat.f_bsize as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    // proves: SBX-2 (limits in total: the guard reads private and shared memory)
    #[test]
    fn private_memory_is_anonymous_plus_shared_pages() {
        let status = "Name:\tx\nVmRSS:\t  9000 kB\nRssAnon:\t    3000 kB\nRssFile:\t 5000 kB\nRssShmem:\t 1000 kB\n";
        assert_eq!(private_bytes(status), 4000 * 1024);
        assert_eq!(private_bytes("Name:\tkthread\n"), 0);
    }

    // proves: SBX-2 (SysV segments count whether attached or not)
    #[test]
    fn sysv_segments_count_resident_and_swapped_bytes() {
        let table = "       key      shmid perms                  size  cpid  lpid nattch   uid   gid  cuid  cgid      atime      dtime      ctime                   rss                  swap\n\
                              0          1  1600           1073741824     5     5      0  1000  1000  1000  1000 1 2 3           1073741824                     0\n\
                              0          2  1600           1073741824     5     5      0  1000  1000  1000  1000 1 2 3            536870912              4096\n";
        assert_eq!(
            sysv_columns(table, &["rss", "swap"]),
            (1 << 30) + (1 << 29) + 4096
        );
        assert_eq!(sysv_columns("", &["rss", "swap"]), 0);
    }

    // proves: SBX-2 (proof5 #9: queued SysV messages count)
    #[test]
    fn sysv_message_queues_count_their_queued_bytes() {
        let table = "       key      msqid perms      cbytes       qnum lspid lrpid   uid   gid  cuid  cgid      stime      rtime      ctime\n\
                              0          0   600       16384          2     7     0  1000  1000  1000  1000 1 0 1\n\
                              0          1   600        8192          1     7     0  1000  1000  1000  1000 1 0 1\n";
        assert_eq!(sysv_columns(table, &["cbytes"]), 24576);
    }

    #[test]
    fn checks_come_faster_near_the_cap() {
        let cap = 4 << 30;
        assert!(next_check(0, cap) > next_check(cap / 3, cap));
        assert!(next_check(cap / 3, cap) > next_check(cap - 1, cap));
        assert_eq!(next_check(cap - 1, cap), Duration::from_millis(5));
    }
}
