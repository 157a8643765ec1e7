//! `league simulate`: a seeded league season through the engine's commands, into the store.
//!
//! One league stream (`league:<name>`) holds the venues (in regions), the seasons (one
//! season of all the weeks, or one every `season_weeks` weeks, each closed after its last
//! week but the last) and their formulas (changed halfway through each season, which
//! re-scores it), the players (with one merge of a duplicate registration); every week each venue runs a tournament of 15 to 60
//! players in one of the three tracking modes and one of the houses' rules, with re-buys,
//! late entries, absentees, balancing, breaks, colour-ups and penalties
//! ([`league_engine::tournament::sim`]), each in its own stream (`tournament:<id>`); its
//! finish is recorded in the league stream. Every other venue also runs a cash table each
//! week (`cash:<venue>-cash-w<week>`, [`league_engine::cash::sim`]). Every command is decided by the engine on the
//! state folded so far and appended with the stream version it was decided on.

use std::time::{Duration, Instant};

use league_engine::league::{
    self, Command as LeagueCommand, LeagueState, ScoringRule, TournamentOutcome,
};
use league_engine::rules::Preset;
use league_engine::tournament::play::Tracking;
use league_engine::tournament::sim::{SimOptions, TournamentSim};
use league_engine::units::PlayerId;
use league_events::{LogEvent, StreamKind, encode};
use league_store::{ExpectedVersion, NewEvent, Store};
use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};

use crate::AppError;
use crate::live::Live;

/// What to simulate.
#[derive(Clone, Debug)]
pub struct Options {
    pub venues: u32,
    pub weeks: u32,
    pub seed: u64,
    /// Weeks per season: each season but the last is closed after its last week. `None`:
    /// one season of every week, left open.
    pub season_weeks: Option<u32>,
}

/// What was simulated.
#[derive(Clone, Debug, Default)]
pub struct Report {
    pub tournaments: u32,
    /// Cash tables opened (one a week at every other venue), and their hands.
    pub cash_tables: u32,
    pub cash_hands: u32,
    pub events: u64,
    pub appends: u64,
    pub last_position: u64,
    pub elapsed: Duration,
}

impl Report {
    pub fn events_per_second(&self) -> u64 {
        let secs = self.elapsed.as_secs_f64().max(1e-9);
        #[expect(clippy::as_conversions, reason = "a rate for display")]
        let rate = (self.events as f64 / secs) as u64;
        rate
    }
}

/// Appends `events` to `stream` at `version`, returning the new version.
async fn append<E: LogEvent>(
    store: &Store,
    stream: &str,
    version: &mut u64,
    events: &[E],
    report: &mut Report,
) -> Result<(), AppError> {
    for chunk in events.chunks(league_store::MAX_BATCH_EVENTS) {
        let batch: Vec<NewEvent> = chunk.iter().map(encode).collect::<Result<_, _>>()?;
        let appended = store
            .append(stream, ExpectedVersion::Exact(*version), &batch, None)
            .await?;
        *version = appended.last_version;
        report.last_position = appended.last_position;
        report.events += u64::try_from(batch.len()).unwrap_or(0);
        report.appends += 1;
    }
    Ok(())
}

struct LeagueStream {
    id: String,
    state: LeagueState,
    version: u64,
}

impl LeagueStream {
    async fn send(
        &mut self,
        store: &Store,
        command: LeagueCommand,
        report: &mut Report,
    ) -> Result<(), AppError> {
        let events = league::decide(&self.state, &command)?;
        for e in &events {
            league::apply(&mut self.state, e);
        }
        append(store, &self.id, &mut self.version, &events, report).await
    }
}

const PRESETS: [Preset; 4] = [
    Preset::QueenSix,
    Preset::Wph,
    Preset::Oracle,
    Preset::Invitational,
];
const TRACKINGS: [Tracking; 3] = [Tracking::Dealt, Tracking::Recorded, Tracking::Results];

fn below(rng: &mut ChaCha8Rng, n: u64) -> u64 {
    rng.next_u64() % n.max(1)
}

fn pick<T: Copy>(rng: &mut ChaCha8Rng, items: &[T]) -> T {
    let i = usize::try_from(below(rng, u64::try_from(items.len()).unwrap_or(1))).unwrap_or(0);
    items[i.min(items.len() - 1)]
}

/// Plays the season into `store`. With `live`, waits for the live projector to fold every
/// event before returning.
pub async fn run(
    store: &Store,
    options: &Options,
    live: Option<&mut Live>,
) -> Result<Report, AppError> {
    let started = Instant::now();
    let mut rng = ChaCha8Rng::seed_from_u64(options.seed);
    let mut report = Report::default();
    let mut league = LeagueStream {
        id: StreamKind::League.stream(&format!("sim-{}", options.seed)),
        state: LeagueState::new(),
        version: 0,
    };
    league
        .send(
            store,
            LeagueCommand::CreateLeague {
                name: format!("Simulated league {}", options.seed),
                final_table: None,
                code: Some(format!("sim-{}", options.seed)),
            },
            &mut report,
        )
        .await?;
    let venues: Vec<String> = (1..=options.venues)
        .map(|v| format!("venue-{v:02}"))
        .collect();
    for (i, venue) in venues.iter().enumerate() {
        league
            .send(
                store,
                LeagueCommand::AddVenue {
                    venue: venue.as_str().into(),
                    region: format!("region-{}", i % 4 + 1),
                    code: Some(format!("v{:02}", i + 1)),
                },
                &mut report,
            )
            .await?;
    }
    let season_weeks = options
        .season_weeks
        .filter(|w| *w > 0)
        .unwrap_or(options.weeks)
        .max(1);
    let mut season = "season-1".to_owned();
    league
        .send(
            store,
            LeagueCommand::AddSeason {
                season: season.as_str().into(),
                best_n: Some(8),
                scoring: ScoringRule::Formula {
                    text: "round(10 * sqrt(n) / sqrt(r)) - 9".into(),
                },
            },
            &mut report,
        )
        .await?;
    // A pool of players, about 30 per venue; each venue draws mostly from its locals.
    let pool = usize::try_from(options.venues.max(1)).unwrap_or(1) * 30;
    let players: Vec<String> = (1..=pool).map(|i| format!("pl{i:05}")).collect();
    for (i, player) in players.iter().enumerate() {
        league
            .send(
                store,
                LeagueCommand::RegisterPlayer {
                    player: PlayerId::from(player.clone()),
                    name: format!("Player {}", i + 1),
                    membership: format!("M{:06}", i + 1),
                },
                &mut report,
            )
            .await?;
    }
    let mut merged: Option<String> = None;
    for week in 1..=options.weeks {
        // The season this week is in, its week in it, and its length.
        let index = (week - 1) / season_weeks;
        let in_season = (week - 1) % season_weeks + 1;
        let length = season_weeks.min(options.weeks - index * season_weeks);
        if index > 0 && in_season == 1 {
            season = format!("season-{}", index + 1);
            league
                .send(
                    store,
                    LeagueCommand::AddSeason {
                        season: season.as_str().into(),
                        best_n: Some(8),
                        scoring: ScoringRule::Formula {
                            text: "round(10 * sqrt(n) / sqrt(r)) - 9".into(),
                        },
                    },
                    &mut report,
                )
                .await?;
        }
        if in_season == length / 2 + 1 && length > 1 {
            // Halfway: the league changes its formula; the season is re-scored.
            league
                .send(
                    store,
                    LeagueCommand::SetFormula {
                        season: season.as_str().into(),
                        scoring: ScoringRule::Formula {
                            text: "n - r + 1".into(),
                        },
                    },
                    &mut report,
                )
                .await?;
        }
        for (v, venue) in venues.iter().enumerate() {
            // A field and its late entries never outnumber the league's players (else the
            // draw below would never end): at most `pool - pool / 6` start.
            let field = (15 + usize::try_from(below(&mut rng, 46)).unwrap_or(0))
                .min(pool - pool / 6)
                .max(1);
            let late = field / 6;
            // Locals first, then visitors from anywhere.
            let mut ids: Vec<String> = Vec::with_capacity(field + late);
            let mut taken = std::collections::BTreeSet::new();
            while ids.len() < field + late {
                let local = below(&mut rng, 100) < 70;
                let i = if local {
                    v * 30 + usize::try_from(below(&mut rng, 30)).unwrap_or(0)
                } else {
                    usize::try_from(below(&mut rng, u64::try_from(pool).unwrap_or(1))).unwrap_or(0)
                };
                let id = players[i.min(pool - 1)].clone();
                if merged.as_ref() != Some(&id) && taken.insert(id.clone()) {
                    ids.push(id);
                }
            }
            let sim_options = SimOptions {
                players: field,
                preset: pick(&mut rng, &PRESETS),
                tracking: pick(&mut rng, &TRACKINGS),
                table_size: 9,
                rebuys: below(&mut rng, 2) == 0,
                late,
                ids: ids.into_iter().map(PlayerId::from).collect(),
                venue: venue.clone(),
                name_hands: false,
            };
            let tournament = format!("{venue}-w{week:02}");
            let outcome = play_tournament(
                store,
                &tournament,
                &season,
                week,
                rng.next_u64(),
                sim_options,
                &mut report,
            )
            .await?;
            league
                .send(
                    store,
                    LeagueCommand::RecordTournament { outcome },
                    &mut report,
                )
                .await?;
            report.tournaments += 1;
            if v % 2 == 0 {
                // Its own seed: the tournaments draw from `rng` as they always have.
                let seed = options
                    .seed
                    .wrapping_mul(0x9e37_79b9_7f4a_7c15)
                    .wrapping_add(u64::from(week) << 16 | u64::try_from(v).unwrap_or(0));
                play_cash(store, venue, week, seed, &mut report).await?;
            }
        }
        if week == 2 && players.len() > 2 {
            // A duplicate registration found and merged (and the merge stands).
            let (keep, merge) = (players[0].clone(), players[players.len() - 1].clone());
            let merge_ok = league::decide(
                &league.state,
                &LeagueCommand::MergePlayers {
                    keep: PlayerId::from(keep.clone()),
                    merge: PlayerId::from(merge.clone()),
                },
            );
            if merge_ok.is_ok() {
                merged = Some(merge.clone());
                league
                    .send(
                        store,
                        LeagueCommand::MergePlayers {
                            keep: PlayerId::from(keep),
                            merge: PlayerId::from(merge),
                        },
                        &mut report,
                    )
                    .await?;
            }
        }
        if in_season == length && week < options.weeks {
            // A season over, and another to come: its standings are final.
            league
                .send(
                    store,
                    LeagueCommand::CloseSeason {
                        season: season.as_str().into(),
                    },
                    &mut report,
                )
                .await?;
        }
    }
    if let Some(live) = live {
        live.reach(report.last_position, Duration::from_secs(600))
            .await?;
    }
    report.elapsed = started.elapsed();
    Ok(report)
}

/// Hands a simulated cash table deals in its session.
const CASH_HANDS: u32 = 30;

/// A cash table at `venue` in week `week`: opened, played for [`CASH_HANDS`] hands with
/// players coming and going ([`league_engine::cash::sim`]), and closed. Odd weeks play the
/// Oracle's rules with its straddle, even weeks the Hippodrome's with a session fee.
async fn play_cash(
    store: &Store,
    venue: &str,
    week: u32,
    seed: u64,
    report: &mut Report,
) -> Result<(), AppError> {
    use league_engine::cash::{self, CashRules, HouseTake, TableConfig};
    use league_engine::units::Chips;
    let preset = if week % 2 == 1 {
        Preset::Oracle
    } else {
        Preset::Hippodrome
    };
    let config = TableConfig {
        venue: venue.into(),
        name: "1/2 No-Limit".into(),
        small_blind: Chips::new(1),
        big_blind: Chips::new(2),
        min_buy_in: Chips::new(40),
        max_buy_in: Chips::new(200),
        seats: 9,
        rules: preset.rules(),
        straddle: CashRules::straddle(preset),
        take: if preset == Preset::Hippodrome {
            HouseTake::SessionFee {
                amount: Chips::new(3),
                period_minutes: 30,
            }
        } else {
            HouseTake::Rake(league_engine::hand::Rake {
                basis_points: 500,
                cap: 6,
                no_flop_no_drop: true,
            })
        },
        run_twice: (preset == Preset::Hippodrome).then_some(Chips::new(100)),
    };
    // The evening of the week's day, in seconds.
    let start = u64::from(week) * 7 * 86_400 + 18 * 3_600;
    let mut session = cash::sim::Session::open(seed, config, start)?;
    let hands = session.play(CASH_HANDS, 150)?;
    session.run(&cash::CashCommand::Close { at: session.now })?;
    let stream = StreamKind::Cash.stream(&format!("{venue}-cash-w{week:02}"));
    let mut version = 0u64;
    append(store, &stream, &mut version, &session.events, report).await?;
    report.cash_tables += 1;
    report.cash_hands += hands;
    Ok(())
}

async fn play_tournament(
    store: &Store,
    id: &str,
    season: &str,
    week: u32,
    seed: u64,
    options: SimOptions,
    report: &mut Report,
) -> Result<TournamentOutcome, AppError> {
    let stream = StreamKind::Tournament.stream(id);
    let mut version = 0u64;
    let mut sim = TournamentSim::new(seed, options)?;
    let mut sent = 0usize;
    sim.start()?;
    loop {
        if sim.events.len() > sent {
            append(store, &stream, &mut version, &sim.events[sent..], report).await?;
            sent = sim.events.len();
        }
        if sim.finished() {
            break;
        }
        if sim.commands > 1_000_000 {
            return Err(AppError::Other(format!("{id} did not finish")));
        }
        sim.step()?;
    }
    sim.state
        .outcome(id, season, week * 7)
        .ok_or_else(|| AppError::Other(format!("{id} finished without a result")))
}
