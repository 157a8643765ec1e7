//! One hand of No-Limit Hold'em as `decide(&state, command)` and `apply(state, &event)`.
//!
//! # Model
//!
//! Players are held by *position*: position 0 is the first occupied seat clockwise from
//! the button, the last position is the button itself (heads-up: position 0 is the big
//! blind and position 1 the button, which posts the small blind). This is the order the
//! PHH format and PokerKit use (`p1` .. `pN`), the order in which odd chips and showdowns
//! go round the table, and it makes the betting queue a walk round an array. Events name
//! table seats, never positions.
//!
//! `decide` never mutates: it works on a copy of the state, applying each event it emits
//! with the very `apply` that replay uses, so what is decided and what is replayed cannot
//! drift apart. After a command it runs the hand forward as far as the rules allow without
//! a person: absent players are folded, uncalled bets are returned, the board is dealt
//! (seeded dealing), all-in hands are turned up, pots are awarded.
//!
//! # Chips
//!
//! Antes are dead money and go to the main pot (PHH `ante_trimming_status = false`);
//! blinds and straddles are live bets. A short blind or ante puts the player all-in for
//! what they have; the minimum bet and raise stay at the full big blind. Uncalled bets go
//! back before pots are built; pots are built level by level from what each player put
//! in, each awarded separately (side pots first) among the players still holding cards.
//!
//! # Invariants (checked by [`HandState::check_invariants`] in the tests after every event)
//!
//! - chips are conserved: stacks + everything put in = the starting stacks;
//! - no stack is negative (chips are `u64`, and every subtraction is checked);
//! - while betting, exactly one seat is to act; between streets or once over, none.

use serde::{Deserialize, Serialize};

use crate::card::Card;
use crate::deck::{Commitment, Deck, Seed};
use crate::eval::{self, HandValue};
use crate::rules::{
    HouseRules, MisdealCutoff, OddChip, OutOfTurn, ShortAllIn, ShowdownOrder, UndersizedRaise,
};

/// The most players a hand can seat.
pub const MAX_SEATS: usize = 10;

/// A seat number at the table, `0..MAX_SEATS`.
pub type Seat = u8;

/// A forced bet other than an ante.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum BlindKind {
    SmallBlind,
    BigBlind,
    Straddle,
}

/// One blind or straddle owed at the start of the hand (the full amount; a short stack
/// posts what it has).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Blind {
    pub seat: Seat,
    pub kind: BlindKind,
    pub amount: u64,
}

/// One ante owed at the start of the hand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ante {
    pub seat: Seat,
    pub amount: u64,
}

/// A player dealt into the hand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatSetup {
    pub seat: Seat,
    pub stack: u64,
    /// Dealt in and blinded, and folded when the action reaches them.
    #[serde(default)]
    pub absent: bool,
}

/// How the cards come.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Dealing {
    /// The server deals from a deck ordered by a seed whose `sha256` is published here;
    /// the seed is revealed when the hand ends.
    Seeded { commitment: Commitment },
    /// A physical deck: the host records the board and the shown hands.
    Recorded,
}

/// Everything fixed at the start of a hand.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HandSetup {
    pub button: Seat,
    /// Occupied seats dealt in, in ascending seat order.
    pub seats: Vec<SeatSetup>,
    /// The minimum bet, and the smallest raise.
    pub big_blind: u64,
    pub blinds: Vec<Blind>,
    pub antes: Vec<Ante>,
    pub dealing: Dealing,
    pub rules: HouseRules,
}

/// The antes of a standard structure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum AnteStructure {
    None,
    /// Every player posts the same ante.
    Uniform(u64),
    /// The big blind posts one ante for the table.
    BigBlind(u64),
}

impl HandSetup {
    /// The usual structure: the blinds clockwise from the button (heads-up the button
    /// posts the small blind), antes, and an optional live straddle by the player left of
    /// the big blind. `seats` may be in any order; it is sorted.
    #[expect(
        clippy::too_many_arguments,
        reason = "a blind structure has this many parts"
    )]
    pub fn standard(
        button: Seat,
        mut seats: Vec<SeatSetup>,
        small_blind: u64,
        big_blind: u64,
        antes: AnteStructure,
        straddle: Option<u64>,
        dealing: Dealing,
        rules: HouseRules,
    ) -> Result<HandSetup, RuleError> {
        seats.sort_by_key(|s| s.seat);
        let order = clockwise_from(button, &seats);
        if order.len() < 2 {
            return Err(RuleError::NotEnoughPlayers {
                players: order.len(),
            });
        }
        let (sb, bb) = if order.len() == 2 {
            (order[1], order[0])
        } else {
            (order[0], order[1])
        };
        let mut blinds = vec![
            Blind {
                seat: sb,
                kind: BlindKind::SmallBlind,
                amount: small_blind,
            },
            Blind {
                seat: bb,
                kind: BlindKind::BigBlind,
                amount: big_blind,
            },
        ];
        if let Some(amount) = straddle {
            if order.len() < 3 {
                return Err(RuleError::BadSetup(
                    "a straddle needs three or more players",
                ));
            }
            blinds.push(Blind {
                seat: order[2],
                kind: BlindKind::Straddle,
                amount,
            });
        }
        let antes = match antes {
            AnteStructure::None => Vec::new(),
            AnteStructure::Uniform(amount) => seats
                .iter()
                .map(|s| Ante {
                    seat: s.seat,
                    amount,
                })
                .collect(),
            AnteStructure::BigBlind(amount) => vec![Ante { seat: bb, amount }],
        };
        Ok(HandSetup {
            button,
            seats,
            big_blind,
            blinds,
            antes,
            dealing,
            rules,
        })
    }
}

/// Occupied seats clockwise from the seat after `button`.
fn clockwise_from(button: Seat, seats: &[SeatSetup]) -> Vec<Seat> {
    let mut order: Vec<Seat> = seats.iter().map(|s| s.seat).collect();
    order.sort_unstable();
    let split = order
        .iter()
        .position(|&s| s > button)
        .unwrap_or(order.len());
    order.rotate_left(split);
    order
}

/// What a player does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
pub enum VoidReason {
    /// A misdeal declared before the house's cut-off.
    Misdeal(String),
    /// Two cards of the same rank and suit: all action is void whenever it is found.
    DuplicateCard(Card),
    /// A card with a different back, or any other defect of the deck.
    DeckDefect(String),
}

/// A command to the hand.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
}

/// How an out-of-turn action was ruled when the player's turn came.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum OutOfTurnRuling {
    /// The action it faced has not changed: it stands, and is taken now.
    Binding,
    /// The action changed: the player acts as if nothing had been declared.
    Released,
    /// The player must call (an intervening bet smaller than theirs, or a raise out of
    /// turn that binds only to a call).
    MustCall,
    /// The player must check (WPH 31: the in-turn player checked; the bet is taken back).
    MustCheck,
    /// The player may call or fold, but not bet or raise this turn.
    NoRaise,
}

/// Streets of the hand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Street {
    Preflop,
    Flop,
    Turn,
    River,
}

impl Street {
    fn next(self) -> Option<Street> {
        match self {
            Street::Preflop => Some(Street::Flop),
            Street::Flop => Some(Street::Turn),
            Street::Turn => Some(Street::River),
            Street::River => None,
        }
    }

    /// Board cards dealt on this street.
    pub fn cards(self) -> usize {
        match self {
            Street::Preflop => 0,
            Street::Flop => 3,
            Street::Turn | Street::River => 1,
        }
    }
}

/// Why a player's hand was folded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum FoldReason {
    /// The player folded.
    Folded,
    /// The player is absent: dealt in, blinded, and folded when the action reaches them.
    Absent,
    /// The clock ran out: the hand is dead.
    ClockExpired,
}

/// One player's share of a pot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Share {
    pub seat: Seat,
    pub amount: u64,
}

/// Something that happened in the hand. Amounts are chips; `to` amounts are the player's
/// total for the betting round.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", content = "data")]
pub enum Event {
    HandStarted {
        setup: Box<HandSetup>,
    },
    /// The deck's seed, kept private until the hand ends (then revealed in `HandEnded`).
    DeckSealed {
        seed: Seed,
    },
    AntePosted {
        seat: Seat,
        amount: u64,
        all_in: bool,
    },
    BlindPosted {
        seat: Seat,
        kind: BlindKind,
        amount: u64,
        all_in: bool,
    },
    /// Private to the player until shown.
    HoleCardsDealt {
        seat: Seat,
        cards: [Card; 2],
    },
    /// The forced bets are in and the cards are out: the first betting round opens.
    PreflopStarted,
    PlayerFolded {
        seat: Seat,
        reason: FoldReason,
    },
    PlayerChecked {
        seat: Seat,
    },
    PlayerCalled {
        seat: Seat,
        amount: u64,
        all_in: bool,
    },
    PlayerBet {
        seat: Seat,
        to: u64,
        all_in: bool,
    },
    /// `declared` is set when an under-sized raise was brought up (or turned into a call)
    /// by the house rule named in `rule`.
    PlayerRaised {
        seat: Seat,
        to: u64,
        all_in: bool,
        full: bool,
        declared: Option<u64>,
    },
    /// An under-sized raise that the house rule turns into a call.
    RaiseTreatedAsCall {
        seat: Seat,
        declared: u64,
        rule: UndersizedRaise,
    },
    UncalledBetReturned {
        seat: Seat,
        amount: u64,
    },
    BoardDealt {
        street: Street,
        cards: Vec<Card>,
    },
    ShowdownStarted {
        order: Vec<Seat>,
    },
    HandShown {
        seat: Seat,
        cards: [Card; 2],
    },
    HandMucked {
        seat: Seat,
    },
    /// Pot `pot` (0 is the main pot) of `amount`, contested by `eligible`, split among the
    /// winners (their hand `value` when it went to a showdown).
    PotAwarded {
        pot: u8,
        amount: u64,
        eligible: Vec<Seat>,
        shares: Vec<Share>,
        value: Option<HandValue>,
    },
    HandEnded {
        stacks: Vec<Share>,
        seed: Option<Seed>,
    },
    /// A player declared an action before their turn; `facing` is the bet they faced.
    ActedOutOfTurn {
        seat: Seat,
        action: Action,
        facing: u64,
    },
    /// The out-of-turn declaration was ruled on when the turn came, by `rule`.
    OutOfTurnRuled {
        seat: Seat,
        ruling: OutOfTurnRuling,
        rule: OutOfTurn,
    },
    /// Every chip returned to whoever put it in.
    HandVoided {
        reason: VoidReason,
        refunds: Vec<Share>,
    },
}

/// A refused command. Refusals change nothing.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
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
    #[error("it is not seat {got}'s turn; seat {expected:?} is to act")]
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
    #[error("the {street:?} takes {expected} cards, got {got}")]
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
    #[error("seat {seat} showed {got:?} but holds other cards")]
    WrongCards { seat: Seat, got: [Card; 2] },
    #[error("seat {seat} is the last hand left in a pot and cannot muck")]
    LastHandCannotMuck { seat: Seat },
    #[error("seat {seat} is not due to act later in this round")]
    NotDueToAct { seat: Seat },
    #[error("an out-of-turn action is already waiting to be ruled on")]
    OutOfTurnPending,
    #[error("too late for a misdeal: the cut-off ({cutoff:?}) has passed")]
    MisdealPastCutoff { cutoff: MisdealCutoff },
}

/// How a player stands in the hand.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Status {
    #[default]
    Live,
    Folded,
    Mucked,
}

/// A player in the hand, by position.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Player {
    seat: Seat,
    starting: u64,
    stack: u64,
    /// Live chips this betting round (blinds count).
    bet: u64,
    /// Live chips put in over the whole hand, bets of this round included.
    put_in: u64,
    /// Dead chips (antes).
    ante: u64,
    status: Status,
    absent: bool,
    hole: Option<[Card; 2]>,
    shown: bool,
}

/// Where the hand is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Phase {
    #[default]
    NotStarted,
    /// Forced bets posted, cards being dealt (internal to `Start`).
    Dealing,
    /// A player is to act.
    Betting,
    /// The betting round is over; waiting for the next street, the showdown or the award.
    RoundComplete,
    /// Players show or muck in order.
    Showdown,
    /// Every showdown decision is made; pots are awarded next.
    Awarding,
    Complete,
    Voided,
}

/// The state of one hand, folded from its events. Fixed-size and `Copy`: `decide` works on
/// a copy, and replaying a hand allocates nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HandState {
    phase: Phase,
    rules: Option<HouseRules>,
    seeded: bool,
    deck: Option<[Card; 52]>,
    /// Next undealt card of the deck.
    deck_next: u8,
    seed: Option<Seed>,
    players: [Player; MAX_SEATS],
    n: u8,
    big_blind: u64,
    /// The smallest full raise preflop: the big blind, or a straddle.
    preflop_floor: u64,
    street: Street,
    board: [Option<Card>; 5],
    board_len: u8,
    /// Highest bet of the round.
    current_bet: u64,
    /// Largest full bet or raise of the round (0 until someone bets).
    largest_raise: u64,
    /// The round's bet to match when each position last acted.
    acted_at: [u64; MAX_SEATS],
    /// Bets and raises so far this round, and the count when each position last acted.
    raises: u8,
    acted_raises: [u8; MAX_SEATS],
    /// The last bet or raise, if it was an all-in of less than a full raise.
    last_short: Option<(u8, u64)>,
    /// The latest pair of consecutive short all-ins that together made a full raise
    /// (the sequence number of its first), for the two-consecutive rule.
    short_pair: Option<u8>,
    /// PokerKit's own bookkeeping (the `wsop` preset must never allow a raise that
    /// PokerKit, the PHH reference, refuses): who acted since its notion of a full raise,
    /// and its running list of consecutive short all-ins.
    pk_acted: u16,
    pk_short_count: u8,
    pk_short_sum: u64,
    /// Positions still to act this round, and who is to act.
    pending: u16,
    to_act: Option<u8>,
    /// Positions that have acted since the last full bet or raise.
    acted: u16,
    last_aggressor: Option<u8>,
    /// Counts for the misdeal cut-off (blinds not counted).
    players_acted: u16,
    actions_taken: u8,
    chip_actions: u8,
    /// Showdown order (positions) and who has decided.
    show_order: [u8; MAX_SEATS],
    show_len: u8,
    show_next: u8,
    /// A waiting out-of-turn declaration: position, action, the bet it faced.
    out_of_turn: Option<(u8, Action, u64)>,
    /// Positions that may not bet or raise for the rest of the round.
    no_raise: u16,
    /// Chips awarded from the pots so far.
    awarded: u64,
    /// Position of the big blind, if one was posted.
    bb_pos: Option<u8>,
}

impl Default for HandState {
    fn default() -> HandState {
        HandState {
            phase: Phase::NotStarted,
            rules: None,
            seeded: false,
            deck: None,
            deck_next: 0,
            seed: None,
            players: [Player::default(); MAX_SEATS],
            n: 0,
            big_blind: 0,
            preflop_floor: 0,
            street: Street::Preflop,
            board: [None; 5],
            board_len: 0,
            current_bet: 0,
            largest_raise: 0,
            acted_at: [0; MAX_SEATS],
            raises: 0,
            acted_raises: [0; MAX_SEATS],
            last_short: None,
            short_pair: None,
            pk_acted: 0,
            pk_short_count: 0,
            pk_short_sum: 0,
            pending: 0,
            to_act: None,
            acted: 0,
            last_aggressor: None,
            players_acted: 0,
            actions_taken: 0,
            chip_actions: 0,
            show_order: [0; MAX_SEATS],
            show_len: 0,
            show_next: 0,
            out_of_turn: None,
            no_raise: 0,
            awarded: 0,
            bb_pos: None,
        }
    }
}

/// What the player to act may do, with exact amounts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LegalActions {
    pub seat: Seat,
    pub can_fold: bool,
    pub can_check: bool,
    /// Chips a call adds (less than the bet when it puts the player all-in).
    pub call: Option<u64>,
    /// Bet (`raise == false`) or raise (`raise == true`) to an amount in `min..=max`.
    pub bet_or_raise: Option<BetRange>,
}

/// The amounts a bet or raise may go to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BetRange {
    pub raise: bool,
    pub min: u64,
    pub max: u64,
}

fn bit(p: u8) -> u16 {
    1u16 << p
}

/// The engine's one way into a hand: check a command against the state and say what
/// happens, without changing anything.
pub fn decide(state: &HandState, command: &Command) -> Result<Vec<Event>, RuleError> {
    let mut copy = *state;
    let mut events = Vec::new();
    run(&mut copy, command, &mut events)?;
    Ok(events)
}

/// Decides and applies in one step: appends the events to `events` and moves the state on.
/// This is `decide` followed by `apply` of each event (the decision applies each event as
/// it emits it), without the second pass: replay loops and the simulator use it. On a
/// refusal nothing changes and nothing is appended.
pub fn execute(
    state: &mut HandState,
    command: &Command,
    events: &mut Vec<Event>,
) -> Result<(), RuleError> {
    let backup = *state;
    let result = run(state, command, events);
    if result.is_err() {
        *state = backup;
    }
    result
}

/// Runs a command on `state` in place. On a refusal the events it emitted are taken back;
/// the caller restores the state (commands check before they emit, so this is a guard).
fn run(state: &mut HandState, command: &Command, events: &mut Vec<Event>) -> Result<(), RuleError> {
    let start = events.len();
    let mut run = Run { state, events };
    if let Err(error) = run.command(command) {
        run.events.truncate(start);
        return Err(error);
    }
    run.progress();
    Ok(())
}

/// Fold one event into the state. Events are trusted: they were decided (or are being
/// replayed from a verified log).
pub fn apply(state: &mut HandState, event: &Event) {
    state.apply(event);
}

struct Run<'a> {
    state: &'a mut HandState,
    events: &'a mut Vec<Event>,
}

impl Run<'_> {
    fn emit(&mut self, event: Event) {
        self.state.apply(&event);
        self.events.push(event);
    }

    fn command(&mut self, command: &Command) -> Result<(), RuleError> {
        let s = &self.state;
        match (s.phase, command) {
            (Phase::NotStarted, Command::Start { setup, seed }) => self.start(setup, seed.as_ref()),
            (Phase::NotStarted, _) => Err(RuleError::NotStarted),
            (_, Command::Start { .. }) => Err(RuleError::AlreadyStarted),
            (Phase::Complete | Phase::Voided, _) => Err(RuleError::HandOver),
            (_, Command::Void { reason }) => self.void(reason),
            (_, Command::DealHole { seat, cards }) => self.deal_hole(*seat, *cards),
            (_, Command::Act { seat, action }) => self.act(*seat, *action),
            (_, Command::OutOfTurn { seat, action }) => self.out_of_turn(*seat, *action),
            (_, Command::ClockExpired { seat }) => {
                self.state.expect_turn(*seat)?;
                self.emit(Event::PlayerFolded {
                    seat: *seat,
                    reason: FoldReason::ClockExpired,
                });
                Ok(())
            }
            (_, Command::DealBoard { cards }) => self.deal_board(cards),
            (_, Command::Show { seat, cards }) => self.show(*seat, *cards),
            (_, Command::Muck { seat }) => self.muck(*seat),
        }
    }

    fn start(&mut self, setup: &HandSetup, seed: Option<&Seed>) -> Result<(), RuleError> {
        validate_setup(setup)?;
        let deck = match setup.dealing {
            Dealing::Seeded { commitment } => match seed {
                Some(seed) if commitment.verifies(seed) => Some(seed),
                _ => return Err(RuleError::BadSeed),
            },
            Dealing::Recorded => None,
        };
        self.emit(Event::HandStarted {
            setup: Box::new(setup.clone()),
        });
        if let Some(seed) = deck {
            self.emit(Event::DeckSealed { seed: *seed });
        }
        // Antes first, then blinds (PHH and PokerKit post in this order).
        for ante in &setup.antes {
            let p = self.state.position(ante.seat)?;
            let amount = ante.amount.min(self.state.players[usize::from(p)].stack);
            if amount > 0 {
                let all_in = amount == self.state.players[usize::from(p)].stack;
                self.emit(Event::AntePosted {
                    seat: ante.seat,
                    amount,
                    all_in,
                });
            }
        }
        for blind in &setup.blinds {
            let p = self.state.position(blind.seat)?;
            let amount = blind.amount.min(self.state.players[usize::from(p)].stack);
            if amount > 0 {
                let all_in = amount == self.state.players[usize::from(p)].stack;
                self.emit(Event::BlindPosted {
                    seat: blind.seat,
                    kind: blind.kind,
                    amount,
                    all_in,
                });
            }
        }
        if let Some(deck) = self.state.deck {
            // Two passes round the table from the first seat left of the button, as a
            // dealer deals.
            for p in 0..self.state.n {
                let first = deck[usize::from(p)];
                let second = deck[usize::from(p + self.state.n)];
                let seat = self.state.players[usize::from(p)].seat;
                self.emit(Event::HoleCardsDealt {
                    seat,
                    cards: [first, second],
                });
            }
        }
        self.emit(Event::PreflopStarted);
        Ok(())
    }

    fn void(&mut self, reason: &VoidReason) -> Result<(), RuleError> {
        if let VoidReason::Misdeal(_) = reason {
            let rules = self.state.rules()?;
            if !self.state.before_misdeal_cutoff(rules.misdeal_cutoff) {
                return Err(RuleError::MisdealPastCutoff {
                    cutoff: rules.misdeal_cutoff,
                });
            }
        }
        let refunds = self.state.live_players_iter(true).map(|pl| Share {
            seat: pl.seat,
            amount: pl.put_in + pl.ante,
        });
        let refunds = refunds.collect();
        self.emit(Event::HandVoided {
            reason: reason.clone(),
            refunds,
        });
        Ok(())
    }

    fn deal_hole(&mut self, seat: Seat, cards: [Card; 2]) -> Result<(), RuleError> {
        let s = &self.state;
        if s.seeded {
            return Err(RuleError::SeededDealing);
        }
        if matches!(s.phase, Phase::Showdown | Phase::Awarding) {
            return Err(RuleError::TooLateForHoleCards);
        }
        let p = s.position(seat)?;
        if s.players[usize::from(p)].hole.is_some() {
            return Err(RuleError::HoleCardsKnown { seat });
        }
        s.check_new_cards(&cards)?;
        self.emit(Event::HoleCardsDealt { seat, cards });
        Ok(())
    }

    fn deal_board(&mut self, cards: &[Card]) -> Result<(), RuleError> {
        let s = &self.state;
        if s.seeded {
            return Err(RuleError::SeededDealing);
        }
        let next = match (s.phase, s.street.next()) {
            (Phase::RoundComplete, Some(next)) if s.live_count() > 1 => next,
            _ => return Err(RuleError::NotWaitingForBoard),
        };
        if cards.len() != next.cards() {
            return Err(RuleError::WrongCardCount {
                street: next,
                expected: next.cards(),
                got: cards.len(),
            });
        }
        s.check_new_cards(cards)?;
        self.emit(Event::BoardDealt {
            street: next,
            cards: cards.to_vec(),
        });
        Ok(())
    }

    fn act(&mut self, seat: Seat, action: Action) -> Result<(), RuleError> {
        let p = self.state.expect_turn(seat)?;
        let legal = self.state.legal_at(p);
        let player = self.state.players[usize::from(p)];
        let to_call = self.state.current_bet.saturating_sub(player.bet);
        let all_chips = player.stack + player.bet;
        match action {
            Action::Fold => self.emit(Event::PlayerFolded {
                seat,
                reason: FoldReason::Folded,
            }),
            Action::Check => {
                if !legal.can_check {
                    return Err(RuleError::CannotCheck { seat, to_call });
                }
                self.emit(Event::PlayerChecked { seat });
            }
            Action::Call => self.call(seat, legal)?,
            Action::AllIn => {
                if all_chips <= self.state.current_bet {
                    // Calling puts the player all-in.
                    self.call(seat, legal)?;
                } else {
                    match legal.bet_or_raise {
                        Some(range) => self.wager(seat, p, range, all_chips, None)?,
                        None => return Err(RuleError::RaiseNotAllowed),
                    }
                }
            }
            Action::Bet(to) | Action::RaiseTo(to) => {
                let is_raise = matches!(action, Action::RaiseTo(_));
                let facing_bet = self.state.current_bet > 0;
                if is_raise && !facing_bet {
                    return Err(RuleError::NoBetToRaise);
                }
                if !is_raise && facing_bet {
                    return Err(RuleError::BetAlreadyMade);
                }
                let Some(range) = legal.bet_or_raise else {
                    return Err(RuleError::RaiseNotAllowed);
                };
                if to > range.max {
                    return Err(RuleError::AboveStack {
                        max: range.max,
                        got: to,
                    });
                }
                if to < range.min {
                    return self.undersized(seat, p, legal, range, to, is_raise);
                }
                self.wager(seat, p, range, to, None)?;
            }
        }
        Ok(())
    }

    fn out_of_turn(&mut self, seat: Seat, action: Action) -> Result<(), RuleError> {
        let s = &self.state;
        let p = s.position(seat)?;
        if s.phase != Phase::Betting {
            return Err(RuleError::NotBetting);
        }
        if s.to_act == Some(p) {
            // In turn after all: an ordinary action.
            return self.act(seat, action);
        }
        if s.pending & bit(p) == 0 || s.players[usize::from(p)].status != Status::Live {
            return Err(RuleError::NotDueToAct { seat });
        }
        if s.out_of_turn.is_some() {
            return Err(RuleError::OutOfTurnPending);
        }
        self.emit(Event::ActedOutOfTurn {
            seat,
            action,
            facing: s.current_bet,
        });
        Ok(())
    }

    /// The turn of a player who acted out of turn has come: rule by the house.
    fn rule_out_of_turn(&mut self, seat: Seat, declared: Action, facing: u64) {
        let rules = self.state.rules.unwrap_or_else(HouseRules::wsop);
        let now = self.state.current_bet;
        let changed = now != facing;
        let declared_to = match declared {
            Action::Bet(to) | Action::RaiseTo(to) => Some(to),
            _ => None,
        };
        let ruling = match rules.out_of_turn {
            OutOfTurn::BindingUnlessActionChanges if !changed => OutOfTurnRuling::Binding,
            // Oracle 8: "A player who checks out of turn may not bet or raise on the next
            // turn to act."
            OutOfTurn::BindingUnlessActionChanges if declared == Action::Check => {
                OutOfTurnRuling::NoRaise
            }
            OutOfTurn::BindingUnlessActionChanges => OutOfTurnRuling::Released,
            // Hippodrome 5: an intervening bet smaller than the out-of-turn bet must be
            // called; a larger one releases.
            OutOfTurn::StandsUnlessChanged if !changed => OutOfTurnRuling::Binding,
            OutOfTurn::StandsUnlessChanged => match declared_to {
                Some(to) if now < to => OutOfTurnRuling::MustCall,
                _ => OutOfTurnRuling::Released,
            },
            // QueenSix betting 5.
            OutOfTurn::Restricted => match declared {
                Action::Check => OutOfTurnRuling::NoRaise,
                Action::Call if !changed => OutOfTurnRuling::Binding,
                Action::Call => OutOfTurnRuling::NoRaise,
                Action::Fold => OutOfTurnRuling::Binding,
                Action::Bet(_) | Action::RaiseTo(_) | Action::AllIn if !changed => {
                    OutOfTurnRuling::MustCall
                }
                Action::Bet(_) | Action::RaiseTo(_) | Action::AllIn => OutOfTurnRuling::Released,
            },
            // WPH 31: the in-turn player checked: take the bet back and check; bet less:
            // flat call; bet more: every option but checking.
            OutOfTurn::WphRule31 => match declared_to {
                Some(_) if now == 0 => OutOfTurnRuling::MustCheck,
                Some(to) if now <= to => OutOfTurnRuling::MustCall,
                Some(_) => OutOfTurnRuling::Released,
                None if !changed => OutOfTurnRuling::Binding,
                None => OutOfTurnRuling::Released,
            },
        };
        self.emit(Event::OutOfTurnRuled {
            seat,
            ruling,
            rule: rules.out_of_turn,
        });
        let forced = match ruling {
            OutOfTurnRuling::Binding => Some(declared),
            OutOfTurnRuling::MustCall => Some(Action::Call),
            OutOfTurnRuling::MustCheck => Some(Action::Check),
            OutOfTurnRuling::Released | OutOfTurnRuling::NoRaise => None,
        };
        if let Some(action) = forced {
            // A declaration that is no longer legal (say, a call with nothing to call)
            // leaves the player to act.
            let mark = self.events.len();
            let saved = *self.state;
            if self.act(seat, action).is_err() {
                self.events.truncate(mark);
                *self.state = saved;
            }
        }
    }

    fn call(&mut self, seat: Seat, legal: LegalActions) -> Result<(), RuleError> {
        let Some(amount) = legal.call else {
            return Err(RuleError::NothingToCall);
        };
        let p = self.state.position(seat)?;
        let all_in = amount == self.state.players[usize::from(p)].stack;
        self.emit(Event::PlayerCalled {
            seat,
            amount,
            all_in,
        });
        Ok(())
    }

    fn wager(
        &mut self,
        seat: Seat,
        p: u8,
        range: BetRange,
        to: u64,
        declared: Option<u64>,
    ) -> Result<(), RuleError> {
        let player = self.state.players[usize::from(p)];
        let all_in = to == player.stack + player.bet;
        if range.raise {
            let full = to.saturating_sub(self.state.current_bet) >= self.state.full_raise_size();
            self.emit(Event::PlayerRaised {
                seat,
                to,
                all_in,
                full,
                declared,
            });
        } else {
            self.emit(Event::PlayerBet { seat, to, all_in });
        }
        Ok(())
    }

    /// A bet or raise below the minimum from a player who has more chips.
    fn undersized(
        &mut self,
        seat: Seat,
        p: u8,
        legal: LegalActions,
        range: BetRange,
        to: u64,
        is_raise: bool,
    ) -> Result<(), RuleError> {
        let rules = self.state.rules()?;
        let current = self.state.current_bet;
        let refused = if is_raise {
            RuleError::RaiseBelowMinimum {
                min: range.min,
                got: to,
            }
        } else {
            RuleError::BetBelowMinimum {
                min: range.min,
                got: to,
            }
        };
        // A declared amount at or below the bet is not a raise at all.
        if to <= current {
            return Err(refused);
        }
        let becomes_raise = match rules.undersized_raise {
            UndersizedRaise::Refused => return Err(refused),
            UndersizedRaise::BroughtUpToMinimum => true,
            // A bet below the minimum is always brought up; a raise of at least half the
            // minimum raise must be made a full raise, less is a call.
            UndersizedRaise::HalfRule => {
                !is_raise || (to - current).saturating_mul(2) >= self.state.full_raise_size()
            }
            // A full bet plus half a bet or more is a raise; less is a call.
            UndersizedRaise::BetAndAHalf => {
                !is_raise || u128::from(to) * 2 >= u128::from(current) * 3
            }
        };
        if becomes_raise {
            self.wager(seat, p, range, range.min, Some(to))
        } else {
            self.emit(Event::RaiseTreatedAsCall {
                seat,
                declared: to,
                rule: rules.undersized_raise,
            });
            self.call(seat, legal)
        }
    }

    fn show(&mut self, seat: Seat, cards: Option<[Card; 2]>) -> Result<(), RuleError> {
        let p = self.state.expect_showdown_turn(seat)?;
        let player = self.state.players[usize::from(p)];
        let cards = match (player.hole, cards) {
            (Some(hole), None) => hole,
            (Some(hole), Some(shown)) => {
                if !same_cards(hole, shown) {
                    return Err(RuleError::WrongCards { seat, got: shown });
                }
                hole
            }
            (None, Some(shown)) => {
                self.state.check_new_cards(&shown)?;
                shown
            }
            (None, None) => return Err(RuleError::CardsUnknown { seat }),
        };
        self.emit(Event::HandShown { seat, cards });
        Ok(())
    }

    fn muck(&mut self, seat: Seat) -> Result<(), RuleError> {
        let p = self.state.expect_showdown_turn(seat)?;
        if self.state.last_hand_in_a_pot(p) {
            return Err(RuleError::LastHandCannotMuck { seat });
        }
        self.emit(Event::HandMucked { seat });
        Ok(())
    }

    /// Runs the hand forward as far as it goes without a person.
    fn progress(&mut self) {
        loop {
            let s = &self.state;
            match s.phase {
                Phase::Betting => {
                    let Some(p) = s.to_act else { return };
                    let player = s.players[usize::from(p)];
                    if player.absent {
                        self.emit(Event::PlayerFolded {
                            seat: player.seat,
                            reason: FoldReason::Absent,
                        });
                    } else if let Some((q, action, facing)) = s.out_of_turn
                        && q == p
                    {
                        self.rule_out_of_turn(player.seat, action, facing);
                    } else {
                        return;
                    }
                }
                Phase::RoundComplete => {
                    if let Some((seat, amount)) = s.uncalled() {
                        self.emit(Event::UncalledBetReturned { seat, amount });
                    } else if s.live_count() <= 1 {
                        self.award();
                    } else if let Some(p) = s.seeded.then(|| s.next_face_up()).flatten() {
                        // All-in and the betting is over: every hand is turned face up
                        // before the rest of the board is dealt.
                        let player = s.players[usize::from(p)];
                        if let Some(cards) = player.hole {
                            self.emit(Event::HandShown {
                                seat: player.seat,
                                cards,
                            });
                        } else {
                            return;
                        }
                    } else if s.street == Street::River {
                        let order = s.showdown_order().iter().map(|&p| s.seat_of(p)).collect();
                        self.emit(Event::ShowdownStarted { order });
                    } else if s.seeded {
                        let Some(street) = s.street.next() else {
                            return;
                        };
                        let cards = s.next_board_cards(street);
                        self.emit(Event::BoardDealt { street, cards });
                    } else {
                        return;
                    }
                }
                Phase::Showdown => {
                    // Once a player is all-in and the betting is complete, every hand is
                    // turned face up (every house). A dealt hand is known to the engine;
                    // a recorded one waits for the host to record it.
                    let Some(p) = s.showdown_turn() else { return };
                    let player = s.players[usize::from(p)];
                    match (s.seeded && s.live_all_in(), player.hole) {
                        (true, Some(cards)) => {
                            self.emit(Event::HandShown {
                                seat: player.seat,
                                cards,
                            });
                        }
                        _ => return,
                    }
                }
                Phase::Awarding => self.award(),
                _ => return,
            }
        }
    }

    fn award(&mut self) {
        let s = &self.state;
        let rules = s.rules.unwrap_or_else(HouseRules::wsop);
        let mut values = [None; MAX_SEATS];
        for p in 0..s.n {
            let pl = &s.players[usize::from(p)];
            if pl.status == Status::Live {
                values[usize::from(p)] = pl.hole.and_then(|h| s.value_of(h));
            }
        }
        let mut pots = s.pots();
        if rules.odd_chip == OddChip::AllToFirstLeftOfButton {
            // PokerKit (the PHH reference) first kills every hand that cannot win any
            // pot, then builds the pots among the rest: neighbouring pots left with the
            // same contenders become one, which moves odd chips.
            let winners = pots
                .iter()
                .fold(0u16, |mask, pot| mask | s.winners(pot, &values).0);
            pots = s.pots_among(winners);
        }
        // Side pots are awarded before the main pot.
        for (index, pot) in pots.iter().enumerate().rev() {
            let (shares, value) = self.state.split(pot, &values, rules.odd_chip);
            self.emit(Event::PotAwarded {
                pot: u8::try_from(index).unwrap_or(u8::MAX),
                amount: pot.amount,
                eligible: positions(pot.eligible)
                    .map(|p| self.state.seat_of(p))
                    .collect(),
                shares,
                value,
            });
        }
        let stacks = self
            .state
            .live_players_iter(true)
            .map(|pl| Share {
                seat: pl.seat,
                amount: pl.stack,
            })
            .collect();
        let seed = self.state.seed;
        self.emit(Event::HandEnded { stacks, seed });
    }
}

fn same_cards(a: [Card; 2], b: [Card; 2]) -> bool {
    (a[0] == b[0] && a[1] == b[1]) || (a[0] == b[1] && a[1] == b[0])
}

fn validate_setup(setup: &HandSetup) -> Result<(), RuleError> {
    let n = setup.seats.len();
    if n < 2 {
        return Err(RuleError::NotEnoughPlayers { players: n });
    }
    if n > MAX_SEATS {
        return Err(RuleError::BadSetup("more players than seats"));
    }
    if setup.seats.iter().any(|s| usize::from(s.seat) >= MAX_SEATS)
        || usize::from(setup.button) >= MAX_SEATS
    {
        return Err(RuleError::BadSetup("seat number out of range"));
    }
    if setup.seats.windows(2).any(|w| w[0].seat >= w[1].seat) {
        return Err(RuleError::BadSetup("seats must be distinct and ascending"));
    }
    if setup.seats.iter().any(|s| s.stack == 0) {
        return Err(RuleError::BadSetup(
            "a player with no chips cannot be dealt in",
        ));
    }
    if setup.big_blind == 0 {
        return Err(RuleError::BadSetup("the big blind must be positive"));
    }
    let known = |seat: Seat| setup.seats.iter().any(|s| s.seat == seat);
    if setup.blinds.iter().any(|b| !known(b.seat)) || setup.antes.iter().any(|a| !known(a.seat)) {
        return Err(RuleError::BadSetup("a blind or ante names an empty seat"));
    }
    let total: Option<u64> = setup
        .seats
        .iter()
        .try_fold(0u64, |acc, s| acc.checked_add(s.stack));
    if total.is_none() {
        return Err(RuleError::BadSetup("stacks overflow"));
    }
    Ok(())
}

/// A pot: its amount and the positions that can win it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pot {
    pub amount: u64,
    /// Positions, as a mask (bit `p` for position `p`).
    eligible: u16,
}

/// The positions in a mask, in position order.
fn positions(mask: u16) -> impl Iterator<Item = u8> + Clone {
    let n = u8::try_from(MAX_SEATS).unwrap_or(u8::MAX);
    (0..n).filter(move |&p| mask & bit(p) != 0)
}

/// Positions in some order, held without allocating (at most one per seat).
#[derive(Clone, Copy, Debug)]
struct Order {
    items: [u8; MAX_SEATS],
    len: usize,
}

/// Keeps the first [`MAX_SEATS`] positions (a table has no more).
impl FromIterator<u8> for Order {
    fn from_iter<I: IntoIterator<Item = u8>>(from: I) -> Order {
        let mut order = Order {
            items: [0; MAX_SEATS],
            len: 0,
        };
        for (slot, p) in order.items.iter_mut().zip(from) {
            *slot = p;
            order.len += 1;
        }
        order
    }
}

impl std::ops::Deref for Order {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.items[..self.len]
    }
}

impl std::ops::DerefMut for Order {
    fn deref_mut(&mut self) -> &mut [u8] {
        &mut self.items[..self.len]
    }
}

impl HandState {
    /// A hand that has not started.
    pub fn new() -> HandState {
        HandState::default()
    }

    pub fn phase(&self) -> Phase {
        self.phase
    }

    pub fn street(&self) -> Street {
        self.street
    }

    /// The highest bet of the current betting round.
    pub fn current_bet(&self) -> u64 {
        self.current_bet
    }

    pub fn board(&self) -> impl Iterator<Item = Card> + '_ {
        self.board.iter().flatten().copied()
    }

    pub fn is_over(&self) -> bool {
        matches!(self.phase, Phase::Complete | Phase::Voided)
    }

    /// The seat to act, while betting.
    pub fn to_act(&self) -> Option<Seat> {
        match self.phase {
            Phase::Betting => self.to_act.map(|p| self.seat_of(p)),
            _ => None,
        }
    }

    /// The seat due to show or muck, at the showdown.
    pub fn to_show(&self) -> Option<Seat> {
        match self.phase {
            Phase::Showdown => self.showdown_turn().map(|p| self.seat_of(p)),
            _ => None,
        }
    }

    /// Is the engine waiting for board cards to be recorded?
    pub fn awaiting_board(&self) -> Option<Street> {
        if self.phase == Phase::RoundComplete && !self.seeded && self.live_count() > 1 {
            self.street.next()
        } else {
            None
        }
    }

    /// The seats in the hand with their stacks, from the first seat left of the button.
    pub fn stacks(&self) -> impl Iterator<Item = (Seat, u64)> + '_ {
        self.live_players_iter(true).map(|p| (p.seat, p.stack))
    }

    pub fn stack(&self, seat: Seat) -> Option<u64> {
        self.position(seat)
            .ok()
            .map(|p| self.players[usize::from(p)].stack)
    }

    /// Whether the seat's hole cards have been shown to the table.
    pub fn is_shown(&self, seat: Seat) -> bool {
        self.position(seat)
            .ok()
            .is_some_and(|p| self.players[usize::from(p)].shown)
    }

    /// Whether the seat still holds cards (not folded or mucked).
    pub fn is_live(&self, seat: Seat) -> bool {
        self.position(seat)
            .ok()
            .is_some_and(|p| self.players[usize::from(p)].status == Status::Live)
    }

    pub fn hole_cards(&self, seat: Seat) -> Option<[Card; 2]> {
        self.position(seat)
            .ok()
            .and_then(|p| self.players[usize::from(p)].hole)
    }

    /// Chips in the middle: every bet and ante not yet awarded.
    pub fn pot_total(&self) -> u64 {
        let put_in: u64 = self
            .live_players_iter(true)
            .map(|p| p.put_in + p.ante)
            .sum();
        put_in - self.awarded.min(put_in)
    }

    /// The seats dealt in, from the first seat left of the button (PHH `p1`..`pN`).
    pub fn seats_in_order(&self) -> impl Iterator<Item = Seat> + '_ {
        self.live_players_iter(true).map(|p| p.seat)
    }

    /// The legal actions of the seat to act, with exact amounts.
    pub fn legal_actions(&self) -> Option<LegalActions> {
        match (self.phase, self.to_act) {
            (Phase::Betting, Some(p)) => Some(self.legal_at(p)),
            _ => None,
        }
    }

    /// Chips conserved, nothing negative, one seat to act while betting.
    pub fn check_invariants(&self) -> Result<(), String> {
        if self.phase == Phase::NotStarted {
            return Ok(());
        }
        let mut total = 0u64;
        let mut starting = 0u64;
        for p in self.live_players_iter(true) {
            total += p.stack + p.put_in + p.ante;
            starting += p.starting;
            if p.bet > p.put_in {
                return Err(format!("seat {}: round bet above total put in", p.seat));
            }
        }
        let total = total
            .checked_sub(self.awarded)
            .ok_or_else(|| "awarded more than was put in".to_string())?;
        if total != starting {
            return Err(format!(
                "chips not conserved: {total} in play, {starting} at the start"
            ));
        }
        let betting = self.phase == Phase::Betting;
        match (betting, self.to_act) {
            (true, None) => Err("betting with nobody to act".into()),
            (true, Some(p)) if self.players[usize::from(p)].status != Status::Live => {
                Err("a folded player is to act".into())
            }
            _ => Ok(()),
        }
    }

    fn rules(&self) -> Result<HouseRules, RuleError> {
        self.rules.ok_or(RuleError::NotStarted)
    }

    fn live_players_iter(&self, all: bool) -> impl Iterator<Item = &Player> + '_ {
        self.players[..usize::from(self.n)]
            .iter()
            .filter(move |p| all || p.status == Status::Live)
    }

    fn seat_of(&self, p: u8) -> Seat {
        self.players[usize::from(p)].seat
    }

    fn position(&self, seat: Seat) -> Result<u8, RuleError> {
        (0..self.n)
            .find(|&p| self.players[usize::from(p)].seat == seat)
            .ok_or(RuleError::NoSuchSeat { seat })
    }

    fn expect_turn(&self, seat: Seat) -> Result<u8, RuleError> {
        let p = self.position(seat)?;
        match (self.phase, self.to_act) {
            (Phase::Betting, Some(q)) if q == p => Ok(p),
            (Phase::Betting, Some(q)) => Err(RuleError::NotYourTurn {
                expected: Some(self.seat_of(q)),
                got: seat,
            }),
            _ => Err(RuleError::NotBetting),
        }
    }

    fn expect_showdown_turn(&self, seat: Seat) -> Result<u8, RuleError> {
        let p = self.position(seat)?;
        if self.runout_face_up() {
            // All-in with the betting over: hands are turned up before the run-out.
            let pl = &self.players[usize::from(p)];
            return if pl.status == Status::Live && !pl.shown {
                Ok(p)
            } else {
                Err(RuleError::NotShowdown)
            };
        }
        if self.phase != Phase::Showdown {
            return Err(RuleError::NotShowdown);
        }
        match self.showdown_turn() {
            Some(q) if q == p => Ok(p),
            // Once someone is all-in every hand is turned up: the order does not matter.
            Some(_) if self.live_all_in() && self.pending_show(p) => Ok(p),
            other => Err(RuleError::NotYourTurn {
                expected: other.map(|q| self.seat_of(q)),
                got: seat,
            }),
        }
    }

    fn pending_show(&self, p: u8) -> bool {
        self.show_order[usize::from(self.show_next)..usize::from(self.show_len)].contains(&p)
    }

    /// A live player is all-in.
    fn live_all_in(&self) -> bool {
        self.live_players_iter(false).any(|p| p.stack == 0)
    }

    /// The betting is over for the hand (at most one live player has chips) while cards
    /// remain to come: hands are turned face up.
    fn runout_face_up(&self) -> bool {
        self.phase == Phase::RoundComplete
            && self.uncalled().is_none()
            && self.live_count() > 1
            && self
                .live_players_iter(false)
                .filter(|p| p.stack > 0)
                .count()
                <= 1
    }

    /// The next hand to turn face up in an all-in run-out, in showdown order.
    fn next_face_up(&self) -> Option<u8> {
        if !self.runout_face_up() {
            return None;
        }
        self.showdown_order().first().copied()
    }

    fn showdown_turn(&self) -> Option<u8> {
        (self.show_next < self.show_len).then(|| self.show_order[usize::from(self.show_next)])
    }

    fn live_count(&self) -> usize {
        self.live_players_iter(false).count()
    }

    /// Live players with chips behind.
    fn can_bet(&self, p: u8) -> bool {
        let pl = &self.players[usize::from(p)];
        pl.status == Status::Live && pl.stack > 0
    }

    fn full_raise_size(&self) -> u64 {
        let floor = if self.street == Street::Preflop {
            self.preflop_floor
        } else {
            self.big_blind
        };
        self.largest_raise.max(floor)
    }

    fn legal_at(&self, p: u8) -> LegalActions {
        let pl = self.players[usize::from(p)];
        let to_call = self.current_bet.saturating_sub(pl.bet);
        let call = (to_call > 0).then(|| to_call.min(pl.stack));
        let all_chips = pl.stack + pl.bet;
        let covered = pl.stack <= to_call;
        // Someone else must be able to call more than the current bet.
        let opponent = (0..self.n).any(|q| {
            let o = &self.players[usize::from(q)];
            q != p && o.status == Status::Live && o.stack + o.bet > self.current_bet
        });
        let restricted = self.no_raise & bit(p) != 0;
        let bet_or_raise =
            (!covered && opponent && !restricted && self.reopened_for(p)).then(|| {
                let min = self
                    .current_bet
                    .saturating_add(self.full_raise_size())
                    .min(all_chips);
                BetRange {
                    raise: self.current_bet > 0,
                    min,
                    max: all_chips,
                }
            });
        LegalActions {
            seat: pl.seat,
            can_fold: true,
            can_check: to_call == 0,
            call,
            bet_or_raise,
        }
    }

    /// May a player who has acted this round raise again?
    fn reopened_for(&self, p: u8) -> bool {
        let rules = self.rules.unwrap_or_else(HouseRules::wsop);
        let i = usize::from(p);
        if rules.short_all_in == ShortAllIn::CumulativeAsPokerKit {
            let to_call = self.current_bet.saturating_sub(self.players[i].bet);
            let pk_refuses = (to_call > 0 && to_call < self.largest_raise)
                || (self.pk_acted & bit(p) != 0 && self.pk_short_count > 0);
            if pk_refuses {
                return false;
            }
        }
        if self.acted & bit(p) == 0 {
            return true;
        }
        // What the player now faces beyond the bet they last acted on.
        let faced = self.current_bet.saturating_sub(self.acted_at[i]);
        match rules.short_all_in {
            ShortAllIn::NeverReopens => false,
            ShortAllIn::CumulativeReopens | ShortAllIn::CumulativeAsPokerKit => {
                faced >= self.full_raise_size()
            }
            ShortAllIn::TwoConsecutiveReopen => self
                .short_pair
                .is_some_and(|first| first > self.acted_raises[i]),
        }
    }

    fn before_misdeal_cutoff(&self, cutoff: MisdealCutoff) -> bool {
        if self.street != Street::Preflop {
            return false;
        }
        match cutoff {
            MisdealCutoff::PlayersActed {
                players,
                never_after_big_blind,
            } => {
                let acted = self.players_acted.count_ones();
                let bb_acted = never_after_big_blind && self.big_blind_acted();
                acted < u32::from(players) && !bb_acted
            }
            MisdealCutoff::SubstantialAction => self.chip_actions < 2 && self.actions_taken < 3,
        }
    }

    fn big_blind_acted(&self) -> bool {
        self.bb_pos
            .is_some_and(|bb| self.players_acted & bit(bb) != 0)
    }

    fn check_new_cards(&self, cards: &[Card]) -> Result<(), RuleError> {
        for (i, card) in cards.iter().enumerate() {
            if cards[..i].contains(card) || self.card_in_play(*card) {
                return Err(RuleError::DuplicateCard { card: *card });
            }
        }
        Ok(())
    }

    fn card_in_play(&self, card: Card) -> bool {
        self.board().any(|c| c == card)
            || self
                .live_players_iter(true)
                .any(|p| p.hole.is_some_and(|h| h.contains(&card)))
    }

    /// The value of a hand with the full board (`None` before the river is out).
    fn value_of(&self, hole: [Card; 2]) -> Option<HandValue> {
        let mut cards = [hole[0]; 7];
        cards[1] = hole[1];
        let mut len = 2;
        for card in self.board() {
            cards[len] = card;
            len += 1;
        }
        (len == 7).then(|| eval::evaluate7(&cards))
    }

    /// The next street's cards from the seeded deck, burning one first. Hole cards take
    /// the first `2n` cards.
    fn next_board_cards(&self, street: Street) -> Vec<Card> {
        let Some(deck) = self.deck else {
            return Vec::new();
        };
        let start = usize::from(self.deck_next) + 1;
        deck[start..start + street.cards()].to_vec()
    }

    /// The seat and amount of a bet no one called.
    fn uncalled(&self) -> Option<(Seat, u64)> {
        let mut top: Option<u8> = None;
        let mut top_bet = 0;
        let mut second = 0;
        for p in 0..self.n {
            let bet = self.players[usize::from(p)].bet;
            if bet > top_bet {
                second = top_bet;
                top_bet = bet;
                top = Some(p);
            } else if bet > second {
                second = bet;
            }
        }
        let p = top?;
        (top_bet > second).then(|| (self.seat_of(p), top_bet - second))
    }

    /// Pots from the lowest level up, built as PokerKit builds them: each distinct amount
    /// put in is a level; antes are dead money in the main pot; neighbouring pots with the
    /// same contenders are one pot. A level nobody still in the hand reached (everyone who
    /// put that much in folded, e.g. an absent big blind folded behind a short all-in)
    /// joins the pot below it: the chips stay in play and go, as PokerKit pushes them, to
    /// whoever wins that pot.
    pub fn pots(&self) -> Vec<Pot> {
        let live = (0..self.n)
            .filter(|&p| self.players[usize::from(p)].status == Status::Live)
            .fold(0u16, |mask, p| mask | bit(p));
        self.pots_among(live)
    }

    /// Pots whose contenders are the positions in `contenders`.
    fn pots_among(&self, contenders: u16) -> Vec<Pot> {
        let n = usize::from(self.n);
        let players = &self.players[..n];
        // Positions by what they put in, so that at each level those who reached it are
        // the ones not yet passed.
        let mut by_put_in = [(0u64, 0u8); MAX_SEATS];
        for (slot, p) in by_put_in.iter_mut().zip(0..self.n) {
            *slot = (players[usize::from(p)].put_in, p);
        }
        let by_put_in = &mut by_put_in[..n];
        by_put_in.sort_unstable();
        let mut pots: Vec<Pot> = Vec::with_capacity(n);
        let mut amount: u64 = players.iter().map(|p| p.ante).sum();
        let mut reached = (0..self.n).fold(0u16, |mask, p| mask | bit(p));
        let mut previous = 0;
        let mut i = 0;
        while let Some(&(level, _)) = by_put_in.get(i) {
            // Every player who put in at least `level` adds `level - previous` to this pot.
            let count = u64::try_from(n - i).unwrap_or(0);
            amount += (level - previous) * count;
            let mut eligible = reached & contenders;
            while let Some(last) = pots.last() {
                if last.eligible == eligible || eligible == 0 {
                    amount += last.amount;
                    eligible = last.eligible;
                    pots.pop();
                } else {
                    break;
                }
            }
            if amount > 0 {
                pots.push(Pot { amount, eligible });
            }
            amount = 0;
            previous = level;
            while let Some(&(put_in, p)) = by_put_in.get(i)
                && put_in == level
            {
                reached &= !bit(p);
                i += 1;
            }
        }
        pots
    }

    /// The winners of a pot and their shares, odd chips by the house rule.
    /// The positions that win a pot (in position order) and their hand's value.
    fn winners(
        &self,
        pot: &Pot,
        values: &[Option<HandValue>; MAX_SEATS],
    ) -> (u16, Option<HandValue>) {
        if pot.eligible.count_ones() == 1 {
            return (pot.eligible, None);
        }
        let best = positions(pot.eligible)
            .filter_map(|p| values[usize::from(p)])
            .max();
        let winners = positions(pot.eligible)
            .filter(|&p| best.is_some() && values[usize::from(p)] == best)
            .fold(0u16, |mask, p| mask | bit(p));
        (winners, best)
    }

    /// The winners of a pot and their shares, odd chips by the house rule.
    fn split(
        &self,
        pot: &Pot,
        values: &[Option<HandValue>; MAX_SEATS],
        odd_chip: OddChip,
    ) -> (Vec<Share>, Option<HandValue>) {
        let (winners, value) = self.winners(pot, values);
        let count = u64::from(winners.count_ones()).max(1);
        let each = pot.amount / count;
        let mut odd = pot.amount % count;
        // Winners are in position order: clockwise from the button.
        let shares = positions(winners)
            .map(|p| {
                let extra = match odd_chip {
                    OddChip::AllToFirstLeftOfButton => std::mem::take(&mut odd),
                    OddChip::OneEachLeftOfButton | OddChip::HighHandThenLeftOfButton => {
                        let one = odd.min(1);
                        odd -= one;
                        one
                    }
                };
                Share {
                    seat: self.seat_of(p),
                    amount: each + extra,
                }
            })
            .collect();
        (shares, value)
    }

    /// Showdown order (positions) of the live players, by the house rule.
    fn showdown_order(&self) -> Order {
        let rules = self.rules.unwrap_or_else(HouseRules::wsop);
        let start = match (self.last_aggressor, rules.showdown_order) {
            (Some(p), _) => p,
            (None, ShowdownOrder::LastAggressorElseLeftOfButton) => 0,
            (None, _) => (0..self.n).find(|&p| self.can_bet(p)).unwrap_or(0),
        };
        let mut order: Order = (0..self.n)
            .map(|i| self.wrap(start + i))
            .filter(|&p| {
                let pl = &self.players[usize::from(p)];
                pl.status == Status::Live && !pl.shown
            })
            .collect();
        if rules.showdown_order == ShowdownOrder::SidePotsFirst {
            // Players all-in for the main pot only show last.
            let live_levels = order.iter().map(|&p| self.players[usize::from(p)].put_in);
            let lowest = live_levels.clone().min().unwrap_or(0);
            let highest = live_levels.max().unwrap_or(0);
            if lowest < highest {
                order.sort_by_key(|&p| {
                    let pl = &self.players[usize::from(p)];
                    pl.stack == 0 && pl.put_in == lowest
                });
            }
        }
        order
    }

    /// Would this player mucking leave some pot with nobody to win it?
    fn last_hand_in_a_pot(&self, p: u8) -> bool {
        self.pots().iter().any(|pot| {
            pot.eligible & bit(p) != 0
                && positions(pot.eligible)
                    .all(|q| q == p || self.players[usize::from(q)].status != Status::Live)
        })
    }

    fn begin_preflop(&mut self) {
        // First to act: after the largest blind or straddle (ties: the later position),
        // as PokerKit opens a round.
        self.street = Street::Preflop;
        self.current_bet = self
            .live_players_iter(true)
            .map(|p| p.bet)
            .max()
            .unwrap_or(0);
        self.begin_round();
    }

    /// Starts a betting round: who is to act and from where.
    fn begin_round(&mut self) {
        self.largest_raise = 0;
        self.raises = 0;
        self.last_short = None;
        self.short_pair = None;
        self.pk_acted = 0;
        self.pk_short_count = 0;
        self.pk_short_sum = 0;
        self.acted = 0;
        self.out_of_turn = None;
        self.no_raise = 0;
        self.last_aggressor = None;
        let n = self.n;
        let opener = if self.street == Street::Preflop {
            self.wrap(self.last_forced_position() + 1)
        } else {
            0
        };
        // Who can still put chips at risk: live, with chips, and with an opponent who can
        // match something.
        // The second largest total of the live players (0 if fewer than two), in one pass.
        let (mut live, mut top, mut second) = (0, 0u64, 0u64);
        for total in self.live_players_iter(false).map(|p| p.stack + p.bet) {
            live += 1;
            if total >= top {
                second = top;
                top = total;
            } else if total > second {
                second = total;
            }
        }
        if live < 2 {
            second = 0;
        }
        let mut pending = 0u16;
        for p in 0..n {
            let pl = &self.players[usize::from(p)];
            let effective = pl.stack.min(second.saturating_sub(pl.bet));
            if pl.status == Status::Live && pl.stack > 0 && effective > 0 {
                pending |= bit(p);
            }
        }
        // A lone player who has matched the bet has nothing to decide.
        if pending.count_ones() == 1 {
            let p = u8::try_from(pending.trailing_zeros()).unwrap_or(0);
            if self.players[usize::from(p)].bet >= self.current_bet {
                pending = 0;
            }
        }
        self.pending = pending;
        self.to_act = self.next_pending(opener);
        self.phase = if self.to_act.is_some() && self.live_count() > 1 {
            Phase::Betting
        } else {
            Phase::RoundComplete
        };
    }

    fn last_forced_position(&self) -> u8 {
        // The position of the largest posted blind or straddle; ties go to the later one.
        let mut best: Option<(u64, u8)> = None;
        for p in 0..self.n {
            let pl = &self.players[usize::from(p)];
            if pl.bet > 0 && best.is_none_or(|(b, _)| pl.bet >= b) {
                best = Some((pl.bet, p));
            }
        }
        best.map_or(self.n - 1, |(_, p)| p)
    }

    /// The first pending position at or after `from`, clockwise.
    fn next_pending(&self, from: u8) -> Option<u8> {
        let seated = u16::MAX
            .checked_shl(u32::from(self.n))
            .map_or(u16::MAX, |m| !m);
        let pending = self.pending & seated;
        let from_on = pending & u16::MAX.checked_shl(u32::from(from)).unwrap_or(0);
        let first = if from_on != 0 { from_on } else { pending };
        (first != 0)
            .then(|| u8::try_from(first.trailing_zeros()).ok())
            .flatten()
    }

    /// Position `p` (below `2 * n`) taken round the table: the next ones after the last
    /// are 0, 1, ... (a subtraction, not a division: these run on every action).
    fn wrap(&self, p: u8) -> u8 {
        if p >= self.n { p - self.n } else { p }
    }

    /// After a player acted: the next to act, or the end of the round.
    fn advance(&mut self, p: u8) {
        self.pending &= !bit(p);
        self.acted |= bit(p);
        self.pk_acted |= bit(p);
        self.acted_at[usize::from(p)] = self.current_bet;
        self.acted_raises[usize::from(p)] = self.raises;
        if self.live_count() <= 1 {
            self.pending = 0;
        }
        self.to_act = self.next_pending(self.wrap(p + 1));
        if self.to_act.is_none() {
            self.phase = Phase::RoundComplete;
        }
    }

    fn count_action(&mut self, p: u8, puts_chips: bool) {
        if self.street == Street::Preflop {
            self.players_acted |= bit(p);
            self.actions_taken = self.actions_taken.saturating_add(1);
            if puts_chips {
                self.chip_actions = self.chip_actions.saturating_add(1);
            }
        }
    }

    /// Move chips from a stack into the round's bet.
    fn put(&mut self, p: u8, amount: u64) {
        let pl = &mut self.players[usize::from(p)];
        let amount = amount.min(pl.stack);
        pl.stack -= amount;
        pl.bet += amount;
        pl.put_in += amount;
    }

    fn raise_to(&mut self, p: u8, to: u64) {
        let before = self.current_bet;
        let bet = self.players[usize::from(p)].bet;
        self.put(p, to.saturating_sub(bet));
        let increment = to.saturating_sub(before);
        let full_size = self.full_raise_size();
        let full = increment >= full_size;
        let pk_full = increment >= self.largest_raise;
        self.current_bet = self.current_bet.max(to);
        self.largest_raise = self.largest_raise.max(increment);
        self.last_aggressor = Some(p);
        self.count_action(p, true);
        self.raises = self.raises.saturating_add(1);
        if full {
            self.acted = 0;
        }
        let all_in = self.players[usize::from(p)].stack == 0;
        // Consecutive short all-ins, for the two-consecutive rule.
        if all_in && !full {
            if let Some((seq, previous)) = self.last_short
                && seq + 1 == self.raises
                && previous + increment >= full_size
            {
                self.short_pair = Some(seq);
            }
            self.last_short = Some((self.raises, increment));
        } else {
            self.last_short = None;
        }
        // PokerKit's bookkeeping, kept exactly as it keeps it.
        if pk_full {
            self.pk_acted = 0;
        }
        if all_in {
            self.pk_short_count = self.pk_short_count.saturating_add(1);
            self.pk_short_sum += increment;
        } else {
            self.pk_short_count = 0;
            self.pk_short_sum = 0;
        }
        if self.pk_short_sum >= self.largest_raise {
            self.pk_short_count = 0;
            self.pk_short_sum = 0;
        }
        // Everyone else with chips acts again.
        let mut pending = 0u16;
        for q in 0..self.n {
            if q != p && self.can_bet(q) {
                pending |= bit(q);
            }
        }
        self.pending = pending | bit(p);
        self.advance(p);
        if full {
            self.acted = bit(p);
        }
    }

    fn apply(&mut self, event: &Event) {
        match event {
            Event::HandStarted { setup } => self.start(setup),
            Event::DeckSealed { seed } => {
                self.seed = Some(*seed);
                self.deck = Some(*Deck::from_seed(seed).cards());
                self.seeded = true;
            }
            Event::AntePosted { seat, amount, .. } => {
                if let Ok(p) = self.position(*seat) {
                    let pl = &mut self.players[usize::from(p)];
                    let amount = (*amount).min(pl.stack);
                    pl.stack -= amount;
                    pl.ante += amount;
                }
            }
            Event::BlindPosted {
                seat, amount, kind, ..
            } => {
                if let Ok(p) = self.position(*seat) {
                    if *kind == BlindKind::BigBlind {
                        self.bb_pos = Some(p);
                    }
                    self.put(p, *amount);
                    self.current_bet = self.current_bet.max(self.players[usize::from(p)].bet);
                }
            }
            Event::HoleCardsDealt { seat, cards } => {
                if let Ok(p) = self.position(*seat) {
                    self.players[usize::from(p)].hole = Some(*cards);
                    if self.seeded {
                        self.deck_next = self.deck_next.saturating_add(2);
                    }
                }
            }
            Event::PlayerFolded { seat, .. } => {
                if let Ok(p) = self.position(*seat) {
                    self.players[usize::from(p)].status = Status::Folded;
                    self.count_action(p, false);
                    self.advance(p);
                }
            }
            Event::PlayerChecked { seat } => {
                if let Ok(p) = self.position(*seat) {
                    self.count_action(p, false);
                    self.advance(p);
                }
            }
            Event::PlayerCalled { seat, amount, .. } => {
                if let Ok(p) = self.position(*seat) {
                    self.put(p, *amount);
                    self.count_action(p, true);
                    self.advance(p);
                }
            }
            Event::PlayerBet { seat, to, .. } | Event::PlayerRaised { seat, to, .. } => {
                if let Ok(p) = self.position(*seat) {
                    self.raise_to(p, *to);
                }
            }
            Event::PreflopStarted => self.begin_preflop(),
            Event::RaiseTreatedAsCall { .. } => {}
            Event::ActedOutOfTurn {
                seat,
                action,
                facing,
            } => {
                if let Ok(p) = self.position(*seat) {
                    self.out_of_turn = Some((p, *action, *facing));
                }
            }
            Event::OutOfTurnRuled { seat, ruling, .. } => {
                self.out_of_turn = None;
                if *ruling == OutOfTurnRuling::NoRaise
                    && let Ok(p) = self.position(*seat)
                {
                    self.no_raise |= bit(p);
                }
            }
            Event::UncalledBetReturned { seat, amount } => {
                if let Ok(p) = self.position(*seat) {
                    let pl = &mut self.players[usize::from(p)];
                    let amount = (*amount).min(pl.bet);
                    pl.bet -= amount;
                    pl.put_in -= amount;
                    pl.stack += amount;
                }
            }
            Event::BoardDealt { street, cards } => {
                for &card in cards {
                    if let Some(slot) = self.board.get_mut(usize::from(self.board_len)) {
                        *slot = Some(card);
                        self.board_len += 1;
                    }
                }
                if self.seeded {
                    // One burn and the cards.
                    let dealt = u8::try_from(cards.len()).unwrap_or(0);
                    self.deck_next = self.deck_next.saturating_add(1 + dealt);
                }
                self.street = *street;
                for pl in &mut self.players[..usize::from(self.n)] {
                    pl.bet = 0;
                }
                self.current_bet = 0;
                self.begin_round();
            }
            Event::ShowdownStarted { order } => {
                for pl in &mut self.players[..usize::from(self.n)] {
                    pl.bet = 0;
                }
                self.show_len = 0;
                for &seat in order {
                    if let Ok(p) = self.position(seat) {
                        self.show_order[usize::from(self.show_len)] = p;
                        self.show_len += 1;
                    }
                }
                self.show_next = 0;
                self.phase = if self.show_len == 0 {
                    Phase::Awarding
                } else {
                    Phase::Showdown
                };
            }
            Event::HandShown { seat, cards } => {
                if let Ok(p) = self.position(*seat) {
                    let pl = &mut self.players[usize::from(p)];
                    pl.hole = Some(*cards);
                    pl.shown = true;
                    if self.phase == Phase::Showdown {
                        self.showdown_done(p);
                    }
                }
            }
            Event::HandMucked { seat } => {
                if let Ok(p) = self.position(*seat) {
                    self.players[usize::from(p)].status = Status::Mucked;
                    if self.phase == Phase::Showdown {
                        self.showdown_done(p);
                    }
                }
            }
            Event::PotAwarded { shares, .. } => {
                for share in shares {
                    if let Ok(p) = self.position(share.seat) {
                        self.players[usize::from(p)].stack += share.amount;
                        self.awarded += share.amount;
                    }
                }
            }
            Event::HandEnded { .. } => {
                for pl in &mut self.players[..usize::from(self.n)] {
                    pl.bet = 0;
                    pl.put_in = 0;
                    pl.ante = 0;
                }
                self.awarded = 0;
                self.phase = Phase::Complete;
                self.to_act = None;
            }
            Event::HandVoided { refunds, .. } => {
                for share in refunds {
                    if let Ok(p) = self.position(share.seat) {
                        self.players[usize::from(p)].stack += share.amount;
                    }
                }
                for pl in &mut self.players[..usize::from(self.n)] {
                    pl.bet = 0;
                    pl.put_in = 0;
                    pl.ante = 0;
                }
                self.phase = Phase::Voided;
                self.to_act = None;
            }
        }
    }

    fn showdown_done(&mut self, p: u8) {
        // Remove p from the pending part of the order (it may act out of order once
        // hands are face up).
        let start = usize::from(self.show_next);
        let len = usize::from(self.show_len);
        if let Some(i) = self.show_order[start..len].iter().position(|&q| q == p) {
            self.show_order[start..=start + i].rotate_right(1);
            self.show_next += 1;
        }
        if self.show_next >= self.show_len {
            self.phase = Phase::Awarding;
        }
    }

    fn start(&mut self, setup: &HandSetup) {
        *self = HandState::default();
        let order = clockwise_from(setup.button, &setup.seats);
        self.n = u8::try_from(order.len()).unwrap_or(0);
        for (i, seat) in order.iter().enumerate() {
            if let Some(s) = setup.seats.iter().find(|s| s.seat == *seat) {
                self.players[i] = Player {
                    seat: s.seat,
                    starting: s.stack,
                    stack: s.stack,
                    absent: s.absent,
                    ..Player::default()
                };
            }
        }
        self.rules = Some(setup.rules);
        self.big_blind = setup.big_blind;
        let straddle = setup
            .blinds
            .iter()
            .filter(|b| b.kind == BlindKind::Straddle)
            .map(|b| b.amount)
            .max()
            .unwrap_or(0);
        self.preflop_floor = setup.big_blind.max(straddle);
        self.phase = Phase::Dealing;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Pots as they were first built: level by level, every player and every position
    /// looked at again for each level, eligibility as a list. The one-pass, mask-based
    /// `pots_among` must give the same pots.
    fn pots_reference(state: &HandState, contenders: u16) -> Vec<(u64, Vec<u8>)> {
        let players = &state.players[..usize::from(state.n)];
        let mut levels: Vec<u64> = players.iter().map(|p| p.put_in).collect();
        levels.sort_unstable();
        levels.dedup();
        let mut pots: Vec<(u64, Vec<u8>)> = Vec::new();
        let mut amount: u64 = players.iter().map(|p| p.ante).sum();
        let mut previous = 0;
        for level in levels {
            for pl in players {
                if pl.put_in >= level {
                    amount += level - previous;
                }
            }
            let mut eligible: Vec<u8> = (0..state.n)
                .filter(|&p| players[usize::from(p)].put_in >= level && contenders & bit(p) != 0)
                .collect();
            while let Some(last) = pots.last() {
                if last.1 == eligible || eligible.is_empty() {
                    amount += last.0;
                    eligible.clone_from(&last.1);
                    pots.pop();
                } else {
                    break;
                }
            }
            if amount > 0 {
                pots.push((amount, eligible));
            }
            amount = 0;
            previous = level;
        }
        pots
    }

    fn state_with(put_in: &[(u64, u64)]) -> HandState {
        let mut state = HandState::new();
        state.n = u8::try_from(put_in.len()).unwrap();
        for (p, &(put, ante)) in put_in.iter().enumerate() {
            state.players[p].put_in = put;
            state.players[p].ante = ante;
        }
        state
    }

    proptest! {
        #[test]
        fn pots_are_those_of_the_level_by_level_construction(
            // Few distinct amounts, so that levels are often shared.
            put_in in proptest::collection::vec((0u64..6, 0u64..3), 2..=MAX_SEATS),
            contenders in any::<u16>(),
        ) {
            let state = state_with(&put_in);
            let got: Vec<(u64, Vec<u8>)> = state
                .pots_among(contenders)
                .into_iter()
                .map(|pot| (pot.amount, positions(pot.eligible).collect()))
                .collect();
            prop_assert_eq!(got, pots_reference(&state, contenders));
        }

        #[test]
        fn the_next_pending_position_is_found_clockwise(
            n in 2u8..=10,
            pending in any::<u16>(),
            from in 0u8..10,
        ) {
            let mut state = HandState::new();
            state.n = n;
            state.pending = pending;
            let from = from % n;
            let expected = (0..n).map(|i| (from + i) % n).find(|&p| pending & bit(p) != 0);
            prop_assert_eq!(state.next_pending(from), expected);
            for p in 0..n {
                prop_assert_eq!(state.wrap(p + from), (p + from) % n);
            }
        }
    }
}
