//! The SQL of the API's tokens, of the idempotency-key lookup, of the server's draw
//! secrets and of the reachability check. It is the same on both backends, so it is written once here and instantiated
//! for each backend's pool in `sqlite/tokens.rs` and `postgres/tokens.rs`; `tokens.rs` (at
//! the crate's root) turns the rows into records.

/// The token functions for one backend's pool type.
macro_rules! token_sql {
    ($pool:ty) => {
        use sqlx::Row as _;

        use $crate::error::StoreError;
        use $crate::tokens::{KeyRow, TokenRow};
        use $crate::types::Hash;

        const INSERT: &str = "INSERT INTO tokens \
            (id, hash, role, venue, player, league, created_at, expires_at) \
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8)";
        const BY_HASH: &str = "SELECT id, hash, role, venue, player, league, created_at, \
            expires_at, revoked_at FROM tokens WHERE hash = $1";
        const BY_ID: &str = "SELECT id, hash, role, venue, player, league, created_at, \
            expires_at, revoked_at FROM tokens WHERE id = $1";
        const ALL: &str = "SELECT id, hash, role, venue, player, league, created_at, \
            expires_at, revoked_at FROM tokens ORDER BY created_at, id";
        const REVOKE: &str = "UPDATE tokens SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL";
        const RENEW: &str = "UPDATE tokens SET expires_at = $1 WHERE id = $2 AND revoked_at IS NULL";
        const APPENDED_WITH_KEY: &str = "SELECT stream_id, first_position, event_count, first_version, fingerprint \
            FROM idempotency WHERE key = $1";
        const PING: &str = "SELECT 1";
        const PUT_DRAW_SECRET: &str = "INSERT INTO draw_secrets (commitment, stream_id, seed, created_at) \
            VALUES ($1, $2, $3, $4)";
        const DRAW_SECRET: &str = "SELECT stream_id, seed FROM draw_secrets WHERE commitment = $1";

        /// Keeps the seed of a draw the server will make, under its commitment.
        pub(crate) async fn put_draw_secret(
            pool: &$pool,
            commitment: &str,
            stream_id: &str,
            seed: &str,
            created_at: i64,
        ) -> Result<(), StoreError> {
            sqlx::query(PUT_DRAW_SECRET)
                .bind(commitment)
                .bind(stream_id)
                .bind(seed)
                .bind(created_at)
                .execute(pool)
                .await?;
            Ok(())
        }

        /// The stream and seed kept under `commitment`.
        pub(crate) async fn draw_secret(
            pool: &$pool,
            commitment: &str,
        ) -> Result<Option<(String, String)>, StoreError> {
            Ok(sqlx::query_as(DRAW_SECRET)
                .bind(commitment)
                .fetch_optional(pool)
                .await?)
        }

        /// Stores a new token, created at `created_at` (microseconds).
        pub(crate) async fn insert_token(
            pool: &$pool,
            token: &$crate::tokens::NewToken<'_>,
            created_at: i64,
        ) -> Result<(), StoreError> {
            sqlx::query(INSERT)
                .bind(token.id)
                .bind(token.hash.as_slice())
                .bind(token.role)
                .bind(token.venue)
                .bind(token.player)
                .bind(token.league)
                .bind(created_at)
                .bind(token.expires_at.map(|t| t.as_micros()))
                .execute(pool)
                .await?;
            Ok(())
        }

        /// Sets an unrevoked token's expiry (microseconds); the rows changed.
        pub(crate) async fn renew_token(
            pool: &$pool,
            id: &str,
            expires_at: i64,
        ) -> Result<u64, StoreError> {
            Ok(sqlx::query(RENEW)
                .bind(expires_at)
                .bind(id)
                .execute(pool)
                .await?
                .rows_affected())
        }

        /// The token row with this hash.
        pub(crate) async fn token_by_hash(
            pool: &$pool,
            hash: &Hash,
        ) -> Result<Option<TokenRow>, StoreError> {
            Ok(sqlx::query_as(BY_HASH)
                .bind(hash.as_slice())
                .fetch_optional(pool)
                .await?)
        }

        /// The token row with this id.
        pub(crate) async fn token_by_id(
            pool: &$pool,
            id: &str,
        ) -> Result<Option<TokenRow>, StoreError> {
            Ok(sqlx::query_as(BY_ID).bind(id).fetch_optional(pool).await?)
        }

        /// Every token row, oldest first.
        pub(crate) async fn tokens(pool: &$pool) -> Result<Vec<TokenRow>, StoreError> {
            Ok(sqlx::query_as(ALL).fetch_all(pool).await?)
        }

        /// Marks a token revoked at `now` (microseconds) unless it already is; the rows changed.
        pub(crate) async fn revoke_token(pool: &$pool, id: &str, now: i64) -> Result<u64, StoreError> {
            Ok(sqlx::query(REVOKE)
                .bind(now)
                .bind(id)
                .execute(pool)
                .await?
                .rows_affected())
        }

        /// The idempotency record of `key`, if it was used.
        pub(crate) async fn appended_with_key(
            pool: &$pool,
            key: &str,
        ) -> Result<Option<KeyRow>, StoreError> {
            Ok(sqlx::query_as(APPENDED_WITH_KEY)
                .bind(key)
                .fetch_optional(pool)
                .await?)
        }

        /// `SELECT 1`'s answer.
        pub(crate) async fn ping(pool: &$pool) -> Result<i32, StoreError> {
            Ok(sqlx::query(PING).fetch_one(pool).await?.try_get(0)?)
        }
    };
}

pub(crate) use token_sql;
