//! The commands that run a cash table, each authorised: the venue's staff run the table;
//! a player sits down, tops up, sits out, comes back, cashes out, joins the waiting list
//! and acts for themselves only.

use async_graphql::{Context, ID, InputObject, Object};
use league_app::commands::Command;
use league_engine::cash::{CashCommand, Entry, HouseTake, StraddlePolicy, TableConfig};
use league_engine::hand::{Command as HandCommand, Seat};
use league_engine::rules::Preset;
use league_engine::units::PlayerId;

use super::{stream_of, venue_of};
use crate::auth::Principal;
use crate::error::{ApiError, ApiResult};
use crate::schema::payloads::{command_input, created, payload};
use crate::schema::scalars::Chips;
use crate::schema::tournaments::corrections::reason;
use crate::schema::tournaments::draws;
use crate::schema::tournaments::inputs::PresetName;
use crate::schema::tournaments::mutation::action;
use crate::schema::tournaments::rulings::{HandKillCause, kill};
use crate::schema::tournaments::types::ActionKind;
use crate::schema::{
    ApiState, CommandResult, now_millis, object_ids, principal, run_command, state,
};

/// A session fee: `amount` from every seated player each `periodMinutes` (a player away
/// pays on return; a newcomer pays the last one within the house's grace).
#[derive(InputObject, Debug)]
pub struct SessionFeeInput {
    /// Chips from each seated player per period.
    pub amount: Chips,
    /// The period, in minutes (the Hippodrome: 30).
    pub period_minutes: u32,
}

/// A rake: `basisPoints` hundredths of a percent of each pot, rounded down, at most `cap`
/// from one pot, taken before the pot is awarded.
#[derive(InputObject, Debug)]
pub struct RakeInput {
    /// Hundredths of a percent, 1 to 10000: 500 is 5%.
    pub basis_points: u16,
    /// The most taken from one pot, in chips.
    pub cap: Chips,
    /// No flop, no drop: a hand that ends before the flop is not raked.
    #[graphql(default = true)]
    pub no_flop_no_drop: bool,
}

command_input!(
    /// Opens a cash table at a venue.
    OpenCashTableInput {
        /// The table's id; generated (a UUIDv7) when left out.
        id: Option<ID>,
        /// The venue whose host runs the table.
        venue: ID,
        /// What the venue calls it (`£1/£2 No-Limit`).
        name: String,
        /// The house whose cash rules the table plays by: `ORACLE` or `HIPPODROME`.
        house: PresetName,
        /// The small blind, in chips.
        small_blind: Chips,
        /// The big blind, in chips: the smallest bet.
        big_blind: Chips,
        /// The smallest buy-in, at least the big blind.
        min_buy_in: Chips,
        /// The most a stack may hold after a buy-in or a top-up.
        max_buy_in: Chips,
        /// Seats, 2 to 10.
        seats: u8,
        /// Allow the house's straddle (Oracle: one live straddle left of the big blind;
        /// Hippodrome: the button's, three- or four-handed).
        #[graphql(default)]
        straddle: bool,
        /// The session fee the table charges, if any (not with `rake`).
        session_fee: Option<SessionFeeInput>,
        /// The rake the table takes from each pot, if any (not with `sessionFee`).
        rake: Option<RakeInput>,
        /// The smallest pot the players may run twice, if they may (Hippodrome, Showdown
        /// 8: £500 at £1/£2); every player in the hand must agree.
        run_it_twice_from: Option<Chips>,
    }
);
command_input!(
    /// Closes a cash table between hands: every player is cashed out.
    CloseCashTableInput {
        /// The cash table's id.
        id: ID,
    }
);
command_input!(
    /// Sits a player down with a buy-in.
    SitDownInput {
        /// The cash table's id.
        table: ID,
        /// The seat, from 0.
        seat: Seat,
        /// The player's id.
        player: ID,
        /// Chips bought, from the table's minimum to its maximum.
        buy_in: Chips,
        /// Moved by the house from a broken or must-move game of the same stakes: the same
        /// amount plays, even outside the limits (staff only).
        #[graphql(default)]
        transfer: bool,
        /// Post a big blind and be dealt in at once rather than wait for the big blind
        /// (where the house allows it: Oracle).
        #[graphql(default)]
        post_big_blind: bool,
    }
);
command_input!(
    /// Adds chips to a stack between hands, up to the table maximum.
    TopUpInput {
        /// The cash table's id.
        table: ID,
        /// The seat, from 0.
        seat: Seat,
        /// Chips added.
        amount: Chips,
    }
);
command_input!(
    /// A player sits out from the next hand.
    SitOutInput {
        /// The cash table's id.
        table: ID,
        /// The seat, from 0.
        seat: Seat,
    }
);
command_input!(
    /// A player back from sitting out.
    ComeBackInput {
        /// The cash table's id.
        table: ID,
        /// The seat, from 0.
        seat: Seat,
        /// Post the blinds missed (the house's rule) to be dealt in next hand; otherwise
        /// wait for the big blind.
        #[graphql(default)]
        post: bool,
    }
);
command_input!(
    /// A player leaves the table with their chips, between hands.
    CashOutInput {
        /// The cash table's id.
        table: ID,
        /// The seat, from 0.
        seat: Seat,
    }
);
command_input!(
    /// Holds a free seat for a player for some minutes.
    ReserveCashSeatInput {
        /// The cash table's id.
        table: ID,
        /// The seat, from 0.
        seat: Seat,
        /// The player's id.
        player: ID,
        /// How long the seat is held.
        minutes: u32,
    }
);
command_input!(
    /// Releases a seat held.
    CancelCashReservationInput {
        /// The cash table's id.
        table: ID,
        /// The seat held.
        seat: Seat,
    }
);
command_input!(
    /// Puts a player on the table's waiting list (or takes them off).
    CashWaitingListInput {
        /// The cash table's id.
        table: ID,
        /// The player's id.
        player: ID,
    }
);
command_input!(
    /// Collects the session fee now due.
    ChargeSessionFeeInput {
        /// The cash table's id.
        table: ID,
    }
);
command_input!(
    /// Deals the next hand from a deck the server orders from a fresh seed (committed to in
    /// the hand's start, revealed at its end).
    DealCashHandInput {
        /// The cash table's id.
        table: ID,
        /// The seat that straddles this hand, where the house allows it there.
        straddle: Option<Seat>,
    }
);
command_input!(
    /// A seat's action in the hand being played.
    CashActInput {
        /// The cash table's id.
        table: ID,
        /// The seat, from 0.
        seat: Seat,
        /// What the seat does: fold, check, call, bet or raise.
        action: ActionKind,
        /// For a bet or raise, the total the seat puts in this street (raise-to).
        amount: Option<Chips>,
    }
);
command_input!(
    /// A seat's answer when asked to run the board twice.
    CashRunItTwiceInput {
        /// The cash table's id.
        table: ID,
        /// The seat, from 0.
        seat: Seat,
        /// Run it twice (`false`: once; one refusal and the board runs once).
        agree: bool,
    }
);
command_input!(
    /// A seat shows (or mucks) at the showdown.
    CashShowdownInput {
        /// The cash table's id.
        table: ID,
        /// The seat, from 0.
        seat: Seat,
        /// Give up the pot without showing.
        #[graphql(default)]
        muck: bool,
    }
);

command_input!(
    /// The floor impounds or releases a cash table's pot.
    CashPotRulingInput {
        /// The cash table's id.
        table: ID,
        /// Why, as the players and the house will read it: 1 to 200 characters.
        reason: String,
    }
);

command_input!(
    /// The floor rules a hand mucked at the showdown live again.
    RetrieveCashHandInput {
        /// The cash table's id.
        table: ID,
        /// The seat whose hand was mucked at the showdown, from 0.
        seat: Seat,
        /// Why the hand is ruled live: 1 to 200 characters.
        reason: String,
    }
);

command_input!(
    /// A player asks to see a hand mucked at the showdown.
    SeeCashHandInput {
        /// The cash table's id.
        table: ID,
        /// The seat whose hand was mucked at the showdown, from 0.
        seat: Seat,
        /// The seat of the player who asks, from 0.
        asked_by: Seat,
    }
);

command_input!(
    /// The floor takes away a seat's aggressive action for the rest of the hand.
    ForfeitCashAggressionInput {
        /// The cash table's id.
        table: ID,
        /// The seat, from 0.
        seat: Seat,
        /// What the player did, as the players and the house will read it: 1 to 200
        /// characters.
        reason: String,
    }
);

command_input!(
    /// The floor declares a seat's hand dead.
    KillCashHandInput {
        /// The cash table's id.
        table: ID,
        /// The seat, from 0.
        seat: Seat,
        /// Why: exposed, a clear intention to fold, fouled, a penalty.
        cause: HandKillCause,
        /// What happened, as the players and the house will read it: 1 to 200 characters.
        reason: String,
    }
);

payload!(
    /// What `openCashTable` did.
    OpenCashTablePayload: cash creates
);
payload!(
    /// What a command to a cash table did.
    CashTablePayload: cash
);

fn now_seconds(ctx: &Context<'_>) -> u64 {
    u64::try_from(now_millis(ctx) / 1000).unwrap_or(0)
}

fn chips(c: Chips) -> league_engine::units::Chips {
    c.0
}

/// Runs `command` on table `id` for `caller` (already authorised).
async fn send(
    ctx: &Context<'_>,
    state: &ApiState,
    caller: &Principal,
    id: &str,
    command: CashCommand,
    idempotency_key: Option<String>,
) -> ApiResult<CommandResult> {
    let command = Command::Cash {
        id: id.into(),
        command: Box::new(command),
    };
    run_command(ctx, state, caller, command, idempotency_key, None).await
}

/// A command the venue's staff send.
async fn staff(
    ctx: &Context<'_>,
    id: &ID,
    command: CashCommand,
    idempotency_key: Option<String>,
) -> ApiResult<CashTablePayload> {
    let state = state(ctx)?;
    let caller = principal(ctx);
    {
        let p = state.live.read();
        let venue = venue_of(&p, id)?;
        caller.require_venue(&venue, &p)?;
    }
    send(ctx, state, &caller, id, command, idempotency_key)
        .await
        .map(CashTablePayload::from)
}

/// A command for the player at `seat`, which they may send themselves.
async fn for_seat(
    ctx: &Context<'_>,
    id: &ID,
    seat: Seat,
    command: CashCommand,
    idempotency_key: Option<String>,
) -> ApiResult<CashTablePayload> {
    let state = state(ctx)?;
    let caller = principal(ctx);
    {
        let p = state.live.read();
        let venue = venue_of(&p, id)?;
        // Who sits where is public (the table's view): an empty seat is said so to anyone.
        let seated = p
            .cash_table(&stream_of(id))
            .and_then(|t| t.seats.get(&seat))
            .map(|s| s.player.to_string())
            .ok_or_else(|| {
                ApiError::not_found(format!("seat {seat} of cash table {id:?} is empty"))
            })?;
        caller.require_seat(&venue, Some(&seated), &p)?;
    }
    send(ctx, state, &caller, id, command, idempotency_key)
        .await
        .map(CashTablePayload::from)
}

/// A command about `player`, which they may send themselves.
async fn for_player(
    ctx: &Context<'_>,
    id: &ID,
    player: &str,
    command: CashCommand,
    idempotency_key: Option<String>,
) -> ApiResult<CashTablePayload> {
    let state = state(ctx)?;
    let caller = principal(ctx);
    {
        let p = state.live.read();
        let venue = venue_of(&p, id)?;
        caller.require_seat(&venue, Some(player), &p)?;
    }
    send(ctx, state, &caller, id, command, idempotency_key)
        .await
        .map(CashTablePayload::from)
}

fn player_id(id: &ID) -> ApiResult<PlayerId> {
    if !league_engine::units::is_id(id) {
        return Err(ApiError::bad_field(
            "player",
            format!("a player id must be {}", league_engine::units::ID_RULE),
        ));
    }
    Ok(PlayerId::from(id.0.clone()))
}

#[derive(Default)]
pub struct CashMutation;

#[Object]
impl CashMutation {
    /// Opens a cash table. An admin, or a host of the venue.
    async fn open_cash_table(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: OpenCashTableInput,
    ) -> ApiResult<OpenCashTablePayload> {
        let state = state(ctx)?;
        let caller = principal(ctx);
        caller.require_venue(&input.venue, &state.live.read())?;
        let id = object_ids::new_object(
            state,
            &caller,
            "id",
            input.id,
            input.idempotency_key.as_deref(),
        )
        .await?;
        let preset = Preset::from(input.house);
        let config = TableConfig {
            venue: input.venue.0.clone().into(),
            name: input.name,
            small_blind: chips(input.small_blind),
            big_blind: chips(input.big_blind),
            min_buy_in: chips(input.min_buy_in),
            max_buy_in: chips(input.max_buy_in),
            seats: input.seats,
            rules: preset.rules(),
            straddle: if input.straddle {
                league_engine::cash::CashRules::straddle(preset)
            } else {
                StraddlePolicy::None
            },
            take: match (input.session_fee, input.rake) {
                (Some(_), Some(_)) => {
                    return Err(ApiError::bad_field(
                        "rake",
                        "a table takes a session fee or a rake, not both",
                    ));
                }
                (Some(fee), None) => HouseTake::SessionFee {
                    amount: chips(fee.amount),
                    period_minutes: fee.period_minutes,
                },
                (None, Some(rake)) => HouseTake::Rake(league_engine::hand::Rake {
                    basis_points: rake.basis_points,
                    cap: chips(rake.cap).get(),
                    no_flop_no_drop: rake.no_flop_no_drop,
                }),
                (None, None) => HouseTake::None,
            },
            run_twice: input.run_it_twice_from.map(chips),
        };
        let command = CashCommand::Open {
            config,
            at: now_seconds(ctx),
        };
        created(
            send(ctx, state, &caller, &id, command, input.idempotency_key).await,
            id,
        )
    }

    /// Closes a cash table between hands, cashing every player out. The venue's staff.
    async fn close_cash_table(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: CloseCashTableInput,
    ) -> ApiResult<CashTablePayload> {
        let command = CashCommand::Close {
            at: now_seconds(ctx),
        };
        staff(ctx, &input.id, command, input.idempotency_key).await
    }

    /// Sits a player down with a buy-in within the table's limits. The venue's staff, or
    /// the player themselves (a transfer from another game is the staff's).
    async fn sit_down(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: SitDownInput,
    ) -> ApiResult<CashTablePayload> {
        let player = player_id(&input.player)?;
        let command = CashCommand::Sit {
            seat: input.seat,
            player: player.clone(),
            buy_in: chips(input.buy_in),
            entry: if input.transfer {
                Entry::Transfer
            } else {
                Entry::BuyIn
            },
            post: input.post_big_blind,
            at: now_seconds(ctx),
        };
        if input.transfer {
            return staff(ctx, &input.table, command, input.idempotency_key).await;
        }
        for_player(
            ctx,
            &input.table,
            player.as_str(),
            command,
            input.idempotency_key,
        )
        .await
    }

    /// Adds chips to a stack between hands. The staff, or the seated player.
    async fn top_up(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: TopUpInput,
    ) -> ApiResult<CashTablePayload> {
        let command = CashCommand::TopUp {
            seat: input.seat,
            amount: chips(input.amount),
            at: now_seconds(ctx),
        };
        for_seat(
            ctx,
            &input.table,
            input.seat,
            command,
            input.idempotency_key,
        )
        .await
    }

    /// Sits out from the next hand. The staff, or the seated player.
    async fn sit_out(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: SitOutInput,
    ) -> ApiResult<CashTablePayload> {
        let command = CashCommand::SitOut {
            seat: input.seat,
            at: now_seconds(ctx),
        };
        for_seat(
            ctx,
            &input.table,
            input.seat,
            command,
            input.idempotency_key,
        )
        .await
    }

    /// Back from sitting out: posting what was missed, or waiting for the big blind. The
    /// staff, or the seated player.
    async fn come_back(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: ComeBackInput,
    ) -> ApiResult<CashTablePayload> {
        let command = CashCommand::Return {
            seat: input.seat,
            post: input.post,
            at: now_seconds(ctx),
        };
        for_seat(
            ctx,
            &input.table,
            input.seat,
            command,
            input.idempotency_key,
        )
        .await
    }

    /// Leaves the table with the chips. The staff, or the seated player.
    async fn cash_out(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: CashOutInput,
    ) -> ApiResult<CashTablePayload> {
        let command = CashCommand::Leave {
            seat: input.seat,
            at: now_seconds(ctx),
        };
        for_seat(
            ctx,
            &input.table,
            input.seat,
            command,
            input.idempotency_key,
        )
        .await
    }

    /// Holds a free seat for a player. The venue's staff.
    async fn reserve_cash_seat(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: ReserveCashSeatInput,
    ) -> ApiResult<CashTablePayload> {
        let at = now_seconds(ctx);
        let command = CashCommand::Reserve {
            seat: input.seat,
            player: player_id(&input.player)?,
            until: at.saturating_add(u64::from(input.minutes) * 60),
            at,
        };
        staff(ctx, &input.table, command, input.idempotency_key).await
    }

    /// Releases a seat held. The venue's staff.
    async fn cancel_cash_reservation(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: CancelCashReservationInput,
    ) -> ApiResult<CashTablePayload> {
        let command = CashCommand::CancelReservation { seat: input.seat };
        staff(ctx, &input.table, command, input.idempotency_key).await
    }

    /// Puts a player on the waiting list. The staff, or the player.
    async fn join_cash_waiting_list(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: CashWaitingListInput,
    ) -> ApiResult<CashTablePayload> {
        let player = player_id(&input.player)?;
        let command = CashCommand::JoinWaitingList {
            player: player.clone(),
        };
        for_player(
            ctx,
            &input.table,
            player.as_str(),
            command,
            input.idempotency_key,
        )
        .await
    }

    /// Takes a player off the waiting list. The staff, or the player.
    async fn leave_cash_waiting_list(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: CashWaitingListInput,
    ) -> ApiResult<CashTablePayload> {
        let player = player_id(&input.player)?;
        let command = CashCommand::LeaveWaitingList {
            player: player.clone(),
        };
        for_player(
            ctx,
            &input.table,
            player.as_str(),
            command,
            input.idempotency_key,
        )
        .await
    }

    /// Collects the session fee due (before the deal): from the players in their seats;
    /// those away owe it until they return. The venue's staff.
    async fn charge_session_fee(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: ChargeSessionFeeInput,
    ) -> ApiResult<CashTablePayload> {
        let command = CashCommand::ChargeSessionFee {
            at: now_seconds(ctx),
        };
        staff(ctx, &input.table, command, input.idempotency_key).await
    }

    /// Deals the next hand: the table moves the button, posts the blinds (and what players
    /// coming in post), records the blinds missed by players sitting out, and deals from a
    /// fresh seed. The venue's staff.
    async fn deal_cash_hand(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: DealCashHandInput,
    ) -> ApiResult<CashTablePayload> {
        let command = CashCommand::StartHand {
            at: now_seconds(ctx),
            seed: Some(draws::fresh_seed()?),
            straddle: input.straddle,
        };
        staff(ctx, &input.table, command, input.idempotency_key).await
    }

    /// A seat's action. The seated player, or the staff.
    async fn cash_act(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: CashActInput,
    ) -> ApiResult<CashTablePayload> {
        let command = CashCommand::Hand(HandCommand::Act {
            seat: input.seat,
            action: action(input.action, input.amount)?,
        });
        for_seat(
            ctx,
            &input.table,
            input.seat,
            command,
            input.idempotency_key,
        )
        .await
    }

    /// A seat answers whether to run the rest of the board twice (Hippodrome tables with
    /// `runItTwiceFrom`): asked of every player in the hand once the betting is over with
    /// cards to come and the pot at least the table's minimum (`runItTwiceAsked`). It runs
    /// twice when all agree: each pot, less its rake, is split between the runs (the odd
    /// chip to the first) and each run's part goes to that run's best hand. Refused
    /// (`RULE_VIOLATION`) when the seat is not asked. The seated player, or the staff.
    async fn cash_run_it_twice(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: CashRunItTwiceInput,
    ) -> ApiResult<CashTablePayload> {
        let command = CashCommand::Hand(HandCommand::RunTwice {
            seat: input.seat,
            agree: input.agree,
        });
        for_seat(
            ctx,
            &input.table,
            input.seat,
            command,
            input.idempotency_key,
        )
        .await
    }

    /// A seat shows its cards at the showdown, or mucks. The seated player, or the staff.
    async fn cash_showdown(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: CashShowdownInput,
    ) -> ApiResult<CashTablePayload> {
        let seat = input.seat;
        let command = CashCommand::Hand(if input.muck {
            HandCommand::Muck { seat }
        } else {
            HandCommand::Show { seat, cards: None }
        });
        for_seat(ctx, &input.table, seat, command, input.idempotency_key).await
    }

    /// Declares a seat's hand dead (`HandKilled`): in or out of its turn, it is folded at
    /// once and its chips stay in the pot, as `killHand` at a tournament table (which gives
    /// the refusals). The venue's staff.
    async fn kill_cash_hand(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: KillCashHandInput,
    ) -> ApiResult<CashTablePayload> {
        let command = CashCommand::Hand(kill(input.seat, input.cause, input.reason)?);
        staff(ctx, &input.table, command, input.idempotency_key).await
    }

    /// Takes away a seat's aggressive action for the rest of the hand
    /// (`AggressionForfeited`): it may check, call or fold, never bet or raise. Hippodrome's
    /// irregularities 9 ("a card that is flashed by a player will continue to be a played
    /// hand, however the player will lose all aggressive action for the whole hand") and
    /// showdown 5, Oracle's exposing cards; as `forfeitAggression` at a tournament table
    /// (which gives the refusals). The venue's staff.
    async fn forfeit_cash_aggression(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: ForfeitCashAggressionInput,
    ) -> ApiResult<CashTablePayload> {
        let command = CashCommand::Hand(HandCommand::ForfeitAggression {
            seat: input.seat,
            reason: reason(input.reason)?,
        });
        staff(ctx, &input.table, command, input.idempotency_key).await
    }

    /// Impounds the pot of the hand in progress pending the floor's decision, as
    /// `impoundPot` at a tournament table (which gives the refusals): nothing is awarded
    /// and no next hand starts until `releaseCashPot`. The venue's staff.
    async fn impound_cash_pot(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: CashPotRulingInput,
    ) -> ApiResult<CashTablePayload> {
        let command = CashCommand::Hand(HandCommand::Impound {
            reason: reason(input.reason)?,
        });
        staff(ctx, &input.table, command, input.idempotency_key).await
    }

    /// Releases an impounded pot: it is awarded as the hands now stand, as `releasePot`.
    /// The venue's staff.
    async fn release_cash_pot(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: CashPotRulingInput,
    ) -> ApiResult<CashTablePayload> {
        let command = CashCommand::Hand(HandCommand::Release {
            reason: reason(input.reason)?,
        });
        staff(ctx, &input.table, command, input.idempotency_key).await
    }

    /// Rules a hand mucked at the showdown live again, as `retrieveHand` (the server dealt
    /// the cards). The venue's staff.
    async fn retrieve_cash_hand(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: RetrieveCashHandInput,
    ) -> ApiResult<CashTablePayload> {
        let command = CashCommand::Hand(HandCommand::Retrieve {
            seat: input.seat,
            cards: None,
            reason: reason(input.reason)?,
        });
        staff(ctx, &input.table, command, input.idempotency_key).await
    }

    /// A player's request to see a hand mucked at the showdown, as `seeHand` (the server
    /// dealt the cards). The venue's staff.
    async fn see_cash_hand(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: SeeCashHandInput,
    ) -> ApiResult<CashTablePayload> {
        let command = CashCommand::Hand(HandCommand::SeeHand {
            seat: input.seat,
            asked_by: input.asked_by,
            cards: None,
        });
        staff(ctx, &input.table, command, input.idempotency_key).await
    }
}
