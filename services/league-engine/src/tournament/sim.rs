//! Random tournaments played through the tournament aggregate, for property tests, the
//! league simulator and benchmarks.
//!
//! Seeded, so repeatable. A [`TournamentSim`] plays one tournament to the end through the
//! same commands a venue app sends: registration, absentees, the draw, levels with breaks
//! and colour-ups, hands (dealt or recorded) with random legal actions, re-buys (announced
//! and straight after a bust), add-ons, late entries and re-entries, penalties, redraws,
//! and in `results` tracking eliminations and chip counts. Every command it sends must be
//! accepted: a refusal is returned as an error, because it means the simulator and the
//! rules disagree.

use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};

use super::colour_up::ColourUpPolicy;
use super::payouts::PayoutTable;
use super::play::{
    self, Blinds, Denominations, Level, Penalty, PlayerId, PurchasePolicy, Schedule, Standing,
    Tournament, TournamentCommand, TournamentError, TournamentEvent, TournamentRules, Tracking,
};
use super::pool::{HouseCut, PoolRules, Price};
use super::{Cents, Chips};
use crate::card::Card;
use crate::deck::{Deck, Seed};
use crate::hand::{AnteStructure, Command as HandCommand, HandState, Seat};
use crate::rules::Preset;
use crate::sim::Simulator;

/// The shape of a simulated tournament.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SimOptions {
    pub players: usize,
    pub preset: Preset,
    pub tracking: Tracking,
    pub table_size: u8,
    pub rebuys: bool,
    /// Players who enter late (after the start, during late registration).
    pub late: usize,
    /// The players' ids: the first `players` register, the next `late` enter late.
    /// Generated (`p000`, `late000`, ...) when too few are given.
    pub ids: Vec<PlayerId>,
    /// The venue named in the schedule.
    pub venue: String,
    /// Whether each hand is started with an id (a random UUIDv4 from the simulation's
    /// generator), as an API client names it; otherwise hands have none.
    pub name_hands: bool,
}

impl SimOptions {
    fn id(&self, i: usize) -> PlayerId {
        self.ids.get(i).cloned().unwrap_or_else(|| {
            if i < self.players {
                PlayerId::new(format!("p{i:03}"))
            } else {
                PlayerId::new(format!("late{:03}", i - self.players))
            }
        })
    }
}

/// A tournament being played at random.
pub struct TournamentSim {
    rng: ChaCha8Rng,
    hands: Simulator,
    pub state: Tournament,
    pub events: Vec<TournamentEvent>,
    /// The secret behind the tournament's current commitment.
    secret: Seed,
    options: SimOptions,
    clock: i64,
    late_left: usize,
    /// Cards of the recorded hand in progress at each table (a physical deck).
    decks: std::collections::BTreeMap<u32, Deck>,
    /// Hands since the level started.
    hands_in_level: u32,
    pub commands: u64,
    /// The last command sent.
    pub last_command: Option<TournamentCommand>,
}

fn level(small: u64, big: u64, ante: u64) -> Level {
    Level::Play {
        blinds: Blinds {
            small_blind: Chips::new(small),
            big_blind: Chips::new(big),
            ante: if ante == 0 {
                AnteStructure::None
            } else {
                AnteStructure::BigBlind(ante)
            },
        },
        minutes: 20,
    }
}

/// A venue's usual structure: 5,000 chips, 25-chip unit, a colour-up of the 25s at the
/// first break and of the 100s at the second.
pub fn standard_levels() -> Vec<Level> {
    vec![
        level(25, 50, 0),
        level(50, 100, 0),
        level(75, 150, 0),
        level(100, 200, 200),
        Level::Break {
            minutes: 10,
            colour_up: Some(Denominations {
                low: Chips::new(25),
                high: Chips::new(100),
            }),
        },
        level(200, 400, 400),
        level(300, 600, 600),
        level(500, 1000, 1000),
        level(1000, 2000, 2000),
        Level::Break {
            minutes: 10,
            colour_up: Some(Denominations {
                low: Chips::new(100),
                high: Chips::new(1000),
            }),
        },
        level(2000, 4000, 4000),
        level(3000, 6000, 6000),
        level(5000, 10000, 10000),
        level(10000, 20000, 20000),
        level(20000, 40000, 40000),
        level(50000, 100_000, 100_000),
        level(100_000, 200_000, 200_000),
        level(200_000, 400_000, 400_000),
        level(500_000, 1_000_000, 1_000_000),
    ]
}

/// A plain weekly freezeout at `venue`: $20 + $5 (fees to the house; to the pool under the
/// invitational, 1.5), 5,000 chips in 25s, [`standard_levels`], tables of nine, the
/// preset's rules (QueenSix's blinds capped at 10% of the table's average stack), no
/// re-buys, add-ons or late entries, the default payouts, and the first draw committed to
/// `draw_commitment`.
pub fn weekly_schedule(
    venue: &str,
    preset: Preset,
    tracking: Tracking,
    draw_commitment: crate::deck::Commitment,
) -> Schedule {
    Schedule {
        name: format!("{venue} weekly"),
        venue: venue.into(),
        starts_at: 0,
        preset,
        house: TournamentRules::for_preset(preset),
        tracking,
        pool: PoolRules {
            entry: Price::new(Cents::new(2000), Cents::new(500)),
            rebuy: None,
            add_on: None,
            // Invitational 1.5: "All moneys paid will be placed into the pot."
            house: if preset == Preset::Invitational {
                HouseCut::AllToPool
            } else {
                HouseCut::Fees
            },
            guarantee: Cents::ZERO,
        },
        starting_chips: Chips::new(5000),
        chip_unit: Chips::new(25),
        levels: standard_levels(),
        table_size: 9,
        rebuys: None,
        add_ons: None,
        reentries: None,
        late_registration_until_level: 0,
        late_registration_until_minutes: None,
        payouts: PayoutTable::default(),
        // QueenSix house policies 4: every event caps its blinds (at 10% of the table's
        // average stack here, as `league simulate` does).
        blind_cap_percent: (preset == Preset::QueenSix).then_some(10),
        break_order: Vec::new(),
        draw_commitment,
    }
}

impl TournamentSim {
    /// Schedules and registers a tournament (not yet started).
    pub fn new(seed: u64, options: SimOptions) -> Result<TournamentSim, TournamentError> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let secret = random_seed(&mut rng);
        let mut house = TournamentRules::for_preset(options.preset);
        if options.preset == Preset::Wph && rng.next_u32() % 2 == 0 {
            house.colour_up = ColourUpPolicy::ChipRace;
        }
        // A third of the tournaments also close their windows by time (the invitational's
        // re-buys always do: 1.3, "in the first 2 hours of play"); the simulated clock runs
        // fast, so short windows close during play.
        let by_time = (rng.next_u32() % 3 == 0).then(|| 3 + rng.next_u32() % 10);
        let invitational = options.preset == Preset::Invitational;
        let rebuy_minutes = if invitational { Some(120) } else { by_time };
        let purchase = |chips, until| PurchasePolicy {
            per_player: 2,
            from_level: 1,
            until_level: until,
            until_minutes: by_time,
            chips,
            max_stack: Some(Chips::new(5000)),
            after_bust_only: options.preset == Preset::Invitational,
        };
        let schedule = Schedule {
            name: format!("sim {seed}"),
            venue: options.venue.as_str().into(),
            starts_at: 0,
            preset: options.preset,
            house,
            tracking: options.tracking,
            pool: PoolRules {
                entry: Price::new(Cents::new(2000), Cents::new(500)),
                rebuy: options
                    .rebuys
                    .then_some(Price::new(Cents::new(2000), Cents::ZERO)),
                add_on: (options.rebuys && !invitational)
                    .then_some(Price::new(Cents::new(1000), Cents::ZERO)),
                house: if invitational {
                    HouseCut::AllToPool
                } else {
                    HouseCut::Fees
                },
                guarantee: Cents::ZERO,
            },
            starting_chips: Chips::new(5000),
            chip_unit: Chips::new(25),
            levels: standard_levels(),
            table_size: options.table_size,
            rebuys: options.rebuys.then(|| PurchasePolicy {
                until_minutes: rebuy_minutes,
                // Invitational 1.3: "limited to one per person".
                per_player: if invitational { 1 } else { 2 },
                ..purchase(Chips::new(5000), 4)
            }),
            // Invitational 1.4: "Add-ons are not allowed."
            add_ons: (options.rebuys && !invitational).then(|| PurchasePolicy {
                from_level: 4,
                max_stack: None,
                after_bust_only: false,
                per_player: 1,
                ..purchase(Chips::new(3000), 4)
            }),
            // Invitational 1.2: "All moneys must be paid prior to the start of the
            // tournament": no re-entry, no late registration.
            reentries: (!invitational).then(|| PurchasePolicy {
                per_player: 1,
                max_stack: None,
                after_bust_only: false,
                ..purchase(Chips::new(5000), 3)
            }),
            late_registration_until_level: if invitational { 0 } else { 3 },
            late_registration_until_minutes: by_time.filter(|_| !invitational),
            payouts: PayoutTable::default(),
            blind_cap_percent: (options.preset == Preset::QueenSix).then_some(10),
            break_order: Vec::new(),
            draw_commitment: secret.commitment(),
        };
        let hands = Simulator::new(rng.next_u64(), options.preset.rules());
        let mut sim = TournamentSim {
            rng,
            hands,
            state: Tournament::new(),
            events: Vec::new(),
            secret,
            late_left: options.late,
            options,
            clock: 0,
            decks: std::collections::BTreeMap::new(),
            hands_in_level: 0,
            commands: 0,
            last_command: None,
        };
        sim.send(&TournamentCommand::Schedule(Box::new(schedule)))?;
        for i in 0..sim.options.players {
            let player = sim.options.id(i);
            sim.send(&TournamentCommand::Register { player })?;
        }
        Ok(sim)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.rng.next_u64() % n.max(1)
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    /// Sends one command; its events are applied and kept.
    pub fn send(&mut self, command: &TournamentCommand) -> Result<(), TournamentError> {
        self.last_command = Some(command.clone());
        let events = play::decide(&self.state, command)?;
        for event in &events {
            play::apply(&mut self.state, event);
        }
        self.events.extend(events);
        self.commands += 1;
        Ok(())
    }

    /// The seed behind the current commitment, and a fresh commitment to follow it.
    fn reveal(&mut self) -> (Seed, crate::deck::Commitment) {
        let seed = self.secret;
        self.secret = random_seed(&mut self.rng);
        (seed, self.secret.commitment())
    }

    fn tick(&mut self) -> i64 {
        self.clock += 1 + i64::try_from(self.below(60_000)).unwrap_or(0);
        self.clock
    }

    /// A few seconds pass (between the commands of one level).
    fn nudge(&mut self) -> i64 {
        self.clock += 1 + i64::try_from(self.below(5_000)).unwrap_or(0);
        self.clock
    }

    /// Whether a window of `minutes` is still open at `at` on the tournament clock.
    fn in_time(&self, minutes: Option<u32>, at: i64) -> bool {
        minutes.is_none_or(|m| self.state.played(at) < i64::from(m) * 60_000)
    }

    fn policy_minutes(&self, pick: fn(&play::Schedule) -> Option<PurchasePolicy>) -> Option<u32> {
        self.state
            .schedule()
            .and_then(pick)
            .and_then(|p| p.until_minutes)
    }

    /// Plays the tournament to the end (or `max_commands`).
    pub fn run(&mut self, max_commands: u64) -> Result<(), TournamentError> {
        self.start()?;
        while !self.finished() && self.commands < max_commands {
            self.step()?;
        }
        Ok(())
    }

    pub fn finished(&self) -> bool {
        self.state.stage() == play::Stage::Finished
    }

    /// Marks a few players absent and starts the tournament.
    pub fn start(&mut self) -> Result<(), TournamentError> {
        let ids: Vec<PlayerId> = self.state.players().keys().cloned().collect();
        for id in ids {
            if self.chance(5) {
                self.send(&TournamentCommand::MarkAbsent { player: id })?;
            }
        }
        let at = self.tick();
        let (seed, next) = self.reveal();
        self.send(&TournamentCommand::Start {
            at,
            seed,
            next_commitment: next,
        })?;
        // Where the book has them (invitational 2.7, QueenSix tournament 4), a few empty
        // seats get an unsold seat's stack.
        if self.options.tracking != Tracking::Results
            && matches!(self.options.preset, Preset::Invitational | Preset::QueenSix)
        {
            let size = self.options.table_size;
            let open: Vec<(u32, u8)> = self
                .state
                .tables()
                .iter()
                .flat_map(|(&n, t)| {
                    (0..size)
                        .filter(|s| !t.seats.contains_key(s))
                        .map(move |s| (n, s))
                })
                .collect();
            for (table, seat) in open {
                if self.chance(25) {
                    self.send(&TournamentCommand::PlaceUnsoldStack { table, seat })?;
                }
            }
        }
        Ok(())
    }

    /// An unsold seat's stack at a table between hands (the first, or one at random).
    fn idle_unsold(&mut self, any: bool) -> Option<(u32, u8)> {
        let stacks: Vec<(u32, u8)> = self
            .state
            .tables()
            .iter()
            .filter(|(_, t)| !t.in_hand())
            .flat_map(|(&n, t)| t.unsold().keys().map(move |&s| (n, s)))
            .collect();
        let pick = if any {
            usize::try_from(self.below(u64::try_from(stacks.len()).unwrap_or(1))).unwrap_or(0)
        } else {
            0
        };
        stacks.get(pick).copied()
    }

    fn remove_unsold(&mut self, table: u32, seat: u8) -> Result<(), TournamentError> {
        self.send(&TournamentCommand::RemoveUnsoldStack {
            table,
            seat,
            reason: "nobody came for the seat".into(),
        })
    }

    /// Sends the next command (or a few).
    pub fn step(&mut self) -> Result<(), TournamentError> {
        // Busted players waiting on a re-buy decide.
        let busted: Vec<PlayerId> = self
            .state
            .players()
            .iter()
            .filter(|(_, p)| matches!(p.standing, Standing::Busted { .. }))
            .map(|(id, _)| id.clone())
            .collect();
        for player in busted {
            let at = self.nudge();
            let minutes = self.policy_minutes(|s| s.rebuys);
            if self.chance(60) && self.in_time(minutes, at) {
                self.send(&TournamentCommand::Rebuy { player, at })?;
            } else {
                self.send(&TournamentCommand::DeclineRebuy { player })?;
            }
        }
        let in_hand = self.state.tables().values().any(|t| t.in_hand());
        if self.state.redraw_due() && !in_hand {
            let (seed, next) = self.reveal();
            return self.send(&TournamentCommand::Redraw {
                seed,
                next_commitment: next,
            });
        }
        if self.state.colour_up_due().is_some() && !in_hand {
            // The unsold seats' stacks leave play before the chip race.
            while let Some((table, seat)) = self.idle_unsold(false) {
                self.remove_unsold(table, seat)?;
            }
            let race = self
                .state
                .schedule()
                .is_some_and(|s| s.house.colour_up == ColourUpPolicy::ChipRace);
            let (seed, next) = if race {
                let (s, n) = self.reveal();
                (Some(s), Some(n))
            } else {
                (None, None)
            };
            self.send(&TournamentCommand::ColourUp {
                seed,
                next_commitment: next,
            })?;
            let at = self.tick();
            return self.send(&TournamentCommand::AdvanceLevel { at });
        }
        if self.state.stage() == play::Stage::Finished {
            return Ok(());
        }
        // The clock.
        let (level, spec) = self.state.level().unwrap_or((1, standard_levels()[0]));
        let level_hands = if self.options.tracking == Tracking::Results {
            2
        } else {
            12
        };
        if self.state.colour_up_due().is_none()
            && (matches!(spec, Level::Break { .. }) || self.hands_in_level >= level_hands)
        {
            let at = self.tick();
            if self.chance(10) && !self.state.is_paused() {
                self.send(&TournamentCommand::Pause { at })?;
                let at = self.tick();
                self.send(&TournamentCommand::Resume { at })?;
            }
            let at = self.tick();
            if usize::try_from(level).unwrap_or(0) < standard_levels().len() {
                self.hands_in_level = 0;
                return self.send(&TournamentCommand::AdvanceLevel { at });
            }
        }
        self.extras(level)?;
        if self.state.stage() == play::Stage::Finished {
            return Ok(());
        }
        match self.options.tracking {
            Tracking::Results => self.results_step(),
            Tracking::Dealt | Tracking::Recorded => self.hand_step(),
        }
    }

    /// Late entries, re-entries, add-ons, penalties, arrivals.
    fn extras(&mut self, level: u32) -> Result<(), TournamentError> {
        let idle = |s: &TournamentSim, id: &str| {
            s.state
                .player(id)
                .and_then(|p| match p.standing {
                    Standing::Seated { table, .. } => s.state.tables().get(&table),
                    _ => None,
                })
                .is_some_and(|t| !t.in_hand())
        };
        let at = self.nudge();
        let late_minutes = self
            .state
            .schedule()
            .and_then(|s| s.late_registration_until_minutes);
        let late_until = self
            .state
            .schedule()
            .map_or(0, |s| s.late_registration_until_level);
        // A late entrant takes an unsold seat's stack, between its table's hands.
        let unsold_in_hand = self
            .state
            .tables()
            .values()
            .any(|t| t.in_hand() && !t.unsold().is_empty());
        if level <= late_until
            && self.late_left > 0
            && !unsold_in_hand
            && self.in_time(late_minutes, at)
            && self.chance(20)
        {
            self.late_left -= 1;
            let player = self.options.id(self.options.players + self.late_left);
            let (seed, next) = self.reveal();
            return self.send(&TournamentCommand::LateEntry {
                player,
                at,
                seed,
                next_commitment: next,
            });
        }
        // Only where a stack is left: the other presets' runs draw as they did.
        let unsold = self.state.tables().values().any(|t| !t.unsold().is_empty());
        if unsold
            && self.chance(3)
            && let Some((table, seat)) = self.idle_unsold(true)
        {
            return self.remove_unsold(table, seat);
        }
        let ids: Vec<(PlayerId, play::Entrant)> = self
            .state
            .players()
            .iter()
            .map(|(id, p)| (id.clone(), p.clone()))
            .collect();
        let pick = usize::try_from(self.below(u64::try_from(ids.len()).unwrap_or(1))).unwrap_or(0);
        let Some((id, p)) = ids.get(pick).cloned() else {
            return Ok(());
        };
        let reentry_minutes = self.policy_minutes(|s| s.reentries);
        let (reentries, add_ons) = self.state.schedule().map_or((false, false), |s| {
            (s.reentries.is_some(), s.add_ons.is_some())
        });
        if p.standing == Standing::Out
            && reentries
            && !self
                .state
                .penalties_of(id.as_str())
                .any(|g| g.penalty.puts_out())
            && level <= 3
            && p.entries < 2
            && self.in_time(reentry_minutes, at)
            && self.chance(30)
        {
            let (seed, next) = self.reveal();
            return self.send(&TournamentCommand::LateEntry {
                player: id,
                at,
                seed,
                next_commitment: next,
            });
        }
        if !matches!(p.standing, Standing::Seated { .. }) {
            return Ok(());
        }
        if p.absent && self.chance(30) {
            return self.send(&TournamentCommand::Arrived { player: id });
        }
        let add_on_minutes = self.policy_minutes(|s| s.add_ons);
        if self.options.rebuys
            && add_ons
            && level == 4
            && p.add_ons == 0
            && idle(self, id.as_str())
            && self.in_time(add_on_minutes, at)
            && self.chance(30)
        {
            return self.send(&TournamentCommand::AddOn { player: id, at });
        }
        let rebuy_minutes = self.policy_minutes(|s| s.rebuys);
        if self.options.rebuys
            && level <= 4
            && p.rebuys < 2
            && p.chips <= Chips::new(5000)
            && !p.rebuy_announced
            && self.options.preset != Preset::Invitational
            && self.in_time(rebuy_minutes, at)
            && self.chance(5)
        {
            return self.send(&TournamentCommand::AnnounceRebuy { player: id, at });
        }
        let roll = self.below(1000);
        let unit = self.state.chip_unit().max(Chips::new(1));
        let wanted = match roll {
            0..5 => Penalty::Warning,
            5..8 => Penalty::MissRounds(1),
            // A quarter of the stack, in the smallest chip in play.
            8..11 if p.chips > unit => {
                let quarter = Chips::new(p.chips.get() / 4 / unit.get() * unit.get());
                Penalty::Forfeit(quarter.max(unit))
            }
            11..16 => Penalty::Disqualify,
            16..18 => Penalty::Eliminate,
            _ => return Ok(()),
        };
        // Where the house escalates repeat infractions (WPH 47, Oracle tournament 4), a
        // repeat offender gets at least the next rung.
        let penalty = match (self.state.least_penalty(id.as_str()), wanted.rung()) {
            (Some(least), Some(rung)) if least.rung().is_some_and(|l| l > rung) => least,
            _ => wanted,
        };
        let between_hands = idle(self, id.as_str());
        if matches!(penalty, Penalty::Forfeit(_)) && !between_hands
            || penalty.puts_out() && !(between_hands && self.state.remaining() > 2)
        {
            return Ok(());
        }
        self.send(&TournamentCommand::Penalise {
            player: id,
            penalty,
        })
    }

    fn results_step(&mut self) -> Result<(), TournamentError> {
        if self.state.redraw_due() || self.state.colour_up_due().is_some() {
            return Ok(());
        }
        self.hands_in_level += 1;
        let seated: Vec<(PlayerId, Chips)> = self
            .state
            .players()
            .iter()
            .filter(|(_, p)| matches!(p.standing, Standing::Seated { .. }))
            .map(|(id, p)| (id.clone(), p.chips))
            .collect();
        if seated.len() < 2 {
            return Ok(());
        }
        if self.chance(30) {
            // A chip count: chips move between players, the total stays.
            let total = self.state.chips_in_play();
            let mut counts: Vec<(PlayerId, Chips)> = seated.clone();
            let unit = self.state.chip_unit().max(Chips::new(1));
            let mut left = total;
            let n = counts.len();
            for (i, c) in counts.iter_mut().enumerate() {
                if i + 1 == n {
                    c.1 = left;
                } else {
                    let share = total / u64::try_from(n).unwrap_or(1);
                    let jitter = self.below(share / unit + 1) * unit / 2;
                    let v = (share / 2 + jitter).min(left.saturating_sub(unit));
                    c.1 = v.max(unit).min(left);
                    left -= c.1;
                }
            }
            return self.send(&TournamentCommand::RecordChips { counts });
        }
        let k = if seated.len() > 3 && self.chance(15) {
            2
        } else {
            1
        };
        let mut players = Vec::new();
        let mut pool = seated.clone();
        for _ in 0..k {
            let i =
                usize::try_from(self.below(u64::try_from(pool.len()).unwrap_or(1))).unwrap_or(0);
            players.push(pool.swap_remove(i).0);
        }
        // The knockout is by a player at the table of those out (when they were at one).
        let table_of = |id: &PlayerId| match self.state.player(id).map(|p| p.standing) {
            Some(Standing::Seated { table, .. }) => Some(table),
            _ => None,
        };
        let table =
            table_of(&players[0]).filter(|t| players.iter().all(|p| table_of(p) == Some(*t)));
        let at_table: Vec<PlayerId> = pool
            .iter()
            .map(|p| p.0.clone())
            .filter(|id| table.is_some() && table_of(id) == table)
            .collect();
        let by = if self.chance(80) && !at_table.is_empty() {
            let i = usize::try_from(self.below(u64::try_from(at_table.len()).unwrap_or(1)))
                .unwrap_or(0);
            at_table.get(i).cloned()
        } else {
            None
        };
        if self.options.rebuys && k == 1 && self.chance(40) {
            let id = players[0].clone();
            let at = self.nudge();
            let ok = self.send(&TournamentCommand::Rebuy {
                player: id.clone(),
                at,
            });
            if ok.is_ok() {
                return Ok(());
            }
        }
        self.send(&TournamentCommand::Eliminate { players, by })
    }

    fn hand_step(&mut self) -> Result<(), TournamentError> {
        let tables: Vec<u32> = self.state.tables().keys().copied().collect();
        // Play on at a table with a hand in progress, else start one where allowed.
        let busy: Vec<u32> = tables
            .iter()
            .copied()
            .filter(|t| self.state.tables().get(t).is_some_and(|t| t.in_hand()))
            .collect();
        if !busy.is_empty() && (self.chance(85) || busy.len() == tables.len()) {
            let i =
                usize::try_from(self.below(u64::try_from(busy.len()).unwrap_or(1))).unwrap_or(0);
            return self.act(busy[i]);
        }
        if self.state.redraw_due() || self.state.colour_up_due().is_some() {
            return match busy.first() {
                Some(&table) => self.act(table),
                None => Ok(()),
            };
        }
        let idle: Vec<u32> = tables
            .iter()
            .copied()
            .filter(|t| !busy.contains(t))
            .collect();
        for table in idle {
            let seed =
                (self.options.tracking == Tracking::Dealt).then(|| random_seed(&mut self.rng));
            let hand_id = self
                .options
                .name_hands
                .then(|| random_uuid(&mut self.rng).into());
            match self.send(&TournamentCommand::StartHand {
                table,
                seed,
                hand_id,
            }) {
                Ok(()) => {
                    self.hands_in_level += 1;
                    if self.options.tracking == Tracking::Recorded {
                        let deck_seed = random_seed(&mut self.rng);
                        self.decks.insert(table, Deck::from_seed(&deck_seed));
                    }
                    return Ok(());
                }
                // Waiting is normal: hand-for-hand, a short table.
                Err(
                    TournamentError::WaitingForHandForHand { .. }
                    | TournamentError::TableHalted { .. }
                    | TournamentError::NotEnoughPlayers { .. },
                ) => continue,
                Err(e) => return Err(e),
            }
        }
        match busy.first() {
            Some(&table) => self.act(table),
            None => Err(TournamentError::BadSchedule(format!(
                "the simulator found no table that can play: {:?}",
                self.state
                    .tables()
                    .iter()
                    .map(|(n, t)| (*n, t.seats.clone()))
                    .collect::<Vec<_>>()
            ))),
        }
    }

    fn act(&mut self, table: u32) -> Result<(), TournamentError> {
        let Some(hand) = self
            .state
            .tables()
            .get(&table)
            .and_then(|t| t.hand())
            .copied()
        else {
            return Ok(());
        };
        let command = match self.recorded_command(table, &hand) {
            Some(c) => c,
            None => match self.hands.next_command(&hand) {
                Some(c) => c,
                None => return Ok(()),
            },
        };
        self.send(&TournamentCommand::Hand { table, command })
    }

    /// Recorded tracking: the host records the board and the shown hands.
    fn recorded_command(&mut self, table: u32, hand: &HandState) -> Option<HandCommand> {
        if self.options.tracking != Tracking::Recorded {
            return None;
        }
        let deck = self.decks.get(&table)?.clone();
        let seats: Vec<Seat> = hand.seats_in_order().collect();
        let hole = |seat: Seat| -> Option<[Card; 2]> {
            let i = seats.iter().position(|&s| s == seat)?;
            Some([deck.cards()[2 * i], deck.cards()[2 * i + 1]])
        };
        if let Some(street) = hand.awaiting_board() {
            let dealt = hand.board().count();
            let cards = deck.cards()[20 + dealt..20 + dealt + street.cards()].to_vec();
            return Some(HandCommand::DealBoard { cards });
        }
        if let Some(seat) = hand.to_show()
            && hand.hole_cards(seat).is_none()
        {
            if self.chance(20) {
                let muck = HandCommand::Muck { seat };
                if crate::hand::decide(hand, &muck).is_ok() {
                    return Some(muck);
                }
            }
            return Some(HandCommand::Show {
                seat,
                cards: hole(seat),
            });
        }
        None
    }
}

/// A random UUIDv4 in its canonical text form.
fn random_uuid(rng: &mut ChaCha8Rng) -> String {
    let mut b = [0u8; 16];
    rng.fill_bytes(&mut b);
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    crate::units::uuid_text(&b)
}

fn random_seed(rng: &mut ChaCha8Rng) -> Seed {
    let mut bytes = [0u8; 32];
    rng.fill_bytes(&mut bytes);
    Seed::from_bytes(bytes)
}
