//! The store on PostgreSQL: all of its SQL (the events' together at the top of this file;
//! the binary `COPY` statements are built in `pg_copy`), opening its pool, appends (the
//! stream head read, then one `INSERT` whose transaction id orders the events; appends on
//! known heads are written in groups by `pg_batch`), reads below the commit horizon (rows
//! decoded from their raw binary values; a large `read_all` page as two halves on two
//! connections, `pg_copy` and `pg_warm`), the auditor's reads, and the listener that turns
//! the sealer's NOTIFY hints into wake-ups. The sealer's SQL is in `seals`, the tokens' and
//! the idempotency-key lookup's in `tokens`. `Store`'s methods in `store/mod.rs`, and those
//! of `sealer`, `tokens` and `verify`, call these functions.

pub(crate) mod seals;
pub(crate) mod tokens;

use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use futures_util::TryStreamExt as _;
use sqlx::Row as _;
use sqlx::postgres::{PgConnectOptions, PgListener, PgPool, PgPoolOptions, PgRow};
use tokio::sync::watch;

use super::{
    DocRow, IdempotentRecord, LogEntry, NOTIFY_CHANNEL, ReadModelDoc, Store, StoreOptions,
    build_rows, check_expected, decode_event, head_of, head_of_rows, ping_if_idle, to_hash, to_i64,
    to_u64,
};
use crate::error::StoreError;
use crate::pg_copy;
use crate::pg_warm::WarmConnections;
use crate::types::{Appended, ExpectedVersion, Hash, NewEvent, RecordedEvent, Timestamp};

/// Bits of a PostgreSQL position that hold the event's index within its transaction.
pub(crate) const PG_INDEX_BITS: u32 = 16;
/// How many times an `ExpectedVersion::Any` append retries after losing a race (with a
/// jittered back-off, so that the last winner, which knows the new head, cannot starve the
/// others).
const ANY_RETRIES: u32 = 1_000;
/// Pages of at least this many events are read from PostgreSQL on two connections when a
/// second one is at hand.
const PG_SPLIT_MIN: usize = 2_048;

/// The schema's migrations, in order (`migrator` names them).
pub(super) const MIGRATIONS: [&str; 4] = [
    include_str!("../../../../../migrations/postgres/0001_event_store.sql"),
    include_str!("../../../../../migrations/postgres/0002_read_models.sql"),
    include_str!("../../../../../migrations/postgres/0003_tokens.sql"),
    include_str!("../../../../../migrations/postgres/0004_seals_by_position.sql"),
];

const HEAD: &str = "SELECT h.stream_version, h.hash, i.stream_id, i.fingerprint, \
    i.first_position, i.event_count, i.first_version \
    FROM (SELECT 1) AS one \
    LEFT JOIN LATERAL (SELECT stream_version, hash FROM events WHERE stream_id = $1 \
        ORDER BY stream_version DESC LIMIT 1) AS h ON true \
    LEFT JOIN idempotency AS i ON i.key = $2";

/// The whole append is this one statement in its own transaction, so the transaction's id
/// (xid8) is assigned here, after the snapshot in which the stream head was read: the
/// invariant the global order rests on (see `lib.rs`).
const INSERT: &str = "WITH ins AS ( \
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

/// `read_all`'s query on PostgreSQL: up to `$2` events from position `$1` on, below the
/// commit horizon.
const READ_ALL: &str = "SELECT position, stream_id, stream_version, event_type, \
    schema_version, payload, actor, correlation_id, causation_id, idempotency_key, \
    recorded_at, prev_hash, hash FROM events WHERE position >= $1 \
    AND position < (pg_snapshot_xmin(pg_current_snapshot())::text::bigint << 16) \
    ORDER BY position LIMIT $2";

const HORIZON: &str = "SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint << 16";

const STREAM_HEAD: &str = "SELECT stream_version, hash FROM events WHERE stream_id = $1 \
    ORDER BY stream_version DESC LIMIT 1";

const READ_STREAM: &str = "SELECT position, stream_id, stream_version, event_type, \
    schema_version, payload, actor, correlation_id, causation_id, idempotency_key, \
    recorded_at, prev_hash, hash FROM events WHERE stream_id = $1 \
    AND stream_version >= $2 ORDER BY stream_version";

const LAST_POSITION: &str = "SELECT max(position) FROM events";

/// The auditor's read: events with positions in `[$1, $2]`, up to `$3`, ignoring the commit
/// horizon.
const READ_RANGE: &str = "SELECT position, stream_id, stream_version, event_type, \
    schema_version, payload, actor, correlation_id, causation_id, idempotency_key, \
    recorded_at, prev_hash, hash FROM events WHERE position >= $1 AND position <= $2 \
    ORDER BY position LIMIT $3";

const EVENT_AT: &str = "SELECT position, stream_id, stream_version, event_type, \
    schema_version, payload, actor, correlation_id, causation_id, idempotency_key, \
    recorded_at, prev_hash, hash FROM events WHERE stream_id = $1 AND stream_version = $2";

const READ_MODEL_UPSERT: &str = "INSERT INTO read_models (projection, kind, key, doc) \
    VALUES ($1, $2, $3, $4) ON CONFLICT (projection, kind, key) DO UPDATE SET doc = excluded.doc";
const READ_MODEL_DELETE: &str = "DELETE FROM read_models WHERE projection = $1 AND kind = $2 \
    AND key = $3 AND $4 = $4";
const CHECKPOINT_UPSERT: &str = "INSERT INTO projection_checkpoints (projection, position) \
    VALUES ($1, $2) ON CONFLICT (projection) DO UPDATE SET position = excluded.position";
const CHECKPOINT: &str = "SELECT position FROM projection_checkpoints WHERE projection = $1";
const READ_MODEL_DOCS: &str =
    "SELECT kind, key, doc FROM read_models WHERE projection = $1 ORDER BY kind, key";

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

/// [`Store::pg_connections`]: the pool's connections and those kept in `warm`.
pub(super) fn connections(pool: &PgPool, warm: &WarmConnections) -> PgConnections {
    PgConnections {
        open: pool.size(),
        idle: pool.num_idle(),
        kept: warm.len(),
    }
}

/// Opens the pool.
pub(super) async fn connect(url: &str, options: &StoreOptions) -> Result<PgPool, StoreError> {
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
    Ok(pool)
}

/// [`Store::append`] on PostgreSQL, its arguments checked.
pub(super) async fn append(
    store: &Store,
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
        ExpectedVersion::Exact(v) => store.cached_head(stream_id).filter(|h| h.0 == v).map(Some),
        ExpectedVersion::Any => store.cached_head(stream_id).map(Some),
    };
    for attempt in 0..ANY_RETRIES {
        let known_head = known.take();
        let from_cache = known_head.is_some();
        let head = if let Some(head) = known_head {
            head
        } else {
            let row: PgRow = sqlx::query(HEAD)
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
        let mut rows = build_rows(stream_id, head, events, key, store.inner.clock.as_ref());
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
            let grouped = store.inner.groups.append(pool, stream_id, rows).await;
            if let crate::pg_batch::Grouped::Appended(first_position) = grouped {
                if let Some(h) = new_head {
                    store.remember_head(stream_id, h);
                }
                return Ok(appended(first_position));
            }
            rows = build_rows(stream_id, head, events, key, store.inner.clock.as_ref());
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
        let inserted = sqlx::query(INSERT)
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
                    store.remember_head(stream_id, h);
                }
                return Ok(appended(first_position));
            }
            Err(err) if StoreError::is_unique_violation(&err) => {
                store.forget_head(stream_id);
                // Either the stream moved on (a racing append took our version) or a
                // racing append used our idempotency key. The next round's head read
                // tells which; an exact expectation then reports the conflict.
                if expected == ExpectedVersion::Any || key.is_some() {
                    back_off(attempt).await;
                    continue;
                }
                let actual = store.stream_head(stream_id).await?.map(|h| h.0);
                return Err(StoreError::Conflict { expected, actual });
            }
            Err(err) => return Err(err.into()),
        }
    }
    let actual = store.stream_head(stream_id).await?.map(|h| h.0);
    Err(StoreError::Conflict { expected, actual })
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

/// Sleeps a random 0..2^attempt ms (at most 16 ms) after the first few lost races.
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

/// [`Store::stream_head`]'s row: the last version and hash of a stream, if it has events.
pub(super) async fn stream_head(
    pool: &PgPool,
    stream_id: &str,
) -> Result<(Option<i64>, Option<Vec<u8>>), StoreError> {
    Ok(sqlx::query_as(STREAM_HEAD)
        .bind(stream_id)
        .fetch_optional(pool)
        .await?
        .map_or((None, None), |(v, h): (i64, Vec<u8>)| (Some(v), Some(h))))
}

/// The events of one stream from version `from` on, in version order.
pub(super) async fn read_stream(
    pool: &PgPool,
    stream_id: &str,
    from: i64,
) -> Result<Vec<RecordedEvent>, StoreError> {
    sqlx::query(READ_STREAM)
        .bind(stream_id)
        .bind(from)
        .fetch_all(pool)
        .await?
        .iter()
        .map(decode_event)
        .collect()
}

/// Events with positions in `[from, to]`, at most `limit`, ignoring the commit horizon (the
/// auditor wants everything stored). Not prepared, as `read_pg_rows` explains.
pub(crate) async fn read_range(
    pool: &PgPool,
    from: i64,
    to: i64,
    limit: i64,
) -> Result<Vec<RecordedEvent>, StoreError> {
    sqlx::query(READ_RANGE)
        .persistent(false)
        .bind(from)
        .bind(to)
        .bind(limit)
        .fetch_all(pool)
        .await?
        .iter()
        .map(decode_event)
        .collect()
}

/// The event of `stream_id` at `version`, if there is one.
pub(crate) async fn event_at(
    pool: &PgPool,
    stream_id: &str,
    version: i64,
) -> Result<Option<RecordedEvent>, StoreError> {
    sqlx::query(EVENT_AT)
        .bind(stream_id)
        .bind(version)
        .fetch_optional(pool)
        .await?
        .map(|r| decode_event(&r))
        .transpose()
}

/// [`Store::read_all`] on PostgreSQL: a large page as two halves when a second connection is
/// at hand (`read_all_pg_split`), otherwise as rows.
pub(super) async fn read_all(
    pool: &PgPool,
    warm: &Arc<WarmConnections>,
    from_position: u64,
    limit: usize,
) -> Result<Vec<RecordedEvent>, StoreError> {
    if limit >= PG_SPLIT_MIN
        && let Some(second) = warm.second(pool).await
    {
        return read_all_pg_split(pool, warm, second, from_position, limit).await;
    }
    let mut events = Vec::with_capacity(limit.min(10_000));
    let params = [to_i64(from_position), count_param(limit)];
    read_pg_rows(pool, READ_ALL, &params, &mut events).await?;
    Ok(events)
}

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
    warm: &Arc<WarmConnections>,
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
    // `league-bench store` and the `read_all` example, the main thread in `block_on`, which
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
    warm: &Arc<WarmConnections>,
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
    warm: &Arc<WarmConnections>,
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

/// [`Store::read_log`] on PostgreSQL: one binary `COPY` (`pg_copy`).
pub(super) async fn read_log(
    pool: &PgPool,
    warm: &Arc<WarmConnections>,
    from_position: u64,
    limit: usize,
) -> Result<Vec<LogEntry>, StoreError> {
    let mut entries = Vec::with_capacity(limit.min(10_000));
    pg_copy::read_log(pool, warm, from_position, limit, &mut entries).await?;
    Ok(entries)
}

/// The highest position committed so far (ignoring the commit horizon), if any.
pub(super) async fn last_position(pool: &PgPool) -> Result<Option<i64>, StoreError> {
    Ok(sqlx::query_scalar(LAST_POSITION).fetch_one(pool).await?)
}

/// [`Store::wait_readable`] on PostgreSQL: polls the commit horizon.
pub(super) async fn wait_readable(
    pool: &PgPool,
    position: u64,
    timeout: Duration,
) -> Result<bool, StoreError> {
    let deadline = tokio::time::Instant::now() + timeout;
    loop {
        let horizon: i64 = sqlx::query_scalar(HORIZON).fetch_one(pool).await?;
        if to_u64("horizon", horizon)? > position {
            return Ok(true);
        }
        if tokio::time::Instant::now() >= deadline {
            return Ok(false);
        }
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
}

/// [`Store::put_read_models`] on PostgreSQL: the documents and the checkpoint in one
/// transaction.
pub(super) async fn put_read_models(
    pool: &PgPool,
    projection: &str,
    position: i64,
    docs: &[ReadModelDoc],
) -> Result<(), StoreError> {
    let mut tx = pool.begin().await?;
    for d in docs {
        sqlx::query(if d.doc.is_empty() {
            READ_MODEL_DELETE
        } else {
            READ_MODEL_UPSERT
        })
        .bind(projection)
        .bind(&d.kind)
        .bind(&d.key)
        .bind(&d.doc)
        .execute(&mut *tx)
        .await?;
    }
    sqlx::query(CHECKPOINT_UPSERT)
        .bind(projection)
        .bind(position)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(())
}

/// [`Store::read_models`]'s rows: the checkpoint and the documents, by kind and key.
pub(super) async fn read_models(
    pool: &PgPool,
    projection: &str,
) -> Result<(Option<i64>, Vec<DocRow>), StoreError> {
    Ok((
        sqlx::query_scalar(CHECKPOINT)
            .bind(projection)
            .fetch_optional(pool)
            .await?,
        sqlx::query_as(READ_MODEL_DOCS)
            .bind(projection)
            .fetch_all(pool)
            .await?,
    ))
}

/// Forwards the sealer's NOTIFY hints (from any process) to this process's subscribers.
/// A lost notification only delays a subscriber until its next poll.
pub(super) async fn listen(pool: PgPool, wake: watch::Sender<u64>) {
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
