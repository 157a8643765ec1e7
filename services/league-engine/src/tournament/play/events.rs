//! The events a tournament records, and the seatings, colour-ups, knock-outs and results
//! they carry.

use super::*;

/// A player's seat.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Seating {
    pub player: PlayerId,
    pub table: u32,
    pub seat: Seat,
}

/// One player's chips in a colour-up.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Knockout {
    pub player: PlayerId,
    pub by: PlayerId,
}

/// What a cancelled tournament gives back to one entrant.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Refund {
    pub player: PlayerId,
    /// Everything the player paid: entries, re-buys, add-ons and fees.
    pub amount: Cents,
}

/// A cancelled tournament: why, and what each entrant was refunded.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Cancellation {
    pub reason: String,
    pub refunds: Vec<Refund>,
}

/// One player's result.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
    // A late entry or re-entry. Where its seat holds an unsold seat's stack (QueenSix
    // tournament 4), the entrant takes the stack, blinds paid: `chips` are what it held
    // (release 0.18.0; the shape is version 1's, so its schema keeps no doc here).
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
        /// The hand's id, when the command that started it named one (version 2, release
        /// 0.6.0). A hand without one (every hand before, and a hand started by a caller
        /// that names none) has an id derived from its tournament and its place among the
        /// tournament's hands (`docs/graphql.md`, "Hand ids").
        #[serde(default, skip_serializing_if = "Option::is_none")]
        hand_id: Option<HandId>,
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
    /// (hand-for-hand) with the other players out in the same hand-for-hand round.
    PlayersEliminated {
        players: Vec<PlayerId>,
        table: Option<u32>,
        hand: Option<u32>,
        tied: bool,
        /// With `tied`: the players went out at one table in one hand, and the house's rule
        /// ranked them, best first (QueenSix 31, Oracle tournament rule 3, invitational
        /// 10.1); they share only with players out at the other tables in the same round,
        /// the lowest of each table sharing the lowest places. Without it every tied player
        /// shares. Version 2 (release 0.7.0); every tied elimination before was unranked.
        ranked: bool,
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
        /// The player penalised.
        player: PlayerId,
        /// The penalty; a forfeiture of chips or an elimination from version 2 (release
        /// 0.15.0).
        penalty: Penalty,
        /// Hands to miss (missed-hands penalties).
        hands: u32,
        /// The house's penalty rule, as the schedule names it.
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
    /// The tournament called off by the venue's staff: nothing more is played, and each
    /// entrant is refunded what they paid.
    TournamentCancelled {
        /// Why, as the staff gave it.
        reason: String,
        refunds: Vec<Refund>,
    },
    /// A player eliminated by mistake is back at `table`/`seat` with the chips they were
    /// eliminated with, taken back from `from` (`None`: from the chips nobody was given).
    PlayerReinstated {
        player: PlayerId,
        table: u32,
        seat: Seat,
        chips: Chips,
        from: Option<PlayerId>,
        /// Why, as the staff gave it.
        reason: String,
    },
    /// Staff put a stack right within the dispute window: between hand `hand` at `table`
    /// and the table's next, `chips` moved from `from` to `to` (both seated there).
    ChipsCorrected {
        table: u32,
        /// The table's hand the correction follows (its number at the table, from 1).
        hand: u32,
        from: PlayerId,
        to: PlayerId,
        chips: Chips,
        /// Why, as the staff gave it.
        reason: String,
    },
    /// Staff put a player recorded in the wrong seat in the right one, between hands,
    /// with their chips; `swapped`, who sat in that seat, went to the player's old one.
    SeatCorrected {
        player: PlayerId,
        from_table: u32,
        from_seat: Seat,
        to_table: u32,
        to_seat: Seat,
        swapped: Option<PlayerId>,
        /// Why, as the staff gave it.
        reason: String,
    },
    /// Staff put the button for table `table`'s next hand at seat `button`, after hand
    /// `hand` was played with it out of position; `was` is where it would have gone.
    /// The blinds follow it, and the dead button's rotation starts again from it.
    ButtonCorrected {
        table: u32,
        /// The table's hand the correction follows (its number at the table, from 1).
        hand: u32,
        button: Seat,
        was: Seat,
        /// Why, as the staff gave it.
        reason: String,
    },
    /// A void hand (`HandVoided`) is no hand played: it is re-dealt with the same button
    /// and blinds, it is not the table's hand of a hand-for-hand round, and each player
    /// listed, dealt in while serving a missed-hands penalty, has that hand still to miss
    /// (QueenSix, irregularities 20 and the glossary: a misdeal "causes the cards to be
    /// reshuffled and a new hand to be dealt"). Written since release 0.7.0: a void of an
    /// earlier release counted as a hand played, and reads so.
    VoidHandNotCounted {
        table: u32,
        penalised: Vec<PlayerId>,
    },
    /// Staff called the clock on `seat`, the player to act at `table`, at `at`: the
    /// player has the house's time and its final countdown (`HouseRules::clock`), to
    /// `expires_at`. The server's clock kills the hand when that passes before the player
    /// acts (`PlayerFolded` with `ClockExpired`); acting, or the hand ending, stops it.
    /// Written since release 0.8.0.
    ClockCalled {
        table: u32,
        seat: Seat,
        at: Millis,
        expires_at: Millis,
    },
    /// Staff put a starting stack of `chips` in the empty seat `seat` of table `table`,
    /// between hands: an unsold seat. It is dealt in, blinded and folded as an absent
    /// player's hand is, but belongs to no entrant: it has no place, prize or points and
    /// is not counted among the players left. `rule` names the house's rule (invitational
    /// 2.7: "Unsold seats will have a chip stack, and blinds will be taken from their
    /// stacks"; QueenSix tournament 4: "A starting stack of chips may be placed in a seat
    /// to accommodate late entrants"). A late entrant's `PlayerEntered` in that seat takes
    /// the stack, and is seated with what it holds (QueenSix). Written since release 0.18.0.
    UnsoldStackPlaced {
        table: u32,
        seat: Seat,
        chips: Chips,
        rule: String,
    },
    /// The stack in the unsold seat `seat` of table `table` left play with its `chips`,
    /// and the seat is empty: removed by the director (invitational 2.7: "If the seat
    /// remains empty, the stacks will be removed by the director"), blinded away, or gone
    /// with its table (broken, redrawn, the tournament over), as `reason` says. (A late
    /// entrant who takes the seat takes its stack: `PlayerEntered`.) Written since release
    /// 0.18.0.
    UnsoldStackRemoved {
        table: u32,
        seat: Seat,
        chips: Chips,
        reason: String,
    },
    /// Entropy a host or player added for the next draw: `sha256` of what they gave. It is
    /// pooled (`pool = sha256(pool || entropy)`, from 32 zero bytes) until a draw mixes it in.
    EntropyAdded {
        entropy: Seed,
    },
    /// The pooled entropy the draw that follows this event (in the same command) mixed into
    /// its revealed seed: that draw is made from `mix_entropy(seed, entropy)`.
    EntropyMixed {
        entropy: Seed,
    },
}
