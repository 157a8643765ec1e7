//! Why a cash-table command was refused.

use super::*;

/// A refused command. Refusals change nothing.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CashError {
    #[error("the table is not open")]
    NotOpen,
    #[error("the table is already open")]
    AlreadyOpen,
    #[error("the table is closed")]
    Closed,
    #[error("bad table: {0}")]
    BadConfig(String),
    #[error("the {0} house runs no cash games")]
    NotACashHouse(&'static str),
    #[error("seat {seat} is not a seat of this table (seats 0 to {last})")]
    NoSuchSeat { seat: Seat, last: Seat },
    #[error("seat {0} is taken")]
    SeatTaken(Seat),
    #[error("seat {0} is empty")]
    EmptySeat(Seat),
    #[error("player {0} is already seated at this table")]
    AlreadySeated(PlayerId),
    #[error("seat {seat} is reserved for {player}")]
    Reserved { seat: Seat, player: PlayerId },
    #[error("{first} is first on the waiting list")]
    WaitingListFirst { first: PlayerId },
    #[error("{0} is already on the waiting list")]
    AlreadyWaiting(PlayerId),
    #[error("{0} is not on the waiting list")]
    NotWaiting(PlayerId),
    #[error("a buy-in of {got} is below the table minimum of {min}")]
    BelowMinimumBuyIn { min: Chips, got: Chips },
    #[error("{got} would take the stack above the table maximum of {max}")]
    AboveMaximumBuyIn { max: Chips, got: Chips },
    /// Hippodrome, Procedures 7.
    #[error(
        "{player} cashed out {taken} here less than two hours ago: the buy-in must be at least {taken}"
    )]
    BelowAmountTaken { player: PlayerId, taken: Chips },
    #[error("the amount must be positive")]
    ZeroAmount,
    #[error("the {house} house does not let a new player post to come in: wait for the big blind")]
    MustWaitForBigBlind { house: &'static str },
    #[error("seat {0} is in the hand being played: wait for it to end")]
    InHand(Seat),
    #[error("a hand is being played")]
    HandInProgress,
    #[error("no hand is being played")]
    NoHand,
    #[error("seat {0} is already sitting out")]
    AlreadySittingOut(Seat),
    #[error("seat {0} is not sitting out")]
    NotSittingOut(Seat),
    #[error("the straddle is not allowed: {0}")]
    StraddleNotAllowed(String),
    #[error("the table takes no session fee")]
    NoSessionFee,
    #[error("the next session fee is due at {due}")]
    FeeNotDue { due: Seconds },
    #[error("{0}")]
    Rule(#[from] hand::RuleError),
    #[error("the chips overflow")]
    Overflow,
}

impl CashError {
    /// A stable code for clients.
    pub fn code(&self) -> &'static str {
        match self {
            CashError::NotOpen => "TABLE_NOT_OPEN",
            CashError::AlreadyOpen => "TABLE_ALREADY_OPEN",
            CashError::Closed => "TABLE_CLOSED",
            CashError::BadConfig(_) => "BAD_TABLE",
            CashError::NotACashHouse(_) => "NOT_A_CASH_HOUSE",
            CashError::NoSuchSeat { .. } => "NO_SUCH_SEAT",
            CashError::SeatTaken(_) => "SEAT_TAKEN",
            CashError::EmptySeat(_) => "EMPTY_SEAT",
            CashError::AlreadySeated(_) => "ALREADY_SEATED",
            CashError::Reserved { .. } => "SEAT_RESERVED",
            CashError::WaitingListFirst { .. } => "WAITING_LIST_FIRST",
            CashError::AlreadyWaiting(_) => "ALREADY_WAITING",
            CashError::NotWaiting(_) => "NOT_WAITING",
            CashError::BelowMinimumBuyIn { .. } => "BELOW_MINIMUM_BUY_IN",
            CashError::AboveMaximumBuyIn { .. } => "ABOVE_MAXIMUM_BUY_IN",
            CashError::BelowAmountTaken { .. } => "BELOW_AMOUNT_TAKEN",
            CashError::ZeroAmount => "ZERO_AMOUNT",
            CashError::MustWaitForBigBlind { .. } => "MUST_WAIT_FOR_BIG_BLIND",
            CashError::InHand(_) => "IN_HAND",
            CashError::HandInProgress => "HAND_IN_PROGRESS",
            CashError::NoHand => "NO_HAND",
            CashError::AlreadySittingOut(_) => "ALREADY_SITTING_OUT",
            CashError::NotSittingOut(_) => "NOT_SITTING_OUT",
            CashError::StraddleNotAllowed(_) => "STRADDLE_NOT_ALLOWED",
            CashError::NoSessionFee => "NO_SESSION_FEE",
            CashError::FeeNotDue { .. } => "FEE_NOT_DUE",
            CashError::Rule(_) => "RULE",
            CashError::Overflow => "OVERFLOW",
        }
    }
}
