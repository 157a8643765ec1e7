//! The league domain's subscription: a season's standings, live over WebSocket.

use super::types::StandingOut;
use super::{closed_season, scope_of, standings_out, stream_of};
use crate::error::ApiError;
use crate::schema::state;
use async_graphql::{Context, ID};

#[derive(Default)]
pub struct LeagueSubscription;

#[async_graphql::Subscription]
impl LeagueSubscription {
    /// A season's standings (league-wide or at one venue, under the current scoring
    /// version) now, then again whenever they change: a results night recorded, a merge, a
    /// new formula.
    async fn standings(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "The league's id, as created.")] league_id: ID,
        #[graphql(desc = "The season's id within the league.")] season: ID,
        #[graphql(desc = "Only the results at this venue; all the league's venues when left out.")]
        venue: Option<ID>,
        #[graphql(desc = "Only the results at the venues of this region (not with `venue`).")]
        region: Option<String>,
    ) -> async_graphql::Result<futures_util::stream::BoxStream<'static, Vec<StandingOut>>> {
        use futures_util::StreamExt as _;
        use tokio::sync::broadcast::error::RecvError;
        let (league_id, season, venue) = (league_id.0, season.0, venue.map(|v| v.0));
        scope_of(venue.as_deref(), region.as_deref())?;
        let state = state(ctx)?.clone();
        let stream = stream_of(&league_id);
        // An unknown league or season is `NOT_FOUND` at once, not a stream that never answers.
        {
            let p = state.live.read();
            let league = p
                .league(&stream)
                .filter(|l| l.league().is_some())
                .ok_or_else(|| ApiError::not_found(format!("no league `{league_id}`")))?;
            if league.season(&season).is_none() {
                return Err(ApiError::not_found(format!(
                    "no season {season:?} in league {league_id:?}"
                ))
                .into());
            }
            if let Some(venue) = &venue
                && league.venue(venue).is_none()
            {
                return Err(ApiError::not_found(format!(
                    "no venue {venue:?} in league {league_id:?}"
                ))
                .into());
            }
            if let Some(region) = &region
                && !league.venues().values().any(|v| &v.region == region)
            {
                return Err(ApiError::not_found(format!(
                    "no venue in region {region:?} in league {league_id:?}"
                ))
                .into());
            }
        }
        // A closed season's standings are final: sent once, and the subscription stays
        // open (a screen shows them until it moves on).
        if let Some(archive) = closed_season(&state, &league_id, &season).await? {
            let scope = scope_of(venue.as_deref(), region.as_deref())?;
            let lines = standings_out(&archive, &season, None, scope)
                .map_err(|e| ApiError::from(league_app::AppError::League(e)))?;
            return Ok(futures_util::stream::once(async move { lines })
                .chain(futures_util::stream::pending())
                .boxed());
        }
        // Subscribe before the first rendering, so no change can fall between the two.
        let changes = state.live.changes_of(&stream);
        let render = move |p: &league_projections::Projector| -> Option<Vec<StandingOut>> {
            let scope = scope_of(venue.as_deref(), region.as_deref()).ok()?;
            let l = p.league(&stream)?;
            // Closing changes no standing, and the league no longer holds the results:
            // the last standings sent stand.
            if l.season(&season).is_some_and(|s| s.closed) {
                return None;
            }
            standings_out(l, &season, None, scope).ok()
        };
        let key = stream_of(&league_id);
        let first = true;
        let last: Option<Vec<StandingOut>> = None;
        Ok(futures_util::stream::unfold(
            (state, changes, render, key, first, last),
            |(state, mut changes, render, key, mut first, mut last)| async move {
                loop {
                    if first {
                        first = false;
                    } else {
                        match changes.recv().await {
                            Ok(folded) if !folded.streams.contains(&key) => continue,
                            Ok(_) | Err(RecvError::Lagged(_)) => {}
                            Err(RecvError::Closed) => return None,
                        }
                    }
                    let now = {
                        let p = state.live.read();
                        render(&p)
                    };
                    if let Some(now) = now
                        && last.as_ref() != Some(&now)
                    {
                        last = Some(now.clone());
                        return Some((now, (state, changes, render, key, first, last)));
                    }
                }
            },
        )
        .boxed())
    }
}
