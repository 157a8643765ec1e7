//! The floor's rulings at a table, by the venue's staff: calling the clock on the player to
//! act, and recording an action taken out of turn for the house's rule to settle. (Voiding
//! a hand is a correction: [`super::corrections`].)

use async_graphql::{Context, Object};
use league_engine::hand::Command as HandCommand;
use league_engine::tournament::play::TournamentCommand;

use super::arguments::*;
use super::mutation::{action, staff_command};
use crate::error::ApiResult;
use crate::schema::now_millis;

#[derive(Default)]
pub struct RulingMutation;

#[Object]
impl RulingMutation {
    /// Calls the clock on `seat`, the player to act at the table: from now they have the
    /// house's time and its final countdown (QueenSix 30 s; WPH, Oracle, the invitational
    /// 60 s + 10 s; Hippodrome 10 s), and the server kills their hand (a fold,
    /// `ClockExpired`) when it runs out before they act. The table's `clock` shows when it
    /// runs out; acting, or the hand ending, stops it. Refused while a clock already runs at
    /// the table (`RULE_VIOLATION`), then when `seat` is not the player to act
    /// (`NOT_YOUR_TURN`, with `expected`). The venue's staff.
    async fn call_clock(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: CallClockInput,
    ) -> ApiResult<CallClockPayload> {
        let CallClockInput {
            tournament_id,
            table,
            seat,
            idempotency_key,
        } = input;
        let command = TournamentCommand::CallClock {
            table,
            seat,
            at: now_millis(ctx),
        };
        staff_command(ctx, tournament_id.0, command, idempotency_key).await
    }

    /// Records an action a player took out of turn (one may wait per table; the table's
    /// `outOfTurn` shows it). Nothing is taken now; when the player's turn comes the house's
    /// rule settles it (`OutOfTurnRuled` in the log): a binding action, or a forced call or
    /// check, is taken for the seat at once; otherwise the player may not raise, or is
    /// released to act freely, as `legalActions` then show. QueenSix betting 5, WPH 31 and
    /// 40, Oracle 8, the invitational 5.3 and 5.5, Hippodrome 5, as `docs/rulebooks.md`
    /// gives them. An action by the player to act is taken as an ordinary action. Refused
    /// for a seat with no action due (`RULE_VIOLATION`). The venue's staff.
    async fn act_out_of_turn(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: ActOutOfTurnInput,
    ) -> ApiResult<ActOutOfTurnPayload> {
        let ActOutOfTurnInput {
            tournament_id,
            table,
            seat,
            action: kind,
            amount,
            idempotency_key,
        } = input;
        let command = TournamentCommand::Hand {
            table,
            command: HandCommand::OutOfTurn {
                seat,
                action: action(kind, amount)?,
            },
        };
        staff_command(ctx, tournament_id.0, command, idempotency_key).await
    }
}
