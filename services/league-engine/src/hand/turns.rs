//! A killed hand as a hand history records it. PHH and PokerStars text have no ruling
//! that kills a hand out of its turn: a hand history folds it at its next turn (a fold
//! that changes nothing, the hand being dead already) and mucks it if the showdown comes
//! to it. PokerKit plays the hand's other actions as the engine did.

use std::borrow::Cow;

use super::*;

/// The hand `events` (a call ruled not binding made a fold where it was made, then
/// [`as_history`](super::disputes): a mucked hand ruled live again is shown where it was
/// mucked) with each `HandKilled` taken out and the killed hand folded at its
/// next turn (or mucked at the showdown), as PokerKit would be asked for them; a player a
/// killed hand leaves alone with chips checks the betting round the engine no longer
/// opened. Unchanged when nothing was killed. An error when a killed hand has no turn
/// left before the hand ends (killed after its last action, the pot won by the one hand
/// left): no hand history can say that.
pub fn in_turn_order(events: &[Event]) -> Result<Cow<'_, [Event]>, String> {
    if events
        .iter()
        .any(|e| matches!(e, Event::CallRetracted { .. }))
    {
        let folded = super::rederive::retracted_as_folds(events)?;
        return in_turn_order(&folded).map(|e| Cow::Owned(e.into_owned()));
    }
    let events = super::disputes::as_history(events);
    if !events.iter().any(|e| matches!(e, Event::HandKilled { .. })) {
        return Ok(events);
    }
    killed_in_turn_order(&events).map(Cow::Owned)
}

/// [`in_turn_order`] of a hand in which the floor killed a hand.
fn killed_in_turn_order(events: &[Event]) -> Result<Vec<Event>, String> {
    let mut shadow = HandState::new();
    let mut out: Vec<Event> = Vec::with_capacity(events.len() + 4);
    let mut dead = 0u16;
    // Hands turned face up for an all-in run-out: PokerKit turns them up once its betting
    // is over, which a killed hand still to fold there may delay.
    let mut face_up: Vec<Event> = Vec::new();
    for event in events {
        match event {
            Event::HandKilled { seat, .. } => {
                dead |= bit(shadow.position(*seat).map_err(|e| e.to_string())?);
                continue;
            }
            Event::HandShown { .. } if shadow.phase != Phase::Showdown => {
                face_up.push(event.clone());
                shadow.catch_up(dead, false, &mut face_up, &mut out);
                continue;
            }
            _ => {}
        }
        let closes = matches!(
            event,
            Event::BoardDealt { .. }
                | Event::ShowdownStarted { .. }
                | Event::HandShown { .. }
                | Event::HandMucked { .. }
                | Event::UncalledBetReturned { .. }
                | Event::PotAwarded { .. }
                | Event::HandEnded { .. }
                | Event::RunTwiceChosen { .. }
                | Event::BoardRunAgain { .. }
        );
        shadow.catch_up(dead, closes, &mut face_up, &mut out);
        if matches!(event, Event::PotAwarded { .. }) && shadow.killed_side_pot(dead) {
            return Err(
                "the hands killed left a side pot no hand still in had reached: \
                 PokerKit cannot award it, so no hand history records it"
                    .into(),
            );
        }
        let event = match event {
            Event::ShowdownStarted { .. } => Event::ShowdownStarted {
                order: shadow
                    .showdown_order()
                    .iter()
                    .map(|&p| shadow.seat_of(p))
                    .collect(),
            },
            _ => event.clone(),
        };
        shadow.apply(&event);
        out.push(event);
    }
    let unplayed = positions(dead)
        .filter(|&p| shadow.players[usize::from(p)].status == Status::Live)
        .map(|p| shadow.seat_of(p).to_string())
        .collect::<Vec<_>>();
    if !unplayed.is_empty() || !face_up.is_empty() || shadow.phase != Phase::Complete {
        let which = match unplayed.len() {
            0 => "a hand killed".to_owned(),
            1 => format!("the hand killed at seat {}", unplayed[0]),
            _ => format!("the hands killed at seats {}", unplayed.join(", ")),
        };
        return Err(format!(
            "{which} had no turn left to fold: no hand history records a hand killed after \
             its last action"
        ));
    }
    Ok(out)
}

impl HandState {
    /// Records what a hand history holds before the engine's next event: the turns of
    /// killed hands (and of a player they leave alone), then the hands waiting to be turned
    /// face up, in PokerKit's order, once the betting is over (a killed hand mucks there).
    fn catch_up(
        &mut self,
        dead: u16,
        closes: bool,
        face_up: &mut Vec<Event>,
        out: &mut Vec<Event>,
    ) {
        loop {
            let next = match self.turn_of_dead_hand(dead, closes) {
                Some(turn) => Some(turn),
                None if !face_up.is_empty() => match self.next_face_up() {
                    Some(p) if dead & bit(p) != 0 => Some(Event::HandMucked {
                        seat: self.seat_of(p),
                    }),
                    Some(p) => {
                        let seat = self.seat_of(p);
                        face_up
                            .iter()
                            .position(
                                |e| matches!(e, Event::HandShown { seat: s, .. } if *s == seat),
                            )
                            .map(|i| face_up.remove(i))
                    }
                    None => None,
                },
                None => None,
            };
            let Some(event) = next else { return };
            self.apply(&event);
            out.push(event);
        }
    }

    /// Whether killed hands put in more than every hand still in: PokerKit, whose players
    /// with chips all folded there, finds a pot nobody contests and stops.
    fn killed_side_pot(&self, dead: u16) -> bool {
        let put_in = |p: u8| self.players[usize::from(p)].put_in;
        let live = (0..self.n)
            .filter(|&p| self.players[usize::from(p)].status == Status::Live)
            .map(put_in)
            .max()
            .unwrap_or(0);
        positions(dead).any(|p| p < self.n && put_in(p) > live)
    }

    /// The action a hand history records next before the engine's next event: the
    /// killed hand to act folds, or mucks at the showdown; before the engine closes the
    /// round, a player PokerKit still asks to act, facing no bet, checks.
    fn turn_of_dead_hand(&self, dead: u16, closes: bool) -> Option<Event> {
        match self.phase {
            Phase::Betting => {
                let p = self.to_act?;
                let player = self.players[usize::from(p)];
                if dead & bit(p) != 0 {
                    Some(Event::PlayerFolded {
                        seat: player.seat,
                        reason: FoldReason::Folded,
                    })
                } else if closes && player.bet >= self.current_bet {
                    Some(Event::PlayerChecked { seat: player.seat })
                } else {
                    None
                }
            }
            Phase::Showdown => {
                let p = self.showdown_turn()?;
                (dead & bit(p) != 0).then(|| Event::HandMucked {
                    seat: self.seat_of(p),
                })
            }
            _ => None,
        }
    }
}
