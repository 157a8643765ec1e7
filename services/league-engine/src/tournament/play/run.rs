//! Deciding: the run over a copy of the state, the checks every command shares, and the
//! dispatch of each command to the area that decides it.

use super::*;

// ---------------------------------------------------------------------------------------
// Deciding
// ---------------------------------------------------------------------------------------

pub(super) struct Run<'a> {
    pub(super) state: &'a mut Tournament,
    pub(super) events: Vec<TournamentEvent>,
}

impl Run<'_> {
    pub(super) fn emit(&mut self, event: TournamentEvent) {
        self.state.apply(&event);
        self.events.push(event);
    }

    pub(super) fn schedule(&self) -> Result<&Schedule> {
        self.state
            .schedule
            .as_deref()
            .ok_or(TournamentError::NotScheduled)
    }

    pub(super) fn running(&self) -> Result<&Schedule> {
        match self.state.stage {
            Stage::New => Err(TournamentError::NotScheduled),
            Stage::Scheduled => Err(TournamentError::NotStarted),
            Stage::Finished => Err(TournamentError::Finished),
            Stage::Cancelled => Err(TournamentError::Cancelled),
            Stage::Running => self.schedule(),
        }
    }

    pub(super) fn entrant(&self, id: &str) -> Result<&Entrant> {
        self.state
            .players
            .get(id)
            .ok_or_else(|| TournamentError::UnknownPlayer(PlayerId::from(id.to_owned())))
    }

    pub(super) fn seated(&self, id: &str) -> Result<(u32, Seat)> {
        match self.entrant(id)?.standing {
            Standing::Seated { table, seat } => Ok((table, seat)),
            _ => Err(TournamentError::NotSeated(PlayerId::from(id.to_owned()))),
        }
    }

    pub(super) fn table(&self, number: u32) -> Result<&Table> {
        self.state
            .tables
            .get(&number)
            .ok_or(TournamentError::NoSuchTable(number))
    }

    pub(super) fn between_hands(&self, number: u32) -> Result<()> {
        if self.table(number)?.in_hand() {
            return Err(TournamentError::HandInProgress { table: number });
        }
        Ok(())
    }

    pub(super) fn tracking(&self, allowed: &[Tracking]) -> Result<()> {
        let tracking = self.schedule()?.tracking;
        if allowed.contains(&tracking) {
            Ok(())
        } else {
            Err(TournamentError::WrongTracking { tracking })
        }
    }

    /// Checks a revealed seed against the commitment and gives the seed the draw is made
    /// from: the revealed one, or with entropy pooled since the last draw, the two mixed
    /// (`EntropyMixed` is appended first, naming the entropy).
    pub(super) fn reveal(&mut self, seed: &Seed) -> Result<Seed> {
        match self.state.commitment {
            Some(c) if c.verifies(seed) => {}
            _ => return Err(TournamentError::BadSeed),
        }
        Ok(match self.state.entropy {
            Some(entropy) => {
                self.emit(TournamentEvent::EntropyMixed { entropy });
                mix_entropy(seed, &entropy)
            }
            None => *seed,
        })
    }

    pub(super) fn clock(&self, at: Millis) -> Result<()> {
        if at < self.state.last_at {
            return Err(TournamentError::ClockWentBack {
                last: self.state.last_at,
                got: at,
            });
        }
        Ok(())
    }

    pub(super) fn level_now(&self) -> u32 {
        level_no(self.state.level)
    }

    pub(super) fn command(&mut self, command: &TournamentCommand) -> Result<()> {
        if self.state.stage == Stage::Cancelled {
            return Err(TournamentError::Cancelled);
        }
        match command {
            TournamentCommand::Schedule(schedule) => self.schedule_cmd(schedule),
            TournamentCommand::Register { player } => self.register(player.as_str()),
            TournamentCommand::Unregister { player } => self.unregister(player.as_str()),
            TournamentCommand::Start {
                at,
                seed,
                next_commitment,
            } => self.start(*at, seed, *next_commitment),
            TournamentCommand::AdvanceLevel { at } => self.advance_level(*at),
            TournamentCommand::StartLevel { level, at } => {
                self.running()?;
                let current = self.level_now();
                if current.checked_add(1) != Some(*level) {
                    return Err(TournamentError::LevelMoved {
                        wanted: *level,
                        current,
                    });
                }
                self.advance_level(*at)
            }
            TournamentCommand::Pause { at } => {
                self.running()?;
                self.clock(*at)?;
                if self.state.paused_since.is_some() {
                    return Err(TournamentError::Paused);
                }
                self.emit(TournamentEvent::ClockPaused { at: *at });
                Ok(())
            }
            TournamentCommand::Resume { at } => {
                self.running()?;
                self.clock(*at)?;
                if self.state.paused_since.is_none() {
                    return Err(TournamentError::NotPaused);
                }
                self.emit(TournamentEvent::ClockResumed { at: *at });
                Ok(())
            }
            TournamentCommand::MarkAbsent { player } => {
                if self.state.stage == Stage::Finished {
                    return Err(TournamentError::Finished);
                }
                let p = self.entrant(player.as_str())?;
                if !p.is_in() && p.standing != Standing::Registered {
                    return Err(TournamentError::NotSeated(player.clone()));
                }
                if p.absent {
                    return Err(TournamentError::AlreadyAbsent(player.clone()));
                }
                self.emit(TournamentEvent::PlayerMarkedAbsent {
                    player: player.clone(),
                });
                Ok(())
            }
            TournamentCommand::Arrived { player } => {
                if !self.entrant(player.as_str())?.absent {
                    return Err(TournamentError::NotAbsent(player.clone()));
                }
                self.emit(TournamentEvent::PlayerArrived {
                    player: player.clone(),
                });
                Ok(())
            }
            TournamentCommand::RemoveAbsent { player, at } => {
                self.remove_absent(player.as_str(), *at)
            }
            TournamentCommand::LateEntry {
                player,
                at,
                seed,
                next_commitment,
            } => self.late_entry(player.as_str(), *at, seed, *next_commitment),
            TournamentCommand::StartHand {
                table,
                seed,
                hand_id,
            } => self.start_hand(*table, seed.as_ref(), hand_id.as_ref()),
            TournamentCommand::Hand { table, command } => self.hand(*table, command),
            TournamentCommand::CallClock { table, seat, at } => self.call_clock(*table, *seat, *at),
            TournamentCommand::ClockRanOut { table, at } => self.clock_ran_out(*table, *at),
            TournamentCommand::Eliminate { players, by } => {
                self.eliminate(players, by.as_ref(), false)
            }
            TournamentCommand::EliminateOrderUnknown { players } => {
                self.eliminate(players, None, true)
            }
            TournamentCommand::RecordChips { counts } => self.record_chips(counts),
            TournamentCommand::AnnounceRebuy { player, at } => {
                self.announce_rebuy(player.as_str(), *at)
            }
            TournamentCommand::Rebuy { player, at } => self.rebuy(player.as_str(), *at),
            TournamentCommand::DeclineRebuy { player } => {
                self.running()?;
                let p = self.entrant(player.as_str())?;
                if p.rebuy_announced {
                    return Err(TournamentError::RebuyAnnounced(player.clone()));
                }
                let Standing::Busted { table, .. } = p.standing else {
                    return Err(TournamentError::NotBusted(player.clone()));
                };
                self.eliminate_group(
                    vec![player.clone()],
                    Some(table),
                    "re-buy declined".into(),
                    "the player declined the re-buy".into(),
                );
                self.settle()
            }
            TournamentCommand::AddOn { player, at } => self.add_on(player.as_str(), *at),
            TournamentCommand::Redraw {
                seed,
                next_commitment,
            } => self.redraw(seed, *next_commitment),
            TournamentCommand::ColourUp {
                seed,
                next_commitment,
            } => self.colour_up(seed.as_ref(), *next_commitment),
            TournamentCommand::Penalise { player, penalty } => {
                self.penalise(player.as_str(), *penalty)
            }
            TournamentCommand::MovePlayer {
                player,
                to_table,
                to_seat,
            } => self.move_player(player.as_str(), *to_table, *to_seat),
            TournamentCommand::SetPayouts { amounts } => self.set_payouts(amounts),
            TournamentCommand::Deal { kind, accepted } => self.deal(*kind, accepted),
            TournamentCommand::Cancel { reason } => self.cancel(reason),
            TournamentCommand::AddEntropy { entropy } => {
                match self.state.stage {
                    Stage::New => return Err(TournamentError::NotScheduled),
                    Stage::Finished => return Err(TournamentError::Finished),
                    Stage::Scheduled | Stage::Running | Stage::Cancelled => {}
                }
                self.emit(TournamentEvent::EntropyAdded { entropy: *entropy });
                Ok(())
            }
            TournamentCommand::Reinstate { player, reason } => {
                self.reinstate(player.as_str(), reason)
            }
            TournamentCommand::CorrectChips {
                table,
                from,
                to,
                chips,
                reason,
            } => self.correct_chips(*table, from, to, *chips, reason),
            TournamentCommand::CorrectSeat {
                player,
                table,
                seat,
                reason,
            } => self.correct_seat(player, *table, *seat, reason),
            TournamentCommand::CorrectButton {
                table,
                button,
                reason,
            } => self.correct_button(*table, *button, reason),
            TournamentCommand::PlaceUnsoldStack { table, seat } => {
                self.place_unsold_stack(*table, *seat)
            }
            TournamentCommand::RemoveUnsoldStack {
                table,
                seat,
                reason,
            } => self.remove_unsold_stack(*table, *seat, reason),
        }
    }
}
