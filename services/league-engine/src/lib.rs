//! The pure rules of the league.
//!
//! # Layout
//!
//! - [`card`]: cards, ranks, suits (`"Ah"` round-trips through `FromStr`/`Display`).
//! - [`deck`]: a 52-card deck ordered from a 32-byte seed (ChaCha20 Fisher-Yates) and the
//!   seed's `sha256` commitment.
//! - [`eval`]: the seven-card hand evaluator.
//! - [`rules`]: `HouseRules`, the options where the houses differ, and their presets.
//! - [`cash`]: a cash table (ring game): buy-ins, top-ups, sitting out, missed blinds,
//!   straddles, session fees, the waiting list, and its hands on the same hand engine.
//! - [`button`]: where the button and blinds go between hands (moving, dead, heads-up).
//! - [`hand`]: one hand of No-Limit Hold'em as `decide(&state, command)` and
//!   `apply(state, &event)` (and `execute`, both in one pass, for replay loops).
//! - [`phh`]: the Poker Hand History format: parse, replay through the engine, write.
//! - [`pokerstars`]: PokerStars-style hand-history text of a hand the engine played, for
//!   tracking software.
//! - [`points`]: league points formulas in The Tournament Director's syntax, checked when
//!   set.
//! - [`standings`]: best-N season and venue standings with published tie-breaks.
//! - [`league`]: the league aggregate: venues and regions, seasons with versioned points
//!   formulas (re-scoring, old versions still queryable), players and reversible merges,
//!   recorded tournament results, and the standings read from them.
//! - [`sim`]: seeded random hands through the engine (simulation, tests, benchmarks).
//! - [`units`]: [`Chips`](units::Chips), [`Cents`](units::Cents),
//!   [`Centipoints`](units::Centipoints) and [`PlayerId`](units::PlayerId), newtypes that
//!   cannot be mixed up, with checked arithmetic.
//! - [`tournament`]: the first bricks of tournaments: prize pool, payouts by place, ties,
//!   deals (chip chop, ICM) in integer cents; the seat and button draws and the chip race
//!   from committed seeds; colour-ups.
//!
//! # Invariants
//!
//! Nothing here does IO, reads a clock or draws OS randomness: whatever the engine needs
//! from the world (a seed, a deck order, the time) comes in a command and is recorded in an
//! event, so replaying the same events gives the same state, chip for chip. Chips are
//! integers ([`units::Chips`]); there are no floats anywhere.

pub mod button;
pub mod card;
pub mod cash;
pub mod deck;
pub mod eval;
pub mod hand;
pub mod league;
pub mod phh;
pub mod points;
pub mod pokerstars;
pub mod rules;
#[cfg(feature = "schema")]
mod schema;
pub mod sim;
pub mod standings;
pub mod tournament;
pub mod units;
