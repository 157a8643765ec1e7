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
    house_money_and_structure(s)
}

/// The money and structure rules the schedule's preset fixes (its rulebook): a schedule
/// that breaks one is refused naming the rule and the schedule's field.
fn house_money_and_structure(s: &Schedule) -> Result<()> {
    let breaks = |rule: &'static str, field: &'static str, what: String| {
        Err(TournamentError::BreaksPreset {
            preset: s.preset.name(),
            rule,
            field,
            what,
        })
    };
    // QueenSix house policies 4: "All QueenSix Poker League events will use a Capped Blind
    // structure. The blinds will capped at a preset percentage of the average stack at the
    // table."
    if s.preset == Preset::QueenSix && s.blind_cap_percent.is_none() {
        return breaks(
            "house policies 4",
            "schedule.blindCapPercent",
            "every QueenSix event caps its blinds at a percentage of the table's average stack \
             (blindCapPercent)"
                .into(),
        );
    }
    if s.preset != Preset::Invitational {
        return Ok(());
    }
    // 1.2: "All moneys must be paid prior to the start of the tournament."
    if s.late_registration_until_level > 0 || s.late_registration_until_minutes.is_some() {
        return breaks(
            "1.2",
            "schedule.lateRegistration",
            "every entry is paid before the start: no late registration".into(),
        );
    }
    if s.reentries.is_some() {
        return breaks(
            "1.2",
            "schedule.reentries",
            "every entry is paid before the start: no re-entries".into(),
        );
    }
    // 1.3: "Re-buys will be limited to one per person, need to take place in the first 2
    // hours of play, and need to be purchased immediately after knockout."
    if let Some(r) = s.rebuys {
        if r.per_player > 1 {
            return breaks(
                "1.3",
                "schedule.rebuys",
                format!("one re-buy per person, not {}", r.per_player),
            );
        }
        // The window closes at its level or its minutes, whichever comes first: either
        // within two hours of play (breaks are not play) will do.
        let by_level: u64 = s
            .levels
            .iter()
            .take(usize::try_from(r.until_level).unwrap_or(usize::MAX))
            .map(|level| match level {
                Level::Play { minutes, .. } => u64::from(*minutes),
                Level::Break { .. } => 0,
            })
            .sum();
        if r.until_minutes.is_none_or(|m| m > 120) && by_level > 120 {
            return breaks(
                "1.3",
                "schedule.rebuys",
                format!(
                    "re-buys end within the first 2 hours of play: the window runs {by_level} \
                     minutes of play to level {}; close it sooner or set untilMinutes to at \
                     most 120",
                    r.until_level
                ),
            );
        }
        if !r.after_bust_only {
            return breaks(
                "1.3",
                "schedule.rebuys",
                "a re-buy is bought straight after the knockout (afterBustOnly)".into(),
            );
        }
    }
    // 1.4: "Add-ons are not allowed."
    if s.add_ons.is_some() {
        return breaks("1.4", "schedule.addOns", "add-ons are not allowed".into());
    }
    // 1.5: "All moneys paid will be placed into the pot."
    if s.pool.house != HouseCut::AllToPool {
        return breaks(
            "1.5",
            "schedule.houseCut",
            "all money paid goes into the pot (ALL_TO_POOL)".into(),
        );
    }
    // 3: "The small blind will constitute one-third to half of the big blind."
    for (i, level) in s.levels.iter().enumerate() {
        if let Level::Play { blinds, .. } = level {
            let (sb, bb) = (blinds.small_blind.get(), blinds.big_blind.get());
            if sb.saturating_mul(3) < bb || sb.saturating_mul(2) > bb {
                return breaks(
                    "3",
                    "schedule.levels",
                    format!(
                        "level {}: the small blind is a third to a half of the big blind, not \
                         {sb} of {bb}",
                        i + 1
                    ),
                );
            }
        }
    }
    Ok(())
}
