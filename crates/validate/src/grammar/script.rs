//! A project script named by its relative path (`./check.sh`,
//! `scripts/test.sh`): an argv like any other, run directly (its own first
//! line names its interpreter). It is project code, contained by the
//! sandbox (PROOF-6); its path and arguments are checked like paths.

use super::{At, Ctx, Facts};
use crate::PROOF_2;
use crate::vacuity::{Cond, PathTest};

pub(super) fn script(ctx: &mut Ctx, path: &str, args: &[String], at: &At) -> Option<Facts> {
    if path.starts_with('/') {
        ctx.refuse(
            PROOF_2,
            "runs a program by absolute path; a proof runs the allowed programs by name, or a project script by its path inside the project",
        );
    }
    ctx.path(path, "the script");
    if path.ends_with('/') {
        ctx.refuse(PROOF_2, "names a folder, not a script");
    }
    if !path
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "._/-+".contains(c))
    {
        ctx.refuse(
            PROOF_2,
            "a script's path is made of letters, digits and `._/-+`",
        );
    }
    if path.split('/').any(|part| part.starts_with('-')) {
        ctx.refuse(
            PROOF_2,
            "a path part that starts with `-` reads as an option",
        );
    }
    for arg in args {
        ctx.text(arg, "the script argument");
    }
    // The script must be an executable file for the proof to pass.
    Some(Facts {
        status: Cond::path(PathTest::Executable, path)
            .and(Cond::path(PathTest::File, path))
            .and(ctx.outcome(at)),
    })
}
