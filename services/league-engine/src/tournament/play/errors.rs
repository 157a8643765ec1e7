//! Why a tournament command was refused.

use super::*;

/// A refused command. Refusals change nothing.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TournamentError {
    #[error("the tournament is not scheduled")]
    NotScheduled,
    #[error("hand id {0} is already a hand of this tournament")]
    HandIdTaken(String),
    #[error("the tournament is already scheduled")]
    AlreadyScheduled,
    #[error("bad schedule: {0}")]
    BadSchedule(String),
    /// The command breaks a rule its preset's rulebook fixes: a schedule's money or
    /// structure, the size of a penalty.
    #[error("{preset} {rule}: {what}")]
    BreaksPreset {
        preset: &'static str,
        /// The rule's number in the book.
        rule: &'static str,
        /// The input field at fault, as the API names it (`schedule.addOns`, `count`).
        field: &'static str,
        what: String,
    },
    #[error("the tournament has not started")]
    NotStarted,
    #[error("the tournament has already started")]
    AlreadyStarted,
    #[error("the tournament is over")]
    Finished,
    #[error("unknown player {0}")]
    UnknownPlayer(PlayerId),
    #[error("player {0} is already registered")]
    AlreadyRegistered(PlayerId),
    #[error("registration is closed: late entries until level {until_level}, now level {level}")]
    RegistrationClosed { level: u32, until_level: u32 },
    #[error("a tournament needs at least two players, got {players}")]
    NotEnoughPlayers { players: usize },
    #[error("the seed does not match the commitment")]
    BadSeed,
    #[error("a player id must be {}", crate::units::ID_RULE)]
    BadPlayerId,
    #[error("level {wanted} cannot start now: the tournament is on level {current}")]
    LevelMoved { wanted: u32, current: u32 },
    #[error("this tournament is tracked as {tracking}")]
    WrongTracking { tracking: Tracking },
    #[error("a dealt hand needs the hand's seed")]
    SeedRequired,
    #[error("a recorded hand takes no seed")]
    SeedNotAllowed,
    #[error("play is on a break")]
    OnBreak,
    #[error("the clock is paused")]
    Paused,
    #[error("the clock is not paused")]
    NotPaused,
    #[error("time went backwards: last {last}, got {got}")]
    ClockWentBack { last: Millis, got: Millis },
    #[error("there is no level after level {level}")]
    NoMoreLevels { level: u32 },
    #[error("no table {0}")]
    NoSuchTable(u32),
    #[error("a hand is in progress at table {table}")]
    HandInProgress { table: u32 },
    #[error("no hand is in progress at table {table}")]
    NoHandInProgress { table: u32 },
    #[error("the clock is already running on seat {seat} at table {table}")]
    ClockAlreadyCalled { table: u32, seat: Seat },
    #[error("no clock is running at table {table}")]
    NoClockCalled { table: u32 },
    #[error("the clock at table {table} runs until {expires_at}")]
    ClockNotOut { table: u32, expires_at: Millis },
    #[error("start hands with StartHand")]
    UseStartHand,
    #[error("play halts at table {table}: {rule}")]
    TableHalted { table: u32, rule: String },
    #[error(
        "hand-for-hand: waiting for tables {} to finish their hand",
        crate::units::listed(waiting)
    )]
    WaitingForHandForHand { waiting: Vec<u32> },
    #[error("a redraw is due before play goes on")]
    RedrawDue,
    #[error("no redraw is due")]
    NoRedrawDue,
    #[error("the colour-up is due before play goes on")]
    ColourUpDue,
    #[error("no colour-up is due")]
    NoColourUpDue,
    #[error("a chip race needs the committed seed and the next commitment")]
    RaceNeedsSeed,
    #[error(
        "{} must re-buy or decline before the next hand",
        crate::units::listed(players)
    )]
    RebuyDecisionPending { players: Vec<PlayerId> },
    #[error("player {0} is not seated")]
    NotSeated(PlayerId),
    #[error("player {0} is still in the tournament")]
    StillIn(PlayerId),
    #[error("player {0} is not waiting to re-buy")]
    NotBusted(PlayerId),
    #[error("this tournament offers no {0}")]
    NotOffered(&'static str),
    #[error("{what} are sold in levels {from_level} to {until_level}; now level {level}")]
    WindowClosed {
        what: &'static str,
        from_level: u32,
        until_level: u32,
        level: u32,
    },
    #[error(
        "{what} close after {until_minutes} minutes of the tournament clock; {} minutes have been played",
        played_ms / 60_000
    )]
    TimeWindowClosed {
        what: &'static str,
        until_minutes: u32,
        played_ms: Millis,
    },
    #[error("{what}: at most {limit} per player")]
    LimitReached { what: &'static str, limit: u32 },
    #[error("the field is full: a tournament takes at most {max} players")]
    FieldFull { max: usize },
    #[error("{what} only with at most {max} chips; the player has {got}")]
    StackTooLarge {
        what: &'static str,
        max: Chips,
        got: Chips,
    },
    #[error("re-buys here are made straight after a bust (invitational 1.3)")]
    RebuyOnlyAfterBust,
    #[error("player {0} announced a re-buy before the deal and is bound to it")]
    RebuyAnnounced(PlayerId),
    #[error("player {0} is not absent")]
    NotAbsent(PlayerId),
    #[error("player {0} is already absent")]
    AlreadyAbsent(PlayerId),
    /// Players out in an unknown order share their places only where the book says so.
    #[error(
        "{preset}: the book does not split the places of players out in an unknown order; record them in the order they went out"
    )]
    OrderOfEliminationNeeded { preset: &'static str },
    /// An unknown order is for players out at separate tables.
    #[error(
        "{0} and {1} were at table {2}: players out at one table are placed by their chips (Oracle tournament 3)"
    )]
    OutAtOneTable(PlayerId, PlayerId, u32),
    /// Only a book that says so places a stack in an unsold seat.
    #[error(
        "{preset}: the book places no chip stack in an unsold seat (the invitational's 2.7 and QueenSix's tournament 4 do)"
    )]
    NoUnsoldStacks { preset: &'static str },
    #[error("seat {seat} at table {table} holds no unsold seat's stack")]
    NoUnsoldStack { table: u32, seat: Seat },
    /// A chip race colours up the players' chips; the director first removes what is left
    /// in unsold seats.
    #[error(
        "the unsold seats' stacks ({}) leave play before the chip race: remove them first",
        crate::units::listed(seats)
    )]
    UnsoldStacksBeforeRace { seats: Vec<String> },
    #[error("player {0} has played and is not an absent entrant")]
    NotAnAbsentEntrant(PlayerId),
    #[error("{rule}: the chips may be removed from level {from_level} or at {from_at}")]
    TooEarlyToRemove {
        rule: String,
        from_level: u32,
        from_at: Millis,
    },
    #[error("chip counts sum to {got}, but {expected} are in play")]
    ChipCountMismatch { expected: Chips, got: Chips },
    #[error("player {0} is listed twice")]
    DuplicatePlayer(PlayerId),
    #[error("the counts must list every player still in; missing {0}")]
    MissingCount(PlayerId),
    #[error("the move breaks the balancing rule ({rule}): {reason}")]
    MoveBreaksBalancing { rule: String, reason: String },
    #[error("seat {seat} at table {table} is taken or does not exist")]
    SeatTaken { table: u32, seat: Seat },
    #[error("the payouts sum to {sum}, but the prize pool is {pool}")]
    PayoutsDoNotSumToPool { pool: Cents, sum: Cents },
    #[error("bad payouts: {0}")]
    BadPayouts(String),
    #[error(
        "every remaining player must accept the deal; missing {}",
        crate::units::listed(missing)
    )]
    DealNotAccepted { missing: Vec<PlayerId> },
    #[error("the house takes no deals: {rule}")]
    DealsNotAllowed { rule: String },
    #[error(
        "{player} (table {table}) cannot be knocked out by {by} (table {by_table}): a knockout \
         is by a player at the same table"
    )]
    KnockoutFromAnotherTable {
        player: PlayerId,
        table: u32,
        by: PlayerId,
        by_table: u32,
    },
    #[error("player {0} is not in the deal")]
    NotInDeal(PlayerId),
    #[error(transparent)]
    Deal(#[from] DealError),
    #[error(transparent)]
    ColourUp(#[from] ColourUpError),
    #[error(transparent)]
    Draw(#[from] DrawError),
    #[error(transparent)]
    Hand(#[from] RuleError),
    #[error(transparent)]
    Pool(#[from] PoolError),
    #[error(transparent)]
    Payout(#[from] PayoutError),
    #[error("chip or money amounts overflow")]
    Overflow,
    #[error("the tournament is cancelled")]
    Cancelled,
    /// An auditor's re-derivation ([`super::rederive_outcome`]): the command rebuilt from a
    /// recorded event decides no event of its kind.
    #[error("the engine decides no such event")]
    NothingDecided,
    #[error("a correction's reason must be {}", crate::units::TEXT_RULE)]
    BadReason,
    #[error("player {0} is not out of the tournament")]
    NotOut(PlayerId),
    #[error("player {player} cannot be reinstated: {why}")]
    CannotReinstate { player: PlayerId, why: String },
    /// A chip correction whose input cannot be right whatever the table's state (no chips,
    /// the same player twice); `field` names the input.
    #[error("{why}")]
    BadCorrection { field: &'static str, why: String },
    /// A player a penalty put out (disqualified or eliminated) may not enter again.
    #[error("{0} was put out of this tournament by a penalty and may not enter it again")]
    PenalisedOut(PlayerId),
    /// A penalty's own input is wrong (a forfeiture of no chips, of all of them, or not
    /// in the smallest chip in play); `field` names the input.
    #[error("{why}")]
    BadPenalty { field: &'static str, why: String },
    /// A chip correction the table's state refuses: no hand to correct yet, a player not
    /// seated there, more chips than the player has.
    #[error("the chips cannot be corrected: {why}")]
    CannotCorrectChips { why: String },
    /// A seat correction the tables' state refuses: a player not seated, a hand running
    /// at either table, a seat held by a player deciding on a re-buy.
    #[error("the seat cannot be corrected: {why}")]
    CannotCorrectSeat { why: String },
    /// A button correction the table's state refuses: no hand played yet, an empty seat,
    /// the button already due there.
    #[error("the button cannot be corrected: {why}")]
    CannotCorrectButton { why: String },
}
