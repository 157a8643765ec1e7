//! Penalties as the API shows and takes them: the kinds `penalise` gives, each penalty
//! given, the least a repeat offender's next may be, and who is sitting out.

use async_graphql::{Enum, ID, SimpleObject};
use league_engine::tournament::play::{GivenPenalty, Penalty};

use crate::schema::scalars::Chips;

/// A penalty.
#[derive(Enum, Copy, Clone, Debug, PartialEq, Eq)]
pub enum PenaltyKind {
    /// A warning; no hands missed.
    Warning,
    /// Misses `count` hands: dealt in, blinded and folded as if absent.
    MissHands,
    /// Misses `count` rounds: as many hands as there are players at the table, times
    /// `count`.
    MissRounds,
    /// Disqualifies the player, between hands at their table: their chips are removed from
    /// play and they are out.
    Disqualify,
    /// Removes `chips` of the player's chips from play, between hands at their table; the
    /// player stays in (WPH 50's forfeiture; chips taken out of view, WPH 44, QueenSix
    /// tournament 25). Fewer than all their chips, in the smallest chip in play.
    Forfeit,
    /// Eliminates the player, between hands at their table: their chips are removed from
    /// play and they finish in the place they went out in (Oracle tournament 4.5).
    Eliminate,
}

impl PenaltyKind {
    pub fn of(penalty: Penalty) -> PenaltyKind {
        match penalty {
            Penalty::Warning => PenaltyKind::Warning,
            Penalty::MissHands(_) => PenaltyKind::MissHands,
            Penalty::MissRounds(_) => PenaltyKind::MissRounds,
            Penalty::Disqualify => PenaltyKind::Disqualify,
            Penalty::Forfeit(_) => PenaltyKind::Forfeit,
            Penalty::Eliminate => PenaltyKind::Eliminate,
        }
    }
}

/// A penalty the staff gave.
#[derive(SimpleObject, Clone, Debug)]
pub struct PenaltyOut {
    /// The player's id.
    pub player: ID,
    /// What kind of penalty.
    pub kind: PenaltyKind,
    /// For missed hands or rounds, how many (as `penalise` took it).
    pub count: Option<u32>,
    /// For a forfeiture, the chips removed from play.
    pub chips: Option<Chips>,
    /// The hands the player sits out for it (0 for a warning, a forfeiture or one that put
    /// them out).
    pub hands: u32,
    /// The house's penalty rule it was given under.
    pub rule: String,
    /// As the host says it: "1 round missed", "500 chips forfeited".
    pub text: String,
}

impl From<&GivenPenalty> for PenaltyOut {
    fn from(g: &GivenPenalty) -> PenaltyOut {
        let (count, chips) = match g.penalty {
            Penalty::MissHands(n) | Penalty::MissRounds(n) => (Some(n), None),
            Penalty::Forfeit(c) => (None, Some(Chips(c))),
            _ => (None, None),
        };
        PenaltyOut {
            player: ID(g.player.to_string()),
            kind: PenaltyKind::of(g.penalty),
            count,
            chips,
            hands: g.hands,
            rule: g.rule.clone(),
            text: g.penalty.to_string(),
        }
    }
}

/// A player sitting out a missed-hands penalty.
#[derive(SimpleObject, Clone, Debug)]
pub struct SittingOut {
    /// The player's id.
    pub player: ID,
    /// The penalty hands still to sit out.
    pub hands_left: u32,
}

/// The least penalty a player's next infraction may get where the house escalates repeat
/// infractions (WPH 47, Oracle tournament 4).
#[derive(SimpleObject, Clone, Debug)]
pub struct LeastPenalty {
    /// The kind: a heavier rung is allowed too; a forfeiture of chips at any time.
    pub kind: PenaltyKind,
    /// For missed hands or rounds, how many.
    pub count: Option<u32>,
    /// As the host says it: "1 hand missed".
    pub text: String,
}
