//! The league's event store: an append-only, hash-chained log of opaque JSON events on
//! SQLite (embedded default) or PostgreSQL (production), sealed into an RFC 6962 Merkle tree
//! with Ed25519-signed tree heads. It knows nothing of poker: streams are strings, payloads
//! are bytes with a type and a schema version.
//!
//! # Layout
//!
//! - [`types`]: what is appended ([`NewEvent`], [`ExpectedVersion`]) and read
//!   ([`RecordedEvent`]), limits, the injectable [`Clock`].
//! - [`store`]: [`Store`]: open/migrate, `append`, `read_stream`, `read_all`, `read_log`,
//!   and what both backends share (building and hashing rows, expected versions,
//!   idempotency, the stream-head cache); each backend's SQL and the code that runs it in
//!   the private `store::sqlite` and `store::postgres` (the sealer's in their `seals`, the
//!   tokens' in their `tokens`), which `Store`'s methods call, here and in `sealer`,
//!   `verify` and `tokens`, one function per backend and operation; bulk reads of the
//!   SQLite log in a file in `store::sqlite::direct` (rows read in place through
//!   rusqlite); PostgreSQL appends on known heads written in groups, one transaction for
//!   many streams, in `store::postgres::batch`; [`store::copy`]: a whole store copied,
//!   row for row, into an empty one on either backend (`Store::copy_to`).
//! - [`subscribe`]: `subscribe_all`, catch-up then live.
//! - [`hash`]: the byte encodings of event hashes and tree-head messages
//!   (`docs/event-store.md`).
//! - [`merkle`]: RFC 6962 trees, proofs and their verification; pure.
//! - [`sealer`]: folds the global order into the tree, signs heads, sends NOTIFY hints
//!   (what a round decides; each backend's round runs it in its own transaction).
//! - [`verify`]: the auditor's walk, inclusion and consistency proofs.
//! - [`heads`]: signed tree heads saved outside the database, and the log checked against
//!   them; [`export`]: the log, its seals and heads as JSON lines for an auditor's tools.
//! - [`tokens`]: the API's bearer tokens (hashes only) and the idempotency-key lookup.
//!
//! No SQL outside `store`.
//!
//! # Invariants
//!
//! 1. **A stream's events are versions 1, 2, 3, ... with no gap**, each hash chaining to the
//!    previous one; an append commits all its events or none. Two appends of one version
//!    cannot both commit: a unique index on `(stream_id, stream_version)` makes the loser
//!    fail, detected with sqlx's portable `is_unique_violation()`.
//! 2. **The global order never changes once read.** `read_all` and subscriptions only return
//!    events below the *commit horizon*, so an event not yet returned can never sort before
//!    one that was, and a reader resuming after its last position misses nothing.
//!    - SQLite has one writer at a time (`BEGIN IMMEDIATE`, plus an in-process queue), which
//!      assigns `max(position) + 1`: commit order is position order, the horizon is simply
//!      everything committed, and positions are dense. (With a known head and no
//!      idempotency key, the append is one autocommit `INSERT` computing `max(position)`
//!      under the write lock it takes at its start: the same guarantee in one statement.)
//!    - PostgreSQL keeps concurrent writers (no global lock). An append is one statement in
//!      its own transaction: it reads the stream head first (separate statement), then one
//!      `INSERT` whose transaction id (`pg_current_xact_id()`, xid8) is therefore assigned
//!      *after* the snapshot that saw the head. The position is `xid << 16 | index in the
//!      batch`. Readers only read positions below `pg_snapshot_xmin(pg_current_snapshot())
//!      << 16`: every transaction with a smaller xid has finished, so nothing can still
//!      appear there, and anything that appears later has a larger xid. If T2 appends a
//!      stream's version v+1 after seeing T1's version v, T1 committed before T2's head
//!      read, so xid(T1) < xid(T2): per-stream order agrees with global order. (This is
//!      why the event insert must be the transaction's first write: an xid taken earlier
//!      could predate the head read.) Positions are unique and strictly increasing in read
//!      order but not contiguous. Cost: any long-running *writing* transaction on the
//!      cluster holds the horizon back, delaying (never reordering) readers.
//! 3. **Tamper evidence.** An event's hash covers its envelope, its exact payload bytes and
//!    its stream's previous hash (not the global position, which a PostgreSQL writer cannot
//!    know: the Merkle tree binds the global order). The sealer appends the events below the
//!    horizon, in position order, to the tree (leaf = `SHA-256(0x00 || event hash)`) and
//!    records each round's positions and leaves; signed tree heads follow every N events or
//!    T seconds. `verify` recomputes all of it and reports the first broken position.
//! 4. **Wake-ups.** A local append wakes local subscribers at once; on PostgreSQL the sealer
//!    sends one NOTIFY per round carrying only the sealed head, which wakes subscribers in
//!    other processes; every subscriber also polls, so a lost hint only delays.
//!
//! Durability: PostgreSQL with its default `synchronous_commit = on`; SQLite in WAL mode with
//! `synchronous = NORMAL`, which survives a crash of the process (a committed transaction is
//! in the WAL file) but may lose the last commits on power loss; set
//! [`StoreOptions::sqlite_synchronous_full`] for that.

pub mod error;
pub mod export;
pub mod hash;
pub mod heads;
pub mod merkle;
pub mod sealer;
pub mod store;
pub mod subscribe;
pub mod tokens;
pub mod types;
pub mod verify;

pub use error::StoreError;
pub use heads::{SavedHeadCheck, SavedHeadOutcome, parse_heads};
pub use sealer::{SealOutcome, SealerConfig, SealerHandle, TreeHead};
pub use store::{
    Backend, CheckpointMove, LogEntry, ReadModelDoc, Snapshot, Store, StoreOptions, backend_of,
    migrator,
};
pub use subscribe::Subscription;
pub use tokens::{KeyUse, NewToken, TokenRecord};
pub use types::{
    Appended, Clock, EventId, ExpectedVersion, Hash, MAX_BATCH_EVENTS, MAX_PAYLOAD_BYTES, Metadata,
    NewEvent, RecordedEvent, SystemClock, Timestamp,
};
pub use verify::{Break, BreakKind, InclusionProof, TrustedKeys, Uncovered, VerifyReport};

pub use ed25519_dalek::{SigningKey, VerifyingKey};
