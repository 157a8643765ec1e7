//! Bearer tokens, roles and scopes.
//!
//! A token is 32 random bytes in hex behind a `league_` prefix, printed once when created;
//! the store keeps only its SHA-256. Roles, each within its token's scope:
//!
//! - `admin`: everything; with a league (`--league`), that league's commands and the
//!   tournaments at its venues, but not creating leagues.
//! - `host`: commands on the tournaments of their venue (and recording their results).
//! - `player`: their own seat's actions; sees their own hole cards.
//! - `auditor`: reads the event log and completed hands' cards; with a league, only that
//!   league's streams and the tournaments at its venues.
//! - no token: public reads.
//!
//! Every token expires (a default per role, [`Role::default_lifetime`]); `league token
//! renew` moves the expiry, `league token revoke` ends it at once.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use league_engine::units::PlayerId;
use league_events::StreamKind;
use league_projections::{Projector, Viewer};
use league_store::{Hash, NewToken, Store, Timestamp, TokenRecord};
use sha2::{Digest as _, Sha256};

use league_store::hash::to_hex as hex;

use crate::error::{ApiError, ApiResult, code};

const DAY: u64 = 86_400;

/// The longest lifetime a token may be given.
pub const MAX_LIFETIME: Duration = Duration::from_secs(5 * 366 * DAY);

/// What a token may do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Admin,
    Host,
    Auditor,
    Player,
}

impl Role {
    /// How long a token of this role lives unless told otherwise: an admin's 30 days (the
    /// most powerful, the shortest), an auditor's 90, a venue tablet's 180, a player's 365.
    pub const fn default_lifetime(self) -> Duration {
        Duration::from_secs(
            DAY * match self {
                Role::Admin => 30,
                Role::Auditor => 90,
                Role::Host => 180,
                Role::Player => 365,
            },
        )
    }
}

/// The lifetime a token of each role gets when its command names none: the defaults of
/// [`Role::default_lifetime`], or the operator's (`league token create` and `renew` read
/// `--admin-lifetime` ... `--player-lifetime`, or `LEAGUE_ADMIN_TOKEN_LIFETIME` ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lifetimes {
    pub admin: Duration,
    pub auditor: Duration,
    pub host: Duration,
    pub player: Duration,
}

impl Default for Lifetimes {
    fn default() -> Lifetimes {
        Lifetimes {
            admin: Role::Admin.default_lifetime(),
            auditor: Role::Auditor.default_lifetime(),
            host: Role::Host.default_lifetime(),
            player: Role::Player.default_lifetime(),
        }
    }
}

impl Lifetimes {
    /// The lifetime of a `role` token.
    pub const fn of(&self, role: Role) -> Duration {
        match role {
            Role::Admin => self.admin,
            Role::Auditor => self.auditor,
            Role::Host => self.host,
            Role::Player => self.player,
        }
    }
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

/// A lifetime as written on the command line: a number and a unit, `d` (days), `h`
/// (hours) or `m` (minutes), e.g. `90d`; at most [`MAX_LIFETIME`].
pub fn parse_lifetime(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    let (number, unit) = s.split_at(s.len().saturating_sub(1));
    let seconds = match unit {
        "d" => DAY,
        "h" => 3_600,
        "m" => 60,
        _ => return Err(format!("{s:?} is not a lifetime such as 90d, 12h or 30m")),
    };
    let n: u64 = number
        .parse()
        .map_err(|_| format!("{s:?} is not a lifetime such as 90d, 12h or 30m"))?;
    let lifetime = Duration::from_secs(n.saturating_mul(seconds));
    if n == 0 || lifetime > MAX_LIFETIME {
        return Err(format!(
            "a token lives at least a minute and at most {} days",
            MAX_LIFETIME.as_secs() / DAY
        ));
    }
    Ok(lifetime)
}

/// Who is calling, once the token is checked.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Principal {
    Anonymous,
    /// `league`: the one league this admin runs; `None`: every league.
    Admin {
        token: String,
        league: Option<String>,
    },
    Host {
        token: String,
        venue: String,
    },
    /// `league`: the one league this auditor reads; `None`: every league.
    Auditor {
        token: String,
        league: Option<String>,
    },
    Player {
        token: String,
        player: String,
    },
}

/// Whether league `league` has the venue `venue`.
fn league_has_venue(leagues: &Projector, league: &str, venue: &str) -> bool {
    leagues
        .league(&StreamKind::League.stream(league))
        .is_some_and(|l| l.venue(venue).is_some())
}

impl Principal {
    /// The actor recorded in the events' metadata.
    pub fn actor(&self) -> Option<String> {
        match self {
            Principal::Anonymous => None,
            Principal::Admin { token, .. } => Some(format!("admin:{token}")),
            Principal::Host { token, venue } => Some(format!("host:{venue}:{token}")),
            Principal::Auditor { token, .. } => Some(format!("auditor:{token}")),
            Principal::Player { token, player } => Some(format!("player:{player}:{token}")),
        }
    }

    /// The token's id (idempotency keys are scoped by it).
    pub fn token_id(&self) -> Option<&str> {
        match self {
            Principal::Anonymous => None,
            Principal::Admin { token, .. }
            | Principal::Host { token, .. }
            | Principal::Auditor { token, .. }
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

    /// The one league an admin or auditor token is limited to.
    pub fn league(&self) -> Option<&str> {
        match self {
            Principal::Admin { league, .. } | Principal::Auditor { league, .. } => {
                league.as_deref()
            }
            _ => None,
        }
    }

    /// Whether an admin's or auditor's scope takes in the tournaments at `venue`.
    fn covers_venue(&self, venue: &str, leagues: &Projector) -> bool {
        match self {
            Principal::Admin { league, .. } | Principal::Auditor { league, .. } => league
                .as_deref()
                .is_none_or(|l| league_has_venue(leagues, l, venue)),
            _ => false,
        }
    }

    /// How this caller sees a table at `venue`: a player their own cards; an auditor or
    /// admin whose scope takes in the venue every card of a completed hand; anyone else
    /// what was shown.
    pub fn viewer_at(&self, venue: &str, leagues: &Projector) -> Viewer {
        match self {
            Principal::Player { player, .. } => Viewer::Player(PlayerId::from(player.clone())),
            Principal::Admin { .. } | Principal::Auditor { .. }
                if self.covers_venue(venue, leagues) =>
            {
                Viewer::Auditor
            }
            _ => Viewer::Public,
        }
    }

    /// Whether this auditor or admin may read the events of `stream`: a league's own
    /// stream, and the tournaments at its venues (a tournament not yet folded is not).
    pub fn reads_stream(&self, stream: &str, leagues: &Projector) -> bool {
        let Some(league) = self.league() else {
            return self.is_auditor();
        };
        match StreamKind::of(stream) {
            Some(StreamKind::League) => stream == StreamKind::League.stream(league),
            Some(StreamKind::Tournament) => leagues
                .tournament_venue(stream)
                .is_some_and(|venue| league_has_venue(leagues, league, venue)),
            _ => false,
        }
    }

    /// May read the event log and completed hands' cards (within the token's scope).
    pub fn is_auditor(&self) -> bool {
        matches!(self, Principal::Admin { .. } | Principal::Auditor { .. })
    }

    /// An admin of every league (creating a league is theirs).
    pub fn require_operator(&self) -> ApiResult<()> {
        match self {
            Principal::Admin { league: None, .. } => Ok(()),
            Principal::Anonymous => Err(unauthenticated()),
            _ => Err(ApiError::forbidden(
                "only an admin of every league may do this",
            )),
        }
    }

    /// An admin of `league` (or of every league).
    pub fn require_admin(&self, league: &str) -> ApiResult<()> {
        match self {
            Principal::Admin { league: None, .. } => Ok(()),
            Principal::Admin {
                league: Some(own), ..
            } if own == league => Ok(()),
            Principal::Anonymous => Err(unauthenticated()),
            _ => Err(ApiError::forbidden(format!(
                "only an admin of league {league:?} may do this"
            ))),
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

    /// May run the tournaments of `venue`: an admin whose scope takes in the venue, or a
    /// host of that venue.
    pub fn require_venue(&self, venue: &str, leagues: &Projector) -> ApiResult<()> {
        match self {
            Principal::Admin { .. } if self.covers_venue(venue, leagues) => Ok(()),
            Principal::Host { venue: own, .. } if own == venue => Ok(()),
            Principal::Anonymous => Err(unauthenticated()),
            _ => Err(ApiError::forbidden(format!(
                "only an admin or a host of venue {venue:?} may do this"
            ))),
        }
    }

    /// May record a result of `venue` in `league`: the venue's staff, and an admin of that
    /// league.
    pub fn require_results(&self, league: &str, venue: &str, leagues: &Projector) -> ApiResult<()> {
        self.require_venue(venue, leagues)?;
        match self {
            Principal::Admin {
                league: Some(own), ..
            } if own != league => Err(ApiError::forbidden(format!(
                "only an admin of league {league:?} or a host of venue {venue:?} may do this"
            ))),
            _ => Ok(()),
        }
    }

    /// May act for the player `seated` in a tournament at `venue`: the venue's staff, or
    /// that player.
    pub fn require_seat(
        &self,
        venue: &str,
        seated: Option<&str>,
        leagues: &Projector,
    ) -> ApiResult<()> {
        match self {
            Principal::Player { player, .. } if Some(player.as_str()) == seated => Ok(()),
            Principal::Player { .. } => Err(ApiError::forbidden(
                "a player may act only for their own seat",
            )),
            _ => self.require_venue(venue, leagues),
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

/// What a new token is for.
#[derive(Clone, Debug)]
pub struct TokenSpec {
    pub role: Role,
    /// A host's venue (required for a host, refused for the others).
    pub venue: Option<String>,
    /// A player's id (required for a player, refused for the others).
    pub player: Option<String>,
    /// The one league an admin or auditor is limited to (refused for hosts and players,
    /// whose venue or player is their scope).
    pub league: Option<String>,
    /// How long it lives; the role's default when `None`.
    pub lifetime: Option<Duration>,
    /// The token's id: a UUID of the operator's choosing (canonical, lowercase and
    /// hyphenated), or a new UUIDv7 when `None`.
    pub id: Option<String>,
}

impl TokenSpec {
    /// A token of `role` for `venue` or `player`, with the role's default lifetime.
    pub fn new(role: Role, venue: Option<&str>, player: Option<&str>) -> TokenSpec {
        TokenSpec {
            role,
            venue: venue.map(str::to_owned),
            player: player.map(str::to_owned),
            league: None,
            lifetime: None,
            id: None,
        }
    }
}

/// When a token given `lifetime` now (on the store's clock) expires.
fn expiry(store: &Store, lifetime: Duration) -> ApiResult<Timestamp> {
    if lifetime.is_zero() || lifetime > MAX_LIFETIME {
        return Err(ApiError::bad_input(format!(
            "a token lives at least a minute and at most {} days",
            MAX_LIFETIME.as_secs() / DAY
        )));
    }
    let micros = i64::try_from(lifetime.as_micros()).map_err(ApiError::internal)?;
    Ok(Timestamp::from_micros(
        store.now().as_micros().saturating_add(micros),
    ))
}

/// Creates and stores a token with the role's default lifetime; returns its record and
/// the token itself (shown only now). A host token's venue and a player token's player
/// must exist in some league.
pub async fn create_token(
    store: &Store,
    role: Role,
    venue: Option<&str>,
    player: Option<&str>,
) -> ApiResult<(TokenRecord, String)> {
    create_token_for(store, &TokenSpec::new(role, venue, player)).await
}

/// Creates and stores the token `spec` describes; returns its record and the token itself
/// (shown only now). The venue, player or league it names must exist.
pub async fn create_token_for(store: &Store, spec: &TokenSpec) -> ApiResult<(TokenRecord, String)> {
    let role = spec.role;
    match role {
        Role::Host if spec.venue.is_none() => {
            return Err(ApiError::bad_input("a host token needs --venue"));
        }
        Role::Player if spec.player.is_none() => {
            return Err(ApiError::bad_input("a player token needs --player"));
        }
        Role::Host | Role::Player if spec.league.is_some() => {
            return Err(ApiError::bad_input(
                "--league limits an admin or auditor token; a host's scope is its venue, a \
                 player's their own seat",
            ));
        }
        Role::Admin | Role::Auditor | Role::Player if spec.venue.is_some() => {
            return Err(ApiError::bad_input("--venue is for a host token"));
        }
        Role::Admin | Role::Auditor | Role::Host if spec.player.is_some() => {
            return Err(ApiError::bad_input("--player is for a player token"));
        }
        _ => {}
    }
    let expires_at = expiry(store, spec.lifetime.unwrap_or(role.default_lifetime()))?;
    // A token names a venue, a player or a league that exists: a typo would otherwise give
    // a token that can never act.
    let leagues = league_app::directory::leagues(store)
        .await
        .map_err(ApiError::internal)?;
    // A venue or a league may be named by its code; the token keeps the id.
    let venue = match &spec.venue {
        Some(venue)
            if league_app::directory::venues_with_code(&leagues, venue)
                .iter()
                .any(|v| v != venue)
                && league_app::directory::has_venue(&leagues, venue) =>
        {
            return Err(ApiError::bad_input(format!(
                "{venue:?} is a venue's id and another venue's code: name the venue by its id \
                 where it is the only one"
            )));
        }
        Some(venue) if league_app::directory::has_venue(&leagues, venue) => Some(venue.clone()),
        Some(venue) => match league_app::directory::venues_with_code(&leagues, venue)[..] {
            [ref one] => Some(one.clone()),
            [] => {
                return Err(ApiError::not_found(format!(
                    "no venue {venue:?} in any league: add it to a league first (the addVenue mutation)"
                )));
            }
            _ => {
                return Err(ApiError::bad_input(format!(
                    "venue code {venue:?} is used in more than one league: name the venue by its id"
                )));
            }
        },
        None => None,
    };
    let league = match &spec.league {
        Some(league) if leagues.league(&StreamKind::League.stream(league)).is_none() => Some(
            league_app::directory::league_with_code(&leagues, league).ok_or_else(|| {
                ApiError::not_found(format!(
                    "no league `{league}`: create it first (the createLeague mutation)"
                ))
            })?,
        ),
        other => other.clone(),
    };
    if let Some(player) = &spec.player
        && !league_app::directory::has_player(&leagues, player)
    {
        return Err(ApiError::not_found(format!(
            "no player {player:?} in any league: register them in a league first (the registerPlayer mutation)"
        )));
    }
    let mut secret = [0u8; 32];
    getrandom::fill(&mut secret).map_err(ApiError::internal)?;
    let token = format!("league_{}", hex(&secret));
    let id = match &spec.id {
        Some(id) => crate::schema::object_ids::checked_uuid("id", id)?,
        None => uuid::Uuid::now_v7().to_string(),
    };
    if store.token_by_id(&id).await?.is_some() {
        return Err(id_taken(&id));
    }
    let role = role.to_string();
    let inserted = store
        .insert_token(&NewToken {
            id: &id,
            hash: &hash_token(&token),
            role: &role,
            venue: venue.as_deref(),
            player: spec.player.as_deref(),
            league: league.as_deref(),
            expires_at: Some(expires_at),
        })
        .await;
    match inserted {
        Ok(record) => Ok((record, token)),
        // Another creation with the same chosen id won the race.
        Err(_) if store.token_by_id(&id).await?.is_some() => Err(id_taken(&id)),
        Err(e) => Err(e.into()),
    }
}

/// A token id already in use.
fn id_taken(id: &str) -> ApiError {
    ApiError::client(
        crate::error::code::ID_TAKEN,
        format!("a token with the id {id} exists already"),
    )
    .with_field("id")
}

/// Gives an unrevoked token a new expiry, `lifetime` from now (its role's in `defaults`
/// when `None`); the new expiry. The token itself is unchanged: the device holding it
/// keeps it.
pub async fn renew_token(
    store: &Store,
    id: &str,
    lifetime: Option<Duration>,
    defaults: &Lifetimes,
) -> ApiResult<Timestamp> {
    let record = store
        .token_by_id(id)
        .await?
        .filter(|t| t.revoked_at.is_none())
        .ok_or_else(|| ApiError::not_found(format!("no active token {id:?}")))?;
    let role: Role = record.role.parse().map_err(ApiError::internal)?;
    let expires_at = expiry(store, lifetime.unwrap_or(defaults.of(role)))?;
    if store.renew_token(id, expires_at).await? {
        Ok(expires_at)
    } else {
        Err(ApiError::not_found(format!("no active token {id:?}")))
    }
}

/// Tokens checked on PostgreSQL, by hash (never the token itself), each with the store's
/// token generation when it was checked and its expiry: an entry holds only while no
/// revocation has been announced since (`Store::token_generation`, NOTIFY from any process)
/// and the token has not expired, so a revoked token is refused on its next request on
/// every instance once the announcement arrives (milliseconds), without a database round
/// trip per request otherwise. On SQLite every request reads the token from the file.
#[derive(Debug, Default)]
pub struct TokenCache {
    entries: std::sync::Mutex<std::collections::HashMap<Hash, Checked>>,
}

/// A token as checked: who it is, the token generation then, and when it expires.
#[derive(Clone, Debug)]
struct Checked {
    principal: Principal,
    generation: u64,
    expires_at: Option<Timestamp>,
}

impl Checked {
    fn holds(&self, generation: u64, now: Timestamp) -> bool {
        self.generation == generation && self.expires_at.is_none_or(|at| now < at)
    }
}

/// Tokens remembered before the cache is cleared.
const CACHE_MAX: usize = 10_000;

impl TokenCache {
    /// [`authenticate`], answered from the cache while no revocation has been announced
    /// and the token has not expired.
    pub async fn authenticate(&self, store: &Store, header: Option<&str>) -> ApiResult<Principal> {
        let Some(token) = bearer(header) else {
            return Ok(Principal::Anonymous);
        };
        let Some(generation) = store.token_generation() else {
            return authenticate(store, header).await;
        };
        let hash = hash_token(token);
        if let Some(checked) = self.lock().get(&hash)
            && checked.holds(generation, store.now())
        {
            return Ok(checked.principal.clone());
        }
        let (principal, expires_at) = lookup(store, &hash).await?;
        let mut entries = self.lock();
        if entries.len() >= CACHE_MAX {
            entries.clear();
        }
        entries.insert(
            hash,
            Checked {
                principal: principal.clone(),
                generation,
                expires_at,
            },
        );
        Ok(principal)
    }

    /// The caller, if this token was checked since the last announced revocation and has
    /// not expired (no database read); `None` otherwise, and always on SQLite.
    pub fn cached(&self, store: &Store, header: Option<&str>) -> Option<Principal> {
        let generation = store.token_generation()?;
        let hash = hash_token(bearer(header)?);
        let now = store.now();
        self.lock()
            .get(&hash)
            .filter(|checked| checked.holds(generation, now))
            .map(|checked| checked.principal.clone())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, std::collections::HashMap<Hash, Checked>> {
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
        Some(token) => Ok(lookup(store, &hash_token(token)).await?.0),
    }
}

/// The caller a token's hash names, and when the token expires.
async fn lookup(store: &Store, hash: &Hash) -> ApiResult<(Principal, Option<Timestamp>)> {
    let invalid = || ApiError::client(code::UNAUTHENTICATED, "invalid or revoked token");
    let record = store.token_by_hash(hash).await?.ok_or_else(invalid)?;
    if record.revoked_at.is_some() {
        return Err(invalid());
    }
    if record.expired(store.now()) {
        return Err(ApiError::client(
            code::UNAUTHENTICATED,
            format!(
                "token {} has expired: the league's operator renews it with `league token \
                 renew {}`",
                record.id, record.id
            ),
        ));
    }
    let role: Role = record.role.parse().map_err(ApiError::internal)?;
    let id = record.id;
    let league = record.league;
    let principal = match role {
        Role::Admin => Principal::Admin { token: id, league },
        Role::Auditor => Principal::Auditor { token: id, league },
        Role::Host => Principal::Host {
            token: id,
            venue: record.venue.ok_or_else(invalid)?,
        },
        Role::Player => Principal::Player {
            token: id,
            player: record.player.ok_or_else(invalid)?,
        },
    };
    Ok((principal, record.expires_at))
}
