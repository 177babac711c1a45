//! ploy-store: the conversation store (SQLite, bundled).
//!
//! Holds conversations, their messages, the conversation's own rules (the
//! `ploy_tainted` marks, TAINT-2, its allow/ask/deny rules and the sites it
//! visited, BROWSER-2), saved
//! approvals and memory entries.
//!
//! Durability rules:
//! * The database runs in WAL mode. Two kinds of write:
//!   - *durable* (taint marks, visited sites, the conversation's rules, saved
//!     and used-up approvals, the binding of another agent's session, a
//!     deletion): committed with `synchronous=FULL`, so the WAL is fsynced
//!     before the call returns. A taint mark is written in its own
//!     transaction, so [`Store::mark_tainted`] returning `Ok` means the mark is
//!     on disk (TAINT-2). Any failure returns an error, and callers must treat
//!     an error as "not marked" (TAINT-3);
//!   - *ordinary* (conversations, messages, tool calls, decisions, memory
//!     entries): committed with `synchronous=NORMAL`: atomic, and kept if
//!     ploy is killed (the WAL is in the kernel's hands), fsynced at the next
//!     durable write or checkpoint. A power loss may lose the newest of them,
//!     never a mark: the WAL is written in order, so the fsync of a durable
//!     write also makes every earlier write durable, and nothing written
//!     after a mark can outlive it. This is what keeps a tool call's store
//!     writes off the disk's sync latency (issue 11: < 1 ms per call).
//! * Marks are never removed: the schema refuses `DELETE`/`UPDATE` on them with
//!   triggers, and this API offers no way to remove one.
//! * Opening a corrupt, locked, or newer-than-known database is an error that
//!   names the file; the store never replaces it with a silent new one.
//!   [`Store::open_checking_in_background`] (the agent's start) runs the full
//!   `quick_check` alongside; [`Store::verified`] and [`Store::data_version`]
//!   then wait for it and return its failure.
//! * The schema is versioned with `PRAGMA user_version`; [`MIGRATIONS`] are
//!   applied in order, each in its own transaction.

use std::path::{Path, PathBuf};
use std::time::Duration;

use ploy_policy::{Approval, ConversationRules, Rule, Site, TaintMark};
use rusqlite::config::DbConfig;
use rusqlite::{Connection, ErrorCode, OpenFlags, OptionalExtension, TransactionBehavior, params};
use serde::{Deserialize, Serialize};

/// The most memory SQLite's page cache of one store may hold, in KiB.
pub const PAGE_CACHE_KIB: i64 = 512;

/// How long a write waits for another process holding the database lock
/// before it reports [`StoreError::Locked`].
const BUSY_TIMEOUT: Duration = Duration::from_secs(2);

/// The schema migrations, oldest first. Migration `i` moves the database from
/// `user_version = i` to `user_version = i + 1`. Never edit a shipped entry:
/// add a new one.
pub const MIGRATIONS: &[&str] = &[
    // v1: conversations, messages, taint marks.
    "CREATE TABLE conversations (
         id TEXT PRIMARY KEY NOT NULL,
         title TEXT NOT NULL,
         created_at INTEGER NOT NULL
     );
     CREATE TABLE messages (
         id INTEGER PRIMARY KEY AUTOINCREMENT,
         conversation_id TEXT NOT NULL REFERENCES conversations(id),
         role TEXT NOT NULL,
         content TEXT NOT NULL,
         created_at INTEGER NOT NULL
     );
     CREATE INDEX messages_by_conversation ON messages(conversation_id, id);
     CREATE TABLE taint_marks (
         id INTEGER PRIMARY KEY AUTOINCREMENT,
         conversation_id TEXT NOT NULL REFERENCES conversations(id),
         mark TEXT NOT NULL,
         created_at INTEGER NOT NULL,
         UNIQUE (conversation_id, mark)
     );",
    // v2: conversation rules, saved approvals, memory; marks become append-only
    // in the schema itself (TAINT-2: never removed).
    "CREATE TABLE conversation_rules (
         id INTEGER PRIMARY KEY AUTOINCREMENT,
         conversation_id TEXT NOT NULL REFERENCES conversations(id),
         rule TEXT NOT NULL
     );
     CREATE TABLE approvals (
         id INTEGER PRIMARY KEY AUTOINCREMENT,
         approval TEXT NOT NULL,
         created_at INTEGER NOT NULL
     );
     CREATE TABLE memory_entries (
         id INTEGER PRIMARY KEY AUTOINCREMENT,
         conversation_id TEXT REFERENCES conversations(id),
         text TEXT NOT NULL,
         created_at INTEGER NOT NULL
     );
     CREATE TRIGGER taint_marks_never_deleted BEFORE DELETE ON taint_marks
     BEGIN SELECT RAISE(ABORT, 'TAINT-2: taint marks are never removed'); END;
     CREATE TRIGGER taint_marks_never_changed BEFORE UPDATE ON taint_marks
     BEGIN SELECT RAISE(ABORT, 'TAINT-2: taint marks are never changed'); END;",
    // v3 (the agent): conversations and approvals belong to a project; a
    // message may carry its tool-call data; tool calls and the decisions on
    // them are kept. A mark still cannot be deleted while its conversation
    // exists: only deleting the whole conversation takes its marks with it.
    "ALTER TABLE conversations ADD COLUMN project TEXT;
     ALTER TABLE approvals ADD COLUMN project TEXT;
     ALTER TABLE messages ADD COLUMN meta TEXT;
     CREATE INDEX conversations_by_project ON conversations(project, created_at);
     CREATE INDEX approvals_by_project ON approvals(project, id);
     CREATE TABLE tool_calls (
         id INTEGER PRIMARY KEY AUTOINCREMENT,
         conversation_id TEXT NOT NULL REFERENCES conversations(id),
         call_id TEXT NOT NULL,
         name TEXT NOT NULL,
         args TEXT NOT NULL,
         created_at INTEGER NOT NULL
     );
     CREATE INDEX tool_calls_by_conversation ON tool_calls(conversation_id, id);
     CREATE TABLE decisions (
         id INTEGER PRIMARY KEY AUTOINCREMENT,
         conversation_id TEXT NOT NULL REFERENCES conversations(id),
         call_id TEXT NOT NULL,
         verdict TEXT NOT NULL,
         rule TEXT NOT NULL,
         reason TEXT NOT NULL,
         answer TEXT,
         created_at INTEGER NOT NULL
     );
     CREATE INDEX decisions_by_conversation ON decisions(conversation_id, id);
     DROP TRIGGER taint_marks_never_deleted;
     CREATE TRIGGER taint_marks_never_deleted BEFORE DELETE ON taint_marks
     WHEN EXISTS (SELECT 1 FROM conversations WHERE id = OLD.conversation_id)
     BEGIN SELECT RAISE(ABORT, 'TAINT-2: taint marks are never removed'); END;",
    // v4: another agent's sessions (a Claude Code `session_id`, a generic
    // hook's `session`), each bound for good to one ploy conversation, so its
    // marks persist across hook processes (TAINT-2). A binding is never
    // changed or removed: pointing a session at a fresh conversation would
    // drop its marks. The foreign key (no cascade) also keeps a bound
    // conversation from being deleted.
    "CREATE TABLE external_sessions (
         agent TEXT NOT NULL,
         session TEXT NOT NULL,
         conversation_id TEXT NOT NULL REFERENCES conversations(id),
         created_at INTEGER NOT NULL,
         PRIMARY KEY (agent, session)
     );
     CREATE TRIGGER external_sessions_never_deleted BEFORE DELETE ON external_sessions
     BEGIN SELECT RAISE(ABORT, 'TAINT-2: a session keeps its conversation'); END;
     CREATE TRIGGER external_sessions_never_changed BEFORE UPDATE ON external_sessions
     BEGIN SELECT RAISE(ABORT, 'TAINT-2: a session keeps its conversation'); END;",
    // v5: the sites a conversation visited (BROWSER-2, BEYOND-7): after a
    // page is read, a navigation goes only to one of them, so they are kept
    // with the conversation and `--continue` keeps them.
    "CREATE TABLE visited_sites (
         conversation_id TEXT NOT NULL REFERENCES conversations(id),
         site TEXT NOT NULL,
         created_at INTEGER NOT NULL,
         PRIMARY KEY (conversation_id, site)
     );",
];

/// The schema version this build writes.
pub fn schema_version() -> u32 {
    MIGRATIONS.len() as u32
}

/// Store failures. Every variant names the file and says what to do.
#[derive(Debug, Clone, thiserror::Error)]
pub enum StoreError {
    /// The file exists but is not a readable SQLite database.
    #[error(
        "{path}: the conversation store is corrupt or not a ploy database ({reason}); \
         ploy will not replace it: move it aside or restore a backup"
    )]
    Corrupt {
        /// The database file.
        path: PathBuf,
        /// What SQLite said.
        reason: String,
    },
    /// Another process holds the database lock.
    #[error(
        "{path}: the conversation store is locked by another process ({reason}); \
         stop the other ploy process and retry"
    )]
    Locked {
        /// The database file.
        path: PathBuf,
        /// What SQLite said.
        reason: String,
    },
    /// The database was written by a newer ploy.
    #[error(
        "{path}: the conversation store has schema version {found}, this ploy knows up to \
         {known}; upgrade ploy (the file is left untouched)"
    )]
    NewerSchema {
        /// The database file.
        path: PathBuf,
        /// Version found in the file.
        found: u32,
        /// Newest version this build knows.
        known: u32,
    },
    /// The database cannot be written (read-only file, full disk, I/O error).
    /// For a taint mark this means "not marked" (TAINT-3).
    #[error(
        "{path}: the conversation store could not be written ({reason}); \
         check the file's permissions and free disk space"
    )]
    WriteFailed {
        /// The database file.
        path: PathBuf,
        /// What SQLite said.
        reason: String,
    },
    /// No conversation with this id.
    #[error("no conversation with id {id:?}; list them with the API's GET /v1/conversations")]
    NoSuchConversation {
        /// The id asked for.
        id: String,
    },
    /// A stored value does not parse (a damaged row, or a row from a newer ploy).
    #[error("{path}: a stored {what} does not parse ({reason}); the store may be damaged")]
    BadRow {
        /// The database file.
        path: PathBuf,
        /// Which kind of value.
        what: &'static str,
        /// The parse error.
        reason: String,
    },
    /// Any other SQLite failure.
    #[error("{path}: conversation store error: {reason}")]
    Other {
        /// The database file.
        path: PathBuf,
        /// What SQLite said.
        reason: String,
    },
}

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// The person.
    User,
    /// The model.
    Assistant,
    /// System instructions.
    System,
    /// A tool's result.
    Tool,
}

impl Role {
    fn as_str(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::System => "system",
            Role::Tool => "tool",
        }
    }

    fn parse(text: &str) -> Option<Role> {
        match text {
            "user" => Some(Role::User),
            "assistant" => Some(Role::Assistant),
            "system" => Some(Role::System),
            "tool" => Some(Role::Tool),
            _ => None,
        }
    }
}

/// One conversation as listed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConversationSummary {
    /// Random id (24 hex digits).
    pub id: String,
    /// Title given at creation.
    pub title: String,
    /// Unix seconds.
    pub created_at: i64,
    /// True when at least one `ploy_tainted` mark is stored.
    pub tainted: bool,
    /// The canonical project folder it belongs to (none for conversations
    /// made outside a project, e.g. by `ploy research`).
    pub project: Option<String>,
}

/// One stored message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    /// Store-wide increasing id.
    pub id: i64,
    /// Who wrote it.
    pub role: Role,
    /// The text.
    pub content: String,
    /// Extra data of the message as JSON (the agent's tool calls of an
    /// assistant message, the call id of a tool result), if any.
    pub meta: Option<String>,
    /// Unix seconds.
    pub created_at: i64,
}

/// One tool call a model made, as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCallRecord {
    /// The model's id for the call.
    pub call_id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments as the model gave them (redacted before storing).
    pub args: String,
    /// Unix seconds.
    pub created_at: i64,
}

/// One permission decision on a tool call, as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DecisionRecord {
    /// The model's id for the call.
    pub call_id: String,
    /// `allow`, `ask` or `deny`.
    pub verdict: String,
    /// The requirement ID behind the decision.
    pub rule: String,
    /// Why.
    pub reason: String,
    /// The answer to an ask (`once`, `always`, `reject`, `refused`), if any.
    pub answer: Option<String>,
    /// Unix seconds.
    pub created_at: i64,
}

/// One memory entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemoryEntry {
    /// Store-wide id.
    pub id: i64,
    /// The conversation it came from, if any.
    pub conversation_id: Option<String>,
    /// The remembered text.
    pub text: String,
    /// Unix seconds.
    pub created_at: i64,
}

/// A saved approval with its store id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SavedApproval {
    /// Store id (for removal).
    pub id: i64,
    /// The approval.
    pub approval: Approval,
    /// The canonical project folder it applies to (none: saved before
    /// approvals were scoped; such an approval applies to no project).
    pub project: Option<String>,
    /// Unix seconds.
    pub created_at: i64,
}

/// The conversation store: one SQLite connection.
#[derive(Debug)]
pub struct Store {
    conn: Connection,
    path: PathBuf,
    /// The connection's level is `synchronous=FULL` (a durable write was
    /// the last one); ordinary writes set it back to NORMAL first. SQLite
    /// only changes the level outside a transaction.
    full_sync: bool,
    /// A durable write was made through this connection: closing it
    /// checkpoints the WAL into the database file (see [`Drop`]).
    durable_written: bool,
    /// The full check still running, for a store opened with
    /// [`Store::open_checking_in_background`].
    check: Option<PendingCheck>,
}

/// The full `quick_check` of a store opened with
/// [`Store::open_checking_in_background`], on a connection of its own.
#[derive(Debug)]
struct PendingCheck {
    thread: std::sync::Mutex<Option<std::thread::JoinHandle<Result<(), StoreError>>>>,
    /// The check's answer once known; a failure is returned again by every
    /// later call.
    outcome: std::sync::OnceLock<Result<(), StoreError>>,
}

impl PendingCheck {
    fn start(path: &Path) -> Result<PendingCheck, StoreError> {
        let file = path.to_path_buf();
        let path = path.to_path_buf();
        let thread = std::thread::Builder::new()
            .name("ploy-store-check".into())
            .spawn(move || {
                // Read-write without create: the file exists (the store's own
                // connection made it), and SQLite's WAL index needs writing.
                let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
                    | OpenFlags::SQLITE_OPEN_NO_MUTEX
                    | OpenFlags::SQLITE_OPEN_NOFOLLOW;
                let conn = Connection::open_with_flags(&path, flags)
                    .map_err(|e| classify(&path, e, false))?;
                conn.busy_timeout(BUSY_TIMEOUT)
                    .map_err(|e| classify(&path, e, false))?;
                quick_check(&conn, &path)
            })
            .map_err(|e| StoreError::Other {
                path: file,
                reason: format!("the store's check could not start: {e}"),
            })?;
        Ok(PendingCheck {
            thread: std::sync::Mutex::new(Some(thread)),
            outcome: std::sync::OnceLock::new(),
        })
    }

    /// Waits for the check (once) and returns its answer.
    fn outcome(&self, path: &Path) -> Result<(), StoreError> {
        self.outcome
            .get_or_init(|| {
                let unavailable = |reason: &str| StoreError::Other {
                    path: path.to_path_buf(),
                    reason: format!("the store's full check {reason}; nothing is trusted from it"),
                };
                let thread = match self.thread.lock() {
                    Ok(mut thread) => thread.take(),
                    Err(_) => return Err(unavailable("is unavailable (a lock was poisoned)")),
                };
                match thread {
                    Some(thread) => thread
                        .join()
                        .unwrap_or_else(|_| Err(unavailable("stopped (its thread panicked)"))),
                    None => Err(unavailable("is unavailable")),
                }
            })
            .clone()
    }
}

/// `PRAGMA quick_check` of the database as `conn` sees it: anything but
/// `ok` is [`StoreError::Corrupt`].
fn quick_check(conn: &Connection, path: &Path) -> Result<(), StoreError> {
    let check: String = conn
        .query_row("PRAGMA quick_check", [], |row| row.get(0))
        .map_err(|e| classify(path, e, false))?;
    if check != "ok" {
        return Err(StoreError::Corrupt {
            path: path.to_path_buf(),
            reason: format!("quick_check: {check}"),
        });
    }
    Ok(())
}

impl Drop for Store {
    /// The WAL is kept when the store closes (see `configure`), except
    /// after a durable write: then its frames are copied into the database
    /// file first (a passive checkpoint, fsynced), so a mark, a saved
    /// approval or a deletion lives in the file `quick_check` checks at the
    /// next open, as before, rather than only in a WAL whose damaged frame
    /// SQLite would drop silently. Best effort: a checkpoint another
    /// connection blocks leaves the frames in the (fsynced) WAL.
    fn drop(&mut self) {
        if self.durable_written {
            let _ = self.conn.execute_batch("PRAGMA wal_checkpoint(PASSIVE)");
        }
    }
}

impl Store {
    /// Open the store at `path`, creating it when the file does not exist, and
    /// bring its schema up to date. A corrupt, locked or newer database is an
    /// error; an existing file is never replaced.
    ///
    /// The database and its `-wal` and `-shm` files are owner-only (`0600`):
    /// the file is created `0600` before SQLite opens it (SQLite gives the
    /// `-wal` and `-shm` files the database's permission bits), and an
    /// existing file with group or other access is tightened first.
    pub fn open(path: impl AsRef<Path>) -> Result<Store, StoreError> {
        Store::open_with(path.as_ref(), false)
    }

    /// [`Store::open`] whose full `quick_check` runs on a thread of its
    /// own while the caller goes on (the check reads every page: ~1 ms of
    /// CPU per MB, so a store grown over months held up every `ploy -p`
    /// start by far more than the whole start-up, issue 11). A store that
    /// needs a migration is checked before it, as by [`Store::open`].
    ///
    /// Fail closed: [`Store::verified`] waits for the check and returns its
    /// failure, and [`Store::data_version`] — which the agent's policy reads
    /// before every decision (TAINT-2) — waits for it too, so no decision
    /// is made on a store whose check has not passed.
    pub fn open_checking_in_background(path: impl AsRef<Path>) -> Result<Store, StoreError> {
        Store::open_with(path.as_ref(), true)
    }

    /// Waits for the full check of a store opened with
    /// [`Store::open_checking_in_background`] (at once for one opened with
    /// [`Store::open`], checked already) and returns its answer: a damaged
    /// store is [`StoreError::Corrupt`], and stays so.
    pub fn verified(&self) -> Result<(), StoreError> {
        match &self.check {
            Some(check) => check.outcome(&self.path),
            None => Ok(()),
        }
    }

    fn open_with(path: &Path, in_background: bool) -> Result<Store, StoreError> {
        let path = path.to_path_buf();
        owner_only_files(&path)?;
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX
            | OpenFlags::SQLITE_OPEN_NOFOLLOW;
        let conn =
            Connection::open_with_flags(&path, flags).map_err(|e| classify(&path, e, false))?;
        let mut store = Store {
            conn,
            path,
            full_sync: false,
            durable_written: false,
            check: None,
        };
        store.configure()?;
        if in_background && store.file_schema_version()? >= schema_version() {
            store.check = Some(PendingCheck::start(&store.path)?);
        } else {
            quick_check(&store.conn, &store.path)?;
        }
        store.migrate()?;
        Ok(store)
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn configure(&mut self) -> Result<(), StoreError> {
        let path = self.path.clone();
        self.conn
            .busy_timeout(BUSY_TIMEOUT)
            .map_err(|e| classify(&path, e, false))?;
        // Reading the schema is the first access to the file's pages: garbage
        // fails here with "file is not a database".
        self.conn
            .query_row("SELECT count(*) FROM sqlite_master", [], |row| {
                row.get::<_, i64>(0)
            })
            .map_err(|e| classify(&path, e, false))?;
        let mode: String = self
            .conn
            .query_row("PRAGMA journal_mode=WAL", [], |row| row.get(0))
            .map_err(|e| classify(&path, e, false))?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(StoreError::WriteFailed {
                path,
                reason: format!("could not switch to WAL journaling (got {mode:?})"),
            });
        }
        // NORMAL for ordinary writes; durable ones switch to FULL (each such
        // commit fsyncs the WAL before returning, TAINT-2): see the crate docs.
        // The page cache is capped at PAGE_CACHE_KIB: SQLite's default (2 MiB)
        // filled as a long conversation grew the file, which was most of the
        // agent's memory growth over 1,000 turns (issue 11: flat within ±10%).
        // The store appends and reads the newest rows; the kernel's page cache
        // keeps the file warm.
        self.conn
            .execute_batch(&format!(
                "PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON; PRAGMA cache_size=-{PAGE_CACHE_KIB};"
            ))
            .map_err(|e| classify(&path, e, false))?;
        // The last connection to close leaves the WAL as it is instead of
        // checkpointing it into the database and deleting it. SQLite fsyncs
        // a WAL it starts afresh (its header, and the folder for a new
        // file) at the first write, so a deleted WAL cost every `ploy -p`
        // two fsyncs before its first request to the model (~25 ms wall on
        // this machine, issue 11) and a checkpoint's fsyncs at exit. A kept
        // WAL is appended to: ordinary writes stay at `synchronous=NORMAL`
        // and durable ones fsync it (FULL) as before; SQLite's automatic
        // checkpoint (1,000 pages) still bounds it. The next open reads it
        // back (and the `quick_check` after this checks the database as seen through
        // it). After a durable write the WAL is checkpointed when the store
        // closes ([`Drop`]). Copy `ploy.db-wal` with `ploy.db` when backing up.
        self.conn
            .set_db_config(DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, true)
            .map_err(|e| classify(&path, e, false))?;
        Ok(())
    }

    /// The file's schema version (`PRAGMA user_version`).
    pub fn file_schema_version(&self) -> Result<u32, StoreError> {
        self.conn
            .query_row("PRAGMA user_version", [], |row| row.get::<_, u32>(0))
            .map_err(|e| classify(&self.path, e, false))
    }

    fn migrate(&mut self) -> Result<(), StoreError> {
        let found = self.file_schema_version()?;
        let known = schema_version();
        if found > known {
            return Err(StoreError::NewerSchema {
                path: self.path.clone(),
                found,
                known,
            });
        }
        for (index, sql) in MIGRATIONS.iter().enumerate().skip(found as usize) {
            let path = self.path.clone();
            let tx = self
                .conn
                .transaction_with_behavior(TransactionBehavior::Immediate)
                .map_err(|e| classify(&path, e, true))?;
            tx.execute_batch(sql)
                .map_err(|e| classify(&path, e, true))?;
            // user_version cannot take a bound parameter; the value is our own integer.
            tx.execute_batch(&format!("PRAGMA user_version = {}", index + 1))
                .map_err(|e| classify(&path, e, true))?;
            tx.commit().map_err(|e| classify(&path, e, true))?;
        }
        Ok(())
    }

    /// Create a conversation that belongs to no project and return its summary.
    pub fn create_conversation(&mut self, title: &str) -> Result<ConversationSummary, StoreError> {
        self.create_conversation_in(title, None)
    }

    /// Create a conversation of `project` (a canonical folder) and return
    /// its summary.
    pub fn create_conversation_in(
        &mut self,
        title: &str,
        project: Option<&str>,
    ) -> Result<ConversationSummary, StoreError> {
        let path = self.path.clone();
        let tx = self.write_tx()?;
        let (id, created_at): (String, i64) = tx
            .query_row(
                "INSERT INTO conversations (id, title, created_at, project)
                 VALUES (lower(hex(randomblob(12))), ?1, unixepoch(), ?2)
                 RETURNING id, created_at",
                params![title, project],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .map_err(|e| classify(&path, e, true))?;
        tx.commit().map_err(|e| classify(&path, e, true))?;
        Ok(ConversationSummary {
            id,
            title: title.to_string(),
            created_at,
            tainted: false,
            project: project.map(str::to_string),
        })
    }

    /// The conversations of `project`, oldest first.
    pub fn conversations_in(&self, project: &str) -> Result<Vec<ConversationSummary>, StoreError> {
        self.summaries(
            "SELECT c.id, c.title, c.created_at,
                    EXISTS (SELECT 1 FROM taint_marks m WHERE m.conversation_id = c.id),
                    c.project
             FROM conversations c WHERE c.project = ?1 ORDER BY c.created_at, c.rowid",
            params![project],
        )
    }

    /// The newest conversation of `project`, if any (`--continue`).
    pub fn latest_conversation_in(
        &self,
        project: &str,
    ) -> Result<Option<ConversationSummary>, StoreError> {
        Ok(self
            .summaries(
                "SELECT c.id, c.title, c.created_at,
                        EXISTS (SELECT 1 FROM taint_marks m WHERE m.conversation_id = c.id),
                        c.project
                 FROM conversations c WHERE c.project = ?1
                 ORDER BY c.created_at DESC, c.rowid DESC LIMIT 1",
                params![project],
            )?
            .pop())
    }

    fn summaries(
        &self,
        sql: &str,
        params: impl rusqlite::Params,
    ) -> Result<Vec<ConversationSummary>, StoreError> {
        let path = &self.path;
        let mut statement = self
            .conn
            .prepare(sql)
            .map_err(|e| classify(path, e, false))?;
        let rows = statement
            .query_map(params, summary_row)
            .map_err(|e| classify(path, e, false))?;
        rows.collect::<Result<Vec<_>, _>>()
            .map_err(|e| classify(path, e, false))
    }

    /// Delete a conversation with everything stored in it (messages, marks,
    /// rules, tool calls, decisions, memory). This is the only way a mark
    /// goes away: with its whole conversation (TAINT-2). `false` when there
    /// was no such conversation.
    pub fn delete_conversation(&mut self, id: &str) -> Result<bool, StoreError> {
        let path = self.path.clone();
        let tx = self.durable_tx()?;
        // The conversation row goes first, so the marks' trigger sees it gone;
        // foreign keys are checked at commit, once every child row is gone.
        tx.execute_batch("PRAGMA defer_foreign_keys = ON")
            .map_err(|e| classify(&path, e, true))?;
        let removed = tx
            .execute("DELETE FROM conversations WHERE id = ?1", params![id])
            .map_err(|e| classify(&path, e, true))?;
        if removed == 0 {
            return Ok(false);
        }
        for table in [
            "taint_marks",
            "messages",
            "conversation_rules",
            "tool_calls",
            "decisions",
            "memory_entries",
            "visited_sites",
        ] {
            tx.execute(
                &format!("DELETE FROM {table} WHERE conversation_id = ?1"),
                params![id],
            )
            .map_err(|e| classify(&path, e, true))?;
        }
        tx.commit().map_err(|e| classify(&path, e, true))?;
        Ok(true)
    }

    /// Every conversation, oldest first.
    pub fn list_conversations(&self) -> Result<Vec<ConversationSummary>, StoreError> {
        self.summaries(
            "SELECT c.id, c.title, c.created_at,
                    EXISTS (SELECT 1 FROM taint_marks m WHERE m.conversation_id = c.id),
                    c.project
             FROM conversations c ORDER BY c.created_at, c.rowid",
            [],
        )
    }

    /// One conversation's summary.
    pub fn conversation(&self, id: &str) -> Result<ConversationSummary, StoreError> {
        self.conn
            .query_row(
                "SELECT c.id, c.title, c.created_at,
                        EXISTS (SELECT 1 FROM taint_marks m WHERE m.conversation_id = c.id),
                        c.project
                 FROM conversations c WHERE c.id = ?1",
                params![id],
                summary_row,
            )
            .optional()
            .map_err(|e| classify(&self.path, e, false))?
            .ok_or_else(|| StoreError::NoSuchConversation { id: id.to_string() })
    }

    /// Append a message; returns its id once committed (fsynced).
    pub fn append_message(
        &mut self,
        conversation_id: &str,
        role: Role,
        content: &str,
    ) -> Result<i64, StoreError> {
        self.append_message_with(conversation_id, role, content, None)
    }

    /// Append a message with its extra data (`meta`, JSON); returns its id
    /// once committed (fsynced).
    pub fn append_message_with(
        &mut self,
        conversation_id: &str,
        role: Role,
        content: &str,
        meta: Option<&str>,
    ) -> Result<i64, StoreError> {
        let path = self.path.clone();
        let tx = self.write_tx()?;
        require_conversation(&tx, &path, conversation_id)?;
        let id = insert_message(&tx, &path, conversation_id, role, content, meta)?;
        tx.commit().map_err(|e| classify(&path, e, true))?;
        Ok(id)
    }

    /// A conversation's messages, oldest first.
    pub fn messages(&self, conversation_id: &str) -> Result<Vec<Message>, StoreError> {
        self.conversation(conversation_id)?;
        self.message_rows(
            "SELECT id, role, content, created_at, meta FROM messages
             WHERE conversation_id = ?1 ORDER BY id",
            params![conversation_id],
            usize::MAX,
        )
    }

    /// The newest messages of a conversation whose contents (and extra data)
    /// add up to at most `max_bytes`, oldest first; always at least the
    /// newest one. The agent loads a long conversation's tail with this, so
    /// memory does not grow with the conversation.
    pub fn recent_messages(
        &self,
        conversation_id: &str,
        max_bytes: usize,
    ) -> Result<Vec<Message>, StoreError> {
        self.conversation(conversation_id)?;
        let mut newest_first = self.message_rows(
            "SELECT id, role, content, created_at, meta FROM messages
             WHERE conversation_id = ?1 ORDER BY id DESC",
            params![conversation_id],
            max_bytes,
        )?;
        newest_first.reverse();
        Ok(newest_first)
    }

    /// The first message of a conversation written by `role`, if any.
    pub fn first_message(
        &self,
        conversation_id: &str,
        role: Role,
    ) -> Result<Option<Message>, StoreError> {
        self.conversation(conversation_id)?;
        Ok(self
            .message_rows(
                "SELECT id, role, content, created_at, meta FROM messages
                 WHERE conversation_id = ?1 AND role = ?2 ORDER BY id LIMIT 1",
                params![conversation_id, role.as_str()],
                usize::MAX,
            )?
            .pop())
    }

    /// Rows of `sql` (id, role, content, created_at, meta) until their sizes
    /// pass `max_bytes` (the row that passes it is kept only when it is the first).
    fn message_rows(
        &self,
        sql: &str,
        params: impl rusqlite::Params,
        max_bytes: usize,
    ) -> Result<Vec<Message>, StoreError> {
        let path = &self.path;
        let mut statement = self
            .conn
            .prepare(sql)
            .map_err(|e| classify(path, e, false))?;
        let mut rows = statement
            .query(params)
            .map_err(|e| classify(path, e, false))?;
        let mut messages = Vec::new();
        let mut used = 0usize;
        while let Some(row) = rows.next().map_err(|e| classify(path, e, false))? {
            let read = || -> rusqlite::Result<(i64, String, String, i64, Option<String>)> {
                Ok((
                    row.get(0)?,
                    row.get(1)?,
                    row.get(2)?,
                    row.get(3)?,
                    row.get(4)?,
                ))
            };
            let (id, role, content, created_at, meta) =
                read().map_err(|e| classify(path, e, false))?;
            let size = content.len() + meta.as_ref().map_or(0, String::len);
            if !messages.is_empty() && used.saturating_add(size) > max_bytes {
                break;
            }
            used = used.saturating_add(size);
            let role = Role::parse(&role).ok_or_else(|| StoreError::BadRow {
                path: path.clone(),
                what: "message role",
                reason: format!("unknown role {role:?}"),
            })?;
            messages.push(Message {
                id,
                role,
                content,
                meta,
                created_at,
            });
        }
        Ok(messages)
    }

    /// Record a tool call a model made in the conversation.
    pub fn record_tool_call(
        &mut self,
        conversation_id: &str,
        call_id: &str,
        name: &str,
        args: &str,
    ) -> Result<(), StoreError> {
        let path = self.path.clone();
        let tx = self.write_tx()?;
        require_conversation(&tx, &path, conversation_id)?;
        insert_tool_call(&tx, &path, conversation_id, call_id, name, args)?;
        tx.commit().map_err(|e| classify(&path, e, true))?;
        Ok(())
    }

    /// Record the permission decision on a tool call (and the answer to an ask).
    pub fn record_decision(
        &mut self,
        conversation_id: &str,
        record: &DecisionRecord,
    ) -> Result<(), StoreError> {
        let path = self.path.clone();
        let tx = self.write_tx()?;
        require_conversation(&tx, &path, conversation_id)?;
        insert_decision(&tx, &path, conversation_id, record)?;
        tx.commit().map_err(|e| classify(&path, e, true))?;
        Ok(())
    }

    /// Record one tool exchange in a single transaction: the call, the
    /// decision on it (if it got that far) and the result message. One
    /// commit (one fsync) per call keeps the loop's overhead small.
    #[allow(clippy::too_many_arguments)]
    pub fn record_tool_exchange(
        &mut self,
        conversation_id: &str,
        call_id: &str,
        name: &str,
        args: &str,
        decision: Option<&DecisionRecord>,
        role: Role,
        content: &str,
        meta: Option<&str>,
    ) -> Result<i64, StoreError> {
        let path = self.path.clone();
        let tx = self.write_tx()?;
        require_conversation(&tx, &path, conversation_id)?;
        insert_tool_call(&tx, &path, conversation_id, call_id, name, args)?;
        if let Some(record) = decision {
            insert_decision(&tx, &path, conversation_id, record)?;
        }
        let id = insert_message(&tx, &path, conversation_id, role, content, meta)?;
        tx.commit().map_err(|e| classify(&path, e, true))?;
        Ok(id)
    }

    /// A conversation's tool calls, oldest first.
    pub fn tool_calls(&self, conversation_id: &str) -> Result<Vec<ToolCallRecord>, StoreError> {
        self.conversation(conversation_id)?;
        let path = &self.path;
        let mut statement = self
            .conn
            .prepare(
                "SELECT call_id, name, args, created_at FROM tool_calls
                 WHERE conversation_id = ?1 ORDER BY id",
            )
            .map_err(|e| classify(path, e, false))?;
        let rows = statement
            .query_map(params![conversation_id], |row| {
                Ok(ToolCallRecord {
                    call_id: row.get(0)?,
                    name: row.get(1)?,
                    args: row.get(2)?,
                    created_at: row.get(3)?,
                })
            })
            .map_err(|e| classify(path, e, false))?;
        rows.collect::<Result<Vec<_>, _>>()
            .map_err(|e| classify(path, e, false))
    }

    /// A conversation's decisions, oldest first.
    pub fn decisions(&self, conversation_id: &str) -> Result<Vec<DecisionRecord>, StoreError> {
        self.conversation(conversation_id)?;
        let path = &self.path;
        let mut statement = self
            .conn
            .prepare(
                "SELECT call_id, verdict, rule, reason, answer, created_at FROM decisions
                 WHERE conversation_id = ?1 ORDER BY id",
            )
            .map_err(|e| classify(path, e, false))?;
        let rows = statement
            .query_map(params![conversation_id], |row| {
                Ok(DecisionRecord {
                    call_id: row.get(0)?,
                    verdict: row.get(1)?,
                    rule: row.get(2)?,
                    reason: row.get(3)?,
                    answer: row.get(4)?,
                    created_at: row.get(5)?,
                })
            })
            .map_err(|e| classify(path, e, false))?;
        rows.collect::<Result<Vec<_>, _>>()
            .map_err(|e| classify(path, e, false))
    }

    /// Store a `ploy_tainted` mark on a conversation (TAINT-2). Returns `Ok`
    /// only after the mark is committed and fsynced. On `Err` the conversation
    /// must be treated as NOT marked: do not give web text to the model
    /// (TAINT-3). Storing the same mark twice is a no-op.
    pub fn mark_tainted(
        &mut self,
        conversation_id: &str,
        mark: &TaintMark,
    ) -> Result<(), StoreError> {
        let path = self.path.clone();
        let json = serde_json::to_string(mark).map_err(|e| StoreError::BadRow {
            path: path.clone(),
            what: "taint mark",
            reason: e.to_string(),
        })?;
        let tx = self.durable_tx()?;
        require_conversation(&tx, &path, conversation_id)?;
        tx.execute(
            "INSERT OR IGNORE INTO taint_marks (conversation_id, mark, created_at)
             VALUES (?1, ?2, unixepoch())",
            params![conversation_id, json],
        )
        .map_err(|e| classify(&path, e, true))?;
        tx.commit().map_err(|e| classify(&path, e, true))?;
        Ok(())
    }

    /// The conversation bound to another agent's session (`agent` names the
    /// adapter, e.g. `claude-code`), if there is one. Reads only.
    pub fn session_conversation(
        &self,
        agent: &str,
        session: &str,
    ) -> Result<Option<String>, StoreError> {
        self.conn
            .query_row(
                "SELECT conversation_id FROM external_sessions WHERE agent = ?1 AND session = ?2",
                params![agent, session],
                |row| row.get(0),
            )
            .optional()
            .map_err(|e| classify(&self.path, e, false))
    }

    /// The conversation bound to another agent's session, created and bound
    /// in one transaction when there is none (TAINT-2: the binding is never
    /// changed afterwards, so the session's marks stay with it).
    pub fn session_conversation_or_create(
        &mut self,
        agent: &str,
        session: &str,
        title: &str,
    ) -> Result<String, StoreError> {
        let path = self.path.clone();
        let tx = self.durable_tx()?;
        let existing: Option<String> = tx
            .query_row(
                "SELECT conversation_id FROM external_sessions WHERE agent = ?1 AND session = ?2",
                params![agent, session],
                |row| row.get(0),
            )
            .optional()
            .map_err(|e| classify(&path, e, true))?;
        if let Some(id) = existing {
            return Ok(id);
        }
        let id: String = tx
            .query_row(
                "INSERT INTO conversations (id, title, created_at)
                 VALUES (lower(hex(randomblob(12))), ?1, unixepoch())
                 RETURNING id",
                params![title],
                |row| row.get(0),
            )
            .map_err(|e| classify(&path, e, true))?;
        tx.execute(
            "INSERT INTO external_sessions (agent, session, conversation_id, created_at)
             VALUES (?1, ?2, ?3, unixepoch())",
            params![agent, session, id],
        )
        .map_err(|e| classify(&path, e, true))?;
        tx.commit().map_err(|e| classify(&path, e, true))?;
        Ok(id)
    }

    /// Bind another agent's session name to an existing conversation
    /// (`INSERT OR IGNORE`: a name already bound keeps its conversation,
    /// TAINT-2). The hook uses it to say "this Claude Code process served a
    /// session with this conversation", so `ploy mcp` started by the same
    /// process finds the session's marks (integrations #8).
    pub fn bind_session(
        &mut self,
        agent: &str,
        session: &str,
        conversation_id: &str,
    ) -> Result<(), StoreError> {
        let path = self.path.clone();
        let tx = self.write_tx()?;
        require_conversation(&tx, &path, conversation_id)?;
        tx.execute(
            "INSERT OR IGNORE INTO external_sessions (agent, session, conversation_id, created_at)
             VALUES (?1, ?2, ?3, unixepoch())",
            params![agent, session, conversation_id],
        )
        .map_err(|e| classify(&path, e, true))?;
        tx.commit().map_err(|e| classify(&path, e, true))?;
        Ok(())
    }

    /// The conversations bound to `agent` sessions whose names start with
    /// `prefix` (compared byte for byte, no pattern characters). Reads only.
    pub fn session_conversations_with_prefix(
        &self,
        agent: &str,
        prefix: &str,
    ) -> Result<Vec<String>, StoreError> {
        let path = &self.path;
        let mut statement = self
            .conn
            .prepare(
                "SELECT DISTINCT conversation_id FROM external_sessions
                 WHERE agent = ?1 AND substr(session, 1, length(?2)) = ?2
                 ORDER BY conversation_id",
            )
            .map_err(|e| classify(path, e, false))?;
        let rows = statement
            .query_map(params![agent, prefix], |row| row.get::<_, String>(0))
            .map_err(|e| classify(path, e, false))?;
        rows.collect::<Result<Vec<_>, _>>()
            .map_err(|e| classify(path, e, false))
    }

    /// Record that a page of `site` was read in the conversation
    /// (BROWSER-2): committed and fsynced before `Ok`. Recording the same
    /// site twice is a no-op. A failure only means later navigations to the
    /// site ask (fail closed).
    pub fn visit_site(&mut self, conversation_id: &str, site: &Site) -> Result<(), StoreError> {
        let path = self.path.clone();
        let tx = self.durable_tx()?;
        require_conversation(&tx, &path, conversation_id)?;
        tx.execute(
            "INSERT OR IGNORE INTO visited_sites (conversation_id, site, created_at)
             VALUES (?1, ?2, unixepoch())",
            params![conversation_id, site.as_str()],
        )
        .map_err(|e| classify(&path, e, true))?;
        tx.commit().map_err(|e| classify(&path, e, true))?;
        Ok(())
    }

    /// The sites the conversation visited, oldest first (as stored; the
    /// policy re-derives each when the rules are rebuilt).
    pub fn visited_sites(&self, conversation_id: &str) -> Result<Vec<String>, StoreError> {
        self.conversation(conversation_id)?;
        self.column_texts(
            "SELECT site FROM visited_sites WHERE conversation_id = ?1 ORDER BY created_at, rowid",
            conversation_id,
        )
    }

    /// The conversation's marks, oldest first.
    pub fn marks(&self, conversation_id: &str) -> Result<Vec<TaintMark>, StoreError> {
        self.conversation(conversation_id)?;
        let texts = self.column_texts(
            "SELECT mark FROM taint_marks WHERE conversation_id = ?1 ORDER BY id",
            conversation_id,
        )?;
        texts
            .iter()
            .map(|text| {
                serde_json::from_str(text).map_err(|e| StoreError::BadRow {
                    path: self.path.clone(),
                    what: "taint mark",
                    reason: e.to_string(),
                })
            })
            .collect()
    }

    /// Add one of the conversation's own allow/ask/deny rules.
    pub fn add_rule(&mut self, conversation_id: &str, rule: &Rule) -> Result<(), StoreError> {
        let path = self.path.clone();
        let json = serde_json::to_string(rule).map_err(|e| StoreError::BadRow {
            path: path.clone(),
            what: "conversation rule",
            reason: e.to_string(),
        })?;
        let tx = self.durable_tx()?;
        require_conversation(&tx, &path, conversation_id)?;
        tx.execute(
            "INSERT INTO conversation_rules (conversation_id, rule) VALUES (?1, ?2)",
            params![conversation_id, json],
        )
        .map_err(|e| classify(&path, e, true))?;
        tx.commit().map_err(|e| classify(&path, e, true))?;
        Ok(())
    }

    /// The conversation's rules: its marks and its own rule layer, rebuilt and
    /// validated through ploy-policy's own serialized form.
    pub fn conversation_rules(
        &self,
        conversation_id: &str,
    ) -> Result<ConversationRules, StoreError> {
        let marks = self.marks(conversation_id)?;
        let rule_texts = self.column_texts(
            "SELECT rule FROM conversation_rules WHERE conversation_id = ?1 ORDER BY id",
            conversation_id,
        )?;
        let mut rules = Vec::with_capacity(rule_texts.len());
        for text in &rule_texts {
            let value: serde_json::Value =
                serde_json::from_str(text).map_err(|e| StoreError::BadRow {
                    path: self.path.clone(),
                    what: "conversation rule",
                    reason: e.to_string(),
                })?;
            rules.push(value);
        }
        let visited = self.visited_sites(conversation_id)?;
        let stored = serde_json::json!({
            "ploy_tainted": marks,
            "rules": rules,
            "visited_sites": visited,
        });
        serde_json::from_value(stored).map_err(|e| StoreError::BadRow {
            path: self.path.clone(),
            what: "conversation rules",
            reason: e.to_string(),
        })
    }

    /// Save an approval that applies to no project; returns its store id.
    pub fn save_approval(&mut self, approval: &Approval) -> Result<i64, StoreError> {
        self.save_approval_in(approval, None)
    }

    /// Save an approval for `project` (a canonical folder); returns its store id.
    pub fn save_approval_in(
        &mut self,
        approval: &Approval,
        project: Option<&str>,
    ) -> Result<i64, StoreError> {
        let path = self.path.clone();
        let json = serde_json::to_string(approval).map_err(|e| StoreError::BadRow {
            path: path.clone(),
            what: "approval",
            reason: e.to_string(),
        })?;
        let tx = self.durable_tx()?;
        let id: i64 = tx
            .query_row(
                "INSERT INTO approvals (approval, created_at, project)
                 VALUES (?1, unixepoch(), ?2) RETURNING id",
                params![json, project],
                |row| row.get(0),
            )
            .map_err(|e| classify(&path, e, true))?;
        tx.commit().map_err(|e| classify(&path, e, true))?;
        Ok(id)
    }

    /// Remove a saved approval; `false` when there was none with this id.
    pub fn remove_approval(&mut self, id: i64) -> Result<bool, StoreError> {
        let path = self.path.clone();
        let tx = self.durable_tx()?;
        let removed = tx
            .execute("DELETE FROM approvals WHERE id = ?1", params![id])
            .map_err(|e| classify(&path, e, true))?;
        tx.commit().map_err(|e| classify(&path, e, true))?;
        Ok(removed > 0)
    }

    /// SQLite's `data_version` of this connection: it changes exactly when
    /// another connection (another ploy process, or another handle in this
    /// one) committed since the last call, so a long-lived holder of state
    /// read from the store knows when to read it again (TAINT-2). Waits
    /// for a pending full check first and fails with it ([`Store::verified`]).
    pub fn data_version(&self) -> Result<i64, StoreError> {
        // The agent's policy asks this before every decision: none is made
        // before the full check passed (`open_checking_in_background`).
        self.verified()?;
        self.conn
            .query_row("PRAGMA data_version", [], |row| row.get(0))
            .map_err(|e| classify(&self.path, e, false))
    }

    /// Every saved approval, oldest first.
    pub fn approvals(&self) -> Result<Vec<SavedApproval>, StoreError> {
        self.approval_rows(
            "SELECT id, approval, project, created_at FROM approvals ORDER BY id",
            [],
        )
    }

    /// The approvals saved for `project`, oldest first. Approvals of other
    /// projects, and unscoped ones, are not returned.
    pub fn approvals_in(&self, project: &str) -> Result<Vec<SavedApproval>, StoreError> {
        self.approval_rows(
            "SELECT id, approval, project, created_at FROM approvals
             WHERE project = ?1 ORDER BY id",
            params![project],
        )
    }

    fn approval_rows(
        &self,
        sql: &str,
        params: impl rusqlite::Params,
    ) -> Result<Vec<SavedApproval>, StoreError> {
        let path = &self.path;
        let mut statement = self
            .conn
            .prepare(sql)
            .map_err(|e| classify(path, e, false))?;
        let rows = statement
            .query_map(params, |row| {
                Ok((
                    row.get::<_, i64>(0)?,
                    row.get::<_, String>(1)?,
                    row.get::<_, Option<String>>(2)?,
                    row.get::<_, i64>(3)?,
                ))
            })
            .map_err(|e| classify(path, e, false))?;
        let mut saved = Vec::new();
        for row in rows {
            let (id, text, project, created_at) = row.map_err(|e| classify(path, e, false))?;
            let approval = serde_json::from_str(&text).map_err(|e| StoreError::BadRow {
                path: path.clone(),
                what: "approval",
                reason: e.to_string(),
            })?;
            saved.push(SavedApproval {
                id,
                approval,
                project,
                created_at,
            });
        }
        Ok(saved)
    }

    /// Add a memory entry; returns its id.
    pub fn add_memory(
        &mut self,
        conversation_id: Option<&str>,
        text: &str,
    ) -> Result<i64, StoreError> {
        let path = self.path.clone();
        let tx = self.write_tx()?;
        if let Some(id) = conversation_id {
            require_conversation(&tx, &path, id)?;
        }
        let id: i64 = tx
            .query_row(
                "INSERT INTO memory_entries (conversation_id, text, created_at)
                 VALUES (?1, ?2, unixepoch()) RETURNING id",
                params![conversation_id, text],
                |row| row.get(0),
            )
            .map_err(|e| classify(&path, e, true))?;
        tx.commit().map_err(|e| classify(&path, e, true))?;
        Ok(id)
    }

    /// Every memory entry, oldest first.
    pub fn memory_entries(&self) -> Result<Vec<MemoryEntry>, StoreError> {
        let path = &self.path;
        let mut statement = self
            .conn
            .prepare("SELECT id, conversation_id, text, created_at FROM memory_entries ORDER BY id")
            .map_err(|e| classify(path, e, false))?;
        let rows = statement
            .query_map([], memory_row)
            .map_err(|e| classify(path, e, false))?;
        rows.collect::<Result<Vec<_>, _>>()
            .map_err(|e| classify(path, e, false))
    }

    /// The memory entries of `project`'s conversations whose text contains
    /// `query` (case-insensitive for ASCII), newest first, at most `limit`.
    /// Each entry names its conversation: a caller giving another
    /// conversation's entry to a model must carry that conversation's marks
    /// first (BEYOND-5).
    pub fn search_memory(
        &self,
        project: &str,
        query: &str,
        limit: usize,
    ) -> Result<Vec<MemoryEntry>, StoreError> {
        let path = &self.path;
        let escaped = query
            .replace('\\', "\\\\")
            .replace('%', "\\%")
            .replace('_', "\\_");
        let mut statement = self
            .conn
            .prepare(
                "SELECT m.id, m.conversation_id, m.text, m.created_at
                 FROM memory_entries m JOIN conversations c ON c.id = m.conversation_id
                 WHERE c.project = ?1 AND m.text LIKE ?2 ESCAPE '\\'
                 ORDER BY m.id DESC LIMIT ?3",
            )
            .map_err(|e| classify(path, e, false))?;
        let rows = statement
            .query_map(
                params![project, format!("%{escaped}%"), limit as i64],
                memory_row,
            )
            .map_err(|e| classify(path, e, false))?;
        rows.collect::<Result<Vec<_>, _>>()
            .map_err(|e| classify(path, e, false))
    }

    /// The memory entries of one conversation, oldest first.
    pub fn memory_of(&self, conversation_id: &str) -> Result<Vec<MemoryEntry>, StoreError> {
        Ok(self
            .memory_entries()?
            .into_iter()
            .filter(|e| e.conversation_id.as_deref() == Some(conversation_id))
            .collect())
    }

    /// SQLite's full `integrity_check`; `Ok(())` when the file is sound.
    pub fn integrity_check(&self) -> Result<(), StoreError> {
        let result: String = self
            .conn
            .query_row("PRAGMA integrity_check", [], |row| row.get(0))
            .map_err(|e| classify(&self.path, e, false))?;
        if result == "ok" {
            Ok(())
        } else {
            Err(StoreError::Corrupt {
                path: self.path.clone(),
                reason: result,
            })
        }
    }

    /// An ordinary write (see the crate docs): committed with
    /// `synchronous=NORMAL`.
    fn write_tx(&mut self) -> Result<rusqlite::Transaction<'_>, StoreError> {
        self.sync_level(false)?;
        self.begin()
    }

    /// A durable write: committed with `synchronous=FULL`, so `commit`
    /// returns only after the WAL (with every earlier write) is fsynced.
    fn durable_tx(&mut self) -> Result<rusqlite::Transaction<'_>, StoreError> {
        self.sync_level(true)?;
        self.durable_written = true;
        self.begin()
    }

    fn sync_level(&mut self, full: bool) -> Result<(), StoreError> {
        if self.full_sync != full {
            let pragma = if full {
                "PRAGMA synchronous=FULL"
            } else {
                "PRAGMA synchronous=NORMAL"
            };
            self.conn
                .execute_batch(pragma)
                .map_err(|e| classify(&self.path, e, true))?;
            self.full_sync = full;
        }
        Ok(())
    }

    fn begin(&mut self) -> Result<rusqlite::Transaction<'_>, StoreError> {
        let path = self.path.clone();
        // IMMEDIATE takes the write lock up front, so a locked or read-only
        // database fails here rather than halfway through.
        self.conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| classify(&path, e, true))
    }

    fn column_texts(&self, sql: &str, conversation_id: &str) -> Result<Vec<String>, StoreError> {
        let path = &self.path;
        let mut statement = self
            .conn
            .prepare(sql)
            .map_err(|e| classify(path, e, false))?;
        let rows = statement
            .query_map(params![conversation_id], |row| row.get::<_, String>(0))
            .map_err(|e| classify(path, e, false))?;
        rows.collect::<Result<Vec<_>, _>>()
            .map_err(|e| classify(path, e, false))
    }

    #[cfg(test)]
    fn raw(&self) -> &Connection {
        &self.conn
    }
}

fn summary_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<ConversationSummary> {
    Ok(ConversationSummary {
        id: row.get(0)?,
        title: row.get(1)?,
        created_at: row.get(2)?,
        tainted: row.get(3)?,
        project: row.get(4)?,
    })
}

/// Creates the database file `0600` when missing and tightens the database,
/// `-wal` and `-shm` files to owner-only when they grant group or other
/// access. A symlink is never followed (SQLite is opened with NOFOLLOW too).
/// The mode is read and changed on the open descriptor, so the file checked
/// is the file changed.
fn owner_only_files(path: &Path) -> Result<(), StoreError> {
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    let fail = |reason: String| StoreError::WriteFailed {
        path: path.to_path_buf(),
        reason,
    };
    let mut names = vec![path.to_path_buf()];
    for suffix in ["-wal", "-shm"] {
        let mut name = path.as_os_str().to_owned();
        name.push(suffix);
        names.push(PathBuf::from(name));
    }
    for (index, name) in names.iter().enumerate() {
        // Read-only is enough to change the mode (fchmod needs ownership,
        // not write access), so a read-only database still opens here and
        // fails later where the store reports it (TAINT-3).
        let existing = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOFOLLOW)
            .open(name);
        let file = match existing {
            Ok(file) => file,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound && index > 0 => continue,
            // Only the database itself is created here; SQLite makes the others.
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .custom_flags(libc::O_NOFOLLOW)
                .open(name)
                .map_err(|err| fail(format!("cannot create {} ({err})", name.display())))?,
            Err(err) => {
                return Err(fail(format!(
                    "cannot open {} to make it owner-only ({err})",
                    name.display()
                )));
            }
        };
        let meta = file
            .metadata()
            .map_err(|err| fail(format!("cannot examine {} ({err})", name.display())))?;
        let mode = meta.permissions().mode() & 0o7777;
        if mode & 0o077 != 0 {
            file.set_permissions(std::fs::Permissions::from_mode(mode & 0o700))
                .map_err(|err| {
                    fail(format!(
                        "{} has mode {mode:o} (group or other access) and cannot be tightened ({err}); run `chmod 600` on it",
                        name.display()
                    ))
                })?;
        }
    }
    Ok(())
}

/// Insert one message inside an open write transaction; returns its id.
/// The one place a message row is written, so every path stores the same
/// columns.
fn insert_message(
    tx: &rusqlite::Transaction<'_>,
    path: &Path,
    conversation_id: &str,
    role: Role,
    content: &str,
    meta: Option<&str>,
) -> Result<i64, StoreError> {
    tx.query_row(
        "INSERT INTO messages (conversation_id, role, content, created_at, meta)
         VALUES (?1, ?2, ?3, unixepoch(), ?4) RETURNING id",
        params![conversation_id, role.as_str(), content, meta],
        |row| row.get(0),
    )
    .map_err(|e| classify(path, e, true))
}

/// One tool-call row, in the caller's transaction.
fn insert_tool_call(
    tx: &rusqlite::Transaction<'_>,
    path: &Path,
    conversation_id: &str,
    call_id: &str,
    name: &str,
    args: &str,
) -> Result<(), StoreError> {
    tx.execute(
        "INSERT INTO tool_calls (conversation_id, call_id, name, args, created_at)
         VALUES (?1, ?2, ?3, ?4, unixepoch())",
        params![conversation_id, call_id, name, args],
    )
    .map(drop)
    .map_err(|e| classify(path, e, true))
}

/// One decision row, in the caller's transaction.
fn insert_decision(
    tx: &rusqlite::Transaction<'_>,
    path: &Path,
    conversation_id: &str,
    record: &DecisionRecord,
) -> Result<(), StoreError> {
    tx.execute(
        "INSERT INTO decisions (conversation_id, call_id, verdict, rule, reason, answer, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, unixepoch())",
        params![
            conversation_id,
            record.call_id,
            record.verdict,
            record.rule,
            record.reason,
            record.answer
        ],
    )
    .map(drop)
    .map_err(|e| classify(path, e, true))
}

fn require_conversation(
    tx: &rusqlite::Transaction<'_>,
    path: &Path,
    conversation_id: &str,
) -> Result<(), StoreError> {
    let exists: bool = tx
        .query_row(
            "SELECT EXISTS (SELECT 1 FROM conversations WHERE id = ?1)",
            params![conversation_id],
            |row| row.get(0),
        )
        .map_err(|e| classify(path, e, true))?;
    if exists {
        Ok(())
    } else {
        Err(StoreError::NoSuchConversation {
            id: conversation_id.to_string(),
        })
    }
}

/// Map a SQLite error to a [`StoreError`] that says what to do.
fn classify(path: &Path, error: rusqlite::Error, writing: bool) -> StoreError {
    let path = path.to_path_buf();
    let reason = error.to_string();
    match error.sqlite_error_code() {
        Some(ErrorCode::NotADatabase | ErrorCode::DatabaseCorrupt) => {
            StoreError::Corrupt { path, reason }
        }
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => {
            StoreError::Locked { path, reason }
        }
        Some(
            ErrorCode::ReadOnly
            | ErrorCode::DiskFull
            | ErrorCode::SystemIoFailure
            | ErrorCode::CannotOpen
            | ErrorCode::PermissionDenied,
        ) => StoreError::WriteFailed { path, reason },
        _ if writing => StoreError::WriteFailed { path, reason },
        _ => StoreError::Other { path, reason },
    }
}

/// One memory entry row (`id, conversation_id, text, created_at`).
fn memory_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<MemoryEntry> {
    Ok(MemoryEntry {
        id: row.get(0)?,
        conversation_id: row.get(1)?,
        text: row.get(2)?,
        created_at: row.get(3)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ploy_policy::TaintSource;

    fn mark(n: u32) -> TaintMark {
        TaintMark {
            reason: format!("web text entered (page {n})"),
            source: TaintSource::Url(format!("https://example.invalid/{n}")),
        }
    }

    // proves: TAINT-3
    #[test]
    fn full_disk_mark_write_is_an_error_and_leaves_no_mark() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ploy.db");
        let mut store = Store::open(&path).unwrap();
        let conv = store.create_conversation("c").unwrap();
        // Cap the file at its current size: the next page allocation fails
        // with SQLITE_FULL, as on a full disk.
        let pages: i64 = store
            .raw()
            .query_row("PRAGMA page_count", [], |r| r.get(0))
            .unwrap();
        store
            .raw()
            .execute_batch(&format!("PRAGMA max_page_count = {pages}"))
            .unwrap();
        let big = TaintMark {
            reason: "x".repeat(64 * 1024),
            source: TaintSource::Tool("browser_read".into()),
        };
        let err = store.mark_tainted(&conv.id, &big).unwrap_err();
        assert!(matches!(err, StoreError::WriteFailed { .. }), "{err}");
        assert!(err.to_string().contains("disk"), "{err}");
        drop(store);
        let store = Store::open(&path).unwrap();
        assert!(store.marks(&conv.id).unwrap().is_empty());
        assert!(!store.conversation(&conv.id).unwrap().tainted);
    }

    // proves: TAINT-2 (a second name for a session's conversation: bound
    // once, never re-pointed; found by prefix, with no pattern characters)
    #[test]
    fn a_bound_name_keeps_its_conversation_and_prefixes_are_literal() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(dir.path().join("ploy.db")).unwrap();
        let a = store
            .session_conversation_or_create("claude-code", "s-a", "a")
            .unwrap();
        let b = store
            .session_conversation_or_create("claude-code", "s-b", "b")
            .unwrap();
        store.bind_session("host", "boot:12:99:s-a", &a).unwrap();
        store.bind_session("host", "boot:12:99:s-b", &b).unwrap();
        // Re-binding the same name to another conversation changes nothing.
        store.bind_session("host", "boot:12:99:s-a", &b).unwrap();
        assert_eq!(
            store
                .session_conversation("host", "boot:12:99:s-a")
                .unwrap(),
            Some(a.clone())
        );
        let mut both = vec![a.clone(), b.clone()];
        both.sort();
        assert_eq!(
            store
                .session_conversations_with_prefix("host", "boot:12:99:")
                .unwrap(),
            both
        );
        // `%` and `_` are not patterns; another pid is another prefix.
        for other in ["boot:12:9", "boot:1_:99:", "boot:%", "boot:12:990:"] {
            let found = store
                .session_conversations_with_prefix("host", other)
                .unwrap();
            assert!(
                other == "boot:12:9" || found.is_empty(),
                "{other}: {found:?}"
            );
        }
        assert!(
            store
                .bind_session("host", "x", "no-such-conversation")
                .is_err()
        );
    }

    // proves: TAINT-2
    #[test]
    fn schema_refuses_to_delete_or_change_a_mark() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(dir.path().join("ploy.db")).unwrap();
        let conv = store.create_conversation("c").unwrap();
        store.mark_tainted(&conv.id, &mark(1)).unwrap();
        let delete = store.raw().execute("DELETE FROM taint_marks", []);
        assert!(delete.unwrap_err().to_string().contains("TAINT-2"));
        let update = store
            .raw()
            .execute("UPDATE taint_marks SET mark = '{}'", []);
        assert!(update.unwrap_err().to_string().contains("TAINT-2"));
        assert_eq!(store.marks(&conv.id).unwrap(), vec![mark(1)]);
    }

    /// SQLite's page cache of the connection, in bytes.
    fn cache_used(store: &Store) -> i64 {
        let (mut current, mut highest) = (0, 0);
        // SAFETY: the handle is the live connection of `store`, used on
        // this thread only; the call only reads counters.
        let rc = unsafe {
            rusqlite::ffi::sqlite3_db_status(
                store.raw().handle(),
                rusqlite::ffi::SQLITE_DBSTATUS_CACHE_USED,
                &mut current,
                &mut highest,
                0,
            )
        };
        assert_eq!(rc, 0);
        i64::from(current)
    }

    // proves: issue 11 (memory flat over a long conversation): the page
    // cache stays under its cap however large the file grows
    #[test]
    fn the_page_cache_is_capped_as_the_file_grows() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(dir.path().join("ploy.db")).unwrap();
        let conv = store.create_conversation("c").unwrap();
        let text = "x".repeat(4096);
        for _ in 0..1500 {
            store.append_message(&conv.id, Role::Tool, &text).unwrap();
        }
        assert_eq!(store.messages(&conv.id).unwrap().len(), 1500);
        let used = cache_used(&store);
        // The cap plus SQLite's per-page bookkeeping.
        assert!(used <= PAGE_CACHE_KIB * 1024 * 5 / 4, "{used} bytes");
    }

    static TRACED: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());

    fn trace(event: rusqlite::trace::TraceEvent<'_>) {
        if let rusqlite::trace::TraceEvent::Stmt(_, sql) = event {
            TRACED.lock().unwrap().push(sql.to_string());
        }
    }

    /// The `synchronous` level in force at each COMMIT `write` makes.
    fn levels_at_commits(store: &mut Store, write: impl FnOnce(&mut Store)) -> Vec<i64> {
        let mut level: i64 = store
            .raw()
            .query_row("PRAGMA synchronous", [], |r| r.get(0))
            .unwrap();
        TRACED.lock().unwrap().clear();
        store.raw().trace_v2(
            rusqlite::trace::TraceEventCodes::SQLITE_TRACE_STMT,
            Some(trace),
        );
        write(store);
        store
            .raw()
            .trace_v2(rusqlite::trace::TraceEventCodes::empty(), None);
        let mut levels = Vec::new();
        for sql in TRACED.lock().unwrap().iter() {
            match sql.as_str() {
                "PRAGMA synchronous=FULL" => level = 2,
                "PRAGMA synchronous=NORMAL" => level = 1,
                "COMMIT" => levels.push(level),
                other => assert!(!other.contains("synchronous="), "{other}"),
            }
        }
        levels
    }

    // proves: TAINT-2 (a mark, a visited site, an approval used up: fsynced
    // before the call returns), TAINT-3 (the mark's write is durable before
    // Ok; ordinary writes are not, and cannot outlive it: WAL order)
    #[test]
    fn durable_writes_commit_with_full_sync_and_ordinary_ones_with_normal() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(dir.path().join("ploy.db")).unwrap();
        let mode: String = store
            .raw()
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .unwrap();
        assert_eq!(mode, "wal");
        let conv = store.create_conversation("c").unwrap();
        let id = conv.id.clone();
        // Ordinary: messages and tool exchanges, NORMAL (1).
        let levels = levels_at_commits(&mut store, |s| {
            s.append_message(&id, Role::User, "hi").unwrap();
            s.record_tool_exchange(&id, "c1", "read", "{}", None, Role::Tool, "x", None)
                .unwrap();
        });
        assert_eq!(levels, vec![1, 1]);
        // Durable: the mark, FULL (2), then back to NORMAL for the next message.
        let levels = levels_at_commits(&mut store, |s| {
            s.mark_tainted(&id, &mark(1)).unwrap();
            s.append_message(&id, Role::Tool, "page text").unwrap();
        });
        assert_eq!(levels, vec![2, 1]);
        let site = ploy_policy::site_of("https://example.org/").unwrap();
        let levels = levels_at_commits(&mut store, |s| {
            s.visit_site(&id, &site).unwrap();
            let grant = ploy_policy::Approval {
                scope: ploy_policy::ApprovalScope::Always,
                grant: ploy_policy::Grant::Pattern {
                    kind: ploy_policy::ActionKind::Shell,
                    pattern: "ls".into(),
                },
            };
            let approval = s.save_approval(&grant).unwrap();
            s.remove_approval(approval).unwrap();
            let rule = Rule::new(
                ploy_policy::ActionKind::Shell,
                ploy_policy::Effect::Deny,
                "rm *",
            );
            s.add_rule(&id, &rule).unwrap();
        });
        assert_eq!(levels, vec![2, 2, 2, 2]);
        assert!(store.raw().is_autocommit(), "no transaction left open");
    }
}
