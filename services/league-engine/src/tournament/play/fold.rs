//! Folding one event into a tournament's state: the `apply` that replay and `decide` share.

use super::*;

pub(super) const HALF_HOUR: Millis = 30 * 60 * 1000;

// ---------------------------------------------------------------------------------------
// Applying events
// ---------------------------------------------------------------------------------------

impl Tournament {
    pub(super) fn entrant(&mut self, id: &str) -> &mut Entrant {
        self.players
            .entry(PlayerId::from(id.to_owned()))
            .or_default()
    }

    pub(super) fn unseat(&mut self, id: &str) {
        if let Some((table, seat)) = self.players.get(id).and_then(Entrant::seat)
            && let Some(t) = self.tables.get_mut(&table)
            && t.seats.get(&seat).is_some_and(|p| p == id)
        {
            t.seats.remove(&seat);
        }
    }

    pub(super) fn seat(&mut self, id: &str, table: u32, seat: Seat) {
        self.unseat(id);
        self.tables
            .entry(table)
            .or_default()
            .seats
            .insert(seat, PlayerId::from(id.to_owned()));
        self.entrant(id).standing = Standing::Seated { table, seat };
    }

    pub(super) fn purchase(&mut self, id: &str, paid: Price, chips: Chips) {
        let entrant = self.entrant(id);
        entrant.paid += paid.price + paid.fee;
        entrant.chips += chips;
        self.issued += chips;
    }

    /// Takes a player's elimination back from the order of eliminations (a re-entry, a
    /// reinstatement).
    fn take_back_bust(&mut self, player: &PlayerId) {
        for bust in &mut self.busts {
            if let Some(i) = bust.players.iter().position(|p| p == player) {
                bust.players.remove(i);
                if i < bust.ranks.len() {
                    bust.ranks.remove(i);
                }
            }
        }
        self.busts.retain(|b| !b.players.is_empty());
    }

    pub(super) fn apply(&mut self, event: &TournamentEvent) {
        match event {
            TournamentEvent::EntropyAdded { entropy } => {
                self.entropy = Some(pool_entropy(self.entropy.as_ref(), entropy));
            }
            TournamentEvent::EntropyMixed { .. } => self.entropy = None,
            TournamentEvent::TournamentCancelled { reason, refunds } => {
                self.stage = Stage::Cancelled;
                self.cancelled = Some(Cancellation {
                    reason: reason.clone(),
                    refunds: refunds.clone(),
                });
            }
            TournamentEvent::ChipsCorrected {
                from, to, chips, ..
            } => {
                let from = self.entrant(from.as_str());
                from.chips = from.chips.saturating_sub(*chips);
                let to = self.entrant(to.as_str());
                to.chips = to.chips.saturating_add(*chips);
            }
            TournamentEvent::SeatCorrected {
                player,
                from_table,
                from_seat,
                to_table,
                to_seat,
                swapped,
                ..
            } => {
                self.seat(player.as_str(), *to_table, *to_seat);
                if let Some(other) = swapped {
                    self.seat(other.as_str(), *from_table, *from_seat);
                }
            }
            TournamentEvent::ButtonCorrected { table, button, .. } => {
                // As after a redraw: the next hand's positions follow the button, and the
                // dead button's record of big blinds starts again from it.
                if let Some(t) = self.tables.get_mut(table) {
                    t.button = Some(*button);
                    t.last = None;
                    t.big_blinds.clear();
                }
            }
            TournamentEvent::PlayerReinstated {
                player,
                table,
                seat,
                chips,
                from,
                ..
            } => {
                self.take_back_bust(player);
                self.entrant(player.as_str()).rebuy_announced = false;
                if let Some(lost) = self.lost.remove(player)
                    && let Some(by) = lost.knocked_out_by
                {
                    let by = self.entrant(by.as_str());
                    by.knockouts = by.knockouts.saturating_sub(1);
                }
                match from {
                    Some(from) => {
                        let from = self.entrant(from.as_str());
                        from.chips = from.chips.saturating_sub(*chips);
                    }
                    None => self.unallocated = self.unallocated.saturating_sub(*chips),
                }
                self.tables.entry(*table).or_default();
                self.seat(player.as_str(), *table, *seat);
                self.entrant(player.as_str()).chips = *chips;
            }
            TournamentEvent::TournamentScheduled { schedule } => {
                self.stage = Stage::Scheduled;
                self.rules = Some(schedule.preset.rules());
                self.commitment = Some(schedule.draw_commitment);
                self.chip_unit = schedule.chip_unit;
                self.schedule = Some(schedule.clone());
            }
            TournamentEvent::PlayerRegistered { player, paid } => {
                let chips = self
                    .schedule
                    .as_ref()
                    .map_or(Chips::ZERO, |s| s.starting_chips);
                self.purchase(player.as_str(), *paid, chips);
                self.entrant(player.as_str()).entries = 1;
                self.purchases.entries += 1;
            }
            TournamentEvent::PlayerUnregistered { player, .. } => {
                if let Some(p) = self.players.remove(player) {
                    self.issued -= p.chips;
                }
                self.purchases.entries = self.purchases.entries.saturating_sub(1);
            }
            TournamentEvent::TournamentStarted {
                at,
                next_commitment,
                seats,
                buttons,
                ..
            } => {
                self.stage = Stage::Running;
                self.started_at = *at;
                self.commitment = Some(*next_commitment);
                self.last_at = *at;
                for s in seats {
                    self.seat(s.player.as_str(), s.table, s.seat);
                }
                for b in buttons {
                    self.tables.entry(b.table).or_default().button = Some(b.button);
                }
                self.absent_from = Some((0, at.saturating_add(HALF_HOUR)));
            }
            TournamentEvent::LevelStarted { level, at, spec } => {
                self.level = usize::try_from(level.saturating_sub(1)).unwrap_or(0);
                self.level_started_at = *at;
                self.last_at = *at;
                self.paused_in_level = 0;
                if let Some(since) = self.paused_since.as_mut() {
                    self.paused_total += at.saturating_sub(*since);
                    *since = *at;
                }
                if let Level::Break {
                    colour_up: Some(d), ..
                } = spec
                {
                    self.colour_up_due = Some(*d);
                }
            }
            TournamentEvent::ClockPaused { at } => {
                self.paused_since = Some(*at);
                self.last_at = *at;
            }
            TournamentEvent::ClockResumed { at } => {
                if let Some(since) = self.paused_since.take() {
                    self.paused_in_level += at.saturating_sub(since);
                    self.paused_total += at.saturating_sub(since);
                }
                self.last_at = *at;
            }
            TournamentEvent::PlayerMarkedAbsent { player } => {
                let started = self.stage >= Stage::Running;
                let p = self.entrant(player.as_str());
                p.absent = true;
                if !started {
                    p.absent_entrant = true;
                }
            }
            TournamentEvent::PlayerArrived { player } => {
                let p = self.entrant(player.as_str());
                p.absent = false;
                p.absent_entrant = false;
            }
            TournamentEvent::AbsentPlayerRemoved { player, chips, .. } => {
                self.entrant(player.as_str()).chips -= chips;
                self.removed += chips;
            }
            TournamentEvent::PlayerEntered {
                player,
                reentry,
                paid,
                chips,
                table,
                seat,
                next_commitment,
                at,
                ..
            } => {
                self.last_at = self.last_at.max(*at);
                self.commitment = Some(*next_commitment);
                if *reentry {
                    self.take_back_bust(player);
                }
                // The entrant takes an unsold seat's stack: its chips leave the seat and
                // come back as theirs.
                if let Some(held) = self
                    .tables
                    .get_mut(table)
                    .and_then(|t| t.unsold.remove(seat))
                {
                    self.removed += held;
                }
                self.purchase(player.as_str(), *paid, *chips);
                self.entrant(player.as_str()).entries += 1;
                self.purchases.entries += 1;
                self.seat(player.as_str(), *table, *seat);
            }
            TournamentEvent::TableHandStarted {
                table,
                hand,
                hand_id,
                positions,
                blinds,
                penalised,
                ..
            } => {
                if let Some(id) = hand_id {
                    self.hand_ids.insert(id.clone());
                }
                // Hand-for-hand: the first hand after a round played opens the next round.
                if self.round_played()
                    && let Some(hfh) = self.hand_for_hand.as_mut()
                {
                    hfh.round += 1;
                    hfh.played.clear();
                }
                for id in penalised {
                    let p = self.entrant(id.as_str());
                    p.missed_hands = p.missed_hands.saturating_sub(1);
                }
                let mut starts: Vec<(Seat, Chips)> = self
                    .tables
                    .get(table)
                    .map(|t| {
                        t.seats
                            .iter()
                            .map(|(&s, id)| {
                                (s, self.players.get(id).map_or(Chips::ZERO, |p| p.chips))
                            })
                            .chain(t.unsold.iter().map(|(&s, &chips)| (s, chips)))
                            .collect()
                    })
                    .unwrap_or_default();
                starts.sort_unstable_by_key(|&(seat, _)| seat);
                self.hands_started = self.hands_started.saturating_add(1);
                let ordinal = self.hands_started;
                let t = self.tables.entry(*table).or_default();
                t.hands = *hand;
                t.hand_id.clone_from(hand_id);
                t.hand_ordinal = ordinal;
                t.before = t.last;
                t.last = Some(*positions);
                t.big_blinds.push(positions.big_blind);
                t.hand = Some(Box::new(HandState::new()));
                t.hand_start = starts;
                t.penalised.clone_from(penalised);
                t.awards.clear();
                t.blinds = Some(*blinds);
            }
            TournamentEvent::HandEvent { table, event } => self.apply_hand(*table, event),
            TournamentEvent::ClockCalled {
                table,
                seat,
                at,
                expires_at,
            } => {
                if let Some(t) = self.tables.get_mut(table) {
                    t.clock = Some(CalledClock {
                        seat: *seat,
                        at: *at,
                        expires_at: *expires_at,
                    });
                }
            }
            TournamentEvent::VoidHandNotCounted { table, penalised } => {
                if let Some(hfh) = self.hand_for_hand.as_mut() {
                    hfh.played.remove(table);
                }
                for id in penalised {
                    let p = self.entrant(id.as_str());
                    p.missed_hands = p.missed_hands.saturating_add(1);
                }
            }
            TournamentEvent::PlayerBusted {
                player,
                table,
                seat,
                chips_to,
            } => {
                let p = self.entrant(player.as_str());
                p.standing = Standing::Busted {
                    table: *table,
                    seat: *seat,
                };
                let freed = std::mem::take(&mut p.chips);
                self.lost.insert(
                    player.clone(),
                    Lost {
                        table: *table,
                        seat: *seat,
                        chips: freed,
                        to: chips_to.clone(),
                        knocked_out_by: None,
                    },
                );
                match chips_to {
                    Some(to) => self.entrant(to.as_str()).chips += freed,
                    None => self.unallocated += freed,
                }
            }
            TournamentEvent::RebuyAnnounced { player, at } => {
                self.entrant(player.as_str()).rebuy_announced = true;
                self.last_at = self.last_at.max(*at);
            }
            TournamentEvent::RebuyMade {
                player,
                chips,
                paid,
                at,
                ..
            } => {
                self.last_at = self.last_at.max(*at);
                self.purchase(player.as_str(), *paid, *chips);
                self.lost.remove(player);
                let p = self.entrant(player.as_str());
                p.rebuys += 1;
                p.rebuy_announced = false;
                if let Standing::Busted { table, seat } = p.standing {
                    p.standing = Standing::Seated { table, seat };
                }
                self.purchases.rebuys += 1;
            }
            TournamentEvent::AddOnMade {
                player,
                chips,
                paid,
                at,
            } => {
                self.last_at = self.last_at.max(*at);
                self.purchase(player.as_str(), *paid, *chips);
                self.entrant(player.as_str()).add_ons += 1;
                self.purchases.add_ons += 1;
            }
            TournamentEvent::PlayersEliminated {
                players,
                tied,
                ranked,
                knockouts,
                chips_to,
                chips,
                ..
            } => {
                let mut freed = Chips::ZERO;
                for id in players {
                    let was = self.players.get(id).map(|p| (p.standing, p.chips));
                    match was {
                        // Busted first: the bust recorded where the chips went.
                        Some((Standing::Busted { .. }, _)) => {
                            if let Some(lost) = self.lost.get_mut(id)
                                && let Some(k) = knockouts.iter().find(|k| k.player == *id)
                            {
                                lost.knocked_out_by = Some(k.by.clone());
                            }
                        }
                        // With chips: a disqualified or removed absent player has none
                        // left to bring back.
                        Some((Standing::Seated { table, seat }, chips)) if chips > Chips::ZERO => {
                            let by = knockouts.iter().find(|k| k.player == *id);
                            self.lost.insert(
                                id.clone(),
                                Lost {
                                    table,
                                    seat,
                                    chips,
                                    to: chips_to.clone(),
                                    knocked_out_by: by.map(|k| k.by.clone()),
                                },
                            );
                        }
                        _ => {
                            self.lost.remove(id);
                        }
                    }
                    self.unseat(id.as_str());
                    let p = self.entrant(id.as_str());
                    freed += p.chips;
                    p.chips = Chips::ZERO;
                    p.standing = Standing::Out;
                    p.rebuy_announced = false;
                }
                for k in knockouts {
                    self.entrant(k.by.as_str()).knockouts += 1;
                }
                match chips_to {
                    Some(to) => {
                        self.entrant(to.as_str()).chips += chips;
                        self.unallocated += freed.saturating_sub(*chips);
                    }
                    None => self.unallocated += freed,
                }
                let round = self.hand_for_hand.as_ref().map(|h| h.round);
                // Ranked players: the first (best) has the highest rank, the last 0.
                let ranks = players.iter().enumerate().map(|(i, _)| {
                    if *ranked {
                        u32::try_from(players.len() - 1 - i).unwrap_or(u32::MAX)
                    } else {
                        0
                    }
                });
                match self.busts.last_mut() {
                    Some(last) if *tied && last.tied && last.round == round && round.is_some() => {
                        last.players.extend(players.iter().cloned());
                        last.ranks.extend(ranks);
                    }
                    _ => self.busts.push(Bust {
                        players: players.clone(),
                        tied: *tied,
                        round: if *tied { round } else { None },
                        ranks: if *tied { ranks.collect() } else { Vec::new() },
                    }),
                }
            }
            TournamentEvent::ChipsCounted { counts } => {
                for (id, chips) in counts {
                    self.entrant(id.as_str()).chips = *chips;
                }
                self.unallocated = Chips::ZERO;
            }
            TournamentEvent::PlayerMoved { player, moved } => {
                self.seat(player.as_str(), moved.to_table, moved.to_seat);
            }
            TournamentEvent::TableBroken { table, moves, .. } => {
                for (player, m) in moves {
                    self.seat(player.as_str(), m.to_table, m.to_seat);
                }
                self.tables.remove(table);
            }
            TournamentEvent::UnsoldStackPlaced {
                table, seat, chips, ..
            } => {
                self.tables
                    .entry(*table)
                    .or_default()
                    .unsold
                    .insert(*seat, *chips);
                self.issued += *chips;
            }
            TournamentEvent::UnsoldStackRemoved {
                table, seat, chips, ..
            } => {
                if let Some(t) = self.tables.get_mut(table) {
                    t.unsold.remove(seat);
                }
                self.removed += *chips;
            }
            TournamentEvent::TableOpened { table } => {
                self.tables.entry(*table).or_default();
            }
            TournamentEvent::RedrawRequired { tables, seats, .. } => {
                self.redraw = Some(RedrawDue {
                    tables: *tables,
                    seats: *seats,
                });
            }
            TournamentEvent::SeatsRedrawn {
                next_commitment,
                seats,
                buttons,
                ..
            } => {
                self.commitment = Some(*next_commitment);
                self.redraw = None;
                if !seats.is_empty() {
                    for s in seats {
                        self.unseat(s.player.as_str());
                    }
                    self.tables.clear();
                    for s in seats {
                        self.seat(s.player.as_str(), s.table, s.seat);
                    }
                }
                for b in buttons {
                    let t = self.tables.entry(b.table).or_default();
                    t.button = Some(b.button);
                    t.last = None;
                    t.big_blinds.clear();
                }
            }
            TournamentEvent::HandForHandStarted { .. } => {
                self.hand_for_hand = Some(HandForHand::default());
            }
            TournamentEvent::HandForHandEnded => self.hand_for_hand = None,
            TournamentEvent::ChipsColouredUp {
                high,
                players,
                removed,
                added,
                next_commitment,
                ..
            } => {
                for p in players {
                    self.entrant(p.player.as_str()).chips = p.after;
                }
                self.removed += removed;
                self.added += added;
                self.chip_unit = *high;
                self.colour_up_due = None;
                if let Some(next) = next_commitment {
                    self.commitment = Some(*next);
                }
            }
            TournamentEvent::PenaltyGiven {
                player,
                penalty,
                hands,
                rule,
            } => {
                let p = self.entrant(player.as_str());
                let removed = match penalty {
                    Penalty::Warning => {
                        p.warnings += 1;
                        Chips::ZERO
                    }
                    Penalty::Forfeit(chips) => *chips,
                    // Elimination removes every chip (disqualification does it with
                    // `PlayerDisqualified`, which follows it).
                    Penalty::Eliminate => p.chips,
                    _ => {
                        p.missed_hands += hands;
                        Chips::ZERO
                    }
                };
                p.chips -= removed;
                self.removed += removed;
                self.penalties.push(GivenPenalty {
                    player: player.clone(),
                    penalty: *penalty,
                    hands: *hands,
                    rule: rule.clone(),
                });
            }
            TournamentEvent::PlayerDisqualified {
                player,
                chips_removed,
                ..
            } => {
                self.entrant(player.as_str()).chips -= chips_removed;
                self.removed += chips_removed;
            }
            TournamentEvent::PayoutsSet { pool, amounts } => {
                self.payouts = Some((*pool, amounts.clone()));
            }
            TournamentEvent::DealMade {
                players, amounts, ..
            } => {
                self.deal = Some((players.clone(), amounts.clone()));
            }
            TournamentEvent::TournamentFinished { results, .. } => {
                self.stage = Stage::Finished;
                self.results = Some(results.clone());
            }
        }
    }

    pub(super) fn apply_hand(&mut self, table: u32, event: &HandEvent) {
        let Some(t) = self.tables.get_mut(&table) else {
            return;
        };
        let Some(hand) = t.hand.as_mut() else {
            return;
        };
        hand::apply(hand, event);
        // The clock stops when its player acts or the hand ends.
        if let Some(called) = t.clock {
            let acted = match event {
                HandEvent::PlayerFolded { seat, .. }
                | HandEvent::HandKilled { seat, .. }
                | HandEvent::PlayerChecked { seat }
                | HandEvent::PlayerCalled { seat, .. }
                | HandEvent::PlayerBet { seat, .. }
                | HandEvent::PlayerRaised { seat, .. } => *seat == called.seat,
                _ => false,
            };
            if acted || hand.is_over() {
                t.clock = None;
            }
        }
        if let HandEvent::PotAwarded {
            eligible, shares, ..
        } = event
        {
            t.awards
                .push((eligible.clone(), shares.first().map(|s| s.seat)));
        }
        if !hand.is_over() {
            return;
        }
        // A void hand is re-dealt with the same button and blinds (a misdeal is
        // "reshuffle, cut and re-deal").
        if matches!(event, HandEvent::HandVoided { .. }) {
            t.last = t.before;
            t.big_blinds.pop();
        }
        let stacks: Vec<(PlayerId, Chips)> = t
            .hand_start
            .iter()
            .filter_map(|&(seat, _)| {
                let id = t.seats.get(&seat)?;
                Some((id.clone(), Chips::new(hand.stack(seat).unwrap_or(0))))
            })
            .collect();
        // An unsold seat's stack keeps what the hand left it (none: removed by
        // `UnsoldStackRemoved`, which the same command writes).
        for (seat, chips) in &mut t.unsold {
            if t.hand_start.iter().any(|(s, _)| s == seat) {
                *chips = Chips::new(hand.stack(*seat).unwrap_or(0));
            }
        }
        if let Some(hfh) = self.hand_for_hand.as_mut() {
            hfh.played.insert(table);
        }
        for (id, chips) in stacks {
            self.entrant(id.as_str()).chips = chips;
        }
    }

    /// Hand-for-hand: every table has played its hand of this round.
    pub(super) fn round_played(&self) -> bool {
        self.hand_for_hand.as_ref().is_some_and(|hfh| {
            !self.in_any_hand() && self.tables.keys().all(|t| hfh.played.contains(t))
        })
    }
}
