//! Leagues: venues, seasons, players, standings under every scoring version, player
//! records, and the league's commands.

use async_graphql::{Context, Json, Object, SimpleObject};
use league_app::commands::Command;
use league_engine::league::{self, Scope, TournamentOutcome};
use league_engine::points::Centipoints;
use league_engine::standings::Standing;
use league_engine::tournament::Cents;
use league_projections::views::{PlayerRecord, player_records};

use super::{ApiState, CommandResult, from_json, principal, run_command, state};
use crate::auth::Principal;
use crate::error::{ApiError, ApiResult};

fn stream_of(id: &str) -> String {
    format!("league:{id}")
}

#[derive(SimpleObject, Clone, Debug)]
pub struct VenueOut {
    pub id: String,
    pub region: String,
}

#[derive(SimpleObject, Clone, Debug)]
pub struct SeasonOut {
    pub id: String,
    /// The current scoring version.
    pub version: u32,
    /// Results counted per player (`null`: all).
    pub best_n: Option<u32>,
}

#[derive(SimpleObject, Clone, Debug)]
pub struct LeaguePlayer {
    pub id: String,
    pub name: String,
}

/// A league's settings and members.
#[derive(SimpleObject, Clone, Debug)]
pub struct LeagueOut {
    pub id: String,
    pub name: String,
    pub final_table: u32,
    pub venues: Vec<VenueOut>,
    pub seasons: Vec<SeasonOut>,
    pub players: Vec<LeaguePlayer>,
}

/// One line of the standings.
pub struct StandingOut(pub Standing);

#[Object(name = "Standing")]
impl StandingOut {
    async fn rank(&self) -> u32 {
        self.0.rank
    }
    async fn player(&self) -> &str {
        &self.0.player
    }
    /// Hundredths of a point.
    async fn points(&self) -> Centipoints {
        self.0.points
    }
    async fn counted(&self) -> u32 {
        self.0.counted
    }
    async fn played(&self) -> u32 {
        self.0.played
    }
    async fn wins(&self) -> u32 {
        self.0.wins
    }
    async fn final_tables(&self) -> u32 {
        self.0.final_tables
    }
    async fn best_finish(&self) -> u32 {
        self.0.best_finish
    }
    /// The day the counted total was reached.
    async fn reached(&self) -> u32 {
        self.0.reached
    }
    /// What put this player below the one above (`null` for the leader).
    async fn separated_by(&self) -> Option<String> {
        self.0
            .separated_by
            .as_ref()
            .and_then(|t| serde_json::to_value(t).ok())
            .map(|v| match v {
                serde_json::Value::String(s) => s,
                other => other.to_string(),
            })
    }
}

/// One result in a player's record.
#[derive(SimpleObject, Clone, Debug)]
pub struct RecordLineOut {
    pub tournament: String,
    pub venue: String,
    pub season: String,
    pub day: u32,
    pub place: u32,
    pub field: u32,
    /// Cents.
    pub prize: Cents,
    pub knockouts: u32,
    pub rebuys: u32,
    /// Hundredths of a point, under the season's current scoring version.
    pub points: Centipoints,
}

/// A player's record across the league.
pub struct PlayerRecordOut(pub PlayerRecord);

#[Object(name = "PlayerRecord")]
impl PlayerRecordOut {
    async fn player(&self) -> &str {
        &self.0.player
    }
    async fn name(&self) -> &str {
        &self.0.name
    }
    async fn played(&self) -> u32 {
        self.0.played
    }
    async fn wins(&self) -> u32 {
        self.0.wins
    }
    async fn cashes(&self) -> u32 {
        self.0.cashes
    }
    /// Cents.
    async fn winnings(&self) -> Cents {
        self.0.winnings
    }
    async fn knockouts(&self) -> u32 {
        self.0.knockouts
    }
    async fn results(&self) -> Vec<RecordLineOut> {
        self.0
            .results
            .iter()
            .map(|r| RecordLineOut {
                tournament: r.tournament.clone(),
                venue: r.venue.clone(),
                season: r.season.clone(),
                day: r.day,
                place: r.place,
                field: r.field,
                prize: r.prize,
                knockouts: r.knockouts,
                rebuys: r.rebuys,
                points: r.points,
            })
            .collect()
    }
}

#[derive(Default)]
pub struct LeagueQuery;

#[Object]
impl LeagueQuery {
    /// A league's settings, venues, seasons and players.
    async fn league(&self, ctx: &Context<'_>, id: String) -> ApiResult<Option<LeagueOut>> {
        let state = state(ctx)?;
        let p = state.live.read();
        let Some(l) = p.league(&stream_of(&id)) else {
            return Ok(None);
        };
        let Some(settings) = l.league() else {
            return Ok(None);
        };
        Ok(Some(LeagueOut {
            id,
            name: settings.name.clone(),
            final_table: settings.final_table,
            venues: l
                .venues()
                .iter()
                .map(|(id, v)| VenueOut {
                    id: id.clone(),
                    region: v.region.clone(),
                })
                .collect(),
            seasons: l
                .seasons()
                .iter()
                .map(|(id, s)| SeasonOut {
                    id: id.clone(),
                    version: s.version(),
                    best_n: s.best_n,
                })
                .collect(),
            players: l
                .players()
                .iter()
                .map(|(id, p)| LeaguePlayer {
                    id: id.clone(),
                    name: p.name.clone(),
                })
                .collect(),
        }))
    }

    /// A season's standings, league-wide or at one venue, under a scoring version (the
    /// current one when omitted).
    async fn standings(
        &self,
        ctx: &Context<'_>,
        league_id: String,
        season: String,
        version: Option<u32>,
        venue: Option<String>,
    ) -> ApiResult<Vec<StandingOut>> {
        let state = state(ctx)?;
        let p = state.live.read();
        let l = p
            .league(&stream_of(&league_id))
            .ok_or_else(|| ApiError::not_found(format!("no league {league_id:?}")))?;
        let scope = venue.as_deref().map_or(Scope::Season, Scope::Venue);
        let standings = l
            .standings(&season, version, scope)
            .map_err(|e| ApiError::from(league_app::AppError::League(e)))?;
        Ok(standings.into_iter().map(StandingOut).collect())
    }

    /// A player's record across the league.
    async fn player_record(
        &self,
        ctx: &Context<'_>,
        league_id: String,
        player: String,
    ) -> ApiResult<Option<PlayerRecordOut>> {
        let state = state(ctx)?;
        let p = state.live.read();
        let Some(l) = p.league(&stream_of(&league_id)) else {
            return Ok(None);
        };
        let id = l.surviving(&player).to_owned();
        Ok(player_records(l).remove(&id).map(PlayerRecordOut))
    }
}

async fn send(
    state: &ApiState,
    caller: &Principal,
    id: String,
    command: league::Command,
    idempotency_key: Option<String>,
) -> ApiResult<CommandResult> {
    let command = Command::League {
        id,
        command: Box::new(command),
    };
    run_command(state, caller, command, idempotency_key).await
}

/// Runs a league command only an admin may send.
async fn admin_command(
    ctx: &Context<'_>,
    id: String,
    command: league::Command,
    idempotency_key: Option<String>,
) -> ApiResult<CommandResult> {
    let state = state(ctx)?;
    let caller = principal(ctx);
    caller.require_admin()?;
    send(state, &caller, id, command, idempotency_key).await
}

#[derive(Default)]
pub struct LeagueMutation;

#[Object]
impl LeagueMutation {
    /// Starts a league (`finalTable`: places that make the final table, default 9).
    async fn create_league(
        &self,
        ctx: &Context<'_>,
        id: String,
        name: String,
        final_table: Option<u32>,
        idempotency_key: Option<String>,
    ) -> ApiResult<CommandResult> {
        let command = league::Command::CreateLeague { name, final_table };
        admin_command(ctx, id, command, idempotency_key).await
    }

    async fn add_venue(
        &self,
        ctx: &Context<'_>,
        league_id: String,
        venue: String,
        region: String,
        idempotency_key: Option<String>,
    ) -> ApiResult<CommandResult> {
        let command = league::Command::AddVenue { venue, region };
        admin_command(ctx, league_id, command, idempotency_key).await
    }

    /// A season with its first scoring version. `scoring` is the engine's `ScoringRule` as
    /// JSON: `{"Table": {"points": [12500, 10000]}}` or `{"Formula": {"text": "..."}}`.
    async fn add_season(
        &self,
        ctx: &Context<'_>,
        league_id: String,
        season: String,
        best_n: Option<u32>,
        scoring: Json<serde_json::Value>,
        idempotency_key: Option<String>,
    ) -> ApiResult<CommandResult> {
        let command = league::Command::AddSeason {
            season,
            best_n,
            scoring: from_json("scoring", scoring)?,
        };
        admin_command(ctx, league_id, command, idempotency_key).await
    }

    /// A new scoring version for a season: its results are re-scored.
    async fn set_formula(
        &self,
        ctx: &Context<'_>,
        league_id: String,
        season: String,
        scoring: Json<serde_json::Value>,
        idempotency_key: Option<String>,
    ) -> ApiResult<CommandResult> {
        let command = league::Command::SetFormula {
            season,
            scoring: from_json("scoring", scoring)?,
        };
        admin_command(ctx, league_id, command, idempotency_key).await
    }

    async fn register_player(
        &self,
        ctx: &Context<'_>,
        league_id: String,
        player: String,
        name: String,
        membership: String,
        idempotency_key: Option<String>,
    ) -> ApiResult<CommandResult> {
        let command = league::Command::RegisterPlayer {
            player,
            name,
            membership,
        };
        admin_command(ctx, league_id, command, idempotency_key).await
    }

    /// Renames a player (their id and results stay).
    async fn rename_player(
        &self,
        ctx: &Context<'_>,
        league_id: String,
        player: String,
        name: String,
        idempotency_key: Option<String>,
    ) -> ApiResult<CommandResult> {
        let command = league::Command::RenamePlayer { player, name };
        admin_command(ctx, league_id, command, idempotency_key).await
    }

    /// Merges a duplicate player into the one kept: the duplicate's results count for the
    /// kept player. An event, reversible with `unmergePlayers`.
    async fn merge_players(
        &self,
        ctx: &Context<'_>,
        league_id: String,
        keep: String,
        merge: String,
        idempotency_key: Option<String>,
    ) -> ApiResult<CommandResult> {
        let command = league::Command::MergePlayers { keep, merge };
        admin_command(ctx, league_id, command, idempotency_key).await
    }

    /// Undoes a merge.
    async fn unmerge_players(
        &self,
        ctx: &Context<'_>,
        league_id: String,
        keep: String,
        merge: String,
        idempotency_key: Option<String>,
    ) -> ApiResult<CommandResult> {
        let command = league::Command::UnmergePlayers { keep, merge };
        admin_command(ctx, league_id, command, idempotency_key).await
    }

    /// Records a tournament's outcome (the engine's `TournamentOutcome` as JSON). An admin,
    /// or a host of the outcome's venue.
    async fn record_tournament(
        &self,
        ctx: &Context<'_>,
        league_id: String,
        outcome: Json<serde_json::Value>,
        idempotency_key: Option<String>,
    ) -> ApiResult<CommandResult> {
        let state = state(ctx)?;
        let caller = principal(ctx);
        let outcome: TournamentOutcome = from_json("outcome", outcome)?;
        caller.require_venue(&outcome.venue)?;
        let command = league::Command::RecordTournament { outcome };
        send(state, &caller, league_id, command, idempotency_key).await
    }

    /// Records a finished tournament of this service in a league season: its field, prize
    /// pool and the league players' finishes, as the tournament's results say.
    async fn record_tournament_result(
        &self,
        ctx: &Context<'_>,
        league_id: String,
        tournament_id: String,
        season: String,
        day: u32,
        idempotency_key: Option<String>,
    ) -> ApiResult<CommandResult> {
        let state = state(ctx)?;
        let caller = principal(ctx);
        let stream = format!("tournament:{tournament_id}");
        // Authorise before saying anything about the tournament: the venue's staff only.
        let venue = {
            let p = state.live.read();
            p.tournament(&stream)
                .and_then(|t| t.schedule().map(|s| s.venue.clone()))
        };
        match &venue {
            Some(venue) => caller.require_venue(venue)?,
            None if !matches!(caller, Principal::Admin { .. } | Principal::Host { .. }) => {
                caller.require_admin()?;
            }
            None => {}
        }
        let outcome = {
            let p = state.live.read();
            let t = p
                .tournament(&stream)
                .ok_or_else(|| ApiError::not_found(format!("no tournament {tournament_id:?}")))?;
            let mut outcome = t.outcome(&tournament_id, &season, day).ok_or_else(|| {
                ApiError::client(
                    crate::error::code::RULE_VIOLATION,
                    "the tournament has not finished",
                )
            })?;
            // Only the league's players are scored; the field counts everyone.
            let members = p.league(&stream_of(&league_id));
            outcome
                .finishes
                .retain(|f| members.is_some_and(|l| l.player(&f.player).is_some()));
            outcome
        };
        caller.require_venue(&outcome.venue)?;
        let command = league::Command::RecordTournament { outcome };
        send(state, &caller, league_id, command, idempotency_key).await
    }
}

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
        league_id: String,
        season: String,
        venue: Option<String>,
    ) -> async_graphql::Result<futures_util::stream::BoxStream<'static, Vec<StandingOut>>> {
        use futures_util::StreamExt as _;
        use tokio::sync::broadcast::error::RecvError;
        let state = state(ctx)?.clone();
        let stream = stream_of(&league_id);
        // Subscribe before the first rendering, so no change can fall between the two.
        let changes = state.live.changes_of(&stream);
        let render = move |p: &league_projections::Projector| -> Option<Vec<Standing>> {
            let scope = venue.as_deref().map_or(Scope::Season, Scope::Venue);
            p.league(&stream)?.standings(&season, None, scope).ok()
        };
        let key = stream_of(&league_id);
        let first = true;
        let last: Option<Vec<Standing>> = None;
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
                        let out = now.into_iter().map(StandingOut).collect();
                        return Some((out, (state, changes, render, key, first, last)));
                    }
                }
            },
        )
        .boxed())
    }
}
