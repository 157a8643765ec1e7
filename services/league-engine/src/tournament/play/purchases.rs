//! Deciding purchases: late entries and re-entries, re-buys and add-ons, and their windows.

use super::*;

impl Run<'_> {
    pub(super) fn late_entry(
        &mut self,
        player: &str,
        at: Millis,
        seed: &Seed,
        next_commitment: Commitment,
    ) -> Result<()> {
        let schedule = self.running()?;
        self.clock(at)?;
        let level = self.level_now();
        let played = self.state.played(at);
        if !crate::units::is_id(player) {
            return Err(TournamentError::BadPlayerId);
        }
        let reentry = match self.state.players.get(player) {
            None => None,
            Some(p) if p.standing == Standing::Out => {
                if schedule.house.out_for_good_when_penalised
                    && self
                        .state
                        .penalties_of(player)
                        .any(|g| g.penalty.puts_out())
                {
                    return Err(TournamentError::PenalisedOut(PlayerId::from(
                        player.to_owned(),
                    )));
                }
                Some(p.entries)
            }
            Some(_) => {
                return Err(TournamentError::AlreadyRegistered(PlayerId::from(
                    player.to_owned(),
                )));
            }
        };
        if reentry.is_none() && self.state.players.len() >= super::registration::MAX_ENTRANTS {
            return Err(TournamentError::FieldFull {
                max: super::registration::MAX_ENTRANTS,
            });
        }
        let until = schedule.late_registration_until_level;
        let paid = schedule.pool.entry;
        let mut chips = schedule.starting_chips;
        let size = schedule.table_size;
        if let Some(entries) = reentry {
            let policy = schedule
                .reentries
                .ok_or(TournamentError::NotOffered("re-entries"))?;
            window("re-entries", &policy, level, played)?;
            if entries > policy.per_player {
                return Err(TournamentError::LimitReached {
                    what: "re-entries",
                    limit: policy.per_player,
                });
            }
            // A re-entry gives the chips its policy says (often the starting stack).
            chips = policy.chips;
        } else if level > until {
            return Err(TournamentError::RegistrationClosed {
                level,
                until_level: until,
            });
        } else {
            time_window(
                "late entries",
                schedule.late_registration_until_minutes,
                played,
            )?;
        }
        // QueenSix tournament 4: a stack placed in an unsold seat is there for a late
        // entrant, who takes it with the blinds it has paid. It is taken between hands.
        let unsold: Vec<(u32, Seat, Chips)> = if reentry.is_none() {
            self.state
                .tables
                .iter()
                .flat_map(|(&n, t)| t.unsold.iter().map(move |(&s, &c)| (n, s, c)))
                .collect()
        } else {
            Vec::new()
        };
        if let Some(&(table, _, _)) = unsold
            .iter()
            .find(|(n, _, _)| self.state.tables.get(n).is_some_and(Table::in_hand))
        {
            return Err(TournamentError::HandInProgress { table });
        }
        let drawn = self.reveal(seed)?;
        // Open seats at the tables with the fewest players; a new table when all are full.
        let fewest = self
            .state
            .tables
            .values()
            .filter(|t| t.taken_count() < usize::from(size))
            .map(|t| t.seats.len())
            .min();
        let held =
            (!unsold.is_empty()).then(|| unsold[pick(&drawn, unsold.len()).min(unsold.len() - 1)]);
        if let Some((_, _, stack)) = held {
            chips = stack;
        }
        let (table, seat, opened) = match (held, fewest) {
            (Some((table, seat, _)), _) => (table, seat, false),
            (None, Some(fewest)) => {
                let open: Vec<(u32, Seat)> = self
                    .state
                    .tables
                    .iter()
                    .filter(|(_, t)| t.seats.len() == fewest && t.taken_count() < usize::from(size))
                    .flat_map(|(&n, t)| (0..size).filter(|&s| !t.taken(s)).map(move |s| (n, s)))
                    .collect();
                let (t, s) = open[pick(&drawn, open.len()).min(open.len() - 1)];
                (t, s, false)
            }
            (None, None) => {
                let number = self.state.tables.keys().max().map_or(1, |n| n + 1);
                let s = pick(&drawn, usize::from(size));
                (number, Seat::try_from(s).unwrap_or(0), true)
            }
        };
        if opened {
            self.emit(TournamentEvent::TableOpened { table });
        }
        self.emit(TournamentEvent::PlayerEntered {
            player: PlayerId::from(player.to_owned()),
            reentry: reentry.is_some(),
            paid,
            chips,
            table,
            seat,
            opened_table: opened,
            seed: *seed,
            next_commitment,
            at,
        });
        self.settle()
    }

    pub(super) fn rebuy_policy(
        &self,
        player: &str,
        obliged: bool,
        at: Millis,
    ) -> Result<PurchasePolicy> {
        let schedule = self.running()?;
        self.clock(at)?;
        let policy = schedule
            .rebuys
            .ok_or(TournamentError::NotOffered("re-buys"))?;
        let p = self.entrant(player)?;
        if !p.is_in() {
            return Err(TournamentError::NotSeated(PlayerId::from(
                player.to_owned(),
            )));
        }
        if obliged {
            return Ok(policy);
        }
        window("re-buys", &policy, self.level_now(), self.state.played(at))?;
        if p.rebuys >= policy.per_player {
            return Err(TournamentError::LimitReached {
                what: "re-buys",
                limit: policy.per_player,
            });
        }
        let busted = matches!(p.standing, Standing::Busted { .. });
        if policy.after_bust_only && !busted {
            return Err(TournamentError::RebuyOnlyAfterBust);
        }
        if let Some(max) = policy.max_stack
            && p.chips > max
        {
            return Err(TournamentError::StackTooLarge {
                what: "re-buys",
                max,
                got: p.chips,
            });
        }
        Ok(policy)
    }

    pub(super) fn make_rebuy(&mut self, player: &str, obliged: bool, at: Millis) -> Result<()> {
        let policy = self.rebuy_policy(player, obliged, at)?;
        let paid = self
            .schedule()?
            .pool
            .rebuy
            .ok_or(TournamentError::NotOffered("re-buys"))?;
        self.emit(TournamentEvent::RebuyMade {
            player: PlayerId::from(player.to_owned()),
            chips: policy.chips,
            paid,
            obliged,
            at,
        });
        Ok(())
    }

    pub(super) fn announce_rebuy(&mut self, player: &str, at: Millis) -> Result<()> {
        self.rebuy_policy(player, false, at)?;
        let p = self.entrant(player)?;
        if p.rebuy_announced {
            return Err(TournamentError::RebuyAnnounced(PlayerId::from(
                player.to_owned(),
            )));
        }
        let in_hand = p
            .seat()
            .and_then(|(t, _)| self.state.tables.get(&t))
            .is_some_and(Table::in_hand);
        if in_hand {
            self.emit(TournamentEvent::RebuyAnnounced {
                player: PlayerId::from(player.to_owned()),
                at,
            });
            Ok(())
        } else {
            self.make_rebuy(player, false, at)
        }
    }

    pub(super) fn rebuy(&mut self, player: &str, at: Millis) -> Result<()> {
        let p = self.entrant(player)?;
        if let Some((t, _)) = p.seat() {
            self.between_hands(t)?;
        }
        self.make_rebuy(player, false, at)?;
        self.settle()
    }

    pub(super) fn add_on(&mut self, player: &str, at: Millis) -> Result<()> {
        let schedule = self.running()?;
        self.clock(at)?;
        let policy = schedule
            .add_ons
            .ok_or(TournamentError::NotOffered("add-ons"))?;
        let paid = schedule
            .pool
            .add_on
            .ok_or(TournamentError::NotOffered("add-ons"))?;
        window("add-ons", &policy, self.level_now(), self.state.played(at))?;
        let (table, _) = self.seated(player)?;
        self.between_hands(table)?;
        let p = self.entrant(player)?;
        if p.add_ons >= policy.per_player {
            return Err(TournamentError::LimitReached {
                what: "add-ons",
                limit: policy.per_player,
            });
        }
        if let Some(max) = policy.max_stack
            && p.chips > max
        {
            return Err(TournamentError::StackTooLarge {
                what: "add-ons",
                max,
                got: p.chips,
            });
        }
        self.emit(TournamentEvent::AddOnMade {
            player: PlayerId::from(player.to_owned()),
            chips: policy.chips,
            paid,
            at,
        });
        Ok(())
    }
}

/// Whether a purchase window is open at `level` with `played` milliseconds on the
/// tournament clock.
pub(super) fn window(
    what: &'static str,
    policy: &PurchasePolicy,
    level: u32,
    played: Millis,
) -> Result<()> {
    if level < policy.from_level || level > policy.until_level {
        return Err(TournamentError::WindowClosed {
            what,
            from_level: policy.from_level,
            until_level: policy.until_level,
            level,
        });
    }
    time_window(what, policy.until_minutes, played)
}
