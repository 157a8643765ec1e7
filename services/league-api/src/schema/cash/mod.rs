//! Cash tables (ring games): the table's view, the commands that run it, and its live view.
//!
//! - [`types`]: the output types.
//! - [`mutation`]: each command's input and payload, and its authorisation: the venue's
//!   staff run the table; a player sits down, tops up, sits out, comes back, cashes out and
//!   acts for their own seat only.
//!
//! The public sees a table without hole cards, a player their own, an auditor (or an admin
//! whose scope takes in the venue) every card of a completed hand.

pub mod mutation;
pub mod types;

use async_graphql::{Context, ID, Object, Subscription};
use futures_util::StreamExt as _;
use futures_util::stream::BoxStream;
use league_events::StreamKind;
use league_projections::Projector;
use league_projections::views::cash_table_view;
use tokio::sync::broadcast::error::RecvError;

pub use mutation::CashMutation;
use types::{CashTableOut, CashTakingsDay};

use crate::auth::Principal;
use crate::error::{ApiError, ApiResult};
use crate::schema::{ApiState, principal, state};

pub(crate) fn stream_of(id: &str) -> String {
    StreamKind::Cash.stream(id)
}

/// Whether `caller` runs or audits the venue of a table.
fn is_staff(caller: &Principal, venue: &str, p: &Projector) -> bool {
    caller.require_venue(venue, p).is_ok()
        || (caller.is_auditor()
            && matches!(
                caller.viewer_at(venue, p),
                league_projections::views::Viewer::Auditor
            ))
}

/// The table `id` as `caller` may see it, from the projector `p`.
pub(crate) fn table_out(p: &Projector, id: &str, caller: &Principal) -> Option<CashTableOut> {
    let stream = stream_of(id);
    let table = p.cash_table(&stream)?;
    let venue = table.config.as_ref()?.venue.to_string();
    let viewer = caller.viewer_at(&venue, p);
    let view = cash_table_view(id, table, &viewer)?;
    Some(CashTableOut {
        id: id.to_owned(),
        view,
        version: p.version(&stream),
        staff: is_staff(caller, &venue, p),
    })
}

/// `YYYY-MM-DD` of a day counted from the Unix epoch.
fn date(day: u64) -> String {
    let millis = i64::try_from(day.saturating_mul(86_400_000)).unwrap_or(i64::MAX);
    let [y, m, d, ..] = league_engine::pokerstars::civil(millis);
    format!("{y:04}-{m:02}-{d:02}")
}

#[derive(Default)]
pub struct CashQuery;

#[Object]
impl CashQuery {
    /// A cash table as the caller may see it; null for no such table.
    async fn cash_table(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "The table's id, as opened.")] id: ID,
    ) -> ApiResult<Option<CashTableOut>> {
        let p = state(ctx)?.live.read();
        Ok(table_out(&p, &id, &principal(ctx)))
    }

    /// The cash tables running (not closed), of one venue or of all: stakes, seats taken,
    /// the waiting list.
    async fn cash_tables(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "Only this venue's tables.")] venue: Option<ID>,
    ) -> ApiResult<Vec<CashTableOut>> {
        let p = state(ctx)?.live.read();
        let caller = principal(ctx);
        Ok(p.cash_tables()
            .filter(|(_, t)| !t.closed)
            .filter(|(_, t)| {
                venue.as_ref().is_none_or(|v| {
                    t.config
                        .as_ref()
                        .is_some_and(|c| c.venue.as_str() == v.as_str())
                })
            })
            .filter_map(|(stream, _)| {
                let id = StreamKind::Cash.id_of(stream)?;
                table_out(&p, id, &caller)
            })
            .collect())
    }

    /// What the house took (session fees and rake) at each of a venue's cash tables, by day (UTC),
    /// oldest first. The venue's staff, or an auditor.
    async fn cash_takings(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "The venue.")] venue: ID,
    ) -> ApiResult<Vec<CashTakingsDay>> {
        let p = state(ctx)?.live.read();
        let caller = principal(ctx);
        if !is_staff(&caller, &venue, &p) {
            caller.require_venue(&venue, &p)?;
        }
        let mut rows = Vec::new();
        for (stream, t) in p.cash_tables() {
            let Some(config) = t
                .config
                .as_ref()
                .filter(|c| c.venue.as_str() == venue.as_str())
            else {
                continue;
            };
            let id = StreamKind::Cash.id_of(stream).unwrap_or(stream);
            for (&day, &amount) in &t.takings_by_day {
                rows.push(CashTakingsDay {
                    table: ID(id.to_owned()),
                    name: config.name.clone(),
                    day: date(day),
                    amount: crate::schema::scalars::Chips(amount),
                });
            }
        }
        rows.sort_by(|a, b| (&a.day, &a.table.0).cmp(&(&b.day, &b.table.0)));
        Ok(rows)
    }
}

#[derive(Default)]
pub struct CashSubscription;

#[Subscription]
impl CashSubscription {
    /// A cash table as the caller may see it now, then again on every change.
    async fn cash_table(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "The table's id, as opened.")] id: ID,
    ) -> async_graphql::Result<BoxStream<'static, CashTableOut>> {
        let state: ApiState = state(ctx)?.clone();
        let caller = principal(ctx);
        let id = id.0;
        let stream = stream_of(&id);
        if state.live.read().cash_table(&stream).is_none() {
            return Err(ApiError::not_found(format!("no cash table {id:?}")).into());
        }
        // Subscribed before the first rendering: no change falls between the two.
        let changes = state.live.changes_of(&stream);
        let first = table_out(&state.live.read(), &id, &caller);
        let rest = futures_util::stream::unfold(
            (state, changes, id, caller, stream),
            |(state, mut changes, id, caller, stream)| async move {
                loop {
                    match changes.recv().await {
                        Ok(folded) if !folded.streams.contains(&stream) => continue,
                        Ok(_) | Err(RecvError::Lagged(_)) => {
                            let now = table_out(&state.live.read(), &id, &caller);
                            if let Some(now) = now {
                                return Some((now, (state, changes, id, caller, stream)));
                            }
                        }
                        Err(RecvError::Closed) => return None,
                    }
                }
            },
        );
        Ok(futures_util::stream::iter(first)
            .chain(rest)
            .scan(0u64, |last, view| {
                // A round that changed nothing the caller sees is not sent again.
                let fresh = view.version > *last;
                *last = (*last).max(view.version);
                futures_util::future::ready(Some(fresh.then_some(view)))
            })
            .filter_map(futures_util::future::ready)
            .boxed())
    }
}

/// The venue of cash table `id`, or `NOT_FOUND`.
pub(crate) fn venue_of(p: &Projector, id: &str) -> ApiResult<String> {
    p.cash_table(&stream_of(id))
        .and_then(|t| t.config.as_ref())
        .map(|c| c.venue.to_string())
        .ok_or_else(|| ApiError::not_found(format!("no cash table {id:?}")))
}
