//! Seven-card evaluations per second, ours against `pokers` 0.10 in the same run.
//!
//! `pokers` is the fastest evaluator we found on crates.io (the same table design, with
//! `unsafe` unchecked indexing); the engine forbids `unsafe`, so this bench is what shows
//! what tables indexed in bounds by their types (shifted keys, power-of-two sizes) cost.
//! Two orders, because they stress different things: enumeration order (every 7-card
//! hand, last card varying fastest) keeps the tables hot, and both sides add the cards one
//! at a time with their own incremental hand type (our `Cards`, their `Hand`), each card
//! taken from a per-card table made once (our `[CardStep; 52]`, their `CARDS`), so the sum
//! of the first six is computed once; random hands make every lookup a likely L1 miss, and
//! each side evaluates a fresh 7-card array (`evaluate7(&[Card; 7])` for us; `pokers`
//! sums its per-card `Hand`s).
//!
//! The values are summed so none is optimised away. Run with
//! `cargo bench -p league-engine --bench eval`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, SamplingMode, Throughput, criterion_group};
use league_engine::card::Card;
use league_engine::eval::{CardStep, Cards, evaluate7};
use pokers::{CARDS, Hand};
use rand_chacha::ChaCha20Rng;
use rand_core::{Rng, SeedableRng};

const ALL_SEVEN_CARD_HANDS: u64 = 133_784_560;
const RANDOM_HANDS: usize = 1_000_000;

/// Our card from a loop index, the way `pokers` takes `CARDS[i]`; the fallback is dead
/// code the compiler removes, as every index here is below 52.
#[inline(always)]
fn card(index: usize) -> Card {
    u8::try_from(index)
        .ok()
        .and_then(Card::from_index)
        .unwrap_or_else(|| unreachable!())
}

#[expect(
    clippy::needless_range_loop,
    reason = "the same loops as pokers', so both sides enumerate alike"
)]
fn ours_in_enumeration_order() -> u64 {
    // Each card's step looked up once, as `pokers` keeps its `CARDS`.
    let steps: [CardStep; 52] = std::array::from_fn(|i| CardStep::of(card(i)));
    let mut sum = 0u64;
    for a in 0..52 {
        let ca = Cards::EMPTY.plus(steps[a]);
        for b in a + 1..52 {
            let cb = ca.plus(steps[b]);
            for c in b + 1..52 {
                let cc = cb.plus(steps[c]);
                for d in c + 1..52 {
                    let cd = cc.plus(steps[d]);
                    for e in d + 1..52 {
                        let ce = cd.plus(steps[e]);
                        for f in e + 1..52 {
                            let cf = ce.plus(steps[f]);
                            for g in f + 1..52 {
                                sum += u64::from(cf.plus(steps[g]).value7().get());
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
        let ca = Hand::default() + CARDS[a];
        for b in a + 1..52 {
            let cb = ca + CARDS[b];
            for c in b + 1..52 {
                let cc = cb + CARDS[c];
                for d in c + 1..52 {
                    let cd = cc + CARDS[d];
                    for e in d + 1..52 {
                        let ce = cd + CARDS[e];
                        for f in e + 1..52 {
                            let cf = ce + CARDS[f];
                            for g in f + 1..52 {
                                sum += u64::from((cf + CARDS[g]).evaluate());
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

/// `EVAL_PAIRED_ROUNDS=N cargo bench -p league-engine --bench eval`: instead of criterion's
/// long separate windows (over which this shared machine's speed drifts by 20% and more),
/// N rounds that each time one pass of ours and one of `pokers` back to back, in both
/// orders, and the median of the per-round ratios.
fn paired_rounds(rounds: usize) {
    fn time<T>(f: impl Fn() -> T) -> f64 {
        let start = std::time::Instant::now();
        black_box(f());
        start.elapsed().as_secs_f64()
    }
    fn median(mut v: Vec<f64>) -> f64 {
        v.sort_by(f64::total_cmp);
        v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
    }
    let (ours, theirs) = random_hands();
    check_both_order_hands_alike(&ours, &theirs);
    let all = 133.784_56;
    let (mut enumeration, mut random) = (Vec::new(), Vec::new());
    for round in 1..=rounds {
        let o = time(ours_in_enumeration_order);
        let p = time(pokers_in_enumeration_order);
        let ro = time(|| (0..20).map(|_| ours_random(black_box(&ours))).sum::<u64>());
        let rp = time(|| {
            (0..20)
                .map(|_| pokers_random(black_box(&theirs)))
                .sum::<u64>()
        });
        println!(
            "round {round}: enumeration {:.0} vs {:.0} M/s ({:.3}x); random {:.0} vs {:.0} M/s ({:.3}x)",
            all / o,
            all / p,
            p / o,
            20.0 / ro,
            20.0 / rp,
            rp / ro
        );
        enumeration.push(p / o);
        random.push(rp / ro);
    }
    println!(
        "median ratio, ours to pokers: enumeration order {:.3}x, random order {:.3}x",
        median(enumeration),
        median(random)
    );
}

fn main() {
    match std::env::var("EVAL_PAIRED_ROUNDS").map(|n| n.parse::<usize>()) {
        Ok(Ok(rounds)) => paired_rounds(rounds),
        _ => benches(),
    }
}
