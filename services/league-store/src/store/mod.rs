//! The store, whatever its backend: [`Store`], its options and opening, the public methods,
//! and what both backends share (building and hashing an append's rows, checking its
//! arguments and expected version, idempotency records, the stream-head cache that gives
//! read-your-write appends, decoding rows, read models).
//!
//! Each backend's SQL and the code that runs it are in a module of its own, `sqlite` and
//! `postgres` (with submodules `seals` for the sealer and `tokens` for the API's tokens);
//! the public methods here, and those of `sealer`, `tokens` and `verify`, choose between
//! them, each with one `match` on the backend (`Db`) calling one function per backend.

pub mod copy;
pub(crate) mod postgres;
mod read_models;
pub mod releases;
pub(crate) mod sqlite;
mod tokens_sql;

pub use read_models::{CheckpointMove, ReadModelDoc, Snapshot};
use read_models::{DocRow, SnapshotRow};

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use sqlx::migrate::{Migration, MigrationType, Migrator};
use sqlx::postgres::PgPool;
use sqlx::sqlite::SqlitePool;
use sqlx::{AssertSqlSafe, ColumnIndex, Decode, Row, SqlSafeStr as _, Type};
use tokio::sync::{Mutex, watch};
use tokio::task::JoinHandle;

use crate::error::StoreError;
use crate::hash::{EventFields, ZERO_HASH, append_fingerprint, event_hash};
use crate::subscribe::Subscription;
use crate::types::{
    Appended, Clock, EventId, ExpectedVersion, Hash, MAX_BATCH_EVENTS, MAX_PAYLOAD_BYTES, NewEvent,
    RecordedEvent, SystemClock, Timestamp, check_name,
};

pub(crate) use postgres::PG_INDEX_BITS;

/// The channel on which the sealer announces a new sealed head to other processes.
pub const NOTIFY_CHANNEL: &str = "league_log";

/// The PostgreSQL channel a token's revocation is announced on (its id as the payload), so
/// that every instance forgets the tokens it had checked.
pub const TOKENS_CHANNEL: &str = "league_tokens";
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
    /// SQLite in a file: bulk reads of the log by connections of our own (see `sqlite::direct`).
    pub(crate) direct: Option<Arc<sqlite::direct::DirectReader>>,
    /// PostgreSQL: the last version and hash this process wrote or read for recent streams,
    /// so that an append whose expectation matches skips the head read (one statement per
    /// append). A stale entry is harmless: the insert then violates `(stream, version)` and
    /// the append falls back to reading the head.
    heads: std::sync::Mutex<HashMap<String, (u64, Hash)>>,
    /// PostgreSQL: appends on known heads waiting to be written together (`postgres::batch`).
    groups: Arc<postgres::batch::Groups>,
    listener: Option<JoinHandle<()>>,
    /// PostgreSQL: bumped at every token revocation announced on [`TOKENS_CHANNEL`] (by any
    /// process) and whenever the listener reconnects (it may have missed one).
    pub(crate) token_generation: Arc<std::sync::atomic::AtomicU64>,
    /// The newest release that has appended to the log, when newer than this build: appends
    /// are refused ([`StoreError::NewerRelease`]).
    newer_release: Option<String>,
    /// Whether this process has recorded its release in `releases` (before its first append).
    release_recorded: std::sync::atomic::AtomicBool,
    /// Whether `events` has its `event_id` column (migration 0008): false only for a
    /// database opened without migrating (an audit of an older release's database, which
    /// it must not change), whose events are then read with no stored ids.
    pub(crate) event_ids: bool,
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
        Backend::Sqlite => sqlite::MIGRATIONS,
        Backend::Postgres => postgres::MIGRATIONS,
    };
    let descriptions = [
        "event store",
        "read models",
        "tokens",
        "seals by position",
        "releases",
        "draw secrets",
        "token scope and expiry",
        "event ids",
        "snapshots",
    ];
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

/// A stored `schema_version` (an `INTEGER` column) as the version it is.
pub(crate) fn schema_version(v: impl Into<i64>) -> Result<u32, StoreError> {
    let v = v.into();
    u32::try_from(v).map_err(|_| StoreError::Corrupt(format!("schema version {v}")))
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
    for<'r> Option<Vec<u8>>: Decode<'r, R::Database> + Type<R::Database>,
{
    let prev: Vec<u8> = row.try_get(11)?;
    let hash: Vec<u8> = row.try_get(12)?;
    let id: Option<Vec<u8>> = row.try_get(13)?;
    Ok(RecordedEvent {
        position: to_u64("position", row.try_get(0)?)?,
        stored_id: id.as_deref().map(to_event_id).transpose()?,
        stream_id: row.try_get(1)?,
        stream_version: to_u64("stream version", row.try_get(2)?)?,
        event_type: row.try_get(3)?,
        schema_version: schema_version(row.try_get::<i32, _>(4)?)?,
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

/// A stored `event_id` (16 bytes) as the id it is.
pub(crate) fn to_event_id(v: &[u8]) -> Result<EventId, StoreError> {
    <[u8; 16]>::try_from(v)
        .map(EventId::from_bytes)
        .map_err(|_| StoreError::Corrupt(format!("event_id is {} bytes, not 16", v.len())))
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
    pub(crate) event_id: Vec<u8>,
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
            let id = EventId::new_v7();
            let hash = event_hash(&EventFields {
                event_id: Some(&id),
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
                event_id: id.as_bytes().to_vec(),
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

/// `sql` (a read of [`EVENT_COLUMNS`]) for a database without the `event_id` column
/// (`ids` false): the column read as `null` (`NULL` cast as the backend needs).
pub(crate) fn event_sql(sql: &str, ids: bool, null: &str) -> String {
    if ids {
        sql.to_owned()
    } else {
        sql.replace(
            ", event_id FROM events",
            &format!(", {null} AS event_id FROM events"),
        )
    }
}

/// The columns of an event row, in `decode_event` order.
pub(crate) const EVENT_COLUMNS: &str = "position, stream_id, stream_version, event_type, \
    schema_version, payload, actor, correlation_id, causation_id, idempotency_key, \
    recorded_at, prev_hash, hash, event_id";

impl Store {
    /// Opens a store at `url` (`sqlite:PATH` or `postgres://...`) with default options.
    pub async fn open(url: &str) -> Result<Self, StoreError> {
        Self::open_with(url, StoreOptions::default()).await
    }

    /// Opens a store, applying the migrations unless told not to.
    pub async fn open_with(url: &str, options: StoreOptions) -> Result<Self, StoreError> {
        let backend = backend_of(url)?;
        let (wake, _) = watch::channel(0u64);
        let (db, direct) = match backend {
            Backend::Sqlite => {
                let (pool, direct) = sqlite::connect(url, &options).await?;
                (Db::Sqlite(pool), direct)
            }
            Backend::Postgres => (Db::Postgres(postgres::connect(url, &options).await?), None),
        };
        // A store opened without migrating may be older than the `releases` table: it is
        // then read as having no newer writer, and appends record this build in it.
        let newer_release = if options.migrate {
            run_migrations(&db, &migrator(backend)).await?;
            releases::newer_than_this(&db).await?
        } else {
            None
        };
        let event_ids = options.migrate || {
            let probe = "SELECT event_id FROM events LIMIT 0";
            match &db {
                Db::Sqlite(pool) => sqlx::query(probe).execute(pool).await.is_ok(),
                Db::Postgres(pool) => sqlx::query(probe).execute(pool).await.is_ok(),
            }
        };
        let token_generation = Arc::new(std::sync::atomic::AtomicU64::new(0));
        let listener = match &db {
            Db::Postgres(pool) => Some(tokio::spawn(postgres::listen(
                pool.clone(),
                wake.clone(),
                Arc::clone(&token_generation),
            ))),
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
                listener,
                token_generation,
                newer_release,
                release_recorded: std::sync::atomic::AtomicBool::new(false),
                event_ids,
            }),
        })
    }

    /// Refuses when a newer release has appended to the log; otherwise records this build's
    /// release before its first append.
    async fn check_release(&self) -> Result<(), StoreError> {
        use std::sync::atomic::Ordering;
        if let Some(release) = &self.inner.newer_release {
            return Err(StoreError::NewerRelease {
                release: release.clone(),
            });
        }
        if !self.inner.release_recorded.load(Ordering::Acquire) {
            // The wall clock, not the injected one: this is not an event's time.
            releases::record_this(&self.inner.db, SystemClock.now()).await?;
            self.inner.release_recorded.store(true, Ordering::Release);
        }
        Ok(())
    }

    /// Every release that has appended to the log, oldest first, with when it first did.
    pub async fn releases(&self) -> Result<Vec<(String, Timestamp)>, StoreError> {
        releases::all(&self.inner.db).await
    }

    /// Applies `migrator` (for `league migrate`; `open` does this unless told not to).
    pub async fn apply_migrations(&self, migrator: &Migrator) -> Result<(), StoreError> {
        run_migrations(&self.inner.db, migrator).await
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
        match &self.inner.db {
            Db::Sqlite(p) => p.close().await,
            Db::Postgres(p) => p.close().await,
        }
    }

    /// Wakes this process's readers of the log ([`Store::subscribe_all`]) to read now:
    /// another process's append reaches them only by its hint or their next poll.
    pub fn wake_subscribers(&self) {
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
        let fingerprint = idempotency_key.map(|_| append_fingerprint(stream_id, events));
        self.append_keyed(stream_id, expected, events, idempotency_key, fingerprint)
            .await
    }

    /// [`Store::append`] for a client's request: `key` is recorded with the fingerprint of
    /// `request` (what the client asked, which a retry repeats exactly) rather than of the
    /// events (which a decision made again may change). The same key with another request
    /// is `IdempotencyMismatch`; with the same request, the original positions.
    pub async fn append_for_request(
        &self,
        stream_id: &str,
        expected: ExpectedVersion,
        events: &[NewEvent],
        key: &str,
        request: &Hash,
    ) -> Result<Appended, StoreError> {
        let fingerprint = crate::hash::request_fingerprint(stream_id, request);
        self.append_keyed(stream_id, expected, events, Some(key), Some(fingerprint))
            .await
    }

    async fn append_keyed(
        &self,
        stream_id: &str,
        expected: ExpectedVersion,
        events: &[NewEvent],
        idempotency_key: Option<&str>,
        fingerprint: Option<Hash>,
    ) -> Result<Appended, StoreError> {
        validate(stream_id, events, idempotency_key)?;
        self.check_release().await?;
        let result = match &self.inner.db {
            Db::Postgres(pool) => {
                postgres::append(
                    self,
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
                sqlite::append(
                    self,
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
        let (v, h) = match &self.inner.db {
            Db::Postgres(pool) => postgres::stream_head(pool, stream_id).await?,
            Db::Sqlite(pool) => sqlite::stream_head(pool, stream_id).await?,
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
        let from = to_i64(from_version.max(1));
        let events = match &self.inner.db {
            Db::Postgres(pool) => postgres::read_stream(pool, stream_id, from).await?,
            Db::Sqlite(pool) => sqlite::read_stream(pool, stream_id, from).await?,
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
        // connections, reads rows through sqlx. PostgreSQL reads rows, each column taken as
        // its raw binary value (`decode_pg_event`).
        match &self.inner.db {
            Db::Postgres(pool) => postgres::read_all(pool, from_position, limit).await,
            Db::Sqlite(pool) => {
                sqlite::read_all(pool, self.inner.direct.as_ref(), from_position, limit).await
            }
        }
    }

    /// [`Store::read_all`] reduced to what a projection folds (position, stream, version,
    /// payload): a quarter of the columns, for rebuilds. Same order and horizon.
    pub async fn read_log(
        &self,
        from_position: u64,
        limit: usize,
    ) -> Result<Vec<LogEntry>, StoreError> {
        match &self.inner.db {
            Db::Postgres(pool) => postgres::read_log(pool, from_position, limit).await,
            Db::Sqlite(pool) => {
                sqlite::read_log(pool, self.inner.direct.as_ref(), from_position, limit).await
            }
        }
    }

    /// The highest position committed so far (ignoring the commit horizon), if any.
    pub async fn last_position(&self) -> Result<Option<u64>, StoreError> {
        let max: Option<i64> = match &self.inner.db {
            Db::Postgres(pool) => postgres::last_position(pool).await?,
            Db::Sqlite(pool) => sqlite::last_position(pool).await?,
        };
        max.map(|m| to_u64("position", m)).transpose()
    }

    /// The highest position committed so far, if any, and whether `read_all` can already
    /// return it (on PostgreSQL, whether every transaction that could still commit below it
    /// has ended; always on SQLite): one round trip for what [`Store::last_position`] then
    /// [`Store::wait_readable`] would ask in two.
    pub async fn log_head(&self) -> Result<(Option<u64>, bool), StoreError> {
        let (max, readable) = match &self.inner.db {
            Db::Postgres(pool) => postgres::log_head(pool).await?,
            Db::Sqlite(pool) => (sqlite::last_position(pool).await?, true),
        };
        Ok((max.map(|m| to_u64("position", m)).transpose()?, readable))
    }

    /// Waits until `read_all` can return the event at `position` (and everything before it):
    /// at once on SQLite; on PostgreSQL once every transaction that started writing before it
    /// has finished. Returns false if that took longer than `timeout`.
    pub async fn wait_readable(
        &self,
        position: u64,
        timeout: Duration,
    ) -> Result<bool, StoreError> {
        match &self.inner.db {
            Db::Sqlite(_) => Ok(true),
            Db::Postgres(pool) => {
                postgres::wait_readable(pool, self.inner.wake.subscribe(), position, timeout).await
            }
        }
    }

    /// Every event from `from_position` on, in global order: first the log as it stands,
    /// then live, as one sequence with no gap and no duplicate.
    pub fn subscribe_all(&self, from_position: u64) -> Subscription {
        Subscription::new(self.clone(), from_position)
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

/// Runs `migrator` on the store's database.
/// A migration the database has but this build does not know was applied by a newer
/// release: [`StoreError::NewerSchema`].
async fn run_migrations(db: &Db, migrator: &Migrator) -> Result<(), StoreError> {
    let run = match db {
        Db::Sqlite(pool) => migrator.run(pool).await,
        Db::Postgres(pool) => migrator.run(pool).await,
    };
    run.map_err(|e| match e {
        sqlx::migrate::MigrateError::VersionMissing(migration) => {
            StoreError::NewerSchema { migration }
        }
        e => e.into(),
    })
}

/// One event as a fold needs it: where it is, which stream and version, its type and the
/// version of the type's shape, and its payload.
///
/// Read in bulk, so cheap to hand out: a stream id or an event type is allocated once per
/// read and shared by its events, and on SQLite every payload is a slice of the value its
/// page was read in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogEntry {
    pub position: u64,
    pub stream_id: Arc<str>,
    pub stream_version: u64,
    pub event_type: Arc<str>,
    pub schema_version: u32,
    pub payload: Bytes,
}

/// The names (stream ids, event types) met in one read, each allocated once.
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
