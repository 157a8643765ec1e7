//! The API's bearer tokens, looking up what an idempotency key appended, and the seeds of
//! the draws the server makes.
//!
//! Tokens are stored as their SHA-256 only; the store never sees a token itself.

use crate::error::StoreError;
use crate::store::{Db, Store, postgres, sqlite, to_hash, to_u64};
use crate::types::{Appended, Hash, Timestamp};

/// One API token as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TokenRecord {
    /// A short public id (for `list` and `revoke`).
    pub id: String,
    /// SHA-256 of the token.
    pub hash: Hash,
    /// `admin`, `host`, `auditor` or `player`; the API interprets it.
    pub role: String,
    pub venue: Option<String>,
    pub player: Option<String>,
    /// The one league an admin or auditor token is limited to; `None`: every league.
    pub league: Option<String>,
    pub created_at: Timestamp,
    /// When the token stops being accepted; `None` only for a row written by hand.
    pub expires_at: Option<Timestamp>,
    pub revoked_at: Option<Timestamp>,
}

impl TokenRecord {
    /// Whether the token has expired at `now`.
    pub fn expired(&self, now: Timestamp) -> bool {
        self.expires_at.is_some_and(|at| at <= now)
    }
}

/// A token to store (its `created_at` is the store's clock).
#[derive(Clone, Copy, Debug)]
pub struct NewToken<'a> {
    pub id: &'a str,
    pub hash: &'a Hash,
    pub role: &'a str,
    pub venue: Option<&'a str>,
    pub player: Option<&'a str>,
    pub league: Option<&'a str>,
    pub expires_at: Option<Timestamp>,
}

/// A `tokens` row: id, hash, role, venue, player, league, created at, expires at, revoked
/// at.
pub(crate) type TokenRow = (
    String,
    Vec<u8>,
    String,
    Option<String>,
    Option<String>,
    Option<String>,
    i64,
    Option<i64>,
    Option<i64>,
);

/// An `idempotency` row as looked up by key: stream, first position, event count, first
/// version.
/// An idempotency key's use: the stream and positions its append wrote, and the
/// fingerprint it was recorded with (of the events, or of the request for
/// [`Store::append_for_request`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyUse {
    pub stream: String,
    pub appended: Appended,
    fingerprint: Vec<u8>,
}

impl KeyUse {
    /// Whether the key was recorded by [`Store::append_for_request`] for `request` on
    /// `stream`.
    pub fn is_for_request(&self, stream: &str, request: &Hash) -> bool {
        self.stream == stream
            && self.fingerprint == crate::hash::request_fingerprint(stream, request)
    }
}

pub(crate) type KeyRow = (String, i64, i32, i64, Vec<u8>);

fn token_of(row: TokenRow) -> Result<TokenRecord, StoreError> {
    let (id, hash, role, venue, player, league, created_at, expires_at, revoked_at) = row;
    Ok(TokenRecord {
        id,
        hash: to_hash("token hash", &hash)?,
        role,
        venue,
        player,
        league,
        created_at: Timestamp::from_micros(created_at),
        expires_at: expires_at.map(Timestamp::from_micros),
        revoked_at: revoked_at.map(Timestamp::from_micros),
    })
}

impl Store {
    /// Stores a new token (its `created_at` is taken from the store's clock).
    pub async fn insert_token(&self, token: &NewToken<'_>) -> Result<TokenRecord, StoreError> {
        let now = self.inner.clock.now();
        let at = now.as_micros();
        match &self.inner.db {
            Db::Postgres(pool) => postgres::tokens::insert_token(pool, token, at).await?,
            Db::Sqlite(pool) => sqlite::tokens::insert_token(pool, token, at).await?,
        }
        Ok(TokenRecord {
            id: token.id.to_owned(),
            hash: *token.hash,
            role: token.role.to_owned(),
            venue: token.venue.map(str::to_owned),
            player: token.player.map(str::to_owned),
            league: token.league.map(str::to_owned),
            created_at: now,
            expires_at: token.expires_at,
            revoked_at: None,
        })
    }

    /// Sets when an unrevoked token expires; false if there is no such token or it was
    /// revoked. (An instance that cached the token reads it again once the old expiry
    /// passes, so a renewal needs no announcement.)
    pub async fn renew_token(&self, id: &str, expires_at: Timestamp) -> Result<bool, StoreError> {
        let at = expires_at.as_micros();
        let affected = match &self.inner.db {
            Db::Postgres(pool) => postgres::tokens::renew_token(pool, id, at).await?,
            Db::Sqlite(pool) => sqlite::tokens::renew_token(pool, id, at).await?,
        };
        Ok(affected > 0)
    }

    /// The store's clock now (tokens' expiries are compared with it).
    pub fn now(&self) -> Timestamp {
        self.inner.clock.now()
    }

    /// The token with this hash, revoked or not.
    pub async fn token_by_hash(&self, hash: &Hash) -> Result<Option<TokenRecord>, StoreError> {
        let row = match &self.inner.db {
            Db::Postgres(pool) => postgres::tokens::token_by_hash(pool, hash).await?,
            Db::Sqlite(pool) => sqlite::tokens::token_by_hash(pool, hash).await?,
        };
        row.map(token_of).transpose()
    }

    /// Keeps the seed (hex) of a draw the server will make for `stream_id`, under its
    /// commitment (hex SHA-256 of the seed). The seed stays here, read by no query of the
    /// API, until the draw's event reveals it.
    pub async fn put_draw_secret(
        &self,
        commitment: &str,
        stream_id: &str,
        seed: &str,
    ) -> Result<(), StoreError> {
        let at = self.inner.clock.now().as_micros();
        match &self.inner.db {
            Db::Postgres(pool) => {
                postgres::tokens::put_draw_secret(pool, commitment, stream_id, seed, at).await
            }
            Db::Sqlite(pool) => {
                sqlite::tokens::put_draw_secret(pool, commitment, stream_id, seed, at).await
            }
        }
    }

    /// The stream and the seed kept under `commitment`, if the server drew it.
    pub async fn draw_secret(
        &self,
        commitment: &str,
    ) -> Result<Option<(String, String)>, StoreError> {
        match &self.inner.db {
            Db::Postgres(pool) => postgres::tokens::draw_secret(pool, commitment).await,
            Db::Sqlite(pool) => sqlite::tokens::draw_secret(pool, commitment).await,
        }
    }

    /// The token with this id, revoked or not.
    pub async fn token_by_id(&self, id: &str) -> Result<Option<TokenRecord>, StoreError> {
        let row = match &self.inner.db {
            Db::Postgres(pool) => postgres::tokens::token_by_id(pool, id).await?,
            Db::Sqlite(pool) => sqlite::tokens::token_by_id(pool, id).await?,
        };
        row.map(token_of).transpose()
    }

    /// Every token, oldest first.
    pub async fn tokens(&self) -> Result<Vec<TokenRecord>, StoreError> {
        let rows = match &self.inner.db {
            Db::Postgres(pool) => postgres::tokens::tokens(pool).await?,
            Db::Sqlite(pool) => sqlite::tokens::tokens(pool).await?,
        };
        rows.into_iter().map(token_of).collect()
    }

    /// Revokes a token; false if there is no such token or it was already revoked.
    /// On PostgreSQL the revocation is announced on [`crate::store::TOKENS_CHANNEL`], so
    /// every instance stops trusting the tokens it had checked.
    pub async fn revoke_token(&self, id: &str) -> Result<bool, StoreError> {
        let now = self.inner.clock.now().as_micros();
        let affected = match &self.inner.db {
            Db::Postgres(pool) => {
                let affected = postgres::tokens::revoke_token(pool, id, now).await?;
                sqlx::query("SELECT pg_notify($1, $2)")
                    .bind(crate::store::TOKENS_CHANNEL)
                    .bind(id)
                    .execute(pool)
                    .await?;
                affected
            }
            Db::Sqlite(pool) => sqlite::tokens::revoke_token(pool, id, now).await?,
        };
        self.inner
            .token_generation
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Ok(affected > 0)
    }

    /// A number that changes whenever a token may have been revoked, for a cache of checked
    /// tokens: on PostgreSQL, at every revocation by any process (announced by NOTIFY) and
    /// whenever the announcement could have been missed. `None` on SQLite, where another
    /// process's revocation is not announced: check every token against the file (a read
    /// in this process, no round trip).
    pub fn token_generation(&self) -> Option<u64> {
        match &self.inner.db {
            Db::Postgres(_) => Some(
                self.inner
                    .token_generation
                    .load(std::sync::atomic::Ordering::SeqCst),
            ),
            Db::Sqlite(_) => None,
        }
    }

    /// What an append with this idempotency key wrote: its stream and positions, if the
    /// key has been used. (A command retried with its key must not be decided again on a
    /// newer state: the caller looks the key up first.)
    pub async fn appended_with_key(&self, key: &str) -> Result<Option<KeyUse>, StoreError> {
        let row = match &self.inner.db {
            Db::Postgres(pool) => postgres::tokens::appended_with_key(pool, key).await?,
            Db::Sqlite(pool) => sqlite::tokens::appended_with_key(pool, key).await?,
        };
        let Some((stream, first_position, count, first_version, fingerprint)) = row else {
            return Ok(None);
        };
        let count = u64::try_from(count)
            .ok()
            .filter(|c| *c >= 1)
            .ok_or_else(|| StoreError::Corrupt(format!("idempotency event count {count}")))?;
        let first_position = to_u64("position", first_position)?;
        let first_version = to_u64("version", first_version)?;
        Ok(Some(KeyUse {
            stream,
            appended: Appended {
                first_position,
                last_position: first_position + count - 1,
                first_version,
                last_version: first_version + count - 1,
                deduplicated: true,
            },
            fingerprint,
        }))
    }

    /// A trivial query: is the database reachable?
    pub async fn ping(&self) -> Result<(), StoreError> {
        let one = match &self.inner.db {
            Db::Postgres(pool) => postgres::tokens::ping(pool).await?,
            Db::Sqlite(pool) => sqlite::tokens::ping(pool).await?,
        };
        if one == 1 {
            Ok(())
        } else {
            Err(StoreError::Corrupt("SELECT 1 did not return 1".into()))
        }
    }
}
