//! What an auditor takes away from the log (`league audit export`): every completed hand of
//! the tournaments, as PHH files PokerKit replays and as PokerStars-style text, and a
//! summary of each tournament (entries, re-buys, places, prizes, league points).
//!
//! The log is read in global order and each tournament folded with the engine, as the
//! projections fold it: a hand's players are the table's seats when it started, its level
//! the tournament's level then, its id the one its command named or the derived one
//! (`docs/graphql.md`, "Hand ids"). Every card is written, as an auditor's view of a
//! completed hand shows it; a hand still running when the log ends is not written.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::Write as _;

use league_engine::cash::CashEvent;
use league_engine::hand::{self, Seat};
use league_engine::league::{self, LeagueState};
use league_engine::tournament::play::{self, Stage, Tournament, TournamentEvent};
use league_engine::{phh, pokerstars};
use league_events::{StreamKind, decode};
use league_store::{LogEntry, RecordedEvent, Store, TrustedKeys, VerifyReport};
use serde::Serialize;

use crate::AppError;

mod cash;
mod summary;

use cash::CashOutcomes;
pub(crate) use cash::{CashTracked, fold_cash};
use summary::summary;
pub use summary::{PlaceLine, TournamentSummary, summary_csv};

/// Events read from the store at a time.
const BATCH: usize = 10_000;

/// One completed hand, as the log recorded it.
#[derive(Clone, Debug)]
pub struct LoggedHand {
    /// The stream the hand was played in: `tournament:<id>` or `cash:<id>`.
    pub stream: String,
    /// The tournament's id (for a cash table, the table's id).
    pub tournament: String,
    /// The log position of the tournament's first event: its number in PokerStars text.
    pub tournament_number: u64,
    pub venue: String,
    /// The log position of the `TableHandStarted` that started the hand.
    pub position: u64,
    /// When that event was recorded, in milliseconds since the Unix epoch.
    pub started_at: i64,
    pub table: u32,
    /// The hand's place among the tournament's hands (from 1, in log order).
    pub ordinal: u32,
    /// The hand's id.
    pub id: String,
    /// The level the hand was played at (0 before the first).
    pub level: u32,
    pub seat_count: u32,
    /// Who sat where. An unsold seat's stack is named `unsold seat N` (N from 1), a name
    /// no player id can take ([`UNSOLD_SEAT`]).
    pub players: BTreeMap<Seat, String>,
    /// The hand's events, `HandStarted` to `HandEnded` (or `HandVoided`).
    pub events: Vec<hand::Event>,
    /// The log position of each of `events`.
    pub positions: Vec<u64>,
    /// Played at a cash table (no tournament, no level).
    pub cash: bool,
}

impl LoggedHand {
    /// The seat `player` was dealt into the hand at, if they were.
    pub fn seat_of(&self, player: &str) -> Option<Seat> {
        let Some(hand::Event::HandStarted { setup }) = self.events.first() else {
            return None;
        };
        let (&seat, _) = self.players.iter().find(|(_, p)| p.as_str() == player)?;
        setup.seats.iter().any(|s| s.seat == seat).then_some(seat)
    }

    /// The hand as `player` may read it: their own hole cards and the hands shown, not the
    /// cards another player was dealt and never showed. `None` when they were not dealt in.
    pub fn seen_by(&self, player: &str) -> Option<LoggedHand> {
        let own = self.seat_of(player)?;
        let mut seen = self.clone();
        let (events, positions) = self
            .events
            .iter()
            .zip(&self.positions)
            .filter(|(e, _)| match e {
                hand::Event::HoleCardsDealt { seat, .. } => *seat == own,
                _ => true,
            })
            .map(|(e, p)| (e.clone(), *p))
            .unzip();
        seen.events = events;
        seen.positions = positions;
        Some(seen)
    }

    /// Whether the hand was voided (its chips returned): it has no hand-history form.
    pub fn voided(&self) -> bool {
        self.events
            .iter()
            .any(|e| matches!(e, hand::Event::HandVoided { .. }))
    }

    /// Whether the floor killed a hand here that PHH cannot record ([`hand::in_turn_order`]):
    /// killed after its last action, the pot going to the hand left, or leaving a side pot
    /// only killed hands reached (or, rarer, retracted a call no fold in its place can
    /// stand for). Such a hand has no PHH file; PokerStars text folds the killed hand where
    /// it was killed.
    pub fn phh_cannot_record_its_kills(&self) -> bool {
        hand::in_turn_order(&self.events).is_err()
    }

    /// The hand as a PHH file, with its tournament, table, hand id, level, players and
    /// date, and user-defined fields: its log position (`_position`), the house's odd-chip
    /// rule (`_odd_chips`, as `league_engine::rules::OddChip` names it) and, for a hand
    /// played in chips of more than one, the smallest chip in play (`_chip_unit`).
    pub fn phh(&self) -> Result<String, String> {
        let mut text = phh::write(&self.events)?;
        let players: Vec<String> = phh::seat_order(&self.events)
            .iter()
            .map(|seat| toml_string(self.players.get(seat).map_or("", String::as_str)))
            .collect();
        let [year, month, day, ..] = pokerstars::civil(self.started_at);
        let _ = writeln!(text, "event = {}", toml_string(&self.tournament));
        let _ = writeln!(text, "venue = {}", toml_string(&self.venue));
        let _ = writeln!(text, "table = {}", self.table);
        let _ = writeln!(text, "hand = {}", toml_string(&self.id));
        let _ = writeln!(text, "level = {}", self.level);
        let _ = writeln!(text, "seat_count = {}", self.seat_count);
        let _ = writeln!(text, "players = [{}]", players.join(", "));
        let _ = writeln!(text, "year = {year}");
        let _ = writeln!(text, "month = {month}");
        let _ = writeln!(text, "day = {day}");
        let _ = writeln!(text, "_position = {}", self.position);
        // PHH has no field for the house's odd-chip rule; PokerKit gives every odd chip of a
        // split pot to the first winner clockwise from the button
        // (`AllToFirstLeftOfButton`). A house that gives them one each splits such a pot
        // otherwise, and says so here.
        if let Some(hand::Event::HandStarted { setup }) = self.events.first() {
            let rule = serde_json::to_string(&setup.rules.odd_chip).map_err(|e| e.to_string())?;
            let _ = writeln!(text, "_odd_chips = {rule}");
            // Nor for the smallest chip in play, in which the pots were split.
            if setup.chip_unit != 1 {
                let _ = writeln!(text, "_chip_unit = {}", setup.chip_unit);
            }
        }
        Ok(text)
    }

    /// The hand as PokerStars-style text: hand number its log position, tournament number
    /// the position of the tournament's first event.
    pub fn pokerstars(&self) -> Result<String, String> {
        let table = format!("{} {}", self.tournament, self.table);
        pokerstars::write(
            &self.events,
            &pokerstars::Header {
                hand: self.position,
                tournament: (!self.cash).then_some(self.tournament_number),
                table: &table,
                level: self.level,
                seat_count: self.seat_count,
                started_at: self.started_at,
                names: &self.players,
            },
        )
    }
}

/// What [`read_log`] found.
#[derive(Default)]
pub struct Findings {
    /// Tournament summaries, by id.
    pub summaries: BTreeMap<String, TournamentSummary>,
    /// Hands still running at the end of the log (not handed out).
    pub unfinished_hands: u64,
    /// Cash tables read.
    pub cash_tables: usize,
    /// Events read.
    pub events: u64,
}

/// An event as the audit reads it: from [`Store::read_all`] (with the time it was
/// stored), or from [`Store::read_log`], which a log of an older release answers without
/// the columns later migrations added.
pub(crate) struct Logged<'a> {
    pub(crate) position: u64,
    pub(crate) stream_id: &'a str,
    pub(crate) event_type: &'a str,
    pub(crate) schema_version: u32,
    pub(crate) payload: &'a [u8],
    /// When it was stored, in microseconds since the Unix epoch (0 when not read).
    pub(crate) recorded_at: i64,
}

impl<'a> From<&'a RecordedEvent> for Logged<'a> {
    fn from(e: &'a RecordedEvent) -> Logged<'a> {
        Logged {
            position: e.position,
            stream_id: &e.stream_id,
            event_type: &e.event_type,
            schema_version: e.schema_version,
            payload: &e.payload,
            recorded_at: e.recorded_at.as_micros(),
        }
    }
}

impl<'a> From<&'a LogEntry> for Logged<'a> {
    fn from(e: &'a LogEntry) -> Logged<'a> {
        Logged {
            position: e.position,
            stream_id: &e.stream_id,
            event_type: &e.event_type,
            schema_version: e.schema_version,
            payload: &e.payload,
            recorded_at: 0,
        }
    }
}

/// A tournament being folded.
pub(crate) struct Tracked {
    number: u64,
    pub(crate) state: Tournament,
    /// The hand running at each table.
    running: BTreeMap<u32, LoggedHand>,
    hands: u64,
    /// While outcomes are re-derived: the state before the events a command appends ahead
    /// of a draw (`EntropyMixed`, `TableOpened`), on which the draw is decided.
    before_command: Option<Box<Tournament>>,
}

/// Reads the whole log in order and hands each completed hand (of `tournament` only, when
/// given) to `hand`; returns the tournaments' summaries. `NotFound`-like input (a
/// tournament the log does not hold) is the caller's to report from the summaries.
pub async fn read_log(
    store: &Store,
    tournament: Option<&str>,
    hand: impl FnMut(LoggedHand) -> Result<(), AppError>,
) -> Result<Findings, AppError> {
    let mut reader = Reader::new(tournament);
    let mut hand = hand;
    let mut from = 0u64;
    loop {
        let batch = store.read_all(from, BATCH).await?;
        let Some(last) = batch.last() else { break };
        from = last.position.saturating_add(1);
        for event in &batch {
            reader.read(&Logged::from(event), &mut hand)?;
        }
    }
    Ok(reader.findings())
}

/// The log read in order: the tournaments folded, the leagues' results.
struct Reader {
    tracked: HashMap<String, Tracked>,
    /// The cash tables, by stream.
    cash: HashMap<String, CashTracked>,
    leagues: BTreeMap<String, LeagueState>,
    /// The closed seasons, each as it stood when it closed (the leagues no longer hold
    /// their results).
    closed: Vec<LeagueState>,
    events: u64,
    wanted: Option<String>,
    /// Keep a finished tournament's state for its summary; without, it is dropped once its
    /// last hand is handed out (memory then follows the tournaments running, not the log).
    keep_finished: bool,
    /// The finished tournaments dropped.
    dropped: HashSet<String>,
    /// Decide each recorded outcome again (`rederive`), in this range of positions.
    outcomes: Option<Outcomes>,
}

/// The outcomes decided again while the log is read: a tournament's payouts, deal and
/// finish; a league's recorded results and re-scorings.
struct Outcomes {
    from: u64,
    to: u64,
    counts: OutcomeCounts,
    failures: Vec<Difference>,
}

/// How many outcomes of each kind were decided again.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OutcomeCounts {
    /// Seat and button draws (at the start and at each redraw), from their seeds.
    pub draws: u64,
    /// Late entrants' seats, from their seeds.
    pub late_seats: u64,
    /// Colour-ups, with their chip races from their seeds.
    pub colour_ups: u64,
    /// Payouts a host set (each amount against the prize pool).
    pub payouts: u64,
    /// Deals (each amount from the stacks and the prizes).
    pub deals: u64,
    /// Finishes (every place and prize).
    pub finishes: u64,
    /// Results a league recorded or amended (every finish's points under every version).
    pub results: u64,
    /// Re-scorings (a new formula version's points for every result of the season).
    pub rescorings: u64,
    /// Cash-table deals (who was dealt in, the button, the blinds and the blinds missed).
    pub cash_deals: u64,
    /// Cash-table money: buy-ins, top-ups, session fees charged and paid, cash-outs.
    pub cash_money: u64,
}

impl Outcomes {
    fn tournament(&mut self, state: &Tournament, event: &Logged<'_>, recorded: &TournamentEvent) {
        if !(self.from..=self.to).contains(&event.position) {
            return;
        }
        let Some(decided) = play::rederive_outcome(state, recorded) else {
            return;
        };
        let (kind, count) = match recorded {
            TournamentEvent::TournamentStarted { .. } => ("seat draw", &mut self.counts.draws),
            TournamentEvent::SeatsRedrawn { .. } => ("redraw", &mut self.counts.draws),
            TournamentEvent::PlayerEntered { .. } => ("late seat", &mut self.counts.late_seats),
            TournamentEvent::ChipsColouredUp { .. } => ("colour-up", &mut self.counts.colour_ups),
            TournamentEvent::PayoutsSet { .. } => ("payouts", &mut self.counts.payouts),
            TournamentEvent::DealMade { .. } => ("deal", &mut self.counts.deals),
            _ => ("finish", &mut self.counts.finishes),
        };
        *count += 1;
        let differs = match decided {
            Ok(decided) if decided == *recorded => return,
            Ok(TournamentEvent::TournamentFinished { pool, results }) => match recorded {
                TournamentEvent::TournamentFinished {
                    pool: p,
                    results: r,
                } if *p == pool => first_difference("finish", r, &results),
                _ => versus(
                    recorded,
                    &TournamentEvent::TournamentFinished { pool, results },
                ),
            },
            Ok(decided) => versus(recorded, &decided),
            Err(e) => format!("the engine refuses it: {e}"),
        };
        self.failures.push(Difference {
            position: event.position,
            stream: event.stream_id.to_owned(),
            what: format!("the {kind}): {differs}"),
        });
    }

    fn league(&mut self, state: &LeagueState, event: &Logged<'_>, recorded: &league::Event) {
        if !(self.from..=self.to).contains(&event.position) {
            return;
        }
        let (command, kind) = match recorded {
            league::Event::TournamentRecorded { outcome, .. } => (
                league::Command::RecordTournament {
                    outcome: outcome.clone(),
                },
                "result",
            ),
            league::Event::TournamentAmended {
                outcome, reason, ..
            } => (
                league::Command::AmendTournament {
                    outcome: outcome.clone(),
                    // An amendment of version 1 carried no reason (reasons came with
                    // version 2): what is re-derived is the outcome and its points.
                    reason: if reason.trim().is_empty() {
                        "recorded before amendments gave reasons".to_owned()
                    } else {
                        reason.clone()
                    },
                },
                "amended result",
            ),
            league::Event::FormulaSet {
                season, scoring, ..
            } => (
                league::Command::SetFormula {
                    season: season.clone(),
                    scoring: scoring.rule(),
                },
                "re-scoring",
            ),
            _ => return,
        };
        if kind == "re-scoring" {
            self.counts.rescorings += 1;
        } else {
            self.counts.results += 1;
        }
        let decided = league::decide(state, &command).map(|mut decided| {
            if let (
                Some(league::Event::TournamentAmended { reason, .. }),
                league::Event::TournamentAmended { reason: given, .. },
            ) = (decided.first_mut(), recorded)
            {
                reason.clone_from(given);
            }
            decided
        });
        let differs = match decided {
            Ok(decided) if decided.len() == 1 && decided[0] == *recorded => return,
            Ok(decided) => match (recorded, decided.first()) {
                (
                    league::Event::TournamentRecorded { outcome, points }
                    | league::Event::TournamentAmended {
                        outcome, points, ..
                    },
                    Some(
                        league::Event::TournamentRecorded { points: p, .. }
                        | league::Event::TournamentAmended { points: p, .. },
                    ),
                ) => points_difference(outcome, points, p),
                (_, Some(d)) => versus(recorded, d),
                (_, None) => "the engine decides nothing".to_owned(),
            },
            Err(e) => format!("the engine refuses it: {e}"),
        };
        let what = match recorded {
            league::Event::TournamentRecorded { outcome, .. }
            | league::Event::TournamentAmended { outcome, .. } => {
                format!(
                    "the {kind} of tournament {}): {differs}",
                    outcome.tournament
                )
            }
            _ => format!("the {kind}): {differs}"),
        };
        self.failures.push(Difference {
            position: event.position,
            stream: event.stream_id.to_owned(),
            what,
        });
    }
}

/// "the log holds X; the engine decides Y", each as JSON.
fn versus<T: Serialize>(recorded: &T, decided: &T) -> String {
    format!(
        "the log holds {}; the engine decides {}",
        serde_json::to_string(recorded).unwrap_or_default(),
        serde_json::to_string(decided).unwrap_or_default()
    )
}

/// The first row where two lists part, as JSON.
fn first_difference<T: Serialize + PartialEq>(what: &str, recorded: &[T], decided: &[T]) -> String {
    let json = |row: Option<&T>| {
        row.map_or("nothing".to_owned(), |r| {
            serde_json::to_string(r).unwrap_or_default()
        })
    };
    let i = recorded
        .iter()
        .zip(decided)
        .position(|(a, b)| a != b)
        .unwrap_or(recorded.len().min(decided.len()));
    format!(
        "row {} of the {what}: the log holds {}; the engine decides {}",
        i + 1,
        json(recorded.get(i)),
        json(decided.get(i))
    )
}

/// The first finish whose points differ, under which version.
fn points_difference(
    outcome: &league::TournamentOutcome,
    recorded: &[league::VersionPoints],
    decided: &[league::VersionPoints],
) -> String {
    for (r, d) in recorded.iter().zip(decided) {
        if r.version != d.version {
            break;
        }
        if let Some(i) = r.points.iter().zip(&d.points).position(|(a, b)| a != b) {
            let player = outcome.finishes.get(i).map_or("?", |f| f.player.as_str());
            return format!(
                "the points of {player} (row {}) under version {}: the log holds {}; the engine computes {}",
                i + 1,
                r.version,
                r.points[i],
                d.points[i]
            );
        }
    }
    versus(&recorded.to_vec(), &decided.to_vec())
}

impl Reader {
    fn new(tournament: Option<&str>) -> Reader {
        Reader {
            tracked: HashMap::new(),
            cash: HashMap::new(),
            leagues: BTreeMap::new(),
            closed: Vec::new(),
            events: 0,
            wanted: tournament.map(|t| match t.strip_prefix(StreamKind::Cash.prefix()) {
                Some(_) => t.to_owned(),
                None => format!("{}{t}", StreamKind::Tournament.prefix()),
            }),
            keep_finished: true,
            dropped: HashSet::new(),
            outcomes: None,
        }
    }

    fn read(
        &mut self,
        event: &Logged<'_>,
        hand: &mut impl FnMut(LoggedHand) -> Result<(), AppError>,
    ) -> Result<(), AppError> {
        self.events += 1;
        match StreamKind::of(event.stream_id) {
            Some(StreamKind::League) => {
                let decoded: league::Event = decode_event(event)?;
                let state = self.leagues.entry(event.stream_id.to_owned()).or_default();
                if let Some(outcomes) = &mut self.outcomes {
                    outcomes.league(state, event, &decoded);
                }
                if let league::Event::SeasonClosed { season } = &decoded
                    && self.keep_finished
                    && let Some(archive) = state.season_archive(season)
                {
                    self.closed.push(archive);
                }
                league::apply(state, &decoded);
            }
            Some(StreamKind::Cash) => {
                if self.wanted.as_deref().is_some_and(|w| w != event.stream_id) {
                    return Ok(());
                }
                let decoded: CashEvent = decode_event(event)?;
                let t = self
                    .cash
                    .entry(event.stream_id.to_owned())
                    .or_insert_with(|| CashTracked::new(event.position));
                let outcomes = self
                    .outcomes
                    .as_mut()
                    .filter(|o| (o.from..=o.to).contains(&event.position))
                    .map(|o| CashOutcomes {
                        counts: &mut o.counts,
                        failures: &mut o.failures,
                    });
                if let Some(done) = fold_cash(t, event, &decoded, outcomes) {
                    hand(done)?;
                }
            }
            Some(StreamKind::Tournament) => {
                if self.wanted.as_deref().is_some_and(|w| w != event.stream_id)
                    || self.dropped.contains(event.stream_id)
                {
                    return Ok(());
                }
                let decoded: TournamentEvent = decode_event(event)?;
                let t = self
                    .tracked
                    .entry(event.stream_id.to_owned())
                    .or_insert_with(|| Tracked::new(event.position));
                if let Some(outcomes) = &mut self.outcomes {
                    // A command's events follow one another in its stream, and a draw's
                    // command appends the pooled entropy it mixes (and a late entry the
                    // table it opens) before the draw: the draw is decided on the state
                    // before them.
                    let preamble = matches!(
                        decoded,
                        TournamentEvent::EntropyMixed { .. } | TournamentEvent::TableOpened { .. }
                    );
                    if preamble {
                        if t.before_command.is_none() {
                            t.before_command = Some(Box::new(t.state.clone()));
                        }
                    } else {
                        let before = t.before_command.take();
                        outcomes.tournament(before.as_deref().unwrap_or(&t.state), event, &decoded);
                    }
                }
                if let Some(done) = fold(t, event.stream_id, event, &decoded) {
                    if !done.voided() {
                        t.hands += 1;
                    }
                    hand(done)?;
                }
                if !self.keep_finished
                    && t.running.is_empty()
                    && matches!(t.state.stage(), Stage::Finished | Stage::Cancelled)
                {
                    // No hand starts after the end: what comes later is not folded.
                    self.tracked.remove(event.stream_id);
                    self.dropped.insert(event.stream_id.to_owned());
                }
            }
            None => {}
        }
        Ok(())
    }

    fn findings(self) -> Findings {
        let mut findings = Findings {
            events: self.events,
            cash_tables: self.cash.len(),
            unfinished_hands: self
                .cash
                .values()
                .filter(|t| t.state.in_hand())
                .count()
                .try_into()
                .unwrap_or(u64::MAX),
            ..Findings::default()
        };
        for (stream, t) in &self.tracked {
            findings.unfinished_hands += u64::try_from(t.running.len()).unwrap_or(u64::MAX);
            let id = tournament_id(stream);
            findings
                .summaries
                .insert(id.to_owned(), summary(id, t, &self.leagues, &self.closed));
        }
        findings
    }
}

/// The completed hands (voided ones included) of one tournament, from its stream's events
/// in version order.
pub fn hands_of(events: &[RecordedEvent]) -> Result<Vec<LoggedHand>, AppError> {
    let Some(first) = events.first() else {
        return Ok(Vec::new());
    };
    let mut t = Tracked::new(first.position);
    let mut hands = Vec::new();
    for event in events {
        let event = Logged::from(event);
        let decoded: TournamentEvent = decode_event(&event)?;
        if let Some(hand) = fold(&mut t, event.stream_id, &event, &decoded) {
            hands.push(hand);
        }
    }
    Ok(hands)
}

pub(crate) fn decode_event<E: league_events::LogEvent>(event: &Logged<'_>) -> Result<E, AppError> {
    decode(event.event_type, event.schema_version, event.payload).map_err(|source| {
        AppError::Projection(league_projections::ProjectionError::Decode {
            position: event.position,
            stream: event.stream_id.to_owned(),
            source,
        })
    })
}

fn tournament_id(stream: &str) -> &str {
    stream
        .strip_prefix(StreamKind::Tournament.prefix())
        .unwrap_or(stream)
}

impl Tracked {
    /// A tournament whose first event is at `number` in the log.
    pub(crate) fn new(number: u64) -> Tracked {
        Tracked {
            number,
            state: Tournament::default(),
            running: BTreeMap::new(),
            hands: 0,
            before_command: None,
        }
    }
}

/// How a hand history names an unsold seat's stack (invitational 2.7, QueenSix tournament
/// 4), with its seat number from 1: dealt in, nobody's. A player id has no space, so no
/// player is named so.
pub const UNSOLD_SEAT: &str = "unsold seat";

/// Folds one event; a hand it completes comes back.
pub(crate) fn fold(
    t: &mut Tracked,
    stream: &str,
    event: &Logged<'_>,
    decoded: &TournamentEvent,
) -> Option<LoggedHand> {
    play::apply(&mut t.state, decoded);
    match decoded {
        TournamentEvent::TableHandStarted { table, .. } => {
            let at = t.state.tables().get(table)?;
            let id = tournament_id(stream);
            let schedule = t.state.schedule();
            let started = LoggedHand {
                stream: stream.to_owned(),
                tournament: id.to_owned(),
                tournament_number: t.number,
                venue: schedule.map(|s| s.venue.to_string()).unwrap_or_default(),
                position: event.position,
                started_at: event.recorded_at.div_euclid(1000),
                table: *table,
                ordinal: at.hand_ordinal(),
                id: at.hand_id().map_or_else(
                    || play::derived_hand_id(id, at.hand_ordinal()),
                    str::to_owned,
                ),
                level: t.state.level().map_or(0, |(number, _)| number),
                seat_count: schedule.map_or(0, |s| u32::from(s.table_size)),
                players: at
                    .seats
                    .iter()
                    .map(|(seat, player)| (*seat, player.to_string()))
                    .chain(
                        at.unsold()
                            .keys()
                            .map(|seat| (*seat, format!("{UNSOLD_SEAT} {}", u32::from(*seat) + 1))),
                    )
                    .collect(),
                events: Vec::new(),
                positions: Vec::new(),
                cash: false,
            };
            t.running.insert(*table, started);
            None
        }
        TournamentEvent::HandEvent {
            table,
            event: hand_event,
        } => {
            let position = event.position;
            let event = hand_event;
            let running = t.running.get_mut(table)?;
            running.events.push(event.clone());
            running.positions.push(position);
            match event {
                hand::Event::HandEnded { .. } | hand::Event::HandVoided { .. } => {
                    t.running.remove(table)
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// What [`rederive`] found.
#[derive(Debug, Default)]
pub struct Rederived {
    /// Hands decided again by the engine.
    pub hands: u64,
    /// Of those, hands the server dealt from a committed seed: each of their cards was
    /// dealt again from the seed revealed at the end, checked against the commitment.
    pub seeded: u64,
    /// The events of those hands.
    pub events: u64,
    /// Payouts, deals, finishes, league results and re-scorings decided again.
    pub outcomes: OutcomeCounts,
    /// Each hand or outcome where the engine and the log part, by position.
    pub failures: Vec<Difference>,
}

/// A hand or an outcome where the engine decides otherwise than the log records.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Difference {
    /// The position of the first event that differs.
    pub position: u64,
    /// Its stream (`tournament:<id>` or `league:<id>`).
    pub stream: String,
    /// What differs, and where in the tournament.
    pub what: String,
}

impl std::fmt::Display for Difference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "position {} ({}, {}",
            self.position, self.stream, self.what
        )
    }
}

impl std::fmt::Display for Rederived {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let o = &self.outcomes;
        writeln!(
            f,
            "hands re-derived:   {} ({} of them dealt from a committed seed; {} events)",
            self.hands, self.seeded, self.events
        )?;
        writeln!(
            f,
            "draws re-derived:   {} seat and button draws, {} late seats, {} colour-ups with \
             their chip races, each from its revealed seed",
            o.draws, o.late_seats, o.colour_ups
        )?;
        writeln!(
            f,
            "outcomes re-derived: {} finishes (every place and prize), {} payouts set, {} deals; \
             {} league results and {} re-scorings (points under every formula version)",
            o.finishes, o.payouts, o.deals, o.results, o.rescorings
        )?;
        writeln!(
            f,
            "cash tables:        {} deals (who was dealt in, the button, the blinds, the blinds \
             missed) and {} buy-ins, top-ups, session fees and cash-outs decided again",
            o.cash_deals, o.cash_money
        )?;
        if self.failures.is_empty() {
            write!(
                f,
                "re-derivation:      as recorded (every card, pot, side pot, odd chip, returned \
                 bet, final stack, seat, button, chip race, place, prize, payout, deal and \
                 league point)"
            )
        } else {
            write!(
                f,
                "re-derivation:      {} differ from what the engine decides",
                self.failures.len()
            )
        }
    }
}

/// `league audit verify` whole, for the CLI and the API alike: the chains, seals and signed
/// heads ([`Store::verify_with_progress`], calling `progress(position, events)`), and, on
/// another task at the same time, every hand, draw and outcome decided again
/// ([`rederive`]). The re-derivation counts only when the log has no break (`None`
/// otherwise: a broken log's figures prove nothing).
pub async fn verify(
    store: &Store,
    from: u64,
    to: u64,
    keys: Option<&TrustedKeys>,
    progress: &mut (dyn FnMut(u64, u64) + Send),
) -> Result<(VerifyReport, Option<Rederived>), AppError> {
    let numbers = {
        let store = store.clone();
        tokio::spawn(async move { rederive(&store, from, to).await })
    };
    let report = match store.verify_with_progress(from, to, keys, progress).await {
        Ok(report) => report,
        Err(e) => {
            numbers.abort();
            return Err(e.into());
        }
    };
    if report.first_break.is_some() {
        numbers.abort();
        return Ok((report, None));
    }
    let numbers = numbers
        .await
        .map_err(|e| AppError::Other(format!("the re-derivation stopped: {e}")))??;
    Ok((report, Some(numbers)))
}

/// Decides again with the engine ([`hand::rederive`]) every hand of the log that started
/// at a position in `from..=to` and has ended: the start with its seed (checked against
/// the commitment the hand published), each recorded card and action; what the engine
/// decides must be what the log holds, event for event. A hand that differs is named with
/// the position of its first event that differs.
///
/// The outcomes in the range too: each `PayoutsSet`, `DealMade` and `TournamentFinished`
/// decided again on the tournament as it stood before it ([`play::rederive_outcome`]:
/// every place and prize from the eliminations, payouts and deal), and each league result
/// and re-scoring decided again on the league as it stood ([`league::decide`]: every
/// finish's points under every formula version of its season).
pub async fn rederive(store: &Store, from: u64, to: u64) -> Result<Rederived, AppError> {
    let mut out = Rederived::default();
    let mut reader = Reader {
        keep_finished: false,
        outcomes: Some(Outcomes {
            from,
            to,
            counts: OutcomeCounts::default(),
            failures: Vec::new(),
        }),
        ..Reader::new(None)
    };
    let mut check = |hand: LoggedHand| {
        if !(from..=to).contains(&hand.position) {
            return Ok(());
        }
        out.hands += 1;
        out.events += u64::try_from(hand.events.len()).unwrap_or(u64::MAX);
        if let Some(hand::Event::HandStarted { setup }) = hand.events.first()
            && matches!(setup.dealing, hand::Dealing::Seeded { .. })
        {
            out.seeded += 1;
        }
        if let Err(m) = hand::rederive(&hand.events) {
            let position = hand
                .positions
                .get(m.index)
                .or(hand.positions.last())
                .copied()
                .unwrap_or(hand.position);
            let json = |e: &Option<Box<hand::Event>>| match e {
                Some(e) => serde_json::to_string(e).unwrap_or_default(),
                None => "nothing".to_owned(),
            };
            out.failures.push(Difference {
                position,
                stream: hand.stream.clone(),
                what: format!(
                    "table {}, hand {}): {}; the log holds {}; the engine decides {}",
                    hand.table,
                    hand.id,
                    m.reason,
                    json(&m.recorded),
                    json(&m.decided)
                ),
            });
        }
        Ok(())
    };
    // The log's columns every release has: a log of an older release is audited as it is.
    // Hands fold from their tournament's start, so the log is read from its beginning
    // whatever the range; `from..=to` chooses the hands checked.
    let mut position = 0u64;
    loop {
        let batch = store.read_log(position, BATCH).await?;
        let Some(last) = batch.last() else { break };
        position = last.position.saturating_add(1);
        for event in &batch {
            reader.read(&Logged::from(event), &mut check)?;
        }
    }
    if let Some(outcomes) = reader.outcomes.take() {
        out.outcomes = outcomes.counts;
        out.failures.extend(outcomes.failures);
        out.failures.sort_by_key(|d| d.position);
    }
    Ok(out)
}

/// A TOML basic string.
fn toml_string(value: &str) -> String {
    let mut out = String::with_capacity(value.len() + 2);
    out.push('"');
    for c in value.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04X}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A file name for `id` inside an export folder: ids are letters, digits, `-`, `_` and
/// `.`, and one that starts with a dot (`..`) would leave the folder or hide.
pub fn file_name(id: &str) -> String {
    let safe: String = id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if safe.starts_with('.') || safe.is_empty() {
        format!("_{safe}")
    } else {
        safe
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_quoted_as_their_formats_want() {
        assert_eq!(summary::csv_field("crown"), "crown");
        assert_eq!(
            summary::csv_field("Bob, \"the\" dealer"),
            "\"Bob, \"\"the\"\" dealer\""
        );
        assert_eq!(toml_string("a\"b\\c\n"), "\"a\\\"b\\\\c\\u000A\"");
        assert_eq!(file_name(".."), "_..");
        assert_eq!(file_name("tuesday-7"), "tuesday-7");
        assert_eq!(file_name("a/b"), "a_b");
    }
}
