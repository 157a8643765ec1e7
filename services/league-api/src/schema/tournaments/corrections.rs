//! Corrections by the venue's staff: cancelling a tournament, reinstating a player
//! eliminated by mistake, voiding a hand. Each appends an event of its own carrying the
//! staff's reason (the log's metadata names the token that sent it); nothing recorded
//! before is changed.

use async_graphql::{Context, Enum, Object};
use league_engine::card::Card;
use league_engine::hand::{Command as HandCommand, VoidReason};
use league_engine::tournament::play::TournamentCommand;
use league_engine::units::PlayerId;

use super::arguments::*;
use super::mutation::staff_command;
use crate::error::{ApiError, ApiResult};

/// Why a hand is void.
#[derive(Enum, Copy, Clone, Debug, PartialEq, Eq)]
pub enum VoidKind {
    /// A misdeal (an exposed first or second hole card, cards to the wrong seat, ...):
    /// only before the house's cut-off (QueenSix: before two players have acted and never
    /// after the big blind; WPH 28: before substantial action; Oracle: before two players
    /// after the blinds have acted). Refused after it: the hand is played out.
    Misdeal,
    /// A defective deck (a card with a different back, a marked or damaged card): void
    /// whenever it is found.
    DeckDefect,
    /// Two cards of the same rank and suit found (`card` names it): void whenever found.
    DuplicateCard,
}

/// A void or killed hand's reason as staff give it: 1 to 200 characters, not all blank, no
/// control characters (the tournament engine checks the other corrections' reasons itself).
pub(crate) fn reason(text: String) -> ApiResult<String> {
    if league_engine::units::is_text(&text) {
        Ok(text.trim().to_owned())
    } else {
        Err(ApiError::bad_field(
            "reason",
            format!("reason: {}", league_engine::units::TEXT_RULE),
        ))
    }
}

#[derive(Default)]
pub struct CorrectionMutation;

#[Object]
impl CorrectionMutation {
    /// Cancels a scheduled or running tournament: nothing more is played, every command
    /// to it is refused (`TOURNAMENT_CANCELLED`), and every entrant is refunded what they
    /// paid (entries, re-buys, add-ons and fees; the tournament's `cancelled` lists each
    /// refund). A finished tournament is corrected in its league (`amendTournament`). The
    /// venue's staff.
    async fn cancel_tournament(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: CancelTournamentInput,
    ) -> ApiResult<CancelTournamentPayload> {
        let CancelTournamentInput {
            tournament_id,
            reason,
            idempotency_key,
        } = input;
        let tournament_id = tournament_id.0;
        // The engine checks the reason (`BAD_INPUT` on `reason`).
        let command = TournamentCommand::Cancel { reason };
        staff_command(ctx, tournament_id, command, idempotency_key).await
    }

    /// Results tracking: brings back a player eliminated by mistake (or busted by mistake
    /// and still to decide on a re-buy, who then buys none), at their seat if it is still
    /// open (else the first open seat at the table with the fewest players), with
    /// the chips they were eliminated with, taken back from the player who was given them
    /// (or from the chips nobody was given yet). Their elimination no longer counts: places
    /// are worked out again, and a knockout credited for it is taken back. Refused once
    /// those chips have been counted into other stacks (`recordChips`) or given on, and
    /// once the tournament has finished (then `amendTournament`). The venue's staff.
    async fn reinstate(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: ReinstateInput,
    ) -> ApiResult<ReinstatePayload> {
        let ReinstateInput {
            tournament_id,
            player,
            reason,
            idempotency_key,
        } = input;
        let tournament_id = tournament_id.0;
        let player = player.0;
        let command = TournamentCommand::Reinstate {
            player: PlayerId::from(player),
            reason,
        };
        staff_command(ctx, tournament_id, command, idempotency_key).await
    }

    /// Puts a stack right after a hand, within the dispute window: between a table's last
    /// hand and its next (starting the next hand closes it), `chips` move from one player
    /// to another, both seated at that table (a pot pushed to the wrong player, a bet paid
    /// from the wrong stack). The table's chips stay the same. Dealt or recorded tracking
    /// (results tracking counts the stacks with `recordChips`). Refused during a hand
    /// (`RULE_VIOLATION`), at a table that has played no hand yet, for a player not seated
    /// there, and when `from` would be left with no chips: a player is put out by the
    /// hand's rulings (`voidHand` while the hand runs), not by a correction. The log
    /// records the table's hand it follows and the reason. The venue's staff.
    async fn correct_chips(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: CorrectChipsInput,
    ) -> ApiResult<CorrectChipsPayload> {
        let CorrectChipsInput {
            tournament_id,
            table,
            from,
            to,
            chips,
            reason,
            idempotency_key,
        } = input;
        let command = TournamentCommand::CorrectChips {
            table,
            from: PlayerId::from(from.0),
            to: PlayerId::from(to.0),
            chips: chips.0,
            reason,
        };
        staff_command(ctx, tournament_id.0, command, idempotency_key).await
    }

    /// Puts a player recorded in the wrong seat in the one they belong in, with the chips
    /// they have (WPH 5: "moved to the correct seat and will take his current total
    /// chipstack with him"): at the same table or another, between hands at both. The
    /// seat may be open, or held by the player who took `player`'s: the two change seats
    /// (a stack that went with the wrong player is put right with `correctChips`). The
    /// tables are then balanced by the house's rule, as after any move, and the blinds
    /// follow the seats. Refused while a hand runs at either table, for a player not
    /// seated (`RULE_VIOLATION`), and for a seat outside the table or the player's own
    /// (`BAD_INPUT`, field `seat`). The venue's staff; the log records both seats and
    /// the reason.
    async fn correct_seat(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: CorrectSeatInput,
    ) -> ApiResult<CorrectSeatPayload> {
        let CorrectSeatInput {
            tournament_id,
            player,
            table,
            seat,
            reason,
            idempotency_key,
        } = input;
        let command = TournamentCommand::CorrectSeat {
            player: PlayerId::from(player.0),
            table,
            seat,
            reason,
        };
        staff_command(ctx, tournament_id.0, command, idempotency_key).await
    }

    /// Puts the button right after a hand played with it out of position: between the
    /// table's last hand and its next, the next hand's button goes to `button` (a
    /// player's seat) and the blinds follow it (Oracle Irregularities 1: "the button and
    /// blinds will be corrected for the new hand"); the dead button's rotation starts
    /// again from there; the table's `nextHand` shows it until that hand starts. Dealt or
    /// recorded tracking. Refused during a hand, before the table's first hand (its button is
    /// drawn), at an empty seat, and where the button is already due (`RULE_VIOLATION`);
    /// a seat outside the table is `BAD_INPUT` (field `button`). The venue's staff.
    async fn correct_button(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: CorrectButtonInput,
    ) -> ApiResult<CorrectButtonPayload> {
        let CorrectButtonInput {
            tournament_id,
            table,
            button,
            reason,
            idempotency_key,
        } = input;
        let command = TournamentCommand::CorrectButton {
            table,
            button,
            reason,
        };
        staff_command(ctx, tournament_id.0, command, idempotency_key).await
    }

    /// Voids the hand in progress at a table (dealt or recorded tracking): every chip put
    /// in returns to the seat that put it in, and the next hand is re-dealt with the same
    /// button and blinds. The void hand is no hand played: it is not the table's hand of a
    /// hand-for-hand round, and a player serving a missed-hands penalty still has it to
    /// miss. A misdeal only before the house's cut-off; a defective deck or a duplicate card
    /// whenever it is found. The venue's staff.
    async fn void_hand(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: VoidHandInput,
    ) -> ApiResult<VoidHandPayload> {
        let VoidHandInput {
            tournament_id,
            table,
            kind,
            reason,
            card,
            idempotency_key,
        } = input;
        let tournament_id = tournament_id.0;
        let reason = match (kind, reason, card) {
            (VoidKind::DuplicateCard, None, Some(card)) => {
                let card: Card = card.parse().map_err(|_| {
                    ApiError::bad_field("card", format!("card: not a card: {card:?}"))
                })?;
                VoidReason::DuplicateCard(card)
            }
            (VoidKind::DuplicateCard, _, None) => {
                return Err(ApiError::bad_field(
                    "card",
                    "card: DUPLICATE_CARD names the card found twice",
                ));
            }
            (VoidKind::DuplicateCard, Some(_), Some(_)) => {
                return Err(ApiError::bad_field(
                    "reason",
                    "reason: DUPLICATE_CARD's record is the card; leave the reason out",
                ));
            }
            (_, _, Some(_)) => {
                return Err(ApiError::bad_field(
                    "card",
                    "card: only DUPLICATE_CARD names a card",
                ));
            }
            (_, None, None) => {
                return Err(ApiError::bad_field(
                    "reason",
                    "reason: say what happened (a misdeal or a defective deck)",
                ));
            }
            (VoidKind::Misdeal, Some(text), None) => VoidReason::Misdeal(self::reason(text)?),
            (VoidKind::DeckDefect, Some(text), None) => VoidReason::DeckDefect(self::reason(text)?),
        };
        let command = TournamentCommand::Hand {
            table,
            command: HandCommand::Void { reason },
        };
        staff_command(ctx, tournament_id, command, idempotency_key).await
    }
}
