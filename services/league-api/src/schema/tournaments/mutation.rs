//! The tournament domain's mutations: the commands that run a tournament, from the
//! schedule to the payouts, each authorised for the venue's staff or the seated player.

use async_graphql::{Context, Object};
use league_app::commands::Command;
use league_engine::card::Card;
use league_engine::deck::{Commitment, Seed};
use league_engine::hand::{Action, Command as HandCommand, Seat};
use league_engine::tournament::ColourUpPolicy;
use league_engine::tournament::play::{Penalty, Tournament, TournamentCommand, Tracking};
use league_engine::units::PlayerId;

use super::arguments::*;
use super::draws;
use super::stream_of;
use super::types::{ActionKind, PenaltyKind};
use crate::auth::Principal;
use crate::error::{ApiError, ApiResult, code};
use crate::schema::object_ids;
use crate::schema::payloads::created;
use crate::schema::scalars;
use crate::schema::{ApiState, CommandResult, now_millis, principal, run_command, state};

fn card(text: &str) -> ApiResult<Card> {
    text.parse()
        .map_err(|_| ApiError::bad_input(format!("not a card: {text:?}")))
}

pub(crate) fn two_cards(cards: &[String]) -> ApiResult<[Card; 2]> {
    match cards {
        [a, b] => Ok([card(a)?, card(b)?]),
        _ => Err(ApiError::bad_input("give exactly two hole cards")),
    }
}

/// Reads what authorisation needs from the projected tournament.
pub(super) async fn with_tournament<T>(
    state: &ApiState,
    id: &str,
    f: impl FnOnce(&Tournament) -> T,
) -> ApiResult<T> {
    crate::schema::on_tournament(state, &stream_of(id), |t, _| {
        t.schedule().is_some().then(|| f(t))
    })
    .await?
    .flatten()
    .ok_or_else(|| ApiError::not_found(format!("no tournament {id:?}")))
}

async fn venue_of(state: &ApiState, id: &str) -> ApiResult<String> {
    let venue = state
        .live
        .read()
        .tournament_venue(&stream_of(id))
        .map(str::to_owned);
    venue.ok_or_else(|| ApiError::not_found(format!("no tournament {id:?}")))
}

/// Whether a player may be registered at a venue's tournament.
enum Membership {
    /// A member of a league the venue belongs to.
    Member,
    /// The venue is in no league: its tournaments take anyone.
    NoLeague,
    /// Not a member of the venue's leagues (their ids).
    NotMember { leagues: Vec<String> },
}

fn membership(state: &ApiState, venue: &str, player: &str) -> Membership {
    let p = state.live.read();
    let mut leagues = Vec::new();
    for (stream, league) in p.leagues().filter(|(_, l)| l.venue(venue).is_some()) {
        if league.player(player).is_some() {
            return Membership::Member;
        }
        let id = league_events::StreamKind::League
            .id_of(stream)
            .unwrap_or(stream);
        leagues.push(id.to_owned());
    }
    if leagues.is_empty() {
        Membership::NoLeague
    } else {
        Membership::NotMember { leagues }
    }
}

/// Runs a tournament command that the venue's staff may send.
pub(super) async fn staff_command<P: From<CommandResult>>(
    ctx: &Context<'_>,
    id: String,
    command: TournamentCommand,
    idempotency_key: Option<String>,
) -> ApiResult<P> {
    let state = state(ctx)?;
    let caller = principal(ctx);
    let venue = venue_of(state, &id).await?;
    caller.require_venue(&venue, &state.live.read())?;
    send(ctx, state, &caller, id, command, idempotency_key).await
}

/// Runs a command that makes a draw, for the venue's staff: `make` gets the seed the server
/// committed to (held in the store since) and the commitment to the next draw's seed.
async fn draw_command<P: From<CommandResult>>(
    ctx: &Context<'_>,
    id: String,
    idempotency_key: Option<String>,
    make: impl FnOnce(Seed, Commitment) -> TournamentCommand,
) -> ApiResult<P> {
    let state = state(ctx)?;
    let caller = principal(ctx);
    let (venue, committed) = with_tournament(state, &id, |t| {
        (
            t.schedule().map(|s| s.venue.clone()).unwrap_or_default(),
            t.commitment(),
        )
    })
    .await?;
    caller.require_venue(&venue, &state.live.read())?;
    let stream = stream_of(&id);
    let seed = draws::held(state, &stream, committed).await?;
    let next = draws::commit(state, &stream).await?;
    send(ctx, state, &caller, id, make(seed, next), idempotency_key).await
}

/// Runs a command to the hand at `table` for the player at `seat`, who may send it
/// themselves.
async fn seat_command<P: From<CommandResult>>(
    ctx: &Context<'_>,
    id: String,
    table: u32,
    seat: Seat,
    command: HandCommand,
    idempotency_key: Option<String>,
) -> ApiResult<P> {
    let state = state(ctx)?;
    let caller = principal(ctx);
    let (venue, seated) = with_tournament(state, &id, |t| {
        (
            t.schedule().map(|s| s.venue.clone()).unwrap_or_default(),
            t.tables()
                .get(&table)
                .and_then(|tb| tb.seats.get(&seat))
                .cloned(),
        )
    })
    .await?;
    caller.require_seat(&venue, seated.as_deref(), &state.live.read())?;
    let command = TournamentCommand::Hand { table, command };
    send(ctx, state, &caller, id, command, idempotency_key).await
}

pub(super) async fn send<P: From<CommandResult>>(
    ctx: &Context<'_>,
    state: &ApiState,
    caller: &Principal,
    id: String,
    command: TournamentCommand,
    idempotency_key: Option<String>,
) -> ApiResult<P> {
    let command = Command::Tournament {
        id: id.into(),
        command: Box::new(command),
    };
    run_command(ctx, state, caller, command, idempotency_key, None)
        .await
        .map(P::from)
}

/// The engine's action for what a client names: `amount` only with `BET` and `RAISE_TO`.
pub(crate) fn action(kind: ActionKind, amount: Option<scalars::Chips>) -> ApiResult<Action> {
    let need = || ApiError::bad_field("amount", "amount: BET and RAISE_TO need an amount");
    if amount.is_some() && !matches!(kind, ActionKind::Bet | ActionKind::RaiseTo) {
        return Err(ApiError::bad_field(
            "amount",
            "amount: only BET and RAISE_TO take an amount (a call or all-in is for what the \
             table says)",
        ));
    }
    let amount = amount.map(|a| a.0.get());
    Ok(match kind {
        ActionKind::Fold => Action::Fold,
        ActionKind::Check => Action::Check,
        ActionKind::Call => Action::Call,
        ActionKind::Bet => Action::Bet(amount.ok_or_else(need)?),
        ActionKind::RaiseTo => Action::RaiseTo(amount.ok_or_else(need)?),
        ActionKind::AllIn => Action::AllIn,
    })
}

#[derive(Default)]
pub struct TournamentMutation;

#[Object]
impl TournamentMutation {
    /// Schedules a tournament: what the host decides (`ScheduleInput`); the house rules
    /// are the preset's, with any override the preset's rulebook leaves open. An admin, or
    /// a host of the schedule's venue.
    async fn schedule_tournament(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: ScheduleTournamentInput,
    ) -> ApiResult<ScheduleTournamentPayload> {
        let ScheduleTournamentInput {
            id,
            schedule,
            idempotency_key,
        } = input;
        let state = state(ctx)?;
        let caller = principal(ctx);
        caller.require_venue(&schedule.venue, &state.live.read())?;
        let id =
            object_ids::new_object(state, &caller, "id", id, idempotency_key.as_deref()).await?;
        // The first draw's seed: committed to in the schedule, kept by the server.
        let seed = draws::fresh_seed()?;
        let schedule = schedule.into_schedule(seed.commitment())?;
        draws::keep(state, &stream_of(&id), &seed).await?;
        let command = TournamentCommand::Schedule(Box::new(schedule));
        let command = Command::Tournament {
            id: id.as_str().into(),
            command: Box::new(command),
        };
        created(
            run_command(ctx, state, &caller, command, idempotency_key, None).await,
            id,
        )
    }

    /// Registers a player (the venue's staff, or the player themselves). Where the venue
    /// belongs to a league, only its members are registered (`NOT_A_MEMBER` otherwise): a
    /// walk-in is made a member of the venue's league first by the venue's staff, giving
    /// `walkIn` (the name and membership number the league records): that is a command of
    /// its own to the league's stream, appended before the registration, which this
    /// answer (the tournament's stream) does not count.
    async fn register(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: RegisterInput,
    ) -> ApiResult<RegisterPayload> {
        let RegisterInput {
            tournament_id,
            player,
            walk_in,
            idempotency_key,
        } = input;
        let tournament_id = tournament_id.0;
        let player = player.0;
        let state = state(ctx)?;
        let caller = principal(ctx);
        let venue = venue_of(state, &tournament_id).await?;
        caller.require_seat(&venue, Some(&player), &state.live.read())?;
        // Invitational 1.1: "All participants are joining the tournament by invitation only.
        // We do not allow 'show-ups' to participate." The staff register those invited.
        let preset =
            with_tournament(state, &tournament_id, |t| t.schedule().map(|s| s.preset)).await?;
        if preset == Some(league_engine::rules::Preset::Invitational) {
            if walk_in.is_some() {
                return Err(ApiError::client(
                    code::CONTRADICTS_PRESET,
                    "invitational 1.1: by invitation only; a walk-in (a show-up) cannot enter",
                )
                .with_field("walkIn"));
            }
            caller
                .require_venue(&venue, &state.live.read())
                .map_err(|_| {
                    ApiError::forbidden(
                        "invitational 1.1: by invitation only; the venue's staff register the \
                         players invited",
                    )
                })?;
        }
        match membership(state, &venue, &player) {
            Membership::Member | Membership::NoLeague => {}
            Membership::NotMember { leagues } => match (walk_in, leagues.as_slice()) {
                (None, _) => {
                    return Err(ApiError::client(
                        code::NOT_A_MEMBER,
                        format!(
                            "{player:?} is not a member of {} (the league of venue {venue:?}): \
                             add them with registerPlayer, or register them as a walk-in \
                             (walkIn)",
                            leagues.join(", ")
                        ),
                    ));
                }
                (Some(walk_in), [league]) => {
                    caller.require_venue(&venue, &state.live.read())?;
                    let command = Command::League {
                        id: league.as_str().into(),
                        command: Box::new(league_engine::league::Command::RegisterPlayer {
                            player: PlayerId::from(player.clone()),
                            name: walk_in.name,
                            membership: walk_in.membership,
                        }),
                    };
                    run_command(ctx, state, &caller, command, None, None).await?;
                }
                (Some(_), _) => {
                    return Err(ApiError::bad_field(
                        "walkIn",
                        format!(
                            "venue {venue:?} is in the leagues {}: a walk-in cannot choose one; \
                             add the player with registerPlayer",
                            leagues.join(", ")
                        ),
                    ));
                }
            },
        }
        let command = TournamentCommand::Register {
            player: PlayerId::from(player),
        };
        send(ctx, state, &caller, tournament_id, command, idempotency_key).await
    }

    /// Unregisters a player before the start; the entry is refunded.
    async fn unregister(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: UnregisterInput,
    ) -> ApiResult<UnregisterPayload> {
        let UnregisterInput {
            tournament_id,
            player,
            idempotency_key,
        } = input;
        let tournament_id = tournament_id.0;
        let player = player.0;
        let state = state(ctx)?;
        let caller = principal(ctx);
        let venue = venue_of(state, &tournament_id).await?;
        caller.require_seat(&venue, Some(&player), &state.live.read())?;
        let command = TournamentCommand::Unregister {
            player: PlayerId::from(player),
        };
        send(ctx, state, &caller, tournament_id, command, idempotency_key).await
    }

    /// A late entry, or a re-entry of a player who is out, seated by the server's draw
    /// (revealing the seed committed to by the last draw, committing to the next). Refused
    /// once the late-registration (or re-entry) window has closed, by level or by time.
    async fn late_entry(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: LateEntryInput,
    ) -> ApiResult<LateEntryPayload> {
        let LateEntryInput {
            tournament_id,
            player,
            idempotency_key,
        } = input;
        let tournament_id = tournament_id.0;
        let player = player.0;
        let player = PlayerId::from(player);
        draw_command(
            ctx,
            tournament_id,
            idempotency_key,
            |seed, next_commitment| TournamentCommand::LateEntry {
                player,
                at: now_millis(ctx),
                seed,
                next_commitment,
            },
        )
        .await
    }

    /// Stops the tournament clock.
    async fn pause(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: PauseInput,
    ) -> ApiResult<PausePayload> {
        let PauseInput {
            tournament_id,
            idempotency_key,
        } = input;
        let tournament_id = tournament_id.0;
        let command = TournamentCommand::Pause {
            at: now_millis(ctx),
        };
        staff_command(ctx, tournament_id, command, idempotency_key).await
    }

    /// Restarts the tournament clock.
    async fn resume(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: ResumeInput,
    ) -> ApiResult<ResumePayload> {
        let ResumeInput {
            tournament_id,
            idempotency_key,
        } = input;
        let tournament_id = tournament_id.0;
        let command = TournamentCommand::Resume {
            at: now_millis(ctx),
        };
        staff_command(ctx, tournament_id, command, idempotency_key).await
    }

    /// Marks a player absent: dealt in and blinded until they arrive. At QueenSix and Oracle
    /// their hand is dead once the deal ends (tournament 10, tournament 1); elsewhere it is
    /// folded when the action reaches it.
    async fn mark_absent(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: MarkAbsentInput,
    ) -> ApiResult<MarkAbsentPayload> {
        let MarkAbsentInput {
            tournament_id,
            player,
            idempotency_key,
        } = input;
        let tournament_id = tournament_id.0;
        let player = player.0;
        let command = TournamentCommand::MarkAbsent {
            player: PlayerId::from(player),
        };
        staff_command(ctx, tournament_id, command, idempotency_key).await
    }

    /// An absent player has arrived.
    async fn arrived(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: ArrivedInput,
    ) -> ApiResult<ArrivedPayload> {
        let ArrivedInput {
            tournament_id,
            player,
            idempotency_key,
        } = input;
        let tournament_id = tournament_id.0;
        let player = player.0;
        let command = TournamentCommand::Arrived {
            player: PlayerId::from(player),
        };
        staff_command(ctx, tournament_id, command, idempotency_key).await
    }

    /// Removes an absent entrant's chips from play, when the house's rule allows it.
    async fn remove_absent(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: RemoveAbsentInput,
    ) -> ApiResult<RemoveAbsentPayload> {
        let RemoveAbsentInput {
            tournament_id,
            player,
            idempotency_key,
        } = input;
        let tournament_id = tournament_id.0;
        let player = player.0;
        let command = TournamentCommand::RemoveAbsent {
            player: PlayerId::from(player),
            at: now_millis(ctx),
        };
        staff_command(ctx, tournament_id, command, idempotency_key).await
    }

    /// A player announces a re-buy: during a hand it obliges them when the hand ends;
    /// between hands it is made at once.
    async fn announce_rebuy(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: AnnounceRebuyInput,
    ) -> ApiResult<AnnounceRebuyPayload> {
        let AnnounceRebuyInput {
            tournament_id,
            player,
            idempotency_key,
        } = input;
        let tournament_id = tournament_id.0;
        let player = player.0;
        let command = TournamentCommand::AnnounceRebuy {
            player: PlayerId::from(player),
            at: now_millis(ctx),
        };
        staff_command(ctx, tournament_id, command, idempotency_key).await
    }

    /// A busted player declines to re-buy, and is out.
    async fn decline_rebuy(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: DeclineRebuyInput,
    ) -> ApiResult<DeclineRebuyPayload> {
        let DeclineRebuyInput {
            tournament_id,
            player,
            idempotency_key,
        } = input;
        let tournament_id = tournament_id.0;
        let player = player.0;
        let command = TournamentCommand::DeclineRebuy {
            player: PlayerId::from(player),
        };
        staff_command(ctx, tournament_id, command, idempotency_key).await
    }

    /// The director moves a player to an open seat at another table, between hands; the
    /// tables must stay within the house's balancing rule.
    async fn move_player(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: MovePlayerInput,
    ) -> ApiResult<MovePlayerPayload> {
        let MovePlayerInput {
            tournament_id,
            player,
            to_table,
            to_seat,
            idempotency_key,
        } = input;
        let tournament_id = tournament_id.0;
        let player = player.0;
        let command = TournamentCommand::MovePlayer {
            player: PlayerId::from(player),
            to_table,
            to_seat,
        };
        staff_command(ctx, tournament_id, command, idempotency_key).await
    }

    /// Starts the tournament: the server draws the seats and each table's button from the
    /// seed it committed to when the tournament was scheduled, reveals that seed in the
    /// event (an auditor re-derives the draw) and commits to the next draw's seed.
    async fn start(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: StartInput,
    ) -> ApiResult<StartPayload> {
        let StartInput {
            tournament_id,
            idempotency_key,
        } = input;
        let tournament_id = tournament_id.0;
        draw_command(
            ctx,
            tournament_id,
            idempotency_key,
            |seed, next_commitment| TournamentCommand::Start {
                at: now_millis(ctx),
                seed,
                next_commitment,
            },
        )
        .await
    }

    /// Starts the next level now (or the `level` named, if it is next).
    async fn advance_level(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: AdvanceLevelInput,
    ) -> ApiResult<AdvanceLevelPayload> {
        let AdvanceLevelInput {
            tournament_id,
            level,
            idempotency_key,
        } = input;
        let tournament_id = tournament_id.0;
        let at = now_millis(ctx);
        let command = match level {
            Some(level) => TournamentCommand::StartLevel { level, at },
            None => TournamentCommand::AdvanceLevel { at },
        };
        staff_command(ctx, tournament_id, command, idempotency_key).await
    }

    /// Starts the next hand at a table. A dealt tournament's deck comes from a fresh seed
    /// drawn by the server, committed to in the hand's start and revealed at its end.
    async fn start_hand(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: StartHandInput,
    ) -> ApiResult<StartHandPayload> {
        let StartHandInput {
            tournament_id,
            table,
            hand_id,
            idempotency_key,
        } = input;
        // Who may start it first: a stranger learns nothing from the id's checks.
        let state = state(ctx)?;
        let venue = venue_of(state, &tournament_id.0).await?;
        principal(ctx).require_venue(&venue, &state.live.read())?;
        let hand_id = match hand_id {
            Some(id) => object_ids::checked_hand_id("handId", &id)?,
            None => uuid::Uuid::now_v7().to_string(),
        };
        let tournament_id = tournament_id.0;
        let tracking =
            with_tournament(state, &tournament_id, |t| t.schedule().map(|s| s.tracking)).await?;
        let seed = match tracking {
            Some(Tracking::Dealt) => Some(draws::fresh_seed()?),
            _ => None,
        };
        let command = TournamentCommand::StartHand {
            table,
            seed,
            hand_id: Some(hand_id.as_str().into()),
        };
        created(
            staff_command(ctx, tournament_id, command, idempotency_key).await,
            hand_id,
        )
    }

    /// A player's action at a table (the player themselves, or the venue's staff): the
    /// seat to act (`legalActions.seat`) and what it does; `amount` only with `BET` and
    /// `RAISE_TO`, the total for the round the bet or raise goes to (from
    /// `betOrRaise.min` to `betOrRaise.max`).
    async fn act(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: ActInput,
    ) -> ApiResult<ActPayload> {
        let ActInput {
            tournament_id,
            table,
            seat,
            action,
            amount,
            idempotency_key,
        } = input;
        let tournament_id = tournament_id.0;
        let action = self::action(action, amount)?;
        let declared = match action {
            Action::Bet(to) | Action::RaiseTo(to) => Some((seat, to)),
            _ => None,
        };
        let command = HandCommand::Act { seat, action };
        let mut result: CommandResult =
            seat_command(ctx, tournament_id, table, seat, command, idempotency_key).await?;
        result.declared = declared;
        Ok(result.into())
    }

    /// Recorded tracking: a player's hole cards as dealt from the physical deck.
    async fn deal_hole(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: DealHoleInput,
    ) -> ApiResult<DealHolePayload> {
        let DealHoleInput {
            tournament_id,
            table,
            seat,
            cards,
            idempotency_key,
        } = input;
        let tournament_id = tournament_id.0;
        let command = TournamentCommand::Hand {
            table,
            command: HandCommand::DealHole {
                seat,
                cards: two_cards(&cards)?,
            },
        };
        staff_command(ctx, tournament_id, command, idempotency_key).await
    }

    /// Recorded tracking: the next board cards (three for the flop, then one).
    async fn deal_board(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: DealBoardInput,
    ) -> ApiResult<DealBoardPayload> {
        let DealBoardInput {
            tournament_id,
            table,
            cards,
            idempotency_key,
        } = input;
        let tournament_id = tournament_id.0;
        let cards = cards.iter().map(|c| card(c)).collect::<ApiResult<_>>()?;
        let command = TournamentCommand::Hand {
            table,
            command: HandCommand::DealBoard { cards },
        };
        staff_command(ctx, tournament_id, command, idempotency_key).await
    }

    /// Shows a hand at the showdown: in recorded tracking, `cards` are the cards turned
    /// over; omitted, the cards recorded for the seat. A dealt hand's cards are the
    /// server's: `cards` is then refused, right or wrong, so that no guess is confirmed.
    async fn show(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: ShowInput,
    ) -> ApiResult<ShowPayload> {
        let ShowInput {
            tournament_id,
            table,
            seat,
            cards,
            idempotency_key,
        } = input;
        let tournament_id = tournament_id.0;
        let cards = cards.map(|c| two_cards(&c)).transpose()?;
        let command = HandCommand::Show { seat, cards };
        seat_command(ctx, tournament_id, table, seat, command, idempotency_key).await
    }

    /// Gives up the pot at the showdown without showing.
    async fn muck(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: MuckInput,
    ) -> ApiResult<MuckPayload> {
        let MuckInput {
            tournament_id,
            table,
            seat,
            idempotency_key,
        } = input;
        let tournament_id = tournament_id.0;
        let command = HandCommand::Muck { seat };
        seat_command(ctx, tournament_id, table, seat, command, idempotency_key).await
    }

    /// Results tracking: players out in one hand (best first when the house's order cannot
    /// be worked out from chips); `by` took their chips. Where re-buys are on offer, a
    /// player with one left while the window is open is busted, not out: `rebuy` (paid)
    /// seats them again, `declineRebuy` puts them out, and the tournament's `pending` lists
    /// them until then. Refused while a redraw or a colour-up is pending (`REDRAW_DUE`,
    /// `COLOUR_UP_DUE`): no hand is played until it is done. With `orderUnknown`, players
    /// out at separate tables in an order nobody can tell share their places and split the
    /// prizes, where the house says so (Oracle tournament 3); elsewhere it is refused
    /// (`RULE_VIOLATION`), as are two of them at one table.
    async fn eliminate(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: EliminateInput,
    ) -> ApiResult<EliminatePayload> {
        let EliminateInput {
            tournament_id,
            players,
            by,
            order_unknown,
            idempotency_key,
        } = input;
        let tournament_id = tournament_id.0;
        let players: Vec<String> = players.into_iter().map(|v| v.0).collect();
        let by = by.map(|v| v.0);
        let command = if order_unknown == Some(true) {
            if by.is_some() {
                return Err(ApiError::bad_field(
                    "by",
                    "players out at separate tables in an unknown order were not knocked out by one player: leave `by` out",
                ));
            }
            TournamentCommand::EliminateOrderUnknown {
                players: player_ids(players),
            }
        } else {
            TournamentCommand::Eliminate {
                players: player_ids(players),
                by: by.map(PlayerId::from),
            }
        };
        staff_command(ctx, tournament_id, command, idempotency_key).await
    }

    /// Results tracking: every remaining player's chips.
    async fn record_chips(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: RecordChipsInput,
    ) -> ApiResult<RecordChipsPayload> {
        let RecordChipsInput {
            tournament_id,
            counts,
            idempotency_key,
        } = input;
        let tournament_id = tournament_id.0;
        let counts = counts
            .into_iter()
            .map(|c| (PlayerId::from(c.player.0), c.chips.0))
            .collect();
        let command = TournamentCommand::RecordChips { counts };
        staff_command(ctx, tournament_id, command, idempotency_key).await
    }

    /// A re-buy for a player still in (seated, or busted and free to re-buy), made at once
    /// between hands at their table: within the re-buy window (levels and minutes), the
    /// limit per player, any stack limit and, with `afterBustOnly`, only once busted. The
    /// venue's staff.
    async fn rebuy(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: RebuyInput,
    ) -> ApiResult<RebuyPayload> {
        let RebuyInput {
            tournament_id,
            player,
            idempotency_key,
        } = input;
        let tournament_id = tournament_id.0;
        let player = player.0;
        let command = TournamentCommand::Rebuy {
            player: PlayerId::from(player),
            at: now_millis(ctx),
        };
        staff_command(ctx, tournament_id, command, idempotency_key).await
    }

    /// An add-on for a seated player, between hands at their table: within the add-on
    /// window (levels and minutes), the limit per player and any stack limit. The venue's
    /// staff.
    async fn add_on(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: AddOnInput,
    ) -> ApiResult<AddOnPayload> {
        let AddOnInput {
            tournament_id,
            player,
            idempotency_key,
        } = input;
        let tournament_id = tournament_id.0;
        let player = player.0;
        let command = TournamentCommand::AddOn {
            player: PlayerId::from(player),
            at: now_millis(ctx),
        };
        staff_command(ctx, tournament_id, command, idempotency_key).await
    }

    /// Colours up during a break. Under a chip race the server deals the race's cards from
    /// the seed it committed to, reveals it and commits to the next.
    async fn colour_up(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: ColourUpInput,
    ) -> ApiResult<ColourUpPayload> {
        let ColourUpInput {
            tournament_id,
            idempotency_key,
        } = input;
        let tournament_id = tournament_id.0;
        let state = state(ctx)?;
        let race = with_tournament(state, &tournament_id, |t| {
            t.schedule()
                .is_some_and(|s| s.house.colour_up == ColourUpPolicy::ChipRace)
        })
        .await?;
        if !race {
            let command = TournamentCommand::ColourUp {
                seed: None,
                next_commitment: None,
            };
            return staff_command(ctx, tournament_id, command, idempotency_key).await;
        }
        draw_command(ctx, tournament_id, idempotency_key, |seed, next| {
            TournamentCommand::ColourUp {
                seed: Some(seed),
                next_commitment: Some(next),
            }
        })
        .await
    }

    /// Redraws every seat (a redraw due, or the director's) from the seed the server
    /// committed to; reveals it and commits to the next.
    async fn redraw(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: RedrawInput,
    ) -> ApiResult<RedrawPayload> {
        let RedrawInput {
            tournament_id,
            idempotency_key,
        } = input;
        let tournament_id = tournament_id.0;
        draw_command(
            ctx,
            tournament_id,
            idempotency_key,
            |seed, next_commitment| TournamentCommand::Redraw {
                seed,
                next_commitment,
            },
        )
        .await
    }

    /// A penalty; `count` is the hands or rounds to miss, `chips` what a forfeiture
    /// removes. Where the house escalates repeat infractions (WPH 47, Oracle tournament
    /// 4), a repeat offender's penalty is at least the tournament's `leastPenalty` for
    /// them (`CONTRADICTS_PRESET`, field `penalty`).
    async fn penalise(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: PenaliseInput,
    ) -> ApiResult<PenalisePayload> {
        let PenaliseInput {
            tournament_id,
            player,
            penalty,
            count,
            chips,
            idempotency_key,
        } = input;
        let tournament_id = tournament_id.0;
        let player = player.0;
        let need = || ApiError::bad_field("count", "this penalty needs a count");
        let needs_count = matches!(penalty, PenaltyKind::MissHands | PenaltyKind::MissRounds);
        if count.is_some() && !needs_count {
            return Err(ApiError::bad_field(
                "count",
                "only missed hands or rounds take a count",
            ));
        }
        match (penalty == PenaltyKind::Forfeit, chips.is_some()) {
            (true, false) => {
                return Err(ApiError::bad_field(
                    "chips",
                    "a forfeiture needs the chips it removes",
                ));
            }
            (false, true) => {
                return Err(ApiError::bad_field(
                    "chips",
                    "only a forfeiture takes chips",
                ));
            }
            _ => {}
        }
        let penalty = match penalty {
            PenaltyKind::Warning => Penalty::Warning,
            PenaltyKind::MissHands => Penalty::MissHands(count.ok_or_else(need)?),
            PenaltyKind::MissRounds => Penalty::MissRounds(count.ok_or_else(need)?),
            PenaltyKind::Disqualify => Penalty::Disqualify,
            PenaltyKind::Forfeit => Penalty::Forfeit(chips.map(|c| c.0).unwrap_or_default()),
            PenaltyKind::Eliminate => Penalty::Eliminate,
        };
        let command = TournamentCommand::Penalise {
            player: PlayerId::from(player),
            penalty,
        };
        staff_command(ctx, tournament_id, command, idempotency_key).await
    }

    /// Announces the prizes by place (cents); they must sum to the prize pool.
    async fn set_payouts(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: SetPayoutsInput,
    ) -> ApiResult<SetPayoutsPayload> {
        let SetPayoutsInput {
            tournament_id,
            amounts,
            idempotency_key,
        } = input;
        let tournament_id = tournament_id.0;
        let command = TournamentCommand::SetPayouts {
            amounts: amounts.into_iter().map(|a| a.0).collect(),
        };
        staff_command(ctx, tournament_id, command, idempotency_key).await
    }

    /// A deal at the final table, accepted by every remaining player: the prizes left are
    /// shared out and the tournament ends. Refused (`RULE_VIOLATION`, naming the rule)
    /// where the house takes no deals (QueenSix 33).
    async fn deal(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: DealInput,
    ) -> ApiResult<DealPayload> {
        let DealInput {
            tournament_id,
            kind,
            accepted,
            idempotency_key,
        } = input;
        let tournament_id = tournament_id.0;
        let accepted: Vec<String> = accepted.into_iter().map(|v| v.0).collect();
        let command = TournamentCommand::Deal {
            kind: kind.into(),
            accepted: player_ids(accepted),
        };
        staff_command(ctx, tournament_id, command, idempotency_key).await
    }
}

/// Player ids as a client sends them.
fn player_ids(ids: Vec<String>) -> Vec<PlayerId> {
    ids.into_iter().map(PlayerId::from).collect()
}
