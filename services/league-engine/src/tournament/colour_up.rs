//! Colouring up: taking the lowest chip denomination out of play.
//!
//! Two policies, as the rulebooks have them:
//!
//! - **Round up** (QueenSix 8, WPH 17 for nightly games): each player's low chips are
//!   exchanged for high chips, and any left-over low chips become one more high chip.
//! - **Chip race** (WPH 17 for major events, Oracle, the invitational 1.4): full exchanges
//!   first; the left-over low chips are counted and as many high chips as they make, plus
//!   one if they do not make a whole number, are raced for. Every player with left-overs
//!   is dealt one card per left-over chip, all of a player's cards before the next player's,
//!   from seat 1 clockwise, from the deck of the committed seed ([`crate::deck::Deck`]).
//!   Beyond 52 cards the race deals on from further decks (deck `k` ordered by
//!   `derive_seed(seed, "deck", k)`), and between two equal cards the one dealt first is
//!   higher. The highest single cards (rank, then suit: spades, hearts, diamonds, clubs) win one
//!   high chip each, nobody more than one. A player cannot be raced out: one whose only
//!   chips were left-overs gets a high chip first.
//!
//! Chips are counted in value (the tournament's chip unit). What the colour-up removes
//! from play and adds to it is returned, so the chip count stays explained.

use serde::{Deserialize, Serialize};

use crate::card::Card;
use crate::deck::{Deck, Seed};
use crate::hand::Seat;
use crate::tournament::draw::derive_seed;

/// How the house colours up.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum ColourUpPolicy {
    RoundUp,
    ChipRace,
}

/// One player's chips before the colour-up.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Holding {
    pub seat: Seat,
    /// How many chips of the denomination leaving play.
    pub low_chips: u64,
    /// The value of the player's other chips.
    pub other_value: u64,
}

/// One player's chips after.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Coloured {
    pub seat: Seat,
    /// The player's chip value after the colour-up.
    pub value: u64,
    /// Cards dealt to the player in the race (empty for round-up or no left-overs).
    pub cards: Vec<Card>,
    /// High chips won in the race (0 or 1), or given so as not to be raced out.
    pub raced: u64,
}

/// The whole colour-up.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ColourUp {
    pub players: Vec<Coloured>,
    /// Value of the left-over low chips taken out of play.
    pub removed: u64,
    /// Value of the high chips added for them.
    pub added: u64,
}

/// Why a colour-up cannot be done.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum ColourUpError {
    #[error("the high denomination {high} must be a multiple of the low {low}, and larger")]
    Denominations { low: u64, high: u64 },
    #[error("a chip race needs the committed seed")]
    NoSeed,
    #[error("{cards} cards are needed for the race, more than one deck")]
    TooManyCards { cards: u64 },
    #[error("seat {0} is listed twice")]
    DuplicateSeat(Seat),
    #[error("chip values overflow")]
    Overflow,
}

/// Colours up `holdings` (in any order; the race goes from the lowest seat number).
pub fn colour_up(
    policy: ColourUpPolicy,
    low: u64,
    high: u64,
    holdings: &[Holding],
    seed: Option<&Seed>,
) -> Result<ColourUp, ColourUpError> {
    if low == 0 || high <= low || !high.is_multiple_of(low) {
        return Err(ColourUpError::Denominations { low, high });
    }
    let mut holdings = holdings.to_vec();
    holdings.sort_by_key(|h| h.seat);
    if let Some(pair) = holdings.windows(2).find(|w| w[0].seat == w[1].seat) {
        return Err(ColourUpError::DuplicateSeat(pair[0].seat));
    }
    let per_high = high / low;
    // (full high chips, left-over low chips) per player.
    let split: Vec<(u64, u64)> = holdings
        .iter()
        .map(|h| (h.low_chips / per_high, h.low_chips % per_high))
        .collect();
    let leftover_chips: u64 = split.iter().map(|&(_, left)| left).sum();
    let removed = leftover_chips
        .checked_mul(low)
        .ok_or(ColourUpError::Overflow)?;
    let base = |i: usize| -> Result<u64, ColourUpError> {
        split[i]
            .0
            .checked_mul(high)
            .and_then(|v| v.checked_add(holdings[i].other_value))
            .ok_or(ColourUpError::Overflow)
    };
    match policy {
        ColourUpPolicy::RoundUp => {
            let mut players = Vec::with_capacity(holdings.len());
            let mut added = 0u64;
            for (i, h) in holdings.iter().enumerate() {
                let raced = u64::from(split[i].1 > 0);
                added += raced * high;
                players.push(Coloured {
                    seat: h.seat,
                    value: base(i)? + raced * high,
                    cards: Vec::new(),
                    raced,
                });
            }
            Ok(ColourUp {
                players,
                removed,
                added,
            })
        }
        ColourUpPolicy::ChipRace => race(&holdings, &split, removed, high, seed, base),
    }
}

/// The most decks a race deals from.
const MAX_RACE_DECKS: u64 = 8;

fn race(
    holdings: &[Holding],
    split: &[(u64, u64)],
    removed: u64,
    high: u64,
    seed: Option<&Seed>,
    base: impl Fn(usize) -> Result<u64, ColourUpError>,
) -> Result<ColourUp, ColourUpError> {
    let seed = seed.ok_or(ColourUpError::NoSeed)?;
    let cards_needed: u64 = split.iter().map(|&(_, left)| left).sum();
    if cards_needed > MAX_RACE_DECKS * 52 {
        return Err(ColourUpError::TooManyCards {
            cards: cards_needed,
        });
    }
    // The high chips raced for: as many as the left-overs make, one more for a remainder.
    let mut chips = removed / high + u64::from(!removed.is_multiple_of(high));
    // More than 52 cards (nine players with nine left-over chips each) come from further
    // decks: deck k > 0 is ordered by `derive_seed(seed, "deck", k)`.
    let mut next = (0..MAX_RACE_DECKS)
        .flat_map(|k| {
            let deck = if k == 0 {
                Deck::from_seed(seed)
            } else {
                Deck::from_seed(&derive_seed(seed, "deck", u32::try_from(k).unwrap_or(0)))
            };
            deck.cards().to_vec()
        })
        .enumerate();
    let mut dealt: Vec<Vec<(usize, Card)>> = Vec::with_capacity(holdings.len());
    for &(_, left) in split {
        dealt.push(
            next.by_ref()
                .take(usize::try_from(left).unwrap_or(0))
                .collect(),
        );
    }
    let mut raced = vec![0u64; holdings.len()];
    // Nobody is raced out: players whose only chips are left-overs come first.
    for i in 0..holdings.len() {
        if split[i].1 > 0 && base(i)? == 0 {
            raced[i] = 1;
            chips = chips.saturating_sub(1);
        }
    }
    // The rest go to the highest single cards, one chip each.
    // A player's best card; between equal cards (several decks) the one dealt first wins.
    let mut contenders: Vec<(Card, usize, usize)> = (0..holdings.len())
        .filter(|&i| raced[i] == 0)
        .filter_map(|i| {
            dealt[i]
                .iter()
                .max_by_key(|&&(index, card)| (card, std::cmp::Reverse(index)))
                .map(|&(index, card)| (card, index, i))
        })
        .collect();
    contenders.sort_unstable_by_key(|&(card, index, _)| (std::cmp::Reverse(card), index));
    for &(_, _, i) in contenders
        .iter()
        .take(usize::try_from(chips).unwrap_or(usize::MAX))
    {
        raced[i] = 1;
    }
    let mut players = Vec::with_capacity(holdings.len());
    let mut added = 0u64;
    for (i, h) in holdings.iter().enumerate() {
        added += raced[i] * high;
        players.push(Coloured {
            seat: h.seat,
            value: base(i)? + raced[i] * high,
            cards: dealt[i].iter().map(|&(_, card)| card).collect(),
            raced: raced[i],
        });
    }
    Ok(ColourUp {
        players,
        removed,
        added,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn holding(seat: Seat, low_chips: u64, other_value: u64) -> Holding {
        Holding {
            seat,
            low_chips,
            other_value,
        }
    }

    #[test]
    fn wph_17_nightly_round_up() {
        // WPH 17: "if a player were to possess eight x $25 tournament chips, they would
        // receive two x $100 chips [...] if they have one, two or three x $25 chips, they
        // will be awarded with one x $100 chip."
        let up = colour_up(
            ColourUpPolicy::RoundUp,
            25,
            100,
            &[holding(1, 8, 0), holding(2, 3, 500), holding(3, 1, 0)],
            None,
        )
        .unwrap();
        let values: Vec<u64> = up.players.iter().map(|p| p.value).collect();
        assert_eq!(values, [200, 600, 100]);
        assert_eq!((up.removed, up.added), (100, 200));
    }

    #[test]
    fn wph_17_chip_race_seven_left_over_chips_race_for_two() {
        // WPH 17: "if there are 7 $25 chips remaining among 6 players, 2 $100 chips are
        // prepared [...] No player is issued more than one chip."
        let holdings = [
            holding(1, 2, 1_000),
            holding(2, 1, 1_000),
            holding(3, 1, 1_000),
            holding(4, 1, 1_000),
            holding(5, 1, 1_000),
            holding(6, 1, 1_000),
        ];
        let seed = Seed::from_bytes([9; 32]);
        let up = colour_up(ColourUpPolicy::ChipRace, 25, 100, &holdings, Some(&seed)).unwrap();
        assert_eq!(up.removed, 175);
        assert_eq!(up.added, 200);
        assert_eq!(up.players.iter().map(|p| p.raced).sum::<u64>(), 2);
        assert!(up.players.iter().all(|p| p.raced <= 1));
        // Seat 1 gets its two cards first, from the top of the deck.
        let deck = Deck::from_seed(&seed);
        assert_eq!(up.players[0].cards, deck.cards()[..2].to_vec());
        assert_eq!(up.players[1].cards, deck.cards()[2..3].to_vec());
        // The two highest single cards win.
        let mut best: Vec<(Card, Seat)> = up
            .players
            .iter()
            .map(|p| (*p.cards.iter().max().unwrap(), p.seat))
            .collect();
        best.sort_by_key(|&(card, _)| std::cmp::Reverse(card));
        let winners: Vec<Seat> = up
            .players
            .iter()
            .filter(|p| p.raced == 1)
            .map(|p| p.seat)
            .collect();
        let mut expected: Vec<Seat> = best[..2].iter().map(|&(_, s)| s).collect();
        expected.sort_unstable();
        assert_eq!(winners, expected);
    }

    #[test]
    fn invitational_a_player_cannot_be_raced_out() {
        // Invitational 1.4: "A player cannot be raced out of a tournament: a player who
        // loses his or her remaining chip(s) in a chip race will be given one chip of the
        // smallest denomination still in play."
        for byte in 0..20 {
            let seed = Seed::from_bytes([byte; 32]);
            let up = colour_up(
                ColourUpPolicy::ChipRace,
                25,
                100,
                &[holding(1, 1, 0), holding(2, 3, 5_000), holding(3, 3, 5_000)],
                Some(&seed),
            )
            .unwrap();
            assert_eq!(up.players[0].value, 100, "seed {byte}");
            assert!(up.players.iter().all(|p| p.value > 0));
        }
    }

    #[test]
    fn bad_colour_ups_are_refused() {
        assert!(matches!(
            colour_up(ColourUpPolicy::RoundUp, 25, 110, &[], None),
            Err(ColourUpError::Denominations { .. })
        ));
        assert_eq!(
            colour_up(ColourUpPolicy::ChipRace, 25, 100, &[holding(1, 1, 0)], None),
            Err(ColourUpError::NoSeed)
        );
        assert_eq!(
            colour_up(
                ColourUpPolicy::RoundUp,
                25,
                100,
                &[holding(1, 1, 0), holding(1, 2, 0)],
                None
            ),
            Err(ColourUpError::DuplicateSeat(1))
        );
    }
}
