//! Re-deriving a recorded hand: the commands its events record (the start with its seed,
//! the cards a host recorded, each action, show and muck) are decided again by the engine,
//! and what it decides must be, event for event, what the log holds: every dealt card
//! (from the revealed seed, checked against the commitment made before the hand), every
//! forced bet, every pot, side pot, odd chip, returned bet and final stack.

use super::*;

/// Where a recorded hand and the engine part.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("event {index} of the hand: {reason}")]
pub struct Mismatch {
    /// The index of the first event that differs, in the hand's events.
    pub index: usize,
    pub reason: String,
    /// The event the log holds there (`None`: the log's hand ends there).
    pub recorded: Option<Box<Event>>,
    /// The event the engine decides there (`None`: it decides nothing more).
    pub decided: Option<Box<Event>>,
}

/// Decides the hand `recorded` again from the commands its events record; `Ok` when every
/// event the engine decides is the one recorded, in order, and nothing is left over.
pub fn rederive(recorded: &[Event]) -> Result<(), Mismatch> {
    commands(recorded).map(|_| ())
}

/// The commands the hand `recorded` records, in order, each with the index of the first
/// event it decides: each decided again and found to decide the events that follow it in
/// the log ([`rederive`]).
fn commands(recorded: &[Event]) -> Result<Vec<(usize, Command)>, Mismatch> {
    let mismatch = |index: usize, reason: &str| Mismatch {
        index,
        reason: reason.to_owned(),
        recorded: recorded.get(index).cloned().map(Box::new),
        decided: None,
    };
    let Some(Event::HandStarted { setup }) = recorded.first() else {
        return Err(mismatch(0, "a hand starts with HandStarted"));
    };
    let seeded = matches!(setup.dealing, Dealing::Seeded { .. });
    let mut state = HandState::new();
    let mut commands = Vec::new();
    let mut i = 0;
    while i < recorded.len() {
        let command = match &recorded[i] {
            Event::HandStarted { setup } => Command::Start {
                setup: (**setup).clone(),
                seed: match recorded.get(i + 1) {
                    Some(Event::DeckSealed { seed }) => Some(*seed),
                    _ => None,
                },
            },
            Event::HoleCardsDealt { seat, cards } if !seeded => Command::DealHole {
                seat: *seat,
                cards: *cards,
            },
            Event::BoardDealt { cards, .. } if !seeded => Command::DealBoard {
                cards: cards.clone(),
            },
            Event::PlayerFolded {
                seat,
                reason: FoldReason::Folded,
            } => act(*seat, Action::Fold),
            Event::PlayerFolded {
                seat,
                reason: FoldReason::ClockExpired,
            } => Command::ClockExpired { seat: *seat },
            Event::PlayerChecked { seat } => act(*seat, Action::Check),
            Event::PlayerCalled { seat, .. } => act(*seat, Action::Call),
            Event::PlayerBet { seat, to, .. } => act(*seat, Action::Bet(*to)),
            Event::PlayerRaised {
                seat, to, declared, ..
            } => act(*seat, Action::RaiseTo(declared.unwrap_or(*to))),
            Event::RaiseTreatedAsCall { seat, declared, .. } => {
                act(*seat, Action::RaiseTo(*declared))
            }
            Event::HandShown { seat, cards } => Command::Show {
                seat: *seat,
                cards: (!seeded).then_some(*cards),
            },
            Event::HandMucked { seat } => Command::Muck { seat: *seat },
            Event::RunTwiceChosen { seat, agree } => Command::RunTwice {
                seat: *seat,
                agree: *agree,
            },
            Event::ActedOutOfTurn { seat, action, .. } => Command::OutOfTurn {
                seat: *seat,
                action: *action,
            },
            Event::HandKilled {
                seat,
                cause,
                reason,
            } => Command::Kill {
                seat: *seat,
                cause: *cause,
                reason: reason.clone(),
            },
            Event::PotImpounded { reason } => Command::Impound {
                reason: reason.clone(),
            },
            Event::PotReleased { reason } => Command::Release {
                reason: reason.clone(),
            },
            Event::HandRetrieved {
                seat,
                cards,
                reason,
            } => Command::Retrieve {
                seat: *seat,
                cards: (!seeded).then_some(*cards),
                reason: reason.clone(),
            },
            Event::HandSeenOnRequest {
                seat,
                asked_by,
                cards,
                ..
            } => Command::SeeHand {
                seat: *seat,
                asked_by: *asked_by,
                cards: (!seeded).then_some(*cards),
            },
            Event::CallRetracted { seat, reason, .. } => Command::RetractCall {
                seat: *seat,
                reason: reason.clone(),
            },
            Event::AggressionForfeited { seat, reason } => Command::ForfeitAggression {
                seat: *seat,
                reason: reason.clone(),
            },
            Event::HandVoided { reason, .. } => Command::Void {
                reason: reason.clone(),
            },
            _ => {
                return Err(mismatch(
                    i,
                    "the log holds an event the engine did not decide here",
                ));
            }
        };
        let decided = decide(&state, &command).map_err(|e| {
            mismatch(
                i,
                &format!("the engine refuses the command this event records: {e}"),
            )
        })?;
        for (k, event) in decided.iter().enumerate() {
            if recorded.get(i + k) != Some(event) {
                return Err(Mismatch {
                    decided: Some(Box::new(event.clone())),
                    ..mismatch(i + k, "the engine decides another event")
                });
            }
            apply(&mut state, event);
        }
        if decided.is_empty() {
            return Err(mismatch(
                i,
                "the command this event records decides nothing",
            ));
        }
        commands.push((i, command));
        i += decided.len();
    }
    Ok(commands)
}

/// The hand `events` with each call the floor ruled not binding made a fold where it was
/// made, as a hand history records it (neither PHH nor PokerStars text takes a call back):
/// the hand is decided again from its commands with that fold, the same cards dealt and
/// every other action as it was; an action the fold left with nothing to do (a show once
/// one hand is left) is dropped. An error when the hand then ends with other stacks than
/// the log's: no hand history can say that.
pub(super) fn retracted_as_folds(events: &[Event]) -> Result<Vec<Event>, String> {
    let mut commands = commands(events).map_err(|m| m.to_string())?;
    let mut i = 0;
    while i < commands.len() {
        let (at, Command::RetractCall { seat, .. }) = commands[i] else {
            i += 1;
            continue;
        };
        // The player's own action that put the call in (a call, or a raise too small to
        // be one), not a call a ruling forced.
        let called = events[..at]
            .iter()
            .rposition(|e| matches!(e, Event::PlayerCalled { seat: s, .. } if *s == seat));
        let by = called.and_then(|e| commands[..i].iter().rposition(|(from, _)| *from <= e));
        let Some(by) = by.filter(|&c| {
            matches!(
                commands[c].1,
                Command::Act { seat: s, action: Action::Call | Action::RaiseTo(_) } if s == seat
            )
        }) else {
            return Err(
                "the call retracted was no action of the player's: no hand history records it"
                    .into(),
            );
        };
        commands[by].1 = act(seat, Action::Fold);
        commands.remove(i);
    }
    let mut state = HandState::new();
    let mut out = Vec::with_capacity(events.len());
    for (_, command) in &commands {
        // Refused: the fold left the command nothing to do.
        let _ = execute(&mut state, command, &mut out);
    }
    let stacks = |events: &[Event]| {
        events.iter().rev().find_map(|e| match e {
            Event::HandEnded { stacks, .. } => Some(stacks.clone()),
            _ => None,
        })
    };
    if state.phase != Phase::Complete || stacks(&out) != stacks(events) {
        return Err(
            "with the retracted call made a fold the hand ends otherwise: no hand history \
             records it"
                .into(),
        );
    }
    Ok(out)
}

fn act(seat: Seat, action: Action) -> Command {
    Command::Act { seat, action }
}
