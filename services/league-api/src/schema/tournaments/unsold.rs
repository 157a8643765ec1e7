//! Unsold seats: a starting stack the venue's staff place in an empty seat, dealt in and
//! blinded as an absent player's, and the director's removing it, [`UnsoldSeatMutation`].

use async_graphql::{Context, Object};
use league_engine::tournament::play::TournamentCommand;

use super::arguments::*;
use super::mutation::staff_command;
use crate::error::ApiResult;

#[derive(Default)]
pub struct UnsoldSeatMutation;

#[Object]
impl UnsoldSeatMutation {
    /// Places the starting stack in an empty seat, between hands at its table: an unsold
    /// seat (invitational 2.7: "Unsold seats will have a chip stack, and blinds will be
    /// taken from their stacks"; QueenSix tournament 4: a stack "placed in a seat to
    /// accommodate late entrants"). The stack is dealt in, blinded and its hand folded (or
    /// dead at the deal, where the house kills absent hands) as an absent player's; it has
    /// no player, place, prize or points, and is not counted among the players left. The
    /// table shows it in `unsoldSeats`. At QueenSix the next late entrant (`lateEntry`)
    /// takes such a stack, with the blinds it has paid. Dealt or recorded tracking; other
    /// houses' books have no such stack (`RULE_VIOLATION`). Refused during the table's
    /// hand, and at a taken or missing seat (`RULE_VIOLATION`). The venue's staff.
    async fn place_unsold_stack(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: PlaceUnsoldStackInput,
    ) -> ApiResult<PlaceUnsoldStackPayload> {
        let PlaceUnsoldStackInput {
            tournament_id,
            table,
            seat,
            idempotency_key,
        } = input;
        let command = TournamentCommand::PlaceUnsoldStack { table, seat };
        staff_command(ctx, tournament_id.0, command, idempotency_key).await
    }

    /// The director removes an unsold seat's stack from play, between hands at its table
    /// (invitational 2.7: "If the seat remains empty, the stacks will be removed by the
    /// director"; QueenSix tournament 4: "at a time left to the discretion of the Host").
    /// The blinds it lost stay with the players who won them. A stack also leaves play by
    /// itself when it has no chips left, when its table breaks, when the seats are redrawn
    /// and when the tournament ends; the chip race waits until every such stack is removed.
    /// The venue's staff.
    async fn remove_unsold_stack(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: RemoveUnsoldStackInput,
    ) -> ApiResult<RemoveUnsoldStackPayload> {
        let RemoveUnsoldStackInput {
            tournament_id,
            table,
            seat,
            reason,
            idempotency_key,
        } = input;
        let command = TournamentCommand::RemoveUnsoldStack {
            table,
            seat,
            reason,
        };
        staff_command(ctx, tournament_id.0, command, idempotency_key).await
    }
}
