//! The seat draw and the draw for the button, from a committed seed.
//!
//! The tournament publishes `sha256(seed)` before the draw and reveals the seed after it,
//! so anyone can re-derive every seat and every button. The algorithm, for an auditor:
//!
//! 1. **Seats.** Sort the entrants by their id (bytes, ascending). Run a Fisher-Yates
//!    shuffle over them with a ChaCha20 keystream keyed by the seed (64-bit block counter
//!    from 0, nonce 0, read as little-endian `u32` words, exactly as the deck does): for
//!    `i` from `n - 1` down to 1, draw `j` uniform in `0..=i` by rejection (take a word
//!    `x`; reject it if `x >= floor(2^32 / (i + 1)) * (i + 1)`; else `j = x % (i + 1)`),
//!    and swap `i` and `j`. Deal the shuffled list round the tables like cards: the `k`-th
//!    entrant (from 0) sits at table `k % tables`, in the `k / tables`-th seat of that
//!    table's seat order (so tables differ by at most one player).
//! 2. **Buttons.** For table number `t` (as the seat draw numbers them, from 1), the deck seed is `sha256(seed || "button" ||
//!    t as 4 little-endian bytes)`; its deck ([`crate::deck::Deck`]) deals one card to
//!    each seated player in seat order; the highest card, rank first and then suit (spades
//!    > hearts > diamonds > clubs), takes the button.

use rand_chacha::ChaCha20Rng;
use rand_core::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::card::Card;
use crate::deck::{Deck, Seed};
use crate::hand::{MAX_SEATS, Seat};
use crate::units::PlayerId;

/// Why a draw cannot be made.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum DrawError {
    #[error("no entrants to seat")]
    NoEntrants,
    #[error("{entrants} entrants do not fit {tables} tables of {seats} seats")]
    DoesNotFit {
        entrants: usize,
        tables: usize,
        seats: usize,
    },
    #[error("a table needs 2 to {MAX_SEATS} seats, got {0}")]
    TableSize(usize),
    #[error("entrant {0} is entered twice")]
    Duplicate(String),
}

/// One entrant's seat.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SeatAssignment {
    pub entrant: PlayerId,
    pub table: u32,
    pub seat: Seat,
}

/// The draw for one table's button: each player's card and the winner.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ButtonDraw {
    pub table: u32,
    pub cards: Vec<(Seat, Card)>,
    pub button: Seat,
}

/// Seats `entrants` at `tables` tables whose seats are `seat_order` (e.g. `0..9`).
pub fn draw_seats(
    seed: &Seed,
    entrants: &[PlayerId],
    tables: usize,
    seat_order: &[Seat],
) -> Result<Vec<SeatAssignment>, DrawError> {
    if entrants.is_empty() {
        return Err(DrawError::NoEntrants);
    }
    if !(2..=MAX_SEATS).contains(&seat_order.len()) {
        return Err(DrawError::TableSize(seat_order.len()));
    }
    if tables == 0 || entrants.len() > tables.saturating_mul(seat_order.len()) {
        return Err(DrawError::DoesNotFit {
            entrants: entrants.len(),
            tables,
            seats: seat_order.len(),
        });
    }
    let mut order: Vec<&PlayerId> = entrants.iter().collect();
    order.sort_unstable_by(|a, b| a.as_str().as_bytes().cmp(b.as_str().as_bytes()));
    if let Some(pair) = order.windows(2).find(|w| w[0] == w[1]) {
        return Err(DrawError::Duplicate(pair[0].to_string()));
    }
    let mut rng = ChaCha20Rng::from_seed(seed.to_bytes());
    for i in (1..order.len()).rev() {
        let j = uniform_below(&mut rng, i + 1);
        order.swap(i, j);
    }
    Ok(order
        .into_iter()
        .enumerate()
        .map(|(k, entrant)| SeatAssignment {
            entrant: entrant.clone(),
            table: u32::try_from(k % tables).unwrap_or(u32::MAX),
            seat: seat_order[k / tables],
        })
        .collect())
}

/// A uniform draw from `0..n` by rejection on whole `u32` words.
fn uniform_below(rng: &mut ChaCha20Rng, n: usize) -> usize {
    let n = u64::try_from(n).unwrap_or(u64::MAX).max(1);
    // floor(2^32 / n) * n: the words below it map evenly onto 0..n.
    let limit = ((1u64 << 32) / n) * n;
    loop {
        let x = u64::from(rng.next_u32());
        if x < limit {
            return usize::try_from(x % n).unwrap_or(0);
        }
    }
}

/// The deck seed for table `table`'s button draw.
pub fn button_seed(seed: &Seed, table: u32) -> Seed {
    derive_seed(seed, "button", table)
}

/// Draws for the button at `table`, dealing one card to each of `seats` in order.
pub fn draw_button(seed: &Seed, table: u32, seats: &[Seat]) -> Result<ButtonDraw, DrawError> {
    if seats.is_empty() {
        return Err(DrawError::NoEntrants);
    }
    if seats.len() > MAX_SEATS {
        return Err(DrawError::TableSize(seats.len()));
    }
    let deck = Deck::from_seed(&button_seed(seed, table));
    let cards: Vec<(Seat, Card)> = seats
        .iter()
        .copied()
        .zip(deck.cards().iter().copied())
        .collect();
    let button = cards
        .iter()
        .max_by_key(|(_, card)| *card)
        .map_or(seats[0], |&(seat, _)| seat);
    Ok(ButtonDraw {
        table,
        cards,
        button,
    })
}

/// A sub-seed for one purpose of a revealed seed: `sha256(seed || label || index as 4
/// little-endian bytes)` (the button draw of table `t` is `derive(seed, "button", t)`).
pub fn derive_seed(seed: &Seed, label: &str, index: u32) -> Seed {
    let mut hasher = Sha256::new();
    hasher.update(seed.to_bytes());
    hasher.update(label.as_bytes());
    hasher.update(index.to_le_bytes());
    Seed::from_bytes(hasher.finalize().into())
}

/// The seed a draw is made from when entropy was added before it: `sha256(seed ||
/// "entropy" || entropy)`. The server committed to `seed` before anyone gave the entropy,
/// and the entropy was given before the seed was revealed: neither side alone chooses the
/// draw.
pub fn mix_entropy(seed: &Seed, entropy: &Seed) -> Seed {
    let mut hasher = Sha256::new();
    hasher.update(seed.to_bytes());
    hasher.update(b"entropy");
    hasher.update(entropy.to_bytes());
    Seed::from_bytes(hasher.finalize().into())
}

/// Entropy pooled for the next draw: `sha256(pool || added)`, the pool starting as 32 zero
/// bytes.
pub fn pool_entropy(pool: Option<&Seed>, added: &Seed) -> Seed {
    let mut hasher = Sha256::new();
    hasher.update(pool.map_or([0; 32], |p| p.to_bytes()));
    hasher.update(added.to_bytes());
    Seed::from_bytes(hasher.finalize().into())
}

/// One index uniform in `0..n` (`n > 0`) from a seed: the first draw of the ChaCha20
/// keystream keyed by the seed, by rejection exactly as the seat draw makes it. Used to
/// seat a late entrant in one of the open seats.
pub fn pick(seed: &Seed, n: usize) -> usize {
    let mut rng = ChaCha20Rng::from_seed(seed.to_bytes());
    uniform_below(&mut rng, n)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entrants(n: usize) -> Vec<PlayerId> {
        (0..n)
            .map(|i| PlayerId::new(format!("player-{i:03}")))
            .collect()
    }

    fn seed(byte: u8) -> Seed {
        Seed::from_bytes([byte; 32])
    }

    #[test]
    fn every_entrant_gets_one_seat_and_tables_differ_by_at_most_one() {
        let seats: Vec<Seat> = (0..9).collect();
        let draw = draw_seats(&seed(7), &entrants(40), 5, &seats).unwrap();
        assert_eq!(draw.len(), 40);
        let mut taken: Vec<(u32, Seat)> = draw.iter().map(|a| (a.table, a.seat)).collect();
        taken.sort_unstable();
        taken.dedup();
        assert_eq!(taken.len(), 40, "no seat is given twice");
        for table in 0..5 {
            assert_eq!(draw.iter().filter(|a| a.table == table).count(), 8);
        }
    }

    #[test]
    fn the_draw_does_not_depend_on_the_order_entrants_are_listed() {
        let seats: Vec<Seat> = (0..10).collect();
        let mut list = entrants(23);
        let first = draw_seats(&seed(1), &list, 3, &seats).unwrap();
        list.reverse();
        let mut second = draw_seats(&seed(1), &list, 3, &seats).unwrap();
        let mut first = first;
        first.sort_by(|a, b| a.entrant.cmp(&b.entrant));
        second.sort_by(|a, b| a.entrant.cmp(&b.entrant));
        assert_eq!(first, second);
        let other = draw_seats(&seed(2), &entrants(23), 3, &seats).unwrap();
        assert_ne!(
            first.iter().map(|a| (a.table, a.seat)).collect::<Vec<_>>(),
            {
                let mut o = other;
                o.sort_by(|a, b| a.entrant.cmp(&b.entrant));
                o.iter().map(|a| (a.table, a.seat)).collect::<Vec<_>>()
            },
            "another seed, another draw"
        );
    }

    #[test]
    fn bad_draws_are_refused() {
        let seats: Vec<Seat> = (0..9).collect();
        assert_eq!(
            draw_seats(&seed(0), &[], 1, &seats),
            Err(DrawError::NoEntrants)
        );
        assert!(matches!(
            draw_seats(&seed(0), &entrants(19), 2, &seats),
            Err(DrawError::DoesNotFit { .. })
        ));
        let twice = vec![PlayerId::from("a"), PlayerId::from("a")];
        assert_eq!(
            draw_seats(&seed(0), &twice, 1, &seats),
            Err(DrawError::Duplicate("a".into()))
        );
        assert_eq!(
            draw_seats(&seed(0), &entrants(2), 1, &[0]),
            Err(DrawError::TableSize(1))
        );
    }

    #[test]
    fn the_button_goes_to_the_highest_card_with_suits_breaking_ties() {
        let draw = draw_button(&seed(3), 0, &[0, 2, 4, 6, 8]).unwrap();
        let best = draw.cards.iter().map(|&(_, c)| c).max().unwrap();
        assert_eq!(
            draw.cards
                .iter()
                .find(|&&(_, c)| c == best)
                .map(|&(s, _)| s),
            Some(draw.button)
        );
        // Each table draws from its own deck.
        assert_ne!(button_seed(&seed(3), 0), button_seed(&seed(3), 1));
    }

    /// An auditor's re-derivation, written from the module documentation alone.
    #[test]
    fn an_auditor_re_derives_the_seats_from_the_revealed_seed() {
        let revealed = seed(42);
        let commitment = revealed.commitment();
        let seats: Vec<Seat> = (0..9).collect();
        let list = entrants(17);
        let draw = draw_seats(&revealed, &list, 2, &seats).unwrap();

        assert!(commitment.verifies(&revealed));
        let mut order = list.clone();
        order.sort();
        let mut rng = ChaCha20Rng::from_seed(revealed.to_bytes());
        for i in (1..order.len()).rev() {
            let n = u64::try_from(i + 1).unwrap();
            let limit = ((1u64 << 32) / n) * n;
            let j = loop {
                let x = u64::from(rng.next_u32());
                if x < limit {
                    break usize::try_from(x % n).unwrap();
                }
            };
            order.swap(i, j);
        }
        for (k, entrant) in order.iter().enumerate() {
            let assigned = draw.iter().find(|a| &a.entrant == entrant).unwrap();
            assert_eq!(assigned.table, u32::try_from(k % 2).unwrap());
            assert_eq!(assigned.seat, seats[k / 2]);
        }
    }
}
