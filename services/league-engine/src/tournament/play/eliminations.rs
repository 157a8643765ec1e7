//! Deciding eliminations: who goes out, in which order and place, and recorded chip counts.

use super::*;

impl Run<'_> {
    pub(super) fn eliminate_group(
        &mut self,
        players: Vec<PlayerId>,
        table: Option<u32>,
        rule: String,
        reason: String,
    ) {
        self.emit(TournamentEvent::PlayersEliminated {
            players,
            table,
            hand: None,
            tied: false,
            ranked: false,
            knockouts: Vec::new(),
            chips_to: None,
            chips: Chips::ZERO,
            rule,
            reason,
        });
    }

    /// Results tracking: `players` out, `by` taking their chips. With `order_unknown` they
    /// went out at separate tables in an order nobody can tell, and share the places where
    /// the house says so (Oracle tournament 3).
    pub(super) fn eliminate(
        &mut self,
        players: &[PlayerId],
        by: Option<&PlayerId>,
        order_unknown: bool,
    ) -> Result<()> {
        self.running()?;
        self.tracking(&[Tracking::Results])?;
        if order_unknown {
            let preset = self.schedule()?.preset;
            if preset != Preset::Oracle {
                return Err(TournamentError::OrderOfEliminationNeeded {
                    preset: preset.name(),
                });
            }
            if players.len() < 2 {
                return Err(TournamentError::NotEnoughPlayers {
                    players: players.len(),
                });
            }
        }
        // No hand is played while a redraw or a colour-up is due, so nobody goes out.
        if self.state.redraw.is_some() {
            return Err(TournamentError::RedrawDue);
        }
        if self.state.colour_up_due.is_some() {
            return Err(TournamentError::ColourUpDue);
        }
        if players.is_empty() {
            return Err(TournamentError::NotEnoughPlayers { players: 0 });
        }
        let mut seen = BTreeSet::new();
        let mut group = Vec::with_capacity(players.len());
        for id in players {
            if !seen.insert(id) {
                return Err(TournamentError::DuplicatePlayer(id.clone()));
            }
            let p = self.entrant(id.as_str())?;
            if !p.is_in() {
                return Err(TournamentError::NotSeated(id.clone()));
            }
            group.push((id.clone(), p.chips));
        }
        if order_unknown {
            let mut at: BTreeMap<u32, &PlayerId> = BTreeMap::new();
            for id in players {
                let (table, _) = self.seated(id.as_str())?;
                if let Some(other) = at.insert(table, id) {
                    return Err(TournamentError::OutAtOneTable(
                        other.clone(),
                        id.clone(),
                        table,
                    ));
                }
            }
        }
        if let Some(by) = by {
            if seen.contains(by) {
                return Err(TournamentError::DuplicatePlayer(by.clone()));
            }
            let (by_table, _) = self.seated(by.as_str())?;
            // A knockout is by a player at the same table: the chips stay at the table.
            for id in players {
                let (table, _) = self.seated(id.as_str())?;
                if table != by_table {
                    return Err(TournamentError::KnockoutFromAnotherTable {
                        player: id.clone(),
                        table,
                        by: by.clone(),
                        by_table,
                    });
                }
            }
        }
        if self.state.remaining() <= players.len() {
            return Err(TournamentError::NotEnoughPlayers {
                players: self.state.remaining() - players.len(),
            });
        }
        // Where re-buys are on offer, a player knocked out with one left and the window open
        // is busted, not out (the pub's "bust, pay, play on"; invitational 1.3 sells them
        // only then): the host records the re-buy, or it is declined, before the next hand,
        // as when a dealt hand busts them.
        let level = self.level_now();
        let played = self.state.played(self.state.last_at);
        let after_bust = self.schedule()?.rebuys;
        let mut busted = Vec::new();
        if let Some(policy) = after_bust {
            group.retain(|(id, _)| {
                let can = window("re-buys", &policy, level, played).is_ok()
                    && self.state.players.get(id).is_some_and(|p| {
                        p.rebuys < policy.per_player
                            && matches!(p.standing, Standing::Seated { .. })
                    });
                if can {
                    busted.push(id.clone());
                }
                !can
            });
        }
        for id in busted {
            let (table, seat) = self.seated(id.as_str())?;
            self.emit(TournamentEvent::PlayerBusted {
                player: id,
                table,
                seat,
                chips_to: by.cloned(),
            });
        }
        if group.is_empty() {
            return self.settle();
        }
        // Several out together: the house's order by the chips they started the hand
        // with (the counts last recorded); as listed when those are equal.
        let schedule = self.schedule()?;
        let rule = bust_rule(schedule.preset, schedule.house.bust_order);
        if schedule.house.bust_order == BustOrder::LargerStartingStack && !order_unknown {
            group.sort_by_key(|g| std::cmp::Reverse(g.1));
        }
        let chips: Chips = group.iter().map(|(_, c)| c).sum();
        let tables: BTreeSet<u32> = group
            .iter()
            .filter_map(|(id, _)| self.seated(id.as_str()).ok().map(|(t, _)| t))
            .collect();
        let table = tables.first().copied();
        let hfh = self.state.hand_for_hand.is_some();
        // Hand-for-hand: several out at one table are ranked by the house's rule; out at
        // several tables, they share.
        let ranked = hfh && tables.len() == 1 && group.len() > 1;
        let tied = hfh || (order_unknown && group.len() > 1);
        let knocked: Vec<PlayerId> = group.iter().map(|(id, _)| id.clone()).collect();
        self.emit(TournamentEvent::PlayersEliminated {
            players: knocked,
            table,
            hand: None,
            tied,
            ranked,
            knockouts: by
                .map(|by| {
                    group
                        .iter()
                        .map(|(p, _)| Knockout {
                            player: p.clone(),
                            by: by.clone(),
                        })
                        .collect()
                })
                .unwrap_or_default(),
            chips_to: by.cloned(),
            chips: if by.is_some() { chips } else { Chips::ZERO },
            rule: if hfh && !ranked {
                "hand-for-hand".into()
            } else if order_unknown {
                "Oracle tournament rule 3".into()
            } else {
                rule.into()
            },
            reason: if order_unknown {
                "recorded by the host; out at separate tables in an order nobody can tell: \
                 they share the places and split the prizes"
                    .into()
            } else if hfh {
                format!(
                    "recorded by the host; {}",
                    super::hands::HAND_FOR_HAND_SHARED
                )
            } else {
                "recorded by the host".into()
            },
        });
        self.settle()
    }

    pub(super) fn record_chips(&mut self, counts: &[(PlayerId, Chips)]) -> Result<()> {
        self.running()?;
        self.tracking(&[Tracking::Results])?;
        let mut seen = BTreeSet::new();
        for (id, _) in counts {
            if !seen.insert(id.clone()) {
                return Err(TournamentError::DuplicatePlayer(id.clone()));
            }
            if !self.entrant(id.as_str())?.is_in() {
                return Err(TournamentError::NotSeated(id.clone()));
            }
        }
        if let Some((missing, _)) = self
            .state
            .players
            .iter()
            .find(|(id, p)| p.is_in() && !seen.contains(*id))
        {
            return Err(TournamentError::MissingCount(missing.clone()));
        }
        let got = counts
            .iter()
            .try_fold(Chips::ZERO, |sum, (_, c)| sum.checked_add(*c))
            .ok_or(TournamentError::Overflow)?;
        let expected = self.state.chips_in_play();
        if got != expected {
            return Err(TournamentError::ChipCountMismatch { expected, got });
        }
        self.emit(TournamentEvent::ChipsCounted {
            counts: counts.to_vec(),
        });
        Ok(())
    }

    /// A busted player who has still to decide on a re-buy.
    pub(super) fn any_busted(&self) -> Option<PlayerId> {
        self.state
            .players
            .iter()
            .find(|(_, p)| matches!(p.standing, Standing::Busted { .. }))
            .map(|(id, _)| id.clone())
    }

    /// A busted player at the table still has to decide on a re-buy: nobody moves from it.
    pub(super) fn busted_at(&self, number: u32) -> bool {
        self.state.tables.get(&number).is_some_and(|t| {
            t.seats.values().any(|id| {
                self.state
                    .players
                    .get(id)
                    .is_some_and(|p| matches!(p.standing, Standing::Busted { .. }))
            })
        })
    }
}

/// The rule that orders several players out in one hand.
pub(super) fn bust_rule(preset: Preset, order: BustOrder) -> &'static str {
    match (preset, order) {
        (_, BustOrder::BetterHandThenStack) => "invitational 10.1",
        (Preset::QueenSix, _) => "QueenSix 31",
        (Preset::Oracle, _) => "Oracle tournament rule 3",
        (Preset::Wph, _) => "WPH does not say: the larger starting stack (engine default)",
        _ => "the larger starting stack",
    }
}
