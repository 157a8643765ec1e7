//! Folding one event into a hand's state: the `apply` that replay and `decide` share.

use super::*;

impl HandState {
    pub(super) fn apply(&mut self, event: &Event) {
        if let Event::PlayerCalled { seat, .. }
        | Event::PlayerBet { seat, .. }
        | Event::PlayerRaised { seat, .. } = event
            && let Some((q, ..)) = self.out_of_turn
            && self.position(*seat).is_ok_and(|p| p != q)
        {
            self.out_of_turn_intervened = true;
        }
        if let Event::PlayerChecked { seat }
        | Event::PlayerCalled { seat, .. }
        | Event::PlayerBet { seat, .. }
        | Event::PlayerRaised { seat, .. }
        | Event::HandKilled { seat, .. }
        | Event::OutOfTurnBetForfeited { seat, .. } = event
            && let Some((q, _)) = self.bet_stays
            && self.position(*seat).is_ok_and(|p| p == q)
        {
            self.bet_stays = None;
        }
        match event {
            Event::HandStarted { setup } => self.start(setup),
            Event::DeckSealed { seed } => {
                self.seed = Some(*seed);
                self.deck = Some(*Deck::from_seed(seed).cards());
                self.seeded = true;
            }
            Event::AntePosted { seat, amount, .. } => {
                if let Ok(p) = self.position(*seat) {
                    let pl = &mut self.players[usize::from(p)];
                    let amount = (*amount).min(pl.stack);
                    pl.stack -= amount;
                    pl.ante += amount;
                }
            }
            Event::BlindPosted {
                seat, amount, kind, ..
            } => {
                if let Ok(p) = self.position(*seat) {
                    if *kind == BlindKind::BigBlind {
                        self.bb_pos = Some(p);
                    }
                    self.put(p, *amount);
                    self.current_bet = self.current_bet.max(self.players[usize::from(p)].bet);
                }
            }
            Event::HoleCardsDealt { seat, cards } => {
                if let Ok(p) = self.position(*seat) {
                    self.players[usize::from(p)].hole = Some(*cards);
                    if self.seeded {
                        self.deck_next = self.deck_next.saturating_add(2);
                    }
                }
            }
            Event::OutOfTurnBetForfeited { seat, amount } => {
                if let Ok(p) = self.position(*seat) {
                    self.put(p, *amount);
                }
            }
            Event::PlayerFolded { seat, .. } => {
                if let Ok(p) = self.position(*seat) {
                    self.players[usize::from(p)].status = Status::Folded;
                    self.count_action(p, false);
                    self.advance(p);
                }
            }
            Event::HandKilled { seat, .. } => {
                if let Ok(p) = self.position(*seat) {
                    self.kill(p);
                }
            }
            Event::PlayerChecked { seat } => {
                if let Ok(p) = self.position(*seat) {
                    self.count_action(p, false);
                    self.advance(p);
                }
            }
            Event::PlayerCalled { seat, amount, .. } => {
                if let Ok(p) = self.position(*seat) {
                    self.put(p, *amount);
                    self.players[usize::from(p)].called = *amount;
                    self.count_action(p, true);
                    self.advance(p);
                }
            }
            Event::PlayerBet { seat, to, .. } | Event::PlayerRaised { seat, to, .. } => {
                if let Ok(p) = self.position(*seat) {
                    self.raise_to(p, *to);
                }
                // The action changed: no call before it can be retracted.
                for pl in &mut self.players[..usize::from(self.n)] {
                    pl.called = 0;
                }
            }
            Event::CallRetracted { seat, amount, .. } => {
                if let Ok(p) = self.position(*seat) {
                    self.take_back(p, *amount);
                    self.players[usize::from(p)].called = 0;
                    self.kill(p);
                }
            }
            Event::AggressionForfeited { seat, .. } => {
                if let Ok(p) = self.position(*seat) {
                    self.players[usize::from(p)].passive = true;
                }
            }
            Event::PreflopStarted => self.begin_preflop(),
            Event::RaiseTreatedAsCall { .. } => {}
            Event::ActedOutOfTurn {
                seat,
                action,
                facing,
            } => {
                if let Ok(p) = self.position(*seat) {
                    self.out_of_turn = Some((p, *action, *facing));
                    self.out_of_turn_intervened = false;
                }
            }
            Event::OutOfTurnRuled { seat, ruling, rule } => {
                // WPH 31: a released bettor who folds leaves the out-of-turn bet.
                if let Some((p, action, _)) = self.out_of_turn
                    && *ruling == OutOfTurnRuling::Released
                    && *rule == OutOfTurn::WphRules31And40BetStays
                {
                    let pl = &self.players[usize::from(p)];
                    let amount = match action {
                        Action::Bet(to) | Action::RaiseTo(to) => to.saturating_sub(pl.bet),
                        Action::AllIn => pl.stack,
                        Action::Fold | Action::Check | Action::Call => 0,
                    }
                    .min(pl.stack);
                    self.bet_stays = (amount > 0).then_some((p, amount));
                }
                self.out_of_turn = None;
                if *ruling == OutOfTurnRuling::NoRaise
                    && let Ok(p) = self.position(*seat)
                {
                    self.no_raise |= bit(p);
                }
            }
            Event::UncalledBetReturned { seat, amount } => {
                if let Ok(p) = self.position(*seat) {
                    self.take_back(p, *amount);
                }
            }
            Event::BoardDealt { street, cards } => {
                for &card in cards {
                    if let Some(slot) = self.board.get_mut(usize::from(self.board_len)) {
                        *slot = Some(card);
                        self.board_len += 1;
                    }
                }
                if self.seeded {
                    // One burn and the cards.
                    let dealt = u8::try_from(cards.len()).unwrap_or(0);
                    self.deck_next = self.deck_next.saturating_add(1 + dealt);
                }
                self.street = *street;
                for pl in &mut self.players[..usize::from(self.n)] {
                    pl.bet = 0;
                    pl.called = 0;
                }
                self.current_bet = 0;
                self.begin_round();
            }
            Event::RunTwiceChosen { seat, agree } => {
                if let Ok(p) = self.position(*seat) {
                    self.run_answers |= bit(p);
                    if *agree {
                        self.run_agreed |= bit(p);
                    } else {
                        self.runs = 1;
                    }
                    self.settle_runs();
                }
            }
            Event::BoardRunAgain { .. } => {
                self.first_board = Some(self.board);
                let from = usize::from(self.run_from).min(self.board.len());
                for slot in &mut self.board[from..] {
                    *slot = None;
                }
                self.board_len = self.run_from;
                self.street = match self.run_from {
                    0 => Street::Preflop,
                    3 => Street::Flop,
                    4 => Street::Turn,
                    _ => Street::River,
                };
            }
            Event::ShowdownStarted { order } => {
                for pl in &mut self.players[..usize::from(self.n)] {
                    pl.bet = 0;
                }
                self.show_len = 0;
                for &seat in order {
                    if let Ok(p) = self.position(seat) {
                        self.show_order[usize::from(self.show_len)] = p;
                        self.show_len += 1;
                    }
                }
                self.show_next = 0;
                self.phase = if self.show_len == 0 {
                    Phase::Awarding
                } else {
                    Phase::Showdown
                };
            }
            Event::HandShown { seat, cards } => {
                if let Ok(p) = self.position(*seat) {
                    let pl = &mut self.players[usize::from(p)];
                    pl.hole = Some(*cards);
                    pl.shown = true;
                    if self.phase == Phase::Showdown {
                        self.showdown_done(p);
                    }
                }
            }
            Event::HandMucked { seat } => {
                if let Ok(p) = self.position(*seat) {
                    self.players[usize::from(p)].status = Status::Mucked;
                    if self.phase == Phase::Showdown {
                        self.showdown_done(p);
                    }
                }
            }
            Event::PotImpounded { .. } => self.impounded = true,
            Event::PotReleased { .. } => self.impounded = false,
            Event::HandRetrieved { seat, cards, .. }
            | Event::HandSeenOnRequest {
                seat,
                cards,
                live: true,
                ..
            } => {
                if let Ok(p) = self.position(*seat) {
                    let pl = &mut self.players[usize::from(p)];
                    pl.status = Status::Live;
                    pl.hole = Some(*cards);
                    pl.shown = true;
                }
            }
            Event::HandSeenOnRequest { seat, cards, .. } => {
                if let Ok(p) = self.position(*seat) {
                    let pl = &mut self.players[usize::from(p)];
                    pl.hole = Some(*cards);
                    pl.shown = true;
                }
            }
            Event::PotAwarded { shares, rake, .. } => {
                self.raked = self.raked.saturating_add(*rake);
                for share in shares {
                    if let Ok(p) = self.position(share.seat) {
                        self.players[usize::from(p)].stack += share.amount;
                        self.awarded += share.amount;
                    }
                }
            }
            Event::HandEnded { .. } => {
                for pl in &mut self.players[..usize::from(self.n)] {
                    pl.bet = 0;
                    pl.put_in = 0;
                    pl.ante = 0;
                    pl.called = 0;
                }
                self.awarded = 0;
                self.phase = Phase::Complete;
                self.to_act = None;
            }
            Event::HandVoided { refunds, .. } => {
                for share in refunds {
                    if let Ok(p) = self.position(share.seat) {
                        self.players[usize::from(p)].stack += share.amount;
                    }
                }
                for pl in &mut self.players[..usize::from(self.n)] {
                    pl.bet = 0;
                    pl.put_in = 0;
                    pl.ante = 0;
                    pl.called = 0;
                }
                self.phase = Phase::Voided;
                self.to_act = None;
            }
        }
    }

    /// Chips put in that go back to the stack at position `p`: a bet of the round, or (a
    /// call retracted in the showdown, and the bet it leaves uncalled) chips already in
    /// the pot.
    fn take_back(&mut self, p: u8, amount: u64) {
        let pl = &mut self.players[usize::from(p)];
        let amount = amount.min(pl.put_in);
        pl.bet = pl.bet.saturating_sub(amount);
        pl.put_in -= amount;
        pl.stack += amount;
    }

    /// Once every hand still in has answered the offer to run the board twice, the runs.
    fn settle_runs(&mut self) {
        let live = (0..self.n)
            .filter(|&q| self.players[usize::from(q)].status == Status::Live)
            .fold(0u16, |mask, q| mask | bit(q));
        if self.runs == 0 && self.run_answers != 0 && live & !self.run_answers == 0 {
            self.runs = if live & !self.run_agreed == 0 { 2 } else { 1 };
            self.run_from = self.board_len;
        }
    }

    /// A hand declared dead: folded where it stands. Its turn, if it was to act, passes
    /// on; it leaves the showdown's order; the betting is over when one hand is left.
    fn kill(&mut self, p: u8) {
        self.players[usize::from(p)].status = Status::Folded;
        self.pending &= !bit(p);
        if self.out_of_turn.is_some_and(|(q, ..)| q == p) {
            self.out_of_turn = None;
        }
        if self.live_count() <= 1 {
            self.pending = 0;
        }
        match self.phase {
            Phase::Betting => {
                let pending = self.pending;
                self.to_act = self
                    .to_act
                    .filter(|&q| pending & bit(q) != 0)
                    .or_else(|| self.next_pending(self.wrap(p + 1)));
                if self.to_act.is_none() {
                    self.phase = Phase::RoundComplete;
                }
            }
            Phase::Showdown => self.showdown_done(p),
            _ => {}
        }
        if self.run_twice.is_some() {
            self.settle_runs();
        }
    }

    pub(super) fn showdown_done(&mut self, p: u8) {
        // Remove p from the pending part of the order (it may act out of order once
        // hands are face up).
        let start = usize::from(self.show_next);
        let len = usize::from(self.show_len);
        if let Some(i) = self.show_order[start..len].iter().position(|&q| q == p) {
            self.show_order[start..=start + i].rotate_right(1);
            self.show_next += 1;
        }
        if self.show_next >= self.show_len {
            self.phase = Phase::Awarding;
        }
    }

    pub(super) fn start(&mut self, setup: &HandSetup) {
        *self = HandState::default();
        let order = clockwise_from(setup.button, &setup.seats);
        self.n = u8::try_from(order.len()).unwrap_or(0);
        for (i, seat) in order.iter().enumerate() {
            if let Some(s) = setup.seats.iter().find(|s| s.seat == *seat) {
                self.players[i] = Player {
                    seat: s.seat,
                    starting: s.stack,
                    stack: s.stack,
                    absent: s.absent,
                    ..Player::default()
                };
            }
        }
        self.rules = Some(setup.rules);
        self.rake = setup.rake;
        self.run_twice = setup.run_twice;
        self.chip_unit = setup.chip_unit;
        self.big_blind = setup.big_blind;
        let straddle = setup
            .blinds
            .iter()
            .filter(|b| b.kind == BlindKind::Straddle)
            .map(|b| b.amount)
            .max()
            .unwrap_or(0);
        // The smallest raise before the flop: the largest straddle's full size where the
        // straddle is the bet, else the big blind over whatever is posted.
        self.preflop_floor = match setup.rules.straddle_raise {
            StraddleRaise::TwiceTheStraddle => setup.big_blind.max(straddle),
            StraddleRaise::BigBlindOverTheStraddle => setup.big_blind,
        };
        self.phase = Phase::Dealing;
    }
}
