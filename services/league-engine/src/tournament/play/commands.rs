//! The commands a tournament takes, and the penalties they can hand out.

use std::fmt;

use super::*;

/// A penalty.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum Penalty {
    /// A warning; no hands missed.
    Warning,
    /// Miss this many hands.
    MissHands(u32),
    /// Miss this many rounds: hands = players at the table times rounds (WPH 47, Oracle 4).
    MissRounds(u32),
    /// Chips removed from play; the player is out.
    Disqualify,
    /// These chips removed from play, fewer than the player has; the player stays in
    /// (WPH 50's forfeiture of chips; chips taken out of view, WPH 44, QueenSix
    /// tournament 25). Release 0.15.0.
    Forfeit(Chips),
    /// The player is put out of the tournament, their chips removed from play and their
    /// place the one they went out in (Oracle tournament 4.5, beside its disqualification;
    /// QueenSix tournament 26's eviction). Release 0.15.0.
    Eliminate,
}

/// The rungs of the ladder a repeat offender's penalties climb where the book says repeat
/// infractions escalate (WPH 47, Oracle tournament 4): a warning, one hand, one to four
/// rounds, then out of the tournament.
pub const PENALTY_LADDER: [Penalty; 7] = [
    Penalty::Warning,
    Penalty::MissHands(1),
    Penalty::MissRounds(1),
    Penalty::MissRounds(2),
    Penalty::MissRounds(3),
    Penalty::MissRounds(4),
    Penalty::Disqualify,
];

impl Penalty {
    /// The penalty's rung on [`PENALTY_LADDER`] (0 for a warning, 6 for out), `None` for a
    /// forfeiture of chips, which stands beside the ladder: a book gives it with or
    /// instead of the others (WPH 50, "forfeiture of chips and/or disqualification").
    /// Hands missed beyond one count as one round, a fifth round or more as four.
    pub fn rung(self) -> Option<usize> {
        match self {
            Penalty::Warning => Some(0),
            Penalty::MissHands(0 | 1) => Some(1),
            Penalty::MissHands(_) => Some(2),
            Penalty::MissRounds(0 | 1) => Some(2),
            Penalty::MissRounds(2) => Some(3),
            Penalty::MissRounds(3) => Some(4),
            Penalty::MissRounds(_) => Some(5),
            Penalty::Disqualify | Penalty::Eliminate => Some(6),
            Penalty::Forfeit(_) => None,
        }
    }

    /// Whether the player is put out of the tournament.
    pub fn puts_out(self) -> bool {
        matches!(self, Penalty::Disqualify | Penalty::Eliminate)
    }
}

impl fmt::Display for Penalty {
    /// As a host says it: "a warning", "2 hands missed", "500 chips forfeited".
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let plural = |n: u32, one: &str| {
            if n == 1 {
                one.to_owned()
            } else {
                format!("{one}s")
            }
        };
        match self {
            Penalty::Warning => f.write_str("a warning"),
            Penalty::MissHands(n) => write!(f, "{n} {} missed", plural(*n, "hand")),
            Penalty::MissRounds(n) => write!(f, "{n} {} missed", plural(*n, "round")),
            Penalty::Disqualify => f.write_str("disqualification"),
            Penalty::Forfeit(chips) => write!(f, "{chips} chips forfeited"),
            Penalty::Eliminate => f.write_str("elimination"),
        }
    }
}

/// A command to the tournament.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
    /// Starts level `level` (1-based) now, only if the tournament is on the level before
    /// it: two devices asking for the same level start it once (the other is refused with
    /// [`TournamentError::LevelMoved`]).
    StartLevel {
        level: u32,
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
    /// Start the next hand at a table (`seed` for dealt tracking), named `hand_id` when
    /// the caller names it (a UUID, unique in the tournament; see
    /// [`TournamentEvent::TableHandStarted`]).
    StartHand {
        table: u32,
        seed: Option<Seed>,
        hand_id: Option<HandId>,
    },
    /// A command to the hand in progress at a table.
    Hand {
        table: u32,
        command: HandCommand,
    },
    /// Calls the clock at `at` on `seat`, the player to act at `table`: the house's
    /// durations run from `at` (`TournamentEvent::ClockCalled`).
    CallClock {
        table: u32,
        seat: Seat,
        at: Millis,
    },
    /// The clock called at `table` ran out by `at` (the server's clock sends it): the
    /// player's hand is dead.
    ClockRanOut {
        table: u32,
        at: Millis,
    },
    /// Results tracking: players out in one hand, best first when the house's order
    /// cannot be worked out from chips; `by` took their chips.
    Eliminate {
        players: Vec<PlayerId>,
        by: Option<PlayerId>,
    },
    /// Results tracking: players out at separate tables in an order nobody can tell (Oracle
    /// tournament 3: "In the event it is impossible to determine the order of elimination,
    /// they will equally split the prizes involved"): they share the places.
    EliminateOrderUnknown {
        players: Vec<PlayerId>,
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
    /// Cancel a scheduled or running tournament: nothing more is played, and every
    /// entrant is refunded what they paid (entries, re-buys, add-ons and fees).
    Cancel {
        reason: String,
    },
    /// Entropy for the next draw (`sha256` of what a host or player gave), pooled until a
    /// draw (start, late entry, redraw, chip race) mixes it into the seed the server
    /// committed to before the entropy was given.
    AddEntropy {
        entropy: Seed,
    },
    /// Results tracking: bring back a player eliminated (or busted) by mistake, with the
    /// chips they were eliminated with (taken back from whoever was given them), at their seat; the
    /// places are worked out again when the tournament finishes.
    Reinstate {
        player: PlayerId,
        reason: String,
    },
    /// Dealt or recorded tracking: puts a stack right after a hand, before the table's
    /// next hand starts (the dispute window): `chips` move from `from` to `to`, both
    /// seated at `table` (a pot pushed to the wrong player, a bet paid from the wrong
    /// stack). The table's chips stay the same; a correction that would leave `from`
    /// with none is refused (a player is put out by the hand's own rulings, not by a
    /// correction).
    CorrectChips {
        table: u32,
        from: PlayerId,
        to: PlayerId,
        chips: Chips,
        reason: String,
    },
    /// Puts a player recorded in the wrong seat in the right one, with the chips they
    /// have (WPH 5: "moved to the correct seat and will take his current total
    /// chipstack with him"): at the same table or another, between hands at both. An
    /// open seat, or the seat of another player, who goes to `player`'s seat (two
    /// players in each other's seats). The tables are balanced afterwards by the house's
    /// rule, as after any move.
    CorrectSeat {
        player: PlayerId,
        table: u32,
        seat: Seat,
        reason: String,
    },
    /// Dealt or recorded tracking: a hand was played with the button out of position.
    /// Between that hand and the table's next, the director puts the button at `button`
    /// (a player's seat) for the next hand, and the blinds follow it (Oracle
    /// Irregularities 1: "the button and blinds will be corrected for the new hand").
    CorrectButton {
        table: u32,
        button: Seat,
        reason: String,
    },
    /// Between hands, staff place the starting stack in the empty seat `seat` of table
    /// `table`: an unsold seat, dealt in, blinded and folded as an absent player's, with
    /// no place or prize (invitational 2.7; QueenSix tournament 4, where a late entrant
    /// then takes it).
    PlaceUnsoldStack {
        table: u32,
        seat: Seat,
    },
    /// Between hands, the director takes the stack of the unsold seat `seat` at table
    /// `table` out of play (invitational 2.7: "If the seat remains empty, the stacks will
    /// be removed by the director"), for `reason`.
    RemoveUnsoldStack {
        table: u32,
        seat: Seat,
        reason: String,
    },
}
