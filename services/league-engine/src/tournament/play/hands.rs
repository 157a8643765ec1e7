//! Deciding hands: their blinds and antes, starting one, running its commands, and what
//! follows it (busts, hand-for-hand).

use super::*;

impl Run<'_> {
    pub(super) fn blinds_now(&self, table: &Table) -> Result<(Blinds, Option<(Chips, Chips)>)> {
        let schedule = self.running()?;
        let Some(Level::Play { blinds, .. }) = schedule.levels.get(self.state.level).copied()
        else {
            return Err(TournamentError::OnBreak);
        };
        let Some(percent) = schedule.blind_cap_percent else {
            return Ok((blinds, None));
        };
        let stacks: Vec<Chips> = table
            .seats
            .values()
            .filter_map(|id| self.state.players.get(id).map(|p| p.chips))
            .collect();
        let players = u64::try_from(stacks.len()).unwrap_or(1).max(1);
        let average = stacks.iter().sum::<Chips>() / players;
        let unit = self.state.chip_unit.max(Chips::new(1));
        let cap = average.saturating_mul(u64::from(percent)) / 100 / unit * unit;
        if blinds.big_blind <= cap || cap.is_zero() {
            return Ok((blinds, None));
        }
        // The small blind and the ante keep their proportion to the big blind.
        let scale = |x: Chips| {
            let scaled = u128::from(x) * u128::from(cap) / u128::from(blinds.big_blind);
            Chips::new(u64::try_from(scaled).unwrap_or(x.get())) / unit * unit
        };
        let capped = Blinds {
            small_blind: scale(blinds.small_blind).max(unit).min(cap),
            big_blind: cap,
            ante: match blinds.ante {
                AnteStructure::None => AnteStructure::None,
                AnteStructure::Uniform(a) => AnteStructure::Uniform(scale(Chips::new(a)).get()),
                AnteStructure::BigBlind(a) => AnteStructure::BigBlind(scale(Chips::new(a)).get()),
            },
        };
        Ok((capped, Some((blinds.big_blind, average))))
    }

    pub(super) fn start_hand(
        &mut self,
        number: u32,
        seed: Option<&Seed>,
        hand_id: Option<&HandId>,
    ) -> Result<()> {
        self.running()?;
        if let Some(id) = hand_id
            && self.state.hand_ids.contains(id)
        {
            return Err(TournamentError::HandIdTaken(id.to_string()));
        }
        let tracking = self.schedule()?.tracking;
        match (tracking, seed) {
            (Tracking::Results, _) => return Err(TournamentError::WrongTracking { tracking }),
            (Tracking::Dealt, None) => return Err(TournamentError::SeedRequired),
            (Tracking::Recorded, Some(_)) => return Err(TournamentError::SeedNotAllowed),
            _ => {}
        }
        if self.state.paused_since.is_some() {
            return Err(TournamentError::Paused);
        }
        if self.state.redraw.is_some() {
            return Err(TournamentError::RedrawDue);
        }
        if self.state.colour_up_due.is_some() {
            return Err(TournamentError::ColourUpDue);
        }
        let table = self.table(number)?;
        if table.in_hand() {
            return Err(TournamentError::HandInProgress { table: number });
        }
        let waiting: Vec<PlayerId> = table
            .seats
            .values()
            .filter(|id| {
                self.state
                    .players
                    .get(*id)
                    .is_some_and(|p| matches!(p.standing, Standing::Busted { .. }))
            })
            .cloned()
            .collect();
        if !waiting.is_empty() {
            return Err(TournamentError::RebuyDecisionPending { players: waiting });
        }
        if self.state.halted().contains(&number) {
            return Err(TournamentError::TableHalted {
                table: number,
                rule: "WPH 7: play halts on any table three or more players short".into(),
            });
        }
        if let Some(hfh) = &self.state.hand_for_hand
            && hfh.played.contains(&number)
            && !self.state.round_played()
        {
            let waiting = self
                .state
                .tables
                .keys()
                .filter(|t| !hfh.played.contains(t))
                .copied()
                .collect();
            return Err(TournamentError::WaitingForHandForHand { waiting });
        }
        let (blinds, capped_from) = self.blinds_now(table)?;
        let occupied = table.occupied();
        if occupied.len() < 2 {
            return Err(TournamentError::NotEnoughPlayers {
                players: occupied.len(),
            });
        }
        let positions = match (table.last, table.button) {
            (Some(last), _) => {
                next_positions(&self.state.rules(), last, &occupied, &table.big_blinds)?
            }
            (None, Some(button)) => Positions::first(button, &occupied)?,
            (None, None) => Positions::first(occupied[0], &occupied)?,
        };
        let mut seats = Vec::with_capacity(occupied.len());
        let mut penalised = Vec::new();
        for (&seat, id) in &table.seats {
            let p = self.entrant(id.as_str())?;
            if p.missed_hands > 0 {
                penalised.push(id.clone());
            }
            seats.push(SeatSetup {
                seat,
                stack: p.chips.get(),
                absent: p.absent || p.missed_hands > 0,
            });
        }
        // Unsold seats are dealt in and blinded, and their hands folded, as an absent
        // player's (invitational 2.7 and 3.1).
        for (&seat, &chips) in &table.unsold {
            seats.push(SeatSetup {
                seat,
                stack: chips.get(),
                absent: true,
            });
        }
        seats.sort_unstable_by_key(|s| s.seat);
        let antes = match blinds.ante {
            AnteStructure::None => Vec::new(),
            AnteStructure::Uniform(amount) => {
                occupied.iter().map(|&seat| Ante { seat, amount }).collect()
            }
            AnteStructure::BigBlind(amount) => vec![Ante {
                seat: positions.big_blind,
                amount,
            }],
        };
        let setup = HandSetup {
            button: positions.button,
            seats,
            big_blind: blinds.big_blind.get(),
            blinds: positions.blinds(&occupied, blinds.small_blind.get(), blinds.big_blind.get()),
            antes: antes.into_iter().filter(|a| a.amount > 0).collect(),
            chip_unit: self.state.chip_unit.get(),
            absent_hands_dead: self.schedule()?.house.absent_hands_dead,
            dealing: match seed {
                Some(seed) => Dealing::Seeded {
                    commitment: seed.commitment(),
                },
                None => Dealing::Recorded,
            },
            rules: self.state.rules(),
            rake: None,
            run_twice: None,
        };
        let hand_events = hand::decide(
            &HandState::new(),
            &HandCommand::Start {
                setup,
                seed: seed.copied(),
            },
        )?;
        let hand_no = table.hands + 1;
        self.emit(TournamentEvent::TableHandStarted {
            table: number,
            hand: hand_no,
            hand_id: hand_id.cloned(),
            positions,
            blinds,
            capped_from,
            penalised,
        });
        for event in hand_events {
            self.emit(TournamentEvent::HandEvent {
                table: number,
                event,
            });
        }
        self.after_hand(number)
    }

    pub(super) fn hand(&mut self, number: u32, command: &HandCommand) -> Result<()> {
        self.running()?;
        if matches!(command, HandCommand::Start { .. }) {
            return Err(TournamentError::UseStartHand);
        }
        let table = self.table(number)?;
        let Some(hand) = table.hand.as_deref().filter(|h| !h.is_over()) else {
            return Err(TournamentError::NoHandInProgress { table: number });
        };
        let penalised = table.penalised.clone();
        let hand_events = hand::decide(hand, command)?;
        let voided = hand_events
            .iter()
            .any(|e| matches!(e, HandEvent::HandVoided { .. }));
        for event in hand_events {
            self.emit(TournamentEvent::HandEvent {
                table: number,
                event,
            });
        }
        if voided {
            self.emit(TournamentEvent::VoidHandNotCounted {
                table: number,
                penalised,
            });
        }
        self.after_hand(number)
    }

    /// After a hand ends: announced re-buys, busts, then balancing and the finish.
    pub(super) fn after_hand(&mut self, number: u32) -> Result<()> {
        let table = self.table(number)?;
        let Some(hand) = table.hand.as_deref() else {
            return Ok(());
        };
        if !hand.is_over() {
            return Ok(());
        }
        let hand_no = table.hands;
        let board: Vec<Card> = hand.board().collect();
        let mut busted: Vec<(PlayerId, Seat, Chips, Option<HandValue>)> = Vec::new();
        let mut announced = Vec::new();
        let mut knocker: BTreeMap<PlayerId, Option<PlayerId>> = BTreeMap::new();
        for &(seat, start) in &table.hand_start {
            let Some(id) = table.seats.get(&seat) else {
                continue;
            };
            let p = self.entrant(id.as_str())?;
            if p.rebuy_announced {
                announced.push(id.clone());
            } else if p.chips == Chips::ZERO {
                let value = hand.hole_cards(seat).and_then(|hole| {
                    let mut cards = board.clone();
                    cards.extend(hole);
                    <[Card; 7]>::try_from(cards)
                        .ok()
                        .map(|c| eval::evaluate7(&c))
                });
                busted.push((id.clone(), seat, start, value));
                // The knock-out goes to the first winner of the last pot the player
                // could win (the pot holding the last of their chips).
                let by = table
                    .awards
                    .iter()
                    .rev()
                    .find(|(eligible, _)| eligible.contains(&seat))
                    .and_then(|(_, winner)| *winner)
                    .and_then(|w| table.seats.get(&w).cloned());
                knocker.insert(id.clone(), by);
            }
        }
        let schedule = self.schedule()?;
        let rebuys = schedule.rebuys;
        let order = schedule.house.bust_order;
        let preset = schedule.preset;
        let level = self.level_now();
        let played = self.state.played(self.state.last_at);
        for id in announced {
            self.make_rebuy(id.as_str(), true, self.state.last_at)?;
        }
        let mut out = Vec::new();
        for (id, seat, start, value) in busted {
            let p = self.entrant(id.as_str())?;
            let can_rebuy = rebuys.is_some_and(|r| {
                window("re-buys", &r, level, played).is_ok() && p.rebuys < r.per_player
            });
            if can_rebuy {
                self.emit(TournamentEvent::PlayerBusted {
                    player: id,
                    table: number,
                    seat,
                    chips_to: None,
                });
            } else {
                out.push((id, start, value));
            }
        }
        if !out.is_empty() {
            let (rule, reason) = match order {
                BustOrder::LargerStartingStack => {
                    out.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
                    (
                        bust_rule(preset, order),
                        "several out in one hand: the larger starting stack finishes higher",
                    )
                }
                BustOrder::BetterHandThenStack => {
                    out.sort_by(|a, b| {
                        b.2.cmp(&a.2)
                            .then_with(|| b.1.cmp(&a.1))
                            .then_with(|| a.0.cmp(&b.0))
                    });
                    (
                        bust_rule(preset, order),
                        "several out in one hand: the better hand finishes higher, then the larger starting stack",
                    )
                }
            };
            let players: Vec<PlayerId> = out.into_iter().map(|(id, _, _)| id).collect();
            let knockouts = players
                .iter()
                .filter_map(|id| {
                    knocker.get(id).cloned().flatten().map(|by| Knockout {
                        player: id.clone(),
                        by,
                    })
                })
                .collect();
            // Hand-for-hand: ranked at this table by the house's rule, and sharing with the
            // players out at the other tables in the same round.
            let hfh = self.state.hand_for_hand.is_some();
            let reason = match (hfh, players.len()) {
                (false, _) => reason.to_owned(),
                (true, 1) => HAND_FOR_HAND_SHARED.to_owned(),
                (true, _) => format!("{reason}; {HAND_FOR_HAND_SHARED}"),
            };
            let rule = if hfh && players.len() == 1 {
                "hand-for-hand"
            } else {
                rule
            };
            self.emit(TournamentEvent::PlayersEliminated {
                players,
                table: Some(number),
                hand: Some(hand_no),
                tied: hfh,
                ranked: hfh,
                knockouts,
                chips_to: None,
                chips: Chips::ZERO,
                rule: rule.into(),
                reason,
            });
        }
        self.clear_blinded_away(number);
        self.settle()
    }

    pub(super) fn hand_for_hand(&mut self) {
        let remaining = self.state.remaining();
        let paid = self.state.paid_places();
        let tables = self.state.tables.len();
        let due = tables >= 2 && remaining == paid + 1;
        // A round ends only when every table has played its hand: a player busted at
        // another table in the same round shares the places (Oracle tournament rule 3).
        let over = (remaining <= paid || tables < 2) && !self.state.in_any_hand();
        match (&self.state.hand_for_hand, due, over) {
            (None, true, _) => self.emit(TournamentEvent::HandForHandStarted {
                remaining: count(remaining),
                paid: count(paid),
            }),
            (Some(_), _, true) => self.emit(TournamentEvent::HandForHandEnded),
            _ => {}
        }
    }
}

/// Why players out in a hand-for-hand round share their places.
pub(super) const HAND_FOR_HAND_SHARED: &str = "out in a hand-for-hand round: players out at other tables in the round share the places \
     and prizes, rank by rank";
