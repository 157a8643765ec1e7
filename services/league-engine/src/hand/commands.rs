//! The commands a hand takes: actions, dealing, showing, voiding.

use super::*;

/// What a player does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum Action {
    Fold,
    Check,
    Call,
    /// Bet to this amount (no bet is facing the player).
    Bet(u64),
    /// Raise to this total for the round.
    RaiseTo(u64),
    /// Everything the player has: a call, bet or raise as the amount makes it.
    AllIn,
}

/// Why a hand is void.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum VoidReason {
    /// A misdeal declared before the house's cut-off.
    Misdeal(String),
    /// Two cards of the same rank and suit: all action is void whenever it is found.
    DuplicateCard(Card),
    /// A card with a different back, or any other defect of the deck.
    DeckDefect(String),
}

/// The reason a hand killed at the deal for its player's absence gives ([`KillCause::Absent`]).
pub const ABSENT_AT_THE_DEAL: &str = "not at the table when the deal ended";

/// Why the floor declares a hand dead.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum KillCause {
    /// Its cards were exposed where the house's rule makes that a dead hand.
    Exposed,
    /// The player made it clear they meant to fold (WPH 46): released toward the muck,
    /// or said so.
    ClearIntent,
    /// Fouled: touched the muck, the wrong number of cards, a card from another deck.
    Fouled,
    /// A penalty the tournament director gives (Oracle tournament 4.3: "have a hand
    /// declared dead").
    Penalty,
    /// Not at the table when every player had their starting hand: the dealer kills the
    /// hands of absent players once the deal ends (QueenSix tournament 10, Oracle
    /// tournament 1). The engine gives it at the deal where the setup says so
    /// ([`HandSetup::absent_hands_dead`](super::HandSetup::absent_hands_dead)), and only to
    /// a player dealt in absent.
    Absent,
}

/// A command to the hand.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum Command {
    /// Start the hand. `seed` is required for seeded dealing and must match the setup's
    /// commitment.
    Start {
        setup: HandSetup,
        seed: Option<Seed>,
    },
    /// Record a player's hole cards (recorded dealing, or a hand history).
    DealHole { seat: Seat, cards: [Card; 2] },
    /// A player's action.
    Act { seat: Seat, action: Action },
    /// Record the next board cards (recorded dealing): three for the flop, then one.
    DealBoard { cards: Vec<Card> },
    /// Show a hand at the showdown; `None` shows the cards already known to the engine.
    Show {
        seat: Seat,
        cards: Option<[Card; 2]>,
    },
    /// Give up the pot at the showdown without showing.
    Muck { seat: Seat },
    /// The player to act ran out of time: the hand is dead.
    ClockExpired { seat: Seat },
    /// Void the hand: a misdeal (only before the house's cut-off) or a defective deck.
    Void { reason: VoidReason },
    /// A player acted before their turn (one such declaration may wait at a time). It is
    /// ruled on by the house's out-of-turn rule when the turn comes.
    OutOfTurn { seat: Seat, action: Action },
    /// The floor declares a live hand dead, in or out of its turn: it can win nothing and
    /// the chips it put in stay in the pot. A hand whose bet or raise nobody has called
    /// yet is killed only when that leaves one hand (the bet then goes back, WPH 45).
    Kill {
        seat: Seat,
        cause: KillCause,
        reason: String,
    },
    /// A player's answer when the table offers to run the rest of the board twice.
    RunTwice { seat: Seat, agree: bool },
    /// The floor holds the pot pending a decision: the hand plays on, but nothing is
    /// awarded until [`Command::Release`].
    Impound { reason: String },
    /// The floor's decision is made: the impounded pot is awarded as the hands stand.
    Release { reason: String },
    /// The floor rules a hand mucked at the showdown, its cards still identifiable, live
    /// again (QueenSix dead hand 2, WPH RP 7.2, Oracle dead hands 1.6). `cards` as for
    /// [`Command::Show`]: none in a seeded hand, the two turned up in a recorded one.
    Retrieve {
        seat: Seat,
        cards: Option<[Card; 2]>,
        reason: String,
    },
    /// The floor rules the call at `seat` not binding: the caller grossly misunderstood
    /// the amount wagered (QueenSix NLHE 10 and its example 10.1). The chips the call put
    /// in go back to the caller and the hand is folded. Only a call made on this street
    /// that no bet or raise has followed, from a hand not yet tabled, before any pot is
    /// awarded; a bet the retraction leaves uncalled goes back to its bettor.
    RetractCall { seat: Seat, reason: String },
    /// The floor takes away the aggressive action of the player at `seat` for the rest of
    /// the hand: from now they may check, call or fold, never bet or raise, and what they
    /// have already put in stands. Oracle's exposing cards 1 and 2 and four-card flop 3.5
    /// (a card exposed after betting: "This player will be penalised for the remainder of
    /// the hand"), Hippodrome's irregularities 9 ("a card that is flashed by a player will
    /// continue to be a played hand, however the player will lose all aggressive action for
    /// the whole hand") and showdown 5 (cards shown during a deal). Only at those two
    /// houses, to a live hand not yet tabled, while betting remains.
    ForfeitAggression { seat: Seat, reason: String },
    /// A player at the table asks to see the hand at `seat`, mucked at the showdown; the
    /// house's rule says whether it is live ([`SeenHandRule`]). `cards` as for `Retrieve`.
    SeeHand {
        seat: Seat,
        asked_by: Seat,
        cards: Option<[Card; 2]>,
    },
}

/// The rule a request to see a mucked hand is settled by, and what it makes of the hand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum SeenHandRule {
    /// QueenSix showdown 5, Hippodrome showdown 4: the winner's request makes the hand
    /// live (the best hand wins); anyone else's shows it, dead.
    WinnerMakesItLive,
    /// Oracle showdown 5, as written: a request by a player other than the pot winner
    /// makes both hands live; the winner's shows it, dead.
    OtherThanWinnerMakesItLive,
    /// WPH 10C (a privilege the director grants), the invitational 6 (a mucked hand is
    /// discarded) and WSOP: the hand is shown and stays dead.
    ShownDead,
}
