//! Pots and awards: uncalled bets, main and side pots, winners and split pots.

use super::*;

/// A pot: its amount and the positions that can win it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pot {
    pub amount: u64,
    /// Positions, as a mask (bit `p` for position `p`).
    pub(super) eligible: u16,
}

impl Run<'_> {
    pub(super) fn award(&mut self) {
        let s = &self.state;
        let rules = s.rules.unwrap_or_else(HouseRules::wsop);
        // The boards: the first run's and the second's when the board ran twice.
        let twice = s.first_board.is_some();
        let boards = match s.first_board {
            Some(first) => [first, s.board],
            None => [s.board, s.board],
        };
        let runs = if twice { 2 } else { 1 };
        let mut values = [[None; MAX_SEATS]; 2];
        for (run, board) in boards.iter().enumerate().take(runs) {
            for p in 0..s.n {
                let pl = &s.players[usize::from(p)];
                if pl.status == Status::Live {
                    values[run][usize::from(p)] = pl
                        .hole
                        .and_then(|h| HandState::value_on(h, board.iter().flatten().copied()));
                }
            }
        }
        let values = &values[..runs];
        let mut pots = s.pots();
        if rules.odd_chip == OddChip::AllToFirstLeftOfButton || s.rake.is_some() || twice {
            // PokerKit (the PHH reference) first kills every hand that cannot win any
            // pot on any board, then builds the pots among the rest: neighbouring pots
            // left with the same contenders become one, which moves odd chips (and is the
            // pot a rake is taken from, and that the runs split).
            let winners = pots.iter().fold(0u16, |mask, pot| {
                values
                    .iter()
                    .fold(mask, |mask, v| mask | s.winners(pot, v).0)
            });
            pots = s.pots_among(winners);
        }
        // Side pots are awarded before the main pot. Run twice, each pot (less its rake)
        // is split between the runs, the odd chip to the first run (as PokerKit splits
        // it), and each run's part goes to that run's best hand.
        let flop = self.state.board_len > 0 || twice;
        // The rake comes from the middle. When every other hand folded, the winner's own
        // bet on the last street was never pulled in (PokerKit collects only the folded
        // players' bets then), so it is not raked.
        let in_front = if s.live_count() == 1 {
            s.live_players_iter(false).map(|pl| pl.bet).sum()
        } else {
            0
        };
        let top = pots.len().saturating_sub(1);
        for (index, pot) in pots.iter().enumerate().rev() {
            let middle = if index == top {
                pot.amount.saturating_sub(in_front)
            } else {
                pot.amount
            };
            let rake = self.state.rake.map_or(0, |r| r.of(middle, flop));
            let rest = pot.amount - rake;
            let parts = [rest - rest / 2, rest / 2];
            let parts = if twice { &parts[..] } else { &[rest][..] };
            for (run, &part) in parts.iter().enumerate() {
                if run > 0 && part == 0 {
                    continue;
                }
                let taken = if run == 0 { rake } else { 0 };
                let piece = Pot {
                    amount: part,
                    eligible: pot.eligible,
                };
                let (shares, value) = self.state.split(&piece, &values[run], rules.odd_chip);
                self.emit(Event::PotAwarded {
                    pot: u8::try_from(index).unwrap_or(u8::MAX),
                    amount: part + taken,
                    eligible: positions(pot.eligible)
                        .map(|p| self.state.seat_of(p))
                        .collect(),
                    shares,
                    value,
                    rake: taken,
                    run: u8::try_from(run).unwrap_or(0),
                });
            }
        }
        let stacks = self
            .state
            .live_players_iter(true)
            .map(|pl| Share {
                seat: pl.seat,
                amount: pl.stack,
            })
            .collect();
        let seed = self.state.seed;
        self.emit(Event::HandEnded { stacks, seed });
    }
}

impl HandState {
    /// The seat and amount of a bet no one called.
    pub(super) fn uncalled(&self) -> Option<(Seat, u64)> {
        self.above_the_rest(|pl| pl.bet)
    }

    /// What the largest contributor put in above everyone else over the whole hand: the bet
    /// a call retracted in the showdown leaves uncalled.
    pub(super) fn uncalled_in_pot(&self) -> Option<(Seat, u64)> {
        self.above_the_rest(|pl| pl.put_in).filter(|&(seat, _)| {
            self.position(seat)
                .is_ok_and(|p| self.players[usize::from(p)].status == Status::Live)
        })
    }

    fn above_the_rest(&self, chips: impl Fn(&Player) -> u64) -> Option<(Seat, u64)> {
        let mut top: Option<u8> = None;
        let mut top_bet = 0;
        let mut second = 0;
        for p in 0..self.n {
            let bet = chips(&self.players[usize::from(p)]);
            if bet > top_bet {
                second = top_bet;
                top_bet = bet;
                top = Some(p);
            } else if bet > second {
                second = bet;
            }
        }
        let p = top?;
        (top_bet > second).then(|| (self.seat_of(p), top_bet - second))
    }

    /// Pots from the lowest level up, built as PokerKit builds them: each distinct amount
    /// put in is a level; antes are dead money in the main pot; neighbouring pots with the
    /// same contenders are one pot. A level nobody still in the hand reached (everyone who
    /// put that much in folded, e.g. an absent big blind folded behind a short all-in)
    /// joins the pot below it: the chips stay in play and go, as PokerKit pushes them, to
    /// whoever wins that pot. Where there is no pot below (the one hand left put nothing
    /// in, every blind's hand being dead at the deal), the pot goes to the hands left.
    pub fn pots(&self) -> Vec<Pot> {
        let live = (0..self.n)
            .filter(|&p| self.players[usize::from(p)].status == Status::Live)
            .fold(0u16, |mask, p| mask | bit(p));
        self.pots_among(live)
    }

    /// Pots whose contenders are the positions in `contenders`.
    pub(super) fn pots_among(&self, contenders: u16) -> Vec<Pot> {
        let n = usize::from(self.n);
        let players = &self.players[..n];
        // Positions by what they put in, so that at each level those who reached it are
        // the ones not yet passed.
        let mut by_put_in = [(0u64, 0u8); MAX_SEATS];
        for (slot, p) in by_put_in.iter_mut().zip(0..self.n) {
            *slot = (players[usize::from(p)].put_in, p);
        }
        let by_put_in = &mut by_put_in[..n];
        by_put_in.sort_unstable();
        let mut pots: Vec<Pot> = Vec::with_capacity(n);
        let mut amount: u64 = players.iter().map(|p| p.ante).sum();
        let everyone = (0..self.n).fold(0u16, |mask, p| mask | bit(p));
        let mut reached = everyone;
        let mut previous = 0;
        let mut i = 0;
        while let Some(&(level, _)) = by_put_in.get(i) {
            // Every player who put in at least `level` adds `level - previous` to this pot.
            let count = u64::try_from(n - i).unwrap_or(0);
            amount += (level - previous) * count;
            let mut eligible = reached & contenders;
            if eligible == 0 && pots.is_empty() {
                // Nobody still in the hand reached even the lowest pot (the one player
                // left put nothing in, the blinds' hands being dead): it is theirs.
                eligible = contenders & everyone;
            }
            while let Some(last) = pots.last() {
                if last.eligible == eligible || eligible == 0 {
                    amount += last.amount;
                    eligible = last.eligible;
                    pots.pop();
                } else {
                    break;
                }
            }
            if amount > 0 {
                pots.push(Pot { amount, eligible });
            }
            amount = 0;
            previous = level;
            while let Some(&(put_in, p)) = by_put_in.get(i)
                && put_in == level
            {
                reached &= !bit(p);
                i += 1;
            }
        }
        pots
    }

    /// The winners of a pot and their shares, odd chips by the house rule.
    /// The positions that win a pot (in position order) and their hand's value.
    pub(super) fn winners(
        &self,
        pot: &Pot,
        values: &[Option<HandValue>; MAX_SEATS],
    ) -> (u16, Option<HandValue>) {
        if pot.eligible.count_ones() == 1 {
            return (pot.eligible, None);
        }
        let best = positions(pot.eligible)
            .filter_map(|p| values[usize::from(p)])
            .max();
        let winners = positions(pot.eligible)
            .filter(|&p| best.is_some() && values[usize::from(p)] == best)
            .fold(0u16, |mask, p| mask | bit(p));
        (winners, best)
    }

    /// The winners of a pot and their shares, odd chips by the house rule.
    pub(super) fn split(
        &self,
        pot: &Pot,
        values: &[Option<HandValue>; MAX_SEATS],
        odd_chip: OddChip,
    ) -> (Vec<Share>, Option<HandValue>) {
        let (winners, value) = self.winners(pot, values);
        let count = u64::from(winners.count_ones()).max(1);
        // The pot is divided in the smallest chip in play, and the odd ones go by the
        // house's rule. Chips below one of them (a pot not in whole chips of it, which
        // bets in the unit never make) go to the first winner left of the button.
        let unit = self.chip_unit.max(1);
        let units = pot.amount / unit;
        let each = units / count * unit;
        let mut odd = units % count;
        let mut loose = pot.amount % unit;
        // Winners are in position order: clockwise from the button.
        let shares = positions(winners)
            .map(|p| {
                let extra = match odd_chip {
                    OddChip::AllToFirstLeftOfButton => std::mem::take(&mut odd),
                    OddChip::OneEachLeftOfButton | OddChip::HighHandThenLeftOfButton => {
                        let one = odd.min(1);
                        odd -= one;
                        one
                    }
                };
                Share {
                    seat: self.seat_of(p),
                    amount: each + extra * unit + std::mem::take(&mut loose),
                }
            })
            .collect();
        (shares, value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Pots as they were first built: level by level, every player and every position
    /// looked at again for each level, eligibility as a list. The one-pass, mask-based
    /// `pots_among` must give the same pots.
    fn pots_reference(state: &HandState, contenders: u16) -> Vec<(u64, Vec<u8>)> {
        let players = &state.players[..usize::from(state.n)];
        let mut levels: Vec<u64> = players.iter().map(|p| p.put_in).collect();
        levels.sort_unstable();
        levels.dedup();
        let mut pots: Vec<(u64, Vec<u8>)> = Vec::new();
        let mut amount: u64 = players.iter().map(|p| p.ante).sum();
        let mut previous = 0;
        for level in levels {
            for pl in players {
                if pl.put_in >= level {
                    amount += level - previous;
                }
            }
            let mut eligible: Vec<u8> = (0..state.n)
                .filter(|&p| players[usize::from(p)].put_in >= level && contenders & bit(p) != 0)
                .collect();
            if eligible.is_empty() && pots.is_empty() {
                eligible = (0..state.n).filter(|&p| contenders & bit(p) != 0).collect();
            }
            while let Some(last) = pots.last() {
                if last.1 == eligible || eligible.is_empty() {
                    amount += last.0;
                    eligible.clone_from(&last.1);
                    pots.pop();
                } else {
                    break;
                }
            }
            if amount > 0 {
                pots.push((amount, eligible));
            }
            amount = 0;
            previous = level;
        }
        pots
    }

    fn state_with(put_in: &[(u64, u64)]) -> HandState {
        let mut state = HandState::new();
        state.n = u8::try_from(put_in.len()).unwrap();
        for (p, &(put, ante)) in put_in.iter().enumerate() {
            state.players[p].put_in = put;
            state.players[p].ante = ante;
        }
        state
    }

    proptest! {
        #[test]
        fn pots_are_those_of_the_level_by_level_construction(
            // Few distinct amounts, so that levels are often shared.
            put_in in proptest::collection::vec((0u64..6, 0u64..3), 2..=MAX_SEATS),
            contenders in any::<u16>(),
        ) {
            let state = state_with(&put_in);
            let got: Vec<(u64, Vec<u8>)> = state
                .pots_among(contenders)
                .into_iter()
                .map(|pot| (pot.amount, positions(pot.eligible).collect()))
                .collect();
            prop_assert_eq!(got, pots_reference(&state, contenders));
        }

        #[test]
        fn the_next_pending_position_is_found_clockwise(
            n in 2u8..=10,
            pending in any::<u16>(),
            from in 0u8..10,
        ) {
            let mut state = HandState::new();
            state.n = n;
            state.pending = pending;
            let from = from % n;
            let expected = (0..n).map(|i| (from + i) % n).find(|&p| pending & bit(p) != 0);
            prop_assert_eq!(state.next_pending(from), expected);
            for p in 0..n {
                prop_assert_eq!(state.wrap(p + from), (p + from) % n);
            }
        }
    }
}
