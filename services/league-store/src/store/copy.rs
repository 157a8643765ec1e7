//! Copying a whole store to an empty one, on either backend (`league copy`): a league that
//! began on the SQLite default moves to PostgreSQL with its history. Every row of every
//! table is copied as it is: each event with its position, stream version, payload bytes,
//! metadata, id and hashes, the seals and signed tree heads, the idempotency keys, the
//! tokens, the held draw seeds, the releases and the stored read models with their
//! checkpoint. Nothing is recomputed, so `verify` on the copy checks the very hashes,
//! chains and signatures of the original.
//!
//! The source is read in one snapshot (a read-only transaction), so a copy is consistent
//! even of a store being written; a source whose log grew meanwhile is refused all the same,
//! since the copy would miss the newest events.
//!
//! Positions stay as they were. On PostgreSQL, new appends take positions from their
//! transaction ids (shifted left by 16 bits), and the log is read only below the oldest
//! running transaction's; a copied log's positions must therefore lie below the target's
//! transaction counter (a SQLite log's dense positions do, unless it holds more than a few
//! tens of millions of events on a new cluster; a PostgreSQL log's do on a cluster as old).
//! The copy checks this before it commits and refuses otherwise. On SQLite, new appends
//! continue from the largest position.

use sqlx::AssertSqlSafe;
use sqlx::Row as _;
use sqlx::postgres::PgRow;
use sqlx::sqlite::SqliteRow;

use super::{Db, Store};
use crate::error::StoreError;

/// A column's type, the same on both backends (`INTEGER`/`BIGINT`, `TEXT`, `BLOB`/`BYTEA`).
#[derive(Clone, Copy, Debug)]
enum Kind {
    Int,
    Text,
    Bytes,
}

/// One value, `None` for SQL `NULL`.
#[derive(Clone, Debug)]
enum Value {
    Int(Option<i64>),
    Text(Option<String>),
    Bytes(Option<Vec<u8>>),
}

struct Table {
    name: &'static str,
    /// The order rows are read in: the primary key.
    order: &'static str,
    columns: &'static [(&'static str, Kind)],
}

use Kind::{Bytes, Int, Text};

/// Every table of the store, in an order that copies what others refer to first.
const TABLES: &[Table] = &[
    Table {
        name: "events",
        order: "position",
        columns: &[
            ("position", Int),
            ("stream_id", Text),
            ("stream_version", Int),
            ("event_type", Text),
            ("schema_version", Int),
            ("payload", Bytes),
            ("actor", Text),
            ("correlation_id", Text),
            ("causation_id", Text),
            ("idempotency_key", Text),
            ("recorded_at", Int),
            ("prev_hash", Bytes),
            ("hash", Bytes),
            ("event_id", Bytes),
        ],
    },
    Table {
        name: "idempotency",
        order: "key",
        columns: &[
            ("key", Text),
            ("stream_id", Text),
            ("fingerprint", Bytes),
            ("first_position", Int),
            ("event_count", Int),
            ("first_version", Int),
        ],
    },
    Table {
        name: "seals",
        order: "seal_id",
        columns: &[
            ("seal_id", Int),
            ("first_leaf", Int),
            ("leaf_count", Int),
            ("last_position", Int),
            ("positions", Bytes),
            ("leaf_hashes", Bytes),
            ("root", Bytes),
            ("frontier", Bytes),
            ("sealed_at", Int),
        ],
    },
    Table {
        name: "tree_heads",
        order: "tree_size",
        columns: &[
            ("tree_size", Int),
            ("root", Bytes),
            ("signed_at", Int),
            ("public_key", Bytes),
            ("signature", Bytes),
        ],
    },
    Table {
        name: "tokens",
        order: "id",
        columns: &[
            ("id", Text),
            ("hash", Bytes),
            ("role", Text),
            ("venue", Text),
            ("player", Text),
            ("created_at", Int),
            ("revoked_at", Int),
            ("league", Text),
            ("expires_at", Int),
        ],
    },
    Table {
        name: "draw_secrets",
        order: "commitment",
        columns: &[
            ("commitment", Text),
            ("stream_id", Text),
            ("seed", Text),
            ("created_at", Int),
        ],
    },
    Table {
        name: "releases",
        order: "release",
        columns: &[
            ("release", Text),
            ("major", Int),
            ("minor", Int),
            ("patch", Int),
            ("first_appended_at", Int),
        ],
    },
    Table {
        name: "read_models",
        order: "projection, kind, key",
        columns: &[
            ("projection", Text),
            ("kind", Text),
            ("key", Text),
            ("doc", Bytes),
        ],
    },
    Table {
        name: "projection_checkpoints",
        order: "projection",
        columns: &[("projection", Text), ("position", Int)],
    },
    Table {
        name: "snapshots",
        order: "projection, stream",
        columns: &[
            ("projection", Text),
            ("stream", Text),
            ("version", Int),
            ("format", Int),
            ("state", Bytes),
            ("digest", Bytes),
        ],
    },
];

/// Rows read and written at a time: within both backends' limits on bound values.
const BATCH: usize = 500;

/// What [`Store::copy_to`] copied: each table's rows, in copy order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Copied {
    pub tables: Vec<(&'static str, u64)>,
}

impl Copied {
    /// The rows copied from `table`.
    pub fn rows(&self, table: &str) -> u64 {
        self.tables
            .iter()
            .find(|(name, _)| *name == table)
            .map_or(0, |(_, rows)| *rows)
    }
}

impl Store {
    /// Copies every row of this store, as one snapshot, into `target`, which must be empty
    /// (migrated, with no event, token, seal or read model), in one transaction on the
    /// target: a copy that fails leaves the target as it was. The source should not be
    /// written meanwhile (stop the service): a source whose log grew during the copy is
    /// refused (`CopySourceMoved`). `progress` is told each table's rows as they go.
    pub async fn copy_to(
        &self,
        target: &Store,
        mut progress: impl FnMut(&str, u64),
    ) -> Result<Copied, StoreError> {
        for table in TABLES {
            if count(target, table.name).await? > 0 {
                return Err(StoreError::CopyTargetNotEmpty(table.name.to_owned()));
            }
        }
        let mut source = Snapshot::begin(self).await?;
        let mut copied = Copied::default();
        let mut tx = Transaction::begin(target).await?;
        let mut last_position = None;
        for table in TABLES {
            let mut rows = 0u64;
            let mut last: Option<Value> = None;
            loop {
                let from = match (&last, table.order.contains(',')) {
                    (_, true) => From::Offset(rows),
                    (Some(key), false) => From::After(key),
                    (None, false) => From::Start,
                };
                let batch = source.read(table, &from).await?;
                let Some(final_row) = batch.last() else {
                    break;
                };
                // The key is the first column of every table keyed by one column.
                last = final_row.first().cloned();
                if table.name == "events"
                    && let Some(Value::Int(position)) = last
                {
                    last_position = position;
                }
                tx.insert(table, &batch).await?;
                rows += u64::try_from(batch.len()).unwrap_or(u64::MAX);
                progress(table.name, rows);
            }
            copied.tables.push((table.name, rows));
        }
        // The snapshot's log against the log now: a service still writing is refused (events
        // are never deleted, so a count that differs means events were appended).
        let now = u64::try_from(count(self, "events").await?).unwrap_or(0);
        if now != copied.rows("events") {
            return Err(StoreError::CopySourceMoved);
        }
        if let (Transaction::Postgres(target), Some(last)) = (&mut tx, last_position) {
            let xid: i64 = sqlx::query_scalar("SELECT pg_current_xact_id()::text::bigint")
                .fetch_one(&mut **target)
                .await?;
            if last >> 16 >= xid {
                return Err(StoreError::CopyPositionsAhead {
                    position: u64::try_from(last).unwrap_or(0),
                    xid: u64::try_from(xid).unwrap_or(0),
                });
            }
        }
        tx.commit().await?;
        Ok(copied)
    }

    /// Deletes every row a copy wrote into this store (after [`Store::copy_to`] succeeded
    /// but the copy did not audit as its source): the store is empty again.
    pub async fn undo_copy(&self) -> Result<(), StoreError> {
        let mut tx = Transaction::begin(self).await?;
        for table in TABLES.iter().rev() {
            let sql = AssertSqlSafe(format!("DELETE FROM {}", table.name));
            match &mut tx {
                Transaction::Sqlite(tx) => {
                    sqlx::query(sql).execute(&mut **tx).await?;
                }
                Transaction::Postgres(tx) => {
                    sqlx::query(sql).execute(&mut **tx).await?;
                }
            }
        }
        tx.commit().await
    }
}

/// The source, read in one snapshot: a read-only transaction (`REPEATABLE READ` on
/// PostgreSQL; on SQLite a read transaction sees the database as of its first read).
enum Snapshot {
    Sqlite(sqlx::Transaction<'static, sqlx::Sqlite>),
    Postgres(sqlx::Transaction<'static, sqlx::Postgres>),
}

impl Snapshot {
    async fn begin(store: &Store) -> Result<Self, StoreError> {
        Ok(match &store.inner.db {
            Db::Sqlite(pool) => Snapshot::Sqlite(pool.begin().await?),
            Db::Postgres(pool) => Snapshot::Postgres(
                pool.begin_with("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
                    .await?,
            ),
        })
    }

    /// The next [`BATCH`] rows of `table`, in key order.
    async fn read(
        &mut self,
        table: &Table,
        from: &From<'_>,
    ) -> Result<Vec<Vec<Value>>, StoreError> {
        match self {
            Snapshot::Sqlite(tx) => read_sqlite(tx, table, from).await,
            Snapshot::Postgres(tx) => read_pg(tx, table, from).await,
        }
    }
}

async fn count(store: &Store, table: &str) -> Result<i64, StoreError> {
    let sql = AssertSqlSafe(format!("SELECT count(*) FROM {table}"));
    Ok(match &store.inner.db {
        Db::Sqlite(pool) => sqlx::query_scalar(sql).fetch_one(pool).await?,
        Db::Postgres(pool) => sqlx::query_scalar(sql).fetch_one(pool).await?,
    })
}

/// Where the next batch of a table starts: after the last key read (a table keyed by one
/// column: `events` by position, so a log of millions is read without skipping rows), or
/// after as many rows (a composite key).
enum From<'a> {
    Start,
    After(&'a Value),
    Offset(u64),
}

fn select(table: &Table, from: &From<'_>, postgres: bool) -> AssertSqlSafe<String> {
    let columns: Vec<&str> = table.columns.iter().map(|(c, _)| *c).collect();
    let (filter, offset) = match from {
        From::Start => (String::new(), 0),
        From::After(_) => (
            format!(
                " WHERE {} > {}",
                table.order,
                if postgres { "$1" } else { "?" }
            ),
            0,
        ),
        From::Offset(n) => (String::new(), *n),
    };
    AssertSqlSafe(format!(
        "SELECT {} FROM {}{filter} ORDER BY {} LIMIT {BATCH} OFFSET {offset}",
        columns.join(", "),
        table.name,
        table.order,
    ))
}

/// Binds the key a batch starts after, if it does.
macro_rules! bind_from {
    ($query:expr, $from:expr) => {
        match $from {
            From::After(Value::Int(v)) => $query.bind(*v),
            From::After(Value::Text(v)) => $query.bind(v.clone()),
            From::After(Value::Bytes(v)) => $query.bind(v.clone()),
            From::Start | From::Offset(_) => $query,
        }
    };
}

async fn read_sqlite(
    tx: &mut sqlx::Transaction<'static, sqlx::Sqlite>,
    table: &Table,
    from: &From<'_>,
) -> Result<Vec<Vec<Value>>, StoreError> {
    let query = sqlx::query(select(table, from, false));
    let rows: Vec<SqliteRow> = bind_from!(query, from).fetch_all(&mut **tx).await?;
    rows.iter()
        .map(|row| {
            (0..table.columns.len())
                .map(|i| {
                    Ok(match table.columns[i].1 {
                        Int => Value::Int(row.try_get(i)?),
                        Text => Value::Text(row.try_get(i)?),
                        Bytes => Value::Bytes(row.try_get(i)?),
                    })
                })
                .collect()
        })
        .collect()
}

async fn read_pg(
    tx: &mut sqlx::Transaction<'static, sqlx::Postgres>,
    table: &Table,
    from: &From<'_>,
) -> Result<Vec<Vec<Value>>, StoreError> {
    let query = sqlx::query(select(table, from, true));
    let rows: Vec<PgRow> = bind_from!(query, from).fetch_all(&mut **tx).await?;
    rows.iter()
        .map(|row| {
            (0..table.columns.len())
                .map(|i| {
                    Ok(match table.columns[i].1 {
                        // `INTEGER` columns (counts, versions) read as 32 bits on PostgreSQL.
                        Int => Value::Int(match row.try_get::<Option<i64>, _>(i) {
                            Ok(v) => v,
                            Err(_) => row.try_get::<Option<i32>, _>(i)?.map(i64::from),
                        }),
                        Text => Value::Text(row.try_get(i)?),
                        Bytes => Value::Bytes(row.try_get(i)?),
                    })
                })
                .collect()
        })
        .collect()
}

/// The target's transaction.
enum Transaction {
    Sqlite(sqlx::Transaction<'static, sqlx::Sqlite>),
    Postgres(sqlx::Transaction<'static, sqlx::Postgres>),
}

impl Transaction {
    async fn begin(store: &Store) -> Result<Self, StoreError> {
        Ok(match &store.inner.db {
            Db::Sqlite(pool) => Transaction::Sqlite(pool.begin().await?),
            Db::Postgres(pool) => Transaction::Postgres(pool.begin().await?),
        })
    }

    async fn insert(&mut self, table: &Table, rows: &[Vec<Value>]) -> Result<(), StoreError> {
        let columns: Vec<&str> = table.columns.iter().map(|(c, _)| *c).collect();
        let width = columns.len();
        let postgres = matches!(self, Transaction::Postgres(_));
        let tuples: Vec<String> = (0..rows.len())
            .map(|r| {
                let marks: Vec<String> = (0..width)
                    .map(|c| {
                        if postgres {
                            format!("${}", r * width + c + 1)
                        } else {
                            "?".to_owned()
                        }
                    })
                    .collect();
                format!("({})", marks.join(", "))
            })
            .collect();
        let sql = AssertSqlSafe(format!(
            "INSERT INTO {} ({}) VALUES {}",
            table.name,
            columns.join(", "),
            tuples.join(", ")
        ));
        match self {
            Transaction::Sqlite(tx) => {
                let mut query = sqlx::query(sql);
                for value in rows.iter().flatten() {
                    query = match value {
                        Value::Int(v) => query.bind(*v),
                        Value::Text(v) => query.bind(v.clone()),
                        Value::Bytes(v) => query.bind(v.clone()),
                    };
                }
                query.execute(&mut **tx).await?;
            }
            Transaction::Postgres(tx) => {
                let mut query = sqlx::query(sql);
                for (i, value) in rows.iter().flatten().enumerate() {
                    query = match value {
                        // `INTEGER` columns take 32 bits on PostgreSQL.
                        Value::Int(v) if is_int4(table, i % width) => {
                            let v = v.map(i32::try_from).transpose().map_err(|_| {
                                StoreError::Corrupt(format!(
                                    "{}.{} does not fit 32 bits",
                                    table.name,
                                    table.columns[i % width].0
                                ))
                            })?;
                            query.bind(v)
                        }
                        Value::Int(v) => query.bind(*v),
                        Value::Text(v) => query.bind(v.clone()),
                        Value::Bytes(v) => query.bind(v.clone()),
                    };
                }
                query.execute(&mut **tx).await?;
            }
        }
        Ok(())
    }

    async fn commit(self) -> Result<(), StoreError> {
        match self {
            Transaction::Sqlite(tx) => tx.commit().await?,
            Transaction::Postgres(tx) => tx.commit().await?,
        }
        Ok(())
    }
}

/// Whether a column is PostgreSQL's 32-bit `INTEGER` (the rest of the integers are
/// `BIGINT`).
fn is_int4(table: &Table, column: usize) -> bool {
    matches!(
        (table.name, table.columns[column].0),
        ("events", "schema_version") | ("idempotency", "event_count")
    )
}
