//! The league domain's mutations: venues, seasons, scoring, players and recorded results,
//! for the admin (and, for results, the venue's hosts).

use async_graphql::{Context, MaybeUndefined, Object};
use league_app::commands::Command;
use league_engine::league::{self, TournamentOutcome};
use league_engine::units::PlayerId;

use super::arguments::*;
use super::stream_of;
use crate::auth::Principal;
use crate::error::{ApiError, ApiResult};
use crate::schema::object_ids;
use crate::schema::payloads::created;
use crate::schema::{ApiState, CommandResult, principal, run_command, state};

async fn send<P: From<CommandResult>>(
    ctx: &Context<'_>,
    state: &ApiState,
    caller: &Principal,
    id: String,
    command: league::Command,
    idempotency_key: Option<String>,
) -> ApiResult<P> {
    send_result(ctx, state, caller, id, command, idempotency_key, None)
        .await
        .map(P::from)
}

/// [`send`]'s result, for a command that follows from the event `caused_by` (which its
/// events name as their cause) or from the request alone.
async fn send_result(
    ctx: &Context<'_>,
    state: &ApiState,
    caller: &Principal,
    id: String,
    command: league::Command,
    idempotency_key: Option<String>,
    caused_by: Option<league_store::EventId>,
) -> ApiResult<CommandResult> {
    if !matches!(command, league::Command::CreateLeague { .. })
        && state.live.read().league(&stream_of(&id)).is_none()
    {
        return Err(ApiError::not_found(format!("no league `{id}`")));
    }
    let command = Command::League {
        id: id.into(),
        command: Box::new(command),
    };
    run_command(ctx, state, caller, command, idempotency_key, caused_by).await
}

/// Runs a league command only an admin may send.
async fn admin_command<P: From<CommandResult>>(
    ctx: &Context<'_>,
    id: String,
    command: league::Command,
    idempotency_key: Option<String>,
) -> ApiResult<P> {
    let state = state(ctx)?;
    let caller = principal(ctx);
    if matches!(command, league::Command::CreateLeague { .. }) {
        caller.require_operator()?;
    } else {
        caller.require_admin(&id)?;
    }
    send(ctx, state, &caller, id, command, idempotency_key).await
}

/// A tournament of a closed season in which both `keep` and `merge` (with the ids merged
/// into each) finished, if there is one.
async fn shared_in_closed_seasons(
    state: &ApiState,
    league_id: &str,
    keep: &str,
    merge: &str,
) -> ApiResult<Option<String>> {
    let stream = stream_of(league_id);
    let groups = {
        let p = state.live.read();
        let Some(l) = p.league(&stream) else {
            return Ok(None);
        };
        if !l.seasons().values().any(|s| s.closed) {
            return Ok(None);
        }
        [l.merged_ids(keep), l.merged_ids(merge)]
    };
    let [keep_ids, merge_ids] = groups;
    let played: std::collections::BTreeSet<String> = super::closed_lines(state, &stream, &keep_ids)
        .await?
        .into_iter()
        .map(|line| line.tournament)
        .collect();
    Ok(super::closed_lines(state, &stream, &merge_ids)
        .await?
        .into_iter()
        .map(|line| line.tournament)
        .find(|t| played.contains(t)))
}

/// Whether `caller` may give `outcome` as a league's result (recorded or amended): the
/// league's admins, or a host of the outcome's venue; and a tournament this service runs is
/// given for its own venue only (a host cannot take another venue's tournament id, whose
/// real result would then be refused).
fn may_give_result(
    state: &ApiState,
    caller: &Principal,
    league_id: &str,
    outcome: &TournamentOutcome,
) -> ApiResult<()> {
    caller.require_results(league_id, &outcome.venue, &state.live.read())?;
    let played_at = {
        let p = state.live.read();
        p.tournament_venue(&league_events::StreamKind::Tournament.stream(&outcome.tournament))
            .map(str::to_owned)
    };
    match played_at {
        Some(venue) if outcome.venue != venue => Err(ApiError::forbidden(format!(
            "tournament {:?} is played at venue {venue:?}, not {:?}",
            outcome.tournament, outcome.venue
        ))),
        _ => Ok(()),
    }
}

#[derive(Default)]
pub struct LeagueMutation;

#[Object]
impl LeagueMutation {
    /// Starts a league (`finalTable`: places that make the final table, default 9).
    async fn create_league(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: CreateLeagueInput,
    ) -> ApiResult<CreateLeaguePayload> {
        let CreateLeagueInput {
            id,
            name,
            final_table,
            code,
            idempotency_key,
        } = input;
        let state = state(ctx)?;
        let caller = principal(ctx);
        caller.require_operator()?;
        let id =
            object_ids::new_object(state, &caller, "id", id, idempotency_key.as_deref()).await?;
        let _claim = state.league_codes.lock().await;
        if !object_ids::is_retry(state, &caller, idempotency_key.as_deref()).await? {
            object_ids::league_id_free_of_codes(state, &id)?;
            if let Some(code) = &code {
                object_ids::league_code_free(state, &id, code)?;
            }
        }
        let command = league::Command::CreateLeague {
            name,
            final_table,
            code,
        };
        created(
            send_result(
                ctx,
                state,
                &caller,
                id.clone(),
                command,
                idempotency_key,
                None,
            )
            .await,
            id,
        )
    }

    /// Adds a venue to the league, in a region: `venue` is its id, which schedules, recorded
    /// outcomes and host tokens name. An admin.
    async fn add_venue(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: AddVenueInput,
    ) -> ApiResult<AddVenuePayload> {
        let AddVenueInput {
            league_id,
            venue,
            region,
            code,
            idempotency_key,
        } = input;
        let league_id = league_id.0;
        let state = state(ctx)?;
        let caller = principal(ctx);
        caller.require_admin(&league_id)?;
        let venue =
            object_ids::new_object(state, &caller, "venue", venue, idempotency_key.as_deref())
                .await?;
        let command = league::Command::AddVenue {
            venue: venue.as_str().into(),
            region,
            code,
        };
        created(
            send_result(
                ctx,
                state,
                &caller,
                league_id,
                command,
                idempotency_key,
                None,
            )
            .await,
            venue,
        )
    }

    /// Sets the league's short name in URLs (`/leaderboard/<code>/<season>`), unique among
    /// leagues; the old one is then free. An admin of the league; the same code again
    /// changes nothing.
    async fn set_league_code(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: SetLeagueCodeInput,
    ) -> ApiResult<SetLeagueCodePayload> {
        let SetLeagueCodeInput {
            league_id,
            code,
            idempotency_key,
        } = input;
        let league_id = league_id.0;
        let state = state(ctx)?;
        let caller = principal(ctx);
        caller.require_admin(&league_id)?;
        let _claim = state.league_codes.lock().await;
        if !object_ids::is_retry(state, &caller, idempotency_key.as_deref()).await? {
            object_ids::league_code_free(state, &league_id, &code)?;
        }
        let command = league::Command::SetLeagueCode { code };
        send(ctx, state, &caller, league_id, command, idempotency_key).await
    }

    /// Sets a venue's code, unique in its league; the old one is then free. An admin of the
    /// league; the same code again changes nothing.
    async fn set_venue_code(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: SetVenueCodeInput,
    ) -> ApiResult<SetVenueCodePayload> {
        let SetVenueCodeInput {
            league_id,
            venue,
            code,
            idempotency_key,
        } = input;
        let command = league::Command::SetVenueCode {
            venue: venue.0.into(),
            code,
        };
        admin_command(ctx, league_id.0, command, idempotency_key).await
    }

    /// Sets how a venue shows itself on its screens (the bar-TV pages): its name and,
    /// optionally, its logo. An admin of the league or a host of the venue; the same name
    /// and logo again change nothing.
    async fn set_venue_display(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: SetVenueDisplayInput,
    ) -> ApiResult<SetVenueDisplayPayload> {
        let SetVenueDisplayInput {
            league_id,
            venue,
            name,
            logo,
            idempotency_key,
        } = input;
        let (league_id, venue) = (league_id.0, venue.0);
        let state = state(ctx)?;
        let caller = principal(ctx);
        caller.require_results(&league_id, &venue, &state.live.read())?;
        let command = league::Command::SetVenueDisplay {
            venue: venue.into(),
            name,
            logo,
        };
        send(ctx, state, &caller, league_id, command, idempotency_key).await
    }

    /// A season with its first scoring version: `{table: [125, 100, 75]}` (points by
    /// place) or `{formula: "n - r + 1"}`.
    async fn add_season(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: AddSeasonInput,
    ) -> ApiResult<AddSeasonPayload> {
        let AddSeasonInput {
            league_id,
            season,
            best_n,
            scoring,
            idempotency_key,
        } = input;
        let league_id = league_id.0;
        let state = state(ctx)?;
        let caller = principal(ctx);
        caller.require_admin(&league_id)?;
        let scoring = scoring.into_rule()?;
        let season =
            object_ids::new_object(state, &caller, "season", season, idempotency_key.as_deref())
                .await?;
        let command = league::Command::AddSeason {
            season: season.as_str().into(),
            best_n,
            scoring,
        };
        created(
            send_result(
                ctx,
                state,
                &caller,
                league_id,
                command,
                idempotency_key,
                None,
            )
            .await,
            season,
        )
    }

    /// A new scoring version for a season: its results are re-scored.
    async fn set_formula(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: SetFormulaInput,
    ) -> ApiResult<SetFormulaPayload> {
        let SetFormulaInput {
            league_id,
            season,
            scoring,
            idempotency_key,
        } = input;
        let league_id = league_id.0;
        let season = season.0;
        let command = league::Command::SetFormula {
            season: season.into(),
            scoring: scoring.into_rule()?,
        };
        admin_command(ctx, league_id, command, idempotency_key).await
    }

    /// Closes a season: its results and standings become final. No result is recorded in
    /// it or amended, and no formula or score is set for it, after this (each refused
    /// `RULE_VIOLATION`); its standings, leaderboards and players' results stay readable
    /// as they stood. The service no longer holds a closed season's results in memory. An
    /// admin.
    async fn close_season(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: CloseSeasonInput,
    ) -> ApiResult<CloseSeasonPayload> {
        let CloseSeasonInput {
            league_id,
            season,
            idempotency_key,
        } = input;
        let command = league::Command::CloseSeason {
            season: season.0.into(),
        };
        admin_command(ctx, league_id.0, command, idempotency_key).await
    }

    /// A season's score beside its points, as The Tournament Director keeps one: a
    /// tournament score for each result and an overall score over a player's results, shown
    /// in the standings as `score` and ordering them as `order` says. Both formulas are
    /// checked, then tried on every result and every player of the season; `score: null`
    /// takes the season's score away. An admin.
    async fn set_season_score(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: SetSeasonScoreInput,
    ) -> ApiResult<SetSeasonScorePayload> {
        let SetSeasonScoreInput {
            league_id,
            season,
            score,
            idempotency_key,
        } = input;
        let league_id = league_id.0;
        let season = season.0;
        let score = match score {
            MaybeUndefined::Value(score) => Some(score.into_rule()?),
            MaybeUndefined::Null => None,
            MaybeUndefined::Undefined => {
                return Err(ApiError::bad_field(
                    "score",
                    "score: give the season's score formulas, or null to take its score away",
                ));
            }
        };
        let command = league::Command::SetSeasonScore {
            season: season.into(),
            score,
        };
        admin_command(ctx, league_id, command, idempotency_key).await
    }

    /// Registers a player in the league: `player` is their id (which tournaments and player
    /// tokens name), `name` the name shown, `membership` their membership number, held by
    /// no other player. An admin.
    async fn register_player(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: RegisterPlayerInput,
    ) -> ApiResult<RegisterPlayerPayload> {
        let RegisterPlayerInput {
            league_id,
            player,
            name,
            membership,
            idempotency_key,
        } = input;
        let league_id = league_id.0;
        let player = player.0;
        let command = league::Command::RegisterPlayer {
            player: PlayerId::from(player),
            name,
            membership,
        };
        admin_command(ctx, league_id, command, idempotency_key).await
    }

    /// Renames a player (their id and results stay).
    async fn rename_player(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: RenamePlayerInput,
    ) -> ApiResult<RenamePlayerPayload> {
        let RenamePlayerInput {
            league_id,
            player,
            name,
            idempotency_key,
        } = input;
        let league_id = league_id.0;
        let player = player.0;
        let command = league::Command::RenamePlayer {
            player: PlayerId::from(player),
            name,
        };
        admin_command(ctx, league_id, command, idempotency_key).await
    }

    /// Merges a duplicate player into the one kept: the duplicate's results count for the
    /// kept player. An event, reversible with `unmergePlayers`.
    async fn merge_players(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: MergePlayersInput,
    ) -> ApiResult<MergePlayersPayload> {
        let MergePlayersInput {
            league_id,
            keep,
            merge,
            idempotency_key,
        } = input;
        let league_id = league_id.0;
        let (keep, merge) = (PlayerId::from(keep.0), PlayerId::from(merge.0));
        let state = state(ctx)?;
        principal(ctx).require_admin(&league_id)?;
        // The engine checks the two never shared a tournament in an open season; the
        // closed seasons' lines are in the store (final, so this cannot go stale).
        if let Some(tournament) = shared_in_closed_seasons(state, &league_id, &keep, &merge).await?
        {
            return Err(ApiError::from(league_app::AppError::League(
                league::LeagueError::PlayedTogether {
                    keep: keep.to_string(),
                    merge: merge.to_string(),
                    tournament,
                },
            )));
        }
        let command = league::Command::MergePlayers { keep, merge };
        admin_command(ctx, league_id, command, idempotency_key).await
    }

    /// Undoes a merge.
    async fn unmerge_players(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: UnmergePlayersInput,
    ) -> ApiResult<UnmergePlayersPayload> {
        let UnmergePlayersInput {
            league_id,
            keep,
            merge,
            idempotency_key,
        } = input;
        let league_id = league_id.0;
        let keep = keep.0;
        let merge = merge.0;
        let command = league::Command::UnmergePlayers {
            keep: PlayerId::from(keep),
            merge: PlayerId::from(merge),
        };
        admin_command(ctx, league_id, command, idempotency_key).await
    }

    /// Records the outcome of a tournament this service did not run. An admin, or a host
    /// of the outcome's venue.
    async fn record_tournament(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: RecordTournamentInput,
    ) -> ApiResult<RecordTournamentPayload> {
        let RecordTournamentInput {
            league_id,
            outcome,
            idempotency_key,
        } = input;
        let league_id = league_id.0;
        let state = state(ctx)?;
        let caller = principal(ctx);
        let outcome = TournamentOutcome::from(outcome);
        may_give_result(state, &caller, &league_id, &outcome)?;
        let command = league::Command::RecordTournament { outcome };
        send(ctx, state, &caller, league_id, command, idempotency_key).await
    }

    /// Corrects a recorded tournament: its whole outcome is replaced by `outcome` (the same
    /// tournament id) and re-scored under every scoring version of its season, so the
    /// standings and player records change with it; the `TournamentAmended` event keeps
    /// the reason beside what it replaced. An admin of the league, or a host of the venue
    /// the result was recorded for (and stays at).
    async fn amend_tournament(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: AmendTournamentInput,
    ) -> ApiResult<AmendTournamentPayload> {
        let AmendTournamentInput {
            league_id,
            outcome,
            reason,
            idempotency_key,
        } = input;
        let league_id = league_id.0;
        let state = state(ctx)?;
        let caller = principal(ctx);
        let outcome = TournamentOutcome::from(outcome);
        may_give_result(state, &caller, &league_id, &outcome)?;
        let recorded_at = {
            let p = state.live.read();
            p.league(&stream_of(&league_id))
                .and_then(|l| l.tournament(&outcome.tournament))
                .map(|o| o.venue.clone())
        };
        // The venue's staff correct their own venue's results only.
        if let Some(venue) = &recorded_at {
            caller.require_results(&league_id, venue, &state.live.read())?;
        }
        let command = league::Command::AmendTournament { outcome, reason };
        send(ctx, state, &caller, league_id, command, idempotency_key).await
    }

    /// Records a finished tournament of this service in a league season: its field, prize
    /// pool and the league players' finishes, as the tournament's results say.
    async fn record_tournament_result(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: RecordTournamentResultInput,
    ) -> ApiResult<RecordTournamentResultPayload> {
        let RecordTournamentResultInput {
            league_id,
            tournament_id,
            season,
            day,
            idempotency_key,
        } = input;
        let league_id = league_id.0;
        let tournament_id = tournament_id.0;
        let season = season.0;
        let state = state(ctx)?;
        let caller = principal(ctx);
        let stream = league_events::StreamKind::Tournament.stream(&tournament_id);
        // Authorise before saying anything about the tournament: the venue's staff only.
        let venue = {
            let p = state.live.read();
            p.tournament_venue(&stream).map(str::to_owned)
        };
        match &venue {
            Some(venue) => caller.require_results(&league_id, venue, &state.live.read())?,
            None if !matches!(caller, Principal::Admin { .. } | Principal::Host { .. }) => {
                caller.require_admin(&league_id)?;
            }
            None => {}
        }
        let (outcome, finished_at) = crate::schema::on_tournament(state, &stream, |t, p| {
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
            Ok::<_, ApiError>((outcome, p.version(&stream)))
        })
        .await?
        .ok_or_else(|| ApiError::not_found(format!("no tournament {tournament_id:?}")))??;
        caller.require_results(&league_id, &outcome.venue, &state.live.read())?;
        // The result follows from the tournament's last event (the one that finished it,
        // or a correction after): its events name that event as their cause.
        let cause = state
            .store
            .event_at(&stream, finished_at)
            .await
            .map_err(ApiError::internal)?
            .map(|e| e.id());
        let command = league::Command::RecordTournament { outcome };
        send_result(
            ctx,
            state,
            &caller,
            league_id,
            command,
            idempotency_key,
            cause,
        )
        .await
        .map(Into::into)
    }
}
