//! The showdown: showing and mucking, who shows in which order, hand values.

use super::*;

impl Run<'_> {
    pub(super) fn show(&mut self, seat: Seat, cards: Option<[Card; 2]>) -> Result<(), RuleError> {
        let p = self.state.expect_showdown_turn(seat)?;
        let cards = self.state.tabled_cards(p, cards)?;
        self.emit(Event::HandShown { seat, cards });
        Ok(())
    }

    pub(super) fn muck(&mut self, seat: Seat) -> Result<(), RuleError> {
        let p = self.state.expect_showdown_turn(seat)?;
        if self.state.last_hand_in_a_pot(p) {
            return Err(RuleError::LastHandCannotMuck { seat });
        }
        // QueenSix 30, WPH 9, invitational 5.8: "All hands will be turned face up whenever a
        // player is all-in and betting action is complete."
        if self.state.rules.is_some_and(|rules| rules.all_in_face_up)
            && (self.state.runout_face_up() || self.state.live_all_in())
        {
            return Err(RuleError::AllInHandsFaceUp { seat });
        }
        self.emit(Event::HandMucked { seat });
        Ok(())
    }
}

pub(super) fn same_cards(a: [Card; 2], b: [Card; 2]) -> bool {
    (a[0] == b[0] && a[1] == b[1]) || (a[0] == b[1] && a[1] == b[0])
}

impl HandState {
    /// The cards of the hand at position `p` turned face up: those the server dealt (none
    /// may be named: refusing wrong ones would make an oracle for the hidden cards), those
    /// recorded for it, or those the host names now.
    pub(super) fn tabled_cards(
        &self,
        p: u8,
        cards: Option<[Card; 2]>,
    ) -> Result<[Card; 2], RuleError> {
        let player = self.players[usize::from(p)];
        let seat = player.seat;
        match (player.hole, cards) {
            (_, Some(_)) if self.seeded => Err(RuleError::SeededDealing),
            (Some(hole), None) => Ok(hole),
            (Some(hole), Some(shown)) => {
                if !same_cards(hole, shown) {
                    return Err(RuleError::WrongCards { seat, got: shown });
                }
                Ok(hole)
            }
            (None, Some(shown)) => {
                self.check_new_cards(&shown, CardTarget::Shown(seat))?;
                Ok(shown)
            }
            (None, None) => Err(RuleError::CardsUnknown { seat }),
        }
    }

    pub(super) fn expect_showdown_turn(&self, seat: Seat) -> Result<u8, RuleError> {
        let p = self.position(seat)?;
        if self.runout_face_up() {
            // All-in with the betting over: hands are turned up before the run-out.
            let pl = &self.players[usize::from(p)];
            return if pl.status == Status::Live && !pl.shown {
                Ok(p)
            } else {
                Err(RuleError::NotShowdown)
            };
        }
        if self.phase != Phase::Showdown {
            return Err(RuleError::NotShowdown);
        }
        match self.showdown_turn() {
            Some(q) if q == p => Ok(p),
            // Once someone is all-in every hand is turned up: the order does not matter.
            Some(_) if self.live_all_in() && self.pending_show(p) => Ok(p),
            other => Err(RuleError::NotYourTurn {
                expected: other.map(|q| self.seat_of(q)),
                got: seat,
            }),
        }
    }

    pub(super) fn pending_show(&self, p: u8) -> bool {
        self.show_order[usize::from(self.show_next)..usize::from(self.show_len)].contains(&p)
    }

    /// Every other hand was mucked unseen at a showdown without an all-in, and the house
    /// lets the last hand win without being shown (WPH 10B, Oracle showdown 7).
    pub(super) fn wins_unseen(&self) -> bool {
        self.rules
            .is_some_and(|rules| rules.last_hand == LastHand::WinsUnseen)
            && self.phase == Phase::Showdown
            && self.live_count() == 1
            && !self.live_all_in()
    }

    /// A live player is all-in.
    pub(super) fn live_all_in(&self) -> bool {
        self.live_players_iter(false).any(|p| p.stack == 0)
    }

    /// The betting is over for the hand (at most one live player has chips) while cards
    /// remain to come: hands are turned face up.
    pub(super) fn runout_face_up(&self) -> bool {
        self.phase == Phase::RoundComplete
            && self.uncalled().is_none()
            && self.live_count() > 1
            && self
                .live_players_iter(false)
                .filter(|p| p.stack > 0)
                .count()
                <= 1
    }

    /// The next hand to turn face up in an all-in run-out, in showdown order.
    pub(super) fn next_face_up(&self) -> Option<u8> {
        if !self.runout_face_up() {
            return None;
        }
        self.showdown_order().first().copied()
    }

    pub(super) fn showdown_turn(&self) -> Option<u8> {
        (self.show_next < self.show_len).then(|| self.show_order[usize::from(self.show_next)])
    }

    /// The value of a hand with a full `board` (`None` before the river is out).
    pub(super) fn value_on(
        hole: [Card; 2],
        board: impl Iterator<Item = Card>,
    ) -> Option<HandValue> {
        let mut cards = [hole[0]; 7];
        cards[1] = hole[1];
        let mut len = 2;
        for card in board.take(5) {
            cards[len] = card;
            len += 1;
        }
        (len == 7).then(|| eval::evaluate7(&cards))
    }

    /// Showdown order (positions) of the live players, by the house rule.
    pub(super) fn showdown_order(&self) -> Order {
        let rules = self.rules.unwrap_or_else(HouseRules::wsop);
        let start = match (self.last_aggressor, rules.showdown_order) {
            (Some(p), _) => p,
            (
                None,
                ShowdownOrder::LastAggressorElseLeftOfButton
                | ShowdownOrder::SidePotsFirstElseLeftOfButton,
            ) => 0,
            (None, _) => (0..self.n).find(|&p| self.can_bet(p)).unwrap_or(0),
        };
        let mut order: Order = (0..self.n)
            .map(|i| self.wrap(start + i))
            .filter(|&p| {
                let pl = &self.players[usize::from(p)];
                pl.status == Status::Live && !pl.shown
            })
            .collect();
        let live_levels = order.iter().map(|&p| self.players[usize::from(p)].put_in);
        let lowest = live_levels.clone().min().unwrap_or(0);
        let highest = live_levels.max().unwrap_or(0);
        if lowest < highest {
            // The sorts are stable: within a group the order above stands.
            match rules.showdown_order {
                ShowdownOrder::SidePotsFirst | ShowdownOrder::SidePotsFirstElseLeftOfButton => {
                    // Players all-in for the main pot only show last.
                    order.sort_by_key(|&p| {
                        let pl = &self.players[usize::from(p)];
                        pl.stack == 0 && pl.put_in == lowest
                    });
                }
                ShowdownOrder::LastSidePotFirst => {
                    // The deeper a player is in, the later the side pot they play for:
                    // the last side pot's players first, the main pot's all-ins last.
                    order.sort_by_key(|&p| std::cmp::Reverse(self.players[usize::from(p)].put_in));
                }
                ShowdownOrder::LastAggressorElseFirstToAct
                | ShowdownOrder::LastAggressorElseLeftOfButton => {}
            }
        }
        order
    }

    /// Would this player mucking leave some pot with nobody to win it?
    pub(super) fn last_hand_in_a_pot(&self, p: u8) -> bool {
        self.pots().iter().any(|pot| {
            pot.eligible & bit(p) != 0
                && positions(pot.eligible)
                    .all(|q| q == p || self.players[usize::from(q)].status != Status::Live)
        })
    }
}
