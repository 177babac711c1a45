//! A `sandbox-exec` profile (SBPL) for the same policy on macOS.
//!
//! UNTESTED ON REAL macOS: only the generated text is unit-tested here. The
//! profile denies by default, has no network, allows writes only to the
//! project and temp folders, hides the home folder except the project
//! (BEYOND-3) and denies reads of the sensitive folders in any case (SBX-3).
//! Paths are never spliced into the text: they are passed as parameters
//! (`sandbox-exec -D PROJECT=/path ...`), so a path cannot inject rules.

use std::path::{Path, PathBuf};

use super::SENSITIVE_HOME_ENTRIES;

/// A generated profile and the `-D NAME=VALUE` parameters it expects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MacosProfile {
    /// The SBPL text.
    pub text: String,
    /// Parameters, in order: pass each as `-D NAME=VALUE`.
    pub params: Vec<(String, PathBuf)>,
}

impl MacosProfile {
    /// The `sandbox-exec` argument list before the program: `-p TEXT -D ...`.
    pub fn sandbox_exec_args(&self) -> Vec<String> {
        let mut args = vec!["-p".to_string(), self.text.clone()];
        for (name, value) in &self.params {
            args.push("-D".to_string());
            args.push(format!("{name}={}", value.display()));
        }
        args
    }
}

/// Builds the profile for `project`, `home` and `tmp` (e.g. `$TMPDIR`).
pub fn macos_profile(project: &Path, home: &Path, tmp: &Path) -> MacosProfile {
    let mut params = vec![
        ("PROJECT".to_string(), project.to_path_buf()),
        ("HOME".to_string(), home.to_path_buf()),
        ("TMP".to_string(), tmp.to_path_buf()),
    ];
    let mut text = String::from(
        "(version 1)\n\
         (deny default)\n\
         ; processes: run programs, only signal our own sandbox\n\
         (allow process-exec process-fork)\n\
         (allow signal (target same-sandbox))\n\
         (allow sysctl-read)\n\
         (allow mach-lookup (global-name \"com.apple.system.logger\"))\n\
         ; no network at all (SBX-1)\n\
         (deny network*)\n\
         ; reads: everything but the home folder, then the project again (BEYOND-3)\n\
         (allow file-read*)\n\
         (deny file-read* (subpath (param \"HOME\")))\n\
         (allow file-read* (subpath (param \"PROJECT\")))\n\
         ; writes: only the project, temp and the null device (SBX-2)\n\
         (allow file-write* (subpath (param \"PROJECT\")) (subpath (param \"TMP\")) \
         (literal \"/dev/null\") (literal \"/dev/zero\"))\n\
         ; sensitive folders: no read or write, even inside the project (SBX-3)\n",
    );
    for (index, entry) in SENSITIVE_HOME_ENTRIES.iter().enumerate() {
        let name = format!("SENSITIVE_{index}");
        text.push_str(&format!(
            "(deny file-read* file-write* (subpath (param \"{name}\")))\n"
        ));
        params.push((name, home.join(entry)));
    }
    MacosProfile { text, params }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn profile() -> MacosProfile {
        macos_profile(
            Path::new("/Users/me/code/app"),
            Path::new("/Users/me"),
            Path::new("/private/tmp"),
        )
    }

    // proves: SBX-1
    #[test]
    fn profile_denies_by_default_and_denies_all_network() {
        let text = profile().text;
        assert!(text.starts_with("(version 1)\n(deny default)\n"));
        assert!(text.contains("(deny network*)"));
        assert!(!text.contains("(allow network"));
    }

    // proves: SBX-2
    #[test]
    fn profile_writes_only_to_project_and_temp() {
        let text = profile().text;
        let writes: Vec<&str> = text
            .lines()
            .filter(|l| l.contains("(allow file-write*"))
            .collect();
        assert_eq!(writes.len(), 1, "{writes:?}");
        assert!(writes[0].contains("(subpath (param \"PROJECT\"))"));
        assert!(writes[0].contains("(subpath (param \"TMP\"))"));
        assert!(!text.contains("(allow file-write* (subpath (param \"HOME\")))"));
    }

    // proves: BEYOND-3, SBX-3
    #[test]
    fn profile_hides_home_and_sensitive_folders_after_allowing_the_project() {
        let p = profile();
        let text = &p.text;
        let deny_home = text
            .find("(deny file-read* (subpath (param \"HOME\")))")
            .unwrap();
        let allow_project = text
            .find("(allow file-read* (subpath (param \"PROJECT\")))")
            .unwrap();
        let first_sensitive = text.find("SENSITIVE_0").unwrap();
        // SBPL: the last matching rule wins, so the order is the policy.
        assert!(deny_home < allow_project && allow_project < first_sensitive);
        for entry in [".ssh", ".aws", ".gnupg", ".kube", ".docker", ".netrc"] {
            let path = Path::new("/Users/me").join(entry);
            let (name, _) = p.params.iter().find(|(_, v)| *v == path).unwrap();
            assert!(text.contains(&format!(
                "(deny file-read* file-write* (subpath (param \"{name}\")))"
            )));
        }
    }

    // proves: SBX-3
    #[test]
    fn paths_are_parameters_never_text() {
        let hostile = Path::new("/Users/me/x\")) (allow network*) ((\"");
        let p = macos_profile(hostile, Path::new("/Users/me"), Path::new("/tmp"));
        assert!(!p.text.contains("/Users/me"));
        assert!(!p.text.contains("(allow network"));
        let args = p.sandbox_exec_args();
        assert_eq!(args[0], "-p");
        assert!(args.iter().any(|a| a.starts_with("PROJECT=/Users/me/x")));
    }
}
