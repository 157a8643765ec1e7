//! The global event log for auditors (with hashes, cursor pagination and a live tail), and
//! who the caller is.
//!
//! Privacy: the log holds hole cards (`HoleCardsDealt`) and each dealt hand's deck seed
//! (`DeckSealed`) from the moment the hand starts. Until that hand is over, such events are
//! returned with their payload withheld (`redacted: true`; the hash still lets an auditor
//! check the chain once the payload can be read).

use std::time::Duration;

use async_graphql::{Context, ID, Object, SimpleObject, Subscription};
use futures_util::StreamExt as _;
use futures_util::stream::BoxStream;
use league_engine::hand::Event as HandEvent;
use league_engine::tournament::play::TournamentEvent;
use league_store::RecordedEvent;

use super::scalars::Micros;
use super::{ApiState, Position, principal, state};
use league_store::hash::to_hex as hex;

use crate::auth::Principal;
use crate::error::{ApiError, ApiResult};

/// Most events in one page.
const MAX_PAGE: usize = 1_000;
/// Most events of the log one page reads for an auditor limited to one league (whose
/// page skips the other leagues' events): a page may then come back short, with
/// `hasNextPage` and a cursor past the events read.
const MAX_SCAN: usize = 20_000;
/// How long a redaction check waits for the projector to reach the event.
const PROJECTOR_WAIT: Duration = Duration::from_secs(5);

/// One event of the global log, as stored.
#[derive(SimpleObject, Clone, Debug)]
pub struct EventOut {
    /// The event's id, a UUID: the same through every instance, this query, the `eventLog`
    /// subscription and any export, so a consumer recognises an event it already has. A
    /// UUIDv7 chosen when the event was appended and covered by its hash; for an event
    /// appended before event ids (release 0.6.0), a UUIDv8 derived from its hash (the rule
    /// is in `docs/event-store.md`).
    pub event_id: ID,
    /// The event's position in the global log: unique and increasing, not contiguous.
    pub position: Position,
    /// Opaque cursor: pass it as `after` to continue after this event.
    pub cursor: String,
    /// The stream it belongs to: `tournament:<id>` or `league:<id>`.
    pub stream_id: String,
    /// Its place in its stream: 1 for the stream's first event, then one more per event.
    pub stream_version: u64,
    /// The event's type, the payload's `type` tag (`TournamentScheduled`, `HandEvent`, ...;
    /// see `docs/events.md`).
    pub event_type: String,
    /// The version of the event type's payload shape.
    pub schema_version: u32,
    /// The payload exactly as stored (JSON text: the bytes an auditor hashes), `null` while
    /// redacted.
    pub payload: Option<String>,
    /// True when the payload is withheld because the hand it belongs to is still running.
    pub redacted: bool,
    /// Who appended it: `admin:<token>`, `host:<venue>:<token>`, `auditor:<token>` or
    /// `player:<player>:<token>` (`<token>` is the token's id, never the token itself), or
    /// `clock` for a level the server's clock started; null when its writer named nobody.
    pub actor: Option<String>,
    /// The id of the request that appended it: its `X-Request-Id` (a UUID), also in the
    /// server's log lines and in the `requestId` of any error the request answered; every
    /// event one request appended shares it. Null for the clock's events; events appended
    /// before request ids carry 16 hex digits.
    pub correlation_id: Option<ID>,
    /// What directly caused the event: the `eventId` of the event it follows from (the
    /// tournament's last event for a result recorded from it; for a level the server's
    /// clock started, the event that set the clock it ran out: the previous level's start
    /// or a resume), or the request id for an event a command appended. Null for events
    /// appended before causation ids.
    pub causation_id: Option<ID>,
    /// The idempotency key of the command that appended it, as `<token id>/<key>`; null
    /// when it was sent without one.
    pub idempotency_key: Option<String>,
    /// When the event was stored, in microseconds since the Unix epoch.
    pub recorded_at: Micros,
    /// Hex SHA-256 of the stream's previous event (64 zeros for the stream's first event).
    pub prev_hash: String,
    /// Hex SHA-256 of this event (see `docs/event-store.md`).
    pub hash: String,
}

/// A page of the log.
#[derive(SimpleObject, Clone, Debug)]
pub struct EventPage {
    /// The page's events, in log order.
    pub events: Vec<EventOut>,
    /// The cursor of the last event of the page (pass it as `after`).
    pub end_cursor: Option<String>,
    /// Whether events follow this page's last one.
    pub has_next_page: bool,
}

/// Who the caller is.
#[derive(SimpleObject, Clone, Debug)]
pub struct Me {
    /// `admin`, `host`, `auditor`, `player`, or `null` without a token.
    pub role: Option<String>,
    /// The id of the caller's token (a UUID, or `tok_` and 12 hex digits for a token made
    /// before 0.6.0; never the token itself);
    /// `null` without a token.
    pub token: Option<ID>,
    /// A host's venue id; `null` for the other roles.
    pub venue: Option<ID>,
    /// A player's id; `null` for the other roles.
    pub player: Option<ID>,
    /// The one league an admin or auditor token is limited to; `null` for every league
    /// (and for the other roles, whose venue or player is their scope).
    pub league: Option<ID>,
    /// When the token stops being accepted (microseconds since the Unix epoch); the
    /// league's operator renews it with `league token renew`. `null` without a token.
    pub expires_at: Option<Micros>,
}

fn cursor_of(position: u64) -> String {
    format!("p{position}")
}

fn position_of(cursor: &str) -> ApiResult<u64> {
    cursor
        .strip_prefix('p')
        .and_then(|p| p.parse().ok())
        .ok_or_else(|| ApiError::bad_input(format!("not a cursor: {cursor:?}")))
}

/// Is this event private (hole cards or a deck seed) to a hand still running?
async fn private(state: &ApiState, e: &RecordedEvent) -> ApiResult<bool> {
    if e.event_type != "HandEvent" {
        return Ok(false);
    }
    // Fail closed: a hand event that cannot be read is withheld.
    let Ok(TournamentEvent::HandEvent { table, event }) =
        league_events::decode(&e.event_type, e.schema_version, &e.payload)
    else {
        return Ok(true);
    };
    if !matches!(
        event,
        HandEvent::HoleCardsDealt { .. } | HandEvent::DeckSealed { .. }
    ) {
        return Ok(false);
    }
    // Decide on a projector that has folded the event; if it cannot catch up, withhold.
    if state.live.reach(e.position, PROJECTOR_WAIT).await.is_err() {
        return Ok(true);
    }
    // Private while the table's current hand runs and this event belongs to it (it came
    // after that hand started).
    let p = state.live.read();
    let running = match p.tournament(&e.stream_id) {
        Some(t) => t
            .tables()
            .get(&table)
            .and_then(|tb| tb.hand())
            .is_some_and(|h| !h.is_over()),
        // Released: a hand that never ended is listed.
        None => p
            .listing(&e.stream_id)
            .is_some_and(|l| l.unfinished_hands.contains(&table)),
    };
    let started = p.hand_started_at(&e.stream_id, table).unwrap_or(0);
    Ok(running && e.stream_version > started)
}

async fn event_out(state: &ApiState, e: RecordedEvent) -> ApiResult<EventOut> {
    let redacted = private(state, &e).await?;
    let event_id = ID(e.id().to_string());
    let payload = if redacted {
        None
    } else {
        Some(String::from_utf8(e.payload).map_err(ApiError::internal)?)
    };
    Ok(EventOut {
        event_id,
        position: Position(e.position),
        cursor: cursor_of(e.position),
        stream_id: e.stream_id,
        stream_version: e.stream_version,
        event_type: e.event_type,
        schema_version: e.schema_version,
        payload,
        redacted,
        actor: e.actor,
        correlation_id: e.correlation_id.map(ID),
        causation_id: e.causation_id.map(ID),
        idempotency_key: e.idempotency_key,
        recorded_at: Micros(e.recorded_at.as_micros()),
        prev_hash: hex(&e.prev_hash),
        hash: hex(&e.hash),
    })
}

#[derive(Default)]
pub struct AuditQuery;

#[Object]
impl AuditQuery {
    /// The global event log in order, for auditors: from `fromPosition` (default 0), or
    /// after the cursor `after`; at most `first` events (default 100, at most 1000).
    async fn events(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "The log position to start from (default 0).")] from_position: Option<
            Position,
        >,
        #[graphql(desc = "A cursor from a previous page's `endCursor`: the page starts after it.")]
        after: Option<String>,
        #[graphql(desc = "How many to return at most.")] first: Option<u32>,
    ) -> ApiResult<EventPage> {
        let state = state(ctx)?;
        let caller = principal(ctx);
        caller.require_auditor()?;
        let mut from = match after {
            Some(cursor) => position_of(&cursor)?.saturating_add(1),
            None => from_position.map_or(0, |p| p.0),
        };
        let first = first
            .map_or(100, |n| usize::try_from(n).unwrap_or(MAX_PAGE))
            .clamp(1, MAX_PAGE);
        let mut out = Vec::with_capacity(first);
        let mut scanned = 0usize;
        let mut has_next_page = false;
        let mut end_cursor = None;
        loop {
            let want = first.saturating_add(1);
            let batch = state.store.read_all(from, want).await?;
            let complete = batch.len() < want;
            for e in batch {
                scanned += 1;
                from = e.position.saturating_add(1);
                if !readable(state, &caller, &e).await? {
                    end_cursor = Some(cursor_of(e.position));
                    continue;
                }
                if out.len() == first {
                    has_next_page = true;
                    break;
                }
                end_cursor = Some(cursor_of(e.position));
                out.push(event_out(state, e).await?);
            }
            if has_next_page || complete {
                break;
            }
            if scanned >= MAX_SCAN {
                has_next_page = true;
                break;
            }
        }
        Ok(EventPage {
            end_cursor,
            events: out,
            has_next_page,
        })
    }

    /// Who the caller is, as their token says.
    async fn me(&self, ctx: &Context<'_>) -> ApiResult<Me> {
        let state = state(ctx)?;
        let p = principal(ctx);
        let expires_at = match p.token_id() {
            Some(id) => state
                .store
                .token_by_id(id)
                .await?
                .and_then(|t| t.expires_at)
                .map(|at| Micros(at.as_micros())),
            None => None,
        };
        let (venue, player) = match &p {
            crate::auth::Principal::Host { venue, .. } => (Some(ID(venue.clone())), None),
            crate::auth::Principal::Player { player, .. } => (None, Some(ID(player.to_string()))),
            _ => (None, None),
        };
        Ok(Me {
            role: p.role().map(|r| r.to_string()),
            token: p.token_id().map(|t| ID(t.to_owned())),
            venue,
            player,
            league: p.league().map(|l| ID(l.to_owned())),
            expires_at,
        })
    }
}

#[derive(Default)]
pub struct AuditSubscription;

#[Subscription]
impl AuditSubscription {
    /// The global log from `fromPosition` on, then live, for auditors.
    async fn event_log(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "The log position to start from (default 0).")] from_position: Option<
            Position,
        >,
    ) -> async_graphql::Result<BoxStream<'static, async_graphql::Result<EventOut>>> {
        let state = state(ctx)?.clone();
        let caller = principal(ctx);
        caller.require_auditor()?;
        let subscription = state.store.subscribe_all(from_position.map_or(0, |p| p.0));
        Ok(futures_util::stream::unfold(Some((state, caller, subscription)), next_event).boxed())
    }
}

type LogTail = Option<(ApiState, Principal, league_store::Subscription)>;

/// The next event of the log tail the caller may read; after an error the stream ends
/// (the client resubscribes from its last position).
async fn next_event(next: LogTail) -> Option<(async_graphql::Result<EventOut>, LogTail)> {
    let (state, caller, mut subscription) = next?;
    let event = loop {
        match subscription.next().await {
            Ok(e) => match readable(&state, &caller, &e).await {
                Ok(true) => break event_out(&state, e).await,
                Ok(false) => {}
                Err(e) => break Err(e),
            },
            Err(e) => break Err(e.into()),
        }
    };
    match event {
        Ok(event) => Some((Ok(event), Some((state, caller, subscription)))),
        Err(e) => Some((Err(e.into()), None)),
    }
}

/// Whether `caller` may read the event `e`: every event for an auditor of every league;
/// for an auditor limited to one league, that league's stream and the tournaments at its
/// venues (decided on a projector that has folded the event's tournament).
async fn readable(state: &ApiState, caller: &Principal, e: &RecordedEvent) -> ApiResult<bool> {
    if caller.league().is_none() {
        return Ok(true);
    }
    let unfolded = league_events::StreamKind::of(&e.stream_id)
        == Some(league_events::StreamKind::Tournament)
        && state.live.read().version(&e.stream_id) < e.stream_version;
    if unfolded && state.live.reach(e.position, PROJECTOR_WAIT).await.is_err() {
        return Err(ApiError::client(
            crate::error::code::CONFLICT,
            "the server is still reading the log: retry in a moment",
        ));
    }
    Ok(caller.reads_stream(&e.stream_id, &state.live.read()))
}
