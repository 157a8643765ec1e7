#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]
//! Entropy a host or player adds to the server's draws: pooled in the log, mixed into the
//! next draw's committed seed (`EntropyMixed` just before the draw's event), then gone; an
//! auditor re-derives the draw from the revealed seed and the pool.

#[path = "support/tour.rs"]
mod tour;

use league_engine::deck::Seed;
use league_engine::rules::Preset;
use league_engine::tournament::play::{
    Seating, TournamentCommand as Cmd, TournamentError as Err, TournamentEvent as Ev, Tracking,
};
use league_engine::tournament::{draw_seats, mix_entropy, pool_entropy};
use tour::{Game, id, schedule, secret};

fn add(byte: u8) -> Cmd {
    Cmd::AddEntropy {
        entropy: Seed::from_bytes([byte; 32]),
    }
}

/// The seats a start with `players` entrants at one table draws from `seed`.
fn seats_from(seed: &Seed, players: usize) -> Vec<Seating> {
    let entrants: Vec<_> = (1..=players).map(id).collect();
    let order: Vec<u8> = (0..9).collect();
    draw_seats(seed, &entrants, 1, &order)
        .unwrap()
        .into_iter()
        .map(|a| Seating {
            player: a.entrant,
            table: a.table + 1,
            seat: a.seat,
        })
        .collect()
}

fn started_seats(events: &[Ev]) -> Vec<Seating> {
    events
        .iter()
        .find_map(|e| match e {
            Ev::TournamentStarted { seats, .. } => Some(seats.clone()),
            _ => None,
        })
        .unwrap()
}

#[test]
fn entropy_added_before_the_start_is_mixed_into_the_seat_draw() {
    let mut g = Game::registered(schedule(Preset::QueenSix, Tracking::Results), 8);
    assert_eq!(
        g.when(add(7)),
        vec![Ev::EntropyAdded {
            entropy: Seed::from_bytes([7; 32])
        }]
    );
    g.when(add(9));
    let pool = pool_entropy(
        Some(&pool_entropy(None, &Seed::from_bytes([7; 32]))),
        &Seed::from_bytes([9; 32]),
    );
    let events = g.start();
    // The pool is named first, then the draw made from the mixed seed.
    assert_eq!(events[0], Ev::EntropyMixed { entropy: pool });
    assert!(matches!(events[1], Ev::TournamentStarted { .. }));
    let revealed = secret(1);
    assert_eq!(
        started_seats(&events),
        seats_from(&mix_entropy(&revealed, &pool), 8)
    );
    assert_ne!(
        started_seats(&events),
        seats_from(&revealed, 8),
        "the entropy changed the draw"
    );
    g.assert_replays();
}

#[test]
fn without_entropy_a_draw_is_made_from_the_revealed_seed_alone() {
    let mut g = Game::registered(schedule(Preset::QueenSix, Tracking::Results), 8);
    let events = g.start();
    assert!(events.iter().all(|e| !matches!(e, Ev::EntropyMixed { .. })));
    assert_eq!(started_seats(&events), seats_from(&secret(1), 8));
}

#[test]
fn a_draw_uses_up_the_pool() {
    let mut late = schedule(Preset::QueenSix, Tracking::Results);
    late.late_registration_until_level = 2;
    let mut g = Game::registered(late, 8);
    g.when(add(1));
    g.start();
    // A redraw called by nobody is refused, and the pool stays empty for the next draw.
    g.when(add(2));
    let pooled = pool_entropy(None, &Seed::from_bytes([2; 32]));
    let redraw = Cmd::Redraw {
        seed: secret(2),
        next_commitment: secret(3).commitment(),
    };
    assert_eq!(g.refused(redraw), Err::NoRedrawDue);
    // The late entry mixes only what was added since the start.
    let (seed, next_commitment) = g.reveal();
    let events = g.when(Cmd::LateEntry {
        player: id(9),
        at: g.clock,
        seed,
        next_commitment,
    });
    assert_eq!(events[0], Ev::EntropyMixed { entropy: pooled });
    g.assert_replays();
}

#[test]
fn entropy_is_refused_before_the_schedule() {
    let g = Game::fresh();
    assert_eq!(g.refused(add(1)), Err::NotScheduled);
}
