//! Deciding on the clock: advancing levels (and breaks) and removing absent entrants when
//! their time is up.

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
