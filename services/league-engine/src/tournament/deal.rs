//! Deals at the final table: chip chop and ICM (Malmuth-Harville), in exact integers.

use std::cmp::Ordering;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::payouts::split_by_weight;
use super::{Cents, Chips};

/// The most players an ICM deal is worked out for: the exact computation visits every
/// subset of the players (2^9 = 512) with integers of up to ~32,000 bits.
pub const ICM_MAX_PLAYERS: usize = 9;

/// How the remaining money is divided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum DealKind {
    /// See [`chip_chop`].
    ChipChop,
    /// See [`icm`].
    Icm,
}

/// Why a deal cannot be worked out.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum DealError {
    /// No players left.
    #[error("a deal needs at least one player")]
    NoPlayers,
    /// Too many players for an exact ICM.
    #[error("ICM is worked out for at most {max} players, not {players}")]
    TooManyPlayers {
        /// Players in the deal.
        players: usize,
        /// [`ICM_MAX_PLAYERS`].
        max: usize,
    },
    /// More prizes than players to take them.
    #[error("{prizes} prizes left but only {players} players")]
    MorePrizesThanPlayers {
        /// Prizes given.
        prizes: usize,
        /// Players in the deal.
        players: usize,
    },
    /// A player with no chips is not in the deal (they have busted).
    #[error("player {index} has no chips")]
    EmptyStack {
        /// Their index in the stacks given.
        index: usize,
    },
    /// The remaining prizes are not in order, highest place first.
    #[error("prize {place} is larger than the one above it")]
    PrizesNotInOrder {
        /// The 1-based place among the remaining prizes.
        place: usize,
    },
    /// The chips or money do not fit in 64 bits.
    #[error("the chips or money overflow")]
    Overflow,
}

/// Checks the inputs of a deal and returns the prizes padded with 0 to one per player,
/// their total and the total of the chips.
fn prepare(prizes: &[u64], stacks: &[u64]) -> Result<(Vec<u64>, u64, u64), DealError> {
    if stacks.is_empty() {
        return Err(DealError::NoPlayers);
    }
    if prizes.len() > stacks.len() {
        return Err(DealError::MorePrizesThanPlayers {
            prizes: prizes.len(),
            players: stacks.len(),
        });
    }
    if let Some(index) = stacks.iter().position(|&c| c == 0) {
        return Err(DealError::EmptyStack { index });
    }
    if let Some(i) = prizes.windows(2).position(|p| p[1] > p[0]) {
        return Err(DealError::PrizesNotInOrder { place: i + 2 });
    }
    let money = prizes
        .iter()
        .try_fold(0u64, |a, &p| a.checked_add(p))
        .ok_or(DealError::Overflow)?;
    let chips = stacks
        .iter()
        .try_fold(0u64, |a, &c| a.checked_add(c))
        .ok_or(DealError::Overflow)?;
    let mut padded = prizes.to_vec();
    padded.resize(stacks.len(), 0);
    Ok((padded, money, chips))
}

/// Player indices by chips, most first, then by index: the order in which odd cents go.
fn by_chips(stacks: &[u64]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..stacks.len()).collect();
    order.sort_by(|&a, &b| stacks[b].cmp(&stacks[a]).then(a.cmp(&b)));
    order
}

/// [`chip_chop`] on bare cents and chips.
fn chip_chop_bare(prizes: &[u64], stacks: &[u64]) -> Result<Vec<u64>, DealError> {
    let (padded, money, _) = prepare(prizes, stacks)?;
    let floor = padded.last().copied().unwrap_or(0);
    let players = u64::try_from(stacks.len()).map_err(|_| DealError::Overflow)?;
    // `floor` is the smallest of `players` prizes summing to `money`, so this cannot fail.
    let rest = money
        .checked_sub(floor.checked_mul(players).ok_or(DealError::Overflow)?)
        .ok_or(DealError::Overflow)?;
    let order = by_chips(stacks);
    let weights: Vec<u128> = order.iter().map(|&i| u128::from(stacks[i])).collect();
    let shares = split_by_weight(Cents::new(rest), &weights);
    let mut out = vec![floor; stacks.len()];
    for (&i, share) in order.iter().zip(shares) {
        out[i] += share.get();
    }
    Ok(out)
}

/// [`icm`] on bare cents and chips.
fn icm_bare(prizes: &[u64], stacks: &[u64]) -> Result<Vec<u64>, DealError> {
    let n = stacks.len();
    if n > ICM_MAX_PLAYERS {
        return Err(DealError::TooManyPlayers {
            players: n,
            max: ICM_MAX_PLAYERS,
        });
    }
    let (padded, money, _) = prepare(prizes, stacks)?;
    let paid = padded.iter().filter(|&&p| p > 0).count();
    let full = (1usize << n) - 1;
    // Chips of each subset of players (bit i = player i).
    let mut chips_of = vec![0u64; full + 1];
    for set in 1..=full {
        let low = set.trailing_zeros();
        let i = usize::try_from(low).map_err(|_| DealError::Overflow)?;
        // Fits: at most the total, which `prepare` checked.
        chips_of[set] = chips_of[set & (set - 1)] + stacks[i];
    }
    // A common denominator: the product of the chips of every set that still has places
    // to hand out. Every path's probability denominator (a product of such sums over
    // distinct sets) divides it, so all the sums below are exact integers.
    let live = |set: usize| n - popcount(set) < paid;
    let mut denominator = Big::from(1);
    for (set, &chips) in chips_of.iter().enumerate().skip(1) {
        if live(set) {
            denominator = denominator.mul_small(chips);
        }
    }
    // reach[set] = denominator * P(the players not in `set` took the top places).
    let mut reach: Vec<Big> = vec![Big::from(0); full + 1];
    reach[full] = denominator.clone();
    let mut equity: Vec<Big> = vec![Big::from(0); n];
    // Subsets come after their supersets in decreasing numeric order.
    for set in (1..=full).rev() {
        if !live(set) || reach[set].is_zero() {
            continue;
        }
        let place = n - popcount(set);
        let (per_chip, rem) = reach[set].div_rem_small(chips_of[set]);
        debug_assert_eq!(rem, 0, "the denominator holds this set's chips");
        for (i, &c) in stacks.iter().enumerate() {
            let bit = 1usize << i;
            if set & bit == 0 {
                continue;
            }
            let takes = per_chip.mul_small(c);
            equity[i].add_assign(&takes.mul_small(padded[place]));
            reach[set ^ bit].add_assign(&takes);
        }
    }
    // floor(equity / denominator), by bisection: every equity is at most `money`.
    let mut shares = Vec::with_capacity(n);
    let mut fractions = Vec::with_capacity(n);
    for e in &equity {
        let (mut lo, mut hi) = (0u64, money);
        while lo < hi {
            let mid = lo + (hi - lo).div_ceil(2);
            if denominator.mul_small(mid) <= *e {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        shares.push(lo);
        fractions.push(e.sub(&denominator.mul_small(lo)));
    }
    let given: u64 = shares.iter().sum();
    let left = money.checked_sub(given).ok_or(DealError::Overflow)?;
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| {
        fractions[b]
            .cmp(&fractions[a])
            .then(stacks[b].cmp(&stacks[a]))
            .then(a.cmp(&b))
    });
    for &i in order
        .iter()
        .take(usize::try_from(left).map_err(|_| DealError::Overflow)?)
    {
        shares[i] += 1;
    }
    Ok(shares)
}

/// Works out a deal of either kind.
///
/// # Errors
///
/// As [`chip_chop`] or [`icm`].
pub fn deal(kind: DealKind, prizes: &[Cents], stacks: &[Chips]) -> Result<Vec<Cents>, DealError> {
    match kind {
        DealKind::ChipChop => chip_chop(prizes, stacks),
        DealKind::Icm => icm(prizes, stacks),
    }
}

/// Chip chop: every remaining player is guaranteed the prize of the last remaining place
/// (`prizes[stacks.len() - 1]`, 0 when that place is not paid); the rest of the remaining
/// money is split in proportion to chips. Each share is rounded down and the left-over
/// cents (fewer than the players) go one each to the biggest stacks, ties by index.
///
/// `prizes` are the prizes still to be won, highest first (shorter than `stacks` when
/// fewer places are paid than players remain); `stacks` the players' chips. Returns each
/// player's money in the order of `stacks`, summing to the prizes exactly.
///
/// # Errors
///
/// [`DealError::NoPlayers`], [`DealError::MorePrizesThanPlayers`],
/// [`DealError::EmptyStack`], [`DealError::PrizesNotInOrder`], [`DealError::Overflow`].
pub fn chip_chop(prizes: &[Cents], stacks: &[Chips]) -> Result<Vec<Cents>, DealError> {
    in_units(prizes, stacks, chip_chop_bare)
}

/// ICM by the Malmuth-Harville model: a player finishes first with probability
/// `chips / all chips`, and, given who finished above, next with probability `chips /
/// chips left`. Each player's equity, `sum over places of P(place) * prize`, is computed
/// as an exact fraction; the money is its floor, and the left-over cents (fewer than the
/// players) go one each to the largest fractional parts, ties to the bigger stack, then
/// by index. So the shares sum to the prizes exactly, equal stacks get equal money within
/// a cent, and more chips never get less.
///
/// Inputs and output as for [`chip_chop`]; at most [`ICM_MAX_PLAYERS`] players.
///
/// # Errors
///
/// As [`chip_chop`], and [`DealError::TooManyPlayers`].
pub fn icm(prizes: &[Cents], stacks: &[Chips]) -> Result<Vec<Cents>, DealError> {
    in_units(prizes, stacks, icm_bare)
}

/// A deal worked out on bare cents and chips.
type BareDeal = fn(&[u64], &[u64]) -> Result<Vec<u64>, DealError>;

/// Runs a deal worked out on bare integers (cents and chips) with the units on both sides.
fn in_units(prizes: &[Cents], stacks: &[Chips], bare: BareDeal) -> Result<Vec<Cents>, DealError> {
    let prizes: Vec<u64> = prizes.iter().map(|p| p.get()).collect();
    let stacks: Vec<u64> = stacks.iter().map(|c| c.get()).collect();
    Ok(bare(&prizes, &stacks)?
        .into_iter()
        .map(Cents::new)
        .collect())
}

fn popcount(set: usize) -> usize {
    // A count of at most `usize::BITS` always fits.
    usize::try_from(set.count_ones()).unwrap_or(usize::MAX)
}

/// Just enough of an unsigned big integer for exact ICM: little-endian 64-bit limbs, no
/// trailing zero limbs.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Big(Vec<u64>);

impl From<u64> for Big {
    fn from(x: u64) -> Self {
        let mut b = Self(vec![x]);
        b.trim();
        b
    }
}

impl Big {
    fn trim(&mut self) {
        while self.0.last() == Some(&0) {
            self.0.pop();
        }
    }

    fn is_zero(&self) -> bool {
        self.0.is_empty()
    }

    fn mul_small(&self, m: u64) -> Self {
        let mut out = Vec::with_capacity(self.0.len() + 1);
        let mut carry = 0u128;
        for &limb in &self.0 {
            let t = u128::from(limb) * u128::from(m) + carry;
            out.push(low(t));
            carry = t >> 64;
        }
        out.push(low(carry));
        let mut b = Self(out);
        b.trim();
        b
    }

    fn add_assign(&mut self, other: &Self) {
        if self.0.len() < other.0.len() {
            self.0.resize(other.0.len(), 0);
        }
        let mut carry = 0u128;
        for (i, limb) in self.0.iter_mut().enumerate() {
            let t = u128::from(*limb) + u128::from(other.0.get(i).copied().unwrap_or(0)) + carry;
            *limb = low(t);
            carry = t >> 64;
        }
        if carry > 0 {
            self.0.push(low(carry));
        }
    }

    /// `self - other`, or 0 if `other` is larger (never, where it is used).
    fn sub(&self, other: &Self) -> Self {
        if *other > *self {
            return Self(Vec::new());
        }
        let mut out = Vec::with_capacity(self.0.len());
        let mut borrow = false;
        for (i, &limb) in self.0.iter().enumerate() {
            let o = other.0.get(i).copied().unwrap_or(0);
            let (d1, b1) = limb.overflowing_sub(o);
            let (d2, b2) = d1.overflowing_sub(u64::from(borrow));
            out.push(d2);
            borrow = b1 || b2;
        }
        let mut b = Self(out);
        b.trim();
        b
    }

    /// `(self / d, self % d)`; `d` must not be 0 (chips of a set never are).
    fn div_rem_small(&self, d: u64) -> (Self, u64) {
        let d = u128::from(d.max(1));
        let mut out = vec![0u64; self.0.len()];
        let mut rem = 0u128;
        for (i, &limb) in self.0.iter().enumerate().rev() {
            let cur = (rem << 64) | u128::from(limb);
            out[i] = low(cur / d);
            rem = cur % d;
        }
        let mut b = Self(out);
        b.trim();
        (b, low(rem))
    }
}

/// The low 64 bits.
fn low(x: u128) -> u64 {
    u64::try_from(x & u128::from(u64::MAX)).unwrap_or(0)
}

impl PartialOrd for Big {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Big {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0
            .len()
            .cmp(&other.0.len())
            .then_with(|| self.0.iter().rev().cmp(other.0.iter().rev()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    // The deals on bare cents and chips; `chip_chop` and `icm` only add the units, and
    // `deal` below goes through them.
    use super::{chip_chop_bare as chip_chop, icm_bare as icm};

    fn deal(kind: DealKind, prizes: &[u64], stacks: &[u64]) -> Result<Vec<u64>, DealError> {
        let prizes: Vec<Cents> = prizes.iter().copied().map(Cents::new).collect();
        let stacks: Vec<Chips> = stacks.iter().copied().map(Chips::new).collect();
        let shares = super::deal(kind, &prizes, &stacks)?;
        Ok(shares.into_iter().map(u64::from).collect())
    }
    use proptest::prelude::*;

    #[test]
    fn a_chip_chop_guarantees_the_last_prize_and_splits_the_rest_by_chips() {
        // Each gets 3rd place's 20.00; the other 40.00 goes 50:30:20.
        assert_eq!(
            chip_chop(&[5_000, 3_000, 2_000], &[50, 30, 20]).unwrap(),
            vec![4_000, 3_200, 2_800]
        );
        // Four left, three paid: no guaranteed minimum. 1 cent left over goes to the
        // biggest stack.
        assert_eq!(
            chip_chop(&[6_001, 3_000, 1_000], &[10, 30, 30, 30]).unwrap(),
            vec![1_000, 3_001, 3_000, 3_000]
        );
    }

    /// Stacks 50/30/20, prizes 50.00/30.00/20.00, worked by hand:
    /// A: P(1st) = 1/2; P(2nd) = 3/10 * 50/70 + 2/10 * 50/80 = 19/56; P(3rd) = 9/56;
    ///    equity = (5000 * 28 + 3000 * 19 + 2000 * 9) / 56 = 215000/56 = 3839 + 16/56.
    /// B: P(1st) = 3/10; P(2nd) = 1/2 * 30/50 + 2/10 * 30/80 = 3/8; P(3rd) = 13/40;
    ///    equity = 1500 + 1125 + 650 = 3275 exactly.
    /// C: P(1st) = 1/5; P(2nd) = 1/2 * 20/50 + 3/10 * 20/70 = 2/7; P(3rd) = 18/35;
    ///    equity = 1000 + 6000/7 + 36000/35 = 2885 + 25/35.
    /// Floors 3839 + 3275 + 2885 = 9999; the one cent left goes to C (largest fraction).
    #[test]
    fn icm_matches_a_three_player_example_worked_by_hand() {
        assert_eq!(
            icm(&[5_000, 3_000, 2_000], &[50, 30, 20]).unwrap(),
            vec![3_839, 3_275, 2_886]
        );
        // Heads-up, ICM is a chip chop of the difference: 70.00/30.00 with 3:1 chips.
        assert_eq!(
            icm(&[7_000, 3_000], &[300, 100]).unwrap(),
            vec![3_000 + 3_000, 3_000 + 1_000]
        );
    }

    #[test]
    fn deals_refuse_what_is_not_a_final_table() {
        assert_eq!(icm(&[100], &[]), Err(DealError::NoPlayers));
        assert_eq!(
            icm(&[10; 10], &[5; 10]),
            Err(DealError::TooManyPlayers {
                players: 10,
                max: ICM_MAX_PLAYERS
            })
        );
        assert_eq!(
            chip_chop(&[3, 2, 1], &[5, 5]),
            Err(DealError::MorePrizesThanPlayers {
                prizes: 3,
                players: 2
            })
        );
        assert_eq!(
            icm(&[3, 2], &[5, 0]),
            Err(DealError::EmptyStack { index: 1 })
        );
        assert_eq!(
            deal(DealKind::ChipChop, &[2, 3], &[5, 5]),
            Err(DealError::PrizesNotInOrder { place: 2 })
        );
    }

    #[test]
    fn icm_handles_nine_players_with_big_stacks() {
        let stacks = [
            9_000_000_000,
            7_000_000_001,
            5_000_000_000,
            5_000_000_000,
            3_000_000_007,
            2_000_000_000,
            1_000_000_000,
            500_000_000,
            1,
        ];
        let prizes = [
            10_000_000, 6_000_000, 4_000_000, 3_000_000, 2_500_000, 2_000_000, 1_500_000,
            1_000_000, 500_000,
        ];
        let shares = icm(&prizes, &stacks).unwrap();
        assert_eq!(shares.iter().sum::<u64>(), prizes.iter().sum::<u64>());
        assert!(shares.windows(2).all(|p| p[0] >= p[1]));
        assert!(shares[2].abs_diff(shares[3]) <= 1);
        // The one-chip player is barely above the ninth prize.
        assert!(shares[8] >= 500_000 && shares[8] < 500_100);
    }

    fn table() -> impl Strategy<Value = (Vec<u64>, Vec<u64>)> {
        (1usize..=ICM_MAX_PLAYERS).prop_flat_map(|n| {
            (
                proptest::collection::vec(0u64..1_000_000, 1..=n).prop_map(|mut p| {
                    p.sort_unstable_by(|a, b| b.cmp(a));
                    p
                }),
                proptest::collection::vec(1u64..100_000, n),
            )
        })
    }

    fn check(kind: DealKind, prizes: &[u64], stacks: &[u64]) -> Result<(), TestCaseError> {
        let shares = deal(kind, prizes, stacks).unwrap();
        prop_assert_eq!(shares.iter().sum::<u64>(), prizes.iter().sum::<u64>());
        let last = prizes.get(stacks.len() - 1).copied().unwrap_or(0);
        for i in 0..stacks.len() {
            prop_assert!(shares[i] >= last, "{:?}: {} below the last prize", kind, i);
            if kind == DealKind::Icm {
                // A chip chop can pay a big chip lead more than first place; ICM never.
                prop_assert!(shares[i] <= prizes[0], "{} above first prize", i);
            }
            for j in 0..stacks.len() {
                if stacks[i] == stacks[j] {
                    prop_assert!(shares[i].abs_diff(shares[j]) <= 1);
                }
                if stacks[i] > stacks[j] {
                    prop_assert!(shares[i] >= shares[j], "{:?}: {} < {}", kind, i, j);
                }
            }
        }
        Ok(())
    }

    proptest! {
        #[test]
        fn icm_pays_exactly_fairly_and_monotonically((prizes, stacks) in table()) {
            check(DealKind::Icm, &prizes, &stacks)?;
        }

        #[test]
        fn a_chip_chop_pays_exactly_fairly_and_monotonically((prizes, stacks) in table()) {
            check(DealKind::ChipChop, &prizes, &stacks)?;
        }

        #[test]
        fn icm_with_equal_stacks_splits_evenly(
            n in 1usize..=ICM_MAX_PLAYERS, chips in 1u64..1_000_000, money in 0u64..10_000_000,
        ) {
            let stacks = vec![chips; n];
            let shares = icm(&[money], &stacks).unwrap();
            let min = shares.iter().min().unwrap();
            let max = shares.iter().max().unwrap();
            prop_assert!(max - min <= 1);
            prop_assert_eq!(shares.iter().sum::<u64>(), money);
        }

        #[test]
        fn icm_does_not_depend_on_seat_order((prizes, stacks) in table()) {
            // Distinct stacks, so no odd cent is given by index.
            let mut stacks = stacks;
            stacks.sort_unstable();
            stacks.dedup();
            let prizes: Vec<u64> = prizes.into_iter().take(stacks.len()).collect();
            let forward = icm(&prizes, &stacks).unwrap();
            let reversed: Vec<u64> = stacks.iter().rev().copied().collect();
            let mut backward = icm(&prizes, &reversed).unwrap();
            backward.reverse();
            prop_assert_eq!(forward, backward);
        }
    }
}
