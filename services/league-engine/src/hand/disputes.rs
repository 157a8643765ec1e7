//! A pot in dispute: the floor impounds it pending a decision and releases it, rules a
//! mucked hand live again, and settles a player's request to see a mucked hand.
//!
//! A hand mucked at the showdown can be turned up only before its pot is awarded: while
//! other hands are still to show, or while the pot is impounded (the engine awards a pot
//! as soon as the last hand has shown or mucked, so a floor expecting a dispute impounds
//! first).

use std::borrow::Cow;

use super::*;

impl Run<'_> {
    pub(super) fn impound(&mut self, reason: &str) -> Result<(), RuleError> {
        let s = &self.state;
        if s.impounded {
            return Err(RuleError::AlreadyImpounded);
        }
        if !matches!(
            s.phase,
            Phase::Betting | Phase::RoundComplete | Phase::Showdown | Phase::Awarding
        ) {
            return Err(RuleError::NothingToImpound);
        }
        self.emit(Event::PotImpounded {
            reason: reason.to_owned(),
        });
        Ok(())
    }

    pub(super) fn release(&mut self, reason: &str) -> Result<(), RuleError> {
        if !self.state.impounded {
            return Err(RuleError::NotImpounded);
        }
        self.emit(Event::PotReleased {
            reason: reason.to_owned(),
        });
        Ok(())
    }

    /// The floor rules the hand mucked at `seat` live again (QueenSix dead hand 2: "a hand
    /// that is clearly identifiable may be retrieved and ruled live"; WPH RP 7.2, Oracle
    /// dead hands 1.6); the invitational discards a mucked hand (6).
    pub(super) fn retrieve(
        &mut self,
        seat: Seat,
        cards: Option<[Card; 2]>,
        reason: &str,
    ) -> Result<(), RuleError> {
        let p = self.state.mucked_at_the_showdown(seat)?;
        if self.state.rules()?.preset == Preset::Invitational {
            return Err(RuleError::MuckedHandsDiscarded);
        }
        let cards = self.state.tabled_cards(p, cards)?;
        self.emit(Event::HandRetrieved {
            seat,
            cards,
            reason: reason.to_owned(),
        });
        Ok(())
    }

    /// `asked_by` asks to see the hand mucked at `seat`: it is turned up, and live again
    /// where the house's rule says so ([`SeenHandRule`]).
    pub(super) fn see_hand(
        &mut self,
        seat: Seat,
        asked_by: Seat,
        cards: Option<[Card; 2]>,
    ) -> Result<(), RuleError> {
        let s = &self.state;
        let p = s.mucked_at_the_showdown(seat)?;
        let asker = s.position(asked_by)?;
        if asker == p {
            return Err(RuleError::MayNotAskToSee {
                seat: asked_by,
                why: "it is their own hand",
            });
        }
        let preset = s.rules()?.preset;
        let status = s.players[usize::from(asker)].status;
        match preset {
            // QueenSix showdown 5: "any player who has been dealt in and is participating
            // in the showdown"; Hippodrome showdown 4: who "willingly placed money into the
            // pot", read as a player who reached the showdown.
            Preset::QueenSix | Preset::Hippodrome if status == Status::Folded => {
                return Err(RuleError::MayNotAskToSee {
                    seat: asked_by,
                    why: "only a player in the showdown may ask to see a hand here",
                });
            }
            // WSOP (TDA): a player who no longer holds cards has no right to see a hand.
            Preset::Wsop if status != Status::Live => {
                return Err(RuleError::MayNotAskToSee {
                    seat: asked_by,
                    why: "only a player still holding a hand may ask to see one here",
                });
            }
            _ => {}
        }
        let rule = match preset {
            Preset::QueenSix | Preset::Hippodrome => SeenHandRule::WinnerMakesItLive,
            Preset::Oracle => SeenHandRule::OtherThanWinnerMakesItLive,
            Preset::Wph | Preset::Invitational | Preset::Wsop => SeenHandRule::ShownDead,
        };
        let live = match rule {
            SeenHandRule::ShownDead => false,
            SeenHandRule::WinnerMakesItLive => s.wins_now(asker)?,
            SeenHandRule::OtherThanWinnerMakesItLive => !s.wins_now(asker)?,
        };
        let cards = s.tabled_cards(p, cards)?;
        self.emit(Event::HandSeenOnRequest {
            seat,
            asked_by,
            cards,
            live,
            rule,
        });
        Ok(())
    }
}

impl HandState {
    /// The position of `seat`, whose hand was mucked at the showdown and not turned up
    /// since, while the pot is still to be awarded.
    fn mucked_at_the_showdown(&self, seat: Seat) -> Result<u8, RuleError> {
        let p = self.position(seat)?;
        if !matches!(self.phase, Phase::Showdown | Phase::Awarding) {
            return Err(RuleError::NotShowdown);
        }
        let player = &self.players[usize::from(p)];
        if player.status != Status::Mucked {
            return Err(RuleError::NotMucked { seat });
        }
        if player.shown {
            return Err(RuleError::HandTabled { seat });
        }
        Ok(p)
    }

    /// Whether the hand at position `p` wins a pot as the hands stand: the one hand left,
    /// or among the best of the hands still in, every one of them shown. A hand still in
    /// and not shown makes the winner unknown: reading the server's (or the host's) record
    /// of its cards would tell the table who is ahead before anyone shows.
    fn wins_now(&self, p: u8) -> Result<bool, RuleError> {
        if self.players[usize::from(p)].status != Status::Live {
            return Ok(false);
        }
        if self.live_count() == 1 {
            return Ok(true);
        }
        let mut values = [None; MAX_SEATS];
        for q in 0..self.n {
            let pl = &self.players[usize::from(q)];
            if pl.status == Status::Live {
                let Some(hole) = pl.hole.filter(|_| pl.shown) else {
                    return Err(RuleError::WinnerUnknown);
                };
                values[usize::from(q)] = HandState::value_on(hole, self.board());
            }
        }
        Ok(self
            .pots()
            .iter()
            .any(|pot| self.winners(pot, &values).0 & bit(p) != 0))
    }
}

/// The hand `events` as a hand history records it when the floor turned up a mucked hand
/// or impounded the pot: a hand ruled live again is shown where it was mucked, a hand
/// turned up but left dead stays mucked, and the impounding is left out (neither PHH nor
/// PokerStars text has a ruling for it; the pots are those the engine awarded).
pub(super) fn as_history(events: &[Event]) -> Cow<'_, [Event]> {
    let disputed = |e: &Event| {
        matches!(
            e,
            Event::PotImpounded { .. }
                | Event::PotReleased { .. }
                | Event::HandRetrieved { .. }
                | Event::HandSeenOnRequest { .. }
        )
    };
    if !events.iter().any(disputed) {
        return Cow::Borrowed(events);
    }
    let mut out: Vec<Event> = Vec::with_capacity(events.len());
    for event in events {
        match event {
            Event::HandRetrieved { seat, cards, .. }
            | Event::HandSeenOnRequest {
                seat,
                cards,
                live: true,
                ..
            } => {
                if let Some(muck) = out
                    .iter_mut()
                    .rev()
                    .find(|e| matches!(e, Event::HandMucked { seat: s } if s == seat))
                {
                    *muck = Event::HandShown {
                        seat: *seat,
                        cards: *cards,
                    };
                }
            }
            e if disputed(e) => {}
            e => out.push(e.clone()),
        }
    }
    Cow::Owned(out)
}
