//! Hand histories: a tournament's completed hands as PHH or PokerStars-style text, for a
//! player (the hands they were dealt into, with their own cards and the hands shown) and for
//! an auditor or admin whose scope takes in the tournament (every card).

use async_graphql::{Context, Enum, ID, Object, SimpleObject};
use league_app::audit::{LoggedHand, hands_of};
use league_store::StoreError;

use super::stream_of;
use crate::auth::Principal;
use crate::error::{ApiError, ApiResult};
use crate::schema::scalars::Micros;
use crate::schema::{Position, principal, state};

/// Most hands in one answer.
const MAX_HANDS: usize = 1_000;

/// A hand history's text format.
#[derive(Enum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum HandHistoryFormat {
    /// The Poker Hand History format (`phh.readthedocs.io`), which PokerKit replays: with
    /// `finishing_stacks`, the players, the hand id, and `_position` (the log position of
    /// the event that started the hand) and `_odd_chips` (the house's odd-chip rule).
    Phh,
    /// The PokerStars hand-history layout tracking software imports: the hand number is
    /// the log position of the event that started the hand.
    Pokerstars,
}

/// One completed hand.
#[derive(SimpleObject, Clone, Debug)]
pub struct HandHistory {
    /// The hand's id: the one its command named, or the derived one (`docs/graphql.md`,
    /// "Hand ids").
    pub hand_id: ID,
    /// The hand's place among the tournament's hands, from 1, in log order.
    pub number: u32,
    /// The table, from 1.
    pub table: u32,
    /// The log position of the event that started the hand.
    pub position: Position,
    /// When it started, in microseconds since the Unix epoch.
    pub started_at: Micros,
    /// The players dealt in, by their ids (an unsold seat's stack, dealt in too, is
    /// nobody's: the text names it `unsold seat N`).
    pub players: Vec<ID>,
    /// The hand in the format asked for.
    pub text: String,
}

#[derive(Default)]
pub struct HandHistoryQuery;

#[Object]
impl HandHistoryQuery {
    /// A tournament's completed hands, in order, as text: a player gets the hands they
    /// were dealt into (their own hole cards and the hands shown); an auditor or admin whose
    /// scope takes in the tournament's venue gets every hand with every card. A hand still
    /// running is not listed; nor is a voided one (its chips went back; neither format can
    /// say so), nor in PHH a hand whose killed hand had no turn left to fold (PokerStars text
    /// folds it where the floor killed it). At most `first` hands (default and most 1,000) after hand number
    /// `afterNumber`.
    async fn hand_history(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "The tournament's id, as scheduled.")] tournament_id: ID,
        #[graphql(
            desc = "PHH (default) or POKERSTARS.",
            default_with = "HandHistoryFormat::Phh"
        )]
        format: HandHistoryFormat,
        #[graphql(desc = "Only this hand.")] hand_id: Option<ID>,
        #[graphql(desc = "Only the hands after this number.")] after_number: Option<u32>,
        #[graphql(desc = "How many hands at most (default and most 1,000).")] first: Option<u32>,
    ) -> ApiResult<Vec<HandHistory>> {
        let state = state(ctx)?;
        let caller = principal(ctx);
        let stream = stream_of(&tournament_id);
        let known = state.live.read().version(&stream) > 0;
        if !known {
            return Err(ApiError::not_found(format!(
                "no tournament {:?}",
                tournament_id.as_str()
            )));
        }
        // Who reads which hands: an auditor or admin of the tournament's league every
        // hand, a player their own.
        let player = match &caller {
            Principal::Player { player, .. } => Some(player.clone()),
            Principal::Admin { .. } | Principal::Auditor { .. } => {
                if !caller.reads_stream(&stream, &state.live.read()) {
                    return Err(ApiError::forbidden(
                        "this tournament is at a venue outside your token's league",
                    ));
                }
                None
            }
            Principal::Anonymous | Principal::Host { .. } => {
                caller.require_auditor()?;
                None
            }
        };
        let events = match state.store.read_stream(&stream, 1).await {
            Ok(events) => events,
            Err(StoreError::StreamNotFound(_)) => Vec::new(),
            Err(e) => return Err(e.into()),
        };
        let first = first
            .map_or(MAX_HANDS, |n| usize::try_from(n).unwrap_or(MAX_HANDS))
            .clamp(1, MAX_HANDS);
        let mut out = Vec::new();
        for hand in hands_of(&events).map_err(ApiError::from)? {
            if out.len() == first {
                break;
            }
            if hand.voided()
                || (format == HandHistoryFormat::Phh && hand.phh_cannot_record_its_kills())
                || after_number.is_some_and(|n| hand.ordinal <= n)
                || hand_id.as_ref().is_some_and(|id| id.as_str() != hand.id)
            {
                continue;
            }
            let hand = match &player {
                Some(player) => match hand.seen_by(player) {
                    Some(seen) => seen,
                    None => continue,
                },
                None => hand,
            };
            out.push(history(&hand, format)?);
        }
        Ok(out)
    }
}

fn history(hand: &LoggedHand, format: HandHistoryFormat) -> ApiResult<HandHistory> {
    let text = match format {
        HandHistoryFormat::Phh => hand.phh(),
        HandHistoryFormat::Pokerstars => hand.pokerstars(),
    }
    .map_err(|why| {
        ApiError::internal(format!(
            "the hand at position {} cannot be written: {why}",
            hand.position
        ))
    })?;
    let Some(league_engine::hand::Event::HandStarted { setup }) = hand.events.first() else {
        return Err(ApiError::internal("a hand without its start"));
    };
    let players = setup
        .seats
        .iter()
        .filter_map(|s| hand.players.get(&s.seat))
        .filter(|p| league_engine::units::is_id(p))
        .map(|p| ID(p.clone()))
        .collect();
    Ok(HandHistory {
        hand_id: ID(hand.id.clone()),
        number: hand.ordinal,
        table: hand.table,
        position: Position(hand.position),
        started_at: Micros(hand.started_at.saturating_mul(1000)),
        players,
        text,
    })
}
