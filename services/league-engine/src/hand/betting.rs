//! Betting: checking and making actions, raise sizes, and the betting rounds' queue.

use super::*;

impl Run<'_> {
    pub(super) fn act(&mut self, seat: Seat, action: Action) -> Result<(), RuleError> {
        let p = self.state.expect_turn(seat)?;
        let legal = self.state.legal_at(p);
        let player = self.state.players[usize::from(p)];
        let to_call = self.state.current_bet.saturating_sub(player.bet);
        let all_chips = player.stack + player.bet;
        match action {
            Action::Fold => {
                self.emit(Event::PlayerFolded {
                    seat,
                    reason: FoldReason::Folded,
                });
                // WPH 31: "If the out of turn player folds, their out of turn bet will stay
                // in the pot."
                if let Some((q, amount)) = self.state.bet_stays
                    && q == p
                {
                    self.emit(Event::OutOfTurnBetForfeited { seat, amount });
                }
            }
            Action::Check => {
                if !legal.can_check {
                    return Err(RuleError::CannotCheck { seat, to_call });
                }
                self.emit(Event::PlayerChecked { seat });
            }
            Action::Call => self.call(seat, legal)?,
            Action::AllIn => {
                if all_chips <= self.state.current_bet {
                    // Calling puts the player all-in.
                    self.call(seat, legal)?;
                } else {
                    match legal.bet_or_raise {
                        Some(range) => self.wager(seat, p, range, all_chips, None)?,
                        None if player.passive => return Err(RuleError::AggressionLost { seat }),
                        None => return Err(RuleError::RaiseNotAllowed),
                    }
                }
            }
            Action::Bet(to) | Action::RaiseTo(to) => {
                let is_raise = matches!(action, Action::RaiseTo(_));
                let facing_bet = self.state.current_bet > 0;
                if is_raise && !facing_bet {
                    return Err(RuleError::NoBetToRaise);
                }
                if !is_raise && facing_bet {
                    return Err(RuleError::BetAlreadyMade);
                }
                let Some(range) = legal.bet_or_raise else {
                    if player.passive {
                        return Err(RuleError::AggressionLost { seat });
                    }
                    return Err(RuleError::RaiseNotAllowed);
                };
                if to > range.max {
                    return Err(RuleError::AboveStack {
                        max: range.max,
                        got: to,
                    });
                }
                // Bets are made in the smallest chip in play (Oracle betting 5: "the smallest
                // chip that plays"); the least and the most a player may make always stand,
                // and an amount below the least is the house's undersized-bet rule's.
                let unit = self.state.chip_unit.max(1);
                if to > range.min && to < range.max && to % unit != 0 {
                    return Err(RuleError::NotInChipUnit { unit, got: to });
                }
                if to < range.min {
                    return self.undersized(seat, p, legal, range, to, is_raise);
                }
                self.wager(seat, p, range, to, None)?;
            }
        }
        Ok(())
    }

    pub(super) fn call(&mut self, seat: Seat, legal: LegalActions) -> Result<(), RuleError> {
        let Some(amount) = legal.call else {
            return Err(RuleError::NothingToCall);
        };
        let p = self.state.position(seat)?;
        let all_in = amount == self.state.players[usize::from(p)].stack;
        self.emit(Event::PlayerCalled {
            seat,
            amount,
            all_in,
        });
        Ok(())
    }

    pub(super) fn wager(
        &mut self,
        seat: Seat,
        p: u8,
        range: BetRange,
        to: u64,
        declared: Option<u64>,
    ) -> Result<(), RuleError> {
        let player = self.state.players[usize::from(p)];
        let all_in = to == player.stack + player.bet;
        if range.raise {
            let full = to.saturating_sub(self.state.current_bet) >= self.state.full_raise_size();
            self.emit(Event::PlayerRaised {
                seat,
                to,
                all_in,
                full,
                declared,
            });
        } else {
            self.emit(Event::PlayerBet { seat, to, all_in });
        }
        Ok(())
    }

    /// A bet or raise below the minimum from a player who has more chips.
    pub(super) fn undersized(
        &mut self,
        seat: Seat,
        p: u8,
        legal: LegalActions,
        range: BetRange,
        to: u64,
        is_raise: bool,
    ) -> Result<(), RuleError> {
        let rules = self.state.rules()?;
        let current = self.state.current_bet;
        let refused = if is_raise {
            RuleError::RaiseBelowMinimum {
                min: range.min,
                got: to,
            }
        } else {
            RuleError::BetBelowMinimum {
                min: range.min,
                got: to,
            }
        };
        // A declared amount at or below the bet is not a raise at all.
        if to <= current {
            return Err(refused);
        }
        let becomes_raise = match rules.undersized_raise {
            UndersizedRaise::Refused => return Err(refused),
            UndersizedRaise::BroughtUpToMinimum => true,
            // A bet below the minimum is always brought up; a raise of at least half the
            // minimum raise must be made a full raise, less is a call.
            UndersizedRaise::HalfRule => {
                !is_raise || (to - current).saturating_mul(2) >= self.state.full_raise_size()
            }
            // A full bet plus half a bet or more is a raise; less is a call.
            UndersizedRaise::BetAndAHalf => {
                !is_raise || u128::from(to) * 2 >= u128::from(current) * 3
            }
        };
        if becomes_raise {
            self.wager(seat, p, range, range.min, Some(to))
        } else {
            self.emit(Event::RaiseTreatedAsCall {
                seat,
                declared: to,
                rule: rules.undersized_raise,
            });
            self.call(seat, legal)
        }
    }
}

impl HandState {
    pub(super) fn expect_turn(&self, seat: Seat) -> Result<u8, RuleError> {
        let p = self.position(seat)?;
        match (self.phase, self.to_act) {
            (Phase::Betting, Some(q)) if q == p => Ok(p),
            (Phase::Betting, Some(q)) => Err(RuleError::NotYourTurn {
                expected: Some(self.seat_of(q)),
                got: seat,
            }),
            _ => Err(RuleError::NotBetting),
        }
    }

    /// Live players with chips behind.
    pub(super) fn can_bet(&self, p: u8) -> bool {
        let pl = &self.players[usize::from(p)];
        pl.status == Status::Live && pl.stack > 0
    }

    pub(super) fn full_raise_size(&self) -> u64 {
        let floor = if self.street == Street::Preflop {
            self.preflop_floor
        } else {
            self.big_blind
        };
        self.largest_raise.max(floor)
    }

    pub(super) fn legal_at(&self, p: u8) -> LegalActions {
        let pl = self.players[usize::from(p)];
        let to_call = self.current_bet.saturating_sub(pl.bet);
        let call = (to_call > 0).then(|| to_call.min(pl.stack));
        let all_chips = pl.stack + pl.bet;
        let covered = pl.stack <= to_call;
        // Someone else must be able to call more than the current bet.
        let opponent = (0..self.n).any(|q| {
            let o = &self.players[usize::from(q)];
            q != p && o.status == Status::Live && o.stack + o.bet > self.current_bet
        });
        let restricted = self.no_raise & bit(p) != 0 || pl.passive;
        let bet_or_raise =
            (!covered && opponent && !restricted && self.reopened_for(p)).then(|| {
                let min = self
                    .current_bet
                    .saturating_add(self.full_raise_size())
                    .min(all_chips);
                BetRange {
                    raise: self.current_bet > 0,
                    min,
                    max: all_chips,
                }
            });
        LegalActions {
            seat: pl.seat,
            can_fold: true,
            can_check: to_call == 0,
            call,
            bet_or_raise,
        }
    }

    /// May a player who has acted this round raise again?
    pub(super) fn reopened_for(&self, p: u8) -> bool {
        let rules = self.rules.unwrap_or_else(HouseRules::wsop);
        let i = usize::from(p);
        if rules.short_all_in == ShortAllIn::AsPokerKit {
            // PokerKit (`_verify_completion_betting_or_raising`): not when the amount to
            // check or call is less than the round's largest increment, nor after acting
            // when short all-ins since the last reopening add up to less than it.
            let pl = &self.players[i];
            let to_call = self.current_bet.saturating_sub(pl.bet).min(pl.stack);
            return to_call >= self.largest_raise
                && (self.pk_acted & bit(p) == 0 || self.pk_short_count == 0);
        }
        if rules.short_all_in == ShortAllIn::CumulativeAsPokerKit {
            let to_call = self.current_bet.saturating_sub(self.players[i].bet);
            let pk_refuses = (to_call > 0 && to_call < self.largest_raise)
                || (self.pk_acted & bit(p) != 0 && self.pk_short_count > 0);
            if pk_refuses {
                return false;
            }
        }
        if self.acted & bit(p) == 0 {
            return true;
        }
        // What the player now faces beyond the bet they last acted on.
        let faced = self.current_bet.saturating_sub(self.acted_at[i]);
        match rules.short_all_in {
            ShortAllIn::NeverReopens => false,
            ShortAllIn::CumulativeReopens
            | ShortAllIn::CumulativeAsPokerKit
            | ShortAllIn::AsPokerKit => faced >= self.full_raise_size(),
            ShortAllIn::TwoConsecutiveReopen => self
                .short_pair
                .is_some_and(|first| first > self.acted_raises[i]),
        }
    }

    pub(super) fn big_blind_acted(&self) -> bool {
        self.bb_pos
            .is_some_and(|bb| self.players_acted & bit(bb) != 0)
    }

    pub(super) fn begin_preflop(&mut self) {
        // First to act: after the largest blind or straddle (ties: the later position),
        // as PokerKit opens a round.
        self.street = Street::Preflop;
        self.current_bet = self
            .live_players_iter(true)
            .map(|p| p.bet)
            .max()
            .unwrap_or(0);
        self.begin_round();
    }

    /// Starts a betting round: who is to act and from where.
    pub(super) fn begin_round(&mut self) {
        self.largest_raise = 0;
        self.raises = 0;
        self.last_short = None;
        self.short_pair = None;
        self.pk_acted = 0;
        self.pk_short_count = 0;
        self.pk_short_sum = 0;
        self.acted = 0;
        self.out_of_turn = None;
        self.no_raise = 0;
        self.last_aggressor = None;
        let n = self.n;
        let opener = if self.street == Street::Preflop {
            self.wrap(self.last_forced_position() + 1)
        } else {
            0
        };
        // Who can still put chips at risk: live, with chips, and with an opponent who can
        // match something.
        // The second largest total of the live players (0 if fewer than two), in one pass.
        let (mut live, mut top, mut second) = (0, 0u64, 0u64);
        for total in self.live_players_iter(false).map(|p| p.stack + p.bet) {
            live += 1;
            if total >= top {
                second = top;
                top = total;
            } else if total > second {
                second = total;
            }
        }
        if live < 2 {
            second = 0;
        }
        let mut pending = 0u16;
        for p in 0..n {
            let pl = &self.players[usize::from(p)];
            let effective = pl.stack.min(second.saturating_sub(pl.bet));
            if pl.status == Status::Live && pl.stack > 0 && effective > 0 {
                pending |= bit(p);
            }
        }
        // A lone player who has matched the bet has nothing to decide.
        if pending.count_ones() == 1 {
            let p = u8::try_from(pending.trailing_zeros()).unwrap_or(0);
            if self.players[usize::from(p)].bet >= self.current_bet {
                pending = 0;
            }
        }
        self.pending = pending;
        self.to_act = self.next_pending(opener);
        self.phase = if self.to_act.is_some() && self.live_count() > 1 {
            Phase::Betting
        } else {
            Phase::RoundComplete
        };
    }

    pub(super) fn last_forced_position(&self) -> u8 {
        // The position of the largest posted blind or straddle; ties go to the later one.
        let mut best: Option<(u64, u8)> = None;
        for p in 0..self.n {
            let pl = &self.players[usize::from(p)];
            if pl.bet > 0 && best.is_none_or(|(b, _)| pl.bet >= b) {
                best = Some((pl.bet, p));
            }
        }
        best.map_or(self.n - 1, |(_, p)| p)
    }

    /// The first pending position at or after `from`, clockwise.
    pub(super) fn next_pending(&self, from: u8) -> Option<u8> {
        let seated = u16::MAX
            .checked_shl(u32::from(self.n))
            .map_or(u16::MAX, |m| !m);
        let pending = self.pending & seated;
        let from_on = pending & u16::MAX.checked_shl(u32::from(from)).unwrap_or(0);
        let first = if from_on != 0 { from_on } else { pending };
        (first != 0)
            .then(|| u8::try_from(first.trailing_zeros()).ok())
            .flatten()
    }

    /// Position `p` (below `2 * n`) taken round the table: the next ones after the last
    /// are 0, 1, ... (a subtraction, not a division: these run on every action).
    pub(super) fn wrap(&self, p: u8) -> u8 {
        if p >= self.n { p - self.n } else { p }
    }

    /// After a player acted: the next to act, or the end of the round.
    pub(super) fn advance(&mut self, p: u8) {
        self.pending &= !bit(p);
        self.acted |= bit(p);
        self.pk_acted |= bit(p);
        self.acted_at[usize::from(p)] = self.current_bet;
        self.acted_raises[usize::from(p)] = self.raises;
        if self.live_count() <= 1 {
            self.pending = 0;
        }
        self.to_act = self.next_pending(self.wrap(p + 1));
        if self.to_act.is_none() {
            self.phase = Phase::RoundComplete;
        }
    }

    pub(super) fn count_action(&mut self, p: u8, puts_chips: bool) {
        if self.street == Street::Preflop {
            self.players_acted |= bit(p);
            self.actions_taken = self.actions_taken.saturating_add(1);
            if puts_chips {
                self.chip_actions = self.chip_actions.saturating_add(1);
            }
        }
    }

    /// Move chips from a stack into the round's bet.
    pub(super) fn put(&mut self, p: u8, amount: u64) {
        let pl = &mut self.players[usize::from(p)];
        let amount = amount.min(pl.stack);
        pl.stack -= amount;
        pl.bet += amount;
        pl.put_in += amount;
    }

    pub(super) fn raise_to(&mut self, p: u8, to: u64) {
        let before = self.current_bet;
        let bet = self.players[usize::from(p)].bet;
        self.put(p, to.saturating_sub(bet));
        let increment = to.saturating_sub(before);
        let full_size = self.full_raise_size();
        let all_in = self.players[usize::from(p)].stack == 0;
        // A round's first bet, short and all-in, is a full bet where the house says it
        // opens the betting.
        let full = increment >= full_size
            || (before == 0
                && all_in
                && self
                    .rules
                    .is_some_and(|r| r.short_all_in_bet == ShortAllInBet::OpensTheBetting));
        let pk_full = increment >= self.largest_raise;
        self.current_bet = self.current_bet.max(to);
        self.largest_raise = self.largest_raise.max(increment);
        self.last_aggressor = Some(p);
        self.count_action(p, true);
        self.raises = self.raises.saturating_add(1);
        if full {
            self.acted = 0;
        }
        // Consecutive short all-ins, for the two-consecutive rule.
        if all_in && !full {
            if let Some((seq, previous)) = self.last_short
                && seq + 1 == self.raises
                && previous + increment >= full_size
            {
                self.short_pair = Some(seq);
            }
            self.last_short = Some((self.raises, increment));
        } else {
            self.last_short = None;
        }
        // PokerKit's bookkeeping, kept exactly as it keeps it.
        if pk_full {
            self.pk_acted = 0;
        }
        if all_in {
            self.pk_short_count = self.pk_short_count.saturating_add(1);
            self.pk_short_sum += increment;
        } else {
            self.pk_short_count = 0;
            self.pk_short_sum = 0;
        }
        if self.pk_short_sum >= self.largest_raise {
            self.pk_short_count = 0;
            self.pk_short_sum = 0;
        }
        // Everyone else with chips acts again.
        let mut pending = 0u16;
        for q in 0..self.n {
            if q != p && self.can_bet(q) {
                pending |= bit(q);
            }
        }
        self.pending = pending | bit(p);
        self.advance(p);
        if full {
            self.acted = bit(p);
        }
    }
}
