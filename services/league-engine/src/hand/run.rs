//! Deciding: the run over a copy of the state, the dispatch of each command, starting a
//! hand, and carrying it forward as far as the rules allow without a person.

use super::*;

pub(super) struct Run<'a> {
    pub(super) state: &'a mut HandState,
    pub(super) events: &'a mut Vec<Event>,
}

impl Run<'_> {
    pub(super) fn emit(&mut self, event: Event) {
        self.state.apply(&event);
        self.events.push(event);
    }

    pub(super) fn command(&mut self, command: &Command) -> Result<(), RuleError> {
        let s = &self.state;
        match (s.phase, command) {
            (Phase::NotStarted, Command::Start { setup, seed }) => self.start(setup, seed.as_ref()),
            (Phase::NotStarted, _) => Err(RuleError::NotStarted),
            (_, Command::Start { .. }) => Err(RuleError::AlreadyStarted),
            (Phase::Complete | Phase::Voided, _) => Err(RuleError::HandOver),
            (_, Command::Void { reason }) => self.void(reason),
            (_, Command::DealHole { seat, cards }) => self.deal_hole(*seat, *cards),
            (_, Command::Act { seat, action }) => self.act(*seat, *action),
            (_, Command::OutOfTurn { seat, action }) => self.out_of_turn(*seat, *action),
            (_, Command::ClockExpired { seat }) => {
                self.state.expect_turn(*seat)?;
                self.emit(Event::PlayerFolded {
                    seat: *seat,
                    reason: FoldReason::ClockExpired,
                });
                Ok(())
            }
            (
                _,
                Command::Kill {
                    seat,
                    cause,
                    reason,
                },
            ) => self.kill(*seat, *cause, reason),
            (_, Command::DealBoard { cards }) => self.deal_board(cards),
            (_, Command::Show { seat, cards }) => self.show(*seat, *cards),
            (_, Command::Muck { seat }) => self.muck(*seat),
            (_, Command::RunTwice { seat, agree }) => self.run_twice(*seat, *agree),
            (_, Command::RetractCall { seat, reason }) => self.retract_call(*seat, reason),
            (_, Command::ForfeitAggression { seat, reason }) => {
                self.forfeit_aggression(*seat, reason)
            }
            (_, Command::Impound { reason }) => self.impound(reason),
            (_, Command::Release { reason }) => self.release(reason),
            (
                _,
                Command::Retrieve {
                    seat,
                    cards,
                    reason,
                },
            ) => self.retrieve(*seat, *cards, reason),
            (
                _,
                Command::SeeHand {
                    seat,
                    asked_by,
                    cards,
                },
            ) => self.see_hand(*seat, *asked_by, *cards),
        }
    }

    fn run_twice(&mut self, seat: Seat, agree: bool) -> Result<(), RuleError> {
        let s = &self.state;
        if !s.offers_run_twice() {
            return Err(RuleError::RunTwiceNotOffered);
        }
        let p = s.position(seat)?;
        if s.players[usize::from(p)].status != Status::Live {
            return Err(RuleError::RunTwiceNotOffered);
        }
        if s.run_answers & bit(p) != 0 {
            return Err(RuleError::AlreadyChosen { seat });
        }
        self.emit(Event::RunTwiceChosen { seat, agree });
        Ok(())
    }

    pub(super) fn start(
        &mut self,
        setup: &HandSetup,
        seed: Option<&Seed>,
    ) -> Result<(), RuleError> {
        validate_setup(setup)?;
        let deck = match setup.dealing {
            Dealing::Seeded { commitment } => match seed {
                Some(seed) if commitment.verifies(seed) => Some(seed),
                _ => return Err(RuleError::BadSeed),
            },
            Dealing::Recorded => None,
        };
        self.emit(Event::HandStarted {
            setup: Box::new(setup.clone()),
        });
        if let Some(seed) = deck {
            self.emit(Event::DeckSealed { seed: *seed });
        }
        // Antes first, then blinds (PHH and PokerKit post in this order).
        for ante in &setup.antes {
            let p = self.state.position(ante.seat)?;
            let amount = ante.amount.min(self.state.players[usize::from(p)].stack);
            if amount > 0 {
                let all_in = amount == self.state.players[usize::from(p)].stack;
                self.emit(Event::AntePosted {
                    seat: ante.seat,
                    amount,
                    all_in,
                });
            }
        }
        for blind in &setup.blinds {
            let p = self.state.position(blind.seat)?;
            let amount = blind.amount.min(self.state.players[usize::from(p)].stack);
            if amount > 0 {
                let all_in = amount == self.state.players[usize::from(p)].stack;
                self.emit(Event::BlindPosted {
                    seat: blind.seat,
                    kind: blind.kind,
                    amount,
                    all_in,
                });
            }
        }
        if let Some(deck) = self.state.deck {
            // Two passes round the table from the first seat left of the button, as a
            // dealer deals.
            for p in 0..self.state.n {
                let first = deck[usize::from(p)];
                let second = deck[usize::from(p + self.state.n)];
                let seat = self.state.players[usize::from(p)].seat;
                self.emit(Event::HoleCardsDealt {
                    seat,
                    cards: [first, second],
                });
            }
        }
        self.emit(Event::PreflopStarted);
        // QueenSix tournament 10, Oracle tournament 1: the hands of players absent when
        // the deal ends are dead, all-in ones included, left of the button first. A table
        // where nobody is present plays on as if the rule were not there.
        if setup.absent_hands_dead && setup.seats.iter().any(|s| !s.absent) {
            for p in 0..self.state.n {
                let player = self.state.players[usize::from(p)];
                if player.absent {
                    self.emit(Event::HandKilled {
                        seat: player.seat,
                        cause: KillCause::Absent,
                        reason: ABSENT_AT_THE_DEAL.into(),
                    });
                }
            }
        }
        Ok(())
    }

    /// Runs the hand forward as far as it goes without a person.
    pub(super) fn progress(&mut self) {
        loop {
            let s = &self.state;
            match s.phase {
                Phase::Betting => {
                    let Some(p) = s.to_act else { return };
                    let player = s.players[usize::from(p)];
                    if player.absent {
                        self.emit(Event::PlayerFolded {
                            seat: player.seat,
                            reason: FoldReason::Absent,
                        });
                    } else if let Some((q, action, facing)) = s.out_of_turn
                        && q == p
                    {
                        self.rule_out_of_turn(player.seat, action, facing);
                    } else {
                        return;
                    }
                }
                Phase::RoundComplete => {
                    if let Some((seat, amount)) = s.uncalled() {
                        self.emit(Event::UncalledBetReturned { seat, amount });
                    } else if s.live_count() <= 1 {
                        if s.impounded {
                            return;
                        }
                        self.award();
                    } else if let Some(p) = s.seeded.then(|| s.next_face_up()).flatten() {
                        // All-in and the betting is over: every hand is turned face up
                        // before the rest of the board is dealt.
                        let player = s.players[usize::from(p)];
                        if let Some(cards) = player.hole {
                            self.emit(Event::HandShown {
                                seat: player.seat,
                                cards,
                            });
                        } else {
                            return;
                        }
                    } else if s.offers_run_twice() {
                        // Every player in the hand answers first.
                        return;
                    } else if s.street == Street::River && s.runs == 2 && s.first_board.is_none() {
                        let first = s.board().collect();
                        self.emit(Event::BoardRunAgain { first });
                    } else if s.street == Street::River {
                        let order = s.showdown_order().iter().map(|&p| s.seat_of(p)).collect();
                        self.emit(Event::ShowdownStarted { order });
                    } else if s.seeded {
                        let Some(street) = s.street.next() else {
                            return;
                        };
                        let cards = s.next_board_cards(street);
                        self.emit(Event::BoardDealt { street, cards });
                    } else {
                        return;
                    }
                }
                Phase::Showdown if s.wins_unseen() => {
                    if s.impounded {
                        return;
                    }
                    self.award();
                }
                Phase::Showdown => {
                    // Once a player is all-in and the betting is complete, every hand is
                    // turned face up (every house). A dealt hand is known to the engine;
                    // a recorded one waits for the host to record it.
                    let Some(p) = s.showdown_turn() else { return };
                    let player = s.players[usize::from(p)];
                    match (s.seeded && s.live_all_in(), player.hole) {
                        (true, Some(cards)) => {
                            self.emit(Event::HandShown {
                                seat: player.seat,
                                cards,
                            });
                        }
                        _ => return,
                    }
                }
                Phase::Awarding if !s.impounded => self.award(),
                _ => return,
            }
        }
    }
}
