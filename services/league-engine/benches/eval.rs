//! Seven-card evaluations per second, ours against `pokers` 0.10 in the same run.
//!
//! `pokers` is the fastest evaluator we found on crates.io (the same table design, with
//! `unsafe` unchecked indexing); the engine forbids `unsafe`, so this bench is what shows
//! that masked, power-of-two tables lose nothing. Two orders, because they stress
//! different things: enumeration order (every 7-card hand, last card varying fastest)
//! keeps the tables hot and lets both sides reuse the sum of the first six cards; random
//! hands make every lookup a likely L1 miss.
//!
//! Each side evaluates a fresh 7-card hand per iteration from its own card representation
//! (`[Card; 7]` for us; `pokers` sums its per-card `Hand`s), and the values are summed so
//! none is optimised away. Run with `cargo bench -p league-engine --bench eval`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use league_engine::card::Card;
use league_engine::eval::evaluate7;
use pokers::{CARDS, Hand};
use rand_chacha::ChaCha20Rng;
use rand_core::{Rng, SeedableRng};

const ALL_SEVEN_CARD_HANDS: u64 = 133_784_560;
const RANDOM_HANDS: usize = 1_000_000;

/// Our card from a loop index, the way `pokers` takes `CARDS[i]`; the fallback is dead
/// code the compiler removes, as every index here is below 52.
#[inline(always)]
fn card(index: u8) -> Card {
    Card::from_index(index).unwrap_or_else(|| unreachable!())
}

fn ours_in_enumeration_order() -> u64 {
    let mut sum = 0u64;
    for a in 0..52 {
        let ca = card(a);
        for b in a + 1..52 {
            let cb = card(b);
            for c in b + 1..52 {
                let cc = card(c);
                for d in c + 1..52 {
                    let cd = card(d);
                    for e in d + 1..52 {
                        let ce = card(e);
                        for f in e + 1..52 {
                            let cf = card(f);
                            for g in f + 1..52 {
                                let hand = [ca, cb, cc, cd, ce, cf, card(g)];
                                sum += u64::from(evaluate7(&hand).get());
                            }
                        }
                    }
                }
            }
        }
    }
    sum
}

#[expect(
    clippy::needless_range_loop,
    reason = "the same loops as ours, so both sides enumerate alike"
)]
fn pokers_in_enumeration_order() -> u64 {
    let mut sum = 0u64;
    for a in 0..52 {
        let ca = CARDS[a];
        for b in a + 1..52 {
            let cb = CARDS[b];
            for c in b + 1..52 {
                let cc = CARDS[c];
                for d in c + 1..52 {
                    let cd = CARDS[d];
                    for e in d + 1..52 {
                        let ce = CARDS[e];
                        for f in e + 1..52 {
                            let cf = CARDS[f];
                            for g in f + 1..52 {
                                let hand = Hand::default() + ca + cb + cc + cd + ce + cf + CARDS[g];
                                sum += u64::from(hand.evaluate());
                            }
                        }
                    }
                }
            }
        }
    }
    sum
}

fn ours_random(hands: &[[Card; 7]]) -> u64 {
    hands
        .iter()
        .map(|hand| u64::from(evaluate7(hand).get()))
        .sum()
}

fn pokers_random(hands: &[[u8; 7]]) -> u64 {
    hands
        .iter()
        .map(|hand| {
            let hand = hand
                .iter()
                .fold(Hand::default(), |h, &c| h + CARDS[usize::from(c)]);
            u64::from(hand.evaluate())
        })
        .sum()
}

/// The same random hands in both representations (card index `rank * 4 + suit` in both
/// crates; only the suit letters differ, which no evaluator cares about).
fn random_hands() -> (Vec<[Card; 7]>, Vec<[u8; 7]>) {
    let mut rng = ChaCha20Rng::from_seed([42; 32]);
    let mut deck: Vec<Card> = Card::all().collect();
    let ours: Vec<[Card; 7]> = (0..RANDOM_HANDS)
        .map(|_| {
            for i in 0..7 {
                let left = u32::try_from(deck.len() - i).unwrap_or(1);
                let j = i + usize::try_from(rng.next_u32() % left).unwrap_or(0);
                deck.swap(i, j);
            }
            let mut hand = [deck[0]; 7];
            hand.copy_from_slice(&deck[..7]);
            hand
        })
        .collect();
    let theirs = ours.iter().map(|h| h.map(Card::index)).collect();
    (ours, theirs)
}

fn check_both_order_hands_alike(ours: &[[Card; 7]], theirs: &[[u8; 7]]) {
    let values: Vec<(u16, u16)> = ours
        .iter()
        .zip(theirs)
        .take(20_000)
        .map(|(o, t)| {
            let t = t
                .iter()
                .fold(Hand::default(), |h, &c| h + CARDS[usize::from(c)]);
            (evaluate7(o).get(), t.evaluate())
        })
        .collect();
    for pair in values.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        assert_eq!(a.0.cmp(&b.0), a.1.cmp(&b.1), "the evaluators disagree");
    }
}

fn seven_card_evaluation(c: &mut Criterion) {
    let (ours, theirs) = random_hands();
    check_both_order_hands_alike(&ours, &theirs);

    let mut group = c.benchmark_group("enumeration order, all 133,784,560 hands");
    group
        .throughput(Throughput::Elements(ALL_SEVEN_CARD_HANDS))
        .sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5));
    group.bench_function("league-engine", |b| b.iter(ours_in_enumeration_order));
    group.bench_function("pokers 0.10", |b| b.iter(pokers_in_enumeration_order));
    group.finish();

    let mut group = c.benchmark_group("random order, 1,000,000 hands");
    group
        .throughput(Throughput::Elements(
            u64::try_from(RANDOM_HANDS).unwrap_or(0),
        ))
        .sample_size(30)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5));
    group.bench_function("league-engine", |b| {
        b.iter(|| ours_random(black_box(&ours)))
    });
    group.bench_function("pokers 0.10", |b| {
        b.iter(|| pokers_random(black_box(&theirs)))
    });
    group.finish();
}

criterion_group!(benches, seven_card_evaluation);
criterion_main!(benches);
