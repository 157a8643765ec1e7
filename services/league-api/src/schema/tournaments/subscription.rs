//! The tournament domain's subscriptions: a tournament's dashboard view and a table as
//! the caller may see it, live over WebSocket.

use async_graphql::{Context, Subscription};
use futures_util::StreamExt as _;
use futures_util::stream::BoxStream;
use league_projections::views::{table_view, tournament_view};

use super::stream_of;
use super::types::{TableOut, TournamentOut};
use crate::schema::{principal, state, watch};

#[derive(Default)]
pub struct TournamentSubscription;

#[Subscription]
impl TournamentSubscription {
    /// The tournament's view now, then again on every change.
    async fn tournament(
        &self,
        ctx: &Context<'_>,
        id: String,
    ) -> async_graphql::Result<BoxStream<'static, TournamentOut>> {
        let state = state(ctx)?.clone();
        let stream = stream_of(&id);
        let key = stream.clone();
        let views = watch(state, stream, move |t| Some(tournament_view(&key, t)));
        Ok(views.map(|(_, view)| TournamentOut(view)).boxed())
    }

    /// A table as the caller may see it now, then again on every change.
    async fn table(
        &self,
        ctx: &Context<'_>,
        tournament_id: String,
        table: u32,
    ) -> async_graphql::Result<BoxStream<'static, TableOut>> {
        let state = state(ctx)?.clone();
        let viewer = principal(ctx).viewer();
        let stream = stream_of(&tournament_id);
        let views = watch(state, stream, move |t| table_view(t, table, &viewer));
        Ok(views
            .map(|(version, view)| TableOut { view, version })
            .boxed())
    }
}
