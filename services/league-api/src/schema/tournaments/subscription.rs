//! The tournament domain's subscriptions: a tournament's dashboard view and a table as
//! the caller may see it, live over WebSocket.

use async_graphql::{Context, ID, Subscription};
use futures_util::StreamExt as _;
use futures_util::stream::BoxStream;
use league_projections::views::{table_view, tournament_view};

use super::stream_of;
use super::types::{TableOut, TournamentOut};
use crate::error::{ApiError, ApiResult};
use crate::schema::{ApiState, principal, state, watch};
use league_engine::tournament::play::Stage;

/// A subscription names a tournament that is scheduled and, once its tables are drawn, a
/// table it has: anything else is `NOT_FOUND` at once, not a stream that never
/// answers.
async fn exists(state: &ApiState, stream: &str, id: &str, table: Option<u32>) -> ApiResult<()> {
    let tables = crate::schema::on_tournament(state, stream, |t, _| {
        (t.stage() != Stage::New).then(|| {
            let drawn = t.stage() != Stage::Scheduled;
            (drawn, t.tables().keys().copied().collect::<Vec<u32>>())
        })
    })
    .await?
    .flatten();
    let Some((drawn, tables)) = tables else {
        return Err(ApiError::not_found(format!("no tournament {id:?}")));
    };
    if let Some(table) = table
        && drawn
        && !tables.contains(&table)
    {
        return Err(ApiError::not_found(format!(
            "no table {table} in tournament {id:?} (its tables: {})",
            league_engine::units::listed(&tables)
        )));
    }
    Ok(())
}

#[derive(Default)]
pub struct TournamentSubscription;

#[Subscription]
impl TournamentSubscription {
    /// The tournament's view now, then again on every change.
    async fn tournament(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "The tournament's id, as scheduled.")] id: ID,
    ) -> async_graphql::Result<BoxStream<'static, TournamentOut>> {
        let state = state(ctx)?.clone();
        let stream = stream_of(&id);
        exists(&state, &stream, &id, None).await?;
        let key = stream.clone();
        let views = watch(state, stream, move |t| Some(tournament_view(&key, t)));
        Ok(views.map(|(_, view)| TournamentOut(view)).boxed())
    }

    /// A table as the caller may see it now, then again on every change.
    async fn table(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "The tournament's id, as scheduled.")] tournament_id: ID,
        #[graphql(desc = "The table's number, from 1.")] table: u32,
    ) -> async_graphql::Result<BoxStream<'static, TableOut>> {
        let state = state(ctx)?.clone();
        let stream = stream_of(&tournament_id);
        exists(&state, &stream, &tournament_id, Some(table)).await?;
        let viewer = {
            let p = state.live.read();
            let venue = p.tournament_venue(&stream).unwrap_or_default();
            principal(ctx).viewer_at(venue, &p)
        };
        let views = watch(state, stream, move |t| table_view(t, table, &viewer));
        Ok(views
            .map(move |(version, view)| TableOut::new(&tournament_id, view, version))
            .boxed())
    }
}
