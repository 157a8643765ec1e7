//! The store on PostgreSQL: all of its SQL (the events' together at the top of this file),
//! opening its pool, appends (the stream head read, then one `INSERT` whose transaction id
//! orders the events; appends on known heads are written in groups by `batch`), reads
//! below the commit horizon (rows decoded from their raw binary values), the auditor's
//! reads, and the listener that turns the sealer's NOTIFY hints into wake-ups. The sealer's SQL is in `seals`, the tokens' and
//! the idempotency-key lookup's in `tokens`. `Store`'s methods in `store/mod.rs`, and those
//! of `sealer`, `tokens` and `verify`, call these functions.

pub(crate) mod batch;
pub(crate) mod seals;
pub(crate) mod tokens;

use std::str::FromStr;
use std::time::Duration;

use futures_util::TryStreamExt as _;
use sqlx::postgres::{PgConnectOptions, PgListener, PgPool, PgPoolOptions, PgRow};
use sqlx::{AssertSqlSafe, Row as _};
use tokio::sync::watch;

use super::{
    DocRow, IdempotentRecord, LogEntry, NOTIFY_CHANNEL, ReadModelDoc, Snapshot, SnapshotRow, Store,
    StoreOptions, StreamIds, build_rows, check_expected, decode_event, event_sql, head_of,
    head_of_rows, ping_if_idle, schema_version, to_event_id, to_hash, to_i64, to_u64,
};
use crate::error::StoreError;
use crate::types::{Appended, ExpectedVersion, Hash, NewEvent, RecordedEvent, Timestamp};

/// Bits of a PostgreSQL position that hold the event's index within its transaction.
pub(crate) const PG_INDEX_BITS: u32 = 16;
/// How many times an `ExpectedVersion::Any` append retries after losing a race (with a
/// jittered back-off, so that the last winner, which knows the new head, cannot starve the
/// others).
const ANY_RETRIES: u32 = 1_000;

/// The schema's migrations, in order (`migrator` names them).
pub(super) const MIGRATIONS: [&str; 9] = [
    include_str!("../../../../../migrations/postgres/0001_event_store.sql"),
    include_str!("../../../../../migrations/postgres/0002_read_models.sql"),
    include_str!("../../../../../migrations/postgres/0003_tokens.sql"),
    include_str!("../../../../../migrations/postgres/0004_seals_by_position.sql"),
    include_str!("../../../../../migrations/postgres/0005_releases.sql"),
    include_str!("../../../../../migrations/postgres/0006_draw_secrets.sql"),
    include_str!("../../../../../migrations/postgres/0007_token_scope_and_expiry.sql"),
    include_str!("../../../../../migrations/postgres/0008_event_ids.sql"),
    include_str!("../../../../../migrations/postgres/0009_snapshots.sql"),
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
        prev_hash, hash, event_id) \
    SELECT x.base | u.idx::bigint, $1, u.ver, u.typ, \
        u.sv, u.payload, u.actor, u.corr, u.caus, $2, u.at, u.prev, u.hash, u.id \
    FROM (SELECT pg_current_xact_id()::text::bigint << 16 AS base) AS x, UNNEST($3::int4[], $4::int8[], $5::text[], $6::int4[], $7::bytea[], $8::text[], \
        $9::text[], $10::text[], $11::int8[], $12::bytea[], $13::bytea[], $17::bytea[]) \
        AS u(idx, ver, typ, sv, payload, actor, corr, caus, at, prev, hash, id) \
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
    recorded_at, prev_hash, hash, event_id FROM events WHERE position >= $1 \
    AND position < (pg_snapshot_xmin(pg_current_snapshot())::text::bigint << 16) \
    ORDER BY position LIMIT $2";

/// `read_log`'s query: what a projection folds of up to `$2` events from position `$1` on,
/// below the commit horizon.
const READ_LOG: &str = "SELECT position, stream_id, stream_version, event_type, schema_version, \
    payload FROM events \
    WHERE position >= $1 \
    AND position < (pg_snapshot_xmin(pg_current_snapshot())::text::bigint << 16) \
    ORDER BY position LIMIT $2";

const HORIZON: &str = "SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint << 16";

const STREAM_HEAD: &str = "SELECT stream_version, hash FROM events WHERE stream_id = $1 \
    ORDER BY stream_version DESC LIMIT 1";

const READ_STREAM: &str = "SELECT position, stream_id, stream_version, event_type, \
    schema_version, payload, actor, correlation_id, causation_id, idempotency_key, \
    recorded_at, prev_hash, hash, event_id FROM events WHERE stream_id = $1 \
    AND stream_version >= $2 ORDER BY stream_version";

const LAST_POSITION: &str = "SELECT max(position) FROM events";

/// The last position and the commit horizon, read in one statement's snapshot.
const LOG_HEAD: &str = "SELECT max(position), \
    pg_snapshot_xmin(pg_current_snapshot())::text::bigint << 16 FROM events";

/// The auditor's read: events with positions in `[$1, $2]`, up to `$3`, ignoring the commit
/// horizon.
const READ_RANGE: &str = "SELECT position, stream_id, stream_version, event_type, \
    schema_version, payload, actor, correlation_id, causation_id, idempotency_key, \
    recorded_at, prev_hash, hash, event_id FROM events WHERE position >= $1 AND position <= $2 \
    ORDER BY position LIMIT $3";

const EVENT_AT: &str = "SELECT position, stream_id, stream_version, event_type, \
    schema_version, payload, actor, correlation_id, causation_id, idempotency_key, \
    recorded_at, prev_hash, hash, event_id FROM events WHERE stream_id = $1 AND stream_version = $2";

const READ_MODEL_UPSERT: &str = "INSERT INTO read_models (projection, kind, key, doc) \
    VALUES ($1, $2, $3, $4) ON CONFLICT (projection, kind, key) DO UPDATE SET doc = excluded.doc";
const READ_MODEL_DELETE: &str = "DELETE FROM read_models WHERE projection = $1 AND kind = $2 \
    AND key = $3 AND $4 = $4";
const CHECKPOINT_UPSERT: &str = "INSERT INTO projection_checkpoints (projection, position) \
    VALUES ($1, $2) ON CONFLICT (projection) DO UPDATE SET position = excluded.position";
const CHECKPOINT: &str = "SELECT position FROM projection_checkpoints WHERE projection = $1";
const CHECKPOINT_UPSERT_FORWARD: &str = "INSERT INTO projection_checkpoints (projection, \
    position) VALUES ($1, $2) ON CONFLICT (projection) DO UPDATE SET position = \
    excluded.position WHERE projection_checkpoints.position <= excluded.position";
const CHECKPOINT_FORWARD: &str = "UPDATE projection_checkpoints SET position = $2 \
    WHERE projection = $1 AND position <= $2";
const READ_MODEL_DOCS: &str =
    "SELECT kind, key, doc FROM read_models WHERE projection = $1 ORDER BY kind, key";
const READ_MODEL_DOC: &str =
    "SELECT kind, key, doc FROM read_models WHERE projection = $1 AND kind = $2 AND key = $3";
const SNAPSHOT_UPSERT: &str = "INSERT INTO snapshots (projection, stream, version, format, \
    state, digest) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (projection, stream) DO UPDATE \
    SET version = excluded.version, format = excluded.format, state = excluded.state, \
    digest = excluded.digest";
const SNAPSHOT_DELETE: &str = "DELETE FROM snapshots WHERE projection = $1 AND stream = $2";
const SNAPSHOTS: &str = "SELECT stream, version, CAST(format AS BIGINT), state, digest \
    FROM snapshots WHERE projection = $1 ORDER BY stream";

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
        // transaction (`batch`); if that group fails, alone below.
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
            if let batch::Grouped::Appended(first_position) = grouped {
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
        let mut id = Vec::with_capacity(count);
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
            id.push(r.event_id);
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
            .bind(id)
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
    ids: bool,
) -> Result<Vec<RecordedEvent>, StoreError> {
    sqlx::query(AssertSqlSafe(event_sql(READ_RANGE, ids, "NULL::bytea")))
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
    ids: bool,
) -> Result<Option<RecordedEvent>, StoreError> {
    sqlx::query(AssertSqlSafe(event_sql(EVENT_AT, ids, "NULL::bytea")))
        .bind(stream_id)
        .bind(version)
        .fetch_optional(pool)
        .await?
        .map(|r| decode_event(&r))
        .transpose()
}

/// [`Store::read_all`] on PostgreSQL: rows, each column taken as its raw binary value
/// (`decode_pg_event`).
pub(super) async fn read_all(
    pool: &PgPool,
    from_position: u64,
    limit: usize,
) -> Result<Vec<RecordedEvent>, StoreError> {
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
    let stored_version = <[u8; 4]>::try_from(bytes(4, "schema_version")?)
        .map(i32::from_be_bytes)
        .map_err(|_| corrupt("schema_version", "integer is not 4 bytes"))?;
    Ok(RecordedEvent {
        position: to_u64("position", int8(0, "position")?)?,
        stream_id: text(bytes(1, "stream_id")?, "stream_id")?,
        stream_version: to_u64("stream version", int8(2, "stream_version")?)?,
        event_type: text(bytes(3, "event_type")?, "event_type")?,
        schema_version: schema_version(stored_version)?,
        payload: bytes(5, "payload")?.to_vec(),
        actor: opt_text(6, "actor")?,
        correlation_id: opt_text(7, "correlation_id")?,
        causation_id: opt_text(8, "causation_id")?,
        idempotency_key: opt_text(9, "idempotency_key")?,
        recorded_at: Timestamp::from_micros(int8(10, "recorded_at")?),
        prev_hash: to_hash("prev_hash", bytes(11, "prev_hash")?)?,
        hash: to_hash("hash", bytes(12, "hash")?)?,
        stored_id: value(13, "event_id")?.map(to_event_id).transpose()?,
    })
}

/// [`Store::read_log`] on PostgreSQL: rows, not prepared (as `read_pg_rows` explains),
/// decoded as they arrive.
pub(super) async fn read_log(
    pool: &PgPool,
    from_position: u64,
    limit: usize,
) -> Result<Vec<LogEntry>, StoreError> {
    let mut entries = Vec::with_capacity(limit.min(10_000));
    let mut streams = StreamIds::default();
    let mut types = StreamIds::default();
    let mut rows = sqlx::query_as::<_, (i64, String, i64, String, i32, Vec<u8>)>(READ_LOG)
        .bind(to_i64(from_position))
        .bind(count_param(limit))
        .persistent(false)
        .fetch(pool);
    while let Some((position, stream, version, event_type, schema, payload)) =
        rows.try_next().await?
    {
        entries.push(LogEntry {
            position: to_u64("position", position)?,
            stream_id: streams.get(&stream),
            stream_version: to_u64("stream version", version)?,
            event_type: types.get(&event_type),
            schema_version: schema_version(schema)?,
            payload: bytes::Bytes::from(payload),
        });
    }
    Ok(entries)
}

/// The highest position committed so far (ignoring the commit horizon), if any.
pub(super) async fn last_position(pool: &PgPool) -> Result<Option<i64>, StoreError> {
    Ok(sqlx::query_scalar(LAST_POSITION).fetch_one(pool).await?)
}

/// [`Store::log_head`] on PostgreSQL: the highest committed position, and whether the
/// commit horizon is past it (every transaction that could still commit below it has ended).
pub(super) async fn log_head(pool: &PgPool) -> Result<(Option<i64>, bool), StoreError> {
    let (last, horizon): (Option<i64>, i64) = sqlx::query_as(LOG_HEAD).fetch_one(pool).await?;
    Ok((last, last.is_none_or(|last| horizon > last)))
}

/// [`Store::wait_readable`] on PostgreSQL: polls the commit horizon.
pub(super) async fn wait_readable(
    pool: &PgPool,
    mut wake: watch::Receiver<u64>,
    position: u64,
    timeout: Duration,
) -> Result<bool, StoreError> {
    let deadline = tokio::time::Instant::now() + timeout;
    // A transaction that holds the horizon back usually ends within milliseconds; one that
    // does not is not asked about 500 times a second by every waiter. The horizon is asked
    // again at the next local commit (most often the one that held it back: this
    // process's own appends) or after the pause, whichever comes first.
    let mut pause = Duration::from_millis(2);
    loop {
        wake.borrow_and_update();
        let horizon: i64 = sqlx::query_scalar(HORIZON).fetch_one(pool).await?;
        if to_u64("horizon", horizon)? > position {
            return Ok(true);
        }
        if tokio::time::Instant::now() >= deadline {
            return Ok(false);
        }
        tokio::select! {
            changed = wake.changed() => if changed.is_err() {
                tokio::time::sleep(pause).await;
            },
            () = tokio::time::sleep(pause) => pause = (pause * 2).min(Duration::from_millis(50)),
        }
    }
}

/// [`Store::put_read_models`] on PostgreSQL: the documents and the checkpoint in one
/// transaction.
pub(super) async fn put_read_models(
    pool: &PgPool,
    projection: &str,
    (position, forward): (i64, bool),
    docs: &[ReadModelDoc],
    snapshots: &[Snapshot],
) -> Result<bool, StoreError> {
    let mut tx = pool.begin().await?;
    // First, a write: it takes the lock that orders this transaction after any other
    // writer's, and says whether the stored checkpoint is behind this one.
    if forward {
        let moved = sqlx::query(CHECKPOINT_FORWARD)
            .bind(projection)
            .bind(position)
            .execute(&mut *tx)
            .await?
            .rows_affected();
        if moved == 0 {
            let stored: Option<i64> = sqlx::query_scalar(CHECKPOINT)
                .bind(projection)
                .fetch_optional(&mut *tx)
                .await?;
            if stored.is_some() {
                tx.rollback().await?;
                return Ok(false);
            }
        }
    }
    for s in snapshots {
        if s.state.is_empty() {
            sqlx::query(SNAPSHOT_DELETE)
                .bind(projection)
                .bind(&s.stream)
                .execute(&mut *tx)
                .await?;
        } else {
            sqlx::query(SNAPSHOT_UPSERT)
                .bind(projection)
                .bind(&s.stream)
                .bind(super::to_i64(s.version))
                .bind(i64::from(s.format))
                .bind(&s.state)
                .bind(&s.digest)
                .execute(&mut *tx)
                .await?;
        }
    }
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
    // Forward only even when two writers found no checkpoint at first.
    let moved = sqlx::query(if forward {
        CHECKPOINT_UPSERT_FORWARD
    } else {
        CHECKPOINT_UPSERT
    })
    .bind(projection)
    .bind(position)
    .execute(&mut *tx)
    .await?
    .rows_affected();
    if moved == 0 {
        tx.rollback().await?;
        return Ok(false);
    }
    tx.commit().await?;
    Ok(true)
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

/// Forwards the sealer's NOTIFY hints (from any process) to this process's subscribers,
/// and token revocations to the token generation. A lost hint only delays a subscriber
/// until its next poll; a reconnect bumps both, as it may have missed some.
pub(super) async fn listen(
    pool: PgPool,
    wake: watch::Sender<u64>,
    tokens: std::sync::Arc<std::sync::atomic::AtomicU64>,
) {
    use std::sync::atomic::Ordering;
    loop {
        if let Ok(mut listener) = PgListener::connect_with(&pool).await
            && listener
                .listen_all([NOTIFY_CHANNEL, super::TOKENS_CHANNEL])
                .await
                .is_ok()
        {
            wake.send_modify(|g| *g = g.wrapping_add(1));
            tokens.fetch_add(1, Ordering::SeqCst);
            // `try_recv`, not `recv`: `recv` reconnects silently after a lost connection,
            // and whatever was announced meanwhile would be missed unseen; `try_recv` says
            // `None` then (and reconnects on the next call), so both are bumped.
            loop {
                match listener.try_recv().await {
                    Ok(Some(notification)) => {
                        if notification.channel() == super::TOKENS_CHANNEL {
                            tokens.fetch_add(1, Ordering::SeqCst);
                        } else {
                            wake.send_modify(|g| *g = g.wrapping_add(1));
                        }
                    }
                    Ok(None) => {
                        tokens.fetch_add(1, Ordering::SeqCst);
                        wake.send_modify(|g| *g = g.wrapping_add(1));
                    }
                    Err(_) => break,
                }
            }
            tokens.fetch_add(1, Ordering::SeqCst);
        }
        if pool.is_closed() {
            return;
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}

/// [`Store::read_snapshots`]'s rows: the checkpoint and the snapshots, by stream, read in
/// one transaction (the snapshots are those of that checkpoint).
pub(super) async fn read_snapshots(
    pool: &PgPool,
    projection: &str,
) -> Result<(Option<i64>, Vec<SnapshotRow>), StoreError> {
    let mut tx = pool.begin().await?;
    // One snapshot of the database for both reads: a checkpoint written meanwhile is seen
    // whole or not at all.
    sqlx::query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        .execute(&mut *tx)
        .await?;
    let checkpoint = sqlx::query_scalar(CHECKPOINT)
        .bind(projection)
        .fetch_optional(&mut *tx)
        .await?;
    let rows = sqlx::query_as(SNAPSHOTS)
        .bind(projection)
        .fetch_all(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok((checkpoint, rows))
}

/// [`Store::read_docs`]'s rows.
pub(super) async fn read_docs(
    pool: &PgPool,
    projection: &str,
    kind: &str,
    keys: &[&str],
) -> Result<Vec<DocRow>, StoreError> {
    let mut conn = pool.acquire().await?;
    let mut rows = Vec::with_capacity(keys.len());
    for key in keys {
        let row: Option<DocRow> = sqlx::query_as(READ_MODEL_DOC)
            .bind(projection)
            .bind(kind)
            .bind(key)
            .fetch_optional(&mut *conn)
            .await?;
        rows.extend(row);
    }
    Ok(rows)
}
