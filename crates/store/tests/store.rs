//! Store durability and failure tests (TAINT-2, TAINT-3): real files, real
//! SQLite, a real child process killed with SIGKILL.
// The kill -9 test re-executes this test binary as the writer process, and the
// read-only test runs `chattr` when it runs as root: test-only process spawns.
#![allow(clippy::disallowed_methods)]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Stdio};

use ploy_policy::{TaintMark, TaintSource};
use ploy_store::{MIGRATIONS, Role, Store, StoreError, schema_version};

fn mark(n: u64) -> TaintMark {
    TaintMark {
        reason: format!("web text entered the conversation (page {n})"),
        source: TaintSource::Url(format!("https://example.invalid/page/{n}")),
    }
}

// proves: TAINT-2
#[test]
fn marks_survive_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ploy.db");
    let id = {
        let mut store = Store::open(&path).unwrap();
        let conv = store.create_conversation("research").unwrap();
        store.mark_tainted(&conv.id, &mark(1)).unwrap();
        store
            .mark_tainted(
                &conv.id,
                &TaintMark {
                    reason: "browser tool returned a page".into(),
                    source: TaintSource::Tool("browser_read".into()),
                },
            )
            .unwrap();
        // The same mark again is not a second mark.
        store.mark_tainted(&conv.id, &mark(1)).unwrap();
        conv.id
    };
    let store = Store::open(&path).unwrap();
    let marks = store.marks(&id).unwrap();
    assert_eq!(marks.len(), 2);
    assert_eq!(marks[0], mark(1));
    assert_eq!(marks[1].source, TaintSource::Tool("browser_read".into()));
    assert!(store.conversation(&id).unwrap().tainted);
    let rules = store.conversation_rules(&id).unwrap();
    assert!(rules.is_tainted());
    assert_eq!(rules.marks(), &marks[..]);
    // A clean conversation next to it stays clean.
    let mut store = store;
    let clean = store.create_conversation("clean").unwrap();
    assert!(!store.conversation_rules(&clean.id).unwrap().is_tainted());
    let listed = store.list_conversations().unwrap();
    assert_eq!(listed.len(), 2);
    assert!(listed[0].tainted && !listed[1].tainted);
}

// proves: TAINT-3
#[test]
fn marking_a_missing_conversation_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path().join("ploy.db")).unwrap();
    let err = store.mark_tainted("nope", &mark(1)).unwrap_err();
    assert!(
        matches!(err, StoreError::NoSuchConversation { .. }),
        "{err}"
    );
}

/// Build a database at exactly schema version `version` with the raw
/// migrations, as an older ploy would have left it.
fn database_at_version(path: &Path, version: usize) -> rusqlite::Connection {
    let conn = rusqlite::Connection::open(path).unwrap();
    conn.execute_batch("PRAGMA journal_mode=WAL").unwrap();
    for (i, sql) in MIGRATIONS.iter().take(version).enumerate() {
        conn.execute_batch(sql).unwrap();
        conn.execute_batch(&format!("PRAGMA user_version = {}", i + 1))
            .unwrap();
    }
    conn
}

// proves: TAINT-2
#[test]
fn migrates_from_an_empty_file_and_from_every_earlier_version() {
    let dir = tempfile::tempdir().unwrap();
    // An empty (zero-byte) file is a valid empty SQLite database.
    let empty = dir.path().join("empty.db");
    std::fs::write(&empty, b"").unwrap();
    let store = Store::open(&empty).unwrap();
    assert_eq!(store.file_schema_version().unwrap(), schema_version());
    drop(store);

    for version in 1..schema_version() as usize {
        let path = dir.path().join(format!("v{version}.db"));
        let conn = database_at_version(&path, version);
        // Data written by the older schema: a conversation, a message, a mark.
        conn.execute(
            "INSERT INTO conversations (id, title, created_at) VALUES ('old', 'old one', 1)",
            [],
        )
        .unwrap();
        conn.execute(
            "INSERT INTO messages (conversation_id, role, content, created_at)
             VALUES ('old', 'user', 'hello', 1)",
            [],
        )
        .unwrap();
        conn.execute(
            "INSERT INTO taint_marks (conversation_id, mark, created_at) VALUES ('old', ?1, 1)",
            [serde_json::to_string(&mark(7)).unwrap()],
        )
        .unwrap();
        drop(conn);

        let mut store = Store::open(&path).unwrap();
        assert_eq!(store.file_schema_version().unwrap(), schema_version());
        assert_eq!(store.marks("old").unwrap(), vec![mark(7)]);
        assert_eq!(store.messages("old").unwrap()[0].content, "hello");
        // Every table of the newest schema works after the upgrade.
        store.add_memory(Some("old"), "remember this").unwrap();
        assert_eq!(store.memory_entries().unwrap().len(), 1);
        let bound = store
            .session_conversation_or_create("claude-code", "s-1", "session s-1")
            .unwrap();
        assert_eq!(
            store.session_conversation("claude-code", "s-1").unwrap(),
            Some(bound)
        );
        store.integrity_check().unwrap();
    }
}

// proves: TAINT-2 (a session keeps its conversation, and so its marks, for good)
#[test]
fn a_session_is_bound_once_and_the_binding_cannot_be_changed_or_removed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.db");
    let mut store = Store::open(&path).unwrap();
    assert_eq!(
        store.session_conversation("claude-code", "abc").unwrap(),
        None
    );
    let id = store
        .session_conversation_or_create("claude-code", "abc", "claude-code abc")
        .unwrap();
    store.mark_tainted(&id, &mark(1)).unwrap();
    // The same session again: the same conversation; another agent's
    // session of the same name: another one.
    assert_eq!(
        store
            .session_conversation_or_create("claude-code", "abc", "again")
            .unwrap(),
        id
    );
    let other = store
        .session_conversation_or_create("check", "abc", "check abc")
        .unwrap();
    assert_ne!(other, id);
    drop(store);
    // A new process (a reopened store) sees the binding and the mark.
    let store = Store::open(&path).unwrap();
    let found = store
        .session_conversation("claude-code", "abc")
        .unwrap()
        .unwrap();
    assert_eq!(found, id);
    assert_eq!(store.marks(&found).unwrap(), vec![mark(1)]);
    drop(store);
    // Rebinding or unbinding through SQL is refused by the schema.
    let conn = rusqlite::Connection::open(&path).unwrap();
    for sql in [
        "UPDATE external_sessions SET conversation_id = 'x'",
        "DELETE FROM external_sessions",
    ] {
        let err = conn.execute(sql, []).unwrap_err().to_string();
        assert!(err.contains("TAINT-2"), "{sql}: {err}");
    }
}

// proves: TAINT-2
#[test]
fn newer_schema_is_refused_and_left_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ploy.db");
    let conn = database_at_version(&path, MIGRATIONS.len());
    conn.execute_batch(&format!("PRAGMA user_version = {}", MIGRATIONS.len() + 5))
        .unwrap();
    drop(conn);
    let err = Store::open(&path).unwrap_err();
    assert!(matches!(err, StoreError::NewerSchema { .. }), "{err}");
    assert!(err.to_string().contains("upgrade ploy"), "{err}");
    let conn = rusqlite::Connection::open(&path).unwrap();
    let version: u32 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(version as usize, MIGRATIONS.len() + 5);
}

// proves: TAINT-3
#[test]
fn corrupt_file_is_a_clear_error_never_a_new_store() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ploy.db");
    let garbage =
        b"this is not a sqlite database, it is a text file of some length....".repeat(100);
    std::fs::write(&path, &garbage).unwrap();
    let err = Store::open(&path).unwrap_err();
    assert!(matches!(err, StoreError::Corrupt { .. }), "{err}");
    assert!(err.to_string().contains("ploy.db"), "{err}");
    assert_eq!(
        std::fs::read(&path).unwrap(),
        garbage,
        "file must be untouched"
    );

    // A real database with a damaged page in the middle.
    let path = dir.path().join("damaged.db");
    {
        let mut store = Store::open(&path).unwrap();
        let conv = store.create_conversation("c").unwrap();
        for i in 0..200 {
            store
                .append_message(
                    &conv.id,
                    Role::User,
                    &format!("message {i} {}", "x".repeat(500)),
                )
                .unwrap();
        }
    }
    // The rows are in the kept WAL; move them into the database file, whose
    // pages are what this test damages.
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute_batch("PRAGMA wal_checkpoint(TRUNCATE)")
        .unwrap();
    assert!(std::fs::metadata(&path).unwrap().len() > 8 * 4096);
    ploy_testkit::store_damage::overwrite_pages(&path, 3, 3).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    let err = Store::open(&path).unwrap_err();
    assert!(matches!(err, StoreError::Corrupt { .. }), "{err}");
    assert_eq!(
        std::fs::read(&path).unwrap(),
        bytes,
        "file must be untouched"
    );
}

// proves: TAINT-3
#[test]
fn locked_database_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ploy.db");
    let mut store = Store::open(&path).unwrap();
    let conv = store.create_conversation("c").unwrap();
    // Another process (here: another connection) holds the write lock.
    let other = rusqlite::Connection::open(&path).unwrap();
    other.execute_batch("BEGIN IMMEDIATE").unwrap();
    let started = std::time::Instant::now();
    let err = store.mark_tainted(&conv.id, &mark(1)).unwrap_err();
    assert!(matches!(err, StoreError::Locked { .. }), "{err}");
    assert!(err.to_string().contains("locked"), "{err}");
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
    other.execute_batch("ROLLBACK").unwrap();
    assert!(
        store.marks(&conv.id).unwrap().is_empty(),
        "failed mark must not exist"
    );
    store.mark_tainted(&conv.id, &mark(1)).unwrap();
}

/// Make `path` unwritable even for root: mode 0444, plus the immutable
/// attribute when running as root. Returns false when that is impossible here.
fn make_read_only(path: &Path) -> bool {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o444)).unwrap();
    if nix::unistd::geteuid().is_root() {
        let status = Command::new("chattr").arg("+i").arg(path).status();
        return matches!(status, Ok(s) if s.success());
    }
    true
}

fn undo_read_only(path: &Path) {
    if nix::unistd::geteuid().is_root() {
        let _ = Command::new("chattr").arg("-i").arg(path).status();
    }
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o644)).unwrap();
}

// proves: TAINT-3
#[test]
fn read_only_database_file_reports_mark_failure() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ploy.db");
    let id = {
        let mut store = Store::open(&path).unwrap();
        store.create_conversation("c").unwrap().id
    };
    let read_only = make_read_only(&path);
    if !read_only {
        undo_read_only(&path);
    }
    ploy_testkit::require_part!(
        "chattr",
        if read_only {
            Ok(())
        } else {
            Err(
                "running as root and `chattr +i` failed, so no file can be made read-only here; \
                 install e2fsprogs and use a file system with the immutable attribute (ext4, xfs)",
            )
        }
    );
    // Either the open or the mark write must fail; never a silent success.
    let result = Store::open(&path).and_then(|mut store| store.mark_tainted(&id, &mark(1)));
    undo_read_only(&path);
    let err = result.unwrap_err();
    assert!(
        matches!(err, StoreError::WriteFailed { .. }),
        "expected a write failure, got: {err}"
    );
    // Nothing was marked.
    let store = Store::open(&path).unwrap();
    assert!(store.marks(&id).unwrap().is_empty());
}

const WRITER_ENV: &str = "PLOY_STORE_TEST_WRITER_DB";

/// The writer half of the kill -9 test: runs only in the child process.
fn writer_main(db: &str) -> ! {
    let mut store = Store::open(db).unwrap();
    let conv = match store.list_conversations().unwrap().first() {
        Some(c) => c.id.clone(),
        None => store.create_conversation("burst").unwrap().id,
    };
    let mut out = std::io::stdout().lock();
    // Leading newline: the harness's "test NAME ... " has no line end yet.
    writeln!(out, "\nconv {conv}").unwrap();
    out.flush().unwrap();
    let mut i: u64 = 0;
    loop {
        let content = format!("burst message {i} {}", "y".repeat((i % 7) as usize * 300));
        let id = store
            .append_message(&conv, Role::Assistant, &content)
            .unwrap();
        // Printed only after the commit returned: every printed line is a
        // promise that the row is durable.
        writeln!(out, "msg {id} {i}").unwrap();
        if i.is_multiple_of(5) {
            store.mark_tainted(&conv, &mark(i)).unwrap();
            writeln!(out, "mark {i}").unwrap();
        }
        out.flush().unwrap();
        i += 1;
    }
}

// proves: TAINT-2, TAINT-3
#[test]
fn kill_9_mid_burst_loses_no_committed_write_and_no_half_mark() {
    if let Ok(db) = std::env::var(WRITER_ENV) {
        writer_main(&db);
    }
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("ploy.db");
    let mut promised_messages: Vec<(i64, u64)> = Vec::new();
    let mut promised_marks: Vec<u64> = Vec::new();
    let mut conv = String::new();
    for (round, kill_after) in [(0, 120usize), (1, 333), (2, 57)] {
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args([
                "kill_9_mid_burst_loses_no_committed_write_and_no_half_mark",
                "--exact",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(WRITER_ENV, &db)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let mut seen = 0usize;
        while seen < kill_after {
            let line = lines.next().expect("writer ended early").unwrap();
            seen += record(
                &line,
                &mut conv,
                &mut promised_messages,
                &mut promised_marks,
            );
        }
        child.kill().unwrap(); // SIGKILL, mid-burst
        // Lines already in the pipe were printed after their commit: keep them.
        for line in lines {
            let Ok(line) = line else { break };
            record(
                &line,
                &mut conv,
                &mut promised_messages,
                &mut promised_marks,
            );
        }
        child.wait().unwrap();

        let store = Store::open(&db).unwrap();
        store.integrity_check().unwrap();
        let stored = store.messages(&conv).unwrap();
        for (id, i) in &promised_messages {
            let found = stored.iter().find(|m| m.id == *id);
            let found =
                found.unwrap_or_else(|| panic!("round {round}: committed message {id} lost"));
            assert!(found.content.starts_with(&format!("burst message {i} ")));
        }
        // Every stored mark is whole (parses, with its reason and source), and
        // every promised mark is there.
        let marks = store.marks(&conv).unwrap();
        for m in &marks {
            assert!(m.reason.starts_with("web text entered"), "half mark: {m:?}");
            assert!(matches!(&m.source, TaintSource::Url(u) if u.starts_with("https://")));
        }
        for i in &promised_marks {
            assert!(
                marks.contains(&mark(*i)),
                "round {round}: committed mark {i} lost"
            );
        }
        assert!(store.conversation_rules(&conv).unwrap().is_tainted());
    }
    assert!(promised_messages.len() >= 120 + 333 + 57 - 200);
}

fn record(
    line: &str,
    conv: &mut String,
    messages: &mut Vec<(i64, u64)>,
    marks: &mut Vec<u64>,
) -> usize {
    let parts: Vec<&str> = line.split_whitespace().collect();
    match parts.as_slice() {
        ["conv", id] => {
            *conv = id.to_string();
            0
        }
        ["msg", id, i] => {
            messages.push((id.parse().unwrap(), i.parse().unwrap()));
            1
        }
        ["mark", i] => {
            marks.push(i.parse().unwrap());
            1
        }
        // Test-harness chatter ("running 1 test", ...).
        _ => 0,
    }
}

fn mode_of(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

// proves: SVC-1 (the conversation store is owner-only: ploy.db, -wal and -shm
// are created 0600 whatever the umask lets through, and loose ones are tightened)
#[test]
fn database_wal_and_shm_are_owner_only() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ploy.db");
    let sidecars = |path: &Path| {
        ["-wal", "-shm"].map(|suffix| {
            let mut name = path.as_os_str().to_owned();
            name.push(suffix);
            std::path::PathBuf::from(name)
        })
    };
    {
        let mut store = Store::open(&path).unwrap();
        let conv = store.create_conversation("modes").unwrap();
        store.mark_tainted(&conv.id, &mark(1)).unwrap();
        // While the connection is open the WAL and shared-memory files exist.
        for file in std::iter::once(path.clone()).chain(sidecars(&path)) {
            assert!(file.exists(), "{} exists", file.display());
            assert_eq!(mode_of(&file), 0o600, "{}", file.display());
        }
    }
    // Files left 0644 (an older ploy, a copy) are tightened at the next open.
    let loose = dir.path().join("loose.db");
    {
        let mut store = Store::open(&loose).unwrap();
        store.create_conversation("x").unwrap();
        for file in std::iter::once(loose.clone()).chain(sidecars(&loose)) {
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
        }
    }
    for file in sidecars(&loose) {
        // SQLite may remove the sidecars when the last connection closes;
        // leave 0644 ones in place to be tightened.
        if !file.exists() {
            std::fs::write(&file, b"").unwrap();
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
        }
    }
    std::fs::set_permissions(&loose, std::fs::Permissions::from_mode(0o644)).unwrap();
    let store = Store::open(&loose).unwrap();
    for file in std::iter::once(loose.clone()).chain(sidecars(&loose)) {
        if file.exists() {
            assert_eq!(mode_of(&file), 0o600, "{}", file.display());
        }
    }
    assert_eq!(mode_of(&loose), 0o600);
    drop(store);
    // A symlink planted at the database path is never followed.
    let target = dir.path().join("elsewhere.db");
    std::fs::write(&target, b"").unwrap();
    let link = dir.path().join("link.db");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    assert!(Store::open(&link).is_err());
}

// proves: TAINT-2 (a mark is in the database file itself once the run
// that wrote it closed the store) and issue 11's store setting: a close
// after ordinary writes only leaves the WAL in place (no checkpoint, no
// deletion), so the next run's first ordinary write appends to it instead
// of starting a new WAL, which SQLite fsyncs (header and folder) first.
#[test]
fn closing_keeps_the_wal_and_the_next_open_appends_to_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ploy.db");
    let wal = dir.path().join("ploy.db-wal");
    let id = {
        let mut store = Store::open(&path).unwrap();
        let conv = store.create_conversation("kept").unwrap();
        store
            .append_message(&conv.id, Role::User, "first run")
            .unwrap();
        conv.id
    };
    let wal_after_first = std::fs::metadata(&wal)
        .expect("the WAL is kept when the store closes")
        .len();
    assert!(wal_after_first > 0, "the kept WAL holds the run's writes");
    let db_after_first = std::fs::read(&path).unwrap();
    {
        let mut store = Store::open(&path).unwrap();
        let messages = store.messages(&id).unwrap();
        assert_eq!(messages.len(), 1);
        assert_eq!(messages[0].content, "first run");
        store.append_message(&id, Role::User, "second run").unwrap();
    }
    // Appended, not restarted: a new WAL would be rewritten from its start.
    let wal_after_second = std::fs::metadata(&wal).unwrap().len();
    assert!(
        wal_after_second > wal_after_first,
        "{wal_after_second} > {wal_after_first}"
    );
    // Nothing was checkpointed into the database file at either close.
    assert_eq!(std::fs::read(&path).unwrap(), db_after_first);
    {
        let mut store = Store::open(&path).unwrap();
        assert_eq!(store.messages(&id).unwrap().len(), 2);
        store.mark_tainted(&id, &mark(1)).unwrap();
    }
    // The run that marked checkpointed at its close: the database file
    // alone (copied without its WAL) holds the mark and every row.
    let alone = tempfile::tempdir().unwrap();
    let copy = alone.path().join("ploy.db");
    std::fs::copy(&path, &copy).unwrap();
    let store = Store::open(&copy).unwrap();
    assert_eq!(store.marks(&id).unwrap(), vec![mark(1)]);
    assert_eq!(store.messages(&id).unwrap().len(), 2);
    store.integrity_check().unwrap();
}

/// A healthy store, damaged where only the full check looks.
fn store_with_a_damaged_page_elsewhere(path: &Path) {
    drop(Store::open(path).unwrap());
    ploy_testkit::store_damage::damage_a_page_past_the_tables(path).unwrap();
}

// proves: TAINT-3, TAINT-2 (a store whose full check runs in the background
// — `ploy -p`'s, issue 11 — still fails closed: `verified` and the
// `data_version` the agent's policy reads before every decision both return
// the damage, every time; a healthy twin passes)
#[test]
fn a_background_check_still_refuses_a_damaged_store() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("damaged.db");
    store_with_a_damaged_page_elsewhere(&path);
    let mut store = Store::open_checking_in_background(&path)
        .expect("the damage is not on a page the open reads");
    store.create_conversation("written meanwhile").unwrap();
    for _ in 0..2 {
        let err = store.verified().unwrap_err();
        assert!(matches!(err, StoreError::Corrupt { .. }), "{err}");
        let err = store.data_version().unwrap_err();
        assert!(matches!(err, StoreError::Corrupt { .. }), "{err}");
    }
    assert!(
        matches!(Store::open(&path), Err(StoreError::Corrupt { .. })),
        "the ordinary open checks it at once"
    );

    let healthy = dir.path().join("healthy.db");
    drop(Store::open(&healthy).unwrap());
    let store = Store::open_checking_in_background(&healthy).unwrap();
    store.verified().unwrap();
    store.data_version().unwrap();
}
