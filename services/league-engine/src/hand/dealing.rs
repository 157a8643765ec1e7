//! Dealing: hole cards and board cards, checked against the cards in play.

use super::*;

impl Run<'_> {
    pub(super) fn deal_hole(&mut self, seat: Seat, cards: [Card; 2]) -> Result<(), RuleError> {
        let s = &self.state;
        if s.seeded {
            return Err(RuleError::SeededDealing);
        }
        if matches!(s.phase, Phase::Showdown | Phase::Awarding) {
            return Err(RuleError::TooLateForHoleCards);
        }
        let p = s.position(seat)?;
        if s.players[usize::from(p)].hole.is_some() {
            return Err(RuleError::HoleCardsKnown { seat });
        }
        s.check_new_cards(&cards, CardTarget::Hole(seat))?;
        self.emit(Event::HoleCardsDealt { seat, cards });
        Ok(())
    }

    pub(super) fn deal_board(&mut self, cards: &[Card]) -> Result<(), RuleError> {
        let s = &self.state;
        if s.seeded {
            return Err(RuleError::SeededDealing);
        }
        let next = match (s.phase, s.street.next()) {
            (Phase::RoundComplete, Some(next)) if s.live_count() > 1 && !s.offers_run_twice() => {
                next
            }
            _ => return Err(RuleError::NotWaitingForBoard),
        };
        if cards.len() != next.cards() {
            return Err(RuleError::WrongCardCount {
                street: next,
                expected: next.cards(),
                got: cards.len(),
            });
        }
        s.check_new_cards(cards, CardTarget::Board)?;
        self.emit(Event::BoardDealt {
            street: next,
            cards: cards.to_vec(),
        });
        Ok(())
    }
}

impl HandState {
    /// Cards the caller gives for `target`: none twice, none on the board, none in another
    /// seat's hand (refused without saying which card or whose hand).
    pub(super) fn check_new_cards(
        &self,
        cards: &[Card],
        target: CardTarget,
    ) -> Result<(), RuleError> {
        for (i, card) in cards.iter().enumerate() {
            if cards[..i].contains(card) {
                return Err(RuleError::DuplicateCard { card: *card });
            }
            let first_run = self.first_board.iter().flatten().flatten();
            if self.board().chain(first_run.copied()).any(|c| c == *card) {
                return Err(RuleError::OnTheBoard { card: *card });
            }
        }
        if cards.iter().any(|card| {
            self.live_players_iter(true)
                .any(|p| p.hole.is_some_and(|h| h.contains(card)))
        }) {
            return Err(RuleError::CardUnavailable { target });
        }
        Ok(())
    }

    /// The next street's cards from the seeded deck, burning one first. Hole cards take
    /// the first `2n` cards.
    pub(super) fn next_board_cards(&self, street: Street) -> Vec<Card> {
        let Some(deck) = self.deck else {
            return Vec::new();
        };
        let start = usize::from(self.deck_next) + 1;
        deck[start..start + street.cards()].to_vec()
    }
}
