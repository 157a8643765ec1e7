//! Deciding the schedule, registrations and the start (the first draw of seats and buttons).

use super::*;

impl Run<'_> {
    pub(super) fn schedule_cmd(&mut self, schedule: &Schedule) -> Result<()> {
        if self.state.stage != Stage::New {
            return Err(TournamentError::AlreadyScheduled);
        }
        validate_schedule(schedule)?;
        self.emit(TournamentEvent::TournamentScheduled {
            schedule: Box::new(schedule.clone()),
        });
        Ok(())
    }

    pub(super) fn register(&mut self, player: &str) -> Result<()> {
        match self.state.stage {
            Stage::New => return Err(TournamentError::NotScheduled),
            Stage::Scheduled => {}
            Stage::Running => return Err(TournamentError::AlreadyStarted),
            Stage::Finished => return Err(TournamentError::Finished),
            Stage::Cancelled => return Err(TournamentError::Cancelled),
        }
        if !crate::units::is_id(player) {
            return Err(TournamentError::BadPlayerId);
        }
        if self.state.players.contains_key(player) {
            return Err(TournamentError::AlreadyRegistered(PlayerId::from(
                player.to_owned(),
            )));
        }
        if self.state.players.len() >= MAX_ENTRANTS {
            return Err(TournamentError::FieldFull { max: MAX_ENTRANTS });
        }
        let paid = self.schedule()?.pool.entry;
        self.emit(TournamentEvent::PlayerRegistered {
            player: PlayerId::from(player.to_owned()),
            paid,
        });
        Ok(())
    }

    pub(super) fn unregister(&mut self, player: &str) -> Result<()> {
        if self.state.stage != Stage::Scheduled {
            return Err(TournamentError::AlreadyStarted);
        }
        let refund = self.entrant(player)?.paid;
        self.emit(TournamentEvent::PlayerUnregistered {
            player: PlayerId::from(player.to_owned()),
            refund,
        });
        Ok(())
    }

    pub(super) fn start(
        &mut self,
        at: Millis,
        seed: &Seed,
        next_commitment: Commitment,
    ) -> Result<()> {
        match self.state.stage {
            Stage::New => return Err(TournamentError::NotScheduled),
            Stage::Scheduled => {}
            _ => return Err(TournamentError::AlreadyStarted),
        }
        let players = self.state.players.len();
        if players < 2 {
            return Err(TournamentError::NotEnoughPlayers { players });
        }
        let drawn = self.reveal(seed)?;
        let schedule = self.schedule()?;
        let size = usize::from(schedule.table_size);
        let tables = players.div_ceil(size);
        let entrants: Vec<PlayerId> = self.state.players.keys().cloned().collect();
        let order: Vec<Seat> = (0..schedule.table_size).collect();
        let assigned = draw_seats(&drawn, &entrants, tables, &order)?;
        let seats: Vec<Seating> = assigned
            .into_iter()
            .map(|a| Seating {
                player: a.entrant,
                table: a.table + 1,
                seat: a.seat,
            })
            .collect();
        let buttons = buttons(&drawn, &seats)?;
        let first = schedule.levels.first().copied();
        self.emit(TournamentEvent::TournamentStarted {
            at,
            seed: *seed,
            next_commitment,
            seats,
            buttons,
        });
        if let Some(spec) = first {
            self.emit(TournamentEvent::LevelStarted { level: 1, at, spec });
        }
        Ok(())
    }
}

/// The most one price, fee or guarantee may be: 10,000,000,000 cents (a hundred million in
/// the currency). With it every pool, prize and fee a tournament can reach fits the 64-bit
/// sums, which are checked all the same.
pub const MAX_CENTS: Cents = Cents::new(10_000_000_000);

/// The most chips one stack, purchase, blind or ante may be: 1,000,000,000,000.
pub const MAX_CHIPS: Chips = Chips::new(1_000_000_000_000);

/// The most levels a structure may have, and the most times one player may buy one kind of
/// purchase.
pub const MAX_LEVELS: usize = 1_000;
pub const MAX_PURCHASES_PER_PLAYER: u32 = 100;

/// The most players one tournament takes (registered and late entries). With it and the
/// bounds above, every chip total a tournament can reach (10,000 players x 301 purchases x
/// 10^12 chips < 2^64) fits the 64-bit sums.
pub const MAX_ENTRANTS: usize = 10_000;

pub(super) fn validate_schedule(s: &Schedule) -> Result<()> {
    let bad = |m: &str| Err(TournamentError::BadSchedule(m.to_owned()));
    if !(2..=10).contains(&s.table_size) {
        return bad("a table seats 2 to 10 players");
    }
    if !crate::units::is_text(&s.name) {
        return bad(&format!(
            "a tournament's name must be {}",
            crate::units::TEXT_RULE
        ));
    }
    if !crate::units::is_id(&s.venue) {
        return bad(&format!("the venue must be {}", crate::units::ID_RULE));
    }
    if s.levels.len() > MAX_LEVELS {
        return bad(&format!("at most {MAX_LEVELS} levels"));
    }
    let prices = [Some(s.pool.entry), s.pool.rebuy, s.pool.add_on];
    if prices
        .iter()
        .flatten()
        .any(|p| p.price > MAX_CENTS || p.fee > MAX_CENTS)
        || s.pool.guarantee > MAX_CENTS
    {
        return bad(&format!(
            "a price, fee or guarantee is at most {MAX_CENTS} cents"
        ));
    }
    let chips = [s.starting_chips, s.chip_unit]
        .into_iter()
        .chain(
            [s.rebuys, s.add_ons, s.reentries]
                .into_iter()
                .flatten()
                .map(|p| p.chips),
        )
        .chain(s.levels.iter().flat_map(|level| match *level {
            Level::Play { blinds, .. } => {
                let ante = match blinds.ante {
                    AnteStructure::None => 0,
                    AnteStructure::Uniform(a) | AnteStructure::BigBlind(a) => a,
                };
                vec![blinds.small_blind, blinds.big_blind, Chips::new(ante)]
            }
            Level::Break { colour_up, .. } => {
                colour_up.map(|d| vec![d.low, d.high]).unwrap_or_default()
            }
        }));
    for c in chips {
        if c > MAX_CHIPS {
            return bad(&format!(
                "a stack, purchase, blind or chip is at most {MAX_CHIPS} chips"
            ));
        }
    }
    if [s.rebuys, s.add_ons, s.reentries]
        .into_iter()
        .flatten()
        .any(|p| p.per_player > MAX_PURCHASES_PER_PLAYER)
    {
        return bad(&format!(
            "a player may buy at most {MAX_PURCHASES_PER_PLAYER} of each purchase"
        ));
    }
    if s.starting_chips.is_zero()
        || s.chip_unit.is_zero()
        || !s.starting_chips.is_multiple_of(s.chip_unit)
    {
        return bad("starting chips must be a positive multiple of the chip unit");
    }
    match s.levels.first() {
        Some(Level::Play { .. }) => {}
        Some(Level::Break { .. }) => return bad("the first level must be a playing level"),
        None => return bad("no levels"),
    }
    let mut unit = s.chip_unit;
    for (i, level) in s.levels.iter().enumerate() {
        let n = i + 1;
        match *level {
            Level::Play { blinds, minutes } => {
                if minutes == 0 {
                    return bad(&format!("level {n} has no minutes"));
                }
                if blinds.big_blind == Chips::ZERO || blinds.small_blind > blinds.big_blind {
                    return bad(&format!(
                        "level {n}: the big blind must be positive and at least the small blind"
                    ));
                }
                let ante = match blinds.ante {
                    AnteStructure::None => 0,
                    AnteStructure::Uniform(a) | AnteStructure::BigBlind(a) => a,
                };
                if [blinds.small_blind, blinds.big_blind, Chips::new(ante)]
                    .iter()
                    .any(|x| !x.is_multiple_of(unit))
                {
                    return bad(&format!(
                        "level {n}: blinds and antes must be multiples of the smallest chip ({unit})"
                    ));
                }
            }
            Level::Break { colour_up, .. } => {
                if let Some(d) = colour_up {
                    if d.low != unit || d.high <= d.low || d.high % d.low != Chips::ZERO {
                        return bad(&format!(
                            "level {n}: a colour-up takes the smallest chip ({unit}) up to a multiple of it"
                        ));
                    }
                    unit = d.high;
                }
            }
        }
    }
    let levels = count(s.levels.len());
    for (what, policy) in [
        ("re-buy", s.rebuys),
        ("add-on", s.add_ons),
        ("re-entry", s.reentries),
    ] {
        if let Some(p) = policy {
            if p.chips == Chips::ZERO || p.per_player == 0 {
                return bad(&format!(
                    "a {what} must give chips and be allowed at least once"
                ));
            }
            if p.from_level == 0 || p.from_level > p.until_level || p.until_level > levels {
                return bad(&format!("the {what} window must lie within the levels"));
            }
        }
    }
    if s.rebuys.is_some() != s.pool.rebuy.is_some() {
        return bad("re-buys need both a policy and a price");
    }
    if s.add_ons.is_some() != s.pool.add_on.is_some() {
        return bad("add-ons need both a policy and a price");
    }
    if s.late_registration_until_level > levels {
        return bad("late registration must close within the levels");
    }
    if s.blind_cap_percent == Some(0) {
        return bad("a blind cap of 0% leaves no blinds");
    }
    Ok(())
}
