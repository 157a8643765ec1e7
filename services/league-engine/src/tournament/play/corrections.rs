//! Corrections by the venue's staff: cancelling a tournament, reinstating a player
//! eliminated by mistake, and putting a stack, a seat or the button right between hands.
//! Each is an event of its own with the staff's reason; nothing already recorded is
//! changed.

use super::*;

/// A reason as staff give it: [`crate::units::TEXT_RULE`].
pub(super) fn reason(text: &str) -> Result<String> {
    if !crate::units::is_text(text) {
        return Err(TournamentError::BadReason);
    }
    Ok(text.trim().to_owned())
}

impl Run<'_> {
    pub(super) fn cancel(&mut self, why: &str) -> Result<()> {
        match self.state.stage {
            Stage::New => return Err(TournamentError::NotScheduled),
            Stage::Scheduled | Stage::Running => {}
            Stage::Finished => return Err(TournamentError::Finished),
            Stage::Cancelled => return Err(TournamentError::Cancelled),
        }
        let reason = reason(why)?;
        let refunds = self
            .state
            .players
            .iter()
            .filter(|(_, p)| p.paid > Cents::ZERO)
            .map(|(player, p)| Refund {
                player: player.clone(),
                amount: p.paid,
            })
            .collect();
        self.emit(TournamentEvent::TournamentCancelled { reason, refunds });
        Ok(())
    }

    pub(super) fn reinstate(&mut self, player: &str, why: &str) -> Result<()> {
        self.running()?;
        self.tracking(&[Tracking::Results])?;
        let reason = reason(why)?;
        let id = PlayerId::from(player.to_owned());
        // Out, or busted and still to decide on a re-buy (the bust was the mistake).
        let p = self.entrant(player)?;
        if !matches!(p.standing, Standing::Out | Standing::Busted { .. }) {
            return Err(TournamentError::NotOut(id));
        }
        let cannot = |why: String| TournamentError::CannotReinstate {
            player: id.clone(),
            why,
        };
        let lost = self.state.lost.get(player).cloned().ok_or_else(|| {
            cannot("they were not eliminated at a table (disqualified or removed absent)".into())
        })?;
        // The chips come back from whoever was given them, or from the chips nobody was
        // given yet; once counted into other stacks, the count is the record.
        let from = match &lost.to {
            Some(to) if self.entrant(to.as_str())?.chips >= lost.chips => Some(to.clone()),
            _ if self.state.unallocated >= lost.chips => None,
            Some(to) => {
                return Err(cannot(format!(
                    "their {} chips went to {to}, who no longer holds them",
                    lost.chips
                )));
            }
            None => {
                return Err(cannot(format!(
                    "their {} chips have since been counted into other stacks",
                    lost.chips
                )));
            }
        };
        let (table, seat) = self.seat_for(&id, lost.table, lost.seat)?;
        self.emit(TournamentEvent::PlayerReinstated {
            player: id,
            table,
            seat,
            chips: lost.chips,
            from,
            reason,
        });
        self.settle()
    }

    /// Moves `chips` from `from` to `to` at `table`, between the table's last hand and its
    /// next (the dispute window: the next hand's start closes it).
    pub(super) fn correct_chips(
        &mut self,
        number: u32,
        from: &PlayerId,
        to: &PlayerId,
        chips: Chips,
        why: &str,
    ) -> Result<()> {
        self.running()?;
        self.tracking(&[Tracking::Dealt, Tracking::Recorded])?;
        let reason = reason(why)?;
        if chips == Chips::ZERO {
            return Err(TournamentError::BadCorrection {
                field: "chips",
                why: "a correction moves at least one chip".into(),
            });
        }
        if from == to {
            return Err(TournamentError::BadCorrection {
                field: "to",
                why: "a correction moves chips from one player to another".into(),
            });
        }
        self.between_hands(number)?;
        let table = self.table(number)?;
        let cannot = |why: String| TournamentError::CannotCorrectChips { why };
        if table.hands == 0 {
            return Err(cannot(format!(
                "table {number} has played no hand since it opened"
            )));
        }
        let hand = table.hands;
        for player in [from, to] {
            match self.entrant(player.as_str())?.standing {
                Standing::Seated { table: t, .. } if t == number => {}
                _ => {
                    return Err(cannot(format!("{player} is not seated at table {number}")));
                }
            }
        }
        let has = self.entrant(from.as_str())?.chips;
        if chips >= has {
            return Err(cannot(format!(
                "{from} has {has} chips: a correction leaves a player at least one (a player \
                 is put out by the hand's rulings: void the hand, or play on)"
            )));
        }
        self.entrant(to.as_str())?
            .chips
            .checked_add(chips)
            .ok_or(TournamentError::Overflow)?;
        self.emit(TournamentEvent::ChipsCorrected {
            table: number,
            hand,
            from: from.clone(),
            to: to.clone(),
            chips,
            reason,
        });
        Ok(())
    }

    /// Puts `player` in `seat` at `table` with their chips (WPH 5), between hands at both
    /// tables; whoever sits there goes to the player's old seat.
    pub(super) fn correct_seat(
        &mut self,
        player: &PlayerId,
        number: u32,
        seat: Seat,
        why: &str,
    ) -> Result<()> {
        let size = self.running()?.table_size;
        let reason = reason(why)?;
        if seat >= size {
            return Err(TournamentError::BadCorrection {
                field: "seat",
                why: format!(
                    "seats are numbered from 0 to {} at this tournament",
                    size.saturating_sub(1)
                ),
            });
        }
        let cannot = |why: String| TournamentError::CannotCorrectSeat { why };
        let (from_table, from_seat) = match self.entrant(player.as_str())?.standing {
            Standing::Seated { table, seat } => (table, seat),
            _ => return Err(cannot(format!("{player} is not seated"))),
        };
        if (from_table, from_seat) == (number, seat) {
            return Err(TournamentError::BadCorrection {
                field: "seat",
                why: format!("{player} is already in seat {seat} at table {number}"),
            });
        }
        if self.table(number)?.unsold.contains_key(&seat) {
            return Err(cannot(format!(
                "seat {seat} at table {number} holds an unsold seat's stack: the director removes it first"
            )));
        }
        let swapped = self.table(number)?.seats.get(&seat).cloned();
        for t in [from_table, number] {
            if self.table(t)?.in_hand() {
                return Err(cannot(format!(
                    "a hand is in progress at table {t}: a seat is put right between hands"
                )));
            }
        }
        if let Some(other) = &swapped
            && !matches!(
                self.entrant(other.as_str())?.standing,
                Standing::Seated { .. }
            )
        {
            // A busted player deciding on a re-buy keeps the seat until they decide.
            return Err(cannot(format!(
                "seat {seat} at table {number} is held by {other}, who is deciding on a re-buy"
            )));
        }
        self.emit(TournamentEvent::SeatCorrected {
            player: player.clone(),
            from_table,
            from_seat,
            to_table: number,
            to_seat: seat,
            swapped,
            reason,
        });
        self.settle()
    }

    /// Puts the button for `number`'s next hand at `button`, between the table's last hand
    /// and its next.
    pub(super) fn correct_button(&mut self, number: u32, button: Seat, why: &str) -> Result<()> {
        let size = self.running()?.table_size;
        self.tracking(&[Tracking::Dealt, Tracking::Recorded])?;
        let reason = reason(why)?;
        if button >= size {
            return Err(TournamentError::BadCorrection {
                field: "button",
                why: format!(
                    "seats are numbered from 0 to {} at this tournament",
                    size.saturating_sub(1)
                ),
            });
        }
        self.between_hands(number)?;
        let table = self.table(number)?;
        let cannot = |why: String| TournamentError::CannotCorrectButton { why };
        if table.hands == 0 {
            return Err(cannot(format!(
                "table {number} has played no hand since its button was drawn"
            )));
        }
        if !table.seats.contains_key(&button) {
            return Err(cannot(format!(
                "seat {button} at table {number} is empty: the button goes to a player"
            )));
        }
        let was = self.state.upcoming(table).button;
        if was == button {
            return Err(cannot(format!(
                "the next hand's button is already at seat {button}"
            )));
        }
        self.emit(TournamentEvent::ButtonCorrected {
            table: number,
            hand: table.hands,
            button,
            was,
            reason,
        });
        Ok(())
    }

    /// The seat a reinstated player goes back to: their own if it is still open (or still
    /// theirs, when busted) at a table still in play, otherwise the first open seat at the table with the fewest players.
    fn seat_for(&self, player: &PlayerId, table: u32, seat: Seat) -> Result<(u32, Seat)> {
        if let Some(t) = self.state.tables.get(&table)
            && t.seats.get(&seat).is_none_or(|p| p == player)
            && !t.unsold.contains_key(&seat)
        {
            return Ok((table, seat));
        }
        let size = self.schedule()?.table_size;
        self.state
            .tables
            .iter()
            .filter(|(_, t)| t.taken_count() < usize::from(size))
            .min_by_key(|(number, t)| (t.seats.len(), **number))
            .and_then(|(number, t)| (0..size).find(|&s| !t.taken(s)).map(|s| (*number, s)))
            .ok_or(TournamentError::SeatTaken { table, seat })
    }
}
