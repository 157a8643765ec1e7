//! One hand of No-Limit Hold'em as `decide(&state, command)` and `apply(state, &event)`.
//!
//! # Model
//!
//! Players are held by *position*: position 0 is the first occupied seat clockwise from
//! the button, the last position is the button itself (heads-up: position 0 is the big
//! blind and position 1 the button, which posts the small blind). This is the order the
//! PHH format and PokerKit use (`p1` .. `pN`), the order in which odd chips and showdowns
//! go round the table, and it makes the betting queue a walk round an array. Events name
//! table seats, never positions.
//!
//! `decide` never mutates: it works on a copy of the state, applying each event it emits
//! with the very `apply` that replay uses, so what is decided and what is replayed cannot
//! drift apart. After a command it runs the hand forward as far as the rules allow without
//! a person: absent players are folded, uncalled bets are returned, the board is dealt
//! (seeded dealing), all-in hands are turned up, pots are awarded.
//!
//! # Chips
//!
//! Antes are dead money and go to the main pot (PHH `ante_trimming_status = false`);
//! blinds and straddles are live bets. A short blind or ante puts the player all-in for
//! what they have; the minimum bet and raise stay at the full big blind. Uncalled bets go
//! back before pots are built; pots are built level by level from what each player put
//! in, each awarded separately (side pots first) among the players still holding cards.
//!
//! # Invariants (checked by [`HandState::check_invariants`] in the tests after every event)
//!
//! - chips are conserved: stacks + everything put in = the starting stacks;
//! - no stack is negative (chips are `u64`, and every subtraction is checked);
//! - while betting, exactly one seat is to act; between streets or once over, none.

use serde::{Deserialize, Serialize};

use crate::card::Card;
use crate::deck::{Commitment, Deck, Seed};
use crate::eval::{self, HandValue};
use crate::rules::{
    HouseRules, LastHand, MisdealCutoff, OddChip, OutOfTurn, Preset, ShortAllIn, ShortAllInBet,
    ShowdownOrder, StraddleRaise, UndersizedRaise,
};

mod betting;
mod commands;
mod dealing;
mod disputes;
mod errors;
mod events;
mod fold;
mod pots;
mod rederive;
mod rulings;
mod run;
mod showdown;
mod state;
mod turns;
mod types;

pub use commands::*;
pub use errors::*;
pub use events::*;
pub use pots::Pot;
pub use rederive::{Mismatch, rederive};
pub use state::*;
pub use turns::in_turn_order;
pub use types::*;

use run::Run;

/// The engine's one way into a hand: check a command against the state and say what
/// happens, without changing anything.
pub fn decide(state: &HandState, command: &Command) -> Result<Vec<Event>, RuleError> {
    let mut copy = *state;
    let mut events = Vec::new();
    run(&mut copy, command, &mut events)?;
    Ok(events)
}

/// Decides and applies in one step: appends the events to `events` and moves the state on.
/// This is `decide` followed by `apply` of each event (the decision applies each event as
/// it emits it), without the second pass: replay loops and the simulator use it. On a
/// refusal nothing changes and nothing is appended.
pub fn execute(
    state: &mut HandState,
    command: &Command,
    events: &mut Vec<Event>,
) -> Result<(), RuleError> {
    let backup = *state;
    let result = run(state, command, events);
    if result.is_err() {
        *state = backup;
    }
    result
}

/// Runs a command on `state` in place. On a refusal the events it emitted are taken back;
/// the caller restores the state (commands check before they emit, so this is a guard).
fn run(state: &mut HandState, command: &Command, events: &mut Vec<Event>) -> Result<(), RuleError> {
    let start = events.len();
    let mut run = Run { state, events };
    if let Err(error) = run.command(command) {
        run.events.truncate(start);
        return Err(error);
    }
    run.progress();
    Ok(())
}

/// Fold one event into the state. Events are trusted: they were decided (or are being
/// replayed from a verified log).
pub fn apply(state: &mut HandState, event: &Event) {
    state.apply(event);
}
