//! The floor's rulings at a table, by the venue's staff: calling the clock on the player to
//! act, recording an action taken out of turn for the house's rule to settle, and killing
//! a hand. (Voiding a hand is a correction: [`super::corrections`].)

use async_graphql::{Context, Enum, Object};
use league_engine::hand::{Command as HandCommand, KillCause, Seat};
use league_engine::tournament::play::TournamentCommand;

use super::arguments::*;
use super::corrections::reason;
use super::mutation::{action, staff_command};
use crate::error::ApiResult;
use crate::schema::now_millis;

/// Why the floor declares a hand dead.
#[derive(Enum, Copy, Clone, Debug, PartialEq, Eq)]
#[graphql(name = "KillCause")]
pub enum HandKillCause {
    /// Its cards were exposed where the house's rule makes that a dead hand.
    Exposed,
    /// The player made it clear they meant to fold (WPH 46: "a player's hand is declared
    /// dead when it is clear that their intention was to fold").
    ClearIntent,
    /// Fouled: touched the muck, the wrong number of cards, a card from another deck.
    Fouled,
    /// A penalty the tournament director gives (Oracle tournament 4.3).
    Penalty,
}

impl From<HandKillCause> for KillCause {
    fn from(cause: HandKillCause) -> KillCause {
        match cause {
            HandKillCause::Exposed => KillCause::Exposed,
            HandKillCause::ClearIntent => KillCause::ClearIntent,
            HandKillCause::Fouled => KillCause::Fouled,
            HandKillCause::Penalty => KillCause::Penalty,
        }
    }
}

/// The command that kills the hand at `seat`, its reason checked as a correction's is.
pub(crate) fn kill(seat: Seat, cause: HandKillCause, text: String) -> ApiResult<HandCommand> {
    Ok(HandCommand::Kill {
        seat,
        cause: cause.into(),
        reason: reason(text)?,
    })
}

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

    /// Declares the hand at `seat` dead (`HandKilled` in the log, with the cause and
    /// reason): exposed, a clear intention to fold, fouled, a penalty. In or out of its
    /// turn, at any point of the betting or the showdown: the hand is folded at once, can
    /// win nothing, and the chips it put in stay in the pot; if it was to act, the turn
    /// passes on, and a hand left alone wins. Refused (`RULE_VIOLATION`) for a seat that
    /// holds no live hand (folded, mucked, not dealt in), between hands, for a hand whose
    /// bet or raise nobody has called while other hands are still in (the house returns an
    /// uncalled bet to a killed hand: kill it once the bet is called or the round is over),
    /// for a hand tabled face up (WPH 11), and for cards exposed at WPH (rule 49: no dead
    /// hand); a blank reason is `BAD_INPUT` (field `reason`). Hand histories (PHH,
    /// PokerStars text) fold the killed hand at its next turn. The venue's staff.
    async fn kill_hand(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: KillHandInput,
    ) -> ApiResult<KillHandPayload> {
        let KillHandInput {
            tournament_id,
            table,
            seat,
            cause,
            reason,
            idempotency_key,
        } = input;
        let command = TournamentCommand::Hand {
            table,
            command: kill(seat, cause, reason)?,
        };
        staff_command(ctx, tournament_id.0, command, idempotency_key).await
    }
}
