//! The league domain's queries: a league, a season's standings, a player's record.

use async_graphql::{Context, ID, Object};
use league_projections::views::player_records;

use super::inputs::FormulaPreviewInput;
use super::types::{
    FormulaPreviewLine, LeagueOut, LeaguePlayer, PlayerRecordOut, SeasonOut, SeasonScoreOut,
    StandingOut, VenueOut,
};
use super::{closed_lines, closed_season, scope_of, standings_out, stream_of};
use crate::auth::Principal;
use crate::error::{ApiError, ApiResult, code};
use crate::schema::scalars::{Cents, Points};
use crate::schema::{principal, state};

#[derive(Default)]
pub struct LeagueQuery;

#[Object]
impl LeagueQuery {
    /// A league's settings, venues, seasons and players: by its id or by its code (one of
    /// the two; `BAD_INPUT` otherwise).
    async fn league(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "The league's id, as created.")] id: Option<ID>,
        #[graphql(desc = "The league's code (its short name in URLs).")] code: Option<String>,
    ) -> ApiResult<Option<LeagueOut>> {
        let state = state(ctx)?;
        let p = state.live.read();
        match (id, code) {
            (Some(id), None) => Ok(league_out(&p, &id)),
            (None, Some(code)) => Ok(league_app::directory::league_with_code(&p, &code)
                .and_then(|id| league_out(&p, &id))),
            _ => Err(ApiError::bad_input(
                "`league` takes `id` or `code`, one of the two",
            )),
        }
    }

    /// Every league, in id order, with its venues and seasons: what a screen picks from.
    async fn leagues(&self, ctx: &Context<'_>) -> ApiResult<Vec<LeagueOut>> {
        let state = state(ctx)?;
        let p = state.live.read();
        let ids: Vec<String> = p
            .leagues()
            .filter(|(_, l)| l.league().is_some())
            .filter_map(|(stream, _)| {
                league_events::StreamKind::League
                    .id_of(stream)
                    .map(str::to_owned)
            })
            .collect();
        Ok(ids.iter().filter_map(|id| league_out(&p, id)).collect())
    }

    /// A venue, with its name and logo for its screens: by its id (as the first league, in
    /// id order, that has a venue of this id holds it), or by a league's id and the venue's
    /// code in that league (`BAD_INPUT` for any other combination).
    async fn venue(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "The venue's id, as added.")] id: Option<ID>,
        #[graphql(desc = "The league, with `code`.")] league_id: Option<ID>,
        #[graphql(desc = "The venue's code in the league `leagueId`.")] code: Option<String>,
    ) -> ApiResult<Option<VenueOut>> {
        let state = state(ctx)?;
        let p = state.live.read();
        match (id, league_id, code) {
            (Some(id), None, None) => Ok(p
                .leagues()
                .find_map(|(_, l)| l.venue(&id).map(|v| venue_out(&id, v)))),
            (None, Some(league_id), Some(code)) => {
                Ok(p.league(&stream_of(&league_id)).and_then(|l| {
                    let id = l.venue_with_code(&code)?;
                    l.venue(id).map(|v| venue_out(id, v))
                }))
            }
            _ => Err(ApiError::bad_input(
                "`venue` takes `id`, or `leagueId` and `code`",
            )),
        }
    }

    /// A season's standings, league-wide, in a region or at one venue, under a scoring
    /// version (the current one when omitted).
    async fn standings(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "The league's id, as created.")] league_id: ID,
        #[graphql(desc = "The season's id within the league.")] season: ID,
        #[graphql(desc = "The scoring version to rank under (the latest when left out).")]
        version: Option<u32>,
        #[graphql(desc = "Only the results at this venue; all the league's venues when left out.")]
        venue: Option<ID>,
        #[graphql(desc = "Only the results at the venues of this region (not with `venue`).")]
        region: Option<String>,
    ) -> ApiResult<Vec<StandingOut>> {
        let (league_id, season, venue) = (league_id.0, season.0, venue.map(|v| v.0));
        let scope = scope_of(venue.as_deref(), region.as_deref())?;
        let state = state(ctx)?;
        let refused = |e| ApiError::from(league_app::AppError::League(e));
        if let Some(archive) = closed_season(state, &league_id, &season).await? {
            return standings_out(&archive, &season, version, scope).map_err(refused);
        }
        let p = state.live.read();
        let l = p
            .league(&stream_of(&league_id))
            .ok_or_else(|| ApiError::not_found(format!("no league `{league_id}`")))?;
        standings_out(l, &season, version, scope).map_err(refused)
    }

    /// A player's record across the league.
    async fn player_record(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "The league's id, as created.")] league_id: ID,
        #[graphql(desc = "The player's id, as the league registered them.")] player: ID,
    ) -> ApiResult<Option<PlayerRecordOut>> {
        let (league_id, player) = (league_id.0, player.0);
        let state = state(ctx)?;
        let stream = stream_of(&league_id);
        // The record as the league holds it (every season's totals, the open seasons'
        // lines), then the closed seasons' lines of every id that counts for the player.
        let (mut record, ids) = {
            let p = state.live.read();
            let Some(l) = p.league(&stream) else {
                return Ok(None);
            };
            let id = l.surviving(&player).to_owned();
            let Some(record) = player_records(l).remove(id.as_str()) else {
                return Ok(None);
            };
            (record, l.merged_ids(&id))
        };
        let closed = closed_lines(state, &stream, &ids).await?;
        if !closed.is_empty() {
            record.results.extend(closed);
            record
                .results
                .sort_by(|a, b| (a.day, &a.tournament).cmp(&(b.day, &b.tournament)));
        }
        Ok(Some(PlayerRecordOut(record)))
    }

    /// The points a formula gives every place of a field, checked as `setFormula` checks
    /// it (a formula it would refuse is refused here, `BAD_INPUT` naming `formula`), so a
    /// league sees its table before it sets it. Any caller with a token.
    async fn formula_preview(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "The formula and the field to preview it on.")] input: FormulaPreviewInput,
    ) -> ApiResult<Vec<FormulaPreviewLine>> {
        if matches!(principal(ctx), Principal::Anonymous) {
            return Err(ApiError::client(
                code::UNAUTHENTICATED,
                "this needs a bearer token",
            ));
        }
        let (text, field) = input.into_preview()?;
        // The check evaluates the formula for every place of every field up to 500
        // players: off the async workers.
        let lines = tokio::task::spawn_blocking(move || {
            let formula = league_engine::points::Formula::new(&text)?;
            league_engine::points::preview(&formula, field)
        })
        .await
        .map_err(ApiError::internal)?
        .map_err(|e| match e {
            league_engine::points::FormulaError::BadField(why) => ApiError::bad_input(why),
            e => ApiError::bad_field("formula", format!("formula: {e}")),
        })?;
        Ok(lines
            .into_iter()
            .map(|line| FormulaPreviewLine {
                place: line.place,
                prize: Cents(league_engine::tournament::Cents::new(
                    line.prize.saturating_mul(100),
                )),
                points: Points(line.points),
            })
            .collect())
    }
}

/// The league `id` as it stands in `p`.
pub(crate) fn league_out(p: &league_projections::Projector, id: &str) -> Option<LeagueOut> {
    let l = p.league(&stream_of(id))?;
    let settings = l.league()?;
    Some(LeagueOut {
        id: id.into(),
        code: settings.code.clone(),
        name: settings.name.clone(),
        final_table: settings.final_table,
        venues: l.venues().iter().map(|(id, v)| venue_out(id, v)).collect(),
        seasons: l
            .seasons()
            .iter()
            .map(|(id, s)| SeasonOut {
                id: id.into(),
                version: s.version(),
                best_n: s.best_n,
                score: s.score.as_ref().map(|score| SeasonScoreOut {
                    tournament_score: score.tournament.text().to_owned(),
                    overall_score: score.overall.text().to_owned(),
                    order: score.order.into(),
                }),
                closed: s.closed,
            })
            .collect(),
        players: l
            .players()
            .iter()
            .map(|(id, p)| LeaguePlayer {
                id: id.to_string().into(),
                name: p.name.clone(),
            })
            .collect(),
    })
}

/// A venue as the API shows it.
fn venue_out(id: &str, v: &league_engine::league::Venue) -> VenueOut {
    VenueOut {
        id: id.into(),
        code: v.code.clone(),
        region: v.region.clone(),
        name: v.display.as_ref().map(|d| d.name.clone()),
        logo: v.display.as_ref().and_then(|d| d.logo.clone()),
    }
}
