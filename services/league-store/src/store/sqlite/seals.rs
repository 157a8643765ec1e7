//! The sealer's SQL on SQLite: a round (under `BEGIN IMMEDIATE`, behind this process's
//! writer queue, its seal row and tree head written in one transaction), and reading the
//! tree heads and seals back. What a round decides is `sealer::Round`'s.

use sqlx::SqliteConnection;
use sqlx::sqlite::SqlitePool;

use crate::error::StoreError;
use crate::sealer::{HeadRow, Round, SealRow, SealWrite, TreeHead};
use crate::store::{Store, to_i64};

const LAST_SEAL: &str = "SELECT seal_id, first_leaf, leaf_count, last_position, frontier \
    FROM seals ORDER BY seal_id DESC LIMIT 1";
const LAST_HEAD: &str =
    "SELECT tree_size, signed_at FROM tree_heads ORDER BY tree_size DESC LIMIT 1";
/// The events' hashes after the last sealed position (everything committed is readable).
const UNSEALED: &str =
    "SELECT position, hash FROM events WHERE position > $1 ORDER BY position LIMIT $2";
const INSERT_SEAL: &str = "INSERT INTO seals (seal_id, first_leaf, leaf_count, last_position, \
    positions, leaf_hashes, root, frontier, sealed_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)";
const INSERT_HEAD: &str = "INSERT INTO tree_heads (tree_size, root, signed_at, public_key, \
    signature) VALUES ($1, $2, $3, $4, $5)";
const TREE_HEADS: &str =
    "SELECT tree_size, root, signed_at, public_key, signature FROM tree_heads ORDER BY tree_size";
const SEALS: &str = "SELECT seal_id, first_leaf, leaf_count, positions, leaf_hashes, root \
    FROM seals ORDER BY seal_id";

/// `Store::seal_once` on SQLite: one round in one `BEGIN IMMEDIATE` transaction, queued
/// behind this process's other writers. Always the leader (true).
pub(crate) async fn seal_once(
    store: &Store,
    pool: &SqlitePool,
    round: &mut Round<'_>,
) -> Result<bool, StoreError> {
    let _writer = store.inner.sqlite_writer.lock().await;
    let mut tx = pool.begin_with("BEGIN IMMEDIATE").await?;
    let last_seal = sqlx::query_as(LAST_SEAL).fetch_optional(&mut *tx).await?;
    let last_head = sqlx::query_as(LAST_HEAD).fetch_optional(&mut *tx).await?;
    let after = round.start(last_seal, last_head)?;
    let rows: Vec<(i64, Vec<u8>)> = sqlx::query_as(UNSEALED)
        .bind(after)
        .bind(round.max_leaves())
        .fetch_all(&mut *tx)
        .await?;
    if let Some(w) = round.fold(&rows)? {
        insert_seal(&mut tx, &w).await?;
    }
    if let Some(h) = round.head() {
        insert_head(&mut tx, h).await?;
    }
    tx.commit().await?;
    Ok(true)
}

async fn insert_seal(conn: &mut SqliteConnection, w: &SealWrite) -> Result<(), StoreError> {
    sqlx::query(INSERT_SEAL)
        .bind(w.seal_id)
        .bind(w.first_leaf)
        .bind(w.leaf_count)
        .bind(w.last_position)
        .bind(&w.positions)
        .bind(&w.leaf_hashes)
        .bind(&w.root)
        .bind(&w.frontier)
        .bind(w.sealed_at)
        .execute(conn)
        .await?;
    Ok(())
}

async fn insert_head(conn: &mut SqliteConnection, h: &TreeHead) -> Result<(), StoreError> {
    sqlx::query(INSERT_HEAD)
        .bind(to_i64(h.tree_size))
        .bind(h.root.to_vec())
        .bind(h.signed_at.as_micros())
        .bind(h.public_key.to_vec())
        .bind(h.signature.to_vec())
        .execute(conn)
        .await?;
    Ok(())
}

/// Every `tree_heads` row, smallest first.
pub(crate) async fn tree_heads(pool: &SqlitePool) -> Result<Vec<HeadRow>, StoreError> {
    Ok(sqlx::query_as(TREE_HEADS).fetch_all(pool).await?)
}

/// Every `seals` row, in order.
pub(crate) async fn seals(pool: &SqlitePool) -> Result<Vec<SealRow>, StoreError> {
    Ok(sqlx::query_as(SEALS).fetch_all(pool).await?)
}
