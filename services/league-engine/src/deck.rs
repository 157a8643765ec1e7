//! The deck order, derived from a 32-byte seed so that a hand can be dealt, recorded and
//! later audited by anyone who holds the seed.
//!
//! Before a hand the house publishes the [`Commitment`] `sha256(seed)`; after the hand it
//! reveals the [`Seed`]. Anyone can then check that the seed matches the commitment and
//! re-derive the deck, so the house cannot have chosen the order after seeing the action.
//! That only works if the derivation below is exact and stable: it is frozen by golden
//! tests, and any change to it is a change of the recorded contract.
//!
//! # The shuffle, for an auditor re-deriving it in another language
//!
//! 1. **Keystream.** ChaCha20 (20 rounds, D. J. Bernstein's original layout) keyed with
//!    the 32 seed bytes: state words 4..=11 are the seed read as eight little-endian `u32`;
//!    words 12..=13 are a 64-bit block counter starting at 0 (low word first); words
//!    14..=15, the nonce, are 0. With a zero nonce this is the RFC 8439 keystream with
//!    nonce `00..00` and initial block counter 0. The keystream is consumed as consecutive
//!    little-endian `u32` words: block 0 words 0..=15, then block 1, and so on. (This is
//!    what `rand_chacha` 0.10's `ChaCha20Rng::from_seed(seed).next_u32()` yields; a test
//!    below checks it against RFC 8439's zero-key vector and a plain re-implementation.)
//! 2. **Start** from the 52 cards in index order `rank * 4 + suit`:
//!    `2c 2d 2h 2s 3c 3d ... As`.
//! 3. **Fisher-Yates**: for `i` from 51 down to 1, let `n = i + 1`; take the next keystream
//!    word `x`; if `x >= floor(2^32 / n) * n` discard it and take the next word (rejection
//!    keeps every `j` equally likely); otherwise `j = x mod n`. Swap the cards at positions
//!    `i` and `j`.
//! 4. Position 0 is the top of the deck: the first card dealt.
//!
//! `rand`'s `gen_range` is deliberately not used: its algorithm is not part of its
//! stability promise, and a dependency upgrade must never reorder a recorded deck.

use std::fmt;
use std::str::FromStr;

use rand_chacha::ChaCha20Rng;
use rand_core::{Rng, SeedableRng};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use sha2::{Digest, Sha256};

use crate::card::{Card, Rank, Suit};

/// The secret from which a deck is derived.
///
/// `Debug` does not print the bytes, so a seed cannot leak into a log before it is
/// revealed; `Display` (lowercase hex) is the deliberate way to write it out.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Seed([u8; 32]);

/// `sha256(seed)`, published before the deal.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Commitment([u8; 32]);

/// A string that is not 64 hexadecimal digits.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("expected 64 hexadecimal digits, got {0:?}")]
pub struct ParseHexError(pub String);

impl Seed {
    pub const fn from_bytes(bytes: [u8; 32]) -> Seed {
        Seed(bytes)
    }

    pub const fn to_bytes(self) -> [u8; 32] {
        self.0
    }

    /// The commitment to publish before dealing from this seed.
    pub fn commitment(&self) -> Commitment {
        Commitment(Sha256::digest(self.0).into())
    }
}

impl Commitment {
    pub const fn from_bytes(bytes: [u8; 32]) -> Commitment {
        Commitment(bytes)
    }

    pub const fn to_bytes(self) -> [u8; 32] {
        self.0
    }

    /// Whether `seed` is the secret this commitment was made to.
    pub fn verifies(&self, seed: &Seed) -> bool {
        seed.commitment() == *self
    }
}

/// 52 cards in dealing order, position 0 first.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Deck {
    cards: [Card; 52],
}

impl Deck {
    /// The deck this seed orders, by the algorithm in the module documentation.
    pub fn from_seed(seed: &Seed) -> Deck {
        let mut cards = [Card::new(Rank::TWO, Suit::Clubs); 52];
        for (slot, card) in cards.iter_mut().zip(Card::all()) {
            *slot = card;
        }
        let mut rng = ChaCha20Rng::from_seed(seed.0);
        for i in (1..52u8).rev() {
            let j = uniform_below(&mut rng, i + 1);
            cards.swap(usize::from(i), usize::from(j));
        }
        Deck { cards }
    }

    pub fn cards(&self) -> &[Card; 52] {
        &self.cards
    }
}

/// For each `n` up to 52, the largest multiple of `n` that fits in 2^32: words at or above
/// it would favour small remainders. (A table, so the shuffle divides once per draw, not
/// twice.)
const ZONES: [u64; 53] = {
    let mut zones = [0u64; 53];
    let (mut i, mut n) = (1usize, 1u64);
    while i < 53 {
        zones[i] = (1u64 << 32) / n * n;
        i += 1;
        n += 1;
    }
    zones
};

/// A uniform draw from `0..n` by rejection on whole `u32` words (step 3 of the module docs).
fn uniform_below(rng: &mut ChaCha20Rng, n: u8) -> u8 {
    let zone = ZONES
        .get(usize::from(n))
        .copied()
        .unwrap_or_else(|| (1u64 << 32) / u64::from(n) * u64::from(n));
    let n = u32::from(n);
    loop {
        let x = rng.next_u32();
        if u64::from(x) < zone {
            let [j, ..] = (x % n).to_le_bytes();
            // x % n < n <= 52, so the low byte is the whole remainder.
            return j;
        }
    }
}

fn write_hex(f: &mut fmt::Formatter<'_>, bytes: &[u8; 32]) -> fmt::Result {
    for byte in bytes {
        write!(f, "{byte:02x}")?;
    }
    Ok(())
}

fn parse_hex(s: &str) -> Result<[u8; 32], ParseHexError> {
    let digit = |c: u8| {
        char::from(c)
            .to_digit(16)
            .and_then(|d| u8::try_from(d).ok())
    };
    let digits = s.as_bytes();
    let mut bytes = [0u8; 32];
    if digits.len() != 64 {
        return Err(ParseHexError(s.to_owned()));
    }
    for (byte, pair) in bytes.iter_mut().zip(digits.chunks_exact(2)) {
        match (digit(pair[0]), digit(pair[1])) {
            (Some(high), Some(low)) => *byte = high << 4 | low,
            _ => return Err(ParseHexError(s.to_owned())),
        }
    }
    Ok(bytes)
}

impl fmt::Display for Seed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_hex(f, &self.0)
    }
}

impl fmt::Debug for Seed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Seed(<secret>)")
    }
}

impl FromStr for Seed {
    type Err = ParseHexError;

    fn from_str(s: &str) -> Result<Seed, ParseHexError> {
        parse_hex(s).map(Seed)
    }
}

impl fmt::Display for Commitment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_hex(f, &self.0)
    }
}

impl fmt::Debug for Commitment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Commitment(")?;
        write_hex(f, &self.0)?;
        f.write_str(")")
    }
}

impl FromStr for Commitment {
    type Err = ParseHexError;

    fn from_str(s: &str) -> Result<Commitment, ParseHexError> {
        parse_hex(s).map(Commitment)
    }
}

impl Serialize for Seed {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Seed {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Seed, D::Error> {
        crate::card::from_text(deserializer, "a 64-digit hex seed")
    }
}

impl Serialize for Commitment {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Commitment {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Commitment, D::Error> {
        crate::card::from_text(deserializer, "a 64-digit hex commitment")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::card::format_cards;

    const ZERO: Seed = Seed([0; 32]);

    fn counting_seed() -> Seed {
        let mut bytes = [0u8; 32];
        for (i, b) in bytes.iter_mut().enumerate() {
            *b = u8::try_from(i).unwrap();
        }
        Seed(bytes)
    }

    fn nth_seed(n: u64) -> Seed {
        let mut bytes = [0u8; 32];
        bytes[..8].copy_from_slice(&n.to_le_bytes());
        Seed(Sha256::digest(bytes).into())
    }

    #[test]
    fn the_same_seed_always_gives_the_same_deck() {
        let seed = counting_seed();
        assert_eq!(Deck::from_seed(&seed), Deck::from_seed(&seed));
        assert_ne!(Deck::from_seed(&seed), Deck::from_seed(&ZERO));
    }

    #[test]
    fn every_deck_holds_each_card_exactly_once() {
        for n in 0..1000 {
            let deck = Deck::from_seed(&nth_seed(n));
            let mut seen = [false; 52];
            for card in deck.cards() {
                let i = usize::from(card.index());
                assert!(!seen[i], "{card} twice in deck {n}");
                seen[i] = true;
            }
        }
    }

    // Golden vectors: if one of these fails, the shuffle changed and every recorded deck
    // would re-derive differently. Do not update them without a migration plan.
    #[test]
    fn golden_decks_do_not_change() {
        let top_ten = |seed: &Seed| format_cards(&Deck::from_seed(seed).cards()[..10]);
        assert_eq!(top_ten(&ZERO), "3c9sAdQsAh3s8sJhTcAs");
        assert_eq!(top_ten(&counting_seed()), "8s3d6d5c5d3hKc4s3sAc");
    }

    #[test]
    fn the_commitment_is_the_sha256_of_the_seed() {
        assert_eq!(
            ZERO.commitment().to_string(),
            "66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925"
        );
        assert!(ZERO.commitment().verifies(&ZERO));
        assert!(!ZERO.commitment().verifies(&counting_seed()));
    }

    #[test]
    fn seeds_and_commitments_round_trip_through_hex_and_json() {
        let seed = counting_seed();
        let text = seed.to_string();
        assert_eq!(
            text,
            "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
        );
        assert_eq!(text.parse::<Seed>().unwrap(), seed);
        assert_eq!(text.to_uppercase().parse::<Seed>().unwrap(), seed);
        let json = serde_json::to_string(&seed).unwrap();
        assert_eq!(json, format!("\"{text}\""));
        assert_eq!(serde_json::from_str::<Seed>(&json).unwrap(), seed);

        let commitment = seed.commitment();
        let json = serde_json::to_string(&commitment).unwrap();
        assert_eq!(
            serde_json::from_str::<Commitment>(&json).unwrap(),
            commitment
        );
        assert_eq!(
            commitment.to_string().parse::<Commitment>().unwrap(),
            commitment
        );
    }

    #[test]
    fn malformed_hex_is_refused() {
        let good = "00".repeat(32);
        for bad in [
            String::new(),
            "00".repeat(31),
            "00".repeat(33),
            format!("{}zz", "00".repeat(31)),
            format!("{}+f", "00".repeat(31)),
            format!("{}é", "0".repeat(62)),
        ] {
            assert!(bad.parse::<Seed>().is_err(), "{bad}");
            assert!(bad.parse::<Commitment>().is_err(), "{bad}");
        }
        assert!(good.parse::<Seed>().is_ok());
    }

    #[test]
    fn a_seed_does_not_print_itself_in_debug_output() {
        assert_eq!(format!("{:?}", counting_seed()), "Seed(<secret>)");
    }

    /// ChaCha20 written plainly from RFC 8439 §2.3, nonce zero, to show that the module
    /// docs describe exactly the words `rand_chacha` yields.
    fn chacha20_block(key: &[u8; 32], counter: u64) -> [u32; 16] {
        fn quarter(s: &mut [u32; 16], a: usize, b: usize, c: usize, d: usize) {
            s[a] = s[a].wrapping_add(s[b]);
            s[d] = (s[d] ^ s[a]).rotate_left(16);
            s[c] = s[c].wrapping_add(s[d]);
            s[b] = (s[b] ^ s[c]).rotate_left(12);
            s[a] = s[a].wrapping_add(s[b]);
            s[d] = (s[d] ^ s[a]).rotate_left(8);
            s[c] = s[c].wrapping_add(s[d]);
            s[b] = (s[b] ^ s[c]).rotate_left(7);
        }
        let mut init = [0u32; 16];
        init[..4].copy_from_slice(&[0x6170_7865, 0x3320_646e, 0x7962_2d32, 0x6b20_6574]);
        for (word, bytes) in init[4..12].iter_mut().zip(key.chunks_exact(4)) {
            *word = u32::from_le_bytes(bytes.try_into().unwrap());
        }
        let [lo, hi] = [counter & 0xffff_ffff, counter >> 32].map(|w| u32::try_from(w).unwrap());
        init[12] = lo;
        init[13] = hi;
        let mut s = init;
        for _ in 0..10 {
            quarter(&mut s, 0, 4, 8, 12);
            quarter(&mut s, 1, 5, 9, 13);
            quarter(&mut s, 2, 6, 10, 14);
            quarter(&mut s, 3, 7, 11, 15);
            quarter(&mut s, 0, 5, 10, 15);
            quarter(&mut s, 1, 6, 11, 12);
            quarter(&mut s, 2, 7, 8, 13);
            quarter(&mut s, 3, 4, 9, 14);
        }
        for (w, i) in s.iter_mut().zip(init) {
            *w = w.wrapping_add(i);
        }
        s
    }

    #[test]
    fn the_keystream_is_rfc_8439_chacha20_read_as_little_endian_words() {
        // RFC 8439 A.1, test vector #1: key and nonce zero, block counter 0.
        let mut rng = ChaCha20Rng::from_seed([0; 32]);
        assert_eq!(rng.next_u32(), 0xade0_b876);
        assert_eq!(rng.next_u32(), 0x903d_f1a0);

        for seed in [ZERO, counting_seed(), nth_seed(7)] {
            let mut rng = ChaCha20Rng::from_seed(seed.0);
            for block in 0..9 {
                for word in chacha20_block(&seed.0, block) {
                    assert_eq!(rng.next_u32(), word);
                }
            }
        }
    }

    #[test]
    fn the_documented_algorithm_rederives_the_deck() {
        for n in 0..50 {
            let seed = nth_seed(n);
            let mut words = (0..).flat_map(|block| chacha20_block(&seed.0, block));
            let mut cards: Vec<Card> = Card::all().collect();
            for i in (1..52u32).rev() {
                let n = i + 1;
                let j = loop {
                    let x = words.next().unwrap();
                    if u64::from(x) < (1u64 << 32) / u64::from(n) * u64::from(n) {
                        break x % n;
                    }
                };
                cards.swap(usize::try_from(i).unwrap(), usize::try_from(j).unwrap());
            }
            assert_eq!(&cards[..], &Deck::from_seed(&seed).cards()[..]);
        }
    }

    /// Over 52,000 seeds every card should reach every position about 1,000 times. The
    /// seeds are fixed, so this is a sanity check of the shuffle, not a flaky test.
    #[test]
    fn each_card_is_roughly_uniform_in_each_position() {
        const DECKS: u64 = 52_000;
        let mut counts = vec![[0u32; 52]; 52];
        for n in 0..DECKS {
            for (position, card) in Deck::from_seed(&nth_seed(n)).cards().iter().enumerate() {
                counts[position][usize::from(card.index())] += 1;
            }
        }
        let expected = 1000.0;
        for (position, row) in counts.iter().enumerate() {
            let chi2: f64 = row
                .iter()
                .map(|&c| (f64::from(c) - expected).powi(2) / expected)
                .sum();
            // 51 degrees of freedom: mean 51, P(chi2 > 110) is about 3e-6.
            assert!(chi2 < 110.0, "position {position}: chi-square {chi2:.1}");
        }
    }
}
