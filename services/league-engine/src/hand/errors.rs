//! Why a hand command was refused.

use super::*;

/// A refused command. Refusals change nothing.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum RuleError {
    #[error("the hand has not started")]
    NotStarted,
    #[error("the hand has already started")]
    AlreadyStarted,
    #[error("the hand is over")]
    HandOver,
    #[error("bad setup: {0}")]
    BadSetup(&'static str),
    #[error("a hand needs at least two players, got {players}")]
    NotEnoughPlayers { players: usize },
    #[error("seat {seat} is not in the hand")]
    NoSuchSeat { seat: Seat },
    #[error("it is not seat {got}'s turn; {}", match expected { Some(seat) => format!("seat {seat} is to act"), None => "no seat is to act now".to_owned() })]
    NotYourTurn { expected: Option<Seat>, got: Seat },
    #[error("no betting now")]
    NotBetting,
    #[error("seat {seat} cannot check: {to_call} to call")]
    CannotCheck { seat: Seat, to_call: u64 },
    #[error("nothing to call")]
    NothingToCall,
    #[error("a bet is already facing the player: raise instead")]
    BetAlreadyMade,
    #[error("no bet to raise: bet instead")]
    NoBetToRaise,
    #[error("the betting is not open to a raise for this player")]
    RaiseNotAllowed,
    #[error("bet below the minimum: min {min}, got {got}")]
    BetBelowMinimum { min: u64, got: u64 },
    #[error("raise below the minimum: min {min}, got {got}")]
    RaiseBelowMinimum { min: u64, got: u64 },
    #[error("more than the player has: max {max}, got {got}")]
    AboveStack { max: u64, got: u64 },
    #[error("the seed does not match the commitment, or is missing")]
    BadSeed,
    #[error("cards are dealt by the server in a seeded hand")]
    SeededDealing,
    #[error("not waiting for the board")]
    NotWaitingForBoard,
    #[error("the {street} takes {expected} cards, got {got}")]
    WrongCardCount {
        street: Street,
        expected: usize,
        got: usize,
    },
    #[error("card {card} is already in play")]
    DuplicateCard { card: Card },
    #[error("seat {seat} already has hole cards")]
    HoleCardsKnown { seat: Seat },
    #[error("hole cards are recorded before the showdown")]
    TooLateForHoleCards,
    #[error("no showdown now")]
    NotShowdown,
    #[error("seat {seat}'s hole cards are not known: show them")]
    CardsUnknown { seat: Seat },
    #[error("seat {seat} showed {} {} but holds other cards", got[0], got[1])]
    WrongCards { seat: Seat, got: [Card; 2] },
    #[error("seat {seat} is the last hand left in a pot and cannot muck")]
    LastHandCannotMuck { seat: Seat },
    #[error("seat {seat} is not due to act later in this round")]
    NotDueToAct { seat: Seat },
    #[error("an out-of-turn action is already waiting to be ruled on")]
    OutOfTurnPending,
    #[error("too late for a misdeal: the cut-off ({cutoff}) has passed")]
    MisdealPastCutoff { cutoff: MisdealCutoff },
}
