//! Execution profiles (PROFILE-1, PROFILE-2, CONFIG-1).
//!
//! A profile is the operator's attestation of the real setup: which sandbox
//! the agent runs in and whether a person is there to answer questions. One
//! combination is forbidden outright: `danger-full-access` with `never`
//! (no sandbox and nobody asked). It cannot be constructed: the only
//! constructor, [`ExecutionProfile::new`], refuses it, and there is no flag,
//! environment variable or setting that overrides the refusal.

use std::fmt;

use serde::{Deserialize, Serialize};

/// Where commands may write (`security_profile.sandbox`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SandboxMode {
    /// Writes only inside the project and temporary folders (the default).
    WorkspaceWrite,
    /// No sandbox: the operator says the whole machine is exposed.
    DangerFullAccess,
}

impl SandboxMode {
    /// The settings spelling (`workspace-write`, `danger-full-access`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::WorkspaceWrite => "workspace-write",
            Self::DangerFullAccess => "danger-full-access",
        }
    }

    /// Stricter of two modes (used when a project may only tighten).
    pub fn stricter(self, other: Self) -> Self {
        if self == Self::WorkspaceWrite || other == Self::WorkspaceWrite {
            Self::WorkspaceWrite
        } else {
            Self::DangerFullAccess
        }
    }
}

impl fmt::Display for SandboxMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Whether a person answers permission questions (`security_profile.approval`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ApprovalMode {
    /// A person answers; an `Ask` decision is put to them (the default).
    Ask,
    /// Nobody answers; every `Ask` becomes a refusal (PERM-5).
    Never,
}

impl ApprovalMode {
    /// The settings spelling (`ask`, `never`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Ask => "ask",
            Self::Never => "never",
        }
    }

    /// Stricter of two modes (`ask` keeps a person in the loop).
    pub fn stricter(self, other: Self) -> Self {
        if self == Self::Ask || other == Self::Ask {
            Self::Ask
        } else {
            Self::Never
        }
    }
}

impl fmt::Display for ApprovalMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a profile was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProfileError {
    /// `danger-full-access` + `never`: refused at load, no override (PROFILE-1).
    #[error(
        "PROFILE-1: sandbox `danger-full-access` with approval `never` is forbidden \
         (no sandbox and nobody asked); there is no override. Use approval `ask` or \
         sandbox `workspace-write`"
    )]
    Forbidden,
}

impl ProfileError {
    /// The requirement this refusal enforces.
    pub fn requirement(&self) -> &'static str {
        match self {
            Self::Forbidden => "PROFILE-1",
        }
    }
}

/// A validated execution profile: sandbox × approval, never the forbidden pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct ExecutionProfile {
    sandbox: SandboxMode,
    approval: ApprovalMode,
}

impl ExecutionProfile {
    /// The default and recommended profile: `workspace-write` + `ask`.
    pub const DEFAULT: Self = Self {
        sandbox: SandboxMode::WorkspaceWrite,
        approval: ApprovalMode::Ask,
    };

    /// Build a profile; refuses `danger-full-access` + `never` (PROFILE-1).
    pub fn new(sandbox: SandboxMode, approval: ApprovalMode) -> Result<Self, ProfileError> {
        Self::validate(sandbox, approval)?;
        Ok(Self { sandbox, approval })
    }

    /// The check alone, without building anything: what a tool registry calls
    /// before registering a tool (A-4: a forbidden profile registers nothing).
    pub fn validate(sandbox: SandboxMode, approval: ApprovalMode) -> Result<(), ProfileError> {
        match (sandbox, approval) {
            (SandboxMode::DangerFullAccess, ApprovalMode::Never) => Err(ProfileError::Forbidden),
            _ => Ok(()),
        }
    }

    /// The sandbox mode.
    pub fn sandbox(&self) -> SandboxMode {
        self.sandbox
    }

    /// The approval mode.
    pub fn approval(&self) -> ApprovalMode {
        self.approval
    }

    /// True when a person answers `Ask` decisions; false means callers must
    /// turn every `Ask` into a refusal (PERM-5).
    pub fn asks_user(&self) -> bool {
        self.approval == ApprovalMode::Ask
    }

    /// Field-by-field stricter of two profiles (a project may only tighten).
    pub fn stricter(self, other: Self) -> Self {
        // Both inputs are valid and tightening can only move towards
        // workspace-write/ask, so the result is valid too.
        Self {
            sandbox: self.sandbox.stricter(other.sandbox),
            approval: self.approval.stricter(other.approval),
        }
    }
}

impl fmt::Display for ExecutionProfile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "sandbox={} approval={}", self.sandbox, self.approval)
    }
}
