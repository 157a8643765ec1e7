//! Deciding unsold seats: a starting stack placed in an empty seat, dealt in and blinded
//! as an absent player's, and its leaving play (invitational 2.7, QueenSix tournament 4).

use super::*;

/// The rule that lets `preset`'s staff place a stack in an unsold seat, if its book has one.
pub(super) fn unsold_rule(preset: Preset) -> Option<&'static str> {
    match preset {
        Preset::Invitational => Some(
            "invitational 2.7: unsold seats will have a chip stack, and blinds will be taken from their stacks",
        ),
        Preset::QueenSix => Some(
            "QueenSix tournament 4: a starting stack may be placed in a seat to accommodate late entrants",
        ),
        _ => None,
    }
}

impl Run<'_> {
    /// Places the starting stack in the empty seat `seat` of table `number`, between hands.
    pub(super) fn place_unsold_stack(&mut self, number: u32, seat: Seat) -> Result<()> {
        let schedule = self.running()?;
        let preset = schedule.preset;
        let size = schedule.table_size;
        let chips = schedule.starting_chips;
        let rule = unsold_rule(preset).ok_or(TournamentError::NoUnsoldStacks {
            preset: preset.name(),
        })?;
        self.tracking(&[Tracking::Dealt, Tracking::Recorded])?;
        self.between_hands(number)?;
        let table = self.table(number)?;
        if seat >= size || table.taken(seat) {
            return Err(TournamentError::SeatTaken {
                table: number,
                seat,
            });
        }
        self.emit(TournamentEvent::UnsoldStackPlaced {
            table: number,
            seat,
            chips,
            rule: rule.into(),
        });
        Ok(())
    }

    /// The director removes the stack of the unsold seat `seat` at table `number`, between
    /// hands.
    pub(super) fn remove_unsold_stack(&mut self, number: u32, seat: Seat, why: &str) -> Result<()> {
        self.running()?;
        let reason = super::corrections::reason(why)?;
        self.between_hands(number)?;
        let chips =
            *self
                .table(number)?
                .unsold
                .get(&seat)
                .ok_or(TournamentError::NoUnsoldStack {
                    table: number,
                    seat,
                })?;
        self.emit(TournamentEvent::UnsoldStackRemoved {
            table: number,
            seat,
            chips,
            reason: format!("removed by the director: {reason}"),
        });
        self.settle()
    }

    /// After a hand at table `number`: an unsold seat's stack with no chips left leaves
    /// its seat.
    pub(super) fn clear_blinded_away(&mut self, number: u32) {
        let gone: Vec<Seat> = self.state.tables.get(&number).map_or_else(Vec::new, |t| {
            t.unsold
                .iter()
                .filter(|(_, chips)| chips.is_zero())
                .map(|(&seat, _)| seat)
                .collect()
        });
        for seat in gone {
            self.emit(TournamentEvent::UnsoldStackRemoved {
                table: number,
                seat,
                chips: Chips::ZERO,
                reason: "blinded away: the stack has no chips left".into(),
            });
        }
    }

    /// Takes every unsold seat's stack at table `number` (every table: `None`) out of play,
    /// for `reason` (the table broken, the seats redrawn, the tournament over).
    pub(super) fn clear_unsold(&mut self, number: Option<u32>, reason: &str) {
        let stacks: Vec<(u32, Seat, Chips)> = self
            .state
            .tables
            .iter()
            .filter(|(n, _)| number.is_none_or(|wanted| **n == wanted))
            .flat_map(|(&n, t)| t.unsold.iter().map(move |(&seat, &chips)| (n, seat, chips)))
            .collect();
        for (table, seat, chips) in stacks {
            self.emit(TournamentEvent::UnsoldStackRemoved {
                table,
                seat,
                chips,
                reason: reason.to_owned(),
            });
        }
    }
}
