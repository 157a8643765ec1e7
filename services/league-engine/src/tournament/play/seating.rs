//! Deciding seating: redraws, moves, balancing and breaking tables.

use super::*;

impl Run<'_> {
    pub(super) fn redraw(&mut self, seed: &Seed, next_commitment: Commitment) -> Result<()> {
        self.running()?;
        let due = self.state.redraw.ok_or(TournamentError::NoRedrawDue)?;
        if let Some(player) = self.any_busted() {
            return Err(TournamentError::RebuyDecisionPending {
                players: vec![player],
            });
        }
        if let Some((&table, _)) = self.state.tables.iter().find(|(_, t)| t.in_hand()) {
            return Err(TournamentError::HandInProgress { table });
        }
        let drawn = self.reveal(seed)?;
        let schedule = self.schedule()?;
        let rule = redraw_rule(schedule.preset, due.seats).to_owned();
        if due.seats {
            self.clear_unsold(None, "the seats are redrawn as a new game");
        }
        let schedule = self.schedule()?;
        let (seats, buttons) = if due.seats {
            let entrants: Vec<PlayerId> = self
                .state
                .players
                .iter()
                .filter(|(_, p)| p.is_in())
                .map(|(id, _)| id.clone())
                .collect();
            let order: Vec<Seat> = (0..schedule.table_size).collect();
            // Late entries may have come in since the redraw was called.
            let size = usize::from(schedule.table_size);
            let tables = usize::try_from(due.tables)
                .unwrap_or(1)
                .max(entrants.len().div_ceil(size))
                .max(1);
            let seats: Vec<Seating> = draw_seats(&drawn, &entrants, tables, &order)?
                .into_iter()
                .map(|a| Seating {
                    player: a.entrant,
                    table: a.table + 1,
                    seat: a.seat,
                })
                .collect();
            let buttons = buttons(&drawn, &seats)?;
            (seats, buttons)
        } else {
            let mut buttons = Vec::new();
            for (&number, table) in &self.state.tables {
                let mut draw = draw_button(&drawn, number, &table.occupied())?;
                draw.table = number;
                buttons.push(draw);
            }
            (Vec::new(), buttons)
        };
        self.emit(TournamentEvent::SeatsRedrawn {
            seed: *seed,
            next_commitment,
            seats,
            buttons,
            rule,
        });
        self.settle()
    }

    pub(super) fn move_player(&mut self, player: &str, to_table: u32, to_seat: Seat) -> Result<()> {
        let schedule = self.running()?;
        let rule = schedule.house.balance;
        let size = schedule.table_size;
        let (from_table, from_seat) = self.seated(player)?;
        self.between_hands(from_table)?;
        let dest = self.table(to_table)?;
        if to_seat >= size || dest.taken(to_seat) || to_table == from_table {
            return Err(TournamentError::SeatTaken {
                table: to_table,
                seat: to_seat,
            });
        }
        // The tables as they would be after the move must need no balancing move.
        let mut after = self.state.clone();
        after.seat(player, to_table, to_seat);
        let rule_name = match rule {
            BalanceRule::QueenSix => "QueenSix 15",
            BalanceRule::WorstPosition => "WPH 7",
            BalanceRule::Invitational => "invitational 2.1",
        };
        if let Some(m) = balance::balance(rule, &after.balance_view()).next_move {
            return Err(TournamentError::MoveBreaksBalancing {
                rule: rule_name.into(),
                reason: format!(
                    "afterwards table {} would have to give a player to table {}",
                    m.from_table, m.to_table
                ),
            });
        }
        let players = dest.seats.len();
        self.emit(TournamentEvent::PlayerMoved {
            player: PlayerId::from(player.to_owned()),
            moved: Move {
                from_table,
                from_seat,
                to_table,
                to_seat,
                rule: format!("director's move within {rule_name}"),
                reason: format!(
                    "moved by the director to table {to_table} ({players} players), seat {to_seat}"
                ),
            },
        });
        self.settle()
    }

    pub(super) fn rebalance(&mut self) -> Result<()> {
        let Some(schedule) = self.state.schedule.as_deref() else {
            return Ok(());
        };
        let house = schedule.house.clone();
        let size = usize::from(schedule.table_size);
        let break_order = schedule.break_order.clone();
        let preset = schedule.preset;
        // Each round moves one player or breaks one table; the field is finite.
        for _ in 0..(MAX_SEATS * 64) {
            if self.state.redraw.is_some()
                || self.state.stage != Stage::Running
                || self.any_busted().is_some()
            {
                return Ok(());
            }
            let seated: usize = self.state.tables.values().map(|t| t.seats.len()).sum();
            let tables = self.state.tables.len();
            let needed = seated.div_ceil(size).max(1);
            if tables > needed {
                let target = count(tables - 1);
                if house.redraw_at.contains(&target) {
                    if self.state.in_any_hand() {
                        return Ok(());
                    }
                    self.emit(TournamentEvent::RedrawRequired {
                        tables: target,
                        seats: true,
                        rule: redraw_rule(preset, true).into(),
                    });
                    return Ok(());
                }
                let Some(breaking) = next_to_break(&self.state.tables, &break_order) else {
                    return Ok(());
                };
                if self.state.tables.get(&breaking).is_some_and(Table::in_hand)
                    || self.busted_at(breaking)
                {
                    return Ok(());
                }
                self.break_table(breaking, preset)?;
                if target == 1 && house.final_table_button_draw {
                    self.emit(TournamentEvent::RedrawRequired {
                        tables: 1,
                        seats: false,
                        rule: redraw_rule(preset, false).into(),
                    });
                    return Ok(());
                }
                continue;
            }
            let view = self.state.balance_view();
            let Some(m) = balance::balance(house.balance, &view).next_move else {
                return Ok(());
            };
            if self
                .state
                .tables
                .get(&m.from_table)
                .is_some_and(Table::in_hand)
                || self.busted_at(m.from_table)
            {
                return Ok(());
            }
            let Some(player) = self
                .state
                .tables
                .get(&m.from_table)
                .and_then(|t| t.seats.get(&m.from_seat))
                .cloned()
            else {
                return Ok(());
            };
            self.emit(TournamentEvent::PlayerMoved { player, moved: m });
        }
        Ok(())
    }

    /// Breaks a table: its players, in the order they are due the big blind, take the
    /// open seats due the big blind soonest at the smallest tables.
    pub(super) fn break_table(&mut self, number: u32, preset: Preset) -> Result<()> {
        let table = self.table(number)?.clone();
        let rule = match preset {
            Preset::QueenSix => "QueenSix 11, 13",
            Preset::Wph => "WPH 6",
            Preset::Oracle => "Oracle: breaking tables (as WPH 6)",
            Preset::Invitational => "invitational 2.1",
            _ => "tables break in the preset order",
        };
        let seated = self.state.remaining();
        let next = self.state.upcoming(&table);
        self.clear_unsold(Some(number), "its table is broken");
        let mut movers: Vec<(Seat, PlayerId)> =
            table.seats.iter().map(|(&s, id)| (s, id.clone())).collect();
        movers.sort_by_key(|(s, _)| due_after(*s, next.big_blind));
        let size = self.schedule()?.table_size;
        // Seat the movers one by one on a scratch copy, each seeing the seats taken before.
        let mut scratch = self.state.clone();
        scratch.tables.remove(&number);
        let mut moves = Vec::with_capacity(movers.len());
        for (from_seat, player) in movers {
            let Some((&to_table, dest)) = scratch
                .tables
                .iter()
                .filter(|(_, t)| t.taken_count() < usize::from(size))
                .min_by_key(|(n, t)| (t.seats.len(), **n))
            else {
                return Ok(());
            };
            let upcoming = scratch.upcoming(dest);
            let Some(to_seat) = (0..size)
                .filter(|&s| !dest.taken(s))
                .min_by_key(|&s| due_after(s, upcoming.big_blind))
            else {
                return Ok(());
            };
            let players = dest.seats.len();
            scratch
                .tables
                .entry(to_table)
                .or_default()
                .seats
                .insert(to_seat, player.clone());
            moves.push((
                player,
                Move {
                    from_table: number,
                    from_seat,
                    to_table,
                    to_seat,
                    rule: rule.into(),
                    reason: format!(
                        "table {number} broken: to the smallest table ({to_table}, {players} players), the open seat due the big blind soonest"
                    ),
                },
            ));
        }
        self.emit(TournamentEvent::TableBroken {
            table: number,
            moves,
            rule: rule.into(),
            reason: format!(
                "{seated} players fit {} tables",
                self.state.tables.len().saturating_sub(1)
            ),
        });
        Ok(())
    }
}

/// How many hands until `seat` is due the big blind, counting the big blind's own seat
/// as 0 (seats clockwise from it).
pub(super) fn due_after(seat: Seat, big_blind: Seat) -> usize {
    (usize::from(seat) + MAX_SEATS - usize::from(big_blind) % MAX_SEATS) % MAX_SEATS
}

pub(super) fn redraw_rule(preset: Preset, seats: bool) -> &'static str {
    match (preset, seats) {
        (Preset::QueenSix, _) => "QueenSix 16: redraw at three, two and one tables",
        (Preset::Invitational, _) => {
            "invitational 2.2: combined tables draw seats and the button as a new game"
        }
        (Preset::Oracle, false) => "Oracle 14: a draw for the button at the final table",
        _ => "redraw",
    }
}

pub(super) fn next_to_break(tables: &BTreeMap<u32, Table>, order: &[u32]) -> Option<u32> {
    order
        .iter()
        .copied()
        .find(|n| tables.contains_key(n))
        .or_else(|| tables.keys().next_back().copied())
}

pub(super) fn buttons(seed: &Seed, seats: &[Seating]) -> Result<Vec<ButtonDraw>> {
    let mut by_table: BTreeMap<u32, Vec<Seat>> = BTreeMap::new();
    for s in seats {
        by_table.entry(s.table).or_default().push(s.seat);
    }
    by_table
        .into_iter()
        .map(|(table, mut seats)| {
            seats.sort_unstable();
            Ok(draw_button(seed, table, &seats)?)
        })
        .collect()
}
