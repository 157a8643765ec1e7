//! The sealer's SQL on PostgreSQL: a round (under a transaction-scoped advisory lock, its
//! seal row and tree head written and its NOTIFY sent in one transaction), the background
//! sealer's leadership (a session-scoped advisory lock on a connection of its own), and
//! reading the tree heads and seals back. What a round decides is `sealer::Round`'s.

use sqlx::Connection as _;
use sqlx::postgres::{PgConnection, PgPool};

use crate::error::StoreError;
use crate::sealer::{HeadRow, Round, SealRow, SealWrite, TreeHead};
use crate::store::{NOTIFY_CHANNEL, to_i64};

/// First half of the PostgreSQL advisory lock key of the sealer ("LGSL"); the second half is
/// a hash of the schema, so stores in different schemas of one database do not contend.
const LOCK_CLASS: i32 = 0x4c47_534c;

const LOCK_ROUND: &str = "SELECT pg_try_advisory_xact_lock($1, hashtext(current_schema()))";
const LOCK_LEADER: &str = "SELECT pg_try_advisory_lock($1, hashtext(current_schema()))";
const LAST_SEAL: &str = "SELECT seal_id, first_leaf, leaf_count, last_position, frontier \
    FROM seals ORDER BY seal_id DESC LIMIT 1";
const LAST_HEAD: &str =
    "SELECT tree_size, signed_at FROM tree_heads ORDER BY tree_size DESC LIMIT 1";
/// The events' hashes after the last sealed position, below the commit horizon.
const UNSEALED: &str = "SELECT position, hash FROM events WHERE position > $1 \
    AND position < (pg_snapshot_xmin(pg_current_snapshot())::text::bigint << 16) \
    ORDER BY position LIMIT $2";
const INSERT_SEAL: &str = "INSERT INTO seals (seal_id, first_leaf, leaf_count, last_position, \
    positions, leaf_hashes, root, frontier, sealed_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)";
const INSERT_HEAD: &str = "INSERT INTO tree_heads (tree_size, root, signed_at, public_key, \
    signature) VALUES ($1, $2, $3, $4, $5)";
const NOTIFY: &str = "SELECT pg_notify($1, $2)";
const TREE_HEADS: &str =
    "SELECT tree_size, root, signed_at, public_key, signature FROM tree_heads ORDER BY tree_size";
const SEALS: &str = "SELECT seal_id, first_leaf, leaf_count, positions, leaf_hashes, root \
    FROM seals ORDER BY seal_id";

/// `Store::seal_once` on PostgreSQL: one round on a pooled connection; false if another
/// sealer holds the lock.
pub(crate) async fn seal_once(pool: &PgPool, round: &mut Round<'_>) -> Result<bool, StoreError> {
    let mut conn = pool.acquire().await?;
    seal_round(&mut conn, round).await
}

/// One round on `conn`, in one transaction; false, and nothing done, if another sealer holds
/// the lock.
async fn seal_round(conn: &mut PgConnection, round: &mut Round<'_>) -> Result<bool, StoreError> {
    let mut tx = conn.begin().await?;
    let leader: bool = sqlx::query_scalar(LOCK_ROUND)
        .bind(LOCK_CLASS)
        .fetch_one(&mut *tx)
        .await?;
    if !leader {
        return Ok(false);
    }
    let last_seal = sqlx::query_as(LAST_SEAL).fetch_optional(&mut *tx).await?;
    let last_head = sqlx::query_as(LAST_HEAD).fetch_optional(&mut *tx).await?;
    let after = round.start(last_seal, last_head)?;
    let rows: Vec<(i64, Vec<u8>)> = sqlx::query_as(UNSEALED)
        // Not prepared: a generic plan for `position > $1 ... LIMIT $2` may sort the whole
        // table for every round (seen right after a bulk load, before autovacuum has analysed
        // it).
        .persistent(false)
        .bind(after)
        .bind(round.max_leaves())
        .fetch_all(&mut *tx)
        .await?;
    let write = round.fold(&rows)?;
    if let Some(w) = &write {
        insert_seal(&mut tx, w).await?;
    }
    if let Some(h) = round.head() {
        insert_head(&mut tx, h).await?;
    }
    if let Some(w) = &write {
        // One hint per round, carrying only the sealed head; delivered at commit.
        sqlx::query(NOTIFY)
            .bind(NOTIFY_CHANNEL)
            .bind(w.last_position.to_string())
            .execute(&mut *tx)
            .await?;
    }
    tx.commit().await?;
    Ok(true)
}

async fn insert_seal(conn: &mut PgConnection, w: &SealWrite) -> Result<(), StoreError> {
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

async fn insert_head(conn: &mut PgConnection, h: &TreeHead) -> Result<(), StoreError> {
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

/// The background sealer's leadership: a connection of its own, out of the pool, holding
/// the session advisory lock (released if the connection or the process dies).
pub(crate) struct Leader {
    conn: PgConnection,
}

impl Leader {
    /// Becomes the leader if no other sealer is; `None` otherwise (or if no connection could
    /// be had).
    pub(crate) async fn elect(pool: &PgPool) -> Option<Self> {
        let mut conn = pool.acquire().await.ok()?.detach();
        let lead: Result<bool, _> = sqlx::query_scalar(LOCK_LEADER)
            .bind(LOCK_CLASS)
            .fetch_one(&mut conn)
            .await;
        if let Ok(true) = lead {
            Some(Self { conn })
        } else {
            let _ = conn.close().await;
            None
        }
    }

    /// One round on the leader's connection.
    pub(crate) async fn seal(&mut self, round: &mut Round<'_>) -> Result<bool, StoreError> {
        seal_round(&mut self.conn, round).await
    }

    /// Closes the connection, which releases the lock.
    pub(crate) async fn step_down(self) {
        let _ = self.conn.close().await;
    }
}

/// Every `tree_heads` row, smallest first.
pub(crate) async fn tree_heads(pool: &PgPool) -> Result<Vec<HeadRow>, StoreError> {
    Ok(sqlx::query_as(TREE_HEADS).fetch_all(pool).await?)
}

/// Every `seals` row, in order.
pub(crate) async fn seals(pool: &PgPool) -> Result<Vec<SealRow>, StoreError> {
    Ok(sqlx::query_as(SEALS).fetch_all(pool).await?)
}
