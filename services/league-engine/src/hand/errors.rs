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
    #[error("cards are dealt by the server in a seeded hand: none are given")]
    SeededDealing,
    #[error("not waiting for the board")]
    NotWaitingForBoard,
    #[error("the {street} takes {expected} cards, got {got}")]
    WrongCardCount {
        street: Street,
        expected: usize,
        got: usize,
    },
    #[error("card {card} is given twice")]
    DuplicateCard { card: Card },
    #[error("card {card} is already on the board")]
    OnTheBoard { card: Card },
    /// A card given is held, face down, by another seat. Worded without the card or the
    /// seat that holds it: the caller may not see either.
    #[error("that card cannot be {target}")]
    CardUnavailable { target: CardTarget },
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
    #[error(
        "a player is all-in and the betting is over: every hand is turned face up, so seat {seat} shows rather than mucks"
    )]
    AllInHandsFaceUp { seat: Seat },
    #[error("seat {seat} is not due to act later in this round")]
    NotDueToAct { seat: Seat },
    #[error("an out-of-turn action is already waiting to be ruled on")]
    OutOfTurnPending,
    #[error("too late for a misdeal: the cut-off ({cutoff}) has passed")]
    MisdealPastCutoff { cutoff: MisdealCutoff },
    #[error(
        "{got} is not in the smallest chip in play: bet or raise to a multiple of {unit} (or all in)"
    )]
    NotInChipUnit { unit: u64, got: u64 },
    #[error("seat {seat} holds no live hand to kill")]
    NoLiveHand { seat: Seat },
    #[error("seat {seat} was dealt in present: an absent player's hand is killed at the deal")]
    NotDealtInAbsent { seat: Seat },
    #[error(
        "cards exposed with action pending are no dead hand at this house (WPH 49): give a penalty after the hand"
    )]
    ExposureNotDead,
    #[error("seat {seat}'s hand is tabled face up: it is read as it stands (WPH 11)")]
    HandTabled { seat: Seat },
    #[error("no hand can be killed now: the hand is being dealt or its pots awarded")]
    NothingToKill,
    #[error(
        "seat {seat}'s bet is not called yet and other hands are still in: kill the hand once the bet is called or the betting round is over"
    )]
    UncalledBetPending { seat: Seat },
    #[error("the pot is already impounded")]
    AlreadyImpounded,
    #[error("the pot is not impounded")]
    NotImpounded,
    #[error("the pot can be impounded only while the hand is played, before it is awarded")]
    NothingToImpound,
    #[error("seat {seat}'s hand was not mucked at the showdown")]
    NotMucked { seat: Seat },
    #[error("a mucked hand is discarded at this house (invitational 6): it cannot be retrieved")]
    MuckedHandsDiscarded,
    #[error("seat {seat} may not ask to see a hand: {why}")]
    MayNotAskToSee { seat: Seat, why: &'static str },
    #[error("the winner is not known until every hand still in has shown")]
    WinnerUnknown,
    #[error(
        "{}: every call binds at this house; a call is ruled not binding on a gross misunderstanding of the amount only under QueenSix's NLHE 10", preset.name()
    )]
    CallsBind { preset: Preset },
    #[error("seat {seat} has no call to retract: {why}")]
    NoCallToRetract { seat: Seat, why: &'static str },
    #[error(
        "{}: the house's book takes no player's aggressive action away for a hand (Oracle's exposing cards and Hippodrome's irregularities 9 do)", preset.name()
    )]
    AggressionNotForfeited { preset: Preset },
    #[error("seat {seat} cannot lose its aggressive action: {why}")]
    NoAggressionToForfeit { seat: Seat, why: &'static str },
    #[error(
        "seat {seat} lost its aggressive action for the rest of the hand: it may check, call or fold"
    )]
    AggressionLost { seat: Seat },
    #[error("running the board twice is not offered now")]
    RunTwiceNotOffered,
    #[error("seat {seat} has already answered")]
    AlreadyChosen { seat: Seat },
}

/// Where a card given by the caller was to go, for a refusal worded from the caller's view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum CardTarget {
    /// Recorded as a seat's hole cards.
    Hole(Seat),
    /// Dealt to the board.
    Board,
    /// Shown by a seat at the showdown.
    Shown(Seat),
}

impl std::fmt::Display for CardTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CardTarget::Hole(seat) => write!(f, "dealt to seat {seat}"),
            CardTarget::Board => f.write_str("dealt to the board"),
            CardTarget::Shown(seat) => write!(f, "shown for seat {seat}"),
        }
    }
}
