//! The GraphQL schema, one module per domain, merged with `MergedObject` /
//! `MergedSubscription`:
//!
//! - [`tournaments`]: tournaments and their tables: views, commands, live views.
//! - [`leagues`]: leagues, standings, player records, league commands.
//! - [`cash`]: cash tables (ring games): views, commands, live views.
//! - [`audit`]: the global event log (auditors), who am I.
//! - [`proofs`]: signed tree heads, inclusion and consistency proofs, `verify` (auditors).
//!
//! Output types wrap the read models of `league-projections`; domain types derive no
//! GraphQL traits. Every mutation is a command run through
//! [`league_app::commands::execute`] by [`run_command`], with an optional idempotency key.

pub mod audit;
pub mod cash;
pub mod leagues;
pub mod object_ids;
pub mod payloads;
pub mod proofs;
pub mod scalars;
pub mod tournaments;

pub use scalars::Position;

use std::sync::Arc;

use async_graphql::{Context, MergedObject, MergedSubscription, Schema};
use futures_util::Stream;
use league_app::commands::{Caller, Command, execute};
use league_app::live::Live;
use league_engine::tournament::play::Tournament;
use league_store::{Appended, Store};
use tokio::sync::broadcast::error::RecvError;

use crate::auth::Principal;
use crate::error::{ApiError, ApiResult, key_reused};
use tracing::Instrument as _;

/// What the resolvers share: the store and the live projector.
#[derive(Clone)]
pub struct ApiState {
    pub store: Store,
    pub live: Arc<Live>,
    pub metrics: Arc<crate::metrics::Metrics>,
    pub limiter: Arc<crate::metrics::RateLimiter>,
    /// Failed authentications, by client address.
    pub auth_failures: Arc<crate::metrics::AuthBackoff>,
    /// The most mutations one document may hold.
    pub max_mutations: u32,
    /// Whether callers without a token may introspect the schema.
    pub anonymous_introspection: bool,
    /// Documents kept by their hash (automatic persisted queries).
    pub persisted: Arc<crate::document::PersistedQueries>,
    /// Proxies whose `X-Forwarded-For` is believed.
    pub trusted_proxies: Arc<Vec<std::net::IpAddr>>,
    /// Tokens checked, while no revocation has been announced.
    pub tokens: Arc<crate::auth::TokenCache>,
    /// Live queries shared by their subscribers.
    pub hub: Arc<crate::ws::Hub>,
    /// Held while a league's code is checked against every league and set, so that two
    /// leagues cannot take one code through this instance.
    pub league_codes: Arc<tokio::sync::Mutex<()>>,
    /// Held while a proof or a verification reads the whole sealed tree: one at a time.
    pub heavy_reads: Arc<tokio::sync::Semaphore>,
    /// Where the server is in its life: serving, draining, closing.
    pub stage: tokio::sync::watch::Receiver<crate::Stage>,
    /// Where commands read the time.
    pub clock: league_app::clock::Clock,
}

/// The queries: tournaments and their tables, leagues with their standings and player
/// records, the global event log (auditors), and who the caller is.
#[derive(MergedObject, Default)]
pub struct Query(
    tournaments::TournamentQuery,
    tournaments::HandHistoryQuery,
    leagues::LeagueQuery,
    cash::CashQuery,
    audit::AuditQuery,
    proofs::ProofQuery,
);

/// The commands. Each takes one `input` and goes to one tournament's or one league's stream;
/// its payload says what it appended and carries the changed object. With an
/// `idempotencyKey` in the input (kept per token), a retry of the same request
/// answers what the first call appended and appends nothing; the same key sent with a
/// different request is refused (`IDEMPOTENCY_KEY_REUSED`).
#[derive(MergedObject, Default)]
pub struct Mutation(
    tournaments::TournamentMutation,
    tournaments::CorrectionMutation,
    tournaments::RulingMutation,
    tournaments::UnsoldSeatMutation,
    tournaments::EntropyMutation,
    leagues::LeagueMutation,
    cash::CashMutation,
);

/// Live views over WebSocket (`graphql-transport-ws`, or the older `graphql-ws`): each sends
/// the current value, then a new one whenever it changes; the event log sends each event.
#[derive(MergedSubscription, Default)]
pub struct Subscription(
    tournaments::TournamentSubscription,
    leagues::LeagueSubscription,
    cash::CashSubscription,
    audit::AuditSubscription,
);

pub type ApiSchema = Schema<Query, Mutation, Subscription>;

/// Deepest selection async-graphql accepts: introspection's bound. Data selections are held
/// to a smaller one before the schema sees a document ([`crate::document`]).
const MAX_DEPTH: usize = crate::document::MAX_INTROSPECTION_DEPTH;
/// Most fields in one query.
const MAX_COMPLEXITY: usize = 5_000;

/// The schema, with the state its resolvers read.
pub fn build(state: Option<ApiState>) -> ApiSchema {
    let builder = Schema::build(
        Query::default(),
        Mutation::default(),
        Subscription::default(),
    )
    .limit_depth(MAX_DEPTH)
    .limit_complexity(MAX_COMPLEXITY)
    .extension(crate::error_codes::ErrorCodes)
    .extension(crate::consistency::Consistency);
    match state {
        Some(state) => builder.data(state).finish(),
        None => builder.finish(),
    }
}

/// The schema's SDL (what `league schema` writes to `schema/league.graphql`).
pub fn sdl() -> String {
    let mut sdl = build(None).sdl();
    sdl.push_str(SERVED_BUT_LEFT_OUT);
    sdl
}

/// What async-graphql's introspection answers and its SDL leaves out, declared so that a
/// client that builds the schema from `schema/league.graphql` (graphql-js's `buildSchema`)
/// gets exactly what the standard introspection query gives: the `Float` scalar, which
/// async-graphql always registers (no field here uses it: chips, money and points are
/// whole numbers), and `@deprecated` on the four locations it is served with (graphql-js's
/// own definition adds directive definitions).
const SERVED_BUT_LEFT_OUT: &str = r#"
"""
The `Float` scalar type represents signed double-precision fractional values as specified by [IEEE 754](https://en.wikipedia.org/wiki/IEEE_floating_point).
"""
scalar Float
"""
Marks an element of a GraphQL schema as no longer supported.
"""
directive @deprecated(
	"""
	A reason for why it is deprecated, formatted using Markdown syntax
	"""
	reason: String = "No longer supported"
) on FIELD_DEFINITION | ARGUMENT_DEFINITION | INPUT_FIELD_DEFINITION | ENUM_VALUE
"#;

pub(crate) fn state<'a>(ctx: &Context<'a>) -> ApiResult<&'a ApiState> {
    ctx.data::<ApiState>()
        .map_err(|_| ApiError::internal("the schema was built without its state"))
}

pub(crate) fn principal(ctx: &Context<'_>) -> Principal {
    ctx.data_opt::<Principal>()
        .cloned()
        .unwrap_or(Principal::Anonymous)
}

/// What a command did: the fields every mutation's payload shares
/// ([`payloads`]).
#[derive(Clone, Debug)]
pub struct CommandResult {
    /// The stream the command went to (`tournament:<id>` or `league:<id>`).
    pub stream: String,
    /// Events appended (0: the command changed nothing).
    pub events: u64,
    /// Global position of the first event appended.
    pub first_position: Option<Position>,
    /// Global position of the last event appended.
    pub last_position: Option<Position>,
    /// The stream's version after the command.
    pub version: Option<u64>,
    /// True when this is a retry with an idempotency key already used: nothing was appended
    /// now, and this is what the first call appended.
    pub deduplicated: bool,
    /// For a bet or raise: the seat and the amount it declared, to compare with what the
    /// house rules made of it (`adjusted`).
    pub declared: Option<(league_engine::hand::Seat, u64)>,
    /// The id of the object the command created (as given, or as generated).
    pub created: Option<String>,
}

impl CommandResult {
    fn of(stream: String, appended: Option<Appended>, events: u64) -> CommandResult {
        CommandResult {
            stream,
            events,
            first_position: appended.map(|a| Position(a.first_position)),
            last_position: appended.map(|a| Position(a.last_position)),
            version: appended.map(|a| a.last_version),
            deduplicated: appended.is_some_and(|a| a.deduplicated),
            declared: None,
            created: None,
        }
    }
}

/// Runs a command for `principal` (already authorised by the caller), honouring an
/// idempotency key: a key already used returns what its first call appended and decides
/// nothing again (the store's own dedup only catches identical events, and a retry decided
/// on a newer state would differ).
pub(crate) async fn run_command(
    ctx: &Context<'_>,
    state: &ApiState,
    principal: &Principal,
    command: Command,
    idempotency_key: Option<String>,
    caused_by: Option<league_store::EventId>,
) -> ApiResult<CommandResult> {
    let stream = command.stream();
    // Keys are per token: two clients cannot collide on (or read) each other's keys.
    let key = idempotency_key.map(|k| format!("{}/{k}", principal.token_id().unwrap_or("-")));
    let request = match &key {
        Some(_) => Some(request_fingerprint(ctx)?),
        None => None,
    };
    if let (Some(key), Some(request)) = (&key, &request)
        && let Some(result) = replay(state, &stream, key, request).await?
    {
        return Ok(result);
    }
    // The request's id: the events it appends carry it as their correlation id.
    let correlation = crate::request_id::current()
        .unwrap_or_else(crate::request_id::RequestId::new_v7)
        .to_string();
    let caller = Caller {
        actor: principal.actor(),
        correlation_id: Some(correlation.clone()),
        // The command's cause: the event it follows from, else the request itself.
        causation_id: Some(caused_by.map_or_else(|| correlation.clone(), |e| e.to_string())),
        idempotency_key: key.clone().map(|k| (k, request)),
    };
    // One span per command: every line logged while it runs (a retry after a conflict, an
    // internal error) carries its stream, actor and the correlation id stored with its events.
    let span = tracing::info_span!(
        "command",
        stream = %stream,
        correlation_id = %correlation,
        actor = caller.actor.as_deref().unwrap_or("-"),
    );
    let outcome = execute(&state.store, &state.live, &command, &caller)
        .instrument(span.clone())
        .await;
    match outcome {
        Ok(executed) => {
            let events = executed.appended.map_or(0, |a| {
                a.last_position
                    .saturating_sub(a.first_position)
                    .saturating_add(1)
            });
            let deduplicated = executed.appended.is_some_and(|a| a.deduplicated);
            let events = if deduplicated {
                events
            } else {
                u64::try_from(executed.events).unwrap_or(u64::MAX)
            };
            state
                .metrics
                .command(Some(if deduplicated { 0 } else { events }));
            span.in_scope(|| tracing::debug!(events, deduplicated, "command appended"));
            let mut result = CommandResult::of(executed.stream, executed.appended, events);
            if let Some(first) = executed.appended.filter(|a| a.deduplicated) {
                // The store answered with what the key's first use appended: a create
                // answers the object that created.
                result.created =
                    object_ids::created_by(state, &result.stream, first.first_version).await?;
            }
            Ok(result)
        }
        // A concurrent call with the same key won the race: answer with its result.
        Err(league_app::AppError::Store(league_store::StoreError::IdempotencyMismatch {
            ..
        })) if key.is_some() => {
            match (key, request) {
                (Some(key), Some(request)) => replay(state, &stream, &key, &request)
                    .await?
                    .ok_or_else(|| {
                        ApiError::internal("an idempotency key mismatched but is not recorded")
                    }),
                _ => Err(ApiError::internal("unreachable")),
            }
        }
        Err(e) => {
            // A retry with a key, refused because its first try (still running when this
            // one looked for the key) has since changed the state: the first answer.
            if let (Some(key), Some(request)) = (&key, &request)
                && matches!(
                    e,
                    league_app::AppError::Tournament(_)
                        | league_app::AppError::League(_)
                        | league_app::AppError::Cash(_)
                        | league_app::AppError::Raced(_)
                )
                && let Some(result) = replay(state, &stream, key, request).await?
            {
                return Ok(result);
            }
            state.metrics.command(None);
            span.in_scope(|| tracing::debug!("command refused: {e}"));
            Err(e.into())
        }
    }
}

/// What a mutation asked: its name and its arguments (variables resolved, the idempotency
/// key left out), hashed in a canonical form (object keys sorted), so a retry of the same
/// request matches however its client ordered the fields.
fn request_fingerprint(ctx: &Context<'_>) -> ApiResult<league_store::Hash> {
    use sha2::Digest as _;
    let field = ctx.field();
    let arguments = field
        .arguments()
        .map_err(|e| ApiError::bad_input(e.message))?;
    let mut canonical = serde_json::Map::new();
    for (name, value) in arguments {
        let mut value = value.into_json().map_err(ApiError::internal)?;
        // The key is in the mutation's `input`.
        if let serde_json::Value::Object(fields) = &mut value {
            fields.remove("idempotencyKey");
        }
        canonical.insert(name.to_string(), value);
    }
    // serde_json's map is ordered by key, so this text is canonical.
    let text = serde_json::to_string(&serde_json::json!([field.name(), canonical]))
        .map_err(ApiError::internal)?;
    Ok(sha2::Sha256::digest(text.as_bytes()).into())
}

/// The first answer to a request whose idempotency key was used before; refused with
/// `IDEMPOTENCY_KEY_REUSED` when the key was used for another request.
async fn replay(
    state: &ApiState,
    stream: &str,
    key: &str,
    request: &league_store::Hash,
) -> ApiResult<Option<CommandResult>> {
    let Some(used) = state.store.appended_with_key(key).await? else {
        return Ok(None);
    };
    // The same request: on the same stream, or, for a create whose id the server generated,
    // on the stream its first call's id named.
    if !used.is_for_request(stream, request) && !used.is_for_request(&used.stream, request) {
        return Err(key_reused());
    }
    let appended = used.appended;
    state
        .live
        .reach(
            appended.last_position,
            league_app::commands::READ_YOUR_WRITE,
        )
        .await?;
    let events = appended
        .last_position
        .saturating_sub(appended.first_position)
        .saturating_add(1);
    let mut result = CommandResult::of(used.stream.clone(), Some(appended), events);
    result.created = object_ids::created_by(state, &used.stream, appended.first_version).await?;
    Ok(Some(result))
}

/// Milliseconds since the Unix epoch: the `at` of clock commands.
/// The server's time (its [`league_app::clock::Clock`]), in milliseconds since the epoch.
pub(crate) fn now_millis(ctx: &async_graphql::Context<'_>) -> i64 {
    ctx.data_opt::<ApiState>()
        .map_or_else(league_app::clock::now_millis, |s| s.clock.now())
}

/// A live view of one tournament stream: the current rendering first, then a new one
/// whenever the live projector folds an event of `stream` and the rendering changed.
/// Each round of folding carries the tournament as that round left it, so a watcher that
/// runs late still renders every version in order; only a watcher so late that the
/// broadcast dropped rounds for it (`Lagged`) renders the current state instead.
pub(crate) fn watch<T, F>(
    state: ApiState,
    stream: String,
    render: F,
) -> impl Stream<Item = (u64, T)>
where
    T: PartialEq + Clone + Send + 'static,
    F: Fn(&Tournament) -> Option<T> + Send + Sync + 'static,
{
    struct Watch<T, F> {
        state: ApiState,
        changes: tokio::sync::broadcast::Receiver<Arc<league_app::live::Folded>>,
        stream: String,
        render: F,
        last: Option<T>,
        /// The stream version of the last rendering.
        version: u64,
        first: bool,
    }
    // Subscribe before the first rendering, so no change can fall between the two; only
    // rounds that changed this stream wake the watcher.
    let changes = state.live.changes_of(&stream);
    let watch = Watch {
        state,
        changes,
        stream,
        render,
        last: None,
        version: 0,
        first: true,
    };
    futures_util::stream::unfold(watch, |mut w| async move {
        loop {
            let (now, version) = if w.first {
                w.first = false;
                current(&w.state, &w.stream, &w.render).await
            } else {
                match w.changes.recv().await {
                    Ok(folded) => {
                        match folded.tournaments.iter().find(|(s, _, _)| *s == w.stream) {
                            Some((_, version, t)) => ((w.render)(t), *version),
                            // Folded without a snapshot: render the current state.
                            None if folded.streams.contains(&w.stream) => {
                                current(&w.state, &w.stream, &w.render).await
                            }
                            None => continue,
                        }
                    }
                    // Lagged: some rounds were dropped; render the current state.
                    Err(RecvError::Lagged(_)) => current(&w.state, &w.stream, &w.render).await,
                    Err(RecvError::Closed) => return None,
                }
            };
            // Rounds folded before the first rendering are already in it.
            if version < w.version {
                continue;
            }
            if let Some(now) = now
                && w.last.as_ref() != Some(&now)
            {
                w.version = version;
                w.last = Some(now.clone());
                return Some(((version, now), w));
            }
        }
    })
}

/// The stream's tournament rendered now, with its version.
async fn current<T, F>(state: &ApiState, stream: &str, render: &F) -> (Option<T>, u64)
where
    F: Fn(&Tournament) -> Option<T>,
{
    // A tournament that cannot be read back renders nothing, as one not yet scheduled.
    on_tournament(state, stream, |t, p| (render(t), p.version(stream)))
        .await
        .ok()
        .flatten()
        .unwrap_or_else(|| (None, state.live.read().version(stream)))
}

/// `f` on the tournament of `stream` and the projector: the tournament held in memory
/// while it runs, or read back from its stream once finished and released (see
/// [`league_app::Live::released_tournament`]). `None` for no such tournament.
pub(crate) async fn on_tournament<R>(
    state: &ApiState,
    stream: &str,
    f: impl FnOnce(&Tournament, &league_projections::Projector) -> R,
) -> ApiResult<Option<R>> {
    let released = {
        let p = state.live.read();
        if let Some(t) = p.tournament(stream) {
            return Ok(Some(f(t, &p)));
        }
        p.listing(stream).is_some()
    };
    let t = match released {
        true => state
            .live
            .released_tournament(&state.store, stream)
            .await?
            .map(|(_, t)| t),
        false => None,
    };
    let p = state.live.read();
    Ok(p.tournament(stream).or(t.as_deref()).map(|t| f(t, &p)))
}
