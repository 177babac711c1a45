//! `PATH` entries a project can plant programs in (round7 #15).
//!
//! A bare command name (`ls`, `git`, `make`) is looked up in `PATH`, in
//! order. An entry that is empty (`::`, a leading or trailing `:`), `.` or
//! any other relative path names the working folder, which is the project;
//! an absolute entry inside the project (`$PWD/node_modules/.bin`) is the
//! project too; a temporary folder anyone on the machine may write. A file
//! the project holds there (or that a page got an earlier edit to write)
//! runs instead of the program the rules judged. These are the entries
//! ploy never passes to a child (`ploy_proof::sandbox::safe_path`) and asks about
//! when the host's own shell will search them (the hook).

use std::path::{Component, Path, PathBuf};

/// Folders any user may write (sticky, world-writable): a program planted
/// there runs as a bare name for anyone whose `PATH` lists them.
const SHARED_WRITABLE: [&str; 4] = ["/tmp", "/var/tmp", "/dev/shm", "/run/shm"];

/// Why bash may find a project's (or anyone's) file through `entry` of
/// `PATH` when it runs in `project` (or any folder inside it): `None` for
/// an absolute entry outside the project and the shared temporary folders.
/// Lexical only (no file system access): `project` should be given as the
/// caller runs in it (canonical when the caller's working folder is).
pub fn unsafe_path_entry(entry: &str, project: &Path) -> Option<&'static str> {
    if entry.is_empty() {
        return Some("an empty entry, which means the working folder");
    }
    if !entry.starts_with('/') {
        return Some("a relative entry, which is looked up from the working folder");
    }
    let normal = lexical(Path::new(entry));
    let project = lexical(project);
    if project.parent().is_some() && normal.starts_with(&project) {
        return Some("a folder inside the project");
    }
    if SHARED_WRITABLE
        .iter()
        .any(|shared| normal.starts_with(shared))
    {
        return Some("a temporary folder anyone may write");
    }
    None
}

/// `.` and `..` removed by the text (bash does not resolve links in `PATH`
/// either; a link is followed when the program is opened, so the caller that
/// can look resolves links itself).
fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    // proves: PERM-7, SBX-4 (round7 #15: relative, empty and in-project
    // PATH entries resolve a bare command name to a project file)
    #[test]
    fn relative_empty_in_project_and_shared_entries_are_unsafe() {
        let project = Path::new("/home/me/app");
        for entry in [
            "",
            ".",
            "./bin",
            "bin",
            "node_modules/.bin",
            "~/bin",
            "../app/bin",
            "/home/me/app",
            "/home/me/app/",
            "/home/me/app/node_modules/.bin",
            "/home/me/app/./bin",
            "/home/me/other/../app/bin",
            "/tmp",
            "/tmp/x/bin",
            "/var/tmp/bin",
            "/dev/shm",
        ] {
            assert!(
                unsafe_path_entry(entry, project).is_some(),
                "{entry:?} is unsafe"
            );
        }
        for entry in [
            "/usr/bin",
            "/usr/local/bin",
            "/home/me/.cargo/bin",
            "/home/me/application/bin",
            "/home/me/app2",
            "/tmpfs/bin",
            "/home/me/app/../other/bin",
        ] {
            assert_eq!(unsafe_path_entry(entry, project), None, "{entry:?}");
        }
        // A project at `/` holds everything; its entries are still judged
        // as entries, not all refused.
        assert_eq!(unsafe_path_entry("/usr/bin", Path::new("/")), None);
    }
}
