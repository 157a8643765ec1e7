//! Floor rulings: voiding a hand (misdeals), action out of turn, and killing a hand.

use super::*;

impl Run<'_> {
    pub(super) fn void(&mut self, reason: &VoidReason) -> Result<(), RuleError> {
        if let VoidReason::Misdeal(_) = reason {
            let rules = self.state.rules()?;
            if !self.state.before_misdeal_cutoff(rules.misdeal_cutoff) {
                return Err(RuleError::MisdealPastCutoff {
                    cutoff: rules.misdeal_cutoff,
                });
            }
        }
        let refunds = self.state.live_players_iter(true).map(|pl| Share {
            seat: pl.seat,
            amount: pl.put_in + pl.ante,
        });
        let refunds = refunds.collect();
        self.emit(Event::HandVoided {
            reason: reason.clone(),
            refunds,
        });
        Ok(())
    }

    /// The floor declares the hand at `seat` dead. Refused for cards exposed at WPH (rule
    /// 49: no dead hand); for a hand already folded or mucked; for a hand tabled face up
    /// (WPH 11: "dealers cannot kill a winning hand that was tabled face up"); while the
    /// hand is dealt or its pots awarded; and for a hand whose bet or raise nobody has
    /// called while other hands are still in: the house returns an uncalled bet to a killed
    /// hand (WPH 45, Oracle's killed hand), which the engine does as it returns any uncalled
    /// bet, once only one hand is left.
    pub(super) fn kill(
        &mut self,
        seat: Seat,
        cause: KillCause,
        reason: &str,
    ) -> Result<(), RuleError> {
        let s = &self.state;
        let p = s.position(seat)?;
        if !matches!(
            s.phase,
            Phase::Betting | Phase::RoundComplete | Phase::Showdown
        ) {
            return Err(RuleError::NothingToKill);
        }
        // WPH 49: "A player who exposes his cards with action pending may incur a penalty,
        // but will not have a dead hand."
        if cause == KillCause::Exposed && s.rules()?.preset == Preset::Wph {
            return Err(RuleError::ExposureNotDead);
        }
        let player = s.players[usize::from(p)];
        if player.status != Status::Live {
            return Err(RuleError::NoLiveHand { seat });
        }
        if cause == KillCause::Absent && !player.absent {
            return Err(RuleError::NotDealtInAbsent { seat });
        }
        if player.shown {
            return Err(RuleError::HandTabled { seat });
        }
        let others = (0..s.n)
            .filter(|&q| q != p)
            .map(|q| s.players[usize::from(q)].bet)
            .max()
            .unwrap_or(0);
        // A forced bet is not the player's bet or raise: a killed blind stays in the pot.
        if player.bet > others && s.last_aggressor == Some(p) && s.live_count() > 2 {
            return Err(RuleError::UncalledBetPending { seat });
        }
        self.emit(Event::HandKilled {
            seat,
            cause,
            reason: reason.to_owned(),
        });
        Ok(())
    }

    /// The floor takes away the aggressive action of the player at `seat` for the rest of
    /// the hand (Oracle exposing cards 1-2 and four-card flop 3.5, Hippodrome
    /// irregularities 9 and showdown 5). Refused at the houses whose books have no such
    /// penalty; for a hand no longer live or tabled face up; once no betting remains (the
    /// hand is at its showdown, or every other hand is folded or all-in); and a second time.
    pub(super) fn forfeit_aggression(&mut self, seat: Seat, reason: &str) -> Result<(), RuleError> {
        let s = &self.state;
        let rules = s.rules()?;
        if !matches!(rules.preset, Preset::Oracle | Preset::Hippodrome) {
            return Err(RuleError::AggressionNotForfeited {
                preset: rules.preset,
            });
        }
        let p = s.position(seat)?;
        let player = s.players[usize::from(p)];
        if player.status != Status::Live {
            return Err(RuleError::NoLiveHand { seat });
        }
        let why = if player.passive {
            Some("it has already lost it for this hand")
        } else if player.shown {
            Some("the hand is tabled face up")
        } else if !matches!(s.phase, Phase::Betting | Phase::RoundComplete)
            || (s.phase == Phase::RoundComplete && s.street == Street::River)
        {
            Some("no betting remains in this hand")
        } else if player.stack == 0 {
            Some("it is all-in")
        } else if s.live_players_iter(false).filter(|o| o.stack > 0).count() < 2 {
            Some("no betting remains in this hand: the other hands are all-in")
        } else {
            None
        };
        if let Some(why) = why {
            return Err(RuleError::NoAggressionToForfeit { seat, why });
        }
        self.emit(Event::AggressionForfeited {
            seat,
            reason: reason.to_owned(),
        });
        Ok(())
    }

    /// The floor rules the call at `seat` not binding (QueenSix NLHE 10): the caller
    /// grossly misunderstood the amount wagered. Its chips go back and the hand is folded.
    /// Refused at every other house (their books make a call binding); for a hand no longer
    /// live, already tabled, or the last one in (the others folded or mucked: the pot is
    /// its); and where the seat has no call the ruling can reach: none made on this street,
    /// one a bet or raise has followed (the action changed), or a pot already awarded.
    pub(super) fn retract_call(&mut self, seat: Seat, reason: &str) -> Result<(), RuleError> {
        let s = &self.state;
        let rules = s.rules()?;
        if rules.preset != Preset::QueenSix {
            return Err(RuleError::CallsBind {
                preset: rules.preset,
            });
        }
        let p = s.position(seat)?;
        let player = s.players[usize::from(p)];
        if !matches!(
            s.phase,
            Phase::Betting | Phase::RoundComplete | Phase::Showdown | Phase::Awarding
        ) || s.awarded > 0
        {
            return Err(RuleError::NoCallToRetract {
                seat,
                why: "the hand's pots are being awarded",
            });
        }
        if player.status != Status::Live {
            return Err(RuleError::NoLiveHand { seat });
        }
        if player.shown {
            return Err(RuleError::NoCallToRetract {
                seat,
                why: "the hand is tabled face up",
            });
        }
        if s.live_count() <= 1 {
            return Err(RuleError::NoCallToRetract {
                seat,
                why: "it is the last hand still in, and the pot is its",
            });
        }
        if player.called == 0 {
            return Err(RuleError::NoCallToRetract {
                seat,
                why: "it made no call on this street that no bet or raise has followed",
            });
        }
        self.emit(Event::CallRetracted {
            seat,
            amount: player.called,
            reason: reason.to_owned(),
        });
        // In the showdown the bets are in the pot: a bet the call was the last to match
        // goes back now, as an uncalled bet does before the pots are built.
        if matches!(self.state.phase, Phase::Showdown | Phase::Awarding)
            && let Some((seat, amount)) = self.state.uncalled_in_pot()
        {
            self.emit(Event::UncalledBetReturned { seat, amount });
        }
        Ok(())
    }

    pub(super) fn out_of_turn(&mut self, seat: Seat, action: Action) -> Result<(), RuleError> {
        let s = &self.state;
        let p = s.position(seat)?;
        if s.phase != Phase::Betting {
            return Err(RuleError::NotBetting);
        }
        if s.to_act == Some(p) {
            // In turn after all: an ordinary action.
            return self.act(seat, action);
        }
        if s.pending & bit(p) == 0 || s.players[usize::from(p)].status != Status::Live {
            return Err(RuleError::NotDueToAct { seat });
        }
        if s.out_of_turn.is_some() {
            return Err(RuleError::OutOfTurnPending);
        }
        self.emit(Event::ActedOutOfTurn {
            seat,
            action,
            facing: s.current_bet,
        });
        Ok(())
    }

    /// The turn of a player who acted out of turn has come: rule by the house.
    pub(super) fn rule_out_of_turn(&mut self, seat: Seat, declared: Action, facing: u64) {
        let rules = self.state.rules.unwrap_or_else(HouseRules::wsop);
        let now = self.state.current_bet;
        let changed = now != facing;
        let declared_to = match declared {
            Action::Bet(to) | Action::RaiseTo(to) => Some(to),
            // WPH 31 as written: an all-in is a bet of the whole stack.
            Action::AllIn if rules.out_of_turn == OutOfTurn::WphRules31And40BetStays => self
                .state
                .position(seat)
                .ok()
                .map(|p| self.state.players[usize::from(p)])
                .map(|pl| pl.bet.saturating_add(pl.stack)),
            _ => None,
        };
        let ruling = match rules.out_of_turn {
            OutOfTurn::BindingUnlessActionChanges if !changed => OutOfTurnRuling::Binding,
            // Oracle 8: "A player who checks out of turn may not bet or raise on the next
            // turn to act."
            OutOfTurn::BindingUnlessActionChanges if declared == Action::Check => {
                OutOfTurnRuling::NoRaise
            }
            OutOfTurn::BindingUnlessActionChanges => OutOfTurnRuling::Released,
            // Oracle 8: "may be ruled binding if there is no bet, call, or raise by any
            // intervening player"; "a player who checks out of turn may not bet or raise on
            // the next turn to act".
            OutOfTurn::OracleRule8 if !self.state.out_of_turn_intervened => {
                OutOfTurnRuling::Binding
            }
            OutOfTurn::OracleRule8 if declared == Action::Check => OutOfTurnRuling::NoRaise,
            OutOfTurn::OracleRule8 => OutOfTurnRuling::Released,
            // Invitational 5.5: "... unless intervening action changes the action the
            // out-of-turn actor is facing, in which case the player may act on his hand as
            // if he had made no declaration."
            OutOfTurn::HeldUnlessActionChanges if !changed => OutOfTurnRuling::Binding,
            OutOfTurn::HeldUnlessActionChanges => OutOfTurnRuling::Released,
            // Hippodrome 5: an intervening bet smaller than the out-of-turn bet must be
            // called; a larger one releases.
            OutOfTurn::StandsUnlessChanged if !changed => OutOfTurnRuling::Binding,
            OutOfTurn::StandsUnlessChanged => match declared_to {
                Some(to) if now < to => OutOfTurnRuling::MustCall,
                _ => OutOfTurnRuling::Released,
            },
            // QueenSix betting 5.
            OutOfTurn::Restricted => match declared {
                Action::Check => OutOfTurnRuling::NoRaise,
                Action::Call if !changed => OutOfTurnRuling::Binding,
                Action::Call => OutOfTurnRuling::NoRaise,
                Action::Fold => OutOfTurnRuling::Binding,
                Action::Bet(_) | Action::RaiseTo(_) | Action::AllIn if !changed => {
                    OutOfTurnRuling::MustCall
                }
                Action::Bet(_) | Action::RaiseTo(_) | Action::AllIn => OutOfTurnRuling::Released,
            },
            // WPH 31: the in-turn player checked: take the bet back and check; bet less:
            // flat call; bet more: every option but checking.
            // WPH 40: "folding out of turn [is a] binding fold".
            OutOfTurn::WphRules31And40 | OutOfTurn::WphRules31And40BetStays
                if declared == Action::Fold =>
            {
                OutOfTurnRuling::Binding
            }
            OutOfTurn::WphRule31
            | OutOfTurn::WphRules31And40
            | OutOfTurn::WphRules31And40BetStays => match declared_to {
                Some(_) if now == 0 => OutOfTurnRuling::MustCheck,
                Some(to) if now <= to => OutOfTurnRuling::MustCall,
                Some(_) => OutOfTurnRuling::Released,
                None if !changed => OutOfTurnRuling::Binding,
                None => OutOfTurnRuling::Released,
            },
        };
        self.emit(Event::OutOfTurnRuled {
            seat,
            ruling,
            rule: rules.out_of_turn,
        });
        let forced = match ruling {
            OutOfTurnRuling::Binding => Some(declared),
            OutOfTurnRuling::MustCall => Some(Action::Call),
            OutOfTurnRuling::MustCheck => Some(Action::Check),
            OutOfTurnRuling::Released | OutOfTurnRuling::NoRaise => None,
        };
        if let Some(action) = forced {
            // A declaration that is no longer legal (say, a call with nothing to call)
            // leaves the player to act.
            let mark = self.events.len();
            let saved = *self.state;
            if self.act(seat, action).is_err() {
                self.events.truncate(mark);
                *self.state = saved;
            }
        }
    }
}

impl HandState {
    pub(super) fn before_misdeal_cutoff(&self, cutoff: MisdealCutoff) -> bool {
        if self.street != Street::Preflop {
            return false;
        }
        match cutoff {
            MisdealCutoff::PlayersActed {
                players,
                never_after_big_blind,
            } => {
                let acted = self.players_acted.count_ones();
                let bb_acted = never_after_big_blind && self.big_blind_acted();
                acted < u32::from(players) && !bb_acted
            }
            MisdealCutoff::SubstantialAction => self.chip_actions < 2 && self.actions_taken < 3,
        }
    }
}
