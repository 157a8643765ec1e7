//! The store: connecting, appending and reading, on either backend.

use std::borrow::Cow;
use std::collections::HashMap;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use futures_util::TryStreamExt as _;
use sqlx::migrate::{Migration, MigrationType, Migrator};
use sqlx::postgres::{PgConnectOptions, PgListener, PgPool, PgPoolOptions, PgRow};
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteRow,
    SqliteSynchronous,
};
use sqlx::{AssertSqlSafe, ColumnIndex, Decode, Row, Type};
use tokio::sync::{Mutex, watch};
use tokio::task::JoinHandle;

use crate::error::StoreError;
use crate::hash::{EventFields, ZERO_HASH, append_fingerprint, event_hash};
use crate::pg_copy;
use crate::subscribe::Subscription;
use crate::types::{
    Appended, Clock, ExpectedVersion, Hash, MAX_BATCH_EVENTS, MAX_PAYLOAD_BYTES, NewEvent,
    RecordedEvent, SystemClock, Timestamp, check_name,
};

/// The channel on which the sealer announces a new sealed head to other processes.
pub const NOTIFY_CHANNEL: &str = "league_log";
/// Bits of a PostgreSQL position that hold the event's index within its transaction.
pub(crate) const PG_INDEX_BITS: u32 = 16;
/// How many times an `ExpectedVersion::Any` append retries after losing a race (with a
/// jittered back-off, so that the last winner, which knows the new head, cannot starve the
/// others).
const ANY_RETRIES: u32 = 1_000;
/// Streams whose heads a PostgreSQL store remembers; the cache is emptied when it is full.
const HEAD_CACHE_STREAMS: usize = 10_000;

/// Which database a store runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// SQLite: one file, one writer at a time.
    Sqlite,
    /// PostgreSQL: many concurrent writers and instances.
    Postgres,
}

/// How to open a store.
#[derive(Clone)]
pub struct StoreOptions {
    /// Supplies `recorded_at` when an event's metadata does not.
    pub clock: Arc<dyn Clock>,
    /// Maximum pooled connections.
    pub max_connections: u32,
    /// How often a waiting subscriber re-reads the log even without a wake-up.
    pub poll_interval: Duration,
    /// PostgreSQL only: the schema to use (tests give each its own).
    pub pg_schema: Option<String>,
    /// SQLite only: `synchronous=FULL` (survives power loss) instead of `NORMAL` (survives a
    /// crash of the process, which is the default: WAL + NORMAL never corrupts the file and
    /// loses nothing on a process crash, only possibly the last commits on power loss).
    pub sqlite_synchronous_full: bool,
    /// Apply the migrations on connect.
    pub migrate: bool,
}

impl Default for StoreOptions {
    fn default() -> Self {
        Self {
            clock: Arc::new(SystemClock),
            max_connections: 16,
            poll_interval: Duration::from_millis(500),
            pg_schema: None,
            sqlite_synchronous_full: false,
            migrate: true,
        }
    }
}

impl std::fmt::Debug for StoreOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoreOptions")
            .field("max_connections", &self.max_connections)
            .field("poll_interval", &self.poll_interval)
            .field("pg_schema", &self.pg_schema)
            .field("sqlite_synchronous_full", &self.sqlite_synchronous_full)
            .finish_non_exhaustive()
    }
}

#[derive(Clone, Debug)]
pub(crate) enum Db {
    Sqlite(SqlitePool),
    Postgres(PgPool),
}

pub(crate) struct Inner {
    pub(crate) db: Db,
    pub(crate) clock: Arc<dyn Clock>,
    /// Bumped whenever new events may be readable: after a local append commits, when the
    /// sealer of any process announces a head (PostgreSQL), and after a local seal.
    pub(crate) wake: watch::Sender<u64>,
    pub(crate) poll_interval: Duration,
    /// SQLite: appends and seals of this process queue here instead of spinning on the file
    /// lock (SQLite's busy handler backs off in sleeps of up to 100 ms).
    pub(crate) sqlite_writer: Mutex<()>,
    /// SQLite in a file: bulk reads of the log by connections of our own (see `direct`).
    direct: Option<Arc<crate::direct::DirectReader>>,
    /// PostgreSQL: the last version and hash this process wrote or read for recent streams,
    /// so that an append whose expectation matches skips the head read (one statement per
    /// append). A stale entry is harmless: the insert then violates `(stream, version)` and
    /// the append falls back to reading the head.
    heads: std::sync::Mutex<HashMap<String, (u64, Hash)>>,
    /// PostgreSQL: appends on known heads waiting to be written together (`pg_batch`).
    groups: Arc<crate::pg_batch::Groups>,
    /// PostgreSQL: the connections of the last bulk reads, kept briefly for the next
    /// (`pg_warm`).
    warm: Arc<crate::pg_warm::WarmConnections>,
    listener: Option<JoinHandle<()>>,
}

/// See [`Store::pg_connections`].
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PgConnections {
    /// Open, whether in use, idle or kept.
    pub open: u32,
    /// Idle in the pool.
    pub idle: usize,
    /// Kept for the next bulk read.
    pub kept: usize,
}

impl Drop for Inner {
    fn drop(&mut self) {
        if let Some(task) = &self.listener {
            task.abort();
        }
    }
}

/// The event store. Cheap to clone; clones share the pool and the wake-ups.
#[derive(Clone)]
pub struct Store {
    pub(crate) inner: Arc<Inner>,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store")
            .field("backend", &self.backend())
            .finish_non_exhaustive()
    }
}

/// The migrations of one backend, embedded in the binary.
///
/// Built from `include_str!` rather than `sqlx::migrate!`: the macro would compile sqlx's
/// proc-macro crate with both database drivers (and SQLite's C source) a second time for the
/// host, minutes on a two-core builder, for the same result: sqlx checksums the same SQL.
pub fn migrator(backend: Backend) -> Migrator {
    let files = match backend {
        Backend::Sqlite => [
            include_str!("../../../migrations/sqlite/0001_event_store.sql"),
            include_str!("../../../migrations/sqlite/0002_read_models.sql"),
            include_str!("../../../migrations/sqlite/0003_tokens.sql"),
            include_str!("../../../migrations/sqlite/0004_seals_by_position.sql"),
        ],
        Backend::Postgres => [
            include_str!("../../../migrations/postgres/0001_event_store.sql"),
            include_str!("../../../migrations/postgres/0002_read_models.sql"),
            include_str!("../../../migrations/postgres/0003_tokens.sql"),
            include_str!("../../../migrations/postgres/0004_seals_by_position.sql"),
        ],
    };
    let descriptions = ["event store", "read models", "tokens", "seals by position"];
    Migrator::with_migrations(
        files
            .into_iter()
            .zip(descriptions)
            .zip(1..)
            .map(|((sql, description), version)| {
                Migration::new(
                    version,
                    Cow::Borrowed(description),
                    MigrationType::Simple,
                    AssertSqlSafe(sql).into_sql_str(),
                    false,
                )
            })
            .collect(),
    )
}

use sqlx::SqlSafeStr as _;

/// Which backend a URL names.
pub fn backend_of(url: &str) -> Result<Backend, StoreError> {
    if url.starts_with("sqlite:") {
        Ok(Backend::Sqlite)
    } else if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        Ok(Backend::Postgres)
    } else {
        Err(StoreError::UnsupportedUrl(url.to_owned()))
    }
}

/// Converts a stored non-negative integer.
pub(crate) fn to_u64(what: &str, v: i64) -> Result<u64, StoreError> {
    u64::try_from(v).map_err(|_| StoreError::Corrupt(format!("negative {what}: {v}")))
}

/// Converts a caller's bound to SQL, saturating (positions and versions never reach 2^63).
pub(crate) fn to_i64(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

pub(crate) fn to_hash(what: &str, v: &[u8]) -> Result<Hash, StoreError> {
    Hash::try_from(v)
        .map_err(|_| StoreError::Corrupt(format!("{what} is {} bytes, not 32", v.len())))
}

/// Decodes an event row whose columns are in `EVENT_COLUMNS` order.
pub(crate) fn decode_event<R>(row: &R) -> Result<RecordedEvent, StoreError>
where
    R: Row,
    usize: ColumnIndex<R>,
    for<'r> i64: Decode<'r, R::Database> + Type<R::Database>,
    for<'r> i32: Decode<'r, R::Database> + Type<R::Database>,
    for<'r> String: Decode<'r, R::Database> + Type<R::Database>,
    for<'r> Option<String>: Decode<'r, R::Database> + Type<R::Database>,
    for<'r> Vec<u8>: Decode<'r, R::Database> + Type<R::Database>,
{
    let schema_version: i32 = row.try_get(4)?;
    let prev: Vec<u8> = row.try_get(11)?;
    let hash: Vec<u8> = row.try_get(12)?;
    Ok(RecordedEvent {
        position: to_u64("position", row.try_get(0)?)?,
        stream_id: row.try_get(1)?,
        stream_version: to_u64("stream version", row.try_get(2)?)?,
        event_type: row.try_get(3)?,
        schema_version: u32::try_from(schema_version)
            .map_err(|_| StoreError::Corrupt(format!("schema version {schema_version}")))?,
        payload: row.try_get(5)?,
        actor: row.try_get(6)?,
        correlation_id: row.try_get(7)?,
        causation_id: row.try_get(8)?,
        idempotency_key: row.try_get(9)?,
        recorded_at: Timestamp::from_micros(row.try_get(10)?),
        prev_hash: to_hash("prev_hash", &prev)?,
        hash: to_hash("hash", &hash)?,
    })
}

/// Decodes an event row of `EVENT_COLUMNS` from PostgreSQL by its columns' raw binary
/// values, checked as sqlx's typed decoding checks them (a `bigint` is 8 bytes, an
/// `integer` 4, text is UTF-8, NULL only where the column allows it) without its per-column
/// type lookups, which were a third of the client's time in a bulk read.
fn decode_pg_event(row: &PgRow) -> Result<RecordedEvent, StoreError> {
    use sqlx::ValueRef as _;
    let corrupt = |what: &str, why: &str| StoreError::Corrupt(format!("{what}: {why}"));
    let value = |i: usize, what: &str| -> Result<Option<&[u8]>, StoreError> {
        let v = row.try_get_raw(i)?;
        if v.is_null() {
            return Ok(None);
        }
        v.as_bytes()
            .map(Some)
            .map_err(|e| corrupt(what, &e.to_string()))
    };
    let bytes = |i: usize, what: &str| -> Result<&[u8], StoreError> {
        value(i, what)?.ok_or_else(|| corrupt(what, "NULL in a NOT NULL column"))
    };
    let int8 = |i: usize, what: &str| -> Result<i64, StoreError> {
        <[u8; 8]>::try_from(bytes(i, what)?)
            .map(i64::from_be_bytes)
            .map_err(|_| corrupt(what, "bigint is not 8 bytes"))
    };
    let text = |b: &[u8], what: &str| -> Result<String, StoreError> {
        std::str::from_utf8(b)
            .map(str::to_owned)
            .map_err(|_| corrupt(what, "text is not UTF-8"))
    };
    let opt_text = |i: usize, what: &str| -> Result<Option<String>, StoreError> {
        value(i, what)?.map(|b| text(b, what)).transpose()
    };
    let schema_version = <[u8; 4]>::try_from(bytes(4, "schema_version")?)
        .map(i32::from_be_bytes)
        .map_err(|_| corrupt("schema_version", "integer is not 4 bytes"))?;
    Ok(RecordedEvent {
        position: to_u64("position", int8(0, "position")?)?,
        stream_id: text(bytes(1, "stream_id")?, "stream_id")?,
        stream_version: to_u64("stream version", int8(2, "stream_version")?)?,
        event_type: text(bytes(3, "event_type")?, "event_type")?,
        schema_version: u32::try_from(schema_version)
            .map_err(|_| StoreError::Corrupt(format!("schema version {schema_version}")))?,
        payload: bytes(5, "payload")?.to_vec(),
        actor: opt_text(6, "actor")?,
        correlation_id: opt_text(7, "correlation_id")?,
        causation_id: opt_text(8, "causation_id")?,
        idempotency_key: opt_text(9, "idempotency_key")?,
        recorded_at: Timestamp::from_micros(int8(10, "recorded_at")?),
        prev_hash: to_hash("prev_hash", bytes(11, "prev_hash")?)?,
        hash: to_hash("hash", bytes(12, "hash")?)?,
    })
}

/// The version and hash the last of `rows` leaves its stream at.
fn head_of_rows(rows: &[RowData]) -> Option<(u64, Hash)> {
    rows.last().and_then(|r| {
        Some((
            to_u64("version", r.stream_version).ok()?,
            to_hash("hash", &r.hash).ok()?,
        ))
    })
}

/// One event row ready to insert.
pub(crate) struct RowData {
    pub(crate) stream_version: i64,
    pub(crate) event_type: String,
    pub(crate) schema_version: i32,
    pub(crate) payload: Vec<u8>,
    pub(crate) actor: Option<String>,
    pub(crate) correlation_id: Option<String>,
    pub(crate) causation_id: Option<String>,
    pub(crate) recorded_at: i64,
    pub(crate) prev_hash: Vec<u8>,
    pub(crate) hash: Vec<u8>,
}

/// Chains and hashes a batch onto a stream head.
pub(crate) fn build_rows(
    stream_id: &str,
    head: Option<(u64, Hash)>,
    events: &[NewEvent],
    idempotency_key: Option<&str>,
    clock: &dyn Clock,
) -> Vec<RowData> {
    let (mut version, mut prev) = head.unwrap_or((0, ZERO_HASH));
    let mut now = None;
    events
        .iter()
        .map(|e| {
            version += 1;
            let recorded_at = e
                .metadata
                .recorded_at
                .unwrap_or_else(|| *now.get_or_insert_with(|| clock.now()));
            let hash = event_hash(&EventFields {
                stream_id,
                stream_version: version,
                event_type: &e.event_type,
                schema_version: e.schema_version,
                actor: e.metadata.actor.as_deref(),
                correlation_id: e.metadata.correlation_id.as_deref(),
                causation_id: e.metadata.causation_id.as_deref(),
                idempotency_key,
                recorded_at,
                payload: &e.payload,
                prev_hash: &prev,
            });
            let row = RowData {
                stream_version: to_i64(version),
                event_type: e.event_type.clone(),
                schema_version: i32::try_from(e.schema_version).unwrap_or(i32::MAX),
                payload: e.payload.clone(),
                actor: e.metadata.actor.clone(),
                correlation_id: e.metadata.correlation_id.clone(),
                causation_id: e.metadata.causation_id.clone(),
                recorded_at: recorded_at.as_micros(),
                prev_hash: prev.to_vec(),
                hash: hash.to_vec(),
            };
            prev = hash;
            row
        })
        .collect()
}

/// Checks an append's arguments; nothing touches the database before this passes.
fn validate(
    stream_id: &str,
    events: &[NewEvent],
    idempotency_key: Option<&str>,
) -> Result<(), StoreError> {
    check_name("stream id", stream_id)?;
    if let Some(key) = idempotency_key {
        check_name("idempotency key", key)?;
    }
    if events.is_empty() {
        return Err(StoreError::EmptyBatch);
    }
    if events.len() > MAX_BATCH_EVENTS {
        return Err(StoreError::BatchTooLarge {
            count: events.len(),
            limit: MAX_BATCH_EVENTS,
        });
    }
    for (index, e) in events.iter().enumerate() {
        check_name("event type", &e.event_type)?;
        for (what, v) in [
            ("actor", &e.metadata.actor),
            ("correlation id", &e.metadata.correlation_id),
            ("causation id", &e.metadata.causation_id),
        ] {
            if let Some(v) = v {
                check_name(what, v)?;
            }
        }
        if e.schema_version == 0 {
            return Err(StoreError::InvalidSchemaVersion { index });
        }
        if e.payload.len() > MAX_PAYLOAD_BYTES {
            return Err(StoreError::PayloadTooLarge {
                index,
                size: e.payload.len(),
                limit: MAX_PAYLOAD_BYTES,
            });
        }
        serde_json::from_slice::<serde::de::IgnoredAny>(&e.payload).map_err(|err| {
            StoreError::InvalidJson {
                index,
                reason: err.to_string(),
            }
        })?;
    }
    Ok(())
}

/// What an earlier append with the same idempotency key wrote.
struct IdempotentRecord {
    stream_id: String,
    fingerprint: Vec<u8>,
    first_position: i64,
    event_count: i32,
    first_version: i64,
}

impl IdempotentRecord {
    fn resolve(
        self,
        key: &str,
        stream_id: &str,
        fingerprint: &Hash,
    ) -> Result<Appended, StoreError> {
        if self.stream_id != stream_id || self.fingerprint != fingerprint {
            return Err(StoreError::IdempotencyMismatch {
                key: key.to_owned(),
            });
        }
        let count = u64::try_from(self.event_count)
            .ok()
            .filter(|c| *c >= 1)
            .ok_or_else(|| {
                StoreError::Corrupt(format!("idempotency event count {}", self.event_count))
            })?;
        let first_position = to_u64("position", self.first_position)?;
        let first_version = to_u64("version", self.first_version)?;
        Ok(Appended {
            first_position,
            last_position: first_position + count - 1,
            first_version,
            last_version: first_version + count - 1,
            deduplicated: true,
        })
    }
}

fn check_expected(expected: ExpectedVersion, actual: Option<u64>) -> Result<(), StoreError> {
    let ok = match expected {
        ExpectedVersion::Any => true,
        ExpectedVersion::NoStream => actual.is_none(),
        // A stream with no events is at version 0, so `Exact(0)` means the same as `NoStream`.
        ExpectedVersion::Exact(v) => actual.unwrap_or(0) == v,
    };
    if ok {
        Ok(())
    } else {
        Err(StoreError::Conflict { expected, actual })
    }
}

/// The columns of an event row, in `decode_event` order.
pub(crate) const EVENT_COLUMNS: &str = "position, stream_id, stream_version, event_type, \
    schema_version, payload, actor, correlation_id, causation_id, idempotency_key, \
    recorded_at, prev_hash, hash";

const PG_HEAD: &str = "SELECT h.stream_version, h.hash, i.stream_id, i.fingerprint, \
    i.first_position, i.event_count, i.first_version \
    FROM (SELECT 1) AS one \
    LEFT JOIN LATERAL (SELECT stream_version, hash FROM events WHERE stream_id = $1 \
        ORDER BY stream_version DESC LIMIT 1) AS h ON true \
    LEFT JOIN idempotency AS i ON i.key = $2";

/// The whole append is this one statement in its own transaction, so the transaction's id
/// (xid8) is assigned here, after the snapshot in which the stream head was read: the
/// invariant the global order rests on (see `lib.rs`).
const PG_INSERT: &str = "WITH ins AS ( \
    INSERT INTO events (position, stream_id, stream_version, event_type, schema_version, \
        payload, actor, correlation_id, causation_id, idempotency_key, recorded_at, \
        prev_hash, hash) \
    SELECT x.base | u.idx::bigint, $1, u.ver, u.typ, \
        u.sv, u.payload, u.actor, u.corr, u.caus, $2, u.at, u.prev, u.hash \
    FROM (SELECT pg_current_xact_id()::text::bigint << 16 AS base) AS x, UNNEST($3::int4[], $4::int8[], $5::text[], $6::int4[], $7::bytea[], $8::text[], \
        $9::text[], $10::text[], $11::int8[], $12::bytea[], $13::bytea[]) \
        AS u(idx, ver, typ, sv, payload, actor, corr, caus, at, prev, hash) \
    RETURNING 1 \
), idem AS ( \
    INSERT INTO idempotency (key, stream_id, fingerprint, first_position, event_count, \
        first_version) \
    SELECT $2, $1, $14, pg_current_xact_id()::text::bigint << 16, $15, $16 \
    WHERE $2::text IS NOT NULL \
    RETURNING 1 \
) \
SELECT pg_current_xact_id()::text::bigint";

const SQLITE_HEAD: &str = "SELECT (SELECT max(position) FROM events), \
    h.stream_version, h.hash, i.stream_id, i.fingerprint, i.first_position, i.event_count, \
    i.first_version \
    FROM (SELECT 1) AS one \
    LEFT JOIN (SELECT stream_version, hash FROM events WHERE stream_id = ?1 \
        ORDER BY stream_version DESC LIMIT 1) AS h ON 1 \
    LEFT JOIN idempotency AS i ON i.key = ?2";

/// Largest batch that SQLite appends in one statement when the head is known.
const SQLITE_FAST_MAX: usize = 32;

/// Multi-row insert sizes for SQLite: a batch is split greedily into these, so at most four
/// distinct statements are ever prepared.
pub(crate) const SQLITE_CHUNKS: [usize; 4] = [256, 32, 4, 1];

pub(crate) fn sqlite_insert_sql(table: &str, rows: usize) -> String {
    let mut sql = format!(
        "INSERT INTO {table} (position, stream_id, stream_version, event_type, schema_version, \
         payload, actor, correlation_id, causation_id, idempotency_key, recorded_at, prev_hash, \
         hash) VALUES "
    );
    for i in 0..rows {
        if i > 0 {
            sql.push(',');
        }
        sql.push_str("(?,?,?,?,?,?,?,?,?,?,?,?,?)");
    }
    sql
}

impl Store {
    /// Opens a store at `url` (`sqlite:PATH` or `postgres://...`) with default options.
    pub async fn open(url: &str) -> Result<Self, StoreError> {
        Self::open_with(url, StoreOptions::default()).await
    }

    /// Opens a store, applying the migrations unless told not to.
    pub async fn open_with(url: &str, options: StoreOptions) -> Result<Self, StoreError> {
        let backend = backend_of(url)?;
        let (wake, _) = watch::channel(0u64);
        let mut direct = None;
        let db = match backend {
            Backend::Sqlite => {
                let connect = SqliteConnectOptions::from_str(url)?
                    .create_if_missing(true)
                    .journal_mode(SqliteJournalMode::Wal)
                    .synchronous(if options.sqlite_synchronous_full {
                        SqliteSynchronous::Full
                    } else {
                        SqliteSynchronous::Normal
                    })
                    .busy_timeout(Duration::from_secs(30))
                    // sqlx runs SQLite on a worker thread and hands rows over a channel; the
                    // default of 50 rows makes a page read ping-pong between threads.
                    .row_buffer_size(16_384);
                direct = crate::direct::DirectReader::for_options(&connect);
                let pool = SqlitePoolOptions::new()
                    .max_connections(options.max_connections.max(2))
                    .test_before_acquire(false)
                    .before_acquire(|conn, meta| Box::pin(ping_if_idle(conn, meta)))
                    .connect_with(connect)
                    .await?;
                Db::Sqlite(pool)
            }
            Backend::Postgres => {
                // Every query of the store is an index range read in index order. Right after a
                // bulk load, before autovacuum has analysed the table, the planner believes
                // `events` is tiny and sorts the whole table for every page of `read_all`
                // (seen: 400 ms per page of 10,000 instead of 20). These connections are the
                // store's own, so rule such plans out for them.
                let mut connect = PgConnectOptions::from_str(url)?
                    .application_name("league-store")
                    .options([("enable_sort", "off"), ("enable_bitmapscan", "off")]);
                if let Some(schema) = &options.pg_schema {
                    connect = connect.options([("search_path", schema.as_str())]);
                }
                let pool = PgPoolOptions::new()
                    .max_connections(options.max_connections.max(2))
                    .test_before_acquire(false)
                    .before_acquire(|conn, meta| Box::pin(ping_if_idle(conn, meta)))
                    .connect_with(connect)
                    .await?;
                Db::Postgres(pool)
            }
        };
        if options.migrate {
            let m = migrator(backend);
            match &db {
                Db::Sqlite(pool) => m.run(pool).await?,
                Db::Postgres(pool) => m.run(pool).await?,
            }
        }
        let listener = match &db {
            Db::Postgres(pool) => Some(tokio::spawn(listen(pool.clone(), wake.clone()))),
            Db::Sqlite(_) => None,
        };
        Ok(Self {
            inner: Arc::new(Inner {
                db,
                clock: options.clock,
                wake,
                poll_interval: options.poll_interval,
                sqlite_writer: Mutex::new(()),
                direct,
                heads: std::sync::Mutex::new(HashMap::new()),
                groups: Arc::default(),
                warm: Arc::default(),
                listener,
            }),
        })
    }

    /// The backend this store runs on.
    pub fn backend(&self) -> Backend {
        match self.inner.db {
            Db::Sqlite(_) => Backend::Sqlite,
            Db::Postgres(_) => Backend::Postgres,
        }
    }

    /// Closes the pool, waiting for connections to finish.
    pub async fn close(&self) {
        if let Some(direct) = &self.inner.direct {
            direct.close();
        }
        self.inner.warm.release_all();
        match &self.inner.db {
            Db::Sqlite(p) => p.close().await,
            Db::Postgres(p) => p.close().await,
        }
    }

    pub(crate) fn wake_subscribers(&self) {
        self.inner.wake.send_modify(|g| *g = g.wrapping_add(1));
    }

    /// Appends `events` to `stream_id` atomically, if the stream is at `expected`.
    ///
    /// With an `idempotency_key`, repeating the call with the same stream and events returns
    /// the original positions and appends nothing; the same key with other events is
    /// `IdempotencyMismatch`.
    pub async fn append(
        &self,
        stream_id: &str,
        expected: ExpectedVersion,
        events: &[NewEvent],
        idempotency_key: Option<&str>,
    ) -> Result<Appended, StoreError> {
        validate(stream_id, events, idempotency_key)?;
        let fingerprint = idempotency_key.map(|_| append_fingerprint(stream_id, events));
        let result = match &self.inner.db {
            Db::Postgres(pool) => {
                self.append_pg(
                    pool,
                    stream_id,
                    expected,
                    events,
                    idempotency_key,
                    fingerprint,
                )
                .await
            }
            Db::Sqlite(pool) => {
                self.append_sqlite(
                    pool,
                    stream_id,
                    expected,
                    events,
                    idempotency_key,
                    fingerprint,
                )
                .await
            }
        }?;
        if !result.deduplicated {
            self.wake_subscribers();
        }
        Ok(result)
    }

    async fn append_pg(
        &self,
        pool: &PgPool,
        stream_id: &str,
        expected: ExpectedVersion,
        events: &[NewEvent],
        key: Option<&str>,
        fingerprint: Option<Hash>,
    ) -> Result<Appended, StoreError> {
        let count = events.len();
        // When the head is already known (a new stream, or this process's last write to
        // it), go straight to the insert: the unique index still guards the version, and a
        // repeated idempotency key fails the insert the same way; both then take the slow
        // path below, which reads the head and the key.
        let mut known: Option<Option<(u64, Hash)>> = match expected {
            ExpectedVersion::NoStream => Some(None),
            ExpectedVersion::Exact(v) => self.cached_head(stream_id).filter(|h| h.0 == v).map(Some),
            ExpectedVersion::Any => self.cached_head(stream_id).map(Some),
        };
        for attempt in 0..ANY_RETRIES {
            let known_head = known.take();
            let from_cache = known_head.is_some();
            let head = if let Some(head) = known_head {
                head
            } else {
                let row: PgRow = sqlx::query(PG_HEAD)
                    .bind(stream_id)
                    .bind(key)
                    .fetch_one(pool)
                    .await?;
                if let (Some(key), Some(fp)) = (key, &fingerprint)
                    && let Some(rec) = pg_idempotent(&row, 2)?
                {
                    return rec.resolve(key, stream_id, fp);
                }
                let head = head_of(row.try_get::<Option<i64>, _>(0)?, row.try_get(1)?)?;
                check_expected(expected, head.map(|h| h.0))?;
                head
            };
            let mut rows = build_rows(stream_id, head, events, key, self.inner.clock.as_ref());
            let first_version = head.map_or(1, |h| h.0 + 1);
            let n = u64::try_from(count).unwrap_or(u64::MAX);
            // A known head and no key: written with whatever else is appending now, in one
            // transaction (`pg_batch`); if that group fails, alone below.
            let appended = |first_position: u64| Appended {
                first_position,
                last_position: first_position + n - 1,
                first_version,
                last_version: first_version + n - 1,
                deduplicated: false,
            };
            if from_cache && key.is_none() {
                let new_head = head_of_rows(&rows);
                let grouped = self.inner.groups.append(pool, stream_id, rows).await;
                if let crate::pg_batch::Grouped::Appended(first_position) = grouped {
                    if let Some(h) = new_head {
                        self.remember_head(stream_id, h);
                    }
                    return Ok(appended(first_position));
                }
                rows = build_rows(stream_id, head, events, key, self.inner.clock.as_ref());
            }
            let new_head = head_of_rows(&rows);
            let idx: Vec<i32> = (0..count)
                .map(|i| i32::try_from(i).unwrap_or(i32::MAX))
                .collect();
            let mut ver = Vec::with_capacity(count);
            let mut typ = Vec::with_capacity(count);
            let mut sv = Vec::with_capacity(count);
            let mut payload = Vec::with_capacity(count);
            let mut actor = Vec::with_capacity(count);
            let mut corr = Vec::with_capacity(count);
            let mut caus = Vec::with_capacity(count);
            let mut at = Vec::with_capacity(count);
            let mut prev = Vec::with_capacity(count);
            let mut hash = Vec::with_capacity(count);
            for r in rows {
                ver.push(r.stream_version);
                typ.push(r.event_type);
                sv.push(r.schema_version);
                payload.push(r.payload);
                actor.push(r.actor);
                corr.push(r.correlation_id);
                caus.push(r.causation_id);
                at.push(r.recorded_at);
                prev.push(r.prev_hash);
                hash.push(r.hash);
            }
            let inserted = sqlx::query(PG_INSERT)
                .bind(stream_id)
                .bind(key)
                .bind(idx)
                .bind(ver)
                .bind(typ)
                .bind(sv)
                .bind(payload)
                .bind(actor)
                .bind(corr)
                .bind(caus)
                .bind(at)
                .bind(prev)
                .bind(hash)
                .bind(fingerprint.map(|f| f.to_vec()))
                .bind(i32::try_from(count).unwrap_or(i32::MAX))
                .bind(to_i64(first_version))
                .fetch_one(pool)
                .await;
            match inserted {
                Ok(row) => {
                    let xid = to_u64("transaction id", row.try_get(0)?)?;
                    let first_position = xid
                        .checked_mul(1 << PG_INDEX_BITS)
                        .filter(|p| *p < (1 << 63))
                        .ok_or_else(|| {
                            StoreError::Corrupt(format!("transaction id {xid} out of range"))
                        })?;
                    if let Some(h) = new_head {
                        self.remember_head(stream_id, h);
                    }
                    return Ok(appended(first_position));
                }
                Err(err) if StoreError::is_unique_violation(&err) => {
                    self.forget_head(stream_id);
                    // Either the stream moved on (a racing append took our version) or a
                    // racing append used our idempotency key. The next round's head read
                    // tells which; an exact expectation then reports the conflict.
                    if expected == ExpectedVersion::Any || key.is_some() {
                        back_off(attempt).await;
                        continue;
                    }
                    let actual = self.stream_head(stream_id).await?.map(|h| h.0);
                    return Err(StoreError::Conflict { expected, actual });
                }
                Err(err) => return Err(err.into()),
            }
        }
        let actual = self.stream_head(stream_id).await?.map(|h| h.0);
        Err(StoreError::Conflict { expected, actual })
    }

    async fn append_sqlite(
        &self,
        pool: &SqlitePool,
        stream_id: &str,
        expected: ExpectedVersion,
        events: &[NewEvent],
        key: Option<&str>,
        fingerprint: Option<Hash>,
    ) -> Result<Appended, StoreError> {
        let _writer = self.inner.sqlite_writer.lock().await;
        // Fast path: the head is known and there is no idempotency key to check, so the
        // append is one autocommit statement (the write lock is taken at its start, so the
        // position it computes from `max(position)` is the next one).
        let known = match expected {
            _ if key.is_some() || events.len() > SQLITE_FAST_MAX => None,
            ExpectedVersion::NoStream => Some(None),
            ExpectedVersion::Exact(v) => self.cached_head(stream_id).filter(|h| h.0 == v).map(Some),
            ExpectedVersion::Any => self.cached_head(stream_id).map(Some),
        };
        if let Some(head) = known {
            let rows = build_rows(stream_id, head, events, None, self.inner.clock.as_ref());
            match sqlite_insert_fast(pool, stream_id, &rows).await {
                Ok(first_position) => {
                    let n = u64::try_from(events.len()).unwrap_or(u64::MAX);
                    let first_version = head.map_or(1, |h| h.0 + 1);
                    if let Some(last) = rows.last() {
                        self.remember_head(
                            stream_id,
                            (first_version + n - 1, to_hash("hash", &last.hash)?),
                        );
                    }
                    return Ok(Appended {
                        first_position,
                        last_position: first_position + n - 1,
                        first_version,
                        last_version: first_version + n - 1,
                        deduplicated: false,
                    });
                }
                // Another process moved the stream on: take the careful path.
                Err(err) if StoreError::is_unique_violation(&err) => self.forget_head(stream_id),
                Err(err) => return Err(err.into()),
            }
        }
        let mut tx = pool.begin_with("BEGIN IMMEDIATE").await?;
        let row: SqliteRow = sqlx::query(SQLITE_HEAD)
            .bind(stream_id)
            .bind(key)
            .fetch_one(&mut *tx)
            .await?;
        if let (Some(key), Some(fp)) = (key, &fingerprint)
            && let Some(rec) = sqlite_idempotent(&row, 3)?
        {
            return rec.resolve(key, stream_id, fp);
        }
        let max_position = row.try_get::<Option<i64>, _>(0)?.unwrap_or(0);
        let head = head_of(row.try_get::<Option<i64>, _>(1)?, row.try_get(2)?)?;
        check_expected(expected, head.map(|h| h.0))?;
        let rows = build_rows(stream_id, head, events, key, self.inner.clock.as_ref());
        let first_position = to_u64("position", max_position)? + 1;
        let first_version = head.map_or(1, |h| h.0 + 1);
        let result =
            sqlite_insert_rows(&mut tx, "events", stream_id, key, first_position, &rows).await;
        match result {
            Ok(()) => {}
            Err(err) if StoreError::is_unique_violation(&err) => {
                // Cannot happen under BEGIN IMMEDIATE unless another writer ignores the lock;
                // report it as the conflict it is.
                drop(tx);
                let actual = self.stream_head(stream_id).await?.map(|h| h.0);
                return Err(StoreError::Conflict { expected, actual });
            }
            Err(err) => return Err(err.into()),
        }
        let n = u64::try_from(events.len()).unwrap_or(u64::MAX);
        if let (Some(key), Some(fp)) = (key, fingerprint) {
            sqlx::query(
                "INSERT INTO idempotency (key, stream_id, fingerprint, first_position, \
                 event_count, first_version) VALUES (?, ?, ?, ?, ?, ?)",
            )
            .bind(key)
            .bind(stream_id)
            .bind(fp.to_vec())
            .bind(to_i64(first_position))
            .bind(i32::try_from(events.len()).unwrap_or(i32::MAX))
            .bind(to_i64(first_version))
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        if let Some(last) = rows.last() {
            self.remember_head(
                stream_id,
                (first_version + n - 1, to_hash("hash", &last.hash)?),
            );
        }
        Ok(Appended {
            first_position,
            last_position: first_position + n - 1,
            first_version,
            last_version: first_version + n - 1,
            deduplicated: false,
        })
    }

    fn cached_head(&self, stream_id: &str) -> Option<(u64, Hash)> {
        self.inner
            .heads
            .lock()
            .ok()
            .and_then(|heads| heads.get(stream_id).copied())
    }

    fn remember_head(&self, stream_id: &str, head: (u64, Hash)) {
        if let Ok(mut heads) = self.inner.heads.lock() {
            if heads.len() >= HEAD_CACHE_STREAMS && !heads.contains_key(stream_id) {
                heads.clear();
            }
            heads.insert(stream_id.to_owned(), head);
        }
    }

    fn forget_head(&self, stream_id: &str) {
        if let Ok(mut heads) = self.inner.heads.lock() {
            heads.remove(stream_id);
        }
    }

    /// The last version and hash of a stream, `None` if it has no events.
    pub async fn stream_head(&self, stream_id: &str) -> Result<Option<(u64, Hash)>, StoreError> {
        const SQL_PG: &str = "SELECT stream_version, hash FROM events WHERE stream_id = $1 \
            ORDER BY stream_version DESC LIMIT 1";
        let (v, h): (Option<i64>, Option<Vec<u8>>) = match &self.inner.db {
            Db::Postgres(pool) => sqlx::query_as(SQL_PG)
                .bind(stream_id)
                .fetch_optional(pool)
                .await?
                .map_or((None, None), |(v, h): (i64, Vec<u8>)| (Some(v), Some(h))),
            Db::Sqlite(pool) => sqlx::query_as(SQL_PG)
                .bind(stream_id)
                .fetch_optional(pool)
                .await?
                .map_or((None, None), |(v, h): (i64, Vec<u8>)| (Some(v), Some(h))),
        };
        head_of(v, h)
    }

    /// The events of one stream with version `>= from_version`, in version order.
    /// `StreamNotFound` if the stream has no events at all.
    pub async fn read_stream(
        &self,
        stream_id: &str,
        from_version: u64,
    ) -> Result<Vec<RecordedEvent>, StoreError> {
        const SQL: &str = "SELECT position, stream_id, stream_version, event_type, \
            schema_version, payload, actor, correlation_id, causation_id, idempotency_key, \
            recorded_at, prev_hash, hash FROM events WHERE stream_id = $1 \
            AND stream_version >= $2 ORDER BY stream_version";
        let from = to_i64(from_version.max(1));
        let events = match &self.inner.db {
            Db::Postgres(pool) => sqlx::query(SQL)
                .bind(stream_id)
                .bind(from)
                .fetch_all(pool)
                .await?
                .iter()
                .map(decode_event)
                .collect::<Result<Vec<_>, _>>()?,
            Db::Sqlite(pool) => sqlx::query(SQL)
                .bind(stream_id)
                .bind(from)
                .fetch_all(pool)
                .await?
                .iter()
                .map(decode_event)
                .collect::<Result<Vec<_>, _>>()?,
        };
        if events.is_empty() && self.stream_head(stream_id).await?.is_none() {
            return Err(StoreError::StreamNotFound(stream_id.to_owned()));
        }
        // The last event read is the head as of this read: the usual next step is an append
        // that expects exactly it.
        if let Some(last) = events.last() {
            self.remember_head(stream_id, (last.stream_version, last.hash));
        }
        Ok(events)
    }

    /// Up to `limit` events with position `>= from_position`, in global order.
    ///
    /// Only events below the commit horizon are returned, so an event that is not returned
    /// now can never later appear before one that was: a reader that continues from
    /// `last position + 1` sees every event exactly once.
    pub async fn read_all(
        &self,
        from_position: u64,
        limit: usize,
    ) -> Result<Vec<RecordedEvent>, StoreError> {
        // SQLite in a file reads through `direct` (sqlx's row objects were most of the cost
        // of a read there); an in-memory SQLite database, only reachable through sqlx's own
        // connections, reads rows through sqlx. PostgreSQL reads a large page as two halves at
        // once on two connections, each a binary `COPY` (`read_all_pg_split`), and a small
        // page (a live tail's) as rows, each column taken as its raw binary value
        // (`decode_pg_event`). On one connection a `COPY` is no faster than rows (it costs the
        // server more per row, and one server process is the limit); on two it is, since the
        // client's cost is then what the two server processes wait for.
        // The bulk paths (two halves, `direct`) fill vectors of their own; only the row reads
        // below fill this one.
        let mut events = Vec::new();
        match &self.inner.db {
            Db::Postgres(pool) => {
                if limit >= PG_SPLIT_MIN
                    && let Some(second) = self.inner.warm.second(pool).await
                {
                    return read_all_pg_split(pool, &self.inner.warm, second, from_position, limit)
                        .await;
                }
                events.reserve(limit.min(10_000));
                let params = [to_i64(from_position), count_param(limit)];
                read_pg_rows(pool, SQL_PG, &params, &mut events).await?;
            }
            Db::Sqlite(pool) => match &self.inner.direct {
                Some(direct) => events = direct.read_events(from_position, limit).await?,
                None => {
                    events.reserve(limit.min(10_000));
                    let sql = format!(
                        "SELECT {EVENT_COLUMNS} FROM events WHERE position >= $1 \
                         ORDER BY position LIMIT $2"
                    );
                    let mut rows = sqlx::query(AssertSqlSafe(sql))
                        .bind(to_i64(from_position))
                        .bind(i64::try_from(limit).unwrap_or(i64::MAX))
                        .fetch(pool);
                    while let Some(row) = rows.try_next().await? {
                        events.push(decode_event(&row)?);
                    }
                }
            },
        }
        Ok(events)
    }
}

/// `read_all`'s query on PostgreSQL: up to `$2` events from position `$1` on, below the
/// commit horizon.
const SQL_PG: &str = "SELECT position, stream_id, stream_version, event_type, \
    schema_version, payload, actor, correlation_id, causation_id, idempotency_key, \
    recorded_at, prev_hash, hash FROM events WHERE position >= $1 \
    AND position < (pg_snapshot_xmin(pg_current_snapshot())::text::bigint << 16) \
    ORDER BY position LIMIT $2";

/// Pages of at least this many events are read from PostgreSQL on two connections when a
/// second one is at hand.
const PG_SPLIT_MIN: usize = 2_048;

/// Runs `sql` with `params` bound as `$1, $2, ...` and decodes its rows onto `events`.
///
/// Not a prepared statement: a generic plan for `position >= $1 ... LIMIT $2` may choose to
/// sort the whole table for every page (seen right after a bulk load, before autovacuum has
/// analysed it). Planning with the real bounds is a fraction of a millisecond per page. Rows
/// are decoded as they arrive.
async fn read_pg_rows<'c, E>(
    executor: E,
    sql: &'static str,
    params: &[i64],
    events: &mut Vec<RecordedEvent>,
) -> Result<(), StoreError>
where
    E: sqlx::Executor<'c, Database = sqlx::Postgres>,
{
    let mut query = sqlx::query(sql);
    for param in params {
        query = query.bind(*param);
    }
    let mut rows = query.persistent(false).fetch(executor);
    while let Some(row) = rows.try_next().await? {
        events.push(decode_pg_event(&row)?);
    }
    Ok(())
}

/// A count as a `bigint` parameter (`LIMIT`, `OFFSET`), saturating.
fn count_param(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// A page of `read_all` read as two halves at once, on two connections, so that two server
/// processes (one per core) produce its rows: a single server process producing rows is the
/// limit of a bulk read on PostgreSQL (about a microsecond a row). Each half is a binary
/// `COPY` split by `pg_copy` (sqlx's row objects were half of the client's cost, and the
/// client shares the machine's cores with the server).
///
/// The first half is the first `half` events of the page. The second starts at the event
/// `half - 1` events after the page's first, found in its own server process while the
/// first half streams (where the log is sealed, from the Merkle tree's leaves; elsewhere by
/// an index scan that skips the rows: `pg_copy::events_statement`), and must start with the
/// first half's last event:
/// from there it is every event that follows, by its own query. The two statements may see
/// different commit horizons; every event below a horizon is final, so one that holds an
/// event the other does not can only reach further. If the two do not join (the first half
/// is short: the end of the readable log; or its last event is not the second's first: the
/// log changed between the two, which only tampering can do below the horizon) the rest of
/// the page is read from the first half's last event on, by one query: either way the page
/// is what one query would return.
async fn read_all_pg_split(
    pool: &PgPool,
    warm: &Arc<crate::pg_warm::WarmConnections>,
    second: sqlx::pool::PoolConnection<sqlx::Postgres>,
    from: u64,
    limit: usize,
) -> Result<Vec<RecordedEvent>, StoreError> {
    // Where the log is not sealed, the second half's server process also skips the first
    // half's rows (an index scan), but giving the first half more of the page (5/9, 2/3)
    // measured no faster, nor did three or four parts on three or four connections.
    let half = limit / 2;
    let rest = limit - half + 1;
    // Each half in a task of its own, the second (which has its start to find) started first.
    // Polled by the caller's task instead, the first half ran wherever the caller runs: in
    // `league bench store` and the `read_all` example, the main thread in `block_on`, which
    // a multi-threaded runtime wakes from a worker for every socket read (a futex wake and a
    // context switch each time). Measured with the example over the benchmark's log, 24
    // passes each, alternately: median 1,188,848 events/s against 1,080,720, lower quartile
    // 1,113,060 against 899,460, and 11% less client CPU.
    let second_half = spawn_half(pool, warm, Some(second), from, half - 1, rest, rest);
    let first_half = spawn_half(pool, warm, None, from, 0, half, limit);
    let first = first_half
        .await
        .map_err(|e| StoreError::Corrupt(format!("first half of a read: {e}")))?;
    let second = second_half
        .await
        .map_err(|e| StoreError::Corrupt(format!("second half of a read: {e}")))?;
    let mut events = first?;
    if let Join::ReadOn { from } = join_halves(&mut events, second?, half, |e| e.position) {
        let more = limit - events.len();
        copy_events(pool, warm, None, from, 0, more, &mut events).await?;
    }
    Ok(events)
}

/// [`copy_events`] in a task of its own, into a vector with room for `capacity`.
fn spawn_half(
    pool: &PgPool,
    warm: &Arc<crate::pg_warm::WarmConnections>,
    conn: Option<sqlx::pool::PoolConnection<sqlx::Postgres>>,
    from: u64,
    skip: usize,
    limit: usize,
    capacity: usize,
) -> tokio::task::JoinHandle<Result<Vec<RecordedEvent>, StoreError>> {
    let (pool, warm) = (pool.clone(), Arc::clone(warm));
    tokio::spawn(async move {
        let mut events = Vec::with_capacity(capacity.min(20_000));
        copy_events(&pool, &warm, conn, from, skip, limit, &mut events).await?;
        Ok(events)
    })
}

/// Up to `limit` events from the event `skip` events after the first at or after `from`
/// (`pg_copy::events_statement`), below the commit horizon, as one binary `COPY` onto
/// `events`, on `conn` or else a warm connection if one is kept; the connection is given
/// back as soon as the copy is read.
async fn copy_events(
    pool: &PgPool,
    warm: &Arc<crate::pg_warm::WarmConnections>,
    conn: Option<sqlx::pool::PoolConnection<sqlx::Postgres>>,
    from: u64,
    skip: usize,
    limit: usize,
    events: &mut Vec<RecordedEvent>,
) -> Result<(), StoreError> {
    let conn = match conn {
        Some(conn) => conn,
        None => warm.acquire(pool).await?,
    };
    let statement = pg_copy::events_statement(from, skip, limit);
    let conn = pg_copy::read_events(conn, &statement, events).await?;
    // At once: the other half of a page may be waiting for a connection.
    warm.give_back(pool, conn);
    Ok(())
}

/// What is left to read after `join_halves`.
#[derive(Debug, PartialEq, Eq)]
enum Join {
    /// The page is whole (or the readable log ends in it).
    Done,
    /// The halves did not join: the rest of the page is read by one query from here.
    ReadOn { from: u64 },
}

/// Joins a page's second half onto its first (see `read_all_pg_split`): the first asked for
/// `half` events; the second, if it joins, starts with the first's last event.
fn join_halves<T>(
    first: &mut Vec<T>,
    second: Vec<T>,
    half: usize,
    position: impl Fn(&T) -> u64,
) -> Join {
    let Some(last) = first.last().map(&position) else {
        return Join::Done;
    };
    if first.len() < half {
        Join::Done
    } else if second.first().map(&position) == Some(last) {
        // Past the shared event; the rest is moved in one copy.
        let mut rest = second.into_iter();
        rest.next();
        first.extend(rest);
        Join::Done
    } else {
        Join::ReadOn { from: last + 1 }
    }
}

impl Store {
    /// The highest position committed so far (ignoring the commit horizon), if any.
    pub async fn last_position(&self) -> Result<Option<u64>, StoreError> {
        const SQL: &str = "SELECT max(position) FROM events";
        let max: Option<i64> = match &self.inner.db {
            Db::Postgres(pool) => sqlx::query_scalar(SQL).fetch_one(pool).await?,
            Db::Sqlite(pool) => sqlx::query_scalar(SQL).fetch_one(pool).await?,
        };
        max.map(|m| to_u64("position", m)).transpose()
    }

    /// Waits until `read_all` can return the event at `position` (and everything before it):
    /// at once on SQLite; on PostgreSQL once every transaction that started writing before it
    /// has finished. Returns false if that took longer than `timeout`.
    pub async fn wait_readable(
        &self,
        position: u64,
        timeout: Duration,
    ) -> Result<bool, StoreError> {
        let Db::Postgres(pool) = &self.inner.db else {
            return Ok(true);
        };
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let horizon: i64 = sqlx::query_scalar(
                "SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint << 16",
            )
            .fetch_one(pool)
            .await?;
            if to_u64("horizon", horizon)? > position {
                return Ok(true);
            }
            if tokio::time::Instant::now() >= deadline {
                return Ok(false);
            }
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
    }

    /// Every event from `from_position` on, in global order: first the log as it stands,
    /// then live, as one sequence with no gap and no duplicate.
    pub fn subscribe_all(&self, from_position: u64) -> Subscription {
        Subscription::new(self.clone(), from_position)
    }

    /// A PostgreSQL store's connections: open in its pool, idle there, and kept by the last
    /// bulk reads for the next (`pg_warm`); `None` on SQLite. For tests.
    #[doc(hidden)]
    pub fn pg_connections(&self) -> Option<PgConnections> {
        match &self.inner.db {
            Db::Postgres(pool) => Some(PgConnections {
                open: pool.size(),
                idle: pool.num_idle(),
                kept: self.inner.warm.len(),
            }),
            Db::Sqlite(_) => None,
        }
    }

    /// Raw access for tests and tools that must reach around the store (tamper tests).
    #[doc(hidden)]
    pub async fn execute_raw(&self, sql: &str) -> Result<u64, StoreError> {
        let sql = AssertSqlSafe(sql.to_owned());
        Ok(match &self.inner.db {
            Db::Postgres(pool) => sqlx::raw_sql(sql).execute(pool).await?.rows_affected(),
            Db::Sqlite(pool) => sqlx::raw_sql(sql).execute(pool).await?.rows_affected(),
        })
    }
}

fn head_of(version: Option<i64>, hash: Option<Vec<u8>>) -> Result<Option<(u64, Hash)>, StoreError> {
    match (version, hash) {
        (Some(v), Some(h)) => Ok(Some((to_u64("stream version", v)?, to_hash("hash", &h)?))),
        _ => Ok(None),
    }
}

fn pg_idempotent(row: &PgRow, at: usize) -> Result<Option<IdempotentRecord>, StoreError> {
    let stream_id: Option<String> = row.try_get(at)?;
    let Some(stream_id) = stream_id else {
        return Ok(None);
    };
    Ok(Some(IdempotentRecord {
        stream_id,
        fingerprint: row.try_get(at + 1)?,
        first_position: row.try_get(at + 2)?,
        event_count: row.try_get(at + 3)?,
        first_version: row.try_get(at + 4)?,
    }))
}

fn sqlite_idempotent(row: &SqliteRow, at: usize) -> Result<Option<IdempotentRecord>, StoreError> {
    let stream_id: Option<String> = row.try_get(at)?;
    let Some(stream_id) = stream_id else {
        return Ok(None);
    };
    Ok(Some(IdempotentRecord {
        stream_id,
        fingerprint: row.try_get(at + 1)?,
        first_position: row.try_get(at + 2)?,
        event_count: row.try_get(at + 3)?,
        first_version: row.try_get(at + 4)?,
    }))
}

/// Sleeps a random 0..2^attempt ms (at most 16 ms) after the first few lost races.
/// A pooled connection idle for longer than this is pinged before it is handed out.
const PING_AFTER_IDLE: Duration = Duration::from_secs(1);

/// sqlx's pool pings every idle connection before handing it out (a round trip to the server,
/// or to SQLite's worker thread, before every query). A connection used within the last
/// second is handed out without one: a broken connection then fails its query, as it would
/// had it broken just after a ping. One idle for longer (the server may have restarted
/// meanwhile) is pinged, and replaced if the ping fails.
async fn ping_if_idle<C: sqlx::Connection>(
    conn: &mut C,
    meta: sqlx::pool::PoolConnectionMetadata,
) -> Result<bool, sqlx::Error> {
    if meta.idle_for >= PING_AFTER_IDLE {
        conn.ping().await?;
    }
    Ok(true)
}

async fn back_off(attempt: u32) {
    if attempt < 2 {
        return;
    }
    let cap = 1u32 << attempt.min(4);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let jitter_us = (nanos / 1_000) % (cap * 1_000);
    tokio::time::sleep(Duration::from_micros(u64::from(jitter_us))).await;
}

/// Inserts a batch as one autocommit statement that numbers it after the current
/// `max(position)`; returns the first position.
async fn sqlite_insert_fast(
    pool: &SqlitePool,
    stream_id: &str,
    rows: &[RowData],
) -> Result<u64, sqlx::Error> {
    // Anonymous `?` only: sqlx numbers them in order of appearance and would not mix them
    // with `?NNN`. The first is the stream id, then ten per row.
    let mut sql = String::from(
        "WITH base(b) AS (SELECT coalesce(max(position), 0) FROM events) \
         INSERT INTO events (position, stream_id, stream_version, event_type, schema_version, \
         payload, actor, correlation_id, causation_id, idempotency_key, recorded_at, prev_hash, \
         hash) SELECT b + v.column1, ?, v.column2, v.column3, v.column4, v.column5, v.column6, \
         v.column7, v.column8, NULL, v.column9, v.column10, v.column11 FROM base, (VALUES ",
    );
    for i in 1..=rows.len() {
        if i > 1 {
            sql.push(',');
        }
        sql.push_str(&format!("({i},?,?,?,?,?,?,?,?,?,?)"));
    }
    sql.push_str(") AS v RETURNING position");
    let mut q = sqlx::query_scalar::<_, i64>(AssertSqlSafe(sql)).bind(stream_id);
    for r in rows {
        q = q
            .bind(r.stream_version)
            .bind(r.event_type.as_str())
            .bind(r.schema_version)
            .bind(r.payload.as_slice())
            .bind(r.actor.as_deref())
            .bind(r.correlation_id.as_deref())
            .bind(r.causation_id.as_deref())
            .bind(r.recorded_at)
            .bind(r.prev_hash.as_slice())
            .bind(r.hash.as_slice());
    }
    let positions = q.fetch_all(pool).await?;
    let first = positions.into_iter().min().unwrap_or(0);
    u64::try_from(first).map_err(|_| sqlx::Error::Protocol(format!("position {first}")))
}

/// Inserts rows with consecutive positions from `first_position`, in multi-row statements.
pub(crate) async fn sqlite_insert_rows(
    conn: &mut sqlx::SqliteConnection,
    table: &str,
    stream_id: &str,
    key: Option<&str>,
    first_position: u64,
    rows: &[RowData],
) -> Result<(), sqlx::Error> {
    let mut rest = rows;
    let mut position = first_position;
    while !rest.is_empty() {
        let size = SQLITE_CHUNKS
            .into_iter()
            .find(|c| *c <= rest.len())
            .unwrap_or(1);
        let (chunk, tail) = rest.split_at(size);
        let sql = sqlite_insert_sql(table, size);
        let mut q = sqlx::query(AssertSqlSafe(sql));
        for r in chunk {
            q = q
                .bind(to_i64(position))
                .bind(stream_id)
                .bind(r.stream_version)
                .bind(r.event_type.as_str())
                .bind(r.schema_version)
                .bind(r.payload.as_slice())
                .bind(r.actor.as_deref())
                .bind(r.correlation_id.as_deref())
                .bind(r.causation_id.as_deref())
                .bind(key)
                .bind(r.recorded_at)
                .bind(r.prev_hash.as_slice())
                .bind(r.hash.as_slice());
            position += 1;
        }
        q.execute(&mut *conn).await?;
        rest = tail;
    }
    Ok(())
}

/// Forwards the sealer's NOTIFY hints (from any process) to this process's subscribers.
/// A lost notification only delays a subscriber until its next poll.
async fn listen(pool: PgPool, wake: watch::Sender<u64>) {
    loop {
        if let Ok(mut listener) = PgListener::connect_with(&pool).await
            && listener.listen(NOTIFY_CHANNEL).await.is_ok()
        {
            // A reconnect may have missed hints: wake everyone once.
            wake.send_modify(|g| *g = g.wrapping_add(1));
            while listener.recv().await.is_ok() {
                wake.send_modify(|g| *g = g.wrapping_add(1));
            }
        }
        if pool.is_closed() {
            return;
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}

impl Store {
    /// Applies `migrator` (for `league migrate`; `open` does this unless told not to).
    pub async fn apply_migrations(&self, migrator: &Migrator) -> Result<(), StoreError> {
        match &self.inner.db {
            Db::Sqlite(pool) => migrator.run(pool).await?,
            Db::Postgres(pool) => migrator.run(pool).await?,
        }
        Ok(())
    }
}

/// One read-model document: its kind (e.g. `tournament`), its key and its JSON bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadModelDoc {
    pub kind: String,
    pub key: String,
    pub doc: Vec<u8>,
}

impl Store {
    /// Upserts `docs` of the projection set `projection` (a document with an empty `doc` is
    /// deleted) and moves its checkpoint to `position`, in one transaction: a reader never sees documents ahead of (or behind)
    /// the checkpoint they are stored with.
    pub async fn put_read_models(
        &self,
        projection: &str,
        position: u64,
        docs: &[ReadModelDoc],
    ) -> Result<(), StoreError> {
        const UPSERT: &str = "INSERT INTO read_models (projection, kind, key, doc) \
            VALUES ($1, $2, $3, $4) ON CONFLICT (projection, kind, key) DO UPDATE SET doc = excluded.doc";
        const DELETE: &str = "DELETE FROM read_models WHERE projection = $1 AND kind = $2 \
            AND key = $3 AND $4 = $4";
        const CHECKPOINT: &str = "INSERT INTO projection_checkpoints (projection, position) \
            VALUES ($1, $2) ON CONFLICT (projection) DO UPDATE SET position = excluded.position";
        let position = to_i64(position);
        match &self.inner.db {
            Db::Postgres(pool) => {
                let mut tx = pool.begin().await?;
                for d in docs {
                    sqlx::query(if d.doc.is_empty() { DELETE } else { UPSERT })
                        .bind(projection)
                        .bind(&d.kind)
                        .bind(&d.key)
                        .bind(&d.doc)
                        .execute(&mut *tx)
                        .await?;
                }
                sqlx::query(CHECKPOINT)
                    .bind(projection)
                    .bind(position)
                    .execute(&mut *tx)
                    .await?;
                tx.commit().await?;
            }
            Db::Sqlite(pool) => {
                let mut tx = pool.begin().await?;
                for d in docs {
                    sqlx::query(if d.doc.is_empty() { DELETE } else { UPSERT })
                        .bind(projection)
                        .bind(&d.kind)
                        .bind(&d.key)
                        .bind(&d.doc)
                        .execute(&mut *tx)
                        .await?;
                }
                sqlx::query(CHECKPOINT)
                    .bind(projection)
                    .bind(position)
                    .execute(&mut *tx)
                    .await?;
                tx.commit().await?;
            }
        }
        Ok(())
    }

    /// The checkpoint and every document of a projection set, ordered by kind and key.
    pub async fn read_models(
        &self,
        projection: &str,
    ) -> Result<(Option<u64>, Vec<ReadModelDoc>), StoreError> {
        const CHECKPOINT: &str =
            "SELECT position FROM projection_checkpoints WHERE projection = $1";
        const DOCS: &str =
            "SELECT kind, key, doc FROM read_models WHERE projection = $1 ORDER BY kind, key";
        type Row = (String, String, Vec<u8>);
        let (position, rows): (Option<i64>, Vec<Row>) = match &self.inner.db {
            Db::Postgres(pool) => (
                sqlx::query_scalar(CHECKPOINT)
                    .bind(projection)
                    .fetch_optional(pool)
                    .await?,
                sqlx::query_as(DOCS)
                    .bind(projection)
                    .fetch_all(pool)
                    .await?,
            ),
            Db::Sqlite(pool) => (
                sqlx::query_scalar(CHECKPOINT)
                    .bind(projection)
                    .fetch_optional(pool)
                    .await?,
                sqlx::query_as(DOCS)
                    .bind(projection)
                    .fetch_all(pool)
                    .await?,
            ),
        };
        let docs = rows
            .into_iter()
            .map(|(kind, key, doc)| ReadModelDoc { kind, key, doc })
            .collect();
        Ok((position.map(|p| to_u64("checkpoint", p)).transpose()?, docs))
    }
}

/// One event as a fold needs it: where it is, which stream and version, and its payload.
///
/// Read in bulk, so cheap to hand out: a stream id is allocated once per read and shared by
/// its events, and on SQLite every payload is a slice of the value its page was read in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogEntry {
    pub position: u64,
    pub stream_id: Arc<str>,
    pub stream_version: u64,
    pub payload: Bytes,
}

/// The stream ids met in one read, each allocated once.
#[derive(Default)]
pub(crate) struct StreamIds {
    known: std::collections::HashSet<Arc<str>>,
    /// The last id handed out: a stream's events often come in runs (a hand at a table).
    last: Option<Arc<str>>,
}

impl StreamIds {
    pub(crate) fn get(&mut self, id: &str) -> Arc<str> {
        if let Some(last) = &self.last
            && **last == *id
        {
            return Arc::clone(last);
        }
        let id = match self.known.get(id) {
            Some(known) => Arc::clone(known),
            None => {
                let id: Arc<str> = Arc::from(id);
                self.known.insert(Arc::clone(&id));
                id
            }
        };
        self.last = Some(Arc::clone(&id));
        id
    }
}

impl Store {
    /// [`Store::read_all`] reduced to what a projection folds (position, stream, version,
    /// payload): a quarter of the columns, for rebuilds. Same order and horizon.
    pub async fn read_log(
        &self,
        from_position: u64,
        limit: usize,
    ) -> Result<Vec<LogEntry>, StoreError> {
        let mut entries = Vec::with_capacity(limit.min(10_000));
        match &self.inner.db {
            Db::Postgres(pool) => {
                pg_copy::read_log(pool, &self.inner.warm, from_position, limit, &mut entries)
                    .await?;
            }
            Db::Sqlite(pool) => match &self.inner.direct {
                Some(direct) => entries = direct.read_log(from_position, limit).await?,
                None => {
                    let mut streams = StreamIds::default();
                    let mut rows = sqlx::query_as::<_, (i64, String, i64, Vec<u8>)>(
                        "SELECT position, stream_id, stream_version, payload FROM events \
                         WHERE position >= $1 ORDER BY position LIMIT $2",
                    )
                    .bind(to_i64(from_position))
                    .bind(i64::try_from(limit).unwrap_or(i64::MAX))
                    .fetch(pool);
                    while let Some((position, stream, version, payload)) = rows.try_next().await? {
                        entries.push(LogEntry {
                            position: to_u64("position", position)?,
                            stream_id: streams.get(&stream),
                            stream_version: to_u64("stream version", version)?,
                            payload: Bytes::from(payload),
                        });
                    }
                }
            },
        }
        Ok(entries)
    }
}

#[cfg(test)]
mod tests {
    use super::{Join, join_halves};

    fn join(first: &[u64], second: &[u64], half: usize) -> (Vec<u64>, Join) {
        let mut page = first.to_vec();
        let join = join_halves(&mut page, second.to_vec(), half, |p| *p);
        (page, join)
    }

    #[test]
    fn halves_join_only_on_the_first_halfs_last_event() {
        // Joined: the shared event appears once.
        assert_eq!(
            join(&[1, 4, 9], &[9, 12, 13], 3),
            (vec![1, 4, 9, 12, 13], Join::Done)
        );
        // The second half saw nothing past the first (its horizon was earlier).
        assert_eq!(join(&[1, 4, 9], &[9], 3), (vec![1, 4, 9], Join::Done));
        // The second half starts elsewhere (the log changed between the two statements):
        // nothing of it is taken, the rest is read from after the first half's last event.
        for second in [&[12, 13][..], &[4, 9, 12], &[10, 12], &[]] {
            assert_eq!(
                join(&[1, 4, 9], second, 3),
                (vec![1, 4, 9], Join::ReadOn { from: 10 })
            );
        }
        // A short first half is the end of the readable log: the second is not taken.
        assert_eq!(join(&[1, 4], &[4, 9], 3), (vec![1, 4], Join::Done));
        assert_eq!(join(&[], &[4, 9], 3), (vec![], Join::Done));
    }
}
