//! Deciding money and chips: colour-ups, penalties, payouts, deals, and the finish.

use super::*;

impl Run<'_> {
    pub(super) fn colour_up(
        &mut self,
        seed: Option<&Seed>,
        next: Option<Commitment>,
    ) -> Result<()> {
        let schedule = self.running()?;
        let policy = schedule.house.colour_up;
        let preset = schedule.preset;
        let d = self
            .state
            .colour_up_due
            .ok_or(TournamentError::NoColourUpDue)?;
        if let Some((&table, _)) = self.state.tables.iter().find(|(_, t)| t.in_hand()) {
            return Err(TournamentError::HandInProgress { table });
        }
        let unsold: Vec<String> = self
            .state
            .tables
            .iter()
            .flat_map(|(n, t)| t.unsold.keys().map(move |s| format!("table {n} seat {s}")))
            .collect();
        if !unsold.is_empty() {
            return Err(TournamentError::UnsoldStacksBeforeRace { seats: unsold });
        }
        let (seed, drawn, next) = match (policy, seed, next) {
            (ColourUpPolicy::ChipRace, Some(seed), Some(next)) => {
                let drawn = self.reveal(seed)?;
                (Some(*seed), Some(drawn), Some(next))
            }
            (ColourUpPolicy::ChipRace, _, _) => return Err(TournamentError::RaceNeedsSeed),
            (ColourUpPolicy::RoundUp, _, _) => (None, None, None),
        };
        let mut players = Vec::new();
        let (mut removed, mut added) = (Chips::ZERO, Chips::ZERO);
        for (&number, table) in &self.state.tables {
            let mut holdings = Vec::new();
            for (&seat, id) in &table.seats {
                let chips = self.entrant(id.as_str())?.chips;
                // Every other chip in play is a multiple of `high`: the low chips are
                // what is left over above the last multiple.
                let low_value = chips % d.high;
                holdings.push(Holding {
                    seat,
                    low_chips: low_value / d.low,
                    other_value: (chips - low_value + low_value % d.low).get(),
                });
            }
            let race = drawn.map(|s| derive_seed(&s, "race", number));
            let up = colour_up(policy, d.low.get(), d.high.get(), &holdings, race.as_ref())?;
            removed += Chips::new(up.removed);
            added += Chips::new(up.added);
            for c in up.players {
                let Some(id) = table.seats.get(&c.seat) else {
                    continue;
                };
                players.push(ColouredPlayer {
                    player: id.clone(),
                    table: number,
                    seat: c.seat,
                    before: self.entrant(id.as_str())?.chips,
                    after: Chips::new(c.value),
                    cards: c.cards,
                    raced: c.raced,
                });
            }
        }
        let rule = match (preset, policy) {
            (Preset::QueenSix, _) => "QueenSix 8",
            (Preset::Wph, ColourUpPolicy::RoundUp) => "WPH 17 (nightly games)",
            (Preset::Wph, ColourUpPolicy::ChipRace) => "WPH 17 (major events)",
            (Preset::Invitational, _) => "invitational 2.4",
            (_, ColourUpPolicy::RoundUp) => "round up",
            (_, ColourUpPolicy::ChipRace) => "chip race",
        };
        self.emit(TournamentEvent::ChipsColouredUp {
            low: d.low,
            high: d.high,
            policy,
            players,
            removed,
            added,
            seed,
            next_commitment: next,
            rule: rule.into(),
        });
        Ok(())
    }

    pub(super) fn penalise(&mut self, player: &str, penalty: Penalty) -> Result<()> {
        let schedule = self.running()?;
        let rule = schedule.house.penalty_rule.clone();
        let preset = schedule.preset;
        let p = self.entrant(player)?;
        let id = PlayerId::from(player.to_owned());
        if !p.is_in() {
            return Err(TournamentError::NotSeated(id));
        }
        let stack = p.chips;
        let (table, _) = p.seat().ok_or(TournamentError::NotSeated(id.clone()))?;
        // WPH 47, Oracle tournament 4: "a one-hand penalty, one-, two-, three-, or
        // four-round penalties", and "repeat infractions are subject to escalating
        // penalties".
        if let Some(book_rule) = escalation_rule(preset) {
            let bounded = match penalty {
                Penalty::MissHands(h) => h == 1,
                Penalty::MissRounds(r) => (1..=4).contains(&r),
                _ => true,
            };
            if !bounded {
                return Err(TournamentError::BreaksPreset {
                    preset: preset.name(),
                    rule: book_rule,
                    field: "count",
                    what: "a missed-hands penalty is one hand, or one to four rounds".into(),
                });
            }
            if let (true, Some(least), Some(rung)) = (
                schedule.house.escalating_penalties,
                self.state.least_penalty(player),
                penalty.rung(),
            ) && least.rung().is_some_and(|least| rung < least)
            {
                let heaviest = self
                    .state
                    .penalties_of(player)
                    .filter(|g| g.penalty.rung().is_some())
                    .max_by_key(|g| g.penalty.rung())
                    .map(|g| g.penalty.to_string())
                    .unwrap_or_default();
                return Err(TournamentError::BreaksPreset {
                    preset: preset.name(),
                    rule: book_rule,
                    field: "penalty",
                    what: format!(
                        "repeat infractions escalate: {player}'s heaviest penalty so far is \
                         {heaviest}, so the next is at least {least}"
                    ),
                });
            }
        }
        if matches!(penalty, Penalty::MissHands(0) | Penalty::MissRounds(0)) {
            return Err(TournamentError::BadPenalty {
                field: "count",
                why: "a missed-hands penalty is at least one hand or one round".into(),
            });
        }
        if let Penalty::Forfeit(chips) = penalty {
            let unit = self.state.chip_unit.max(Chips::new(1));
            if chips.is_zero() || chips >= stack {
                return Err(TournamentError::BadPenalty {
                    field: "chips",
                    why: format!(
                        "a forfeiture is more than no chips and fewer than the player's \
                         {stack}; to remove them all, disqualify or eliminate the player"
                    ),
                });
            }
            if !chips.is_multiple_of(unit) {
                return Err(TournamentError::BadPenalty {
                    field: "chips",
                    why: format!(
                        "a forfeiture of {chips} chips is not a whole number of the smallest \
                         chip in play ({unit})"
                    ),
                });
            }
            self.between_hands(table)?;
        }
        let at_table = count(self.table(table)?.seats.len());
        let hands = match penalty {
            Penalty::MissHands(h) => h,
            Penalty::MissRounds(r) => r.saturating_mul(at_table),
            _ => 0,
        };
        if penalty.puts_out() {
            self.between_hands(table)?;
            self.emit(TournamentEvent::PenaltyGiven {
                player: id.clone(),
                penalty,
                hands,
                rule: rule.clone(),
            });
            let reason = if penalty == Penalty::Disqualify {
                self.emit(TournamentEvent::PlayerDisqualified {
                    player: id.clone(),
                    chips_removed: stack,
                    rule: rule.clone(),
                });
                "disqualified: chips removed from play".to_owned()
            } else {
                format!("eliminated as a penalty: {stack} chips removed from play")
            };
            self.eliminate_group(vec![id], Some(table), rule, reason);
            return self.settle();
        }
        self.emit(TournamentEvent::PenaltyGiven {
            player: id,
            penalty,
            hands,
            rule,
        });
        Ok(())
    }

    pub(super) fn set_payouts(&mut self, amounts: &[Cents]) -> Result<()> {
        if self.state.stage == Stage::Finished {
            return Err(TournamentError::Finished);
        }
        let pool = self.state.prize_pool()?.total;
        if amounts.is_empty() {
            return Err(TournamentError::BadPayouts("no places paid".into()));
        }
        if amounts.windows(2).any(|w| w[1] > w[0]) {
            return Err(TournamentError::BadPayouts(
                "a place pays more than the place above".into(),
            ));
        }
        if amounts.len() > self.state.field() {
            return Err(TournamentError::BadPayouts(format!(
                "{} places paid, {} players",
                amounts.len(),
                self.state.field()
            )));
        }
        let sum = amounts
            .iter()
            .try_fold(Cents::ZERO, |s, a| s.checked_add(*a))
            .ok_or(TournamentError::Overflow)?;
        if sum != pool {
            return Err(TournamentError::PayoutsDoNotSumToPool { pool, sum });
        }
        self.emit(TournamentEvent::PayoutsSet {
            pool,
            amounts: amounts.to_vec(),
        });
        Ok(())
    }

    pub(super) fn deal(&mut self, kind: DealKind, accepted: &[PlayerId]) -> Result<()> {
        self.running()?;
        let schedule = self.schedule()?;
        if !schedule.house.deals_allowed {
            return Err(TournamentError::DealsNotAllowed {
                rule: deals_rule(schedule.preset).into(),
            });
        }
        if let Some((&table, _)) = self.state.tables.iter().find(|(_, t)| t.in_hand()) {
            return Err(TournamentError::HandInProgress { table });
        }
        let remaining: Vec<(PlayerId, Chips)> = self
            .state
            .players
            .iter()
            .filter(|(_, p)| p.is_in())
            .map(|(id, p)| (id.clone(), p.chips))
            .collect();
        let accepted: BTreeSet<&PlayerId> = accepted.iter().collect();
        for id in &accepted {
            if !remaining.iter().any(|(r, _)| r == *id) {
                return Err(TournamentError::NotInDeal((*id).clone()));
            }
        }
        let missing: Vec<PlayerId> = remaining
            .iter()
            .filter(|(id, _)| !accepted.contains(id))
            .map(|(id, _)| id.clone())
            .collect();
        if !missing.is_empty() {
            return Err(TournamentError::DealNotAccepted { missing });
        }
        let prizes = self.state.prizes()?;
        let top: Vec<Cents> = (0..remaining.len())
            .map(|i| prizes.get(i).copied().unwrap_or(Cents::ZERO))
            .collect();
        let stacks: Vec<Chips> = remaining.iter().map(|(_, c)| *c).collect();
        let amounts = deal(kind, &top, &stacks)?;
        self.emit(TournamentEvent::DealMade {
            kind,
            players: remaining.into_iter().map(|(id, _)| id).collect(),
            stacks,
            amounts,
        });
        self.finish()
    }

    /// Carries the tournament forward: hand-for-hand, balancing, breaking, the finish.
    pub(super) fn settle(&mut self) -> Result<()> {
        self.hand_for_hand();
        self.rebalance()?;
        self.hand_for_hand();
        let remaining = self.state.remaining();
        let waiting = self
            .state
            .players
            .values()
            .any(|p| matches!(p.standing, Standing::Busted { .. }));
        if remaining <= 1 && !waiting && !self.state.in_any_hand() {
            self.finish()?;
        }
        Ok(())
    }

    pub(super) fn finish(&mut self) -> Result<()> {
        self.clear_unsold(None, "the tournament is over: one player is left");
        let pool = self.state.prize_pool()?;
        let prizes = self.state.prizes()?;
        let mut places = self.state.places();
        // The players still in finish by the deal (by chips), or the last one wins.
        let remaining: Vec<(PlayerId, Chips)> = self
            .state
            .players
            .iter()
            .filter(|(_, p)| p.is_in())
            .map(|(id, p)| (id.clone(), p.chips))
            .collect();
        let mut by_chips = remaining.clone();
        by_chips.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        for (i, (id, _)) in by_chips.iter().enumerate() {
            if let Some(entry) = places.iter_mut().find(|(p, _, _)| p == id) {
                entry.1 = count(i + 1);
                entry.2 = 1;
            }
        }
        places.sort_by(|a, b| a.1.cmp(&b.1).then_with(|| a.0.cmp(&b.0)));
        // Groups in finishing order for the payout of ties.
        let mut groups = Vec::new();
        let mut i = 0;
        while i < places.len() {
            let shared = usize::try_from(places[i].2).unwrap_or(1).max(1);
            groups.push(shared);
            i += shared;
        }
        let paid = pay_finish(&prizes, &groups)?;
        let deal = self.state.deal.clone();
        let results = places
            .iter()
            .zip(paid)
            .map(|((id, place, shared), prize)| {
                let p = self.state.players.get(id).cloned().unwrap_or_default();
                let prize = deal
                    .as_ref()
                    .and_then(|(players, amounts)| {
                        players
                            .iter()
                            .position(|d| d == id)
                            .and_then(|k| amounts.get(k).copied())
                    })
                    .unwrap_or(prize);
                Finish {
                    player: id.clone(),
                    place: *place,
                    shared: *shared,
                    prize,
                    entries: p.entries,
                    rebuys: p.rebuys,
                    add_ons: p.add_ons,
                    knockouts: p.knockouts,
                }
            })
            .collect();
        self.emit(TournamentEvent::TournamentFinished { pool, results });
        Ok(())
    }
}

/// The rule a house that takes no deals names.
fn deals_rule(preset: Preset) -> &'static str {
    match preset {
        Preset::QueenSix => {
            "QueenSix 33: private agreements by remaining players in an event regarding \
             distribution of the prize pool are not allowed"
        }
        _ => "this tournament's house rules take no deals",
    }
}

/// The rule number of the preset's book that bounds missed-hands penalties and escalates
/// repeat infractions (WPH 47, Oracle tournament 4), or `None` where the book leaves both
/// to the host.
pub(super) fn escalation_rule(preset: Preset) -> Option<&'static str> {
    match preset {
        Preset::Wph => Some("47"),
        Preset::Oracle => Some("tournament 4"),
        _ => None,
    }
}
