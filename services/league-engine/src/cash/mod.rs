//! A cash table (a ring game) as `decide(&state, command)` and `apply(state, &event)`.
//!
//! # Model
//!
//! A table is opened with its stakes, buy-in limits, seats, house and straddle policy, and
//! the house's take. Players sit down with a buy-in, top up between hands, sit out, come
//! back and cash out; every chip on the table came from a buy-in or a top-up and leaves
//! through a pot, a cash-out or the house's take. Each hand is played by the same hand
//! engine as tournaments ([`crate::hand`]); the table decides who is dealt in, where the
//! button and the blinds go, and what a player owes for the blinds missed while away.
//!
//! Only the two houses that run cash games have a preset here ([`CashRules::of`]):
//!
//! | | `oracle` | `hippodrome` |
//! |---|---|---|
//! | buy-in | at least the table minimum (Buy-in 1) | a full buy-in, at least the minimum (Buy-in 1) |
//! | adding chips | between hands, up to the maximum (Buy-in 2) | between hands, up to the maximum (Buy-in 2) |
//! | from a broken or must-move game | keeps the same amount, even below the minimum (Buy-in 3) | the same (Buy-in 3) |
//! | a new player | waits for the big blind or posts one (Buy-in 4) | waits for the big blind (Blinds 4, 5) |
//! | missed blinds | posts them all, up to the big blind live and the rest dead, or waits (Blinds 7) | posts the big blind or waits (Blinds 8) |
//! | straddle | one live straddle, left of the big blind (Blinds 12) | a button straddle three- or four-handed (Procedures 9) |
//! | returning | | within two hours of cashing out, buys in for at least what was taken (Procedures 7) |
//! | rake | a share of each pot up to a cap, if the table rakes (Betting 5) | |
//! | running it twice | | above the table's minimum pot, every player agreeing (Showdown 8) |
//! | session fee | | on the hour and the half hour; paid on return when away; a new player pays the last one within ten minutes (Procedures 4, 4a) |
//!
//! The button moves one player on each hand (Oracle Blinds 2a, Hippodrome Blinds 2a); a
//! player whose seat the big (small) blind passes while sitting out owes it.
//!
//! # Invariants (checked by [`CashState::check_invariants`] in the tests after every event)
//!
//! - chips are conserved: the chips at the table = buy-ins + top-ups - cash-outs - the
//!   house's take, and, during a hand, the hand's own conservation holds;
//! - no stack is negative (chips are unsigned and every subtraction is checked).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::hand::{self, HandState, Seat};
use crate::rules::{HouseRules, Preset};
use crate::units::{Chips, PlayerId, VenueId};

mod decide;
mod errors;
pub mod sim;
#[cfg(test)]
mod tests;

pub use decide::{CashCommand, decide};
pub use errors::CashError;

/// A time in whole seconds since the Unix epoch. The table reads no clock: the time comes
/// in each command that needs one and is recorded in its event.
pub type Seconds = u64;

/// The most seats at a cash table (the hand engine's limit).
pub const MAX_TABLE_SEATS: u8 = 10;

/// Who may straddle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum StraddlePolicy {
    /// No straddles.
    None,
    /// One live straddle of twice the big blind, by the player left of the big blind, with
    /// three or more players (Oracle, Blinds 12).
    UnderTheGun,
    /// A straddle of twice the big blind by the button, with three or four players
    /// (Hippodrome, Procedures 9).
    Button,
}

/// What the house takes from a table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum HouseTake {
    /// Nothing.
    None,
    /// `amount` from every seated player each `period_minutes`, collected before the deal
    /// (Hippodrome, Procedures 4, 4a).
    SessionFee { amount: Chips, period_minutes: u32 },
    /// A share of each pot, up to a cap, taken before the pot is awarded (Oracle, Betting 5:
    /// "the rake or collection").
    Rake(hand::Rake),
}

/// Everything fixed when a table opens.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TableConfig {
    /// The venue whose host runs the table.
    pub venue: VenueId,
    /// What the venue calls it (`£1/£2 No-Limit`).
    pub name: String,
    pub small_blind: Chips,
    pub big_blind: Chips,
    pub min_buy_in: Chips,
    pub max_buy_in: Chips,
    /// Seats at the table, `2..=10`; seats are numbered from 0.
    pub seats: u8,
    pub rules: HouseRules,
    pub straddle: StraddlePolicy,
    pub take: HouseTake,
    /// The smallest pot the players may run twice (Hippodrome, Showdown 8: £500 at
    /// £1/£2); `None`: the board runs once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_twice: Option<Chips>,
}

/// How a new player gets a hand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum NewPlayer {
    /// Waits for the big blind, or posts a big blind and is dealt in at once (Oracle,
    /// Buy-in 4).
    WaitOrPost,
    /// Waits for the big blind (Hippodrome, Blinds 4, 5).
    Wait,
}

/// What a player who missed blinds posts to come back before the big blind reaches them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum MissedBlinds {
    /// Every blind missed: up to the big blind live, the rest dead (Oracle, Blinds 7).
    PostAll,
    /// The big blind (Hippodrome, Blinds 8).
    PostBigBlind,
}

/// The cash-game rules of a house.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CashRules {
    pub new_player: NewPlayer,
    pub missed_blinds: MissedBlinds,
    /// How long after cashing out a player returning to the table must buy in for at least
    /// what they took (Hippodrome, Procedures 7: two hours).
    pub return_window: Option<Seconds>,
    /// How long after a session fee a new player pays it on sitting down (Hippodrome,
    /// Procedures 4a: ten minutes).
    pub fee_grace: Seconds,
    /// Whether the players may run the board twice (Hippodrome, Showdown 8).
    pub run_twice: bool,
}

impl CashRules {
    /// The house's cash rules, or `None` for a house that runs no cash games.
    pub fn of(preset: Preset) -> Option<CashRules> {
        match preset {
            Preset::Oracle => Some(CashRules {
                new_player: NewPlayer::WaitOrPost,
                missed_blinds: MissedBlinds::PostAll,
                return_window: None,
                fee_grace: 0,
                run_twice: false,
            }),
            Preset::Hippodrome => Some(CashRules {
                new_player: NewPlayer::Wait,
                missed_blinds: MissedBlinds::PostBigBlind,
                return_window: Some(2 * 60 * 60),
                fee_grace: 10 * 60,
                run_twice: true,
            }),
            _ => None,
        }
    }

    /// The straddle the house allows.
    pub fn straddle(preset: Preset) -> StraddlePolicy {
        match preset {
            Preset::Oracle => StraddlePolicy::UnderTheGun,
            Preset::Hippodrome => StraddlePolicy::Button,
            _ => StraddlePolicy::None,
        }
    }
}

/// How a player came to the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum Entry {
    /// A buy-in within the table's limits.
    BuyIn,
    /// Moved by the house from a broken or must-move game of the same stakes: keeps the
    /// same amount, even outside the limits (Oracle and Hippodrome, Buy-in 3).
    Transfer,
}

/// A blind a player owes, or posts to come in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum Owed {
    SmallBlind,
    BigBlind,
}

/// A seated player.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CashSeat {
    pub player: PlayerId,
    /// Chips behind, between hands (during a hand the hand holds the live figure).
    pub stack: Chips,
    pub sitting_out: bool,
    /// New, or back without posting: dealt in when the big blind reaches the seat.
    pub waiting_for_big_blind: bool,
    /// Posts a big blind (a new player) or the blinds owed (a returning one) next hand.
    pub posting: bool,
    pub owes_small: bool,
    pub owes_big: bool,
    /// Session fees charged while away, paid on return.
    pub fees_due: Chips,
}

/// One player's part of a session fee.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Fee {
    pub seat: Seat,
    pub amount: Chips,
}

/// What happened at the table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "type", content = "data")]
pub enum CashEvent {
    TableOpened {
        config: Box<TableConfig>,
        at: Seconds,
    },
    TableClosed {
        at: Seconds,
    },
    PlayerSeated {
        seat: Seat,
        player: PlayerId,
        buy_in: Chips,
        entry: Entry,
        /// Dealt in only when the big blind reaches the seat.
        waits_for_big_blind: bool,
        /// Posts a big blind next hand to be dealt in at once.
        posts_big_blind: bool,
        at: Seconds,
    },
    ChipsAdded {
        seat: Seat,
        amount: Chips,
    },
    PlayerSatOut {
        seat: Seat,
        at: Seconds,
    },
    /// Back at the table: posting what is owed next hand, or waiting for the big blind.
    PlayerReturned {
        seat: Seat,
        posts: bool,
        at: Seconds,
    },
    /// The blind passed the seat while the player sat out.
    BlindMissed {
        seat: Seat,
        blind: Owed,
    },
    PlayerCashedOut {
        seat: Seat,
        player: PlayerId,
        amount: Chips,
        at: Seconds,
    },
    SeatReserved {
        seat: Seat,
        player: PlayerId,
        until: Seconds,
    },
    ReservationCancelled {
        seat: Seat,
    },
    WaitingListJoined {
        player: PlayerId,
    },
    WaitingListLeft {
        player: PlayerId,
    },
    /// The session fee of the period starting `at`: paid from the stacks of the players
    /// in their seats, owed by those away (`owed`).
    SessionFeeCharged {
        at: Seconds,
        paid: Vec<Fee>,
        owed: Vec<Fee>,
    },
    /// A fee owed paid: on return, or by a new player sitting down just after a charge.
    SessionFeePaid {
        seat: Seat,
        amount: Chips,
        at: Seconds,
    },
    /// Hand `number` of the table is dealt (its events follow).
    HandDealt {
        number: u32,
        at: Seconds,
    },
    /// One event of the running hand.
    HandEvent {
        event: hand::Event,
    },
}

/// The table, folded from its events.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CashState {
    pub config: Option<TableConfig>,
    pub closed: bool,
    pub seats: BTreeMap<Seat, CashSeat>,
    pub button: Option<Seat>,
    pub small_blind: Option<Seat>,
    pub big_blind: Option<Seat>,
    /// The current hand, or the last one.
    pub hand: Option<HandState>,
    pub hands: u32,
    /// Each player's last cash-out: the amount and when.
    pub cashed_out: BTreeMap<PlayerId, (Chips, Seconds)>,
    pub waiting_list: Vec<PlayerId>,
    /// Seats held for a player until a time.
    pub reservations: BTreeMap<Seat, (PlayerId, Seconds)>,
    /// The last session fee: when, and how much.
    pub last_fee: Option<(Seconds, Chips)>,
    /// Chips brought to the table (buy-ins and top-ups), taken away (cash-outs), and taken
    /// by the house.
    pub bought_in: Chips,
    pub cashed: Chips,
    pub takings: Chips,
    /// The house's take by day (days since the Unix epoch, UTC).
    pub takings_by_day: BTreeMap<u64, Chips>,
    /// When the current (or last) hand was dealt: its rake counts on that day.
    #[serde(default)]
    pub hand_at: Seconds,
}

impl CashState {
    pub fn new() -> CashState {
        CashState::default()
    }

    /// The house's cash rules (the table is open).
    pub fn cash_rules(&self) -> Option<CashRules> {
        self.config
            .as_ref()
            .and_then(|c| CashRules::of(c.rules.preset))
    }

    /// Whether a hand is being played.
    pub fn in_hand(&self) -> bool {
        self.hand
            .as_ref()
            .is_some_and(|h| h.phase() != hand::Phase::NotStarted && !h.is_over())
    }

    /// Whether `seat` holds cards in the running hand.
    pub fn is_dealt_in(&self, seat: Seat) -> bool {
        self.in_hand() && self.hand.as_ref().is_some_and(|h| h.stack(seat).is_some())
    }

    /// The seat of `player`.
    pub fn seat_of(&self, player: &PlayerId) -> Option<Seat> {
        self.seats
            .iter()
            .find(|(_, s)| &s.player == player)
            .map(|(&seat, _)| seat)
    }

    /// The player's chips now: the hand's figure while they are dealt in.
    pub fn chips(&self, seat: Seat) -> Option<Chips> {
        let held = self.seats.get(&seat)?;
        if self.is_dealt_in(seat) {
            return self.hand.as_ref()?.stack(seat).map(Chips::new);
        }
        Some(held.stack)
    }

    /// Checks the conservation of chips (see the module).
    pub fn check_invariants(&self) -> Result<(), String> {
        let mut on_table = Chips::ZERO;
        let hand_in_play = self.in_hand();
        for (&seat, held) in &self.seats {
            if hand_in_play && self.is_dealt_in(seat) {
                continue;
            }
            on_table = on_table
                .checked_add(held.stack)
                .ok_or("the stacks overflow")?;
        }
        if hand_in_play {
            let hand = self.hand.as_ref().ok_or("no hand")?;
            hand.check_invariants()?;
            let starting: u64 = hand
                .seats_in_order()
                .filter_map(|seat| self.seats.get(&seat).map(|s| s.stack.get()))
                .sum();
            // The pots raked so far are already the house's.
            let left = starting
                .checked_sub(hand.raked())
                .ok_or("more raked than was dealt in")?;
            on_table = on_table
                .checked_add(Chips::new(left))
                .ok_or("the stacks overflow")?;
        }
        let expected = self
            .bought_in
            .checked_sub(self.cashed)
            .and_then(|x| x.checked_sub(self.takings))
            .ok_or("more chips left the table than came to it")?;
        if on_table != expected {
            return Err(format!(
                "{on_table} chips at the table, but {} bought in - {} cashed out - {} taken",
                self.bought_in, self.cashed, self.takings
            ));
        }
        Ok(())
    }

    fn take(&mut self, amount: Chips, at: Seconds) {
        self.takings = self.takings.saturating_add(amount);
        let day = self.takings_by_day.entry(at / 86_400).or_default();
        *day = day.saturating_add(amount);
    }

    /// Folds one event into the table. Events are trusted: they were decided, or are
    /// being replayed from a verified log.
    pub fn apply(&mut self, event: &CashEvent) {
        match event {
            CashEvent::TableOpened { config, .. } => self.config = Some((**config).clone()),
            CashEvent::TableClosed { .. } => {
                self.closed = true;
                self.waiting_list.clear();
                self.reservations.clear();
            }
            CashEvent::PlayerSeated {
                seat,
                player,
                buy_in,
                waits_for_big_blind,
                posts_big_blind,
                ..
            } => {
                self.seats.insert(
                    *seat,
                    CashSeat {
                        player: player.clone(),
                        stack: *buy_in,
                        sitting_out: false,
                        waiting_for_big_blind: *waits_for_big_blind,
                        posting: *posts_big_blind,
                        owes_small: false,
                        owes_big: false,
                        fees_due: Chips::ZERO,
                    },
                );
                self.bought_in = self.bought_in.saturating_add(*buy_in);
                self.waiting_list.retain(|p| p != player);
                self.reservations.remove(seat);
            }
            CashEvent::ChipsAdded { seat, amount } => {
                if let Some(held) = self.seats.get_mut(seat) {
                    // A player who went broke and buys again is a new player: they wait
                    // for the big blind, and owe no blind missed before (Hippodrome,
                    // Blinds 10).
                    if held.stack.is_zero() {
                        held.waiting_for_big_blind = true;
                        held.owes_small = false;
                        held.owes_big = false;
                    }
                    held.stack = held.stack.saturating_add(*amount);
                }
                self.bought_in = self.bought_in.saturating_add(*amount);
            }
            CashEvent::PlayerSatOut { seat, .. } => {
                if let Some(held) = self.seats.get_mut(seat) {
                    held.sitting_out = true;
                    held.posting = false;
                }
            }
            CashEvent::PlayerReturned { seat, posts, .. } => {
                if let Some(held) = self.seats.get_mut(seat) {
                    held.sitting_out = false;
                    held.posting = *posts && (held.owes_big || held.owes_small);
                    held.waiting_for_big_blind =
                        !*posts && (held.owes_big || held.owes_small || held.waiting_for_big_blind);
                }
            }
            CashEvent::BlindMissed { seat, blind } => {
                if let Some(held) = self.seats.get_mut(seat) {
                    match blind {
                        Owed::SmallBlind => held.owes_small = true,
                        Owed::BigBlind => held.owes_big = true,
                    }
                }
            }
            CashEvent::PlayerCashedOut {
                seat,
                player,
                amount,
                at,
            } => {
                self.seats.remove(seat);
                self.cashed = self.cashed.saturating_add(*amount);
                self.cashed_out.insert(player.clone(), (*amount, *at));
            }
            CashEvent::SeatReserved {
                seat,
                player,
                until,
            } => {
                self.reservations.insert(*seat, (player.clone(), *until));
            }
            CashEvent::ReservationCancelled { seat } => {
                self.reservations.remove(seat);
            }
            CashEvent::WaitingListJoined { player } => self.waiting_list.push(player.clone()),
            CashEvent::WaitingListLeft { player } => self.waiting_list.retain(|p| p != player),
            CashEvent::SessionFeeCharged { at, paid, owed } => {
                for fee in paid {
                    if let Some(held) = self.seats.get_mut(&fee.seat) {
                        held.stack = held.stack.saturating_sub(fee.amount);
                    }
                    self.take(fee.amount, *at);
                }
                for fee in owed {
                    if let Some(held) = self.seats.get_mut(&fee.seat) {
                        held.fees_due = held.fees_due.saturating_add(fee.amount);
                    }
                }
                let amount = match self.config.as_ref().map(|c| c.take) {
                    Some(HouseTake::SessionFee { amount, .. }) => amount,
                    _ => Chips::ZERO,
                };
                self.last_fee = Some((*at, amount));
            }
            CashEvent::SessionFeePaid { seat, amount, at } => {
                if let Some(held) = self.seats.get_mut(seat) {
                    held.stack = held.stack.saturating_sub(*amount);
                    held.fees_due = held.fees_due.saturating_sub(*amount);
                }
                self.take(*amount, *at);
            }
            CashEvent::HandDealt { number, at } => {
                self.hands = *number;
                self.hand = Some(HandState::new());
                self.hand_at = *at;
            }
            CashEvent::HandEvent { event } => self.apply_hand(event),
        }
    }

    fn apply_hand(&mut self, event: &hand::Event) {
        let Some(mut hand) = self.hand else {
            return;
        };
        hand::apply(&mut hand, event);
        self.hand = Some(hand);
        if let hand::Event::PotAwarded { rake, .. } = event
            && *rake > 0
        {
            self.take(Chips::new(*rake), self.hand_at);
        }
        if let hand::Event::HandStarted { setup } = event {
            self.button = Some(setup.button);
            self.small_blind = None;
            self.big_blind = None;
            for blind in &setup.blinds {
                match blind.kind {
                    hand::BlindKind::SmallBlind if self.small_blind.is_none() => {
                        self.small_blind = Some(blind.seat)
                    }
                    hand::BlindKind::BigBlind if self.big_blind.is_none() => {
                        self.big_blind = Some(blind.seat)
                    }
                    _ => {}
                }
            }
            // Whoever is dealt in has come in: nothing waits or is owed any longer.
            for dealt in &setup.seats {
                if let Some(held) = self.seats.get_mut(&dealt.seat) {
                    held.waiting_for_big_blind = false;
                    held.posting = false;
                    held.owes_small = false;
                    held.owes_big = false;
                }
            }
        }
        if hand.is_over() {
            let stacks: Vec<(Seat, u64)> = hand.stacks().collect();
            for (seat, stack) in stacks {
                if let Some(held) = self.seats.get_mut(&seat) {
                    held.stack = Chips::new(stack);
                }
            }
        }
    }
}

/// Replays events into a fresh table.
pub fn replay<'a>(events: impl IntoIterator<Item = &'a CashEvent>) -> CashState {
    let mut state = CashState::new();
    for event in events {
        state.apply(event);
    }
    state
}

/// Seats `0..seats` clockwise from the seat after `from`, ending with `from` itself.
pub(crate) fn clockwise(from: Seat, seats: u8) -> impl Iterator<Item = Seat> {
    let n = seats.clamp(1, MAX_TABLE_SEATS);
    (1..=n).map(move |i| (from + i) % n)
}
