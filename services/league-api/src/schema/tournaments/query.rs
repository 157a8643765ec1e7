//! The tournament domain's queries: dashboard views, pages of tournaments, tables as the
//! caller may see them, and the table a command's result carries.

use async_graphql::{Context, ID, Object};
use league_engine::hand::Event as HandEvent;
use league_engine::tournament::play::TournamentEvent;
use league_projections::Entry;
use league_projections::views::{TournamentView, table_view, tournament_view};

use super::stream_of;
use super::types::{TableOut, TournamentOut, TournamentPage};
use crate::auth::Principal;
use crate::error::{ApiError, ApiResult};
use crate::schema::scalars::Millis;
use crate::schema::{ApiState, CommandResult, principal, state};

/// Most tournaments in one page.
const MAX_PAGE: usize = 1_000;

/// The tournament id of a stream (`tournament:<id>`).
fn id_of(stream: &str) -> &str {
    league_events::StreamKind::Tournament
        .id_of(stream)
        .unwrap_or(stream)
}

#[derive(Default)]
pub struct TournamentQuery;

#[Object]
impl TournamentQuery {
    /// A tournament's dashboard view.
    async fn tournament(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "The tournament's id, as scheduled.")] id: ID,
    ) -> ApiResult<Option<TournamentOut>> {
        let state = state(ctx)?;
        let stream = stream_of(&id);
        let released = {
            let p = state.live.read();
            if let Some(t) = p.tournament(&stream) {
                return Ok(Some(TournamentOut(tournament_view(&stream, t))));
            }
            p.listing(&stream).is_some()
        };
        if !released {
            return Ok(None);
        }
        Ok(stored_views(state, &[&stream])
            .await?
            .pop()
            .map(TournamentOut))
    }

    /// The tournaments (optionally of one venue, or starting within a window) in id order,
    /// a page at a time: `first` (default 100, at most 1,000) after the cursor `after` (a
    /// page's `endCursor`).
    async fn tournaments(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "Only the tournaments at this venue.")] venue: Option<ID>,
        #[graphql(desc = "Only the tournaments scheduled to start at this moment or later.")]
        starts_from: Option<Millis>,
        #[graphql(desc = "Only the tournaments scheduled to start before this moment.")]
        starts_before: Option<Millis>,
        #[graphql(desc = "How many to return at most.")] first: Option<u32>,
        #[graphql(desc = "A cursor from a previous page's `endCursor`: the page starts after it.")]
        after: Option<String>,
    ) -> ApiResult<TournamentPage> {
        let venue = venue.map(|v| v.0);
        let state = state(ctx)?;
        let first = first
            .map_or(100, |n| usize::try_from(n).unwrap_or(MAX_PAGE))
            .clamp(1, MAX_PAGE);
        let after = after
            .map(|c| {
                c.strip_prefix("t:")
                    .map(stream_of)
                    .ok_or_else(|| ApiError::bad_input(format!("not a cursor: {c:?}")))
            })
            .transpose()?;
        let from = match &after {
            Some(stream) => std::ops::Bound::Excluded(stream.clone()),
            None => std::ops::Bound::Unbounded,
        };
        // Each tournament held is rendered now; a finished one the projector released is
        // read from its stored document, in one read for the page.
        let listed: Vec<(String, Option<TournamentView>)> = {
            let p = state.live.read();
            p.listings_in((from, std::ops::Bound::Unbounded))
                .filter(|(_, entry)| {
                    entry.venue_and_start().is_some_and(|(at, starts_at)| {
                        venue.as_ref().is_none_or(|venue| at == venue)
                            && starts_from.is_none_or(|from| starts_at >= from.0)
                            && starts_before.is_none_or(|before| starts_at < before.0)
                    })
                })
                .take(first.saturating_add(1))
                .map(|(stream, entry)| match entry {
                    Entry::Held(t) => (stream.clone(), Some(tournament_view(stream, t))),
                    Entry::Released(_) => (stream.clone(), None),
                })
                .collect()
        };
        let released: Vec<&str> = listed
            .iter()
            .filter(|(_, view)| view.is_none())
            .map(|(stream, _)| stream.as_str())
            .collect();
        let mut stored = stored_views(state, &released).await?.into_iter();
        let mut page: Vec<TournamentOut> = Vec::with_capacity(listed.len());
        for (_, view) in listed {
            match view.or_else(|| stored.next()) {
                Some(view) => page.push(TournamentOut(view)),
                None => break,
            }
        }
        let has_next_page = page.len() > first;
        page.truncate(first);
        Ok(TournamentPage {
            end_cursor: page.last().map(|t| format!("t:{}", id_of(&t.0.stream))),
            tournaments: page,
            has_next_page,
        })
    }

    /// A table as the caller may see it: the public sees shown cards; a player also their
    /// own; an auditor (or admin) every card of a completed hand.
    async fn table(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "The tournament's id, as scheduled.")] tournament_id: ID,
        #[graphql(desc = "The table's number, from 1.")] table: u32,
    ) -> ApiResult<Option<TableOut>> {
        table_now(
            state(ctx)?,
            &stream_of(&tournament_id),
            table,
            &principal(ctx),
        )
        .await
    }
}

/// For a bet or raise the house rules changed: what the seat declared and what it became.
pub(crate) async fn adjusted(
    ctx: &Context<'_>,
    result: &CommandResult,
) -> ApiResult<Option<Adjusted>> {
    let (Some((seat, declared)), Some(first), Some(last)) =
        (result.declared, result.first_position, result.last_position)
    else {
        return Ok(None);
    };
    let count = usize::try_from(last.0.saturating_sub(first.0).saturating_add(1))
        .unwrap_or(usize::MAX)
        .min(league_store::MAX_BATCH_EVENTS);
    let events = state(ctx)?.store.read_all(first.0, count).await?;
    for e in events.iter().filter(|e| e.position <= last.0) {
        let Ok(TournamentEvent::HandEvent { event, .. }) =
            league_events::decode::<TournamentEvent>(&e.event_type, e.schema_version, &e.payload)
        else {
            continue;
        };
        let made = match event {
            HandEvent::PlayerBet { seat: s, to, .. }
            | HandEvent::PlayerRaised { seat: s, to, .. }
                if s == seat =>
            {
                Some(to)
            }
            HandEvent::RaiseTreatedAsCall { seat: s, .. } if s == seat => None,
            _ => continue,
        };
        return Ok((made != Some(declared)).then_some(Adjusted {
            seat,
            declared: crate::schema::scalars::Chips::of(declared),
            made: made.map(crate::schema::scalars::Chips::of),
            treated_as_call: made.is_none(),
        }));
    }
    Ok(None)
}

/// A bet or raise the house rules changed.
#[derive(async_graphql::SimpleObject, Clone, Debug)]
pub struct Adjusted {
    /// The seat (from 0) that bet or raised.
    pub seat: league_engine::hand::Seat,
    /// The total the seat declared for the round.
    pub declared: crate::schema::scalars::Chips,
    /// The total its bet became (brought up to the minimum); null when it became a call.
    pub made: Option<crate::schema::scalars::Chips>,
    /// The raise was treated as a call.
    pub treated_as_call: bool,
}

/// The stored views of the released tournaments `streams`, in order.
async fn stored_views(state: &ApiState, streams: &[&str]) -> ApiResult<Vec<TournamentView>> {
    if streams.is_empty() {
        return Ok(Vec::new());
    }
    let docs = state
        .store
        .read_docs(league_app::PROJECTION, "tournament", streams)
        .await?;
    if docs.len() != streams.len() {
        return Err(ApiError::internal(
            "a finished tournament's stored view is missing: run `league rebuild`",
        ));
    }
    docs.iter()
        .map(|d| serde_json::from_slice(&d.doc).map_err(ApiError::internal))
        .collect()
}

/// Table `table` of the tournament `stream` as `caller` may see it now.
pub(crate) async fn table_now(
    state: &ApiState,
    stream: &str,
    table: u32,
    caller: &Principal,
) -> ApiResult<Option<TableOut>> {
    let table = crate::schema::on_tournament(state, stream, |t, p| {
        let venue = t.schedule().map(|s| s.venue.as_str()).unwrap_or_default();
        table_view(t, table, &caller.viewer_at(venue, p)).map(|view| {
            let tournament = league_events::StreamKind::Tournament
                .id_of(stream)
                .unwrap_or_default();
            TableOut::new(tournament, view, p.version(stream))
        })
    })
    .await?;
    Ok(table.flatten())
}
