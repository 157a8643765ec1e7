//! Deciding on the clock: advancing levels (and breaks), removing absent entrants when
//! their time is up, and the clock called on a player to act.

use super::*;

impl Run<'_> {
    pub(super) fn advance_level(&mut self, at: Millis) -> Result<()> {
        let schedule = self.running()?;
        self.clock(at)?;
        let next = self.state.level + 1;
        let Some(spec) = schedule.levels.get(next).copied() else {
            return Err(TournamentError::NoMoreLevels {
                level: self.level_now(),
            });
        };
        if self.state.colour_up_due.is_some() {
            return Err(TournamentError::ColourUpDue);
        }
        let rebuys = schedule.rebuys;
        self.emit(TournamentEvent::LevelStarted {
            level: level_no(next),
            at,
            spec,
        });
        // The re-buy period is over (by level or by time): busted players waiting to
        // re-buy are out.
        let (level, played) = (self.level_now(), self.state.played(at));
        if rebuys.is_some_and(|r| {
            level > r.until_level || time_window("re-buys", r.until_minutes, played).is_err()
        }) {
            let waiting: Vec<(PlayerId, u32)> = self
                .state
                .players
                .iter()
                .filter_map(|(id, p)| match p.standing {
                    Standing::Busted { table, .. } => Some((id.clone(), table)),
                    _ => None,
                })
                .collect();
            for (id, table) in waiting {
                self.eliminate_group(
                    vec![id],
                    Some(table),
                    "re-buy period".into(),
                    "the re-buy period ended before the player re-bought".into(),
                );
            }
            self.settle()?;
        }
        Ok(())
    }

    /// Calls the clock on `seat`, who must be the player to act at `table`.
    pub(super) fn call_clock(&mut self, number: u32, seat: Seat, at: Millis) -> Result<()> {
        let schedule = self.running()?;
        let table = self.table(number)?;
        let Some(hand) = table.hand.as_deref().filter(|h| !h.is_over()) else {
            return Err(TournamentError::NoHandInProgress { table: number });
        };
        if let Some(called) = table.clock {
            return Err(TournamentError::ClockAlreadyCalled {
                table: number,
                seat: called.seat,
            });
        }
        let to_act = hand.to_act();
        if to_act != Some(seat) {
            return Err(TournamentError::Hand(RuleError::NotYourTurn {
                expected: to_act,
                got: seat,
            }));
        }
        let clock = schedule.preset.rules().clock;
        let seconds = Millis::from(clock.seconds).saturating_add(Millis::from(clock.countdown));
        let expires_at = at.saturating_add(seconds.saturating_mul(1000));
        self.emit(TournamentEvent::ClockCalled {
            table: number,
            seat,
            at,
            expires_at,
        });
        Ok(())
    }

    /// The clock called at `table` has run out by `at`: the player's hand is dead.
    pub(super) fn clock_ran_out(&mut self, number: u32, at: Millis) -> Result<()> {
        self.running()?;
        let Some(called) = self.table(number)?.clock else {
            return Err(TournamentError::NoClockCalled { table: number });
        };
        if at < called.expires_at {
            return Err(TournamentError::ClockNotOut {
                table: number,
                expires_at: called.expires_at,
            });
        }
        self.hand(number, &HandCommand::ClockExpired { seat: called.seat })
    }

    pub(super) fn remove_absent(&mut self, player: &str, at: Millis) -> Result<()> {
        let schedule = self.running()?;
        let removal = schedule.house.absent_removal;
        self.clock(at)?;
        let p = self.entrant(player)?;
        if !p.absent || !p.absent_entrant {
            return Err(TournamentError::NotAnAbsentEntrant(PlayerId::from(
                player.to_owned(),
            )));
        }
        let (table, _) = self.seated(player)?;
        self.between_hands(table)?;
        let rule = match removal {
            AbsentRemoval::AfterNewLevelOrHalfHour => {
                let (level, from_at) = self.state.absent_from.unwrap_or((0, Millis::MAX));
                if self.state.level <= level && at < from_at {
                    return Err(TournamentError::TooEarlyToRemove {
                        rule: "QueenSix 3".into(),
                        from_level: level_no(level + 1),
                        from_at,
                    });
                }
                "QueenSix 3"
            }
            AbsentRemoval::Director => "director's discretion (invitational 2.7)",
        };
        let chips = p.chips;
        self.emit(TournamentEvent::AbsentPlayerRemoved {
            player: PlayerId::from(player.to_owned()),
            chips,
            rule: rule.into(),
        });
        self.eliminate_group(
            vec![PlayerId::from(player.to_owned())],
            Some(table),
            rule.into(),
            "absent entrant's chips removed from play".into(),
        );
        self.settle()
    }
}

/// Whether `played` milliseconds are within the first `until_minutes` minutes.
pub(super) fn time_window(
    what: &'static str,
    until_minutes: Option<u32>,
    played: Millis,
) -> Result<()> {
    match until_minutes {
        Some(minutes) if played >= Millis::from(minutes).saturating_mul(60_000) => {
            Err(TournamentError::TimeWindowClosed {
                what,
                until_minutes: minutes,
                played_ms: played,
            })
        }
        _ => Ok(()),
    }
}
