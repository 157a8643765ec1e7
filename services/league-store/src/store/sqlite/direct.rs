//! SQLite reads of the global log through SQLite's own row interface (rusqlite), for a store
//! in a file.
//!
//! sqlx's SQLite driver copies every value of every row into an allocation of its own on
//! its worker thread and hands each row across a channel: that was most of the cost of a
//! bulk read. The store then had SQLite pack a page into a few values (`concat` and
//! `group_concat`), at the price of SQLite turning integers into text and concatenating,
//! about three quarters of the cost. Here the rows are read where they lie, on
//! the same bundled SQLite library sqlx links (`libsqlite3-sys`), by connections of our own:
//! read-only (`PRAGMA query_only`), each used by one blocking task at a time. sqlx still
//! does everything else: migrations, appends, every other query.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use rusqlite::types::ValueRef;
use rusqlite::{Connection, OpenFlags, Row};
use sqlx::sqlite::SqliteConnectOptions;

use crate::error::StoreError;
use crate::store::{
    EVENT_COLUMNS, LogEntry, StreamIds, schema_version, to_event_id, to_hash, to_i64, to_u64,
};
use crate::types::{RecordedEvent, Timestamp};

/// Idle connections kept for the next read.
const IDLE_MAX: usize = 4;

/// Reads of one SQLite file's log; cheap to share.
pub(crate) struct DirectReader {
    path: PathBuf,
    idle: Mutex<Vec<Connection>>,
    /// Set by [`Store::close`](crate::Store::close), with sqlx's pool.
    closed: AtomicBool,
}

impl DirectReader {
    /// A reader for the file `options` name, or `None` for an in-memory database or a URI
    /// filename (sqlx's own connections read those).
    pub(crate) fn for_options(options: &SqliteConnectOptions) -> Option<Arc<Self>> {
        let path = options.get_filename();
        let name = path.to_str()?;
        if name.is_empty() || name.starts_with(':') || name.starts_with("file:") {
            return None;
        }
        Some(Arc::new(Self {
            path: path.to_path_buf(),
            idle: Mutex::new(Vec::new()),
            closed: AtomicBool::new(false),
        }))
    }

    /// Closes the idle connections; later reads fail as reads from sqlx's closed pool do.
    pub(crate) fn close(&self) {
        self.closed.store(true, Ordering::SeqCst);
        if let Ok(mut idle) = self.idle.lock() {
            idle.clear();
        }
    }

    /// Up to `limit` events with position `>= from`, in global order.
    pub(crate) async fn read_events(
        self: &Arc<Self>,
        from: u64,
        limit: usize,
    ) -> Result<Vec<RecordedEvent>, StoreError> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        self.blocking(move |conn| first(conn, from, limit)).await
    }

    /// [`Self::read_events`] reduced to what a projection folds: a rebuild folds on the
    /// other core meanwhile. The page's payloads share one buffer.
    pub(crate) async fn read_log(
        self: &Arc<Self>,
        from: u64,
        limit: usize,
    ) -> Result<Vec<LogEntry>, StoreError> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        self.blocking(move |conn| log(conn, from, limit)).await
    }

    /// Runs `read` on an idle connection (or a new one) on tokio's blocking threads.
    async fn blocking<T: Send + 'static>(
        self: &Arc<Self>,
        read: impl FnOnce(&Connection) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, StoreError> {
        if self.closed.load(Ordering::SeqCst) {
            return Err(sqlx::Error::PoolClosed.into());
        }
        let this = Arc::clone(self);
        tokio::task::spawn_blocking(move || {
            let conn = match this.idle.lock().ok().and_then(|mut idle| idle.pop()) {
                Some(conn) => conn,
                None => open(&this.path)?,
            };
            let result = read(&conn);
            // A connection whose read failed is closed rather than reused, and so is every
            // connection once the store is closed.
            if result.is_ok()
                && !this.closed.load(Ordering::SeqCst)
                && let Ok(mut idle) = this.idle.lock()
                && idle.len() < IDLE_MAX
            {
                idle.push(conn);
            }
            result
        })
        .await
        .map_err(|e| StoreError::Corrupt(format!("read task: {e}")))?
    }
}

/// A read-only connection to the store's file (which sqlx has created and migrated).
fn open(path: &std::path::Path) -> Result<Connection, StoreError> {
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    // Writers hold the file only briefly in WAL mode; wait as sqlx's connections do.
    conn.busy_timeout(std::time::Duration::from_secs(30))?;
    conn.pragma_update(None, "query_only", true)?;
    Ok(conn)
}

/// The first `limit` events from `from` on.
fn first(conn: &Connection, from: u64, limit: usize) -> Result<Vec<RecordedEvent>, StoreError> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {EVENT_COLUMNS} FROM events WHERE position >= ?1 ORDER BY position LIMIT ?2"
    ))?;
    collect(
        stmt.query((to_i64(from), i64::try_from(limit).unwrap_or(i64::MAX)))?,
        limit,
    )
}

/// The first `limit` log entries from `from` on.
fn log(conn: &Connection, from: u64, limit: usize) -> Result<Vec<LogEntry>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT position, stream_id, stream_version, event_type, schema_version, payload \
         FROM events WHERE position >= ?1 ORDER BY position LIMIT ?2",
    )?;
    let mut rows = stmt.query((to_i64(from), i64::try_from(limit).unwrap_or(i64::MAX)))?;
    let mut streams = StreamIds::default();
    let mut types = StreamIds::default();
    let mut payloads = Vec::new();
    let mut entries = Vec::with_capacity(limit.min(16_384));
    while let Some(row) = rows.next()? {
        let stream = std::str::from_utf8(bytes(row, 1, "stream_id")?)
            .map_err(|_| StoreError::Corrupt("stream_id is not valid UTF-8".into()))?;
        let event_type = std::str::from_utf8(bytes(row, 3, "event_type")?)
            .map_err(|_| StoreError::Corrupt("event_type is not valid UTF-8".into()))?;
        let start = payloads.len();
        payloads.extend_from_slice(bytes(row, 5, "payload")?);
        entries.push((
            to_u64("position", int(row, 0, "position")?)?,
            streams.get(stream),
            to_u64("stream version", int(row, 2, "stream_version")?)?,
            types.get(event_type),
            schema_version(int(row, 4, "schema_version")?)?,
            start..payloads.len(),
        ));
    }
    let payloads = Bytes::from(payloads);
    Ok(entries
        .into_iter()
        .map(
            |(position, stream_id, stream_version, event_type, schema_version, range)| LogEntry {
                position,
                stream_id,
                stream_version,
                event_type,
                schema_version,
                payload: payloads.slice(range),
            },
        )
        .collect())
}

fn collect(mut rows: rusqlite::Rows<'_>, limit: usize) -> Result<Vec<RecordedEvent>, StoreError> {
    let mut events = Vec::with_capacity(limit.min(16_384));
    while let Some(row) = rows.next()? {
        events.push(event(row)?);
    }
    Ok(events)
}

/// One row of [`EVENT_COLUMNS`], checked as sqlx's row decoding checks it.
fn event(row: &Row<'_>) -> Result<RecordedEvent, StoreError> {
    Ok(RecordedEvent {
        position: to_u64("position", int(row, 0, "position")?)?,
        stream_id: text(row, 1, "stream_id")?,
        stream_version: to_u64("stream version", int(row, 2, "stream_version")?)?,
        event_type: text(row, 3, "event_type")?,
        schema_version: schema_version(int(row, 4, "schema_version")?)?,
        payload: bytes(row, 5, "payload")?.to_vec(),
        actor: opt_text(row, 6, "actor")?,
        correlation_id: opt_text(row, 7, "correlation_id")?,
        causation_id: opt_text(row, 8, "causation_id")?,
        idempotency_key: opt_text(row, 9, "idempotency_key")?,
        recorded_at: Timestamp::from_micros(int(row, 10, "recorded_at")?),
        prev_hash: to_hash("prev_hash", bytes(row, 11, "prev_hash")?)?,
        hash: to_hash("hash", bytes(row, 12, "hash")?)?,
        stored_id: match row.get_ref(13)? {
            ValueRef::Null => None,
            _ => Some(to_event_id(bytes(row, 13, "event_id")?)?),
        },
    })
}

fn int(row: &Row<'_>, i: usize, what: &str) -> Result<i64, StoreError> {
    match row.get_ref(i)? {
        ValueRef::Integer(v) => Ok(v),
        other => Err(wrong_type(what, other)),
    }
}

/// A column's bytes, text or blob (as the earlier packed reads accepted either).
fn bytes<'r>(row: &'r Row<'_>, i: usize, what: &str) -> Result<&'r [u8], StoreError> {
    match row.get_ref(i)? {
        ValueRef::Text(b) | ValueRef::Blob(b) => Ok(b),
        other => Err(wrong_type(what, other)),
    }
}

fn text(row: &Row<'_>, i: usize, what: &str) -> Result<String, StoreError> {
    let b = bytes(row, i, what)?;
    String::from_utf8(b.to_vec())
        .map_err(|_| StoreError::Corrupt(format!("{what} is not valid UTF-8")))
}

fn opt_text(row: &Row<'_>, i: usize, what: &str) -> Result<Option<String>, StoreError> {
    if matches!(row.get_ref(i)?, ValueRef::Null) {
        return Ok(None);
    }
    text(row, i, what).map(Some)
}

fn wrong_type(what: &str, value: ValueRef<'_>) -> StoreError {
    StoreError::Corrupt(format!("{what} is {:?}", value.data_type()))
}
