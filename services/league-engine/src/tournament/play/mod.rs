//! One tournament as an aggregate: `decide(&state, command)` and `apply(state, &event)` over
//! one stream holding everything about it, from the schedule to the payouts.
//!
//! # Model
//!
//! A [`Tournament`] is folded from [`TournamentEvent`]s. [`decide`] never mutates: it works
//! on a clone, applying each event as it emits it with the very [`apply`] that replay
//! uses, so what is decided and what is replayed cannot drift apart. After a command it
//! carries the tournament forward as far as the rules allow without a person: busted
//! players are eliminated (or offered a re-buy), announced re-buys are made, tables are
//! balanced and broken between hands, hand-for-hand starts and ends, and the tournament
//! finishes when one player is left.
//!
//! Hands (`dealt` and `recorded` tracking) run through [`crate::hand`]: each hand event is
//! wrapped in [`TournamentEvent::HandEvent`] with its table. In `results` tracking the host
//! records only eliminations, re-buys and chip counts.
//!
//! # Randomness
//!
//! Every draw (the seats and buttons at the start, a redraw, a late entrant's seat, a chip
//! race) reveals the seed committed to before it and commits to the next one: the schedule
//! carries the first commitment, and each command that draws carries the seed and the next
//! commitment. So the log always shows `sha256(seed)` before the draw it decides, and an
//! auditor re-derives every draw from the revealed seeds ([`super::draw`],
//! [`super::colour_up`]). Hands are dealt from their own per-hand seeds, as in
//! [`crate::hand`].
//!
//! # Places
//!
//! Places are kept as the order of eliminations: groups of players who went out together,
//! best first within a group. A player's place is one more than the number of players who
//! outlasted them, so places stay right while late entries grow the field. Players busted
//! in one hand-for-hand round share the places they span and split their prizes. A
//! re-entry takes the player's earlier elimination back: each player finishes once.
//!
//! # Chips
//!
//! Chips are conserved: what the players hold (plus, in `results` tracking, chips of
//! eliminated players not yet given to anyone) equals the chips issued by entries,
//! re-buys and add-ons, plus chips added by colour-ups, less chips removed by colour-ups,
//! disqualifications and removed absentees. [`Tournament::check_invariants`] says so after
//! every event in the tests.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use super::balance::{self, BalanceRule, Move};
use super::colour_up::{ColourUpError, ColourUpPolicy, Holding, colour_up};
use super::deal::{DealError, DealKind, deal};
use super::draw::{
    ButtonDraw, DrawError, derive_seed, draw_button, draw_seats, mix_entropy, pick, pool_entropy,
};
use super::payouts::{PayoutError, PayoutTable, pay_finish};
use super::pool::{HouseCut, PoolError, PoolRules, Price, PrizePool, Purchases};
use super::{Cents, Chips};
use crate::button::{Positions, next_positions};
use crate::card::Card;
use crate::deck::{Commitment, Seed};
use crate::eval::{self, HandValue};
use crate::hand::{
    self, Ante, AnteStructure, Command as HandCommand, Dealing, Event as HandEvent, HandSetup,
    HandState, MAX_SEATS, RuleError, Seat, SeatSetup,
};
use crate::rules::{HouseRules, Preset};
use crate::units::{HandId, VenueId};

mod clock;
mod commands;
mod corrections;
mod eliminations;
mod errors;
mod events;
mod fold;
mod hands;
mod money;
mod pending;
mod purchases;
mod registration;
mod run;
mod seating;
mod state;
mod types;
mod unsold;

pub use commands::*;
pub use errors::*;
pub use events::*;
pub use pending::Pending;
pub use registration::{MAX_CENTS, MAX_CHIPS, MAX_ENTRANTS, MAX_LEVELS, MAX_PURCHASES_PER_PLAYER};
pub use state::*;
pub use types::*;

use clock::time_window;
use eliminations::bust_rule;
use purchases::window;
use run::Run;
use seating::buttons;

/// The engine's one way into a tournament: check a command and say what happens, without
/// changing anything.
pub fn decide(
    state: &Tournament,
    command: &TournamentCommand,
) -> Result<Vec<TournamentEvent>, TournamentError> {
    let mut copy = state.clone();
    let mut run = Run {
        state: &mut copy,
        events: Vec::new(),
    };
    run.command(command)?;
    Ok(run.events)
}

/// What the engine decides, on `state`, for a recorded event an auditor re-derives: the
/// draws, each from the seed it reveals (the seats and buttons at the start,
/// `TournamentStarted`, and at a redraw, `SeatsRedrawn`; a late entrant's seat,
/// `PlayerEntered`; a colour-up with its chip race, `ChipsColouredUp`), and the money and
/// places (the payouts a host set, `PayoutsSet`; a deal, `DealMade`, from its kind and
/// players; the finish, `TournamentFinished`: every place and prize, from the eliminations,
/// the payout table or the payouts set, and any deal). The command is rebuilt from the
/// event; of what it decides, the first event of the recorded event's kind is returned.
/// `None` for any other event. `league audit verify` compares it with the recorded event.
pub fn rederive_outcome(
    state: &Tournament,
    recorded: &TournamentEvent,
) -> Option<Result<TournamentEvent, TournamentError>> {
    if !matches!(
        recorded,
        TournamentEvent::TournamentStarted { .. }
            | TournamentEvent::SeatsRedrawn { .. }
            | TournamentEvent::PlayerEntered { .. }
            | TournamentEvent::ChipsColouredUp { .. }
            | TournamentEvent::PayoutsSet { .. }
            | TournamentEvent::DealMade { .. }
            | TournamentEvent::TournamentFinished { .. }
    ) {
        return None;
    }
    let mut copy = state.clone();
    let mut run = Run {
        state: &mut copy,
        events: Vec::new(),
    };
    let decided = match recorded {
        TournamentEvent::TournamentStarted {
            at,
            seed,
            next_commitment,
            ..
        } => run.command(&TournamentCommand::Start {
            at: *at,
            seed: *seed,
            next_commitment: *next_commitment,
        }),
        TournamentEvent::SeatsRedrawn {
            seed,
            next_commitment,
            ..
        } => run.command(&TournamentCommand::Redraw {
            seed: *seed,
            next_commitment: *next_commitment,
        }),
        TournamentEvent::PlayerEntered {
            player,
            at,
            seed,
            next_commitment,
            ..
        } => run.command(&TournamentCommand::LateEntry {
            player: player.clone(),
            at: *at,
            seed: *seed,
            next_commitment: *next_commitment,
        }),
        TournamentEvent::ChipsColouredUp {
            seed,
            next_commitment,
            ..
        } => run.command(&TournamentCommand::ColourUp {
            seed: *seed,
            next_commitment: *next_commitment,
        }),
        TournamentEvent::PayoutsSet { amounts, .. } => run.set_payouts(amounts),
        TournamentEvent::DealMade { kind, players, .. } => run.deal(*kind, players),
        TournamentEvent::TournamentFinished { .. } => run.finish(),
        _ => return None,
    };
    let kind = std::mem::discriminant(recorded);
    Some(decided.and_then(|()| {
        run.events
            .into_iter()
            .find(|e| std::mem::discriminant(e) == kind)
            .ok_or(TournamentError::NothingDecided)
    }))
}

/// Fold one event into the state.
pub fn apply(state: &mut Tournament, event: &TournamentEvent) {
    state.apply(event);
}

fn level_no(index: usize) -> u32 {
    u32::try_from(index).map_or(u32::MAX, |i| i.saturating_add(1))
}

fn count(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

type Result<T, E = TournamentError> = std::result::Result<T, E>;
