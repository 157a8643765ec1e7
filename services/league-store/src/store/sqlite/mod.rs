//! The store on SQLite: all of its SQL (the events' together at the top of this file; the
//! bulk reads' in `direct`), opening its pool, appends (one autocommit statement on a known
//! head, otherwise a `BEGIN IMMEDIATE` transaction, both behind this process's writer
//! queue), the reads through sqlx's connections (a database in a file reads the log in bulk
//! through `direct` instead), and the auditor's reads. The sealer's SQL is in `seals`, the
//! tokens' and the idempotency-key lookup's in `tokens`. `Store`'s methods in
//! `store/mod.rs`, and those of `sealer`, `tokens` and `verify`, call these functions.

pub(crate) mod direct;
pub(crate) mod seals;
pub(crate) mod tokens;

use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use futures_util::TryStreamExt as _;
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteRow,
    SqliteSynchronous,
};
use sqlx::{AssertSqlSafe, Row as _};

use super::{
    DocRow, EVENT_COLUMNS, IdempotentRecord, LogEntry, ReadModelDoc, RowData, Snapshot,
    SnapshotRow, Store, StoreOptions, StreamIds, build_rows, check_expected, decode_event,
    event_sql, head_of, ping_if_idle, schema_version, to_hash, to_i64, to_u64,
};
use crate::error::StoreError;
use crate::types::{Appended, ExpectedVersion, Hash, NewEvent, RecordedEvent};
use direct::DirectReader;

/// The schema's migrations, in order (`migrator` names them).
pub(super) const MIGRATIONS: [&str; 9] = [
    include_str!("../../../../../migrations/sqlite/0001_event_store.sql"),
    include_str!("../../../../../migrations/sqlite/0002_read_models.sql"),
    include_str!("../../../../../migrations/sqlite/0003_tokens.sql"),
    include_str!("../../../../../migrations/sqlite/0004_seals_by_position.sql"),
    include_str!("../../../../../migrations/sqlite/0005_releases.sql"),
    include_str!("../../../../../migrations/sqlite/0006_draw_secrets.sql"),
    include_str!("../../../../../migrations/sqlite/0007_token_scope_and_expiry.sql"),
    include_str!("../../../../../migrations/sqlite/0008_event_ids.sql"),
    include_str!("../../../../../migrations/sqlite/0009_snapshots.sql"),
];

const HEAD: &str = "SELECT (SELECT max(position) FROM events), \
    h.stream_version, h.hash, i.stream_id, i.fingerprint, i.first_position, i.event_count, \
    i.first_version \
    FROM (SELECT 1) AS one \
    LEFT JOIN (SELECT stream_version, hash FROM events WHERE stream_id = ?1 \
        ORDER BY stream_version DESC LIMIT 1) AS h ON 1 \
    LEFT JOIN idempotency AS i ON i.key = ?2";

const INSERT_IDEMPOTENCY: &str = "INSERT INTO idempotency (key, stream_id, fingerprint, \
    first_position, event_count, first_version) VALUES (?, ?, ?, ?, ?, ?)";

const STREAM_HEAD: &str = "SELECT stream_version, hash FROM events WHERE stream_id = $1 \
    ORDER BY stream_version DESC LIMIT 1";

const READ_STREAM: &str = "SELECT position, stream_id, stream_version, event_type, \
    schema_version, payload, actor, correlation_id, causation_id, idempotency_key, \
    recorded_at, prev_hash, hash, event_id FROM events WHERE stream_id = $1 \
    AND stream_version >= $2 ORDER BY stream_version";

const READ_LOG: &str = "SELECT position, stream_id, stream_version, event_type, schema_version, \
    payload FROM events \
    WHERE position >= $1 ORDER BY position LIMIT $2";

const LAST_POSITION: &str = "SELECT max(position) FROM events";

/// The auditor's read: events with positions in `[$1, $2]`, up to `$3`.
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

/// `read_all` through sqlx's connections (an in-memory database): up to `$2` events from
/// position `$1` on.
fn read_all_sql() -> String {
    format!(
        "SELECT {EVENT_COLUMNS} FROM events WHERE position >= $1 \
         ORDER BY position LIMIT $2"
    )
}

/// Largest batch that SQLite appends in one statement when the head is known.
const SQLITE_FAST_MAX: usize = 32;

/// Multi-row insert sizes for SQLite: a batch is split greedily into these, so at most four
/// distinct statements are ever prepared.
const SQLITE_CHUNKS: [usize; 4] = [256, 32, 4, 1];

fn sqlite_insert_sql(table: &str, rows: usize) -> String {
    let mut sql = format!(
        "INSERT INTO {table} (position, stream_id, stream_version, event_type, schema_version, \
         payload, actor, correlation_id, causation_id, idempotency_key, recorded_at, prev_hash, \
         hash, event_id) VALUES "
    );
    for i in 0..rows {
        if i > 0 {
            sql.push(',');
        }
        sql.push_str("(?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
    }
    sql
}

/// `sqlite_insert_fast`'s statement for `rows` rows.
fn insert_fast_sql(rows: usize) -> String {
    // Anonymous `?` only: sqlx numbers them in order of appearance and would not mix them
    // with `?NNN`. The first is the stream id, then eleven per row.
    let mut sql = String::from(
        "WITH base(b) AS (SELECT coalesce(max(position), 0) FROM events) \
         INSERT INTO events (position, stream_id, stream_version, event_type, schema_version, \
         payload, actor, correlation_id, causation_id, idempotency_key, recorded_at, prev_hash, \
         hash, event_id) SELECT b + v.column1, ?, v.column2, v.column3, v.column4, v.column5, \
         v.column6, v.column7, v.column8, NULL, v.column9, v.column10, v.column11, v.column12 \
         FROM base, (VALUES ",
    );
    for i in 1..=rows {
        if i > 1 {
            sql.push(',');
        }
        sql.push_str(&format!("({i},?,?,?,?,?,?,?,?,?,?,?)"));
    }
    sql.push_str(") AS v RETURNING position");
    sql
}

/// Opens the pool, and the bulk reader of a database in a file (see `direct`).
pub(super) async fn connect(
    url: &str,
    options: &StoreOptions,
) -> Result<(SqlitePool, Option<Arc<DirectReader>>), StoreError> {
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
    let direct = DirectReader::for_options(&connect);
    let pool = SqlitePoolOptions::new()
        .max_connections(options.max_connections.max(2))
        .test_before_acquire(false)
        .before_acquire(|conn, meta| Box::pin(ping_if_idle(conn, meta)))
        .connect_with(connect)
        .await?;
    Ok((pool, direct))
}

/// [`Store::append`] on SQLite, its arguments checked.
pub(super) async fn append(
    store: &Store,
    pool: &SqlitePool,
    stream_id: &str,
    expected: ExpectedVersion,
    events: &[NewEvent],
    key: Option<&str>,
    fingerprint: Option<Hash>,
) -> Result<Appended, StoreError> {
    let _writer = store.inner.sqlite_writer.lock().await;
    // Fast path: the head is known and there is no idempotency key to check, so the
    // append is one autocommit statement (the write lock is taken at its start, so the
    // position it computes from `max(position)` is the next one).
    let known = match expected {
        _ if key.is_some() || events.len() > SQLITE_FAST_MAX => None,
        ExpectedVersion::NoStream => Some(None),
        ExpectedVersion::Exact(v) => store.cached_head(stream_id).filter(|h| h.0 == v).map(Some),
        ExpectedVersion::Any => store.cached_head(stream_id).map(Some),
    };
    if let Some(head) = known {
        let rows = build_rows(stream_id, head, events, None, store.inner.clock.as_ref());
        match sqlite_insert_fast(pool, stream_id, &rows).await {
            Ok(first_position) => {
                let n = u64::try_from(events.len()).unwrap_or(u64::MAX);
                let first_version = head.map_or(1, |h| h.0 + 1);
                if let Some(last) = rows.last() {
                    store.remember_head(
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
            Err(err) if StoreError::is_unique_violation(&err) => store.forget_head(stream_id),
            Err(err) => return Err(err.into()),
        }
    }
    let mut tx = pool.begin_with("BEGIN IMMEDIATE").await?;
    let row: SqliteRow = sqlx::query(HEAD)
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
    let rows = build_rows(stream_id, head, events, key, store.inner.clock.as_ref());
    let first_position = to_u64("position", max_position)? + 1;
    let first_version = head.map_or(1, |h| h.0 + 1);
    let result = sqlite_insert_rows(&mut tx, "events", stream_id, key, first_position, &rows).await;
    match result {
        Ok(()) => {}
        Err(err) if StoreError::is_unique_violation(&err) => {
            // Cannot happen under BEGIN IMMEDIATE unless another writer ignores the lock;
            // report it as the conflict it is.
            drop(tx);
            let actual = store.stream_head(stream_id).await?.map(|h| h.0);
            return Err(StoreError::Conflict { expected, actual });
        }
        Err(err) => return Err(err.into()),
    }
    let n = u64::try_from(events.len()).unwrap_or(u64::MAX);
    if let (Some(key), Some(fp)) = (key, fingerprint) {
        sqlx::query(INSERT_IDEMPOTENCY)
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
        store.remember_head(
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

/// Inserts a batch as one autocommit statement that numbers it after the current
/// `max(position)`; returns the first position.
async fn sqlite_insert_fast(
    pool: &SqlitePool,
    stream_id: &str,
    rows: &[RowData],
) -> Result<u64, sqlx::Error> {
    let sql = insert_fast_sql(rows.len());
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
            .bind(r.hash.as_slice())
            .bind(r.event_id.as_slice());
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
                .bind(r.hash.as_slice())
                .bind(r.event_id.as_slice());
            position += 1;
        }
        q.execute(&mut *conn).await?;
        rest = tail;
    }
    Ok(())
}

/// [`Store::stream_head`]'s row: the last version and hash of a stream, if it has events.
pub(super) async fn stream_head(
    pool: &SqlitePool,
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
    pool: &SqlitePool,
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

/// Events with positions in `[from, to]`, at most `limit`.
pub(crate) async fn read_range(
    pool: &SqlitePool,
    from: i64,
    to: i64,
    limit: i64,
    ids: bool,
) -> Result<Vec<RecordedEvent>, StoreError> {
    sqlx::query(AssertSqlSafe(event_sql(READ_RANGE, ids, "NULL")))
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
    pool: &SqlitePool,
    stream_id: &str,
    version: i64,
    ids: bool,
) -> Result<Option<RecordedEvent>, StoreError> {
    sqlx::query(AssertSqlSafe(event_sql(EVENT_AT, ids, "NULL")))
        .bind(stream_id)
        .bind(version)
        .fetch_optional(pool)
        .await?
        .map(|r| decode_event(&r))
        .transpose()
}

/// [`Store::read_all`] on SQLite: through `direct` for a database in a file, otherwise
/// through sqlx's connections.
pub(super) async fn read_all(
    pool: &SqlitePool,
    direct: Option<&Arc<DirectReader>>,
    from_position: u64,
    limit: usize,
) -> Result<Vec<RecordedEvent>, StoreError> {
    match direct {
        Some(direct) => direct.read_events(from_position, limit).await,
        None => {
            let mut events = Vec::with_capacity(limit.min(10_000));
            let mut rows = sqlx::query(AssertSqlSafe(read_all_sql()))
                .bind(to_i64(from_position))
                .bind(i64::try_from(limit).unwrap_or(i64::MAX))
                .fetch(pool);
            while let Some(row) = rows.try_next().await? {
                events.push(decode_event(&row)?);
            }
            Ok(events)
        }
    }
}

/// [`Store::read_log`] on SQLite: through `direct` for a database in a file, otherwise
/// through sqlx's connections.
pub(super) async fn read_log(
    pool: &SqlitePool,
    direct: Option<&Arc<DirectReader>>,
    from_position: u64,
    limit: usize,
) -> Result<Vec<LogEntry>, StoreError> {
    match direct {
        Some(direct) => direct.read_log(from_position, limit).await,
        None => {
            let mut entries = Vec::with_capacity(limit.min(10_000));
            let mut streams = StreamIds::default();
            let mut types = StreamIds::default();
            let mut rows = sqlx::query_as::<_, (i64, String, i64, String, i32, Vec<u8>)>(READ_LOG)
                .bind(to_i64(from_position))
                .bind(i64::try_from(limit).unwrap_or(i64::MAX))
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
                    payload: Bytes::from(payload),
                });
            }
            Ok(entries)
        }
    }
}

/// The highest position committed so far, if any.
pub(super) async fn last_position(pool: &SqlitePool) -> Result<Option<i64>, StoreError> {
    Ok(sqlx::query_scalar(LAST_POSITION).fetch_one(pool).await?)
}

/// [`Store::put_read_models`] on SQLite: the documents and the checkpoint in one transaction.
pub(super) async fn put_read_models(
    pool: &SqlitePool,
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
    pool: &SqlitePool,
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

/// [`Store::read_snapshots`]'s rows: the checkpoint and the snapshots, by stream, read in
/// one transaction (the snapshots are those of that checkpoint).
pub(super) async fn read_snapshots(
    pool: &SqlitePool,
    projection: &str,
) -> Result<(Option<i64>, Vec<SnapshotRow>), StoreError> {
    let mut tx = pool.begin().await?;
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
    pool: &SqlitePool,
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
