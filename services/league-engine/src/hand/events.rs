//! The events a hand records, and the rulings, fold reasons and shares they carry.

use super::*;

/// How an out-of-turn action was ruled when the player's turn came.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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

/// Why a player's hand was folded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Share {
    pub seat: Seat,
    pub amount: u64,
}

/// Something that happened in the hand. Amounts are chips; `to` amounts are the player's
/// total for the betting round.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
    /// The floor declared the hand at `seat` dead (`Command::Kill`): folded at once, in
    /// or out of its turn, its chips left in the pot.
    HandKilled {
        seat: Seat,
        cause: KillCause,
        reason: String,
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
    /// Pot `pot` (0 is the main pot) of `amount`, contested by `eligible`: the house's
    /// `rake` is taken first (cash tables that rake), and the rest split among the winners
    /// (their hand `value` when it went to a showdown).
    PotAwarded {
        pot: u8,
        amount: u64,
        eligible: Vec<Seat>,
        shares: Vec<Share>,
        value: Option<HandValue>,
        #[serde(default, skip_serializing_if = "is_zero")]
        rake: u64,
        /// The run whose board decided this part of the pot when the board was run twice
        /// (0, the first, or 1); each pot is then awarded once per run, the rake with the
        /// first run's part.
        #[serde(default, skip_serializing_if = "is_first")]
        run: u8,
    },
    /// A player's answer when the table offers to run the rest of the board twice: once
    /// the betting is over with every hand face up and the pot at least the table's
    /// minimum. The board runs twice when every player in the hand agrees.
    RunTwiceChosen {
        seat: Seat,
        agree: bool,
    },
    /// The first run's board (`first`) is complete: the board is dealt again from where
    /// the betting ended, for the second run.
    BoardRunAgain {
        first: Vec<Card>,
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
    /// The floor holds the pot pending a decision: nothing is awarded until it is released.
    PotImpounded {
        reason: String,
    },
    /// The impounded pot goes to be awarded as the hands stand.
    PotReleased {
        reason: String,
    },
    /// A hand mucked at the showdown, ruled live again by the floor and turned face up.
    HandRetrieved {
        seat: Seat,
        cards: [Card; 2],
        reason: String,
    },
    /// A hand mucked at the showdown turned face up at `asked_by`'s request; `live` when
    /// the house's `rule` makes it live again.
    HandSeenOnRequest {
        seat: Seat,
        asked_by: Seat,
        cards: [Card; 2],
        live: bool,
        rule: SeenHandRule,
    },
    /// A player whose out-of-turn bet a larger bet released folded, and the bet stays in
    /// the pot (WPH 31): `amount` goes from their stack into the pot.
    OutOfTurnBetForfeited {
        seat: Seat,
        amount: u64,
    },
    /// The floor ruled the call at `seat` not binding (QueenSix NLHE 10): the `amount` the
    /// call put in went back to the caller's stack and the hand is folded.
    CallRetracted {
        seat: Seat,
        amount: u64,
        reason: String,
    },
    /// The floor took away the aggressive action of the player at `seat` for the rest of
    /// the hand (Oracle exposing cards 1-2, Hippodrome irregularities 9): they may check,
    /// call or fold, never bet or raise. No chips move.
    AggressionForfeited {
        seat: Seat,
        reason: String,
    },
    /// Every chip returned to whoever put it in.
    HandVoided {
        reason: VoidReason,
        refunds: Vec<Share>,
    },
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

fn is_first(run: &u8) -> bool {
    *run == 0
}
