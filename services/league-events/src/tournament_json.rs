//! Tournament events read straight from the bytes serde writes.
//!
//! Hand events are most of a log (84% of a simulated season), and serde_json spends some
//! 4,000 instructions on each: a tag and a content per enum level, a string scan and a
//! match per key. serde writes them in one shape only, for example
//!
//! ```text
//! {"type":"HandEvent","data":{"table":3,"event":{"type":"PlayerCalled","data":{"seat":1,"amount":200,"all_in":false}}}}
//! ```
//!
//! and [`hand_event`] reads exactly that shape: the keys in the order serde writes them, no
//! whitespace, integers in their shortest form, strings without escapes and only ASCII. It
//! consumes every byte it accepts, so what it accepts is valid JSON that serde reads to the
//! same value. Anything else (another event, another order, an escape, a byte it does not
//! expect) gives `None`, and the caller reads the payload through serde, which also gives
//! serde's own errors. The rare rulings and voids always go through serde.
//!
//! `HandStarted` carries the house rules, the same in every hand of a tournament: they are
//! read by serde, and the last rules read are kept with their bytes, so the same bytes are
//! read once.
//!
//! [`tournament_event`] reads the most frequent of the other tournament events the same
//! way (a table's hand starting, eliminations, registrations, entries, busts, re-buys); a
//! player id is read only when it is printable ASCII without an escape, as the
//! simulator's and most venues' ids are.

use std::cell::RefCell;
use std::str::FromStr;

use league_engine::button::Positions;
use league_engine::card::Card;
use league_engine::deck::Seed;
use league_engine::eval::HandValue;
use league_engine::hand::AnteStructure;
use league_engine::hand::{
    Ante, Blind, BlindKind, Dealing, Event, FoldReason, HandSetup, Seat, SeatSetup, Share, Street,
};
use league_engine::rules::HouseRules;
use league_engine::tournament::Price;
use league_engine::tournament::play::{Blinds, Knockout, TournamentEvent};
use league_engine::units::{Cents, Chips, PlayerId};

/// The table and the event of a hand event in serde's shape, or `None` (see the module).
pub(crate) fn hand_event(payload: &[u8]) -> Option<(u32, Event)> {
    let mut c = Cursor { rest: payload };
    c.lit(br#"{"type":"HandEvent","data":{"table":"#)?;
    let table = u32::try_from(c.uint()?).ok()?;
    c.lit(br#","event":{"type":"#)?;
    let name = c.string()?;
    let event = if name == b"PreflopStarted" {
        Event::PreflopStarted
    } else {
        c.lit(br#","data":{"#)?;
        let event = event_data(&mut c, name)?;
        c.lit(b"}")?;
        event
    };
    c.lit(b"}}}")?;
    c.rest.is_empty().then_some((table, event))
}

/// One of the tournament events named in the module documentation, in serde's shape, or
/// `None`.
pub(crate) fn tournament_event(payload: &[u8]) -> Option<TournamentEvent> {
    let mut c = Cursor { rest: payload };
    c.lit(br#"{"type":"#)?;
    let name = c.string()?;
    c.lit(br#","data":{"#)?;
    let event = match name {
        b"TableHandStarted" => {
            let table = c.key_u32(b"\"table\":")?;
            let hand = c.key_u32(b",\"hand\":")?;
            let hand_id = match c.lit(b",\"hand_id\":") {
                Some(()) => Some(c.text()?.into()),
                None => None,
            };
            c.lit(b",\"positions\":{")?;
            let button = c.key_seat(b"\"button\":")?;
            let small_blind = c.key_seat(b",\"small_blind\":")?;
            let big_blind = c.key_seat(b",\"big_blind\":")?;
            c.lit(b"},\"blinds\":{")?;
            let positions = Positions {
                button,
                small_blind,
                big_blind,
            };
            let small_blind = Chips::new(c.key_uint(b"\"small_blind\":")?);
            let big_blind = Chips::new(c.key_uint(b",\"big_blind\":")?);
            c.lit(b",\"ante\":")?;
            let ante = if c.rest.starts_with(b"\"") {
                (c.string()? == b"None").then_some(AnteStructure::None)?
            } else {
                c.lit(b"{")?;
                let kind = c.string()?;
                c.lit(b":")?;
                let amount = c.uint()?;
                c.lit(b"}")?;
                match kind {
                    b"Uniform" => AnteStructure::Uniform(amount),
                    b"BigBlind" => AnteStructure::BigBlind(amount),
                    _ => return None,
                }
            };
            c.lit(b"},\"capped_from\":")?;
            let capped_from = c.nullable(|c| {
                let level = c.lit(b"[").and_then(|()| c.uint())?;
                let average = c.lit(b",").and_then(|()| c.uint())?;
                c.lit(b"]")?;
                Some((Chips::new(level), Chips::new(average)))
            })?;
            c.lit(b",\"penalised\":")?;
            let penalised = c.list(Cursor::player)?;
            TournamentEvent::TableHandStarted {
                table,
                hand,
                hand_id,
                positions,
                blinds: Blinds {
                    small_blind,
                    big_blind,
                    ante,
                },
                capped_from,
                penalised,
            }
        }
        b"PlayersEliminated" => {
            c.lit(b"\"players\":")?;
            let players = c.list(Cursor::player)?;
            c.lit(b",\"table\":")?;
            let table = c.nullable(Cursor::u32)?;
            c.lit(b",\"hand\":")?;
            let hand = c.nullable(Cursor::u32)?;
            let tied = c.key_bool(b",\"tied\":")?;
            let ranked = c.key_bool(b",\"ranked\":")?;
            c.lit(b",\"knockouts\":")?;
            let knockouts = c.list(|c| {
                let player = c.lit(b"{\"player\":").and_then(|()| c.player())?;
                let by = c.lit(b",\"by\":").and_then(|()| c.player())?;
                c.lit(b"}")?;
                Some(Knockout { player, by })
            })?;
            c.lit(b",\"chips_to\":")?;
            let chips_to = c.nullable(Cursor::player)?;
            let chips = c.key_chips(b",\"chips\":")?;
            let rule = c.lit(b",\"rule\":").and_then(|()| c.text())?;
            let reason = c.lit(b",\"reason\":").and_then(|()| c.text())?;
            TournamentEvent::PlayersEliminated {
                players,
                table,
                hand,
                tied,
                ranked,
                knockouts,
                chips_to,
                chips,
                rule,
                reason,
            }
        }
        b"PlayerRegistered" => {
            let player = c.lit(b"\"player\":").and_then(|()| c.player())?;
            let paid = c.lit(b",\"paid\":").and_then(|()| c.price())?;
            TournamentEvent::PlayerRegistered { player, paid }
        }
        b"PlayerEntered" => {
            let player = c.lit(b"\"player\":").and_then(|()| c.player())?;
            let reentry = c.key_bool(b",\"reentry\":")?;
            let paid = c.lit(b",\"paid\":").and_then(|()| c.price())?;
            let chips = c.key_chips(b",\"chips\":")?;
            let table = c.key_u32(b",\"table\":")?;
            let seat = c.key_seat(b",\"seat\":")?;
            let opened_table = c.key_bool(b",\"opened_table\":")?;
            let seed = c.lit(b",\"seed\":").and_then(|()| c.seed())?;
            let next_commitment = c.lit(b",\"next_commitment\":").and_then(|()| c.parsed())?;
            let at = c.key_millis(b",\"at\":")?;
            TournamentEvent::PlayerEntered {
                player,
                reentry,
                paid,
                chips,
                table,
                seat,
                opened_table,
                seed,
                next_commitment,
                at,
            }
        }
        b"PlayerBusted" => {
            let player = c.lit(b"\"player\":").and_then(|()| c.player())?;
            let table = c.key_u32(b",\"table\":")?;
            let seat = c.key_seat(b",\"seat\":")?;
            c.lit(b",\"chips_to\":")?;
            let chips_to = c.nullable(Cursor::player)?;
            TournamentEvent::PlayerBusted {
                player,
                table,
                seat,
                chips_to,
            }
        }
        b"RebuyMade" => {
            let player = c.lit(b"\"player\":").and_then(|()| c.player())?;
            let chips = c.key_chips(b",\"chips\":")?;
            let paid = c.lit(b",\"paid\":").and_then(|()| c.price())?;
            let obliged = c.key_bool(b",\"obliged\":")?;
            let at = c.key_millis(b",\"at\":")?;
            TournamentEvent::RebuyMade {
                player,
                chips,
                paid,
                obliged,
                at,
            }
        }
        _ => return None,
    };
    c.lit(b"}}")?;
    c.rest.is_empty().then_some(event)
}

/// The fields of the event named `name`, up to the data's closing brace.
fn event_data(c: &mut Cursor<'_>, name: &[u8]) -> Option<Event> {
    Some(match name {
        b"PlayerCalled" => {
            let seat = c.seat_key()?;
            let amount = c.key_uint(b",\"amount\":")?;
            let all_in = c.key_bool(b",\"all_in\":")?;
            Event::PlayerCalled {
                seat,
                amount,
                all_in,
            }
        }
        b"HoleCardsDealt" => {
            let seat = c.seat_key()?;
            c.lit(b",\"cards\":")?;
            let cards = c.two_cards()?;
            Event::HoleCardsDealt { seat, cards }
        }
        b"PlayerFolded" => {
            let seat = c.seat_key()?;
            c.lit(b",\"reason\":")?;
            let reason = match c.string()? {
                b"Folded" => FoldReason::Folded,
                b"Absent" => FoldReason::Absent,
                b"ClockExpired" => FoldReason::ClockExpired,
                _ => return None,
            };
            Event::PlayerFolded { seat, reason }
        }
        b"HandShown" => {
            let seat = c.seat_key()?;
            c.lit(b",\"cards\":")?;
            let cards = c.two_cards()?;
            Event::HandShown { seat, cards }
        }
        b"BoardDealt" => {
            c.lit(b"\"street\":")?;
            let street = match c.string()? {
                b"Preflop" => Street::Preflop,
                b"Flop" => Street::Flop,
                b"Turn" => Street::Turn,
                b"River" => Street::River,
                _ => return None,
            };
            c.lit(b",\"cards\":")?;
            let cards = c.list(Cursor::card)?;
            Event::BoardDealt { street, cards }
        }
        b"PlayerRaised" => {
            let seat = c.seat_key()?;
            let to = c.key_uint(b",\"to\":")?;
            let all_in = c.key_bool(b",\"all_in\":")?;
            let full = c.key_bool(b",\"full\":")?;
            c.lit(b",\"declared\":")?;
            let declared = c.nullable(Cursor::uint)?;
            Event::PlayerRaised {
                seat,
                to,
                all_in,
                full,
                declared,
            }
        }
        b"PotAwarded" => {
            c.lit(b"\"pot\":")?;
            let pot = u8::try_from(c.uint()?).ok()?;
            let amount = c.key_uint(b",\"amount\":")?;
            c.lit(b",\"eligible\":")?;
            let eligible = c.list(Cursor::seat)?;
            c.lit(b",\"shares\":")?;
            let shares = c.list(Cursor::share)?;
            c.lit(b",\"value\":")?;
            let value = c.nullable(|c| HandValue::new(u16::try_from(c.uint()?).ok()?))?;
            let rake = if c.rest.starts_with(b",\"rake\":") {
                c.key_uint(b",\"rake\":")?
            } else {
                0
            };
            // A tournament's board runs once: a pot naming a run is left to serde.
            Event::PotAwarded {
                pot,
                amount,
                eligible,
                shares,
                value,
                rake,
                run: 0,
            }
        }
        b"BlindPosted" => {
            let seat = c.seat_key()?;
            c.lit(b",\"kind\":")?;
            let kind = c.blind_kind()?;
            let amount = c.key_uint(b",\"amount\":")?;
            let all_in = c.key_bool(b",\"all_in\":")?;
            Event::BlindPosted {
                seat,
                kind,
                amount,
                all_in,
            }
        }
        b"PlayerChecked" => Event::PlayerChecked {
            seat: c.seat_key()?,
        },
        b"HandEnded" => {
            c.lit(b"\"stacks\":")?;
            let stacks = c.list(Cursor::share)?;
            c.lit(b",\"seed\":")?;
            let seed = c.nullable(Cursor::seed)?;
            Event::HandEnded { stacks, seed }
        }
        b"PlayerBet" => {
            let seat = c.seat_key()?;
            let to = c.key_uint(b",\"to\":")?;
            let all_in = c.key_bool(b",\"all_in\":")?;
            Event::PlayerBet { seat, to, all_in }
        }
        b"ShowdownStarted" => {
            c.lit(b"\"order\":")?;
            Event::ShowdownStarted {
                order: c.list(Cursor::seat)?,
            }
        }
        b"UncalledBetReturned" => {
            let seat = c.seat_key()?;
            let amount = c.key_uint(b",\"amount\":")?;
            Event::UncalledBetReturned { seat, amount }
        }
        b"DeckSealed" => {
            c.lit(b"\"seed\":")?;
            Event::DeckSealed { seed: c.seed()? }
        }
        b"AntePosted" => {
            let seat = c.seat_key()?;
            let amount = c.key_uint(b",\"amount\":")?;
            let all_in = c.key_bool(b",\"all_in\":")?;
            Event::AntePosted {
                seat,
                amount,
                all_in,
            }
        }
        b"HandMucked" => Event::HandMucked {
            seat: c.seat_key()?,
        },
        b"HandStarted" => Event::HandStarted {
            setup: Box::new(setup(c)?),
        },
        _ => return None,
    })
}

/// A hand's setup, to its closing brace.
fn setup(c: &mut Cursor<'_>) -> Option<HandSetup> {
    c.lit(b"\"setup\":{\"button\":")?;
    let button = c.seat()?;
    c.lit(b",\"seats\":")?;
    let seats = c.list(|c| {
        let seat = c.lit(b"{").and_then(|()| c.seat_key())?;
        let stack = c.key_uint(b",\"stack\":")?;
        let absent = c.key_bool(b",\"absent\":")?;
        c.lit(b"}")?;
        Some(SeatSetup {
            seat,
            stack,
            absent,
        })
    })?;
    let big_blind = c.key_uint(b",\"big_blind\":")?;
    c.lit(b",\"blinds\":")?;
    let blinds = c.list(|c| {
        let seat = c.lit(b"{").and_then(|()| c.seat_key())?;
        c.lit(b",\"kind\":")?;
        let kind = c.blind_kind()?;
        let amount = c.key_uint(b",\"amount\":")?;
        c.lit(b"}")?;
        Some(Blind { seat, kind, amount })
    })?;
    c.lit(b",\"antes\":")?;
    let antes = c.list(|c| {
        let seat = c.lit(b"{").and_then(|()| c.seat_key())?;
        let amount = c.key_uint(b",\"amount\":")?;
        c.lit(b"}")?;
        Some(Ante { seat, amount })
    })?;
    let chip_unit = if c.rest.starts_with(CHIP_UNIT) {
        c.key_uint(CHIP_UNIT)?
    } else {
        1
    };
    let absent_hands_dead = if c.rest.starts_with(ABSENT_HANDS_DEAD) {
        c.key_bool(ABSENT_HANDS_DEAD)?
    } else {
        false
    };
    c.lit(b",\"dealing\":")?;
    let dealing = if c.rest.starts_with(b"\"") {
        (c.string()? == b"Recorded").then_some(Dealing::Recorded)?
    } else {
        c.lit(b"{\"Seeded\":{\"commitment\":")?;
        let commitment = c.parsed()?;
        c.lit(b"}}")?;
        Dealing::Seeded { commitment }
    };
    c.lit(b",\"rules\":")?;
    // The rules are the setup's last field: all but the setup's, the event's and the
    // payload's closing braces, which the caller reads.
    let (rules, rest) = c.rest.split_at(c.rest.len().checked_sub(5)?);
    let rules = house_rules(rules)?;
    c.rest = rest;
    c.lit(b"}")?;
    Some(HandSetup {
        button,
        seats,
        big_blind,
        blinds,
        antes,
        chip_unit,
        absent_hands_dead,
        dealing,
        rules,
        rake: None,
        run_twice: None,
    })
}

/// The key of a setup's `chip_unit`, written only when it is not 1.
const CHIP_UNIT: &[u8] = b",\"chip_unit\":";

/// The key of a setup's `absent_hands_dead`, written only when it is `true`.
const ABSENT_HANDS_DEAD: &[u8] = b",\"absent_hands_dead\":";

/// House rules read by serde from exactly these bytes (one JSON value), or `None`. The
/// last bytes read and their rules are kept: a tournament's hands repeat them.
fn house_rules(bytes: &[u8]) -> Option<HouseRules> {
    thread_local! {
        static LAST: RefCell<(Vec<u8>, Option<HouseRules>)> = const { RefCell::new((Vec::new(), None)) };
    }
    LAST.with_borrow_mut(|(last_bytes, last_rules)| {
        if let Some(rules) = last_rules
            && last_bytes.as_slice() == bytes
        {
            return Some(*rules);
        }
        let rules = serde_json::from_slice::<HouseRules>(bytes).ok()?;
        last_bytes.clear();
        last_bytes.extend_from_slice(bytes);
        *last_rules = Some(rules);
        Some(rules)
    })
}

/// The bytes not read yet.
struct Cursor<'a> {
    rest: &'a [u8],
}

impl<'a> Cursor<'a> {
    /// Exactly these bytes.
    fn lit(&mut self, expected: &[u8]) -> Option<()> {
        self.rest = self.rest.strip_prefix(expected)?;
        Some(())
    }

    /// A JSON integer from 0 to `u64::MAX` in its only form: no sign, no leading zero, no
    /// fraction or exponent (the byte after it must be one the caller expects, never `.`).
    fn uint(&mut self) -> Option<u64> {
        let digits = self.rest.iter().take_while(|b| b.is_ascii_digit()).count();
        let (number, rest) = self.rest.split_at(digits);
        if number.is_empty() || (number.len() > 1 && number[0] == b'0') {
            return None;
        }
        let mut value = 0u64;
        for &digit in number {
            value = value
                .checked_mul(10)?
                .checked_add(u64::from(digit - b'0'))?;
        }
        self.rest = rest;
        Some(value)
    }

    fn seat(&mut self) -> Option<Seat> {
        Seat::try_from(self.uint()?).ok()
    }

    fn u32(&mut self) -> Option<u32> {
        u32::try_from(self.uint()?).ok()
    }

    fn key_u32(&mut self, key: &[u8]) -> Option<u32> {
        self.lit(key)?;
        self.u32()
    }

    fn key_seat(&mut self, key: &[u8]) -> Option<Seat> {
        self.lit(key)?;
        self.seat()
    }

    /// A time in milliseconds; a negative one is left to serde.
    fn key_millis(&mut self, key: &[u8]) -> Option<i64> {
        self.lit(key)?;
        i64::try_from(self.uint()?).ok()
    }

    /// Text (a player id, a rule) in printable ASCII without an escape.
    fn text(&mut self) -> Option<String> {
        Some(std::str::from_utf8(self.string()?).ok()?.to_owned())
    }

    fn player(&mut self) -> Option<PlayerId> {
        self.text().map(PlayerId::from)
    }

    fn key_chips(&mut self, key: &[u8]) -> Option<Chips> {
        self.key_uint(key).map(Chips::new)
    }

    fn price(&mut self) -> Option<Price> {
        let price = Cents::new(self.key_uint(b"{\"price\":")?);
        let fee = Cents::new(self.key_uint(b",\"fee\":")?);
        self.lit(b"}")?;
        Some(Price { price, fee })
    }

    /// `"seat":N`, the first field of most events.
    fn seat_key(&mut self) -> Option<Seat> {
        self.key_seat(b"\"seat\":")
    }

    fn key_uint(&mut self, key: &[u8]) -> Option<u64> {
        self.lit(key)?;
        self.uint()
    }

    fn key_bool(&mut self, key: &[u8]) -> Option<bool> {
        self.lit(key)?;
        if let Some(rest) = self.rest.strip_prefix(b"true") {
            self.rest = rest;
            Some(true)
        } else {
            self.lit(b"false")?;
            Some(false)
        }
    }

    /// A string's bytes, if they are printable ASCII without an escape (so also UTF-8,
    /// and what serde reads them as).
    fn string(&mut self) -> Option<&'a [u8]> {
        let rest = self.rest.strip_prefix(b"\"")?;
        let len = rest.iter().position(|&b| b == b'"')?;
        let (text, rest) = rest.split_at(len);
        if !text
            .iter()
            .all(|&b| (b' '..=b'~').contains(&b) && b != b'\\')
        {
            return None;
        }
        self.rest = rest.get(1..)?;
        Some(text)
    }

    fn blind_kind(&mut self) -> Option<BlindKind> {
        Some(match self.string()? {
            b"SmallBlind" => BlindKind::SmallBlind,
            b"BigBlind" => BlindKind::BigBlind,
            b"Straddle" => BlindKind::Straddle,
            _ => return None,
        })
    }

    /// A string read through `T`'s `FromStr`, as serde reads it.
    fn parsed<T: FromStr>(&mut self) -> Option<T> {
        std::str::from_utf8(self.string()?).ok()?.parse().ok()
    }

    fn card(&mut self) -> Option<Card> {
        self.parsed()
    }

    fn seed(&mut self) -> Option<Seed> {
        self.parsed()
    }

    fn two_cards(&mut self) -> Option<[Card; 2]> {
        self.lit(b"[")?;
        let first = self.card()?;
        self.lit(b",")?;
        let second = self.card()?;
        self.lit(b"]")?;
        Some([first, second])
    }

    fn share(&mut self) -> Option<Share> {
        let seat = self.lit(b"{").and_then(|()| self.seat_key())?;
        let amount = self.key_uint(b",\"amount\":")?;
        self.lit(b"}")?;
        Some(Share { seat, amount })
    }

    /// `null`, or a value.
    fn nullable<T>(&mut self, item: impl FnOnce(&mut Self) -> Option<T>) -> Option<Option<T>> {
        if let Some(rest) = self.rest.strip_prefix(b"null") {
            self.rest = rest;
            Some(None)
        } else {
            item(self).map(Some)
        }
    }

    /// `[a,b,...]`, possibly empty.
    fn list<T>(&mut self, mut item: impl FnMut(&mut Self) -> Option<T>) -> Option<Vec<T>> {
        self.lit(b"[")?;
        let mut items = Vec::new();
        if let Some(rest) = self.rest.strip_prefix(b"]") {
            self.rest = rest;
            return Some(items);
        }
        loop {
            items.push(item(self)?);
            match self.rest.split_first()? {
                (b',', rest) => self.rest = rest,
                (b']', rest) => {
                    self.rest = rest;
                    return Some(items);
                }
                _ => return None,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use league_engine::rules::Preset;
    use proptest::prelude::*;

    fn card() -> impl Strategy<Value = Card> {
        (0u8..52).prop_map(|i| Card::from_index(i).unwrap())
    }

    fn seed() -> impl Strategy<Value = Seed> {
        any::<[u8; 32]>().prop_map(|bytes| {
            let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
            hex.parse().unwrap()
        })
    }

    fn chips() -> impl Strategy<Value = u64> {
        prop_oneof![Just(0), Just(u64::MAX), 1u64..100_000, any::<u64>()]
    }

    fn seat() -> impl Strategy<Value = Seat> {
        prop_oneof![0u8..10, any::<u8>()]
    }

    fn share() -> impl Strategy<Value = Share> {
        (seat(), chips()).prop_map(|(seat, amount)| Share { seat, amount })
    }

    fn shares() -> impl Strategy<Value = Vec<Share>> {
        prop::collection::vec(share(), 0..10)
    }

    /// Every event the short path reads, with any values its types allow.
    fn event() -> impl Strategy<Value = Event> {
        let bools = any::<bool>;
        prop_oneof![
            Just(Event::PreflopStarted),
            (seat(), chips(), bools()).prop_map(|(seat, amount, all_in)| Event::PlayerCalled {
                seat,
                amount,
                all_in
            }),
            (seat(), card(), card()).prop_map(|(seat, a, b)| Event::HoleCardsDealt {
                seat,
                cards: [a, b]
            }),
            (seat(), 0..3u8).prop_map(|(seat, r)| Event::PlayerFolded {
                seat,
                reason: [
                    FoldReason::Folded,
                    FoldReason::Absent,
                    FoldReason::ClockExpired
                ][usize::from(r)],
            }),
            (seat(), card(), card()).prop_map(|(seat, a, b)| Event::HandShown {
                seat,
                cards: [a, b]
            }),
            (0..4u8, prop::collection::vec(card(), 0..6)).prop_map(|(s, cards)| {
                Event::BoardDealt {
                    street: [Street::Preflop, Street::Flop, Street::Turn, Street::River]
                        [usize::from(s)],
                    cards,
                }
            }),
            (seat(), chips(), bools(), bools(), prop::option::of(chips())).prop_map(
                |(seat, to, all_in, full, declared)| Event::PlayerRaised {
                    seat,
                    to,
                    all_in,
                    full,
                    declared
                }
            ),
            (
                any::<u8>(),
                chips(),
                prop::collection::vec(seat(), 0..10),
                shares(),
                prop::option::of(1u16..=7462),
                prop_oneof![Just(0u64), chips()],
            )
                .prop_map(|(pot, amount, eligible, shares, value, rake)| {
                    Event::PotAwarded {
                        pot,
                        amount,
                        eligible,
                        shares,
                        value: value.map(|v| HandValue::new(v).unwrap()),
                        rake,
                        run: 0,
                    }
                }),
            (seat(), 0..3u8, chips(), bools()).prop_map(|(seat, k, amount, all_in)| {
                Event::BlindPosted {
                    seat,
                    kind: [
                        BlindKind::SmallBlind,
                        BlindKind::BigBlind,
                        BlindKind::Straddle,
                    ][usize::from(k)],
                    amount,
                    all_in,
                }
            }),
            seat().prop_map(|seat| Event::PlayerChecked { seat }),
            (shares(), prop::option::of(seed()))
                .prop_map(|(stacks, seed)| Event::HandEnded { stacks, seed }),
            (seat(), chips(), bools()).prop_map(|(seat, to, all_in)| Event::PlayerBet {
                seat,
                to,
                all_in
            }),
            prop::collection::vec(seat(), 0..10).prop_map(|order| Event::ShowdownStarted { order }),
            (seat(), chips())
                .prop_map(|(seat, amount)| Event::UncalledBetReturned { seat, amount }),
            seed().prop_map(|seed| Event::DeckSealed { seed }),
            (seat(), chips(), bools()).prop_map(|(seat, amount, all_in)| Event::AntePosted {
                seat,
                amount,
                all_in
            }),
            seat().prop_map(|seat| Event::HandMucked { seat }),
            setup().prop_map(|setup| Event::HandStarted {
                setup: Box::new(setup)
            }),
        ]
    }

    fn setup() -> impl Strategy<Value = HandSetup> {
        let seats = prop::collection::vec(
            (seat(), chips(), any::<bool>()).prop_map(|(seat, stack, absent)| SeatSetup {
                seat,
                stack,
                absent,
            }),
            0..10,
        );
        let blinds = prop::collection::vec(
            (seat(), 0..3u8, chips()).prop_map(|(seat, k, amount)| Blind {
                seat,
                kind: [
                    BlindKind::SmallBlind,
                    BlindKind::BigBlind,
                    BlindKind::Straddle,
                ][usize::from(k)],
                amount,
            }),
            0..3,
        );
        let antes = prop::collection::vec(
            (seat(), chips()).prop_map(|(seat, amount)| Ante { seat, amount }),
            0..10,
        );
        let dealing = prop::option::of(seed()).prop_map(|seed| match seed {
            Some(seed) => Dealing::Seeded {
                commitment: seed.commitment(),
            },
            None => Dealing::Recorded,
        });
        let rules = prop::sample::select(Preset::ALL.to_vec()).prop_map(Preset::rules);
        // A tournament's hand takes no rake (a raked setup is read by serde).
        let absent_hands_dead = any::<bool>();
        let chip_unit = prop::sample::select(vec![1u64, 5, 25, 100, 1000]);
        (
            seat(),
            seats,
            chips(),
            blinds,
            (antes, chip_unit, absent_hands_dead),
            dealing,
            rules,
        )
            .prop_map(
                |(
                    button,
                    seats,
                    big_blind,
                    blinds,
                    (antes, chip_unit, absent_hands_dead),
                    dealing,
                    rules,
                )| HandSetup {
                    button,
                    seats,
                    big_blind,
                    blinds,
                    antes,
                    chip_unit,
                    absent_hands_dead,
                    dealing,
                    rules,
                    rake: None,
                    run_twice: None,
                },
            )
    }

    fn payload(table: u32, event: Event) -> Vec<u8> {
        serde_json::to_vec(&TournamentEvent::HandEvent { table, event }).unwrap()
    }

    /// What the short path accepts, serde reads to the same value.
    fn accepted_only_as_serde_reads(bytes: &[u8]) -> bool {
        let Some(short) = short_path(bytes) else {
            return false;
        };
        match serde_json::from_slice::<TournamentEvent>(bytes) {
            Ok(full) => assert_eq!(full, short, "{}", String::from_utf8_lossy(bytes)),
            Err(error) => panic!(
                "the short path read {}, serde refused it: {error}",
                String::from_utf8_lossy(bytes)
            ),
        }
        true
    }

    /// Deletes, inserts or replaces a byte at each place (`kind` 0, 1 or 2).
    fn edit(bytes: &mut Vec<u8>, edits: Vec<(prop::sample::Index, u8, u8)>) {
        for (at, kind, byte) in edits {
            let at = at.index(bytes.len());
            match kind {
                0 => {
                    bytes.remove(at);
                }
                1 => bytes.insert(at, byte),
                _ => bytes[at] = byte,
            }
            if bytes.is_empty() {
                break;
            }
        }
    }

    /// What either short path reads.
    fn short_path(bytes: &[u8]) -> Option<TournamentEvent> {
        hand_event(bytes)
            .map(|(table, event)| TournamentEvent::HandEvent { table, event })
            .or_else(|| tournament_event(bytes))
    }

    /// Text as venues write it: mostly short ASCII ids, sometimes anything at all.
    fn text() -> impl Strategy<Value = String> {
        prop_oneof![
            4 => "[a-z]{2}[0-9]{1,5}",
            1 => "[ -~]{0,12}",
            1 => any::<String>(),
        ]
    }

    /// Whether the short path reads this text: printable ASCII that serde writes as is.
    fn plain(text: &str) -> bool {
        text.bytes()
            .all(|b| (b' '..=b'~').contains(&b) && b != b'"' && b != b'\\')
    }

    fn price() -> impl Strategy<Value = Price> {
        (chips(), chips()).prop_map(|(price, fee)| Price::new(Cents::new(price), Cents::new(fee)))
    }

    fn millis() -> impl Strategy<Value = i64> {
        prop_oneof![0i64..10_000_000, any::<i64>()]
    }

    /// The other tournament events the short path reads, and whether it reads them.
    fn other_event() -> impl Strategy<Value = (TournamentEvent, bool)> {
        let ante = prop_oneof![
            Just(AnteStructure::None),
            chips().prop_map(AnteStructure::Uniform),
            chips().prop_map(AnteStructure::BigBlind),
        ];
        let tchips = || chips().prop_map(Chips::new);
        let player = || text().prop_map(PlayerId::from);
        let players = || prop::collection::vec(player(), 0..4);
        prop_oneof![
            (
                any::<u32>(),
                any::<u32>(),
                (seat(), seat(), seat()),
                (tchips(), tchips(), ante),
                prop::option::of((tchips(), tchips())),
                players(),
                prop::option::of(text().prop_map(league_engine::units::HandId::from)),
            )
                .prop_map(
                    |(
                        table,
                        hand,
                        (b, s, g),
                        (small_blind, big_blind, ante),
                        capped_from,
                        penalised,
                        hand_id,
                    )| {
                        let plain = penalised.iter().all(|p| plain(p))
                            && hand_id.as_deref().is_none_or(plain);
                        (
                            TournamentEvent::TableHandStarted {
                                table,
                                hand,
                                hand_id,
                                positions: Positions {
                                    button: b,
                                    small_blind: s,
                                    big_blind: g,
                                },
                                blinds: Blinds {
                                    small_blind,
                                    big_blind,
                                    ante,
                                },
                                capped_from,
                                penalised,
                            },
                            plain,
                        )
                    }
                ),
            (
                players(),
                prop::option::of(any::<u32>()),
                prop::option::of(any::<u32>()),
                any::<bool>(),
                prop::collection::vec((player(), player()), 0..3),
                prop::option::of(player()),
                tchips(),
                (text(), text()),
            )
                .prop_map(
                    |(players, table, hand, tied, knockouts, chips_to, chips, (rule, reason))| {
                        let plain = players.iter().all(|p| plain(p))
                            && knockouts.iter().all(|(p, b)| plain(p) && plain(b))
                            && chips_to.as_deref().is_none_or(plain)
                            && plain(&rule)
                            && plain(&reason);
                        (
                            TournamentEvent::PlayersEliminated {
                                ranked: hand.is_some(),
                                players,
                                table,
                                hand,
                                tied,
                                knockouts: knockouts
                                    .into_iter()
                                    .map(|(player, by)| Knockout { player, by })
                                    .collect(),
                                chips_to,
                                chips,
                                rule,
                                reason,
                            },
                            plain,
                        )
                    }
                ),
            (player(), price()).prop_map(|(player, paid)| {
                let plain = plain(&player);
                (TournamentEvent::PlayerRegistered { player, paid }, plain)
            }),
            (
                (player(), any::<bool>(), price(), tchips()),
                (any::<u32>(), seat(), any::<bool>()),
                (seed(), seed(), millis()),
            )
                .prop_map(
                    |(
                        (player, reentry, paid, chips),
                        (table, seat, opened_table),
                        (seed, next, at),
                    )| {
                        let plain = plain(&player) && at >= 0;
                        (
                            TournamentEvent::PlayerEntered {
                                player,
                                reentry,
                                paid,
                                chips,
                                table,
                                seat,
                                opened_table,
                                seed,
                                next_commitment: next.commitment(),
                                at,
                            },
                            plain,
                        )
                    }
                ),
            (player(), any::<u32>(), seat(), prop::option::of(player())).prop_map(
                |(player, table, seat, chips_to)| {
                    let plain = plain(&player) && chips_to.as_deref().is_none_or(plain);
                    (
                        TournamentEvent::PlayerBusted {
                            player,
                            table,
                            seat,
                            chips_to,
                        },
                        plain,
                    )
                }
            ),
            (player(), tchips(), price(), any::<bool>(), millis()).prop_map(
                |(player, chips, paid, obliged, at)| {
                    let plain = plain(&player) && at >= 0;
                    (
                        TournamentEvent::RebuyMade {
                            player,
                            chips,
                            paid,
                            obliged,
                            at,
                        },
                        plain,
                    )
                }
            ),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(10_000))]

        #[test]
        fn every_hand_event_it_covers_reads_back_as_written(
            table in any::<u32>(),
            event in event(),
        ) {
            let bytes = payload(table, event.clone());
            prop_assert_eq!(hand_event(&bytes), Some((table, event)));
        }

        #[test]
        fn other_tournament_events_are_read_back_as_written_when_their_text_is_plain(
            (event, plain) in other_event(),
        ) {
            let bytes = serde_json::to_vec(&event).unwrap();
            let expected = plain.then_some(event);
            prop_assert_eq!(tournament_event(&bytes), expected);
            prop_assert_eq!(hand_event(&bytes), None);
        }

        #[test]
        fn edited_tournament_events_are_read_as_serde_reads_them_or_left_to_serde(
            (event, _) in other_event(),
            edits in prop::collection::vec((any::<prop::sample::Index>(), 0..3u8, any::<u8>()), 1..4),
        ) {
            let mut bytes = serde_json::to_vec(&event).unwrap();
            edit(&mut bytes, edits);
            accepted_only_as_serde_reads(&bytes);
        }

        #[test]
        fn edited_payloads_are_read_as_serde_reads_them_or_left_to_serde(
            table in any::<u32>(),
            event in event(),
            edits in prop::collection::vec((any::<prop::sample::Index>(), 0..3u8, any::<u8>()), 1..4),
        ) {
            let mut bytes = payload(table, event);
            edit(&mut bytes, edits);
            accepted_only_as_serde_reads(&bytes);
        }
    }

    /// Every one-byte deletion, insertion and replacement (with the bytes JSON gives a
    /// meaning to, and some it does not) of one payload of each event.
    #[test]
    fn one_byte_edits_of_each_event_are_read_as_serde_reads_them_or_left_to_serde() {
        let seed: Seed = "00ff".repeat(16).parse().unwrap();
        let events = [
            Event::PreflopStarted,
            Event::PlayerCalled {
                seat: 1,
                amount: 200,
                all_in: false,
            },
            Event::HoleCardsDealt {
                seat: 5,
                cards: ["Ad".parse().unwrap(), "6c".parse().unwrap()],
            },
            Event::PlayerFolded {
                seat: 2,
                reason: FoldReason::Absent,
            },
            Event::BoardDealt {
                street: Street::Flop,
                cards: vec!["Qs".parse().unwrap(), "Th".parse().unwrap()],
            },
            Event::PlayerRaised {
                seat: 0,
                to: 18_446_744_073_709_551_615,
                all_in: true,
                full: false,
                declared: Some(90),
            },
            Event::PotAwarded {
                pot: 1,
                amount: 14_222,
                eligible: vec![3, 8],
                shares: vec![Share {
                    seat: 3,
                    amount: 14_222,
                }],
                value: HandValue::new(2146),
                rake: 0,
                run: 0,
            },
            Event::BlindPosted {
                seat: 7,
                kind: BlindKind::SmallBlind,
                amount: 50,
                all_in: true,
            },
            Event::PlayerChecked { seat: 8 },
            Event::HandEnded {
                stacks: vec![Share { seat: 7, amount: 0 }],
                seed: Some(seed),
            },
            Event::PlayerBet {
                seat: 3,
                to: 2373,
                all_in: true,
            },
            Event::ShowdownStarted { order: vec![3, 8] },
            Event::UncalledBetReturned {
                seat: 3,
                amount: 11_855,
            },
            Event::DeckSealed { seed },
            Event::AntePosted {
                seat: 8,
                amount: 200,
                all_in: false,
            },
            Event::HandMucked { seat: 3 },
            Event::HandStarted {
                setup: Box::new(HandSetup {
                    button: 3,
                    seats: vec![
                        SeatSetup {
                            seat: 3,
                            stack: 5000,
                            absent: false,
                        },
                        SeatSetup {
                            seat: 7,
                            stack: 50,
                            absent: true,
                        },
                    ],
                    big_blind: 100,
                    blinds: vec![Blind {
                        seat: 7,
                        kind: BlindKind::BigBlind,
                        amount: 100,
                    }],
                    antes: vec![Ante {
                        seat: 3,
                        amount: 25,
                    }],
                    chip_unit: 25,
                    absent_hands_dead: true,
                    dealing: Dealing::Seeded {
                        commitment: seed.commitment(),
                    },
                    rules: Preset::Wsop.rules(),
                    rake: None,
                    run_twice: None,
                }),
            },
        ];
        let mut events: Vec<TournamentEvent> = events
            .into_iter()
            .map(|event| TournamentEvent::HandEvent { table: 255, event })
            .collect();
        events.extend([
            TournamentEvent::TableHandStarted {
                table: 3,
                hand: 5,
                hand_id: Some("0190b6c4-7d2a-7cde-8f00-123456789abc".into()),
                positions: Positions {
                    button: 3,
                    small_blind: 7,
                    big_blind: 8,
                },
                blinds: Blinds {
                    small_blind: Chips::new(50),
                    big_blind: Chips::new(100),
                    ante: AnteStructure::None,
                },
                capped_from: None,
                penalised: Vec::new(),
            },
            TournamentEvent::TableHandStarted {
                table: 3,
                hand: 4,
                hand_id: None,
                positions: Positions {
                    button: 3,
                    small_blind: 7,
                    big_blind: 8,
                },
                blinds: Blinds {
                    small_blind: Chips::new(50),
                    big_blind: Chips::new(100),
                    ante: AnteStructure::BigBlind(100),
                },
                capped_from: Some((Chips::new(100), Chips::new(2500))),
                penalised: vec!["pl001".into()],
            },
            TournamentEvent::PlayersEliminated {
                players: vec!["pl00430".into(), "pl7".into()],
                table: Some(2),
                hand: None,
                tied: false,
                ranked: false,
                knockouts: vec![Knockout {
                    player: "pl00430".into(),
                    by: "pl00386".into(),
                }],
                chips_to: Some("pl9".into()),
                chips: Chips::new(0),
                rule: "QueenSix 31".into(),
                reason: "several out: the larger stack finishes higher".into(),
            },
            TournamentEvent::PlayerRegistered {
                player: "pl00150".into(),
                paid: Price {
                    price: Cents::new(2000),
                    fee: Cents::new(500),
                },
            },
            TournamentEvent::PlayerEntered {
                player: "pl00101".into(),
                reentry: true,
                paid: Price {
                    price: Cents::new(2000),
                    fee: Cents::new(0),
                },
                chips: Chips::new(5000),
                table: 2,
                seat: 6,
                opened_table: false,
                seed,
                next_commitment: seed.commitment(),
                at: 650_942,
            },
            TournamentEvent::PlayerBusted {
                player: "pl00123".into(),
                table: 1,
                seat: 1,
                chips_to: None,
            },
            TournamentEvent::RebuyMade {
                player: "pl00052".into(),
                chips: Chips::new(5000),
                paid: Price {
                    price: Cents::new(2000),
                    fee: Cents::new(0),
                },
                obliged: false,
                at: 203_425,
            },
        ]);
        let bytes_to_try = b"0123456789-+.eE\"\\,: {}[]nulltruefalsAaDdsS\x00\x1f\x7f\xc3\xff";
        let (mut edits, mut accepted) = (0, 0);
        for event in events {
            let original = serde_json::to_vec(&event).unwrap();
            assert_eq!(short_path(&original), Some(event));
            for at in 0..=original.len() {
                let mut tries = Vec::new();
                if at < original.len() {
                    let mut deleted = original.clone();
                    deleted.remove(at);
                    tries.push(deleted);
                }
                for &byte in bytes_to_try {
                    let mut inserted = original.clone();
                    inserted.insert(at, byte);
                    tries.push(inserted);
                    if at < original.len() && original[at] != byte {
                        let mut replaced = original.clone();
                        replaced[at] = byte;
                        tries.push(replaced);
                    }
                }
                for bytes in tries {
                    edits += 1;
                    accepted += usize::from(accepted_only_as_serde_reads(&bytes));
                }
            }
        }
        // Some edits change only a value (a digit for a digit, a card for a card), and
        // those are read; the rest go to serde.
        assert!(edits > 50_000, "{edits}");
        assert!(
            accepted > 1_000 && accepted < edits / 10,
            "{accepted} of {edits}"
        );
    }

    #[test]
    fn valid_json_in_another_shape_is_left_to_serde() {
        for (text, short) in [
            // Whitespace, another key order, an unknown key, escapes.
            (
                r#"{"type":"HandEvent","data":{"table":1,"event":{"type":"PlayerChecked","data":{"seat": 4}}}}"#,
                false,
            ),
            (
                r#"{"type":"HandEvent","data":{"event":{"type":"PlayerChecked","data":{"seat":4}},"table":1}}"#,
                false,
            ),
            (
                r#"{"type":"HandEvent","data":{"table":1,"event":{"type":"PlayerChecked","data":{"seat":4,"x":0}}}}"#,
                false,
            ),
            (
                r#"{"type":"HandEvent","data":{"table":1,"event":{"type":"Player\u0043hecked","data":{"seat":4}}}}"#,
                false,
            ),
            (
                r#"{"type":"HandEvent","data":{"table":1,"event":{"type":"PlayerFolded","data":{"seat":4,"reason":"Fold\u0065d"}}}}"#,
                false,
            ),
            (
                r#"{"type":"HandEvent","data":{"table":1,"event":{"type":"PreflopStarted","data":null}}}"#,
                false,
            ),
            // A variant left to serde.
            (
                r#"{"type":"HandEvent","data":{"table":1,"event":{"type":"RaiseTreatedAsCall","data":{"seat":4,"declared":300,"rule":"HalfRule"}}}}"#,
                false,
            ),
            // Rank and suit in either case, as the card's own parser reads them.
            (
                r#"{"type":"HandEvent","data":{"table":1,"event":{"type":"HandShown","data":{"seat":4,"cards":["aH","6c"]}}}}"#,
                true,
            ),
        ] {
            let full = serde_json::from_str::<TournamentEvent>(text)
                .unwrap_or_else(|e| panic!("{text}: {e}"));
            match hand_event(text.as_bytes()) {
                Some((table, event)) => {
                    assert!(short, "{text}");
                    assert_eq!(full, TournamentEvent::HandEvent { table, event }, "{text}");
                }
                None => assert!(!short, "{text}"),
            }
        }
    }
}
