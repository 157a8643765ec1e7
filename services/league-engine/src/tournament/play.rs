//! One tournament as an aggregate: `decide(&state, command)` and `apply(state, &event)` over
//! one stream holding everything about it, from the schedule to the payouts.
//!
//! # Model
//!
//! A [`Tournament`] is folded from [`TournamentEvent`]s. [`decide`] never mutates: it works
//! on a clone, applying each event as it emits it with the very [`apply`] that replay
//! uses, so what is decided and what is replayed cannot drift apart. After a command it
//! carries the tournament forward as far as the rules allow without a person: busted
//! players are eliminated (or offered a re-buy), announced re-buys are made, tables are
//! balanced and broken between hands, hand-for-hand starts and ends, and the tournament
//! finishes when one player is left.
//!
//! Hands (`dealt` and `recorded` tracking) run through [`crate::hand`]: each hand event is
//! wrapped in [`TournamentEvent::HandEvent`] with its table. In `results` tracking the host
//! records only eliminations, re-buys and chip counts.
//!
//! # Randomness
//!
//! Every draw (the seats and buttons at the start, a redraw, a late entrant's seat, a chip
//! race) reveals the seed committed to before it and commits to the next one: the schedule
//! carries the first commitment, and each command that draws carries the seed and the next
//! commitment. So the log always shows `sha256(seed)` before the draw it decides, and an
//! auditor re-derives every draw from the revealed seeds ([`super::draw`],
//! [`super::colour_up`]). Hands are dealt from their own per-hand seeds, as in
//! [`crate::hand`].
//!
//! # Places
//!
//! Places are kept as the order of eliminations: groups of players who went out together,
//! best first within a group. A player's place is one more than the number of players who
//! outlasted them, so places stay right while late entries grow the field. Players busted
//! in one hand-for-hand round share the places they span and split their prizes. A
//! re-entry takes the player's earlier elimination back: each player finishes once.
//!
//! # Chips
//!
//! Chips are conserved: what the players hold (plus, in `results` tracking, chips of
//! eliminated players not yet given to anyone) equals the chips issued by entries,
//! re-buys and add-ons, plus chips added by colour-ups, less chips removed by colour-ups,
//! disqualifications and removed absentees. [`Tournament::check_invariants`] says so after
//! every event in the tests.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use super::balance::{self, BalanceRule, Move};
use super::colour_up::{ColourUpError, ColourUpPolicy, Holding, colour_up};
use super::deal::{DealError, DealKind, deal};
use super::draw::{ButtonDraw, DrawError, derive_seed, draw_button, draw_seats, pick};
use super::payouts::{PayoutError, PayoutTable, pay_finish};
use super::pool::{PoolError, PoolRules, Price, PrizePool, Purchases};
use super::{Cents, Chips};
use crate::button::{Positions, next_positions};
use crate::card::Card;
use crate::deck::{Commitment, Seed};
use crate::eval::{self, HandValue};
use crate::hand::{
    self, Ante, AnteStructure, Command as HandCommand, Dealing, Event as HandEvent, HandSetup,
    HandState, MAX_SEATS, RuleError, Seat, SeatSetup,
};
use crate::rules::{HouseRules, Preset};

/// A player's stable id in the league.
pub type PlayerId = String;

/// Milliseconds since the Unix epoch, as the command says (the engine reads no clock).
pub type Millis = i64;

/// How the tournament is tracked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Tracking {
    /// The server deals every hand from a committed seed.
    Dealt,
    /// A physical deck: the host records the cards.
    Recorded,
    /// The host records only eliminations, re-buys and chip counts.
    Results,
}

/// The forced bets of a level.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Blinds {
    pub small_blind: Chips,
    pub big_blind: Chips,
    pub ante: AnteStructure,
}

/// Chips leaving play at a colour-up: `low` is exchanged for `high`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Denominations {
    pub low: Chips,
    pub high: Chips,
}

/// One level of the structure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Level {
    Play {
        blinds: Blinds,
        minutes: u32,
    },
    /// A break; `colour_up` takes a denomination out of play during it.
    Break {
        minutes: u32,
        colour_up: Option<Denominations>,
    },
}

impl Level {
    pub fn minutes(&self) -> u32 {
        match *self {
            Level::Play { minutes, .. } | Level::Break { minutes, .. } => minutes,
        }
    }
}

/// When a re-buy, add-on or re-entry may be bought (the price is in [`PoolRules`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PurchasePolicy {
    /// How many one player may buy.
    pub per_player: u32,
    /// The first and last level (1-based, inclusive) at which it may be bought.
    pub from_level: u32,
    pub until_level: u32,
    /// And only in the first this many minutes of the tournament clock (see
    /// [`Tournament::played`]); the window closes at the level or the time, whichever comes
    /// first (invitational 1.3: "in the first 2 hours of play").
    #[serde(default)]
    pub until_minutes: Option<u32>,
    /// Chips it gives.
    pub chips: Chips,
    /// Only when the player's stack is at most this (e.g. the starting stack).
    pub max_stack: Option<Chips>,
    /// Only straight after the player busts (invitational 1.3); re-buys only.
    pub after_bust_only: bool,
}

/// In which order players busted in one hand finish.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum BustOrder {
    /// The player who started the hand with more chips finishes higher (QueenSix 31; WPH
    /// does not say, and gets this default; Oracle: "the player with the higher chip
    /// count will receive higher finishing place").
    LargerStartingStack,
    /// The better hand finishes higher, then the larger starting stack (invitational 10.1).
    BetterHandThenStack,
}

/// When an absent player's chips may be taken out of play.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum AbsentRemoval {
    /// QueenSix 3: "the chips may be removed from play at the discretion of the Host
    /// anytime after a new betting level is begun or a half-hour has elapsed, whichever
    /// occurs first."
    AfterNewLevelOrHalfHour,
    /// At the director's discretion, at any time (invitational 2.7: "the stacks will be
    /// removed by the director"; the other houses do not say).
    Director,
}

/// The tournament rules where the houses differ ([`TournamentRules::for_preset`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TournamentRules {
    pub bust_order: BustOrder,
    pub balance: BalanceRule,
    /// Redraw every seat when the field comes down to this many tables (QueenSix 16: three,
    /// two and one; invitational 2.2: combined tables start "as if it were a new game").
    pub redraw_at: Vec<u32>,
    /// Draw for the button again at the final table (Oracle 14).
    pub final_table_button_draw: bool,
    pub colour_up: ColourUpPolicy,
    pub absent_removal: AbsentRemoval,
    /// The rule named in penalty events.
    pub penalty_rule: String,
}

impl TournamentRules {
    pub fn for_preset(preset: Preset) -> TournamentRules {
        match preset {
            Preset::QueenSix => TournamentRules {
                bust_order: BustOrder::LargerStartingStack,
                balance: BalanceRule::QueenSix,
                redraw_at: vec![3, 2, 1],
                final_table_button_draw: false,
                colour_up: ColourUpPolicy::RoundUp,
                absent_removal: AbsentRemoval::AfterNewLevelOrHalfHour,
                penalty_rule: "QueenSix code of conduct".into(),
            },
            Preset::Wph => TournamentRules {
                bust_order: BustOrder::LargerStartingStack,
                balance: BalanceRule::WorstPosition,
                redraw_at: Vec::new(),
                final_table_button_draw: false,
                colour_up: ColourUpPolicy::RoundUp,
                absent_removal: AbsentRemoval::Director,
                penalty_rule: "WPH 47".into(),
            },
            Preset::Oracle => TournamentRules {
                bust_order: BustOrder::LargerStartingStack,
                balance: BalanceRule::WorstPosition,
                redraw_at: Vec::new(),
                final_table_button_draw: true,
                colour_up: ColourUpPolicy::ChipRace,
                absent_removal: AbsentRemoval::Director,
                penalty_rule: "Oracle tournament rule 4".into(),
            },
            Preset::Invitational => TournamentRules {
                bust_order: BustOrder::BetterHandThenStack,
                balance: BalanceRule::Invitational,
                redraw_at: vec![1],
                final_table_button_draw: false,
                colour_up: ColourUpPolicy::ChipRace,
                absent_removal: AbsentRemoval::Director,
                penalty_rule: "director's discretion".into(),
            },
            Preset::Hippodrome | Preset::Wsop => TournamentRules {
                bust_order: BustOrder::LargerStartingStack,
                balance: BalanceRule::WorstPosition,
                redraw_at: Vec::new(),
                final_table_button_draw: false,
                colour_up: ColourUpPolicy::ChipRace,
                absent_removal: AbsentRemoval::Director,
                penalty_rule: "director's discretion".into(),
            },
        }
    }
}

/// Everything fixed when the tournament is scheduled.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Schedule {
    pub name: String,
    pub venue: String,
    pub starts_at: Millis,
    pub preset: Preset,
    pub house: TournamentRules,
    pub tracking: Tracking,
    /// Entry, re-buy and add-on prices, the house's cut, a guarantee.
    pub pool: PoolRules,
    pub starting_chips: Chips,
    /// The smallest chip in play at the start.
    pub chip_unit: Chips,
    pub levels: Vec<Level>,
    pub table_size: u8,
    pub rebuys: Option<PurchasePolicy>,
    pub add_ons: Option<PurchasePolicy>,
    pub reentries: Option<PurchasePolicy>,
    /// Late entries are taken up to the end of this level (1-based); 0 for none.
    pub late_registration_until_level: u32,
    /// And only in the first this many minutes of the tournament clock; registration
    /// closes at the level or the time, whichever comes first.
    #[serde(default)]
    pub late_registration_until_minutes: Option<u32>,
    pub payouts: PayoutTable,
    /// QueenSix House Policies 4: the blinds are capped at this percentage of the average
    /// stack at the table.
    pub blind_cap_percent: Option<u32>,
    /// Tables break in this order (table numbers); tables not listed break highest first.
    pub break_order: Vec<u32>,
    /// `sha256` of the seed of the first draw.
    pub draw_commitment: Commitment,
}

/// A penalty.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Penalty {
    Warning,
    /// Miss this many hands.
    MissHands(u32),
    /// Miss this many rounds: hands = players at the table times rounds (WPH 47, Oracle 4).
    MissRounds(u32),
    /// Chips removed from play; the player is out.
    Disqualify,
}

/// A command to the tournament.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum TournamentCommand {
    Schedule(Box<Schedule>),
    Register {
        player: PlayerId,
    },
    Unregister {
        player: PlayerId,
    },
    /// Draw the seats and buttons and start the clock.
    Start {
        at: Millis,
        seed: Seed,
        next_commitment: Commitment,
    },
    AdvanceLevel {
        at: Millis,
    },
    Pause {
        at: Millis,
    },
    Resume {
        at: Millis,
    },
    MarkAbsent {
        player: PlayerId,
    },
    Arrived {
        player: PlayerId,
    },
    RemoveAbsent {
        player: PlayerId,
        at: Millis,
    },
    /// A late entry, or a re-entry of a player who is out.
    LateEntry {
        player: PlayerId,
        at: Millis,
        seed: Seed,
        next_commitment: Commitment,
    },
    /// Start the next hand at a table (`seed` for dealt tracking).
    StartHand {
        table: u32,
        seed: Option<Seed>,
    },
    /// A command to the hand in progress at a table.
    Hand {
        table: u32,
        command: HandCommand,
    },
    /// Results tracking: players out in one hand, best first when the house's order
    /// cannot be worked out from chips; `by` took their chips.
    Eliminate {
        players: Vec<PlayerId>,
        by: Option<PlayerId>,
    },
    /// Results tracking: every remaining player's chips.
    RecordChips {
        counts: Vec<(PlayerId, Chips)>,
    },
    AnnounceRebuy {
        player: PlayerId,
        at: Millis,
    },
    Rebuy {
        player: PlayerId,
        at: Millis,
    },
    DeclineRebuy {
        player: PlayerId,
    },
    AddOn {
        player: PlayerId,
        at: Millis,
    },
    Redraw {
        seed: Seed,
        next_commitment: Commitment,
    },
    /// Colour up during a break; a chip race reveals the committed seed.
    ColourUp {
        seed: Option<Seed>,
        next_commitment: Option<Commitment>,
    },
    Penalise {
        player: PlayerId,
        penalty: Penalty,
    },
    /// The director moves a player to an open seat at another table, between hands; the
    /// tables must stay within the house's balancing rule.
    MovePlayer {
        player: PlayerId,
        to_table: u32,
        to_seat: Seat,
    },
    /// Announce the prizes by place (cents); they must sum to the prize pool.
    SetPayouts {
        amounts: Vec<Cents>,
    },
    /// A deal at the final table, accepted by every remaining player.
    Deal {
        kind: DealKind,
        accepted: Vec<PlayerId>,
    },
}

/// A player's seat.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Seating {
    pub player: PlayerId,
    pub table: u32,
    pub seat: Seat,
}

/// One player's chips in a colour-up.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ColouredPlayer {
    pub player: PlayerId,
    pub table: u32,
    pub seat: Seat,
    pub before: Chips,
    pub after: Chips,
    pub cards: Vec<Card>,
    pub raced: u64,
}

/// A knock-out: `by` won the last of `player`'s chips.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Knockout {
    pub player: PlayerId,
    pub by: PlayerId,
}

/// One player's result.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finish {
    pub player: PlayerId,
    pub place: u32,
    /// Players sharing the places from `place` (1 when alone).
    pub shared: u32,
    pub prize: Cents,
    pub entries: u32,
    pub rebuys: u32,
    pub add_ons: u32,
    pub knockouts: u32,
}

/// Something that happened in the tournament.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", content = "data")]
pub enum TournamentEvent {
    TournamentScheduled {
        schedule: Box<Schedule>,
    },
    PlayerRegistered {
        player: PlayerId,
        paid: Price,
    },
    PlayerUnregistered {
        player: PlayerId,
        refund: Cents,
    },
    /// The seat draw and each table's button draw, from the revealed seed.
    TournamentStarted {
        at: Millis,
        seed: Seed,
        next_commitment: Commitment,
        seats: Vec<Seating>,
        buttons: Vec<ButtonDraw>,
    },
    LevelStarted {
        /// 1-based.
        level: u32,
        at: Millis,
        spec: Level,
    },
    ClockPaused {
        at: Millis,
    },
    ClockResumed {
        at: Millis,
    },
    PlayerMarkedAbsent {
        player: PlayerId,
    },
    PlayerArrived {
        player: PlayerId,
    },
    AbsentPlayerRemoved {
        player: PlayerId,
        chips: Chips,
        rule: String,
    },
    PlayerEntered {
        player: PlayerId,
        reentry: bool,
        paid: Price,
        chips: Chips,
        table: u32,
        seat: Seat,
        opened_table: bool,
        seed: Seed,
        next_commitment: Commitment,
        #[serde(default)]
        at: Millis,
    },
    /// A hand is about to start at a table: the positions and the blinds it uses.
    TableHandStarted {
        table: u32,
        hand: u32,
        positions: Positions,
        blinds: Blinds,
        /// Set when the blinds were capped (QueenSix House Policies 4): the level's big
        /// blind and the table's average stack.
        capped_from: Option<(Chips, Chips)>,
        /// Players dealt in while serving a missed-hands penalty.
        penalised: Vec<PlayerId>,
    },
    HandEvent {
        table: u32,
        event: HandEvent,
    },
    /// A busted player may re-buy before the next hand at the table, or is out.
    PlayerBusted {
        player: PlayerId,
        table: u32,
        seat: Seat,
        /// Results tracking: who took the player's chips (`None`: nobody recorded yet).
        #[serde(default)]
        chips_to: Option<PlayerId>,
    },
    RebuyAnnounced {
        player: PlayerId,
        /// When it was announced (the window is checked at this time).
        #[serde(default)]
        at: Millis,
    },
    RebuyMade {
        player: PlayerId,
        chips: Chips,
        paid: Price,
        /// Made because it was announced before the deal (QueenSix 29, WPH 19).
        obliged: bool,
        /// When it was bought; an obliged re-buy, made as the hand ends, carries the last
        /// time the tournament was told.
        #[serde(default)]
        at: Millis,
    },
    AddOnMade {
        player: PlayerId,
        chips: Chips,
        paid: Price,
        #[serde(default)]
        at: Millis,
    },
    /// Players out together, best finish first; `tied` when they share their places
    /// (hand-for-hand).
    PlayersEliminated {
        players: Vec<PlayerId>,
        table: Option<u32>,
        hand: Option<u32>,
        tied: bool,
        /// Who knocked each player out, where known.
        knockouts: Vec<Knockout>,
        /// Results tracking: the player given the eliminated players' chips, and how many.
        chips_to: Option<PlayerId>,
        chips: Chips,
        rule: String,
        reason: String,
    },
    ChipsCounted {
        counts: Vec<(PlayerId, Chips)>,
    },
    PlayerMoved {
        player: PlayerId,
        moved: Move,
    },
    /// A table broken: its players move, in order, to the seats named.
    TableBroken {
        table: u32,
        moves: Vec<(PlayerId, Move)>,
        rule: String,
        reason: String,
    },
    TableOpened {
        table: u32,
    },
    RedrawRequired {
        tables: u32,
        /// Every seat is redrawn; otherwise only the button (Oracle 14).
        seats: bool,
        rule: String,
    },
    SeatsRedrawn {
        seed: Seed,
        next_commitment: Commitment,
        seats: Vec<Seating>,
        buttons: Vec<ButtonDraw>,
        rule: String,
    },
    HandForHandStarted {
        remaining: u32,
        paid: u32,
    },
    HandForHandEnded,
    ChipsColouredUp {
        low: Chips,
        high: Chips,
        policy: ColourUpPolicy,
        players: Vec<ColouredPlayer>,
        removed: Chips,
        added: Chips,
        seed: Option<Seed>,
        next_commitment: Option<Commitment>,
        rule: String,
    },
    PenaltyGiven {
        player: PlayerId,
        penalty: Penalty,
        /// Hands to miss (missed-hands penalties).
        hands: u32,
        rule: String,
    },
    PlayerDisqualified {
        player: PlayerId,
        chips_removed: Chips,
        rule: String,
    },
    PayoutsSet {
        pool: Cents,
        amounts: Vec<Cents>,
    },
    DealMade {
        kind: DealKind,
        players: Vec<PlayerId>,
        stacks: Vec<Chips>,
        amounts: Vec<Cents>,
    },
    TournamentFinished {
        pool: PrizePool,
        results: Vec<Finish>,
    },
}

/// A refused command. Refusals change nothing.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TournamentError {
    #[error("the tournament is not scheduled")]
    NotScheduled,
    #[error("the tournament is already scheduled")]
    AlreadyScheduled,
    #[error("bad schedule: {0}")]
    BadSchedule(String),
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
    #[error("this tournament is tracked as {tracking:?}")]
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
    #[error("start hands with StartHand")]
    UseStartHand,
    #[error("play halts at table {table}: {rule}")]
    TableHalted { table: u32, rule: String },
    #[error("hand-for-hand: waiting for tables {waiting:?} to finish their hand")]
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
    #[error("players {players:?} must re-buy or decline before the next hand")]
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
    #[error("every remaining player must accept the deal; missing {missing:?}")]
    DealNotAccepted { missing: Vec<PlayerId> },
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
}

/// Where the tournament is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Stage {
    #[default]
    New,
    Scheduled,
    Running,
    Finished,
}

/// Where a player is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Standing {
    /// Registered, not yet seated.
    #[default]
    Registered,
    Seated {
        table: u32,
        seat: Seat,
    },
    /// Busted: may re-buy before the next hand at the table.
    Busted {
        table: u32,
        seat: Seat,
    },
    Out,
}

/// One entrant.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entrant {
    pub standing: Standing,
    /// Chips at the start of the current hand, or now between hands.
    pub chips: Chips,
    pub entries: u32,
    pub rebuys: u32,
    pub add_ons: u32,
    pub knockouts: u32,
    pub paid: Cents,
    pub absent: bool,
    /// Absent since the start, never seen at the table: the level and time they were
    /// first absent from.
    pub absent_entrant: bool,
    pub missed_hands: u32,
    pub warnings: u32,
    pub rebuy_announced: bool,
}

impl Entrant {
    fn seat(&self) -> Option<(u32, Seat)> {
        match self.standing {
            Standing::Seated { table, seat } | Standing::Busted { table, seat } => {
                Some((table, seat))
            }
            _ => None,
        }
    }

    fn is_in(&self) -> bool {
        matches!(
            self.standing,
            Standing::Seated { .. } | Standing::Busted { .. }
        )
    }
}

/// One table.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Table {
    pub seats: BTreeMap<Seat, PlayerId>,
    /// The drawn button for the first hand.
    button: Option<Seat>,
    last: Option<Positions>,
    big_blinds: Vec<Seat>,
    /// The current (or last) hand.
    hand: Option<Box<HandState>>,
    pub hands: u32,
    /// Seats dealt in with their starting stacks.
    hand_start: Vec<(Seat, Chips)>,
    /// For each pot of the last hand: who could win it and its first winner.
    awards: Vec<(Vec<Seat>, Option<Seat>)>,
}

impl Table {
    pub fn hand(&self) -> Option<&HandState> {
        self.hand.as_deref()
    }

    /// The positions of the current (or last) hand.
    pub fn positions(&self) -> Option<Positions> {
        self.last
    }

    pub fn in_hand(&self) -> bool {
        self.hand.as_ref().is_some_and(|h| !h.is_over())
    }

    fn occupied(&self) -> Vec<Seat> {
        self.seats.keys().copied().collect()
    }
}

/// A group of players out together.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bust {
    pub players: Vec<PlayerId>,
    pub tied: bool,
    /// The hand-for-hand round, when busted hand-for-hand.
    pub round: Option<u32>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct HandForHand {
    round: u32,
    played: BTreeSet<u32>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct RedrawDue {
    tables: u32,
    seats: bool,
}

/// The tournament, folded from its events.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tournament {
    stage: Stage,
    schedule: Option<Box<Schedule>>,
    rules: Option<HouseRules>,
    players: BTreeMap<PlayerId, Entrant>,
    tables: BTreeMap<u32, Table>,
    /// Index into the levels.
    level: usize,
    level_started_at: Millis,
    last_at: Millis,
    paused_since: Option<Millis>,
    paused_in_level: Millis,
    /// When the clock started, and how long it has been paused since (both closed pauses
    /// only): the tournament clock for time windows.
    started_at: Millis,
    paused_total: Millis,
    commitment: Option<Commitment>,
    purchases: Purchases,
    busts: Vec<Bust>,
    hand_for_hand: Option<HandForHand>,
    redraw: Option<RedrawDue>,
    colour_up_due: Option<Denominations>,
    chip_unit: Chips,
    issued: Chips,
    added: Chips,
    removed: Chips,
    /// Results tracking: chips of eliminated players given to nobody yet.
    unallocated: Chips,
    payouts: Option<(Cents, Vec<Cents>)>,
    deal: Option<(Vec<PlayerId>, Vec<Cents>)>,
    results: Option<Vec<Finish>>,
    /// Level (index) and time when absent entrants may first be removed.
    absent_from: Option<(usize, Millis)>,
}

const HALF_HOUR: Millis = 30 * 60 * 1000;

/// The engine's one way into a tournament: check a command and say what happens, without
/// changing anything.
pub fn decide(
    state: &Tournament,
    command: &TournamentCommand,
) -> Result<Vec<TournamentEvent>, TournamentError> {
    let mut copy = state.clone();
    let mut run = Run {
        state: &mut copy,
        events: Vec::new(),
    };
    run.command(command)?;
    Ok(run.events)
}

/// Fold one event into the state.
pub fn apply(state: &mut Tournament, event: &TournamentEvent) {
    state.apply(event);
}

fn level_no(index: usize) -> u32 {
    u32::try_from(index).map_or(u32::MAX, |i| i.saturating_add(1))
}

fn count(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

// ---------------------------------------------------------------------------------------
// Reading the state
// ---------------------------------------------------------------------------------------

impl Tournament {
    pub fn new() -> Tournament {
        Tournament::default()
    }

    pub fn stage(&self) -> Stage {
        self.stage
    }

    pub fn schedule(&self) -> Option<&Schedule> {
        self.schedule.as_deref()
    }

    pub fn players(&self) -> &BTreeMap<PlayerId, Entrant> {
        &self.players
    }

    pub fn player(&self, id: &str) -> Option<&Entrant> {
        self.players.get(id)
    }

    pub fn tables(&self) -> &BTreeMap<u32, Table> {
        &self.tables
    }

    /// The current level (1-based) and its spec.
    pub fn level(&self) -> Option<(u32, Level)> {
        let schedule = self.schedule.as_ref()?;
        schedule
            .levels
            .get(self.level)
            .map(|l| (level_no(self.level), *l))
    }

    pub fn is_paused(&self) -> bool {
        self.paused_since.is_some()
    }

    /// The clock as recorded: when the level started, since when it is paused, and how
    /// long it was paused before (milliseconds); a client works out the time left.
    pub fn clock(&self) -> (Millis, Option<Millis>, Millis) {
        (
            self.level_started_at,
            self.paused_since,
            self.paused_in_level,
        )
    }

    /// Milliseconds on the tournament clock at `now`: since the start, less the time it
    /// was paused (breaks run on the clock). Purchase and late-registration windows by
    /// time are measured on it.
    pub fn played(&self, now: Millis) -> Millis {
        if self.stage < Stage::Running {
            return 0;
        }
        self.paused_since
            .unwrap_or(now)
            .saturating_sub(self.started_at)
            .saturating_sub(self.paused_total)
            .max(0)
    }

    /// Milliseconds of play left in the current level at `now`.
    pub fn time_left(&self, now: Millis) -> Option<Millis> {
        let (_, level) = self.level()?;
        let length = Millis::from(level.minutes()).saturating_mul(60_000);
        let until = self.paused_since.unwrap_or(now);
        let played = until
            .saturating_sub(self.level_started_at)
            .saturating_sub(self.paused_in_level);
        Some(length.saturating_sub(played).max(0))
    }

    pub fn purchases(&self) -> Purchases {
        self.purchases
    }

    pub fn busts(&self) -> &[Bust] {
        &self.busts
    }

    /// A redraw is due before play goes on.
    pub fn redraw_due(&self) -> bool {
        self.redraw.is_some()
    }

    /// The colour-up due during this break.
    pub fn colour_up_due(&self) -> Option<Denominations> {
        self.colour_up_due
    }

    pub fn hand_for_hand(&self) -> bool {
        self.hand_for_hand.is_some()
    }

    pub fn chip_unit(&self) -> Chips {
        self.chip_unit
    }

    pub fn results(&self) -> Option<&[Finish]> {
        self.results.as_deref()
    }

    /// The finished tournament as a league records it (`None` until it has finished):
    /// its field, buy-in (entry price and fee, cents), prize pool and every finish.
    pub fn outcome(
        &self,
        tournament: &str,
        season: &str,
        day: u32,
    ) -> Option<crate::league::TournamentOutcome> {
        let schedule = self.schedule.as_ref()?;
        let results = self.results.as_ref()?;
        Some(crate::league::TournamentOutcome {
            tournament: tournament.to_owned(),
            venue: schedule.venue.clone(),
            season: season.to_owned(),
            day,
            buyin: schedule
                .pool
                .entry
                .price
                .saturating_add(schedule.pool.entry.fee),
            prizepool: self.prize_pool().map(|p| p.total).unwrap_or(0),
            field: u32::try_from(results.len()).unwrap_or(u32::MAX),
            finishes: results
                .iter()
                .map(|r| crate::league::Finish {
                    player: r.player.clone(),
                    place: r.place,
                    shared: r.shared,
                    rebuys: r.rebuys,
                    knockouts: r.knockouts,
                    prize: r.prize,
                })
                .collect(),
        })
    }

    /// The commitment the next draw must reveal a seed for.
    pub fn commitment(&self) -> Option<Commitment> {
        self.commitment
    }

    /// Players still in (seated, or busted and free to re-buy).
    pub fn remaining(&self) -> usize {
        self.players.values().filter(|p| p.is_in()).count()
    }

    /// The field: every player who entered.
    pub fn field(&self) -> usize {
        self.players.len()
    }

    /// The prize pool from what was bought so far.
    pub fn prize_pool(&self) -> Result<PrizePool, TournamentError> {
        let schedule = self
            .schedule
            .as_ref()
            .ok_or(TournamentError::NotScheduled)?;
        Ok(schedule.pool.prize_pool(self.purchases)?)
    }

    /// The places paid for the current field.
    pub fn paid_places(&self) -> usize {
        let field = u64::try_from(self.field()).unwrap_or(u64::MAX);
        self.schedule
            .as_ref()
            .map_or(0, |s| s.payouts.for_field(field).places().min(self.field()))
    }

    /// The prize of each place (cents).
    pub fn prizes(&self) -> Result<Vec<Cents>, TournamentError> {
        let schedule = self
            .schedule
            .as_ref()
            .ok_or(TournamentError::NotScheduled)?;
        let pool = self.prize_pool()?.total;
        if let Some((set_for, amounts)) = &self.payouts
            && *set_for == pool
        {
            return Ok(amounts.clone());
        }
        let field = u64::try_from(self.field()).unwrap_or(u64::MAX);
        Ok(schedule.payouts.for_field(field).amounts(pool, field)?)
    }

    /// Every player's place so far: the players still in share the top places (place 1,
    /// `shared` = the number still in) until the tournament finishes.
    pub fn places(&self) -> Vec<(PlayerId, u32, u32)> {
        let mut out = Vec::with_capacity(self.players.len());
        let remaining = self.remaining();
        for (id, p) in &self.players {
            if p.is_in() {
                out.push((id.clone(), 1, count(remaining)));
            }
        }
        let mut above = remaining;
        for bust in self.busts.iter().rev() {
            for (i, player) in bust.players.iter().enumerate() {
                let place = if bust.tied { above + 1 } else { above + i + 1 };
                let shared = if bust.tied { bust.players.len() } else { 1 };
                out.push((player.clone(), count(place), count(shared)));
            }
            above += bust.players.len();
        }
        out
    }

    /// The chips the players hold, plus chips given to nobody yet.
    pub fn chips_in_play(&self) -> Chips {
        self.players.values().map(|p| p.chips).sum::<Chips>() + self.unallocated
    }

    /// Chips conserved, seats consistent, every entrant once in places.
    pub fn check_invariants(&self) -> Result<(), String> {
        let expected = (self.issued + self.added)
            .checked_sub(self.removed)
            .ok_or("more chips removed than issued")?;
        if self.chips_in_play() != expected {
            return Err(format!(
                "chips not conserved: {} in play, {} issued + {} added - {} removed",
                self.chips_in_play(),
                self.issued,
                self.added,
                self.removed
            ));
        }
        for (number, table) in &self.tables {
            if let Some(hand) = &table.hand {
                hand.check_invariants()?;
            }
            for (seat, id) in &table.seats {
                let p = self.players.get(id).ok_or("unknown player seated")?;
                if p.seat() != Some((*number, *seat)) {
                    return Err(format!("{id} seated at {number}/{seat} but is {p:?}"));
                }
            }
        }
        for (id, p) in &self.players {
            if let Some((t, s)) = p.seat()
                && self.tables.get(&t).and_then(|t| t.seats.get(&s)) != Some(id)
            {
                return Err(format!("{id} thinks they sit at {t}/{s}"));
            }
            if p.standing == Standing::Out && p.chips != 0 {
                return Err(format!("{id} is out with {} chips", p.chips));
            }
        }
        if self.stage >= Stage::Running {
            let places = self.places();
            let ids: BTreeSet<&String> = places.iter().map(|(id, _, _)| id).collect();
            if ids.len() != places.len() || ids.len() != self.players.len() {
                return Err("every entrant must have exactly one place".into());
            }
        }
        Ok(())
    }

    fn rules(&self) -> HouseRules {
        self.rules.unwrap_or_else(HouseRules::wsop)
    }

    fn house(&self) -> Option<&TournamentRules> {
        self.schedule.as_ref().map(|s| &s.house)
    }

    fn in_any_hand(&self) -> bool {
        self.tables.values().any(Table::in_hand)
    }

    /// The positions of a table's next hand (a placeholder for fewer than two players).
    fn upcoming(&self, table: &Table) -> Positions {
        let occupied = table.occupied();
        let result = match (table.last, table.button) {
            (Some(last), _) => next_positions(&self.rules(), last, &occupied, &table.big_blinds),
            (None, Some(button)) => Positions::first(button, &occupied),
            (None, None) => occupied
                .first()
                .map_or(Err(RuleError::NotEnoughPlayers { players: 0 }), |&b| {
                    Positions::first(b, &occupied)
                }),
        };
        result.unwrap_or_else(|_| {
            let seat = occupied.first().copied().unwrap_or(0);
            Positions {
                button: seat,
                small_blind: seat,
                big_blind: seat,
            }
        })
    }

    fn balance_view(&self) -> Vec<balance::Table> {
        let size = self.schedule.as_ref().map_or(0, |s| s.table_size);
        self.tables
            .iter()
            .map(|(&number, table)| balance::Table {
                number,
                seats: (0..size).collect(),
                occupied: table.occupied(),
                next: self.upcoming(table),
            })
            .collect()
    }

    fn halted(&self) -> Vec<u32> {
        match self.house() {
            Some(house) => balance::balance(house.balance, &self.balance_view()).halted,
            None => Vec::new(),
        }
    }
}

// ---------------------------------------------------------------------------------------
// Applying events
// ---------------------------------------------------------------------------------------

impl Tournament {
    fn entrant(&mut self, id: &str) -> &mut Entrant {
        self.players.entry(id.to_owned()).or_default()
    }

    fn unseat(&mut self, id: &str) {
        if let Some((table, seat)) = self.players.get(id).and_then(Entrant::seat)
            && let Some(t) = self.tables.get_mut(&table)
            && t.seats.get(&seat).is_some_and(|p| p == id)
        {
            t.seats.remove(&seat);
        }
    }

    fn seat(&mut self, id: &str, table: u32, seat: Seat) {
        self.unseat(id);
        self.tables
            .entry(table)
            .or_default()
            .seats
            .insert(seat, id.to_owned());
        self.entrant(id).standing = Standing::Seated { table, seat };
    }

    fn purchase(&mut self, id: &str, paid: Price, chips: Chips) {
        let entrant = self.entrant(id);
        entrant.paid += paid.price + paid.fee;
        entrant.chips += chips;
        self.issued += chips;
    }

    fn apply(&mut self, event: &TournamentEvent) {
        match event {
            TournamentEvent::TournamentScheduled { schedule } => {
                self.stage = Stage::Scheduled;
                self.rules = Some(schedule.preset.rules());
                self.commitment = Some(schedule.draw_commitment);
                self.chip_unit = schedule.chip_unit;
                self.schedule = Some(schedule.clone());
            }
            TournamentEvent::PlayerRegistered { player, paid } => {
                let chips = self.schedule.as_ref().map_or(0, |s| s.starting_chips);
                self.purchase(player, *paid, chips);
                self.entrant(player).entries = 1;
                self.purchases.entries += 1;
            }
            TournamentEvent::PlayerUnregistered { player, .. } => {
                if let Some(p) = self.players.remove(player) {
                    self.issued -= p.chips;
                }
                self.purchases.entries = self.purchases.entries.saturating_sub(1);
            }
            TournamentEvent::TournamentStarted {
                at,
                next_commitment,
                seats,
                buttons,
                ..
            } => {
                self.stage = Stage::Running;
                self.started_at = *at;
                self.commitment = Some(*next_commitment);
                self.last_at = *at;
                for s in seats {
                    self.seat(&s.player, s.table, s.seat);
                }
                for b in buttons {
                    self.tables.entry(b.table).or_default().button = Some(b.button);
                }
                self.absent_from = Some((0, at.saturating_add(HALF_HOUR)));
            }
            TournamentEvent::LevelStarted { level, at, spec } => {
                self.level = usize::try_from(level.saturating_sub(1)).unwrap_or(0);
                self.level_started_at = *at;
                self.last_at = *at;
                self.paused_in_level = 0;
                if let Some(since) = self.paused_since.as_mut() {
                    self.paused_total += at.saturating_sub(*since);
                    *since = *at;
                }
                if let Level::Break {
                    colour_up: Some(d), ..
                } = spec
                {
                    self.colour_up_due = Some(*d);
                }
            }
            TournamentEvent::ClockPaused { at } => {
                self.paused_since = Some(*at);
                self.last_at = *at;
            }
            TournamentEvent::ClockResumed { at } => {
                if let Some(since) = self.paused_since.take() {
                    self.paused_in_level += at.saturating_sub(since);
                    self.paused_total += at.saturating_sub(since);
                }
                self.last_at = *at;
            }
            TournamentEvent::PlayerMarkedAbsent { player } => {
                let started = self.stage >= Stage::Running;
                let p = self.entrant(player);
                p.absent = true;
                if !started {
                    p.absent_entrant = true;
                }
            }
            TournamentEvent::PlayerArrived { player } => {
                let p = self.entrant(player);
                p.absent = false;
                p.absent_entrant = false;
            }
            TournamentEvent::AbsentPlayerRemoved { player, chips, .. } => {
                self.entrant(player).chips -= chips;
                self.removed += chips;
            }
            TournamentEvent::PlayerEntered {
                player,
                reentry,
                paid,
                chips,
                table,
                seat,
                next_commitment,
                at,
                ..
            } => {
                self.last_at = self.last_at.max(*at);
                self.commitment = Some(*next_commitment);
                if *reentry {
                    for bust in &mut self.busts {
                        bust.players.retain(|p| p != player);
                    }
                    self.busts.retain(|b| !b.players.is_empty());
                }
                self.purchase(player, *paid, *chips);
                self.entrant(player).entries += 1;
                self.purchases.entries += 1;
                self.seat(player, *table, *seat);
            }
            TournamentEvent::TableHandStarted {
                table,
                hand,
                positions,
                penalised,
                ..
            } => {
                // Hand-for-hand: the first hand after a round played opens the next round.
                if self.round_played()
                    && let Some(hfh) = self.hand_for_hand.as_mut()
                {
                    hfh.round += 1;
                    hfh.played.clear();
                }
                for id in penalised {
                    let p = self.entrant(id);
                    p.missed_hands = p.missed_hands.saturating_sub(1);
                }
                let starts: Vec<(Seat, Chips)> = self
                    .tables
                    .get(table)
                    .map(|t| {
                        t.seats
                            .iter()
                            .map(|(&s, id)| (s, self.players.get(id).map_or(0, |p| p.chips)))
                            .collect()
                    })
                    .unwrap_or_default();
                let t = self.tables.entry(*table).or_default();
                t.hands = *hand;
                t.last = Some(*positions);
                t.big_blinds.push(positions.big_blind);
                t.hand = Some(Box::new(HandState::new()));
                t.hand_start = starts;
                t.awards.clear();
            }
            TournamentEvent::HandEvent { table, event } => self.apply_hand(*table, event),
            TournamentEvent::PlayerBusted {
                player,
                table,
                seat,
                chips_to,
            } => {
                let p = self.entrant(player);
                p.standing = Standing::Busted {
                    table: *table,
                    seat: *seat,
                };
                let freed = std::mem::take(&mut p.chips);
                match chips_to {
                    Some(to) => self.entrant(to).chips += freed,
                    None => self.unallocated += freed,
                }
            }
            TournamentEvent::RebuyAnnounced { player, at } => {
                self.entrant(player).rebuy_announced = true;
                self.last_at = self.last_at.max(*at);
            }
            TournamentEvent::RebuyMade {
                player,
                chips,
                paid,
                at,
                ..
            } => {
                self.last_at = self.last_at.max(*at);
                self.purchase(player, *paid, *chips);
                let p = self.entrant(player);
                p.rebuys += 1;
                p.rebuy_announced = false;
                if let Standing::Busted { table, seat } = p.standing {
                    p.standing = Standing::Seated { table, seat };
                }
                self.purchases.rebuys += 1;
            }
            TournamentEvent::AddOnMade {
                player,
                chips,
                paid,
                at,
            } => {
                self.last_at = self.last_at.max(*at);
                self.purchase(player, *paid, *chips);
                self.entrant(player).add_ons += 1;
                self.purchases.add_ons += 1;
            }
            TournamentEvent::PlayersEliminated {
                players,
                tied,
                knockouts,
                chips_to,
                chips,
                ..
            } => {
                let mut freed = 0;
                for id in players {
                    self.unseat(id);
                    let p = self.entrant(id);
                    freed += p.chips;
                    p.chips = 0;
                    p.standing = Standing::Out;
                    p.rebuy_announced = false;
                }
                for k in knockouts {
                    self.entrant(&k.by).knockouts += 1;
                }
                match chips_to {
                    Some(to) => {
                        self.entrant(to).chips += chips;
                        self.unallocated += freed.saturating_sub(*chips);
                    }
                    None => self.unallocated += freed,
                }
                let round = self.hand_for_hand.as_ref().map(|h| h.round);
                match self.busts.last_mut() {
                    Some(last) if *tied && last.tied && last.round == round && round.is_some() => {
                        last.players.extend(players.iter().cloned());
                    }
                    _ => self.busts.push(Bust {
                        players: players.clone(),
                        tied: *tied,
                        round: if *tied { round } else { None },
                    }),
                }
            }
            TournamentEvent::ChipsCounted { counts } => {
                for (id, chips) in counts {
                    self.entrant(id).chips = *chips;
                }
                self.unallocated = 0;
            }
            TournamentEvent::PlayerMoved { player, moved } => {
                self.seat(player, moved.to_table, moved.to_seat);
            }
            TournamentEvent::TableBroken { table, moves, .. } => {
                for (player, m) in moves {
                    self.seat(player, m.to_table, m.to_seat);
                }
                self.tables.remove(table);
            }
            TournamentEvent::TableOpened { table } => {
                self.tables.entry(*table).or_default();
            }
            TournamentEvent::RedrawRequired { tables, seats, .. } => {
                self.redraw = Some(RedrawDue {
                    tables: *tables,
                    seats: *seats,
                });
            }
            TournamentEvent::SeatsRedrawn {
                next_commitment,
                seats,
                buttons,
                ..
            } => {
                self.commitment = Some(*next_commitment);
                self.redraw = None;
                if !seats.is_empty() {
                    for s in seats {
                        self.unseat(&s.player);
                    }
                    self.tables.clear();
                    for s in seats {
                        self.seat(&s.player, s.table, s.seat);
                    }
                }
                for b in buttons {
                    let t = self.tables.entry(b.table).or_default();
                    t.button = Some(b.button);
                    t.last = None;
                    t.big_blinds.clear();
                }
            }
            TournamentEvent::HandForHandStarted { .. } => {
                self.hand_for_hand = Some(HandForHand::default());
            }
            TournamentEvent::HandForHandEnded => self.hand_for_hand = None,
            TournamentEvent::ChipsColouredUp {
                high,
                players,
                removed,
                added,
                next_commitment,
                ..
            } => {
                for p in players {
                    self.entrant(&p.player).chips = p.after;
                }
                self.removed += removed;
                self.added += added;
                self.chip_unit = *high;
                self.colour_up_due = None;
                if let Some(next) = next_commitment {
                    self.commitment = Some(*next);
                }
            }
            TournamentEvent::PenaltyGiven {
                player,
                penalty,
                hands,
                ..
            } => {
                let p = self.entrant(player);
                match penalty {
                    Penalty::Warning => p.warnings += 1,
                    _ => p.missed_hands += hands,
                }
            }
            TournamentEvent::PlayerDisqualified {
                player,
                chips_removed,
                ..
            } => {
                self.entrant(player).chips -= chips_removed;
                self.removed += chips_removed;
            }
            TournamentEvent::PayoutsSet { pool, amounts } => {
                self.payouts = Some((*pool, amounts.clone()));
            }
            TournamentEvent::DealMade {
                players, amounts, ..
            } => {
                self.deal = Some((players.clone(), amounts.clone()));
            }
            TournamentEvent::TournamentFinished { results, .. } => {
                self.stage = Stage::Finished;
                self.results = Some(results.clone());
            }
        }
    }

    fn apply_hand(&mut self, table: u32, event: &HandEvent) {
        let Some(t) = self.tables.get_mut(&table) else {
            return;
        };
        let Some(hand) = t.hand.as_mut() else {
            return;
        };
        hand::apply(hand, event);
        if let HandEvent::PotAwarded {
            eligible, shares, ..
        } = event
        {
            t.awards
                .push((eligible.clone(), shares.first().map(|s| s.seat)));
        }
        if !hand.is_over() {
            return;
        }
        let stacks: Vec<(PlayerId, Chips)> = t
            .hand_start
            .iter()
            .filter_map(|&(seat, _)| {
                let id = t.seats.get(&seat)?;
                Some((id.clone(), hand.stack(seat).unwrap_or(0)))
            })
            .collect();
        if let Some(hfh) = self.hand_for_hand.as_mut() {
            hfh.played.insert(table);
        }
        for (id, chips) in stacks {
            self.entrant(&id).chips = chips;
        }
    }

    /// Hand-for-hand: every table has played its hand of this round.
    fn round_played(&self) -> bool {
        self.hand_for_hand.as_ref().is_some_and(|hfh| {
            !self.in_any_hand() && self.tables.keys().all(|t| hfh.played.contains(t))
        })
    }
}

// ---------------------------------------------------------------------------------------
// Deciding
// ---------------------------------------------------------------------------------------

struct Run<'a> {
    state: &'a mut Tournament,
    events: Vec<TournamentEvent>,
}

type Result<T, E = TournamentError> = std::result::Result<T, E>;

impl Run<'_> {
    fn emit(&mut self, event: TournamentEvent) {
        self.state.apply(&event);
        self.events.push(event);
    }

    fn schedule(&self) -> Result<&Schedule> {
        self.state
            .schedule
            .as_deref()
            .ok_or(TournamentError::NotScheduled)
    }

    fn running(&self) -> Result<&Schedule> {
        match self.state.stage {
            Stage::New => Err(TournamentError::NotScheduled),
            Stage::Scheduled => Err(TournamentError::NotStarted),
            Stage::Finished => Err(TournamentError::Finished),
            Stage::Running => self.schedule(),
        }
    }

    fn entrant(&self, id: &str) -> Result<&Entrant> {
        self.state
            .players
            .get(id)
            .ok_or_else(|| TournamentError::UnknownPlayer(id.to_owned()))
    }

    fn seated(&self, id: &str) -> Result<(u32, Seat)> {
        match self.entrant(id)?.standing {
            Standing::Seated { table, seat } => Ok((table, seat)),
            _ => Err(TournamentError::NotSeated(id.to_owned())),
        }
    }

    fn table(&self, number: u32) -> Result<&Table> {
        self.state
            .tables
            .get(&number)
            .ok_or(TournamentError::NoSuchTable(number))
    }

    fn between_hands(&self, number: u32) -> Result<()> {
        if self.table(number)?.in_hand() {
            return Err(TournamentError::HandInProgress { table: number });
        }
        Ok(())
    }

    fn tracking(&self, allowed: &[Tracking]) -> Result<()> {
        let tracking = self.schedule()?.tracking;
        if allowed.contains(&tracking) {
            Ok(())
        } else {
            Err(TournamentError::WrongTracking { tracking })
        }
    }

    fn reveal(&self, seed: &Seed) -> Result<()> {
        match self.state.commitment {
            Some(c) if c.verifies(seed) => Ok(()),
            _ => Err(TournamentError::BadSeed),
        }
    }

    fn clock(&self, at: Millis) -> Result<()> {
        if at < self.state.last_at {
            return Err(TournamentError::ClockWentBack {
                last: self.state.last_at,
                got: at,
            });
        }
        Ok(())
    }

    fn level_now(&self) -> u32 {
        level_no(self.state.level)
    }

    fn command(&mut self, command: &TournamentCommand) -> Result<()> {
        match command {
            TournamentCommand::Schedule(schedule) => self.schedule_cmd(schedule),
            TournamentCommand::Register { player } => self.register(player),
            TournamentCommand::Unregister { player } => self.unregister(player),
            TournamentCommand::Start {
                at,
                seed,
                next_commitment,
            } => self.start(*at, seed, *next_commitment),
            TournamentCommand::AdvanceLevel { at } => self.advance_level(*at),
            TournamentCommand::Pause { at } => {
                self.running()?;
                self.clock(*at)?;
                if self.state.paused_since.is_some() {
                    return Err(TournamentError::Paused);
                }
                self.emit(TournamentEvent::ClockPaused { at: *at });
                Ok(())
            }
            TournamentCommand::Resume { at } => {
                self.running()?;
                self.clock(*at)?;
                if self.state.paused_since.is_none() {
                    return Err(TournamentError::NotPaused);
                }
                self.emit(TournamentEvent::ClockResumed { at: *at });
                Ok(())
            }
            TournamentCommand::MarkAbsent { player } => {
                if self.state.stage == Stage::Finished {
                    return Err(TournamentError::Finished);
                }
                let p = self.entrant(player)?;
                if !p.is_in() && p.standing != Standing::Registered {
                    return Err(TournamentError::NotSeated(player.clone()));
                }
                if p.absent {
                    return Err(TournamentError::AlreadyAbsent(player.clone()));
                }
                self.emit(TournamentEvent::PlayerMarkedAbsent {
                    player: player.clone(),
                });
                Ok(())
            }
            TournamentCommand::Arrived { player } => {
                if !self.entrant(player)?.absent {
                    return Err(TournamentError::NotAbsent(player.clone()));
                }
                self.emit(TournamentEvent::PlayerArrived {
                    player: player.clone(),
                });
                Ok(())
            }
            TournamentCommand::RemoveAbsent { player, at } => self.remove_absent(player, *at),
            TournamentCommand::LateEntry {
                player,
                at,
                seed,
                next_commitment,
            } => self.late_entry(player, *at, seed, *next_commitment),
            TournamentCommand::StartHand { table, seed } => self.start_hand(*table, seed.as_ref()),
            TournamentCommand::Hand { table, command } => self.hand(*table, command),
            TournamentCommand::Eliminate { players, by } => self.eliminate(players, by.as_ref()),
            TournamentCommand::RecordChips { counts } => self.record_chips(counts),
            TournamentCommand::AnnounceRebuy { player, at } => self.announce_rebuy(player, *at),
            TournamentCommand::Rebuy { player, at } => self.rebuy(player, *at),
            TournamentCommand::DeclineRebuy { player } => {
                self.running()?;
                let p = self.entrant(player)?;
                if p.rebuy_announced {
                    return Err(TournamentError::RebuyAnnounced(player.clone()));
                }
                let Standing::Busted { table, .. } = p.standing else {
                    return Err(TournamentError::NotBusted(player.clone()));
                };
                self.eliminate_group(
                    vec![player.clone()],
                    Some(table),
                    "re-buy declined".into(),
                    "the player declined the re-buy".into(),
                );
                self.settle()
            }
            TournamentCommand::AddOn { player, at } => self.add_on(player, *at),
            TournamentCommand::Redraw {
                seed,
                next_commitment,
            } => self.redraw(seed, *next_commitment),
            TournamentCommand::ColourUp {
                seed,
                next_commitment,
            } => self.colour_up(seed.as_ref(), *next_commitment),
            TournamentCommand::Penalise { player, penalty } => self.penalise(player, *penalty),
            TournamentCommand::MovePlayer {
                player,
                to_table,
                to_seat,
            } => self.move_player(player, *to_table, *to_seat),
            TournamentCommand::SetPayouts { amounts } => self.set_payouts(amounts),
            TournamentCommand::Deal { kind, accepted } => self.deal(*kind, accepted),
        }
    }

    fn schedule_cmd(&mut self, schedule: &Schedule) -> Result<()> {
        if self.state.stage != Stage::New {
            return Err(TournamentError::AlreadyScheduled);
        }
        validate_schedule(schedule)?;
        self.emit(TournamentEvent::TournamentScheduled {
            schedule: Box::new(schedule.clone()),
        });
        Ok(())
    }

    fn register(&mut self, player: &str) -> Result<()> {
        match self.state.stage {
            Stage::New => return Err(TournamentError::NotScheduled),
            Stage::Scheduled => {}
            Stage::Running => return Err(TournamentError::AlreadyStarted),
            Stage::Finished => return Err(TournamentError::Finished),
        }
        if player.is_empty() {
            return Err(TournamentError::UnknownPlayer(String::new()));
        }
        if self.state.players.contains_key(player) {
            return Err(TournamentError::AlreadyRegistered(player.to_owned()));
        }
        let paid = self.schedule()?.pool.entry;
        self.emit(TournamentEvent::PlayerRegistered {
            player: player.to_owned(),
            paid,
        });
        Ok(())
    }

    fn unregister(&mut self, player: &str) -> Result<()> {
        if self.state.stage != Stage::Scheduled {
            return Err(TournamentError::AlreadyStarted);
        }
        let refund = self.entrant(player)?.paid;
        self.emit(TournamentEvent::PlayerUnregistered {
            player: player.to_owned(),
            refund,
        });
        Ok(())
    }

    fn start(&mut self, at: Millis, seed: &Seed, next_commitment: Commitment) -> Result<()> {
        match self.state.stage {
            Stage::New => return Err(TournamentError::NotScheduled),
            Stage::Scheduled => {}
            _ => return Err(TournamentError::AlreadyStarted),
        }
        let players = self.state.players.len();
        if players < 2 {
            return Err(TournamentError::NotEnoughPlayers { players });
        }
        self.reveal(seed)?;
        let schedule = self.schedule()?;
        let size = usize::from(schedule.table_size);
        let tables = players.div_ceil(size);
        let entrants: Vec<String> = self.state.players.keys().cloned().collect();
        let order: Vec<Seat> = (0..schedule.table_size).collect();
        let drawn = draw_seats(seed, &entrants, tables, &order)?;
        let seats: Vec<Seating> = drawn
            .into_iter()
            .map(|a| Seating {
                player: a.entrant,
                table: a.table + 1,
                seat: a.seat,
            })
            .collect();
        let buttons = buttons(seed, &seats)?;
        let first = schedule.levels.first().copied();
        self.emit(TournamentEvent::TournamentStarted {
            at,
            seed: *seed,
            next_commitment,
            seats,
            buttons,
        });
        if let Some(spec) = first {
            self.emit(TournamentEvent::LevelStarted { level: 1, at, spec });
        }
        Ok(())
    }

    fn advance_level(&mut self, at: Millis) -> Result<()> {
        let schedule = self.running()?;
        self.clock(at)?;
        let next = self.state.level + 1;
        let Some(spec) = schedule.levels.get(next).copied() else {
            return Err(TournamentError::NoMoreLevels {
                level: self.level_now(),
            });
        };
        if self.state.colour_up_due.is_some() {
            return Err(TournamentError::ColourUpDue);
        }
        let rebuys = schedule.rebuys;
        self.emit(TournamentEvent::LevelStarted {
            level: level_no(next),
            at,
            spec,
        });
        // The re-buy period is over (by level or by time): busted players waiting to
        // re-buy are out.
        let (level, played) = (self.level_now(), self.state.played(at));
        if rebuys.is_some_and(|r| {
            level > r.until_level || time_window("re-buys", r.until_minutes, played).is_err()
        }) {
            let waiting: Vec<(PlayerId, u32)> = self
                .state
                .players
                .iter()
                .filter_map(|(id, p)| match p.standing {
                    Standing::Busted { table, .. } => Some((id.clone(), table)),
                    _ => None,
                })
                .collect();
            for (id, table) in waiting {
                self.eliminate_group(
                    vec![id],
                    Some(table),
                    "re-buy period".into(),
                    "the re-buy period ended before the player re-bought".into(),
                );
            }
            self.settle()?;
        }
        Ok(())
    }

    fn remove_absent(&mut self, player: &str, at: Millis) -> Result<()> {
        let schedule = self.running()?;
        let removal = schedule.house.absent_removal;
        self.clock(at)?;
        let p = self.entrant(player)?;
        if !p.absent || !p.absent_entrant {
            return Err(TournamentError::NotAnAbsentEntrant(player.to_owned()));
        }
        let (table, _) = self.seated(player)?;
        self.between_hands(table)?;
        let rule = match removal {
            AbsentRemoval::AfterNewLevelOrHalfHour => {
                let (level, from_at) = self.state.absent_from.unwrap_or((0, Millis::MAX));
                if self.state.level <= level && at < from_at {
                    return Err(TournamentError::TooEarlyToRemove {
                        rule: "QueenSix 3".into(),
                        from_level: level_no(level + 1),
                        from_at,
                    });
                }
                "QueenSix 3"
            }
            AbsentRemoval::Director => "director's discretion (invitational 2.7)",
        };
        let chips = p.chips;
        self.emit(TournamentEvent::AbsentPlayerRemoved {
            player: player.to_owned(),
            chips,
            rule: rule.into(),
        });
        self.eliminate_group(
            vec![player.to_owned()],
            Some(table),
            rule.into(),
            "absent entrant's chips removed from play".into(),
        );
        self.settle()
    }

    fn late_entry(
        &mut self,
        player: &str,
        at: Millis,
        seed: &Seed,
        next_commitment: Commitment,
    ) -> Result<()> {
        let schedule = self.running()?;
        self.clock(at)?;
        let level = self.level_now();
        let played = self.state.played(at);
        let reentry = match self.state.players.get(player) {
            None => None,
            Some(p) if p.standing == Standing::Out => Some(p.entries),
            Some(_) => return Err(TournamentError::AlreadyRegistered(player.to_owned())),
        };
        let until = schedule.late_registration_until_level;
        let paid = schedule.pool.entry;
        let chips = schedule.starting_chips;
        let size = schedule.table_size;
        if let Some(entries) = reentry {
            let policy = schedule
                .reentries
                .ok_or(TournamentError::NotOffered("re-entries"))?;
            window("re-entries", &policy, level, played)?;
            if entries > policy.per_player {
                return Err(TournamentError::LimitReached {
                    what: "re-entries",
                    limit: policy.per_player,
                });
            }
        } else if level > until {
            return Err(TournamentError::RegistrationClosed {
                level,
                until_level: until,
            });
        } else {
            time_window(
                "late entries",
                schedule.late_registration_until_minutes,
                played,
            )?;
        }
        self.reveal(seed)?;
        // Open seats at the tables with the fewest players; a new table when all are full.
        let fewest = self
            .state
            .tables
            .values()
            .map(|t| t.seats.len())
            .filter(|&n| n < usize::from(size))
            .min();
        let (table, seat, opened) = match fewest {
            Some(fewest) => {
                let open: Vec<(u32, Seat)> = self
                    .state
                    .tables
                    .iter()
                    .filter(|(_, t)| t.seats.len() == fewest)
                    .flat_map(|(&n, t)| {
                        (0..size)
                            .filter(|s| !t.seats.contains_key(s))
                            .map(move |s| (n, s))
                    })
                    .collect();
                let (t, s) = open[pick(seed, open.len()).min(open.len() - 1)];
                (t, s, false)
            }
            None => {
                let number = self.state.tables.keys().max().map_or(1, |n| n + 1);
                let s = pick(seed, usize::from(size));
                (number, Seat::try_from(s).unwrap_or(0), true)
            }
        };
        if opened {
            self.emit(TournamentEvent::TableOpened { table });
        }
        self.emit(TournamentEvent::PlayerEntered {
            player: player.to_owned(),
            reentry: reentry.is_some(),
            paid,
            chips,
            table,
            seat,
            opened_table: opened,
            seed: *seed,
            next_commitment,
            at,
        });
        self.settle()
    }

    fn blinds_now(&self, table: &Table) -> Result<(Blinds, Option<(Chips, Chips)>)> {
        let schedule = self.running()?;
        let Some(Level::Play { blinds, .. }) = schedule.levels.get(self.state.level).copied()
        else {
            return Err(TournamentError::OnBreak);
        };
        let Some(percent) = schedule.blind_cap_percent else {
            return Ok((blinds, None));
        };
        let stacks: Vec<Chips> = table
            .seats
            .values()
            .filter_map(|id| self.state.players.get(id).map(|p| p.chips))
            .collect();
        let players = u64::try_from(stacks.len()).unwrap_or(1).max(1);
        let average = stacks.iter().sum::<Chips>() / players;
        let unit = self.state.chip_unit.max(1);
        let cap = average.saturating_mul(u64::from(percent)) / 100 / unit * unit;
        if blinds.big_blind <= cap || cap == 0 {
            return Ok((blinds, None));
        }
        // The small blind and the ante keep their proportion to the big blind.
        let scale = |x: Chips| {
            let scaled = u128::from(x) * u128::from(cap) / u128::from(blinds.big_blind);
            u64::try_from(scaled).unwrap_or(x) / unit * unit
        };
        let capped = Blinds {
            small_blind: scale(blinds.small_blind).max(unit).min(cap),
            big_blind: cap,
            ante: match blinds.ante {
                AnteStructure::None => AnteStructure::None,
                AnteStructure::Uniform(a) => AnteStructure::Uniform(scale(a)),
                AnteStructure::BigBlind(a) => AnteStructure::BigBlind(scale(a)),
            },
        };
        Ok((capped, Some((blinds.big_blind, average))))
    }

    fn start_hand(&mut self, number: u32, seed: Option<&Seed>) -> Result<()> {
        self.running()?;
        let tracking = self.schedule()?.tracking;
        match (tracking, seed) {
            (Tracking::Results, _) => return Err(TournamentError::WrongTracking { tracking }),
            (Tracking::Dealt, None) => return Err(TournamentError::SeedRequired),
            (Tracking::Recorded, Some(_)) => return Err(TournamentError::SeedNotAllowed),
            _ => {}
        }
        if self.state.paused_since.is_some() {
            return Err(TournamentError::Paused);
        }
        if self.state.redraw.is_some() {
            return Err(TournamentError::RedrawDue);
        }
        if self.state.colour_up_due.is_some() {
            return Err(TournamentError::ColourUpDue);
        }
        let table = self.table(number)?;
        if table.in_hand() {
            return Err(TournamentError::HandInProgress { table: number });
        }
        let waiting: Vec<PlayerId> = table
            .seats
            .values()
            .filter(|id| {
                self.state
                    .players
                    .get(*id)
                    .is_some_and(|p| matches!(p.standing, Standing::Busted { .. }))
            })
            .cloned()
            .collect();
        if !waiting.is_empty() {
            return Err(TournamentError::RebuyDecisionPending { players: waiting });
        }
        if self.state.halted().contains(&number) {
            return Err(TournamentError::TableHalted {
                table: number,
                rule: "WPH 7: play halts on any table three or more players short".into(),
            });
        }
        if let Some(hfh) = &self.state.hand_for_hand
            && hfh.played.contains(&number)
            && !self.state.round_played()
        {
            let waiting = self
                .state
                .tables
                .keys()
                .filter(|t| !hfh.played.contains(t))
                .copied()
                .collect();
            return Err(TournamentError::WaitingForHandForHand { waiting });
        }
        let (blinds, capped_from) = self.blinds_now(table)?;
        let occupied = table.occupied();
        if occupied.len() < 2 {
            return Err(TournamentError::NotEnoughPlayers {
                players: occupied.len(),
            });
        }
        let positions = match (table.last, table.button) {
            (Some(last), _) => {
                next_positions(&self.state.rules(), last, &occupied, &table.big_blinds)?
            }
            (None, Some(button)) => Positions::first(button, &occupied)?,
            (None, None) => Positions::first(occupied[0], &occupied)?,
        };
        let mut seats = Vec::with_capacity(occupied.len());
        let mut penalised = Vec::new();
        for (&seat, id) in &table.seats {
            let p = self.entrant(id)?;
            if p.missed_hands > 0 {
                penalised.push(id.clone());
            }
            seats.push(SeatSetup {
                seat,
                stack: p.chips,
                absent: p.absent || p.missed_hands > 0,
            });
        }
        let antes = match blinds.ante {
            AnteStructure::None => Vec::new(),
            AnteStructure::Uniform(amount) => {
                occupied.iter().map(|&seat| Ante { seat, amount }).collect()
            }
            AnteStructure::BigBlind(amount) => vec![Ante {
                seat: positions.big_blind,
                amount,
            }],
        };
        let setup = HandSetup {
            button: positions.button,
            seats,
            big_blind: blinds.big_blind,
            blinds: positions.blinds(&occupied, blinds.small_blind, blinds.big_blind),
            antes: antes.into_iter().filter(|a| a.amount > 0).collect(),
            dealing: match seed {
                Some(seed) => Dealing::Seeded {
                    commitment: seed.commitment(),
                },
                None => Dealing::Recorded,
            },
            rules: self.state.rules(),
        };
        let hand_events = hand::decide(
            &HandState::new(),
            &HandCommand::Start {
                setup,
                seed: seed.copied(),
            },
        )?;
        let hand_no = table.hands + 1;
        self.emit(TournamentEvent::TableHandStarted {
            table: number,
            hand: hand_no,
            positions,
            blinds,
            capped_from,
            penalised,
        });
        for event in hand_events {
            self.emit(TournamentEvent::HandEvent {
                table: number,
                event,
            });
        }
        self.after_hand(number)
    }

    fn hand(&mut self, number: u32, command: &HandCommand) -> Result<()> {
        self.running()?;
        if matches!(command, HandCommand::Start { .. }) {
            return Err(TournamentError::UseStartHand);
        }
        let table = self.table(number)?;
        let Some(hand) = table.hand.as_deref().filter(|h| !h.is_over()) else {
            return Err(TournamentError::NoHandInProgress { table: number });
        };
        let hand_events = hand::decide(hand, command)?;
        for event in hand_events {
            self.emit(TournamentEvent::HandEvent {
                table: number,
                event,
            });
        }
        self.after_hand(number)
    }

    /// After a hand ends: announced re-buys, busts, then balancing and the finish.
    fn after_hand(&mut self, number: u32) -> Result<()> {
        let table = self.table(number)?;
        let Some(hand) = table.hand.as_deref() else {
            return Ok(());
        };
        if !hand.is_over() {
            return Ok(());
        }
        let hand_no = table.hands;
        let board: Vec<Card> = hand.board().collect();
        let mut busted: Vec<(PlayerId, Seat, Chips, Option<HandValue>)> = Vec::new();
        let mut announced = Vec::new();
        let mut knocker: BTreeMap<PlayerId, Option<PlayerId>> = BTreeMap::new();
        for &(seat, start) in &table.hand_start {
            let Some(id) = table.seats.get(&seat) else {
                continue;
            };
            let p = self.entrant(id)?;
            if p.rebuy_announced {
                announced.push(id.clone());
            } else if p.chips == 0 {
                let value = hand.hole_cards(seat).and_then(|hole| {
                    let mut cards = board.clone();
                    cards.extend(hole);
                    <[Card; 7]>::try_from(cards)
                        .ok()
                        .map(|c| eval::evaluate7(&c))
                });
                busted.push((id.clone(), seat, start, value));
                // The knock-out goes to the first winner of the last pot the player
                // could win (the pot holding the last of their chips).
                let by = table
                    .awards
                    .iter()
                    .rev()
                    .find(|(eligible, _)| eligible.contains(&seat))
                    .and_then(|(_, winner)| *winner)
                    .and_then(|w| table.seats.get(&w).cloned());
                knocker.insert(id.clone(), by);
            }
        }
        let schedule = self.schedule()?;
        let rebuys = schedule.rebuys;
        let order = schedule.house.bust_order;
        let preset = schedule.preset;
        let level = self.level_now();
        let played = self.state.played(self.state.last_at);
        for id in announced {
            self.make_rebuy(&id, true, self.state.last_at)?;
        }
        let mut out = Vec::new();
        for (id, seat, start, value) in busted {
            let p = self.entrant(&id)?;
            let can_rebuy = rebuys.is_some_and(|r| {
                window("re-buys", &r, level, played).is_ok() && p.rebuys < r.per_player
            });
            if can_rebuy {
                self.emit(TournamentEvent::PlayerBusted {
                    player: id,
                    table: number,
                    seat,
                    chips_to: None,
                });
            } else {
                out.push((id, start, value));
            }
        }
        if !out.is_empty() {
            let (rule, reason) = match order {
                BustOrder::LargerStartingStack => {
                    out.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
                    (
                        bust_rule(preset, order),
                        "several out in one hand: the larger starting stack finishes higher",
                    )
                }
                BustOrder::BetterHandThenStack => {
                    out.sort_by(|a, b| {
                        b.2.cmp(&a.2)
                            .then_with(|| b.1.cmp(&a.1))
                            .then_with(|| a.0.cmp(&b.0))
                    });
                    (
                        bust_rule(preset, order),
                        "several out in one hand: the better hand finishes higher, then the larger starting stack",
                    )
                }
            };
            let players: Vec<PlayerId> = out.into_iter().map(|(id, _, _)| id).collect();
            let knockouts = players
                .iter()
                .filter_map(|id| {
                    knocker.get(id).cloned().flatten().map(|by| Knockout {
                        player: id.clone(),
                        by,
                    })
                })
                .collect();
            let hfh = self.state.hand_for_hand.is_some();
            let (rule, reason) = if hfh {
                (
                    "hand-for-hand",
                    "out in the same hand-for-hand round: the places and prizes are shared",
                )
            } else {
                (rule, reason)
            };
            self.emit(TournamentEvent::PlayersEliminated {
                players,
                table: Some(number),
                hand: Some(hand_no),
                tied: hfh,
                knockouts,
                chips_to: None,
                chips: 0,
                rule: rule.into(),
                reason: reason.into(),
            });
        }
        self.settle()
    }

    fn eliminate_group(
        &mut self,
        players: Vec<PlayerId>,
        table: Option<u32>,
        rule: String,
        reason: String,
    ) {
        self.emit(TournamentEvent::PlayersEliminated {
            players,
            table,
            hand: None,
            tied: false,
            knockouts: Vec::new(),
            chips_to: None,
            chips: 0,
            rule,
            reason,
        });
    }

    fn eliminate(&mut self, players: &[PlayerId], by: Option<&PlayerId>) -> Result<()> {
        self.running()?;
        self.tracking(&[Tracking::Results])?;
        if players.is_empty() {
            return Err(TournamentError::NotEnoughPlayers { players: 0 });
        }
        let mut seen = BTreeSet::new();
        let mut group = Vec::with_capacity(players.len());
        for id in players {
            if !seen.insert(id) {
                return Err(TournamentError::DuplicatePlayer(id.clone()));
            }
            let p = self.entrant(id)?;
            if !p.is_in() {
                return Err(TournamentError::NotSeated(id.clone()));
            }
            group.push((id.clone(), p.chips));
        }
        if let Some(by) = by {
            if seen.contains(by) {
                return Err(TournamentError::DuplicatePlayer(by.clone()));
            }
            self.seated(by)?;
        }
        if self.state.remaining() <= players.len() {
            return Err(TournamentError::NotEnoughPlayers {
                players: self.state.remaining() - players.len(),
            });
        }
        // Where re-buys are bought only straight after the knock-out (invitational 1.3), a
        // player with one left is busted, not out: the host records the re-buy, or it is
        // declined, before the next hand.
        let level = self.level_now();
        let played = self.state.played(self.state.last_at);
        let after_bust = self.schedule()?.rebuys.filter(|r| r.after_bust_only);
        let mut busted = Vec::new();
        if let Some(policy) = after_bust {
            group.retain(|(id, _)| {
                let can = window("re-buys", &policy, level, played).is_ok()
                    && self.state.players.get(id).is_some_and(|p| {
                        p.rebuys < policy.per_player
                            && matches!(p.standing, Standing::Seated { .. })
                    });
                if can {
                    busted.push(id.clone());
                }
                !can
            });
        }
        for id in busted {
            let (table, seat) = self.seated(&id)?;
            self.emit(TournamentEvent::PlayerBusted {
                player: id,
                table,
                seat,
                chips_to: by.cloned(),
            });
        }
        if group.is_empty() {
            return self.settle();
        }
        // Several out together: the house's order by the chips they started the hand
        // with (the counts last recorded); as listed when those are equal.
        let schedule = self.schedule()?;
        let rule = bust_rule(schedule.preset, schedule.house.bust_order);
        if schedule.house.bust_order == BustOrder::LargerStartingStack {
            group.sort_by_key(|g| std::cmp::Reverse(g.1));
        }
        let chips: Chips = group.iter().map(|(_, c)| c).sum();
        let table = self.seated(&group[0].0).ok().map(|(t, _)| t);
        let hfh = self.state.hand_for_hand.is_some();
        let knocked: Vec<PlayerId> = group.iter().map(|(id, _)| id.clone()).collect();
        self.emit(TournamentEvent::PlayersEliminated {
            players: knocked,
            table,
            hand: None,
            tied: hfh,
            knockouts: by
                .map(|by| {
                    group
                        .iter()
                        .map(|(p, _)| Knockout {
                            player: p.clone(),
                            by: by.clone(),
                        })
                        .collect()
                })
                .unwrap_or_default(),
            chips_to: by.cloned(),
            chips: if by.is_some() { chips } else { 0 },
            rule: if hfh {
                "hand-for-hand".into()
            } else {
                rule.into()
            },
            reason: "recorded by the host".into(),
        });
        self.settle()
    }

    fn record_chips(&mut self, counts: &[(PlayerId, Chips)]) -> Result<()> {
        self.running()?;
        self.tracking(&[Tracking::Results])?;
        let mut seen = BTreeSet::new();
        for (id, _) in counts {
            if !seen.insert(id.clone()) {
                return Err(TournamentError::DuplicatePlayer(id.clone()));
            }
            if !self.entrant(id)?.is_in() {
                return Err(TournamentError::NotSeated(id.clone()));
            }
        }
        if let Some((missing, _)) = self
            .state
            .players
            .iter()
            .find(|(id, p)| p.is_in() && !seen.contains(*id))
        {
            return Err(TournamentError::MissingCount(missing.clone()));
        }
        let got = counts
            .iter()
            .try_fold(0u64, |sum, (_, c)| sum.checked_add(*c))
            .ok_or(TournamentError::Overflow)?;
        let expected = self.state.chips_in_play();
        if got != expected {
            return Err(TournamentError::ChipCountMismatch { expected, got });
        }
        self.emit(TournamentEvent::ChipsCounted {
            counts: counts.to_vec(),
        });
        Ok(())
    }

    fn rebuy_policy(&self, player: &str, obliged: bool, at: Millis) -> Result<PurchasePolicy> {
        let schedule = self.running()?;
        self.clock(at)?;
        let policy = schedule
            .rebuys
            .ok_or(TournamentError::NotOffered("re-buys"))?;
        let p = self.entrant(player)?;
        if !p.is_in() {
            return Err(TournamentError::NotSeated(player.to_owned()));
        }
        if obliged {
            return Ok(policy);
        }
        window("re-buys", &policy, self.level_now(), self.state.played(at))?;
        if p.rebuys >= policy.per_player {
            return Err(TournamentError::LimitReached {
                what: "re-buys",
                limit: policy.per_player,
            });
        }
        let busted = matches!(p.standing, Standing::Busted { .. });
        if policy.after_bust_only && !busted {
            return Err(TournamentError::RebuyOnlyAfterBust);
        }
        if let Some(max) = policy.max_stack
            && p.chips > max
        {
            return Err(TournamentError::StackTooLarge {
                what: "re-buys",
                max,
                got: p.chips,
            });
        }
        Ok(policy)
    }

    fn make_rebuy(&mut self, player: &str, obliged: bool, at: Millis) -> Result<()> {
        let policy = self.rebuy_policy(player, obliged, at)?;
        let paid = self
            .schedule()?
            .pool
            .rebuy
            .ok_or(TournamentError::NotOffered("re-buys"))?;
        self.emit(TournamentEvent::RebuyMade {
            player: player.to_owned(),
            chips: policy.chips,
            paid,
            obliged,
            at,
        });
        Ok(())
    }

    fn announce_rebuy(&mut self, player: &str, at: Millis) -> Result<()> {
        self.rebuy_policy(player, false, at)?;
        let p = self.entrant(player)?;
        if p.rebuy_announced {
            return Err(TournamentError::RebuyAnnounced(player.to_owned()));
        }
        let in_hand = p
            .seat()
            .and_then(|(t, _)| self.state.tables.get(&t))
            .is_some_and(Table::in_hand);
        if in_hand {
            self.emit(TournamentEvent::RebuyAnnounced {
                player: player.to_owned(),
                at,
            });
            Ok(())
        } else {
            self.make_rebuy(player, false, at)
        }
    }

    fn rebuy(&mut self, player: &str, at: Millis) -> Result<()> {
        let p = self.entrant(player)?;
        if let Some((t, _)) = p.seat() {
            self.between_hands(t)?;
        }
        self.make_rebuy(player, false, at)?;
        self.settle()
    }

    fn add_on(&mut self, player: &str, at: Millis) -> Result<()> {
        let schedule = self.running()?;
        self.clock(at)?;
        let policy = schedule
            .add_ons
            .ok_or(TournamentError::NotOffered("add-ons"))?;
        let paid = schedule
            .pool
            .add_on
            .ok_or(TournamentError::NotOffered("add-ons"))?;
        window("add-ons", &policy, self.level_now(), self.state.played(at))?;
        let (table, _) = self.seated(player)?;
        self.between_hands(table)?;
        let p = self.entrant(player)?;
        if p.add_ons >= policy.per_player {
            return Err(TournamentError::LimitReached {
                what: "add-ons",
                limit: policy.per_player,
            });
        }
        if let Some(max) = policy.max_stack
            && p.chips > max
        {
            return Err(TournamentError::StackTooLarge {
                what: "add-ons",
                max,
                got: p.chips,
            });
        }
        self.emit(TournamentEvent::AddOnMade {
            player: player.to_owned(),
            chips: policy.chips,
            paid,
            at,
        });
        Ok(())
    }

    fn redraw(&mut self, seed: &Seed, next_commitment: Commitment) -> Result<()> {
        self.running()?;
        let due = self.state.redraw.ok_or(TournamentError::NoRedrawDue)?;
        if let Some(player) = self.any_busted() {
            return Err(TournamentError::RebuyDecisionPending {
                players: vec![player],
            });
        }
        if let Some((&table, _)) = self.state.tables.iter().find(|(_, t)| t.in_hand()) {
            return Err(TournamentError::HandInProgress { table });
        }
        self.reveal(seed)?;
        let schedule = self.schedule()?;
        let rule = redraw_rule(schedule.preset, due.seats).to_owned();
        let (seats, buttons) = if due.seats {
            let entrants: Vec<String> = self
                .state
                .players
                .iter()
                .filter(|(_, p)| p.is_in())
                .map(|(id, _)| id.clone())
                .collect();
            let order: Vec<Seat> = (0..schedule.table_size).collect();
            // Late entries may have come in since the redraw was called.
            let size = usize::from(schedule.table_size);
            let tables = usize::try_from(due.tables)
                .unwrap_or(1)
                .max(entrants.len().div_ceil(size))
                .max(1);
            let seats: Vec<Seating> = draw_seats(seed, &entrants, tables, &order)?
                .into_iter()
                .map(|a| Seating {
                    player: a.entrant,
                    table: a.table + 1,
                    seat: a.seat,
                })
                .collect();
            let buttons = buttons(seed, &seats)?;
            (seats, buttons)
        } else {
            let mut buttons = Vec::new();
            for (&number, table) in &self.state.tables {
                let mut draw = draw_button(seed, number, &table.occupied())?;
                draw.table = number;
                buttons.push(draw);
            }
            (Vec::new(), buttons)
        };
        self.emit(TournamentEvent::SeatsRedrawn {
            seed: *seed,
            next_commitment,
            seats,
            buttons,
            rule,
        });
        self.settle()
    }

    fn colour_up(&mut self, seed: Option<&Seed>, next: Option<Commitment>) -> Result<()> {
        let schedule = self.running()?;
        let policy = schedule.house.colour_up;
        let preset = schedule.preset;
        let d = self
            .state
            .colour_up_due
            .ok_or(TournamentError::NoColourUpDue)?;
        if let Some((&table, _)) = self.state.tables.iter().find(|(_, t)| t.in_hand()) {
            return Err(TournamentError::HandInProgress { table });
        }
        let (seed, next) = match (policy, seed, next) {
            (ColourUpPolicy::ChipRace, Some(seed), Some(next)) => {
                self.reveal(seed)?;
                (Some(*seed), Some(next))
            }
            (ColourUpPolicy::ChipRace, _, _) => return Err(TournamentError::RaceNeedsSeed),
            (ColourUpPolicy::RoundUp, _, _) => (None, None),
        };
        let mut players = Vec::new();
        let (mut removed, mut added) = (0, 0);
        for (&number, table) in &self.state.tables {
            let mut holdings = Vec::new();
            for (&seat, id) in &table.seats {
                let chips = self.entrant(id)?.chips;
                // Every other chip in play is a multiple of `high`: the low chips are
                // what is left over above the last multiple.
                let low_value = chips % d.high;
                holdings.push(Holding {
                    seat,
                    low_chips: low_value / d.low,
                    other_value: chips - low_value + low_value % d.low,
                });
            }
            let race = seed.map(|s| derive_seed(&s, "race", number));
            let up = colour_up(policy, d.low, d.high, &holdings, race.as_ref())?;
            removed += up.removed;
            added += up.added;
            for c in up.players {
                let Some(id) = table.seats.get(&c.seat) else {
                    continue;
                };
                players.push(ColouredPlayer {
                    player: id.clone(),
                    table: number,
                    seat: c.seat,
                    before: self.entrant(id)?.chips,
                    after: c.value,
                    cards: c.cards,
                    raced: c.raced,
                });
            }
        }
        let rule = match (preset, policy) {
            (Preset::QueenSix, _) => "QueenSix 8",
            (Preset::Wph, ColourUpPolicy::RoundUp) => "WPH 17 (nightly games)",
            (Preset::Wph, ColourUpPolicy::ChipRace) => "WPH 17 (major events)",
            (Preset::Invitational, _) => "invitational 2.4",
            (_, ColourUpPolicy::RoundUp) => "round up",
            (_, ColourUpPolicy::ChipRace) => "chip race",
        };
        self.emit(TournamentEvent::ChipsColouredUp {
            low: d.low,
            high: d.high,
            policy,
            players,
            removed,
            added,
            seed,
            next_commitment: next,
            rule: rule.into(),
        });
        Ok(())
    }

    fn penalise(&mut self, player: &str, penalty: Penalty) -> Result<()> {
        let schedule = self.running()?;
        let rule = schedule.house.penalty_rule.clone();
        let p = self.entrant(player)?;
        if !p.is_in() {
            return Err(TournamentError::NotSeated(player.to_owned()));
        }
        let (table, _) = p
            .seat()
            .ok_or(TournamentError::NotSeated(player.to_owned()))?;
        let at_table = count(self.table(table)?.seats.len());
        let hands = match penalty {
            Penalty::Warning | Penalty::Disqualify => 0,
            Penalty::MissHands(h) => h,
            Penalty::MissRounds(r) => r.saturating_mul(at_table),
        };
        if penalty == Penalty::Disqualify {
            self.between_hands(table)?;
            let chips = p.chips;
            self.emit(TournamentEvent::PenaltyGiven {
                player: player.to_owned(),
                penalty,
                hands,
                rule: rule.clone(),
            });
            self.emit(TournamentEvent::PlayerDisqualified {
                player: player.to_owned(),
                chips_removed: chips,
                rule: rule.clone(),
            });
            self.eliminate_group(
                vec![player.to_owned()],
                Some(table),
                rule,
                "disqualified: chips removed from play".into(),
            );
            return self.settle();
        }
        self.emit(TournamentEvent::PenaltyGiven {
            player: player.to_owned(),
            penalty,
            hands,
            rule,
        });
        Ok(())
    }

    fn move_player(&mut self, player: &str, to_table: u32, to_seat: Seat) -> Result<()> {
        let schedule = self.running()?;
        let rule = schedule.house.balance;
        let size = schedule.table_size;
        let (from_table, from_seat) = self.seated(player)?;
        self.between_hands(from_table)?;
        let dest = self.table(to_table)?;
        if to_seat >= size || dest.seats.contains_key(&to_seat) || to_table == from_table {
            return Err(TournamentError::SeatTaken {
                table: to_table,
                seat: to_seat,
            });
        }
        // The tables as they would be after the move must need no balancing move.
        let mut after = self.state.clone();
        after.seat(player, to_table, to_seat);
        let rule_name = match rule {
            BalanceRule::QueenSix => "QueenSix 15",
            BalanceRule::WorstPosition => "WPH 7",
            BalanceRule::Invitational => "invitational 2.1",
        };
        if let Some(m) = balance::balance(rule, &after.balance_view()).next_move {
            return Err(TournamentError::MoveBreaksBalancing {
                rule: rule_name.into(),
                reason: format!(
                    "afterwards table {} would have to give a player to table {}",
                    m.from_table, m.to_table
                ),
            });
        }
        let players = dest.seats.len();
        self.emit(TournamentEvent::PlayerMoved {
            player: player.to_owned(),
            moved: Move {
                from_table,
                from_seat,
                to_table,
                to_seat,
                rule: format!("director's move within {rule_name}"),
                reason: format!(
                    "moved by the director to table {to_table} ({players} players), seat {to_seat}"
                ),
            },
        });
        self.settle()
    }

    fn set_payouts(&mut self, amounts: &[Cents]) -> Result<()> {
        if self.state.stage == Stage::Finished {
            return Err(TournamentError::Finished);
        }
        let pool = self.state.prize_pool()?.total;
        if amounts.is_empty() {
            return Err(TournamentError::BadPayouts("no places paid".into()));
        }
        if amounts.windows(2).any(|w| w[1] > w[0]) {
            return Err(TournamentError::BadPayouts(
                "a place pays more than the place above".into(),
            ));
        }
        if amounts.len() > self.state.field() {
            return Err(TournamentError::BadPayouts(format!(
                "{} places paid, {} players",
                amounts.len(),
                self.state.field()
            )));
        }
        let sum = amounts
            .iter()
            .try_fold(0u64, |s, a| s.checked_add(*a))
            .ok_or(TournamentError::Overflow)?;
        if sum != pool {
            return Err(TournamentError::PayoutsDoNotSumToPool { pool, sum });
        }
        self.emit(TournamentEvent::PayoutsSet {
            pool,
            amounts: amounts.to_vec(),
        });
        Ok(())
    }

    fn deal(&mut self, kind: DealKind, accepted: &[PlayerId]) -> Result<()> {
        self.running()?;
        if let Some((&table, _)) = self.state.tables.iter().find(|(_, t)| t.in_hand()) {
            return Err(TournamentError::HandInProgress { table });
        }
        let remaining: Vec<(PlayerId, Chips)> = self
            .state
            .players
            .iter()
            .filter(|(_, p)| p.is_in())
            .map(|(id, p)| (id.clone(), p.chips))
            .collect();
        let accepted: BTreeSet<&PlayerId> = accepted.iter().collect();
        for id in &accepted {
            if !remaining.iter().any(|(r, _)| r == *id) {
                return Err(TournamentError::NotInDeal((*id).clone()));
            }
        }
        let missing: Vec<PlayerId> = remaining
            .iter()
            .filter(|(id, _)| !accepted.contains(id))
            .map(|(id, _)| id.clone())
            .collect();
        if !missing.is_empty() {
            return Err(TournamentError::DealNotAccepted { missing });
        }
        let prizes = self.state.prizes()?;
        let top: Vec<Cents> = (0..remaining.len())
            .map(|i| prizes.get(i).copied().unwrap_or(0))
            .collect();
        let stacks: Vec<Chips> = remaining.iter().map(|(_, c)| *c).collect();
        let amounts = deal(kind, &top, &stacks)?;
        self.emit(TournamentEvent::DealMade {
            kind,
            players: remaining.into_iter().map(|(id, _)| id).collect(),
            stacks,
            amounts,
        });
        self.finish()
    }

    /// Carries the tournament forward: hand-for-hand, balancing, breaking, the finish.
    fn settle(&mut self) -> Result<()> {
        self.hand_for_hand();
        self.rebalance()?;
        self.hand_for_hand();
        let remaining = self.state.remaining();
        let waiting = self
            .state
            .players
            .values()
            .any(|p| matches!(p.standing, Standing::Busted { .. }));
        if remaining <= 1 && !waiting && !self.state.in_any_hand() {
            self.finish()?;
        }
        Ok(())
    }

    fn hand_for_hand(&mut self) {
        let remaining = self.state.remaining();
        let paid = self.state.paid_places();
        let tables = self.state.tables.len();
        let due = tables >= 2 && remaining == paid + 1;
        // A round ends only when every table has played its hand: a player busted at
        // another table in the same round shares the places (Oracle tournament rule 3).
        let over = (remaining <= paid || tables < 2) && !self.state.in_any_hand();
        match (&self.state.hand_for_hand, due, over) {
            (None, true, _) => self.emit(TournamentEvent::HandForHandStarted {
                remaining: count(remaining),
                paid: count(paid),
            }),
            (Some(_), _, true) => self.emit(TournamentEvent::HandForHandEnded),
            _ => {}
        }
    }

    fn rebalance(&mut self) -> Result<()> {
        let Some(schedule) = self.state.schedule.as_deref() else {
            return Ok(());
        };
        let house = schedule.house.clone();
        let size = usize::from(schedule.table_size);
        let break_order = schedule.break_order.clone();
        let preset = schedule.preset;
        // Each round moves one player or breaks one table; the field is finite.
        for _ in 0..(MAX_SEATS * 64) {
            if self.state.redraw.is_some()
                || self.state.stage != Stage::Running
                || self.any_busted().is_some()
            {
                return Ok(());
            }
            let seated: usize = self.state.tables.values().map(|t| t.seats.len()).sum();
            let tables = self.state.tables.len();
            let needed = seated.div_ceil(size).max(1);
            if tables > needed {
                let target = count(tables - 1);
                if house.redraw_at.contains(&target) {
                    if self.state.in_any_hand() {
                        return Ok(());
                    }
                    self.emit(TournamentEvent::RedrawRequired {
                        tables: target,
                        seats: true,
                        rule: redraw_rule(preset, true).into(),
                    });
                    return Ok(());
                }
                let Some(breaking) = next_to_break(&self.state.tables, &break_order) else {
                    return Ok(());
                };
                if self.state.tables.get(&breaking).is_some_and(Table::in_hand)
                    || self.busted_at(breaking)
                {
                    return Ok(());
                }
                self.break_table(breaking, preset)?;
                if target == 1 && house.final_table_button_draw {
                    self.emit(TournamentEvent::RedrawRequired {
                        tables: 1,
                        seats: false,
                        rule: redraw_rule(preset, false).into(),
                    });
                    return Ok(());
                }
                continue;
            }
            let view = self.state.balance_view();
            let Some(m) = balance::balance(house.balance, &view).next_move else {
                return Ok(());
            };
            if self
                .state
                .tables
                .get(&m.from_table)
                .is_some_and(Table::in_hand)
                || self.busted_at(m.from_table)
            {
                return Ok(());
            }
            let Some(player) = self
                .state
                .tables
                .get(&m.from_table)
                .and_then(|t| t.seats.get(&m.from_seat))
                .cloned()
            else {
                return Ok(());
            };
            self.emit(TournamentEvent::PlayerMoved { player, moved: m });
        }
        Ok(())
    }

    /// A busted player who has still to decide on a re-buy.
    fn any_busted(&self) -> Option<PlayerId> {
        self.state
            .players
            .iter()
            .find(|(_, p)| matches!(p.standing, Standing::Busted { .. }))
            .map(|(id, _)| id.clone())
    }

    /// A busted player at the table still has to decide on a re-buy: nobody moves from it.
    fn busted_at(&self, number: u32) -> bool {
        self.state.tables.get(&number).is_some_and(|t| {
            t.seats.values().any(|id| {
                self.state
                    .players
                    .get(id)
                    .is_some_and(|p| matches!(p.standing, Standing::Busted { .. }))
            })
        })
    }

    /// Breaks a table: its players, in the order they are due the big blind, take the
    /// open seats due the big blind soonest at the smallest tables.
    fn break_table(&mut self, number: u32, preset: Preset) -> Result<()> {
        let table = self.table(number)?.clone();
        let rule = match preset {
            Preset::QueenSix => "QueenSix 11, 13",
            Preset::Wph => "WPH 6",
            Preset::Oracle => "Oracle: breaking tables (as WPH 6)",
            Preset::Invitational => "invitational 2.1",
            _ => "tables break in the preset order",
        };
        let seated = self.state.remaining();
        let next = self.state.upcoming(&table);
        let mut movers: Vec<(Seat, PlayerId)> =
            table.seats.iter().map(|(&s, id)| (s, id.clone())).collect();
        movers.sort_by_key(|(s, _)| due_after(*s, next.big_blind));
        let size = self.schedule()?.table_size;
        // Seat the movers one by one on a scratch copy, each seeing the seats taken before.
        let mut scratch = self.state.clone();
        scratch.tables.remove(&number);
        let mut moves = Vec::with_capacity(movers.len());
        for (from_seat, player) in movers {
            let Some((&to_table, dest)) = scratch
                .tables
                .iter()
                .filter(|(_, t)| t.seats.len() < usize::from(size))
                .min_by_key(|(n, t)| (t.seats.len(), **n))
            else {
                return Ok(());
            };
            let upcoming = scratch.upcoming(dest);
            let Some(to_seat) = (0..size)
                .filter(|s| !dest.seats.contains_key(s))
                .min_by_key(|&s| due_after(s, upcoming.big_blind))
            else {
                return Ok(());
            };
            let players = dest.seats.len();
            scratch
                .tables
                .entry(to_table)
                .or_default()
                .seats
                .insert(to_seat, player.clone());
            moves.push((
                player,
                Move {
                    from_table: number,
                    from_seat,
                    to_table,
                    to_seat,
                    rule: rule.into(),
                    reason: format!(
                        "table {number} broken: to the smallest table ({to_table}, {players} players), the open seat due the big blind soonest"
                    ),
                },
            ));
        }
        self.emit(TournamentEvent::TableBroken {
            table: number,
            moves,
            rule: rule.into(),
            reason: format!(
                "{seated} players fit {} tables",
                self.state.tables.len().saturating_sub(1)
            ),
        });
        Ok(())
    }

    fn finish(&mut self) -> Result<()> {
        let pool = self.state.prize_pool()?;
        let prizes = self.state.prizes()?;
        let mut places = self.state.places();
        // The players still in finish by the deal (by chips), or the last one wins.
        let remaining: Vec<(PlayerId, Chips)> = self
            .state
            .players
            .iter()
            .filter(|(_, p)| p.is_in())
            .map(|(id, p)| (id.clone(), p.chips))
            .collect();
        let mut by_chips = remaining.clone();
        by_chips.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        for (i, (id, _)) in by_chips.iter().enumerate() {
            if let Some(entry) = places.iter_mut().find(|(p, _, _)| p == id) {
                entry.1 = count(i + 1);
                entry.2 = 1;
            }
        }
        places.sort_by(|a, b| a.1.cmp(&b.1).then_with(|| a.0.cmp(&b.0)));
        // Groups in finishing order for the payout of ties.
        let mut groups = Vec::new();
        let mut i = 0;
        while i < places.len() {
            let shared = usize::try_from(places[i].2).unwrap_or(1).max(1);
            groups.push(shared);
            i += shared;
        }
        let paid = pay_finish(&prizes, &groups)?;
        let deal = self.state.deal.clone();
        let results = places
            .iter()
            .zip(paid)
            .map(|((id, place, shared), prize)| {
                let p = self.state.players.get(id).cloned().unwrap_or_default();
                let prize = deal
                    .as_ref()
                    .and_then(|(players, amounts)| {
                        players
                            .iter()
                            .position(|d| d == id)
                            .and_then(|k| amounts.get(k).copied())
                    })
                    .unwrap_or(prize);
                Finish {
                    player: id.clone(),
                    place: *place,
                    shared: *shared,
                    prize,
                    entries: p.entries,
                    rebuys: p.rebuys,
                    add_ons: p.add_ons,
                    knockouts: p.knockouts,
                }
            })
            .collect();
        self.emit(TournamentEvent::TournamentFinished { pool, results });
        Ok(())
    }
}

/// How many hands until `seat` is due the big blind, counting the big blind's own seat
/// as 0 (seats clockwise from it).
fn due_after(seat: Seat, big_blind: Seat) -> usize {
    (usize::from(seat) + MAX_SEATS - usize::from(big_blind) % MAX_SEATS) % MAX_SEATS
}

/// Whether a purchase window is open at `level` with `played` milliseconds on the
/// tournament clock.
fn window(what: &'static str, policy: &PurchasePolicy, level: u32, played: Millis) -> Result<()> {
    if level < policy.from_level || level > policy.until_level {
        return Err(TournamentError::WindowClosed {
            what,
            from_level: policy.from_level,
            until_level: policy.until_level,
            level,
        });
    }
    time_window(what, policy.until_minutes, played)
}

/// Whether `played` milliseconds are within the first `until_minutes` minutes.
fn time_window(what: &'static str, until_minutes: Option<u32>, played: Millis) -> Result<()> {
    match until_minutes {
        Some(minutes) if played >= Millis::from(minutes).saturating_mul(60_000) => {
            Err(TournamentError::TimeWindowClosed {
                what,
                until_minutes: minutes,
                played_ms: played,
            })
        }
        _ => Ok(()),
    }
}

/// The rule that orders several players out in one hand.
fn bust_rule(preset: Preset, order: BustOrder) -> &'static str {
    match (preset, order) {
        (_, BustOrder::BetterHandThenStack) => "invitational 10.1",
        (Preset::QueenSix, _) => "QueenSix 31",
        (Preset::Oracle, _) => "Oracle tournament rule 3",
        (Preset::Wph, _) => "WPH does not say: the larger starting stack (engine default)",
        _ => "the larger starting stack",
    }
}

fn redraw_rule(preset: Preset, seats: bool) -> &'static str {
    match (preset, seats) {
        (Preset::QueenSix, _) => "QueenSix 16: redraw at three, two and one tables",
        (Preset::Invitational, _) => {
            "invitational 2.2: combined tables draw seats and the button as a new game"
        }
        (Preset::Oracle, false) => "Oracle 14: a draw for the button at the final table",
        _ => "redraw",
    }
}

fn next_to_break(tables: &BTreeMap<u32, Table>, order: &[u32]) -> Option<u32> {
    order
        .iter()
        .copied()
        .find(|n| tables.contains_key(n))
        .or_else(|| tables.keys().next_back().copied())
}

fn buttons(seed: &Seed, seats: &[Seating]) -> Result<Vec<ButtonDraw>> {
    let mut by_table: BTreeMap<u32, Vec<Seat>> = BTreeMap::new();
    for s in seats {
        by_table.entry(s.table).or_default().push(s.seat);
    }
    by_table
        .into_iter()
        .map(|(table, mut seats)| {
            seats.sort_unstable();
            Ok(draw_button(seed, table, &seats)?)
        })
        .collect()
}

fn validate_schedule(s: &Schedule) -> Result<()> {
    let bad = |m: &str| Err(TournamentError::BadSchedule(m.to_owned()));
    if !(2..=10).contains(&s.table_size) {
        return bad("a table seats 2 to 10 players");
    }
    if s.starting_chips == 0 || s.chip_unit == 0 || !s.starting_chips.is_multiple_of(s.chip_unit) {
        return bad("starting chips must be a positive multiple of the chip unit");
    }
    match s.levels.first() {
        Some(Level::Play { .. }) => {}
        Some(Level::Break { .. }) => return bad("the first level must be a playing level"),
        None => return bad("no levels"),
    }
    let mut unit = s.chip_unit;
    for (i, level) in s.levels.iter().enumerate() {
        let n = i + 1;
        match *level {
            Level::Play { blinds, minutes } => {
                if minutes == 0 {
                    return bad(&format!("level {n} has no minutes"));
                }
                if blinds.big_blind == 0 || blinds.small_blind > blinds.big_blind {
                    return bad(&format!(
                        "level {n}: the big blind must be positive and at least the small blind"
                    ));
                }
                let ante = match blinds.ante {
                    AnteStructure::None => 0,
                    AnteStructure::Uniform(a) | AnteStructure::BigBlind(a) => a,
                };
                if [blinds.small_blind, blinds.big_blind, ante]
                    .iter()
                    .any(|x| x % unit != 0)
                {
                    return bad(&format!(
                        "level {n}: blinds and antes must be multiples of the smallest chip ({unit})"
                    ));
                }
            }
            Level::Break { colour_up, .. } => {
                if let Some(d) = colour_up {
                    if d.low != unit || d.high <= d.low || d.high % d.low != 0 {
                        return bad(&format!(
                            "level {n}: a colour-up takes the smallest chip ({unit}) up to a multiple of it"
                        ));
                    }
                    unit = d.high;
                }
            }
        }
    }
    let levels = count(s.levels.len());
    for (what, policy) in [
        ("re-buy", s.rebuys),
        ("add-on", s.add_ons),
        ("re-entry", s.reentries),
    ] {
        if let Some(p) = policy {
            if p.chips == 0 || p.per_player == 0 {
                return bad(&format!(
                    "a {what} must give chips and be allowed at least once"
                ));
            }
            if p.from_level == 0 || p.from_level > p.until_level || p.until_level > levels {
                return bad(&format!("the {what} window must lie within the levels"));
            }
        }
    }
    if s.rebuys.is_some() != s.pool.rebuy.is_some() {
        return bad("re-buys need both a policy and a price");
    }
    if s.add_ons.is_some() != s.pool.add_on.is_some() {
        return bad("add-ons need both a policy and a price");
    }
    if s.late_registration_until_level > levels {
        return bad("late registration must close within the levels");
    }
    if s.blind_cap_percent == Some(0) {
        return bad("a blind cap of 0% leaves no blinds");
    }
    Ok(())
}
