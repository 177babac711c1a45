//! Settings format: profile validation (PROFILE-1, PROFILE-2, A-4), fail-loud
//! parsing (CONFIG-1), rule layering (PERM-2, TRUST-5).

#![allow(clippy::unwrap_used)] // tests: a panic is a test failure

use ploy_policy::{
    Action, ApprovalMode, Approvals, ConversationRules, DefaultProjectTrust, ExecutionProfile,
    Permission, ProfileError, ProjectRoot, ProjectTrust, RuleSource, SandboxMode, Settings,
    SettingsError, ValueSource, resolve,
};
use proptest::prelude::*;

const ORIGIN: &str = "/home/u/.config/ploy/settings.json";

fn profile_json(sandbox: &str, approval: &str) -> String {
    format!(r#"{{"security_profile": {{"sandbox": "{sandbox}", "approval": "{approval}"}}}}"#)
}

// proves: PROFILE-1
#[test]
fn every_legal_profile_loads_and_the_forbidden_one_never_does() {
    for (sandbox, approval, ok) in [
        ("workspace-write", "ask", true),
        ("workspace-write", "never", true),
        ("danger-full-access", "ask", true),
        ("danger-full-access", "never", false),
    ] {
        let result = Settings::parse(&profile_json(sandbox, approval), ORIGIN);
        assert_eq!(result.is_ok(), ok, "{sandbox}+{approval}: {result:?}");
        if let Err(err) = result {
            assert_eq!(err.requirement(), "PROFILE-1");
            let msg = err.to_string();
            assert!(msg.contains(ORIGIN), "{msg}");
            assert!(msg.contains("security_profile"), "{msg}");
            assert!(msg.contains("PROFILE-1"), "{msg}");
            assert_eq!(err.line(), Some(1));
        }
    }
}

// proves: PROFILE-1
#[test]
fn no_override_of_any_kind_exists() {
    // Every spelling of an override someone might try is an unknown key (CONFIG-1),
    // and the forbidden pair still fails wherever it appears.
    for extra in [
        r#""allow_forbidden_profile": true"#,
        r#""override": true"#,
        r#""force": true"#,
        r#""unsafe": true"#,
    ] {
        let in_profile = format!(
            r#"{{"security_profile": {{"sandbox": "danger-full-access", "approval": "never", {extra}}}}}"#
        );
        assert!(
            Settings::parse(&in_profile, ORIGIN).is_err(),
            "{in_profile}"
        );
        let top = format!(
            r#"{{{extra}, "security_profile": {{"sandbox": "danger-full-access", "approval": "never"}}}}"#
        );
        assert!(Settings::parse(&top, ORIGIN).is_err(), "{top}");
        let legal_with_extra = format!(
            r#"{{{extra}, "security_profile": {{"sandbox": "workspace-write", "approval": "ask"}}}}"#
        );
        let err = Settings::parse(&legal_with_extra, ORIGIN).unwrap_err();
        assert_eq!(err.requirement(), "CONFIG-1", "{err}");
    }
    // Reversed key order and multi-line layout: same refusal, line points at the key.
    let text = "{\n  \"permissions\": {},\n  \"security_profile\": {\n    \"approval\": \"never\",\n    \"sandbox\": \"danger-full-access\"\n  }\n}";
    let err = Settings::parse(text, ORIGIN).unwrap_err();
    assert!(matches!(
        err,
        SettingsError::ForbiddenProfile {
            source: ProfileError::Forbidden,
            ..
        }
    ));
    assert_eq!(err.line(), Some(3));
    // The type itself cannot hold the forbidden pair.
    assert_eq!(
        ExecutionProfile::new(SandboxMode::DangerFullAccess, ApprovalMode::Never),
        Err(ProfileError::Forbidden)
    );
}

/// A stand-in for a tool registry: it registers tools only after the
/// settings load, as the real one must (A-4).
fn load_and_register(text: &str, registry: &mut Vec<&'static str>) -> Result<(), SettingsError> {
    let settings = Settings::parse(text, ORIGIN)?;
    let profile = settings.execution_profile()?;
    ExecutionProfile::validate(profile.sandbox(), profile.approval()).map_err(|source| {
        SettingsError::ForbiddenProfile {
            origin: ORIGIN.into(),
            line: None,
            source,
        }
    })?;
    registry.push("web_search");
    Ok(())
}

// proves: A-4
// proves: PROFILE-1
#[test]
fn forbidden_profile_throws_at_load_and_nothing_registers() {
    let mut registry = Vec::new();
    let err =
        load_and_register(&profile_json("danger-full-access", "never"), &mut registry).unwrap_err();
    assert_eq!(err.requirement(), "PROFILE-1");
    assert!(registry.is_empty());
    load_and_register(&profile_json("workspace-write", "ask"), &mut registry).unwrap();
    assert_eq!(registry, ["web_search"]);
}

// proves: CONFIG-1
#[test]
fn unknown_values_and_keys_fail_loudly_with_key_and_line() {
    let cases: &[(&str, &str)] = &[
        (
            r#"{"security_profile": {"sandbox": "workspace_write", "approval": "ask"}}"#,
            "security_profile.sandbox",
        ),
        (
            r#"{"security_profile": {"sandbox": "Workspace-Write", "approval": "ask"}}"#,
            "security_profile.sandbox",
        ),
        (
            r#"{"security_profile": {"sandbox": "", "approval": "ask"}}"#,
            "security_profile.sandbox",
        ),
        (
            r#"{"security_profile": {"sandbox": "workspace-write", "approval": "on-request"}}"#,
            "security_profile.approval",
        ),
        (
            r#"{"security_profile": {"sandbox": "workspace-write", "approval": null}}"#,
            "security_profile.approval",
        ),
        (
            r#"{"security_profile": {"sandbox": "workspace-write"}}"#,
            "security_profile",
        ),
        (
            r#"{"security_profile": "workspace-write"}"#,
            "security_profile",
        ),
        (
            r#"{"securityProfile": {"sandbox": "workspace-write", "approval": "ask"}}"#,
            "securityProfile",
        ),
        (
            r#"{"permissions": {"shell": {"alow": ["ls"]}}}"#,
            "permissions.shell.alow",
        ),
        (
            r#"{"permissions": {"network": {"allow": ["*"]}}}"#,
            "permissions.network",
        ),
        (
            r#"{"permissions": {"shell": {"allow": "ls"}}}"#,
            "permissions.shell.allow",
        ),
        (
            r#"{"permissions": {"shell": {"allow": [1]}}}"#,
            "permissions.shell.allow[0]",
        ),
        (
            r#"{"default_project_trust": "sometimes"}"#,
            "default_project_trust",
        ),
    ];
    for (text, key) in cases {
        let err = Settings::parse(text, ORIGIN).unwrap_err();
        assert_eq!(err.requirement(), "CONFIG-1", "{text}: {err}");
        assert_eq!(err.key(), *key, "{text}: {err}");
        assert_eq!(err.line(), Some(1), "{text}: {err}");
        let msg = err.to_string();
        assert!(msg.starts_with(ORIGIN), "{msg}");
        assert!(msg.contains(key), "{msg}");
    }
    for broken in [
        "",
        "{",
        "[]",
        "null",
        r#"{"security_profile": {}} trailing"#,
        "{\"a\":1,}",
    ] {
        let err = Settings::parse(broken, ORIGIN).unwrap_err();
        assert_eq!(err.requirement(), "CONFIG-1", "{broken:?}: {err}");
    }
}

// proves: PERM-2
// proves: CONFIG-1
#[test]
fn bad_patterns_name_their_key_and_line() {
    let text =
        "{\n\"permissions\": {\n \"shell\": {\n  \"allow\": [\"ls\",\n   \"git [\"]\n }\n}\n}";
    let err = Settings::parse(text, ORIGIN).unwrap_err();
    assert_eq!(err.key(), "permissions.shell.allow[1]", "{err}");
    assert_eq!(err.line(), Some(5), "{err}");
    assert_eq!(err.requirement(), "PERM-2");
    let err =
        Settings::parse(r#"{"permissions": {"edit": {"deny": ["  "]}}}"#, ORIGIN).unwrap_err();
    assert_eq!(err.key(), "permissions.edit.deny[0]");
}

// proves: PROFILE-2
#[test]
fn missing_profile_is_an_error_where_mandatory() {
    let settings = Settings::parse(r#"{"permissions": {}}"#, ORIGIN).unwrap();
    let err = settings.execution_profile().unwrap_err();
    assert_eq!(err.requirement(), "PROFILE-2");
    assert!(err.to_string().contains(ORIGIN));
    let err = resolve(Some(&settings), None, ProjectTrust::Trusted).unwrap_err();
    assert_eq!(err.requirement(), "PROFILE-2");
    let err = resolve(None, None, ProjectTrust::Trusted).unwrap_err();
    assert_eq!(err.requirement(), "PROFILE-2");
    // A project file cannot supply the missing user profile.
    let project = Settings::parse(&profile_json("workspace-write", "ask"), "proj").unwrap();
    assert!(resolve(Some(&settings), Some(&project), ProjectTrust::Trusted).is_err());
}

// proves: PROFILE-2
// proves: TRUST-5
#[test]
fn a_project_may_only_tighten_the_profile() {
    let user = Settings::parse(&profile_json("danger-full-access", "ask"), ORIGIN).unwrap();
    let project = Settings::parse(&profile_json("workspace-write", "never"), "proj").unwrap();
    let resolved = resolve(Some(&user), Some(&project), ProjectTrust::Trusted).unwrap();
    assert_eq!(resolved.profile.sandbox(), SandboxMode::WorkspaceWrite);
    assert_eq!(resolved.sandbox_source, ValueSource::Project);
    assert_eq!(resolved.profile.approval(), ApprovalMode::Ask);
    assert_eq!(resolved.approval_source, ValueSource::User);
    // Untrusted: the project is ignored entirely.
    let resolved = resolve(Some(&user), Some(&project), ProjectTrust::Untrusted).unwrap();
    assert_eq!(resolved.profile.sandbox(), SandboxMode::DangerFullAccess);
    assert!(resolved.project_skipped);
    // A trusted project asking for less safety gets nothing.
    let strict_user = Settings::parse(&profile_json("workspace-write", "ask"), ORIGIN).unwrap();
    let loose = Settings::parse(&profile_json("danger-full-access", "ask"), "proj").unwrap();
    let resolved = resolve(Some(&strict_user), Some(&loose), ProjectTrust::Trusted).unwrap();
    assert_eq!(resolved.profile, ExecutionProfile::DEFAULT);
}

// proves: TRUST-5
// proves: PERM-2
#[test]
fn untrusted_project_rules_have_no_effect_on_assert() {
    let user = Settings::parse(&profile_json("workspace-write", "ask"), ORIGIN).unwrap();
    let project = Settings::parse(
        r#"{"permissions": {"edit": {"allow": ["**"]}}, "default_project_trust": "always"}"#,
        "/p/.ploy/settings.json",
    )
    .unwrap();
    let root = ProjectRoot::new("/p").unwrap();
    let action = Action::edit("write_file", "src/a.rs", &root);
    let conv = ConversationRules::new();
    let untrusted = resolve(Some(&user), Some(&project), ProjectTrust::Untrusted).unwrap();
    assert!(
        untrusted
            .rules
            .layers()
            .iter()
            .all(|l| l.source() != RuleSource::Project)
    );
    assert!(Permission::assert(&action, &conv, &untrusted.rules, &Approvals::new()).is_ask());
    // A project cannot set its own default trust either.
    assert_eq!(
        untrusted.default_project_trust.value,
        DefaultProjectTrust::Ask
    );
    let trusted = resolve(Some(&user), Some(&project), ProjectTrust::Trusted).unwrap();
    assert!(Permission::assert(&action, &conv, &trusted.rules, &Approvals::new()).is_allow());
    assert_eq!(trusted.default_project_trust.source, ValueSource::Default);
}

#[test]
fn a_full_file_parses() {
    let text = r#"{
      "security_profile": {"sandbox": "workspace-write", "approval": "ask"},
      "permissions": {
        "shell": {"allow": ["cargo test *", "git status"], "deny": ["git push *"]},
        "edit": {"deny": [".git/**"]},
        "read": {"ask": [".env"]},
        "external_directory": {"allow": ["/tmp/**"]},
        "web": {"allow": ["*.wikipedia.org"]}
      },
      "default_project_trust": "never",
      "extensions": [{"command": "/opt/ext", "args": ["--x"], "timeout_ms": 5000}, {"command": "/opt/y"}]
    }"#;
    let settings = Settings::parse(text, ORIGIN).unwrap();
    assert_eq!(
        settings.execution_profile().unwrap(),
        ExecutionProfile::DEFAULT
    );
    assert_eq!(settings.rules().len(), 7);
    assert_eq!(
        settings.default_project_trust(),
        Some(DefaultProjectTrust::Never)
    );
    assert_eq!(settings.extension_decls().unwrap().len(), 2);
    assert_eq!(settings.origin(), ORIGIN);
    // The serialized view re-parses to the same settings.
    let again = Settings::parse(&serde_json::to_string(&settings).unwrap(), ORIGIN).unwrap();
    assert_eq!(again.rules(), settings.rules());
    assert_eq!(again.profile(), settings.profile());
    assert_eq!(again.extension_decls(), settings.extension_decls());
    assert!(settings.extensions().unwrap().is_array());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    // proves: PROFILE-1
    #[test]
    fn layout_never_changes_the_verdict(
        sandbox in prop::sample::select(vec!["workspace-write", "danger-full-access"]),
        approval in prop::sample::select(vec!["ask", "never"]),
        ws in "[ \t\n]{0,3}",
        swap in any::<bool>(),
    ) {
        let fields = if swap {
            format!(r#""approval":{ws}"{approval}",{ws}"sandbox":{ws}"{sandbox}""#)
        } else {
            format!(r#""sandbox":{ws}"{sandbox}",{ws}"approval":{ws}"{approval}""#)
        };
        let text = format!("{ws}{{{ws}\"security_profile\":{ws}{{{ws}{fields}{ws}}}{ws}}}{ws}");
        let forbidden = sandbox == "danger-full-access" && approval == "never";
        let result = Settings::parse(&text, ORIGIN);
        prop_assert_eq!(result.is_err(), forbidden, "{}", text);
    }
}

// ---- `service` and `proof` sections ----

// proves: CONFIG-1
#[test]
fn service_section_is_passed_through_as_the_file_gives_it() {
    let text = r#"{"service": {"listen": "127.0.0.1:0", "anything": [1, 2]}}"#;
    let settings = Settings::parse(text, ORIGIN).unwrap();
    // Its keys belong to ploy-service, which validates them; here it is kept whole.
    assert_eq!(
        settings.service().unwrap(),
        &serde_json::json!({"listen": "127.0.0.1:0", "anything": [1, 2]})
    );
    assert!(Settings::parse("{}", ORIGIN).unwrap().service().is_none());
    // It survives a round trip through the file shape.
    let again = serde_json::to_string(&settings).unwrap();
    let reparsed = Settings::parse(&again, ORIGIN).unwrap();
    assert_eq!(reparsed.service(), settings.service());
}

// proves: CONFIG-1
#[test]
fn a_service_section_that_is_not_an_object_is_refused_with_key_and_line() {
    for value in ["5", "\"127.0.0.1:0\"", "[]", "[1]", "null", "true"] {
        let text = format!("{{\n  \"default_project_trust\": \"ask\",\n  \"service\": {value}\n}}");
        let err = Settings::parse(&text, ORIGIN).unwrap_err();
        assert_eq!(err.requirement(), "CONFIG-1", "{value}: {err}");
        assert_eq!(err.key(), "service", "{value}: {err}");
        assert_eq!(err.line(), Some(3), "{value}: {err}");
        assert!(err.to_string().contains(ORIGIN), "{err}");
    }
}

// `proof.writable_dirs` was replaced by the per-project build cache: a file
// that still sets it is refused with that reason, naming key and line, so
// nobody believes a folder is writable when it is not.
// proves: CONFIG-1, BEYOND-4
#[test]
fn proof_writable_dirs_is_refused_as_removed_naming_key_and_line() {
    for value in ["[\"target\"]", "[]", "\"target\"", "null"] {
        let text = format!("{{\n  \"proof\": {{\n    \"writable_dirs\": {value}\n  }}\n}}");
        let err = Settings::parse(&text, ORIGIN).unwrap_err();
        assert_eq!(err.requirement(), "CONFIG-1", "{value}: {err}");
        assert_eq!(err.key(), "proof.writable_dirs", "{value}: {err}");
        assert_eq!(err.line(), Some(3), "{value}: {err}");
        let msg = err.to_string();
        assert!(
            msg.contains("removed") && msg.contains("build cache"),
            "{msg}"
        );
        assert!(msg.contains(ORIGIN), "{msg}");
    }
    // The section itself stays valid when empty.
    assert!(Settings::parse(r#"{"proof": {}}"#, ORIGIN).is_ok());
}

// proves: CONFIG-1
#[test]
fn proof_section_refuses_unknown_keys_and_wrong_shapes() {
    for text in [
        r#"{"proof": {"writable_dir": ["target"]}}"#,
        r#"{"proof": {"network": true}}"#,
        r#"{"proof": [["target"]]}"#,
        r#"{"proof": null}"#,
        r#"{"proof": 1}"#,
        r#"{"proofs": {}}"#,
    ] {
        let err = Settings::parse(text, ORIGIN).unwrap_err();
        assert_eq!(err.requirement(), "CONFIG-1", "{text}: {err}");
        assert!(err.key().starts_with("proof"), "{text}: {}", err.key());
    }
}

// proves: CONFIG-1, REDACT-1 (settings `secrets`: the lists are validated at load)
#[test]
fn secrets_section_loads_and_refuses_bad_entries_with_key_and_line() {
    let ok = Settings::parse(
        r#"{"secrets": {"env": ["DEPLOY_PASS", "_X1"], "files": ["config/creds.txt", "~/.netrc"]}}"#,
        ORIGIN,
    )
    .unwrap();
    assert_eq!(ok.secrets().env, ["DEPLOY_PASS", "_X1"]);
    assert_eq!(ok.secrets().files, ["config/creds.txt", "~/.netrc"]);
    assert!(
        Settings::parse("{}", ORIGIN)
            .unwrap()
            .secrets()
            .env
            .is_empty()
    );
    for (text, key) in [
        (
            "{\n\"secrets\": {\"env\": [\"BAD-NAME\"]}}",
            "secrets.env[0]",
        ),
        ("{\n\"secrets\": {\"env\": [\"\"]}}", "secrets.env[0]"),
        (
            "{\n\"secrets\": {\"files\": [\"a\", \"  \"]}}",
            "secrets.files[1]",
        ),
        ("{\n\"secrets\": {\"dirs\": []}}", "secrets"),
        ("{\n\"secrets\": [\"X\"]}", "secrets"),
    ] {
        let err = Settings::parse(text, ORIGIN).unwrap_err();
        let msg = err.to_string();
        assert_eq!(err.requirement(), "CONFIG-1", "{msg}");
        assert!(err.key().starts_with(key), "{text}: {} ({msg})", err.key());
        assert_eq!(err.line(), Some(2), "{text}: {msg}");
    }
}
