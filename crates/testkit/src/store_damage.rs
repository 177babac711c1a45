//! Damaged conversation stores, made the one way: ploy-store's tests and
//! the agent's start-up tests (issue 11: the store's full check runs in
//! the background) need a store whose damage the open does not see but
//! `quick_check` does (TAINT-3: it must still fail closed).

use std::path::Path;

/// The page size of ploy's stores (SQLite's default).
pub const PAGE: usize = 4096;

/// Fills a new table of the SQLite database at `path` (a store already
/// made, closed) past its own tables, moves everything into the database
/// file (`wal_checkpoint(TRUNCATE)`), then overwrites one page in the
/// middle of the filler: opening the file, reading the schema and writing
/// conversations never touch that page, while `quick_check` reports it.
pub fn damage_a_page_past_the_tables(path: &Path) -> Result<(), String> {
    let conn = rusqlite::Connection::open(path).map_err(|e| e.to_string())?;
    let page_count = |conn: &rusqlite::Connection| -> Result<usize, String> {
        conn.query_row("PRAGMA page_count", [], |r| r.get(0))
            .map_err(|e| e.to_string())
    };
    let before = page_count(&conn)?;
    conn.execute_batch(
        "CREATE TABLE filler (x TEXT);
         WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 300)
         INSERT INTO filler SELECT hex(randomblob(500)) FROM c;
         PRAGMA wal_checkpoint(TRUNCATE);",
    )
    .map_err(|e| e.to_string())?;
    let middle = before + (page_count(&conn)? - before) / 2;
    drop(conn);
    overwrite_pages(path, middle - 1, 1)
}

/// Overwrites `count` pages of the file at `path` from page `first`
/// (0-based) with `0xA5` bytes: damage SQLite's checks find.
pub fn overwrite_pages(path: &Path, first: usize, count: usize) -> Result<(), String> {
    let mut bytes = std::fs::read(path).map_err(|e| e.to_string())?;
    let (start, end) = (PAGE * first, PAGE * (first + count));
    if bytes.len() < end {
        return Err(format!(
            "{} has {} bytes, fewer than the {end} to overwrite",
            path.display(),
            bytes.len()
        ));
    }
    bytes[start..end].fill(0xA5);
    std::fs::write(path, &bytes).map_err(|e| e.to_string())
}
