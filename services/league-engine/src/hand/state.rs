//! The folded state of a hand (players by position, phase, the betting queue) and the ways
//! to read it.

use super::*;

/// How a player stands in the hand.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(super) enum Status {
    #[default]
    Live,
    Folded,
    Mucked,
}

/// A player in the hand, by position.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct Player {
    pub(super) seat: Seat,
    pub(super) starting: u64,
    pub(super) stack: u64,
    /// Live chips this betting round (blinds count).
    pub(super) bet: u64,
    /// Live chips put in over the whole hand, bets of this round included.
    pub(super) put_in: u64,
    /// Dead chips (antes).
    pub(super) ante: u64,
    pub(super) status: Status,
    pub(super) absent: bool,
    pub(super) hole: Option<[Card; 2]>,
    pub(super) shown: bool,
    /// The chips the player's call put in, while the floor may still rule it not binding
    /// (QueenSix NLHE 10): a call on this street that no bet or raise has followed.
    #[serde(default, skip_serializing_if = "no_chips")]
    pub(super) called: u64,
    /// The floor took away the player's aggressive action for the rest of the hand
    /// ([`Command::ForfeitAggression`]): they may check, call or fold, never bet or raise.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub(super) passive: bool,
}

fn no_chips(chips: &u64) -> bool {
    *chips == 0
}

/// Where the hand is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
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
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HandState {
    pub(super) phase: Phase,
    pub(super) rules: Option<HouseRules>,
    pub(super) seeded: bool,
    #[serde(with = "full_deck")]
    pub(super) deck: Option<[Card; 52]>,
    /// Next undealt card of the deck.
    pub(super) deck_next: u8,
    pub(super) seed: Option<Seed>,
    pub(super) players: [Player; MAX_SEATS],
    pub(super) n: u8,
    pub(super) big_blind: u64,
    /// The smallest full raise preflop: the big blind, or a straddle.
    pub(super) preflop_floor: u64,
    pub(super) street: Street,
    pub(super) board: [Option<Card>; 5],
    pub(super) board_len: u8,
    /// Highest bet of the round.
    pub(super) current_bet: u64,
    /// Largest full bet or raise of the round (0 until someone bets).
    pub(super) largest_raise: u64,
    /// The round's bet to match when each position last acted.
    pub(super) acted_at: [u64; MAX_SEATS],
    /// Bets and raises so far this round, and the count when each position last acted.
    pub(super) raises: u8,
    pub(super) acted_raises: [u8; MAX_SEATS],
    /// The last bet or raise, if it was an all-in of less than a full raise.
    pub(super) last_short: Option<(u8, u64)>,
    /// The latest pair of consecutive short all-ins that together made a full raise
    /// (the sequence number of its first), for the two-consecutive rule.
    pub(super) short_pair: Option<u8>,
    /// PokerKit's own bookkeeping (the `wsop` preset must never allow a raise that
    /// PokerKit, the PHH reference, refuses): who acted since its notion of a full raise,
    /// and its running list of consecutive short all-ins.
    pub(super) pk_acted: u16,
    pub(super) pk_short_count: u8,
    pub(super) pk_short_sum: u64,
    /// Positions still to act this round, and who is to act.
    pub(super) pending: u16,
    pub(super) to_act: Option<u8>,
    /// Positions that have acted since the last full bet or raise.
    pub(super) acted: u16,
    pub(super) last_aggressor: Option<u8>,
    /// Counts for the misdeal cut-off (blinds not counted).
    pub(super) players_acted: u16,
    pub(super) actions_taken: u8,
    pub(super) chip_actions: u8,
    /// Showdown order (positions) and who has decided.
    pub(super) show_order: [u8; MAX_SEATS],
    pub(super) show_len: u8,
    pub(super) show_next: u8,
    /// A waiting out-of-turn declaration: position, action, the bet it faced.
    pub(super) out_of_turn: Option<(u8, Action, u64)>,
    /// Whether another player has bet, called or raised since that declaration.
    #[serde(default)]
    pub(super) out_of_turn_intervened: bool,
    /// A released out-of-turn bettor, and the chips their bet leaves in the pot if they
    /// fold (WPH 31).
    #[serde(default)]
    pub(super) bet_stays: Option<(u8, u64)>,
    /// Positions that may not bet or raise for the rest of the round.
    pub(super) no_raise: u16,
    /// Chips awarded from the pots so far.
    pub(super) awarded: u64,
    /// Position of the big blind, if one was posted.
    pub(super) bb_pos: Option<u8>,
    /// The rake taken from each pot, and the chips raked so far.
    #[serde(default)]
    pub(super) rake: Option<Rake>,
    #[serde(default)]
    pub(super) raked: u64,
    /// Running the board twice: the smallest pot it is offered for; who has answered and
    /// who agreed (position masks); the runs decided (0 until every answer is in, or a
    /// refusal); the board cards both runs share; the first run's board once the second
    /// is dealt.
    #[serde(default)]
    pub(super) run_twice: Option<u64>,
    #[serde(default)]
    pub(super) run_answers: u16,
    #[serde(default)]
    pub(super) run_agreed: u16,
    #[serde(default)]
    pub(super) runs: u8,
    #[serde(default)]
    pub(super) run_from: u8,
    #[serde(default)]
    pub(super) first_board: Option<[Option<Card>; 5]>,
    /// The smallest chip in play ([`HandSetup::chip_unit`]); 0 (a state saved before it)
    /// is read as 1.
    #[serde(default)]
    pub(super) chip_unit: u64,
    /// The floor holds the pot: nothing is awarded until it is released.
    #[serde(default)]
    pub(super) impounded: bool,
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
            out_of_turn_intervened: false,
            bet_stays: None,
            no_raise: 0,
            awarded: 0,
            bb_pos: None,
            rake: None,
            raked: 0,
            run_twice: None,
            run_answers: 0,
            run_agreed: 0,
            runs: 0,
            run_from: 0,
            first_board: None,
            chip_unit: 1,
            impounded: false,
        }
    }
}

/// What the player to act may do, with exact amounts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct BetRange {
    pub raise: bool,
    pub min: u64,
    pub max: u64,
}

pub(super) fn bit(p: u8) -> u16 {
    1u16 << p
}

/// The positions in a mask, in position order.
pub(super) fn positions(mask: u16) -> impl Iterator<Item = u8> + Clone {
    let n = u8::try_from(MAX_SEATS).unwrap_or(u8::MAX);
    (0..n).filter(move |&p| mask & bit(p) != 0)
}

/// Positions in some order, held without allocating (at most one per seat).
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub(super) struct Order {
    pub(super) items: [u8; MAX_SEATS],
    pub(super) len: usize,
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

    /// The smallest chip in play: bets short of all-in are multiples of it, and split pots
    /// are divided in it ([`HandSetup::chip_unit`]).
    pub fn chip_unit(&self) -> u64 {
        self.chip_unit.max(1)
    }

    /// The seats still to answer whether to run the board twice (empty when it is not
    /// offered now).
    pub fn run_twice_pending(&self) -> Vec<Seat> {
        if !self.offers_run_twice() {
            return Vec::new();
        }
        (0..self.n)
            .filter(|&p| {
                self.players[usize::from(p)].status == Status::Live
                    && self.run_answers & bit(p) == 0
            })
            .map(|p| self.seat_of(p))
            .collect()
    }

    /// The first run's board, once the board is being run a second time.
    pub fn first_run_board(&self) -> Option<Vec<Card>> {
        self.first_board
            .map(|b| b.iter().flatten().copied().collect())
    }

    /// How many times the board runs: 1, 2, or 0 while the players are still answering.
    pub fn runs(&self) -> u8 {
        self.runs
    }

    /// Whether the players are being asked to run the board twice now: the table offers
    /// it, the betting is over with two or more hands and cards to come, every hand a
    /// server dealt is face up, and the pot is at least the table's minimum.
    pub(super) fn offers_run_twice(&self) -> bool {
        let Some(min) = self.run_twice else {
            return false;
        };
        self.runs == 0
            && self.phase == Phase::RoundComplete
            && self.street != Street::River
            && self.runout_face_up()
            && (!self.seeded || self.next_face_up().is_none())
            && self.pot_total() >= min
    }

    /// The chips the house has raked from this hand's pots so far.
    pub fn raked(&self) -> u64 {
        self.raked
    }

    /// Whether the house tells players the pot's size during this hand
    /// ([`HouseRules::tells_pot_size`]); true before the hand starts.
    pub fn tells_pot_size(&self) -> bool {
        self.rules.is_none_or(|r| r.tells_pot_size())
    }

    /// The floor holds the pot pending a decision.
    pub fn impounded(&self) -> bool {
        self.impounded
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

    /// An action declared out of turn that waits for its player's turn: the seat and the
    /// action.
    pub fn out_of_turn(&self) -> Option<(Seat, Action)> {
        match self.phase {
            Phase::Betting => self.out_of_turn.map(|(p, a, _)| (self.seat_of(p), a)),
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
        if self.phase == Phase::RoundComplete
            && !self.seeded
            && self.live_count() > 1
            && !self.offers_run_twice()
        {
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

    /// Whether the floor took the aggressive action of the player at `seat` away for the
    /// rest of the hand ([`Command::ForfeitAggression`]).
    pub fn aggression_forfeited(&self, seat: Seat) -> bool {
        self.position(seat)
            .ok()
            .is_some_and(|p| self.players[usize::from(p)].passive)
    }

    pub fn hole_cards(&self, seat: Seat) -> Option<[Card; 2]> {
        self.position(seat)
            .ok()
            .and_then(|p| self.players[usize::from(p)].hole)
    }

    /// The seat's live chips in this betting round (blinds and straddles count), `None`
    /// for a seat not dealt in.
    pub fn bet(&self, seat: Seat) -> Option<u64> {
        self.position(seat)
            .ok()
            .map(|p| self.players[usize::from(p)].bet)
    }

    /// The pots as they stand, the main pot first: each with its amount and the seats
    /// still able to win it.
    pub fn pots_by_seat(&self) -> Vec<(u64, Vec<Seat>)> {
        self.pots()
            .into_iter()
            .map(|pot| {
                let seats = positions(pot.eligible).map(|p| self.seat_of(p)).collect();
                (pot.amount, seats)
            })
            .collect()
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
        // The rake stays in what was put in until the hand ends, and leaves the table then.
        let raked_away = if self.phase == Phase::Complete {
            self.raked
        } else {
            0
        };
        let total = total
            .checked_sub(self.awarded)
            .and_then(|t| t.checked_add(raked_away))
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

    pub(super) fn rules(&self) -> Result<HouseRules, RuleError> {
        self.rules.ok_or(RuleError::NotStarted)
    }

    pub(super) fn live_players_iter(&self, all: bool) -> impl Iterator<Item = &Player> + '_ {
        self.players[..usize::from(self.n)]
            .iter()
            .filter(move |p| all || p.status == Status::Live)
    }

    pub(super) fn seat_of(&self, p: u8) -> Seat {
        self.players[usize::from(p)].seat
    }

    pub(super) fn position(&self, seat: Seat) -> Result<u8, RuleError> {
        (0..self.n)
            .find(|&p| self.players[usize::from(p)].seat == seat)
            .ok_or(RuleError::NoSuchSeat { seat })
    }

    pub(super) fn live_count(&self) -> usize {
        self.live_players_iter(false).count()
    }
}

/// A whole deck in a snapshot: serde derives arrays of at most 32 elements, so the 52 cards
/// go as a sequence, and one of any other length is refused.
mod full_deck {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use crate::card::Card;

    pub fn serialize<S: Serializer>(deck: &Option<[Card; 52]>, s: S) -> Result<S::Ok, S::Error> {
        deck.as_ref().map(|d| d.as_slice()).serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<[Card; 52]>, D::Error> {
        Option::<Vec<Card>>::deserialize(d)?
            .map(|cards| {
                <[Card; 52]>::try_from(cards).map_err(|c| {
                    serde::de::Error::custom(format!("a deck of {} cards, not 52", c.len()))
                })
            })
            .transpose()
    }
}
