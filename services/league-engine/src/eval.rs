//! The seven-card hand evaluator.
//!
//! Showdowns, all-in equities and simulations evaluate hands by the hundred million, so the
//! hot path is two table lookups and no branching on ranks. The design is the one of
//! OMPEval and `pokers`, rebuilt without `unsafe`:
//!
//! - Every card has a 64-bit key: an additive *rank key*, chosen so that any multiset of up
//!   to seven ranks (at most four of each) has a distinct sum below 2^25, and a per-suit
//!   counter in bits `4 * suit ..`. The counters start at 3, so the fifth card of a suit
//!   sets bit 3 of its nibble: one `TEST` detects a flush. The rank key is in the key twice:
//!   whole in the top 25 bits, and its low 16 bits in the top half of the low 32-bit word.
//! - Without a flush, the rank-key sum is looked up through a displacement perfect hash:
//!   the row is the key's top 13 bits (the rank key's bits 12..25), its offset is added to
//!   the low word, and the top half of that word is the slot of a `u16` value. Seven cards
//!   (49,205 rank multisets) have their own table of 2^16 slots; five and six cards share
//!   another.
//! - With a flush, the 13-bit rank mask of the flush suit indexes an 8,192-entry table.
//!
//! Every index is in bounds by its type (a 64-bit key shifted right by 51, a 32-bit word
//! shifted right by 16, a `u8` card index into 256 entries) or by a mask, which is what
//! lets the compiler drop bounds checks without `unsafe`. The tables are generated
//! (`eval/tables.in`) by a test from a plain description of poker hands, and the same test
//! fails if the checked-in file is stale:
//! `UPDATE_EVAL_TABLES=1 cargo test -p league-engine --lib eval::` rewrites it.
//!
//! Values number the 7,462 distinct five-card hands from 1 (7-5-4-3-2 offsuit) to 7,462
//! (a royal flush), so suits never matter and equal hands compare equal.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::card::Card;

// FLUSH_VALUES: [u16; 8192]; SEVEN_OFFSETS: [u32; 8192], SEVEN_VALUES: [u16; _] (seven
// cards); FEW_BITS, FEW_OFFSETS: [u32; 8192], FEW_VALUES: [u16; _] (five or six cards).
include!("eval/tables.in");

/// How strong a hand is: higher is better, equal hands are equal (suits never count).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct HandValue(u16);

/// The kind of hand, weakest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum Category {
    HighCard,
    OnePair,
    TwoPair,
    ThreeOfAKind,
    Straight,
    Flush,
    FullHouse,
    FourOfAKind,
    StraightFlush,
}

impl Category {
    pub const ALL: [Category; 9] = [
        Category::HighCard,
        Category::OnePair,
        Category::TwoPair,
        Category::ThreeOfAKind,
        Category::Straight,
        Category::Flush,
        Category::FullHouse,
        Category::FourOfAKind,
        Category::StraightFlush,
    ];

    /// The best value of each category, in the order of [`Category::ALL`].
    const TOP: [u16; 9] = [1277, 4137, 4995, 5853, 5863, 7140, 7296, 7452, 7462];

    fn name(self) -> &'static str {
        match self {
            Category::HighCard => "High Card",
            Category::OnePair => "One Pair",
            Category::TwoPair => "Two Pair",
            Category::ThreeOfAKind => "Three of a Kind",
            Category::Straight => "Straight",
            Category::Flush => "Flush",
            Category::FullHouse => "Full House",
            Category::FourOfAKind => "Four of a Kind",
            Category::StraightFlush => "Straight Flush",
        }
    }
}

impl fmt::Display for Category {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl HandValue {
    /// Seven-high: 7-5-4-3-2 of at least two suits.
    pub const WORST: HandValue = HandValue(1);
    /// A royal flush.
    pub const BEST: HandValue = HandValue(7462);

    /// The value numbered `n`, if `1 <= n <= 7462`.
    pub fn new(n: u16) -> Option<HandValue> {
        (Self::WORST.0..=Self::BEST.0)
            .contains(&n)
            .then_some(HandValue(n))
    }

    /// The number of this value, `1..=7462`.
    pub fn get(self) -> u16 {
        self.0
    }

    pub fn category(self) -> Category {
        let index = Category::TOP.partition_point(|&top| top < self.0);
        Category::ALL
            .get(index)
            .copied()
            .unwrap_or(Category::StraightFlush)
    }
}

impl fmt::Display for HandValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.category(), f)
    }
}

impl Serialize for HandValue {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_u16(self.0)
    }
}

impl<'de> Deserialize<'de> for HandValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<HandValue, D::Error> {
        let n = u16::deserialize(deserializer)?;
        HandValue::new(n).ok_or_else(|| {
            serde::de::Error::custom(format_args!("hand value {n} is not in 1..=7462"))
        })
    }
}

/// Rank keys (OMPEval's): every multiset of at most seven ranks, at most four of each, has
/// a distinct sum, and the largest (four aces and three kings) is below 2^25.
const RANK_KEYS: [u64; 13] = [
    0x2000, 0x8001, 0x11000, 0x3a000, 0x91000, 0x176005, 0x366000, 0x41a013, 0x47802e, 0x479068,
    0x48c0e4, 0x48f211, 0x494493,
];
/// Each suit counter (bits `4 * suit ..`) starts at 3 so that its fifth card carries into
/// bit 3 of its nibble.
const SUIT_COUNTERS: u64 = 0x3333;
const FLUSH_FLAGS: u64 = 0x8888;
/// The rank key is in a card key twice: shifted by 16 and cut to 32 bits (the low word then
/// holds the sum's low 16 bits from bit 16 up), and whole from bit 39 (the top 25 bits,
/// the low word's carries stopping below).
const LOW_SHIFT: u32 = 16;
const HIGH_SHIFT: u32 = 39;
/// A rank key's row in the displacement hashes: its bits 12..25, the top 13 bits of a key.
const ROW_SHIFT: u32 = 12;
const ROW_FROM_KEY: u32 = HIGH_SHIFT + ROW_SHIFT;
const ROWS: usize = 1 << (25 - ROW_SHIFT);
const FEW_SIZE: usize = 1 << FEW_BITS;
const FEW_MASK: u64 = (1 << FEW_BITS) - 1;
const _: () = assert!(SEVEN_VALUES.len() <= 1 << 16 && FEW_VALUES.len() <= FEW_SIZE);
const _: () = assert!(64 - ROW_FROM_KEY == 25 - ROW_SHIFT && FEW_BITS < 32);

/// Per-card key, indexed by card index; 256 entries so that any `u8` index needs neither a
/// mask nor a bounds check.
const CARD_KEYS: [u64; 256] = {
    let mut keys = [0u64; 256];
    let mut i = 0;
    while i < 52 {
        let rank = RANK_KEYS[i / 4];
        keys[i] = (1 << (4 * (i % 4))) + ((rank << LOW_SHIFT) & 0xffff_ffff) + (rank << HIGH_SHIFT);
        i += 1;
    }
    keys
};

/// Per-card bit `16 * suit + rank`, for the rank mask of a flush suit.
const CARD_BITS: [u64; 256] = {
    let mut bits = [0u64; 256];
    let mut i = 0;
    while i < 52 {
        bits[i] = 1 << (16 * (i % 4) + i / 4);
        i += 1;
    }
    bits
};

/// The seven-card values, padded to 2^16 entries so that a slot read from the top half of
/// a 32-bit word is in bounds by its type.
///
/// The tables are consts rather than statics on purpose: a const is emitted into the crate
/// that inlines [`evaluate7`], which then addresses it directly, whereas another crate's
/// static is reached through the GOT, one more load per lookup on the hot path.
#[expect(
    clippy::large_const_arrays,
    reason = "addressed directly by the inlining crate, see above"
)]
const SEVEN_TABLE: [u16; 1 << 16] = padded(&SEVEN_VALUES);

/// The five- and six-card values, padded to a power of two, indexed through a mask.
static FEW_TABLE: [u16; FEW_SIZE] = padded(&FEW_VALUES);

/// `values` followed by zeros up to `N` entries (the const asserts above check they fit).
const fn padded<const N: usize>(values: &[u16]) -> [u16; N] {
    let mut table = [0u16; N];
    let mut i = 0;
    while i < values.len() {
        table[i] = values[i];
        i += 1;
    }
    table
}

/// The hot tables side by side, so a loop keeps one base address in a register instead of
/// three (each is then a displacement from it).
struct HotTables {
    card_keys: [u64; 256],
    card_bits: [u64; 256],
    seven_offsets: [u32; ROWS],
    seven_table: [u16; 1 << 16],
}

static HOT: HotTables = HotTables {
    card_keys: CARD_KEYS,
    card_bits: CARD_BITS,
    seven_offsets: SEVEN_OFFSETS,
    seven_table: SEVEN_TABLE,
};

#[inline(always)]
fn card_key(card: Card) -> u64 {
    HOT.card_keys[usize::from(card.index())]
}

#[inline(always)]
fn to_index(bounded: u64) -> usize {
    // Callers shift or mask first, so this never falls back; it keeps `as` out of the hot
    // path.
    usize::try_from(bounded).unwrap_or(0)
}

#[inline(always)]
fn key_of(cards: &[Card]) -> u64 {
    cards
        .iter()
        .fold(SUIT_COUNTERS, |key, &c| key.wrapping_add(card_key(c)))
}

#[inline(always)]
fn has_flush(key: u64) -> bool {
    key & FLUSH_FLAGS != 0
}

/// Seven cards without a flush. Both indexes are in bounds by their types (a 64-bit key
/// shifted right by 51, a 32-bit word shifted right by 16), so neither needs a mask or a
/// check: the row's offset is stored pre-shifted into the top half of a word, added to the
/// key's low word, and the top half of the sum is the slot.
#[inline(always)]
fn seven_without_flush(key: u64) -> HandValue {
    let row = to_index(key >> ROW_FROM_KEY);
    let low = u32::try_from(key & 0xffff_ffff).unwrap_or(0);
    let slot = low.wrapping_add(HOT.seven_offsets[row]) >> LOW_SHIFT;
    HandValue(HOT.seven_table[to_index(u64::from(slot))])
}

/// Five or six cards without a flush: the same displacement hash on the whole rank key,
/// with its own tables.
#[inline]
fn few_without_flush(key: u64) -> HandValue {
    let rank = key >> HIGH_SHIFT;
    let row = to_index(key >> ROW_FROM_KEY);
    let slot = rank.wrapping_add(u64::from(FEW_OFFSETS[row])) & FEW_MASK;
    HandValue(FEW_TABLE[to_index(slot)])
}

/// About 3% of random seven-card hands.
#[inline]
fn with_flush(key: u64, cards: [Card; 7]) -> HandValue {
    flush_value(key, &cards)
}

#[inline]
fn flush_value(key: u64, cards: &[Card]) -> HandValue {
    let bits = cards.iter().fold(0u64, |bits, &c| {
        bits | HOT.card_bits[usize::from(c.index())]
    });
    flush_lookup(key, bits)
}

/// The flush suit's 13-bit rank mask, looked up.
#[inline(always)]
fn flush_lookup(key: u64, bits: u64) -> HandValue {
    // Exactly one suit can hold five of seven cards; its flag is bit 3, 7, 11 or 15.
    // (Shifting before masking keeps this from reusing the caller's `key & FLUSH_FLAGS`,
    // which would cost the hot path a register copy.)
    let suit = ((key >> 3) & 0x1111).trailing_zeros() / 4;
    HandValue(FLUSH_VALUES[to_index((bits >> (16 * suit)) & 0x1fff)])
}

/// The value of seven distinct cards. Duplicate cards give an unspecified value, never a
/// panic.
#[inline]
pub fn evaluate7(cards: &[Card; 7]) -> HandValue {
    // Summed left to right, so when only the last card changes (enumerations, run-outs)
    // the compiler keeps the sum of the first six.
    let key = key_of(cards);
    if has_flush(key) {
        // Laid out of line, so the common path runs straight through to its lookup.
        std::hint::cold_path();
        with_flush(key, *cards)
    } else {
        seven_without_flush(key)
    }
}

/// Cards added one at a time, for enumerations and run-outs, where many hands share their
/// first cards: the sum of the shared cards is computed once.
///
/// ```
/// use league_engine::card::parse_cards;
/// use league_engine::eval::{Cards, evaluate7};
///
/// let hand: [_; 7] = parse_cards("AsKsQsJsTs2h3d").unwrap().try_into().unwrap();
/// let board = hand[..6].iter().fold(Cards::EMPTY, |cards, &c| cards.with(c));
/// assert_eq!(board.with(hand[6]).value7(), evaluate7(&hand));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cards {
    key: u64,
    bits: u64,
}

impl Cards {
    /// No cards.
    pub const EMPTY: Cards = Cards {
        key: SUIT_COUNTERS,
        bits: 0,
    };

    /// These cards and one more.
    #[inline(always)]
    #[must_use]
    pub fn with(self, card: Card) -> Cards {
        self.plus(CardStep::of(card))
    }

    /// These cards and the one `step` adds (see [`CardStep`]).
    #[inline(always)]
    #[must_use]
    pub fn plus(self, step: CardStep) -> Cards {
        Cards {
            key: self.key.wrapping_add(step.key),
            bits: self.bits | step.bits,
        }
    }

    /// The value of exactly seven distinct cards, as [`evaluate7`] gives it; fewer, more or
    /// duplicate cards give an unspecified value, never a panic.
    #[inline]
    #[must_use]
    pub fn value7(self) -> HandValue {
        if has_flush(self.key) {
            std::hint::cold_path();
            flush_lookup(self.key, self.bits)
        } else {
            seven_without_flush(self.key)
        }
    }
}

/// What adding one card does to [`Cards`], looked up once: loops that add the same cards
/// over and over (enumerating boards, equity calculations) keep a `[CardStep; 52]` and add
/// with [`Cards::plus`], two register operations, instead of [`Cards::with`]'s two table
/// reads per card.
///
/// ```
/// use league_engine::card::Card;
/// use league_engine::eval::{CardStep, Cards};
///
/// let steps: Vec<CardStep> = Card::all().map(CardStep::of).collect();
/// let ace: Card = "As".parse().unwrap();
/// assert_eq!(Cards::EMPTY.plus(steps[usize::from(ace.index())]), Cards::EMPTY.with(ace));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CardStep {
    key: u64,
    bits: u64,
}

impl CardStep {
    /// The step that adds `card`.
    #[inline(always)]
    #[must_use]
    pub fn of(card: Card) -> CardStep {
        let i = usize::from(card.index());
        CardStep {
            key: HOT.card_keys[i],
            bits: HOT.card_bits[i],
        }
    }
}

/// The value of the best five of five to seven distinct cards.
///
/// # Panics
///
/// If there are fewer than five or more than seven cards: there is no such hand, and the
/// caller has a bug.
pub fn evaluate(cards: &[Card]) -> HandValue {
    assert!(
        (5..=7).contains(&cards.len()),
        "a hand has 5 to 7 cards, got {}",
        cards.len()
    );
    let key = key_of(cards);
    if has_flush(key) {
        flush_value(key, cards)
    } else if cards.len() == 7 {
        seven_without_flush(key)
    } else {
        few_without_flush(key)
    }
}

/// The value of five to seven cards and the five that make it, for showing down.
///
/// When several fives tie (a board that plays), the first in the order of `cards` wins.
///
/// # Panics
///
/// As [`evaluate`].
pub fn best_five(cards: &[Card]) -> (HandValue, [Card; 5]) {
    let value = evaluate(cards);
    let n = cards.len();
    for a in 0..n {
        for b in a + 1..n {
            for c in b + 1..n {
                for d in c + 1..n {
                    for e in d + 1..n {
                        let five = [cards[a], cards[b], cards[c], cards[d], cards[e]];
                        if evaluate(&five) == value {
                            return (value, five);
                        }
                    }
                }
            }
        }
    }
    unreachable!("the best hand of some cards is a hand of five of them")
}

#[cfg(test)]
mod tests {
    use std::cmp::Reverse;
    use std::collections::{BTreeMap, HashMap, HashSet};

    use rand_chacha::ChaCha20Rng;
    use rand_core::{Rng, SeedableRng};

    use super::*;
    use crate::card::parse_cards;

    /// Builds `eval/tables.in` from a plain description of five-card poker hands.
    mod generate {
        use std::cmp::Reverse;
        use std::collections::{BTreeMap, BTreeSet};
        use std::fmt::{Display, Write};

        use super::super::{LOW_SHIFT, RANK_KEYS, ROW_SHIFT, ROWS};

        /// Five- and six-card values (24,570 rank multisets) fit a table of 2^15.
        pub const FEW_BITS: u32 = 15;

        /// A five-card hand as (category 0..=8, the ranks that break ties, most significant
        /// first).
        type Class = (u8, [u8; 5]);

        fn class(five: [u8; 5], suited: bool) -> Class {
            let mut counts = [0u8; 13];
            for r in five {
                counts[usize::from(r)] += 1;
            }
            let mut groups: Vec<(u8, u8)> = (0..13u8)
                .filter(|&r| counts[usize::from(r)] > 0)
                .map(|r| (counts[usize::from(r)], r))
                .collect();
            groups.sort_unstable_by(|a, b| b.cmp(a));
            let shape: Vec<u8> = groups.iter().map(|g| g.0).collect();
            let straight_top = match groups.len() {
                5 if groups[0].1 - groups[4].1 == 4 => Some(groups[0].1),
                5 if groups[0].1 == 12 && groups[1].1 == 3 => Some(3),
                _ => None,
            };
            let category = match (shape.as_slice(), straight_top, suited) {
                (_, Some(_), true) => 8,
                ([4, 1], _, _) => 7,
                ([3, 2], _, _) => 6,
                (_, None, true) => 5,
                (_, Some(_), false) => 4,
                ([3, 1, 1], _, _) => 3,
                ([2, 2, 1], _, _) => 2,
                ([2, 1, 1, 1], _, _) => 1,
                _ => 0,
            };
            let mut ties = [0u8; 5];
            match straight_top {
                Some(top) => ties[0] = top,
                None => {
                    for (t, g) in ties.iter_mut().zip(&groups) {
                        *t = g.1;
                    }
                }
            }
            (category, ties)
        }

        pub fn five_subsets(n: usize) -> impl Iterator<Item = [usize; 5]> {
            (0..n).flat_map(move |a| {
                (a + 1..n).flat_map(move |b| {
                    (b + 1..n).flat_map(move |c| {
                        (c + 1..n).flat_map(move |d| (d + 1..n).map(move |e| [a, b, c, d, e]))
                    })
                })
            })
        }

        /// Every rank multiset (non-decreasing, at most four of a rank) of `min..=max` cards.
        pub fn rank_multisets(min: usize, max: usize) -> Vec<Vec<u8>> {
            fn extend(out: &mut Vec<Vec<u8>>, current: &mut Vec<u8>, min: usize, max: usize) {
                if current.len() >= min {
                    out.push(current.clone());
                }
                if current.len() == max {
                    return;
                }
                let from = current.last().copied().unwrap_or(0);
                for r in from..13 {
                    if current.iter().filter(|&&x| x == r).count() < 4 {
                        current.push(r);
                        extend(out, current, min, max);
                        current.pop();
                    }
                }
            }
            let mut out = Vec::new();
            extend(&mut out, &mut Vec::new(), min, max);
            out
        }

        fn all_classes() -> BTreeMap<Class, u16> {
            let mut classes = BTreeSet::new();
            for ranks in rank_multisets(5, 5) {
                let five: [u8; 5] = ranks.clone().try_into().unwrap();
                classes.insert(class(five, false));
                if ranks.windows(2).all(|w| w[0] != w[1]) {
                    classes.insert(class(five, true));
                }
            }
            classes.into_iter().zip(1..).collect()
        }

        fn write_array<T: Display>(out: &mut String, name: &str, ty: &str, values: &[T]) {
            writeln!(out, "{name}: [{ty}; {}] = [", values.len()).unwrap();
            for line in values.chunks(16) {
                let line: Vec<String> = line.iter().map(ToString::to_string).collect();
                writeln!(out, "    {},", line.join(", ")).unwrap();
            }
            writeln!(out, "];").unwrap();
        }

        pub fn render() -> String {
            let classes = all_classes();
            assert_eq!(classes.len(), 7462);
            let best = |ranks: &[u8], suited: bool| -> u16 {
                five_subsets(ranks.len())
                    .map(|five| classes[&class(five.map(|i| ranks[i]), suited)])
                    .max()
                    .unwrap()
            };

            let mut flush = vec![0u16; 8192];
            for (mask, value) in (0u16..).zip(flush.iter_mut()) {
                if (5..=7).contains(&mask.count_ones()) {
                    let ranks: Vec<u8> = (0..13u8).filter(|r| mask >> r & 1 == 1).collect();
                    *value = best(&ranks, true);
                }
            }

            let hashed = |sizes: (usize, usize)| -> Vec<(u64, u16)> {
                rank_multisets(sizes.0, sizes.1)
                    .into_iter()
                    .map(|ranks| {
                        let key = ranks.iter().map(|&r| RANK_KEYS[usize::from(r)]).sum();
                        (key, best(&ranks, false))
                    })
                    .collect()
            };
            let (seven_offsets, seven) = displace(&hashed((7, 7)), 16);
            // Pre-shifted into the top half of a word; see `seven_without_flush`.
            let seven_offsets: Vec<u32> = seven_offsets.iter().map(|o| o << LOW_SHIFT).collect();
            let (few_offsets, few) = displace(&hashed((5, 6)), FEW_BITS);

            let mut out = String::new();
            out.push_str(
                "// @generated by eval::tests::generate from a plain description of poker hands.\n\
                 // Do not edit: `UPDATE_EVAL_TABLES=1 cargo test -p league-engine --lib eval::`.\n",
            );
            writeln!(out, "const FEW_BITS: u32 = {FEW_BITS};").unwrap();
            // See `SEVEN_TABLE` for why these are consts.
            let large = "#[expect(clippy::large_const_arrays, reason = \"see SEVEN_TABLE\")]\n";
            write_array(&mut out, "const FLUSH_VALUES", "u16", &flush);
            out.push_str(large);
            write_array(&mut out, "const SEVEN_OFFSETS", "u32", &seven_offsets);
            out.push_str(large);
            write_array(&mut out, "const SEVEN_VALUES", "u16", &seven);
            write_array(&mut out, "static FEW_OFFSETS", "u32", &few_offsets);
            out.push_str(large);
            write_array(&mut out, "const FEW_VALUES", "u16", &few);
            out
        }

        /// A displacement perfect hash of distinct rank keys into `bits` bits: each key's
        /// row is its bits 12..25 and its column its bits 0..12; the fullest rows are
        /// placed first, each at the lowest displacement where all its columns land on free
        /// slots. Returns the per-row offsets (`slot = key + offset` modulo 2^bits) and the
        /// values by slot.
        fn displace(keys: &[(u64, u16)], bits: u32) -> (Vec<u32>, Vec<u16>) {
            let mut rows: Vec<Vec<(usize, u16)>> = vec![Vec::new(); ROWS];
            for &(key, value) in keys {
                let row = usize::try_from(key >> ROW_SHIFT).unwrap();
                let column = usize::try_from(key & 0xfff).unwrap();
                rows[row].push((column, value));
            }
            let mut order: Vec<usize> = (0..rows.len()).filter(|&r| !rows[r].is_empty()).collect();
            order.sort_by_key(|&r| (Reverse(rows[r].len()), r));
            let mut slots: Vec<Option<u16>> = vec![None; (1 << bits) + 4096];
            let mut offsets = vec![0u32; ROWS];
            let mut first_free: usize = 0;
            for row in order {
                let entries = &mut rows[row];
                entries.sort_unstable();
                let mut shift = first_free.saturating_sub(entries[0].0);
                while entries.iter().any(|&(col, _)| slots[shift + col].is_some()) {
                    shift += 1;
                }
                for &(col, value) in entries.iter() {
                    slots[shift + col] = Some(value);
                }
                let base = u32::try_from(row << ROW_SHIFT).unwrap();
                offsets[row] = u32::try_from(shift).unwrap().wrapping_sub(base);
                while slots[first_free].is_some() {
                    first_free += 1;
                }
            }
            let used = slots.iter().rposition(Option::is_some).unwrap() + 1;
            assert!(used <= 1 << bits, "{used} slots do not fit {bits} bits");
            (
                offsets,
                slots[..used].iter().map(|s| s.unwrap_or(0)).collect(),
            )
        }
    }

    #[test]
    fn generated_tables_are_up_to_date() {
        let fresh = generate::render();
        if std::env::var_os("UPDATE_EVAL_TABLES").is_some() {
            let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/eval/tables.in");
            std::fs::write(path, &fresh).unwrap();
        } else {
            assert!(
                fresh == include_str!("eval/tables.in"),
                "src/eval/tables.in is stale: rerun with UPDATE_EVAL_TABLES=1"
            );
        }
    }

    #[test]
    fn every_multiset_of_up_to_seven_ranks_has_its_own_key() {
        let mut seen = HashSet::new();
        for ranks in generate::rank_multisets(0, 7) {
            let key: u64 = ranks.iter().map(|&r| RANK_KEYS[usize::from(r)]).sum();
            assert!(key < 1 << 25);
            assert!(seen.insert(key), "{ranks:?}");
        }
    }

    #[test]
    fn a_key_holds_its_rank_key_whole_at_the_top_and_cut_in_the_low_word() {
        for ranks in generate::rank_multisets(0, 7) {
            let rank_key: u64 = ranks.iter().map(|&r| RANK_KEYS[usize::from(r)]).sum();
            // The n-th card of a rank takes the n-th suit, so the cards are distinct.
            let cards: Vec<Card> = ranks
                .iter()
                .enumerate()
                .map(|(i, &r)| {
                    let nth = ranks[..i].iter().filter(|&&x| x == r).count();
                    Card::from_index(r * 4 + u8::try_from(nth).unwrap()).unwrap()
                })
                .collect();
            let key = key_of(&cards);
            assert_eq!(key >> HIGH_SHIFT, rank_key, "{ranks:?}");
            assert_eq!(
                (key & 0xffff_ffff) >> LOW_SHIFT,
                rank_key & 0xffff,
                "{ranks:?}"
            );
            for suit in 0..4 {
                let count = cards.iter().filter(|c| c.index() % 4 == suit).count();
                let nibble = (key >> (4 * suit)) & 0xf;
                assert_eq!(nibble, 3 + u64::try_from(count).unwrap(), "{ranks:?}");
            }
        }
    }

    /// The oracle: five cards read the way a player reads them, written independently of
    /// the table generator. Returns the category and a number that orders hands within it.
    fn oracle(five: &[Card; 5]) -> (Category, u32) {
        let mut ranks = five.map(|c| c.rank().index());
        ranks.sort_unstable_by(|a, b| b.cmp(a));
        let count = |r: u8| ranks.iter().filter(|&&x| x == r).count();
        let flush = five.iter().all(|c| c.suit() == five[0].suit());
        let distinct = (0..4).all(|i| ranks[i] != ranks[i + 1]);
        let wheel = ranks == [12, 3, 2, 1, 0];
        let straight = distinct && (ranks[0] - ranks[4] == 4 || wheel);
        // Ranks by how often they appear, then by rank: K K 7 7 5, 9 9 9 A 4.
        let mut by_count = ranks;
        by_count.sort_by_key(|&r| Reverse((count(r), r)));
        let most = count(by_count[0]);
        let next = by_count.get(most).map_or(0, |&r| count(r));
        let category = if straight && flush {
            Category::StraightFlush
        } else if most == 4 {
            Category::FourOfAKind
        } else if most == 3 && next == 2 {
            Category::FullHouse
        } else if flush {
            Category::Flush
        } else if straight {
            Category::Straight
        } else if most == 3 {
            Category::ThreeOfAKind
        } else if most == 2 && next == 2 {
            Category::TwoPair
        } else if most == 2 {
            Category::OnePair
        } else {
            Category::HighCard
        };
        let ties = if straight {
            vec![if wheel { 3 } else { ranks[0] }]
        } else {
            by_count.to_vec()
        };
        (
            category,
            ties.iter().fold(0, |acc, &r| acc * 16 + u32::from(r)),
        )
    }

    fn deck() -> Vec<Card> {
        Card::all().collect()
    }

    fn random_hands(seed: u8, count: usize) -> Vec<[Card; 7]> {
        let mut rng = ChaCha20Rng::from_seed([seed; 32]);
        let mut cards = deck();
        (0..count)
            .map(|_| {
                for i in 0..7 {
                    let remaining = u32::try_from(52 - i).unwrap();
                    let j = i + usize::try_from(rng.next_u32() % remaining).unwrap();
                    cards.swap(i, j);
                }
                cards[..7].try_into().unwrap()
            })
            .collect()
    }

    fn hand(text: &str) -> Vec<Card> {
        parse_cards(text).unwrap()
    }

    #[test]
    fn all_five_card_hands_match_the_oracle_and_make_7462_ordered_values() {
        let deck = deck();
        let mut categories: BTreeMap<Category, u32> = BTreeMap::new();
        let mut value_of: HashMap<(Category, u32), u16> = HashMap::new();
        for five in generate::five_subsets(52) {
            let five = five.map(|i| deck[i]);
            let value = evaluate(&five);
            let truth = oracle(&five);
            assert_eq!(value.category(), truth.0, "{five:?}");
            *categories.entry(truth.0).or_default() += 1;
            let first = *value_of.entry(truth).or_insert(value.get());
            assert_eq!(first, value.get(), "{five:?} differs from an equal hand");
        }
        let expected = [
            1_302_540, 1_098_240, 123_552, 54_912, 10_200, 5_108, 3_744, 624, 40,
        ];
        assert_eq!(categories.values().copied().collect::<Vec<_>>(), expected);
        let mut by_oracle: Vec<_> = value_of.into_iter().collect();
        by_oracle.sort_unstable();
        let values: Vec<u16> = by_oracle.iter().map(|&(_, v)| v).collect();
        assert_eq!(values, (1..=7462).collect::<Vec<u16>>());
    }

    #[test]
    fn seven_card_values_are_the_best_of_their_21_fives() {
        for cards in random_hands(1, 300_000) {
            let best = generate::five_subsets(7)
                .map(|five| five.map(|i| cards[i]))
                .max_by_key(oracle)
                .unwrap();
            let value = evaluate7(&cards);
            assert_eq!(value, evaluate(&best), "{cards:?}");
            assert_eq!(value, evaluate(&cards), "{cards:?}");
        }
    }

    #[test]
    fn six_card_values_are_the_best_of_their_6_fives() {
        for cards in random_hands(2, 100_000) {
            let six = &cards[..6];
            let best = generate::five_subsets(6)
                .map(|five| five.map(|i| six[i]))
                .max_by_key(oracle)
                .unwrap();
            assert_eq!(evaluate(six), evaluate(&best), "{six:?}");
        }
    }

    #[test]
    fn cards_added_by_step_in_any_order_value_as_evaluate7() {
        let steps: Vec<CardStep> = deck().into_iter().map(CardStep::of).collect();
        for hand in random_hands(9, 50_000) {
            let step = |c: &Card| steps[usize::from(c.index())];
            let forward = hand.iter().fold(Cards::EMPTY, |h, c| h.plus(step(c)));
            let backward = hand.iter().rev().fold(Cards::EMPTY, |h, c| h.plus(step(c)));
            assert_eq!(forward, backward);
            assert_eq!(forward.value7(), evaluate7(&hand), "{hand:?}");
        }
    }

    #[test]
    fn all_133_784_560_seven_card_hands_have_the_known_category_counts_both_ways() {
        let deck = deck();
        let mut by_value = vec![0u64; 7463];
        for a in 0..52 {
            for b in a + 1..52 {
                for c in b + 1..52 {
                    for d in c + 1..52 {
                        for e in d + 1..52 {
                            for f in e + 1..52 {
                                for g in f + 1..52 {
                                    let cards = [a, b, c, d, e, f, g].map(|i| deck[i]);
                                    let value = evaluate7(&cards);
                                    let added = cards.iter().fold(Cards::EMPTY, |h, &c| h.with(c));
                                    assert_eq!(added.value7(), value);
                                    by_value[usize::from(value.get())] += 1;
                                }
                            }
                        }
                    }
                }
            }
        }
        assert_eq!(by_value[0], 0);
        let mut categories = [0u64; 9];
        for (value, &count) in (0u16..).zip(&by_value).skip(1) {
            let category = HandValue::new(value).unwrap().category();
            categories[Category::ALL.iter().position(|&c| c == category).unwrap()] += count;
        }
        assert_eq!(
            categories,
            [
                23_294_460, 58_627_800, 31_433_400, 6_461_620, 6_180_020, 4_047_644, 3_473_184,
                224_848, 41_584,
            ]
        );
    }

    #[test]
    fn best_five_shows_five_of_the_cards_worth_the_hand() {
        for cards in random_hands(3, 20_000) {
            let (value, five) = best_five(&cards);
            assert_eq!(value, evaluate7(&cards));
            assert_eq!(evaluate(&five), value);
            for (i, card) in five.iter().enumerate() {
                assert!(cards.contains(card));
                assert!(!five[..i].contains(card));
            }
        }
        let (value, five) = best_five(&hand("2c3dAhKhQhJhTh"));
        assert_eq!(value, HandValue::BEST);
        assert_eq!(five.to_vec(), hand("AhKhQhJhTh"));
    }

    #[test]
    fn known_hands_get_their_known_values() {
        let value = |text: &str| evaluate(&hand(text));
        assert_eq!(value("7c5d4h3s2c"), HandValue::WORST);
        assert_eq!(value("AsKsQsJsTs"), HandValue::BEST);
        assert_eq!(value("5s4s3s2sAs").category(), Category::StraightFlush);
        assert!(value("5s4s3s2sAs") < value("6s5s4s3s2s"));
        assert!(value("Ad5c4h3s2c") < value("6d5c4h3s2c"));
        assert!(value("Ad5c4h3s2c") > value("AdAc4h3s2c"));
        assert_eq!(value("AdAcAhAs2c"), value("AdAcAhAs2d"));
        assert_eq!(value("KhKd7c7s5h9c2d"), value("KsKc7h7d9s5c2h"));
        assert_eq!(value("KhKd7c7s5h9c2d").category(), Category::TwoPair);
        assert_eq!(value("2h3h4h5h7h9c9d").category(), Category::Flush);
    }

    #[test]
    #[should_panic(expected = "a hand has 5 to 7 cards")]
    fn four_cards_are_not_a_hand() {
        evaluate(&hand("AsKsQsJs"));
    }

    #[test]
    fn categories_split_the_values_at_their_boundaries() {
        let category = |n| HandValue::new(n).unwrap().category();
        let mut first = 1;
        for (&top, &expected) in Category::TOP.iter().zip(&Category::ALL) {
            assert_eq!(category(first), expected);
            assert_eq!(category(top), expected);
            first = top + 1;
        }
        assert_eq!(HandValue::new(0), None);
        assert_eq!(HandValue::new(7463), None);
    }

    #[test]
    fn values_serialize_as_numbers_and_display_their_category() {
        let value = evaluate(&hand("KhKd7c7s5h"));
        assert_eq!(value.to_string(), "Two Pair");
        let json = serde_json::to_string(&value).unwrap();
        assert_eq!(json, value.get().to_string());
        assert_eq!(serde_json::from_str::<HandValue>(&json).unwrap(), value);
        assert!(serde_json::from_str::<HandValue>("0").is_err());
        assert!(serde_json::from_str::<HandValue>("7463").is_err());
        assert_eq!(Category::ThreeOfAKind.to_string(), "Three of a Kind");
        assert_eq!(
            serde_json::to_string(&Category::FullHouse).unwrap(),
            "\"FullHouse\""
        );
    }
}
