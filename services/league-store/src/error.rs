//! The store's errors: what a caller can act on is typed; the database's own failures are
//! wrapped, never matched by message.

use crate::types::ExpectedVersion;

/// Everything an operation of the store can fail with.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The stream's version was not the one expected. Nothing was appended.
    #[error("version conflict on the stream: expected {expected}, actual {}", actual.map_or_else(|| "no stream".to_owned(), |v| format!("version {v}")))]
    Conflict {
        /// What the caller expected.
        expected: ExpectedVersion,
        /// The stream's last version (`None`: the stream has no events).
        actual: Option<u64>,
    },
    /// The idempotency key was already used for a different append. Nothing was appended.
    #[error("idempotency key {key:?} was already used with different events")]
    IdempotencyMismatch {
        /// The reused key.
        key: String,
    },
    /// An append of zero events.
    #[error("an append needs at least one event")]
    EmptyBatch,
    /// More events in one append than `MAX_BATCH_EVENTS`.
    #[error("{count} events in one append; the limit is {limit}")]
    BatchTooLarge {
        /// Events submitted.
        count: usize,
        /// The limit.
        limit: usize,
    },
    /// A payload larger than `MAX_PAYLOAD_BYTES`.
    #[error("event {index} of the batch has {size} payload bytes; the limit is {limit}")]
    PayloadTooLarge {
        /// Index of the event within the batch.
        index: usize,
        /// Its size.
        size: usize,
        /// The limit.
        limit: usize,
    },
    /// A payload that is not one valid JSON value.
    #[error("event {index} of the batch: payload is not valid JSON: {reason}")]
    InvalidJson {
        /// Index of the event within the batch.
        index: usize,
        /// The parser's complaint.
        reason: String,
    },
    /// An empty, over-long or control-character-laden stream id, event type or key.
    #[error("invalid {what}: {value:?}")]
    InvalidName {
        /// Which field.
        what: &'static str,
        /// The offending value (truncated).
        value: String,
    },
    /// A schema version of 0 (versions start at 1).
    #[error("event {index} of the batch: schema version must be at least 1")]
    InvalidSchemaVersion {
        /// Index of the event within the batch.
        index: usize,
    },
    /// Reading a stream that has no events.
    #[error("stream {0:?} does not exist")]
    StreamNotFound(String),
    /// A Merkle proof was asked for a tree size or leaf that the sealed log does not have.
    #[error("no such sealed tree: {0}")]
    NoSuchTree(String),
    /// The database URL names neither SQLite nor PostgreSQL.
    #[error("unsupported database URL {0:?} (expected sqlite:PATH or postgres://...)")]
    UnsupportedUrl(String),
    /// A stored value that the store itself could not have written (wrong hash length,
    /// negative version, ...): the database was edited or is not ours.
    #[error("corrupt row: {0}")]
    Corrupt(String),
    /// The database failed.
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
    /// The database failed, in a bulk read of SQLite's log (see `store::sqlite::direct`).
    #[error("database error: {0}")]
    DirectRead(#[from] rusqlite::Error),
    /// A newer release has appended to this log: this build refuses to append to it.
    #[error(
        "release {release} has appended to this log, and this build is release {this}: \
         a newer release may have written events this one cannot read back; run release \
         {release} or a later one",
        this = crate::store::releases::RELEASE
    )]
    NewerRelease {
        /// The newest release recorded in the log.
        release: String,
    },
    /// The database has a migration this build does not know: a newer release migrated it.
    #[error(
        "the database has migration {migration}, which release {this} does not know: a newer \
         release migrated it; run that release or a later one",
        this = crate::store::releases::RELEASE
    )]
    NewerSchema {
        /// The unknown migration's number.
        migration: i64,
    },
    /// Applying the migrations failed.
    #[error("migration failed: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    /// A copy's target already holds rows (in the table named).
    #[error("the target database is not empty: its table {0} has rows; copy into a new database")]
    CopyTargetNotEmpty(String),
    /// The source's log grew while it was copied.
    #[error(
        "the source's log grew during the copy (is a service still writing to it?): nothing was copied; stop it and copy again"
    )]
    CopySourceMoved,
    /// A copy into PostgreSQL whose positions the target's transaction ids have not passed:
    /// its log would not be readable, and new events would sort before the copied ones.
    #[error(
        "the copied log reaches position {position}, which this PostgreSQL cluster's transaction ids (at {xid}) have not passed: nothing was copied; copy into a cluster whose transaction counter is past {}",
        position >> 16
    )]
    CopyPositionsAhead { position: u64, xid: u64 },
}

impl StoreError {
    /// True if talking to the database failed (its connection's I/O), as opposed to the
    /// database refusing the statement: another connection may succeed.
    pub fn is_connection_io(&self) -> bool {
        matches!(self, StoreError::Database(sqlx::Error::Io(_)))
    }

    /// True for a unique-constraint violation, however the backend spells it.
    pub(crate) fn is_unique_violation(err: &sqlx::Error) -> bool {
        err.as_database_error()
            .is_some_and(|db| db.is_unique_violation())
    }
}
