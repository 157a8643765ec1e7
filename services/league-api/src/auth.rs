//! Bearer tokens and roles.
//!
//! A token is 32 random bytes in hex behind a `league_` prefix, printed once when created;
//! the store keeps only its SHA-256. Roles:
//!
//! - `admin`: everything.
//! - `host`: commands on the tournaments of their venue (and recording their results).
//! - `player`: their own seat's actions; sees their own hole cards.
//! - `auditor`: reads everything, including the event log and completed hands' cards.
//! - no token: public reads.

use std::fmt;
use std::str::FromStr;

use league_engine::units::PlayerId;
use league_projections::Viewer;
use league_store::{Hash, Store, TokenRecord};
use sha2::{Digest as _, Sha256};

use league_store::hash::to_hex as hex;

use crate::error::{ApiError, ApiResult, code};

/// What a token may do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Admin,
    Host,
    Auditor,
    Player,
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Role::Admin => "admin",
            Role::Host => "host",
            Role::Auditor => "auditor",
            Role::Player => "player",
        })
    }
}

impl FromStr for Role {
    type Err = String;

    fn from_str(s: &str) -> Result<Role, String> {
        match s {
            "admin" => Ok(Role::Admin),
            "host" => Ok(Role::Host),
            "auditor" => Ok(Role::Auditor),
            "player" => Ok(Role::Player),
            other => Err(format!(
                "unknown role {other:?} (admin, host, auditor or player)"
            )),
        }
    }
}

/// Who is calling, once the token is checked.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Principal {
    Anonymous,
    Admin { token: String },
    Host { token: String, venue: String },
    Auditor { token: String },
    Player { token: String, player: String },
}

impl Principal {
    /// The actor recorded in the events' metadata.
    pub fn actor(&self) -> Option<String> {
        match self {
            Principal::Anonymous => None,
            Principal::Admin { token } => Some(format!("admin:{token}")),
            Principal::Host { token, venue } => Some(format!("host:{venue}:{token}")),
            Principal::Auditor { token } => Some(format!("auditor:{token}")),
            Principal::Player { token, player } => Some(format!("player:{player}:{token}")),
        }
    }

    /// The token's id (idempotency keys are scoped by it).
    pub fn token_id(&self) -> Option<&str> {
        match self {
            Principal::Anonymous => None,
            Principal::Admin { token }
            | Principal::Host { token, .. }
            | Principal::Auditor { token }
            | Principal::Player { token, .. } => Some(token),
        }
    }

    pub fn role(&self) -> Option<Role> {
        match self {
            Principal::Anonymous => None,
            Principal::Admin { .. } => Some(Role::Admin),
            Principal::Host { .. } => Some(Role::Host),
            Principal::Auditor { .. } => Some(Role::Auditor),
            Principal::Player { .. } => Some(Role::Player),
        }
    }

    /// How this caller sees a table: a player their own cards; an auditor or admin every
    /// card of a completed hand; anyone else what was shown.
    pub fn viewer(&self) -> Viewer {
        match self {
            Principal::Player { player, .. } => Viewer::Player(PlayerId::from(player.clone())),
            Principal::Admin { .. } | Principal::Auditor { .. } => Viewer::Auditor,
            Principal::Anonymous | Principal::Host { .. } => Viewer::Public,
        }
    }

    /// May read the event log and completed hands' cards.
    pub fn is_auditor(&self) -> bool {
        matches!(self, Principal::Admin { .. } | Principal::Auditor { .. })
    }

    pub fn require_admin(&self) -> ApiResult<()> {
        match self {
            Principal::Admin { .. } => Ok(()),
            Principal::Anonymous => Err(unauthenticated()),
            _ => Err(ApiError::forbidden("only an admin may do this")),
        }
    }

    pub fn require_auditor(&self) -> ApiResult<()> {
        match self {
            _ if self.is_auditor() => Ok(()),
            Principal::Anonymous => Err(unauthenticated()),
            _ => Err(ApiError::forbidden(
                "only an auditor or admin may read this",
            )),
        }
    }

    /// May run the tournaments of `venue` (an admin, or a host of that venue).
    pub fn require_venue(&self, venue: &str) -> ApiResult<()> {
        match self {
            Principal::Admin { .. } => Ok(()),
            Principal::Host { venue: own, .. } if own == venue => Ok(()),
            Principal::Anonymous => Err(unauthenticated()),
            _ => Err(ApiError::forbidden(format!(
                "only an admin or a host of venue {venue:?} may do this"
            ))),
        }
    }

    /// May act for the player `seated` in a tournament at `venue`: the venue's staff, or
    /// that player.
    pub fn require_seat(&self, venue: &str, seated: Option<&str>) -> ApiResult<()> {
        match self {
            Principal::Player { player, .. } if Some(player.as_str()) == seated => Ok(()),
            Principal::Player { .. } => Err(ApiError::forbidden(
                "a player may act only for their own seat",
            )),
            _ => self.require_venue(venue),
        }
    }
}

fn unauthenticated() -> ApiError {
    ApiError::client(code::UNAUTHENTICATED, "this needs a bearer token")
}

/// SHA-256 of a token.
pub fn hash_token(token: &str) -> Hash {
    Sha256::digest(token.as_bytes()).into()
}

/// Creates and stores a token; returns its record and the token itself (shown only now).
/// A host token's venue and a player token's player must exist in some league.
pub async fn create_token(
    store: &Store,
    role: Role,
    venue: Option<&str>,
    player: Option<&str>,
) -> ApiResult<(TokenRecord, String)> {
    match role {
        Role::Host if venue.is_none() => {
            return Err(ApiError::bad_input("a host token needs --venue"));
        }
        Role::Player if player.is_none() => {
            return Err(ApiError::bad_input("a player token needs --player"));
        }
        _ => {}
    }
    // A token names a venue or a player that exists: a typo would otherwise give a token
    // that can never act.
    if venue.is_some() || player.is_some() {
        let leagues = league_app::directory::leagues(store)
            .await
            .map_err(ApiError::internal)?;
        if let Some(venue) = venue
            && !league_app::directory::has_venue(&leagues, venue)
        {
            return Err(ApiError::not_found(format!(
                "no venue {venue:?} in any league: add it to a league first (the addVenue mutation)"
            )));
        }
        if let Some(player) = player
            && !league_app::directory::has_player(&leagues, player)
        {
            return Err(ApiError::not_found(format!(
                "no player {player:?} in any league: register them in a league first (the registerPlayer mutation)"
            )));
        }
    }
    let mut secret = [0u8; 32];
    getrandom::fill(&mut secret).map_err(ApiError::internal)?;
    let mut id = [0u8; 6];
    getrandom::fill(&mut id).map_err(ApiError::internal)?;
    let token = format!("league_{}", hex(&secret));
    let id = format!("tok_{}", hex(&id));
    let record = store
        .insert_token(&id, &hash_token(&token), &role.to_string(), venue, player)
        .await?;
    Ok((record, token))
}

/// Tokens checked on PostgreSQL, by hash (never the token itself), each with the store's
/// token generation when it was checked: an entry holds only while no revocation has been
/// announced since (`Store::token_generation`, NOTIFY from any process), so a revoked token
/// is refused on its next request on every instance once the announcement arrives
/// (milliseconds), without a database round trip per request otherwise. On SQLite every
/// request reads the token from the file.
#[derive(Debug, Default)]
pub struct TokenCache {
    entries: std::sync::Mutex<std::collections::HashMap<Hash, (Principal, u64)>>,
}

/// Tokens remembered before the cache is cleared.
const CACHE_MAX: usize = 10_000;

impl TokenCache {
    /// [`authenticate`], answered from the cache while no revocation has been announced.
    pub async fn authenticate(&self, store: &Store, header: Option<&str>) -> ApiResult<Principal> {
        let Some(token) = bearer(header) else {
            return Ok(Principal::Anonymous);
        };
        let Some(generation) = store.token_generation() else {
            return authenticate(store, header).await;
        };
        let hash = hash_token(token);
        if let Some((principal, at)) = self.lock().get(&hash)
            && *at == generation
        {
            return Ok(principal.clone());
        }
        let principal = lookup(store, &hash).await?;
        let mut entries = self.lock();
        if entries.len() >= CACHE_MAX {
            entries.clear();
        }
        entries.insert(hash, (principal.clone(), generation));
        Ok(principal)
    }

    /// The caller, if this token was checked since the last announced revocation (no
    /// database read); `None` otherwise, and always on SQLite.
    pub fn cached(&self, store: &Store, header: Option<&str>) -> Option<Principal> {
        let generation = store.token_generation()?;
        let hash = hash_token(bearer(header)?);
        self.lock()
            .get(&hash)
            .filter(|(_, at)| *at == generation)
            .map(|(principal, _)| principal.clone())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, std::collections::HashMap<Hash, (Principal, u64)>> {
        self.entries
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// The token in an `Authorization` header value (`Bearer ...`, or a bare token).
fn bearer(header: Option<&str>) -> Option<&str> {
    let header = header.map(str::trim).filter(|h| !h.is_empty())?;
    Some(
        header
            .strip_prefix("Bearer ")
            .or_else(|| header.strip_prefix("bearer "))
            .unwrap_or(header)
            .trim(),
    )
}

/// The caller of a request with this `Authorization` header value (or a bare token),
/// checked against the database (one indexed read by the token's hash).
pub async fn authenticate(store: &Store, header: Option<&str>) -> ApiResult<Principal> {
    match bearer(header) {
        None => Ok(Principal::Anonymous),
        Some(token) => lookup(store, &hash_token(token)).await,
    }
}

async fn lookup(store: &Store, hash: &Hash) -> ApiResult<Principal> {
    let invalid = || ApiError::client(code::UNAUTHENTICATED, "invalid or revoked token");
    let record = store.token_by_hash(hash).await?.ok_or_else(invalid)?;
    if record.revoked_at.is_some() {
        return Err(invalid());
    }
    let role: Role = record.role.parse().map_err(ApiError::internal)?;
    let id = record.id;
    Ok(match role {
        Role::Admin => Principal::Admin { token: id },
        Role::Auditor => Principal::Auditor { token: id },
        Role::Host => Principal::Host {
            token: id,
            venue: record.venue.ok_or_else(invalid)?,
        },
        Role::Player => Principal::Player {
            token: id,
            player: record.player.ok_or_else(invalid)?,
        },
    })
}
