//! What the parent and the sandbox's init say to each other.
//!
//! * The **request** ([`InitRequest`]) goes to the init as JSON on a sealed
//!   memfd at [`REQUEST_FD`]; the init reads it once and closes it. It never
//!   travels in the argument list, which every process in the sandbox could
//!   read in `/proc/1/cmdline`.
//! * The **status** comes back as lines on a pipe at [`STATUS_FD`], which
//!   only the init holds: it is non-dumpable, so no program in the sandbox
//!   can open it through `/proc/1/fd`. [`StatusReport::parse`] accepts a
//!   report only when it has the shape the init writes (one exit report,
//!   last) and the init's own exit status, which the kernel reports, agrees
//!   with it.

use std::path::PathBuf;

use ploy_validate::ProofPlan;
use serde::{Deserialize, Serialize};

use super::{
    collect::Termination,
    policy::{Layer, Limits},
};

/// The status pipe's descriptor number in the init.
pub(super) const STATUS_FD: i32 = 3;

/// The request's descriptor number in the init (read, then closed).
pub(super) const REQUEST_FD: i32 = 4;

/// The largest request the init reads (a plan is bounded far below this).
pub(super) const MAX_REQUEST_BYTES: u64 = 16 << 20;

/// Bumped whenever the request or the status lines change shape: an init
/// binary from another build refuses a request it was not built for.
pub(super) const PROTOCOL: u32 = 2;

/// What the init is asked to do.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct InitRequest {
    /// [`PROTOCOL`] of the parent.
    pub protocol: u32,
    /// The caller's effective user and group IDs, mapped to themselves in
    /// the user namespace.
    pub uid: u32,
    /// See `uid`.
    pub gid: u32,
    /// Everything the init mounts.
    pub view: ViewSpec,
    /// Resource limits.
    pub limits: Limits,
    /// What runs once every layer is in place.
    pub work: Work,
    /// Layers to treat as missing (test seam, SBX-5: can only remove).
    pub simulate_missing: Vec<Layer>,
}

/// The file system the init builds, decided by the parent (see `view.rs`).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ViewSpec {
    /// The canonical project folder, mounted at its own path.
    pub project: PathBuf,
    /// Copy-on-write (an overlay whose writes vanish) or a writable bind.
    pub copy_on_write: bool,
    /// Folders bound read-only at their own path (system folders, toolchains).
    pub read_only: Vec<PathBuf>,
    /// Paths hidden behind an empty read-only file or folder (SBX-3).
    pub masks: Vec<PathBuf>,
    /// PERM-7 paths inside the project, bound read-only onto themselves (SBX-6).
    pub protected: Vec<PathBuf>,
    /// `.git` folders inside the project: bound onto themselves, so they
    /// cannot be renamed or replaced while their protected files are
    /// read-only (SBX-6).
    pub pinned: Vec<PathBuf>,
    /// Unix socket files inside the project, hidden behind an empty file so
    /// nothing inside can connect to the service behind them (SBX-6).
    pub sockets: Vec<PathBuf>,
    /// The project's build cache on the host, bound writable at
    /// [`super::BUILD_CACHE_MOUNT`] (BEYOND-4).
    pub build_cache: Option<PathBuf>,
}

/// What the init does once every layer is in place.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub(super) enum Work {
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

/// One line the init writes on the status channel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum StatusLine {
    /// A layer is in place, with what was found.
    Ok(Layer, String),
    /// A layer (or the program's start) failed: nothing more runs.
    Err(Layer, String),
    /// The probe stopped before running anything.
    Ready,
    /// A limit stopped the program (`memory`), with the detail.
    Limit(String, String),
    /// How the work ended.
    Exit(Termination),
}

impl StatusLine {
    /// The line as written (tabs and newlines in details become spaces).
    pub(super) fn render(&self) -> String {
        let clean = |text: &str| text.replace(['\n', '\t'], " ");
        match self {
            StatusLine::Ok(layer, detail) => format!("OK\t{}\t{}", layer.name(), clean(detail)),
            StatusLine::Err(layer, detail) => format!("ERR\t{}\t{}", layer.name(), clean(detail)),
            StatusLine::Ready => "READY".to_string(),
            StatusLine::Limit(which, detail) => {
                format!("LIMIT\t{}\t{}", clean(which), clean(detail))
            }
            StatusLine::Exit(Termination::Exited(code)) => format!("EXIT\tcode\t{code}"),
            StatusLine::Exit(Termination::Signaled(signal)) => format!("EXIT\tsignal\t{signal}"),
        }
    }

    /// Parses one line; `None` for anything the init never writes.
    pub(super) fn parse(line: &str) -> Option<StatusLine> {
        let mut parts = line.splitn(3, '\t');
        Some(match (parts.next()?, parts.next(), parts.next()) {
            ("OK", Some(layer), Some(detail)) => {
                StatusLine::Ok(Layer::from_name(layer)?, detail.to_string())
            }
            ("ERR", Some(layer), Some(detail)) => {
                StatusLine::Err(Layer::from_name(layer)?, detail.to_string())
            }
            ("READY", None, None) => StatusLine::Ready,
            ("LIMIT", Some(which), Some(detail)) => {
                StatusLine::Limit(which.to_string(), detail.to_string())
            }
            ("EXIT", Some("code"), Some(value)) => {
                StatusLine::Exit(Termination::Exited(value.parse().ok()?))
            }
            ("EXIT", Some("signal"), Some(value)) => {
                StatusLine::Exit(Termination::Signaled(value.parse().ok()?))
            }
            _ => return None,
        })
    }
}

/// What a status stream says, once checked.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(super) struct StatusReport {
    /// Layers the init confirmed, with their details, in order.
    pub confirmed: Vec<(Layer, String)>,
    /// The first failure the init reported.
    pub failure: Option<(Layer, String)>,
    /// The probe's end marker.
    pub ready: bool,
    /// Limits that stopped the program.
    pub limits: Vec<(String, String)>,
    /// How the work ended (its one exit report).
    pub exit: Option<Termination>,
}

impl StatusReport {
    /// Checks and reads a status stream. `init_code` is the init's own exit
    /// code as the kernel reported it (`None` when a signal ended it).
    ///
    /// Refused (the verdict is not trusted, SBX-5): a line the init never
    /// writes, more than one exit report, anything after it, or an exit
    /// report that the init's own exit code contradicts. Only the init can
    /// write on this channel, so any of these means something else did.
    pub(super) fn parse(text: &str, init_code: Option<i32>) -> Result<StatusReport, String> {
        let mut report = StatusReport::default();
        for line in text.lines() {
            if report.exit.is_some() {
                return Err("a line after the exit report".to_string());
            }
            match StatusLine::parse(line) {
                None => return Err("a line the init never writes".to_string()),
                Some(StatusLine::Ok(layer, detail)) => report.confirmed.push((layer, detail)),
                Some(StatusLine::Err(layer, detail)) => {
                    report.failure.get_or_insert((layer, detail));
                }
                Some(StatusLine::Ready) => report.ready = true,
                Some(StatusLine::Limit(which, detail)) => report.limits.push((which, detail)),
                Some(StatusLine::Exit(end)) => {
                    let expected = match end {
                        Termination::Exited(code) => code,
                        Termination::Signaled(signal) => 128 + signal,
                    };
                    if init_code != Some(expected.clamp(0, 255)) {
                        return Err("an exit report that the init's own exit status contradicts"
                            .to_string());
                    }
                    report.exit = Some(end);
                }
            }
        }
        Ok(report)
    }

    /// The detail of a confirmed layer.
    pub(super) fn confirmed(&self, layer: Layer) -> Option<&str> {
        self.confirmed
            .iter()
            .find(|(l, _)| *l == layer)
            .map(|(_, detail)| detail.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // proves: SBX-5
    #[test]
    fn every_line_renders_and_parses_back() {
        for line in [
            StatusLine::Ok(Layer::Landlock, "ABI 6".into()),
            StatusLine::Err(Layer::Overlay, "no overlay".into()),
            StatusLine::Ready,
            StatusLine::Limit("memory".into(), "4 GiB".into()),
            StatusLine::Exit(Termination::Exited(3)),
            StatusLine::Exit(Termination::Signaled(9)),
        ] {
            assert_eq!(StatusLine::parse(&line.render()), Some(line));
        }
        let noisy = StatusLine::Ok(Layer::Seccomp, "a\tb\nEXIT\tcode\t0".into()).render();
        assert_eq!(noisy.lines().count(), 1, "{noisy}");
    }

    // proves: SBX-5 (a forged verdict is refused even if one got through)
    #[test]
    fn a_stream_that_the_init_did_not_write_alone_is_refused() {
        let good = "OK\tseccomp\tx\nEXIT\tcode\t1\n";
        let report = StatusReport::parse(good, Some(1)).unwrap();
        assert_eq!(report.exit, Some(Termination::Exited(1)));
        assert_eq!(report.confirmed(Layer::Seccomp), Some("x"));
        for (forged, code) in [
            // a second exit report, as a program writing into the pipe adds
            ("EXIT\tcode\t1\nEXIT\tcode\t0\n", Some(1)),
            // one forged report the init's exit code contradicts
            ("EXIT\tcode\t0\n", Some(1)),
            // filler the init never writes
            ("xxxx\nEXIT\tcode\t0\n", Some(0)),
            ("EXIT\tcode\t1\nOK\tseccomp\tx\n", Some(1)),
            ("EXIT\tcode\tzero\n", Some(0)),
            ("OK\tno-such-layer\tx\n", Some(0)),
        ] {
            assert!(StatusReport::parse(forged, code).is_err(), "{forged:?}");
        }
        let signaled = StatusReport::parse("EXIT\tsignal\t9\n", Some(137)).unwrap();
        assert_eq!(signaled.exit, Some(Termination::Signaled(9)));
        assert!(StatusReport::parse("EXIT\tsignal\t9\n", None).is_err());
    }
}
