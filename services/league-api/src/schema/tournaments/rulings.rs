//! The floor's rulings at a table, by the venue's staff: calling the clock on the player to
//! act, recording an action taken out of turn for the house's rule to settle, killing a
//! hand, ruling a call not binding, taking a player's aggressive action away, and a pot in
//! dispute: impounding it, retrieving a mucked hand, a player's request to see one.
//! (Voiding a hand is a correction: [`super::corrections`].)

use async_graphql::{Context, Enum, Object};
use league_engine::hand::{Command as HandCommand, KillCause, Seat};
use league_engine::tournament::play::TournamentCommand;

use super::arguments::*;
use super::corrections::reason;
use super::mutation::{action, staff_command, two_cards};
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

    /// Rules the call at `seat` not binding (`CallRetracted`, with the chips and the reason):
    /// the caller grossly misunderstood the amount wagered (QueenSix NLHE 10; its example
    /// 10.1: a 500 chip put in and "four hundred" said softly, a 100 chip and "call", the
    /// bettor shows at once). The chips the call put in go back to the caller and the hand
    /// is folded; a bet it leaves uncalled goes back to the bettor, and a hand left alone
    /// wins. Heard for a call made on this street that no bet or raise has followed, from a
    /// hand not tabled face up, until the pot is awarded: at the showdown too (impound the
    /// pot first if the last hand might show or muck before the ruling). Refused
    /// (`RULE_VIOLATION`) outside those, and at every other house, whose books make a call
    /// binding; a blank reason is `BAD_INPUT` (field `reason`). Hand histories (PHH,
    /// PokerStars) record the call as the fold it became. The venue's staff.
    async fn retract_call(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: RetractCallInput,
    ) -> ApiResult<RetractCallPayload> {
        let RetractCallInput {
            tournament_id,
            table,
            seat,
            reason: text,
            idempotency_key,
        } = input;
        let command = TournamentCommand::Hand {
            table,
            command: HandCommand::RetractCall {
                seat,
                reason: reason(text)?,
            },
        };
        staff_command(ctx, tournament_id.0, command, idempotency_key).await
    }

    /// Takes away the aggressive action of the player at `seat` for the rest of the hand
    /// (`AggressionForfeited`, with the reason): from now they may check, call or fold, and a
    /// bet or raise of theirs is refused (`RULE_VIOLATION`); what they have put in stands,
    /// and the table's `legalActions` offer them no bet or raise. Oracle's exposing cards 1
    /// and 2 (a card exposed after betting: "the bet will stand. This player will be
    /// penalized for the remainder of the hand") and four-card flop 3.5; Hippodrome's
    /// irregularities 9 (a card flashed by its player) and showdown 5 at its cash tables
    /// (`forfeitCashAggression`). Refused (`RULE_VIOLATION`) at the other houses, whose
    /// books have no such penalty; for a hand folded, all-in or tabled face up; once no
    /// betting remains; and a second time in a hand. A blank reason is `BAD_INPUT` (field
    /// `reason`). The venue's staff.
    async fn forfeit_aggression(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: ForfeitAggressionInput,
    ) -> ApiResult<ForfeitAggressionPayload> {
        let ForfeitAggressionInput {
            tournament_id,
            table,
            seat,
            reason: text,
            idempotency_key,
        } = input;
        let command = TournamentCommand::Hand {
            table,
            command: HandCommand::ForfeitAggression {
                seat,
                reason: reason(text)?,
            },
        };
        staff_command(ctx, tournament_id.0, command, idempotency_key).await
    }

    /// Impounds the pot at the table pending the floor's decision (`PotImpounded`): the hand
    /// plays on, but when its last hand has shown or mucked (or every other hand folded)
    /// nothing is awarded until `releasePot`, and the table starts no next hand. Impound
    /// before the last hand shows or mucks to keep a dispute about the showdown open:
    /// `retrieveHand` and `seeHand` are heard only until the pot is awarded. Refused
    /// (`RULE_VIOLATION`) between hands and when the pot is already impounded; a blank
    /// reason is `BAD_INPUT` (field `reason`). The venue's staff.
    async fn impound_pot(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: PotRulingInput,
    ) -> ApiResult<PotRulingPayload> {
        let PotRulingInput {
            tournament_id,
            table,
            reason: text,
            idempotency_key,
        } = input;
        let command = TournamentCommand::Hand {
            table,
            command: HandCommand::Impound {
                reason: reason(text)?,
            },
        };
        staff_command(ctx, tournament_id.0, command, idempotency_key).await
    }

    /// Releases an impounded pot (`PotReleased`): it is awarded at once as the hands now
    /// stand, and the table plays on. Refused (`RULE_VIOLATION`) when the pot is not
    /// impounded. The venue's staff.
    async fn release_pot(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: PotRulingInput,
    ) -> ApiResult<PotRulingPayload> {
        let PotRulingInput {
            tournament_id,
            table,
            reason: text,
            idempotency_key,
        } = input;
        let command = TournamentCommand::Hand {
            table,
            command: HandCommand::Release {
                reason: reason(text)?,
            },
        };
        staff_command(ctx, tournament_id.0, command, idempotency_key).await
    }

    /// Rules a hand mucked at the showdown live again (`HandRetrieved`), its cards turned
    /// face up: it competes for the pot as if shown (QueenSix dead hand 2, WPH RP 7.2,
    /// Oracle dead hands 1.6: "a hand that is clearly identifiable may be retrieved").
    /// Heard until the pot is awarded (impound it first to keep the showdown open).
    /// Refused (`RULE_VIOLATION`) for a hand not mucked at the showdown or already turned
    /// up, outside the showdown, once the pot is awarded, and at the invitational (6: a
    /// mucked hand is discarded). Recorded tracking names the two `cards` unless they were
    /// recorded; a dealt hand's are the server's and may not be named. The venue's staff.
    async fn retrieve_hand(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: RetrieveHandInput,
    ) -> ApiResult<RetrieveHandPayload> {
        let RetrieveHandInput {
            tournament_id,
            table,
            seat,
            cards,
            reason: text,
            idempotency_key,
        } = input;
        let cards = cards.map(|c| two_cards(&c)).transpose()?;
        let command = TournamentCommand::Hand {
            table,
            command: HandCommand::Retrieve {
                seat,
                cards,
                reason: reason(text)?,
            },
        };
        staff_command(ctx, tournament_id.0, command, idempotency_key).await
    }

    /// A player's request to see a hand mucked at the showdown ("may I see that hand"),
    /// settled by the house's rule (`HandSeenOnRequest`, with `live` and the rule): the
    /// cards are turned face up, and the hand is live again where the rule says so.
    /// QueenSix showdown 5 and Hippodrome showdown 4: the winner's request makes it live,
    /// anyone else's shows it dead, and only a player in the showdown may ask. Oracle
    /// showdown 5, as written: a request by a player other than the pot winner makes it
    /// live. WPH 10C (a privilege the director grants), the invitational and WSOP: shown,
    /// dead; at WSOP only a player still holding cards may ask. The winner is the hand
    /// that wins a pot as the hands stand, so every hand still in must be shown. Heard
    /// until the pot is awarded; refused (`RULE_VIOLATION`) as `retrieveHand` is, and for
    /// a player the house does not let ask. The venue's staff, who record the request.
    async fn see_hand(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: SeeHandInput,
    ) -> ApiResult<SeeHandPayload> {
        let SeeHandInput {
            tournament_id,
            table,
            seat,
            asked_by,
            cards,
            idempotency_key,
        } = input;
        let cards = cards.map(|c| two_cards(&c)).transpose()?;
        let command = TournamentCommand::Hand {
            table,
            command: HandCommand::SeeHand {
                seat,
                asked_by,
                cards,
            },
        };
        staff_command(ctx, tournament_id.0, command, idempotency_key).await
    }
}
