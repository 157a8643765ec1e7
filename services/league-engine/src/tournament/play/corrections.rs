//! Corrections by the venue's staff: cancelling a tournament, reinstating a player
//! eliminated by mistake, and putting a stack right between hands. Each is an event of its
//! own with the staff's reason; nothing already recorded is changed.

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

    /// The seat a reinstated player goes back to: their own if it is still open (or still
    /// theirs, when busted) at a table still in play, otherwise the first open seat at the table with the fewest players.
    fn seat_for(&self, player: &PlayerId, table: u32, seat: Seat) -> Result<(u32, Seat)> {
        if let Some(t) = self.state.tables.get(&table)
            && t.seats.get(&seat).is_none_or(|p| p == player)
        {
            return Ok((table, seat));
        }
        let size = self.schedule()?.table_size;
        self.state
            .tables
            .iter()
            .filter(|(_, t)| t.seats.len() < usize::from(size))
            .min_by_key(|(number, t)| (t.seats.len(), **number))
            .and_then(|(number, t)| {
                (0..size)
                    .find(|s| !t.seats.contains_key(s))
                    .map(|s| (*number, s))
            })
            .ok_or(TournamentError::SeatTaken { table, seat })
    }
}
