//! A league as one event stream: venues in regions, seasons with versioned points
//! formulas, players and their merges, and the results of its tournaments. Standings are
//! read from the recorded results.
//!
//! # Layout
//!
//! - [`Command`] and [`Event`]: [`decide`] checks a command against a [`LeagueState`] and
//!   says what happens without changing anything; [`apply`] folds one event in;
//!   [`execute`] does both, for replay loops.
//! - [`TournamentOutcome`] and [`Finish`]: what a finished tournament reports to the
//!   league, self-contained (the tournament engine maps its finish onto it; a
//!   results-only tournament, entered by hand, records the same outcome and scores the
//!   same way).
//! - [`ScoringRule`] (as the league writes it) and [`Scoring`] (checked): a fixed points
//!   table by place, or an expression in The Tournament Director's syntax
//!   ([`points::Formula`]).
//! - Queries: [`LeagueState::standings`] (season, venue or region; any scoring version),
//!   [`LeagueState::results`] (what feeds them) and [`rescore_diff`] (who moves between
//!   two versions).
//!
//! # Rules
//!
//! - **Scoring versions.** Each season has numbered scoring versions, 1 when the season is
//!   added, then 2, 3, ... with each [`Command::SetFormula`]. Every version scores every
//!   result of its season, including results recorded after it was replaced, so the
//!   standings under two versions compare like for like. A formula that
//!   [`Formula::new`](points::Formula::new) refuses, an empty table, or a formula that
//!   cannot score one of the season's results (say `prizepool / buyin` with a freeroll
//!   recorded) is refused when it is set.
//! - **Points are recorded, not recomputed.** [`Event::TournamentRecorded`] carries the
//!   points of each finish under every version of its season and [`Event::FormulaSet`]
//!   carries the season's results re-scored, so replay never evaluates a formula: `pow`
//!   and `log` may differ in the last bit between platforms, and the league's standings
//!   are the points it published.
//! - **Formula inputs.** `n` is the field, `r` the place, `nr` the re-buys, `nh` the
//!   knock-outs; `buyin` and `prizepool` are in whole currency units, the recorded cents
//!   divided by 100 and rounded down (a 12.50 buy-in is `buyin = 12`).
//! - **Shared places.** A place shared by `k` players (a tie the tournament could not
//!   split) scores the mean of the points of the `k` places it covers, rounded half away
//!   from zero to the hundredth: two players sharing 3rd each get the mean of 3rd and
//!   4th. It counts as that place for wins, final tables and best finish.
//! - **Final table.** A place at or above the league's final-table size (default 9).
//! - **Merges.** Merging a duplicate id into a surviving one is an event; from then on
//!   the merged id's results count for the survivor in every standing, and the merged id
//!   cannot finish alongside the survivor in a tournament. Unmerging reverses exactly that
//!   merge: the results count separately again. Two ids that finished in the same
//!   tournament are two people and are not merged. Merges chain (`a` into `b`, then `b`
//!   into `c`), and are undone one at a time.
//! - **Refusals.** A refused command is a typed [`LeagueError`] and no event; the state is
//!   never touched by `decide`.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::points::{self, Centipoints, Formula, FormulaError, Inputs};
use crate::standings::{self, Standing, TournamentResult};

/// The final-table size when the league does not choose one.
pub const DEFAULT_FINAL_TABLE: u32 = 9;

/// The largest field a tournament may report (a guard: a shared place is scored place by
/// place).
pub const MAX_FIELD: u32 = 100_000;

/// One player's finish in a tournament.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finish {
    pub player: String,
    /// 1 is the winner. Players sharing a place all report the top place they share.
    pub place: u32,
    /// How many players share this place (1 normally).
    #[serde(default = "one")]
    pub shared: u32,
    #[serde(default)]
    pub rebuys: u32,
    #[serde(default)]
    pub knockouts: u32,
    /// Cents.
    #[serde(default)]
    pub prize: u64,
}

fn one() -> u32 {
    1
}

impl Finish {
    /// A place of one's own, no re-buys, knock-outs or prize.
    pub fn new(player: &str, place: u32) -> Finish {
        Finish {
            player: player.to_owned(),
            place,
            shared: 1,
            rebuys: 0,
            knockouts: 0,
            prize: 0,
        }
    }
}

/// A finished tournament, as the league records it. Only the league's players are listed
/// in `finishes`; `field` counts everyone who entered.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TournamentOutcome {
    pub tournament: String,
    pub venue: String,
    pub season: String,
    /// Days (or any increasing timestamp): the standings' "earliest" tie-break.
    pub day: u32,
    /// Cents.
    pub buyin: u64,
    /// Cents.
    pub prizepool: u64,
    pub field: u32,
    pub finishes: Vec<Finish>,
}

/// How a season scores a tournament, as the league writes it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ScoringRule {
    /// Points by place, 1st first; places beyond the table score 0 (the APL's 125, 100,
    /// 75, 50, 40 is `[12_500, 10_000, 7_500, 5_000, 4_000]`).
    Table { points: Vec<Centipoints> },
    /// An expression in The Tournament Director's syntax (see [`points`]).
    Formula { text: String },
}

/// A checked [`ScoringRule`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Scoring {
    Table { points: Vec<Centipoints> },
    Formula { formula: Formula },
}

impl Scoring {
    /// Checks a rule: a formula must pass [`Formula::new`]. (The league also refuses an
    /// empty table: [`LeagueError::EmptyTable`].)
    pub fn new(rule: &ScoringRule) -> Result<Scoring, FormulaError> {
        match rule {
            ScoringRule::Table { points } => Ok(Scoring::Table {
                points: points.clone(),
            }),
            ScoringRule::Formula { text } => Ok(Scoring::Formula {
                formula: Formula::new(text)?,
            }),
        }
    }

    /// The rule as written.
    pub fn rule(&self) -> ScoringRule {
        match self {
            Scoring::Table { points } => ScoringRule::Table {
                points: points.clone(),
            },
            Scoring::Formula { formula } => ScoringRule::Formula {
                text: formula.text().to_owned(),
            },
        }
    }

    /// The points of one place of its own.
    pub fn place_points(&self, inputs: Inputs) -> Result<Centipoints, FormulaError> {
        match self {
            Scoring::Table { points } => Ok(points::table_points(points, inputs.r)),
            Scoring::Formula { formula } => formula.points(inputs),
        }
    }

    /// The points of one finish (see the module's rules for shared places and money).
    pub fn points(
        &self,
        outcome: &TournamentOutcome,
        finish: &Finish,
    ) -> Result<Centipoints, FormulaError> {
        let shared = finish.shared.max(1);
        let mut sum = 0i128;
        for place in finish.place..finish.place.saturating_add(shared) {
            let inputs = Inputs {
                n: outcome.field,
                r: place,
                nr: finish.rebuys,
                nh: finish.knockouts,
                buyin: outcome.buyin / 100,
                prizepool: outcome.prizepool / 100,
            };
            sum += i128::from(self.place_points(inputs)?);
        }
        let mean = div_round(sum, i128::from(shared));
        // The mean of i64 values is an i64.
        i64::try_from(mean).map_err(|_| FormulaError::NotANumber {
            inputs: format!("place {} shared by {shared}", finish.place),
            why: "out of range".to_owned(),
        })
    }
}

/// `a / b` rounded half away from zero (`b > 0`).
fn div_round(a: i128, b: i128) -> i128 {
    let (q, r) = (a / b, a % b);
    if 2 * r.abs() >= b { q + a.signum() } else { q }
}

/// A command to the league.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Command {
    /// Start the league. `final_table`: how many places make the final table (default 9).
    CreateLeague {
        name: String,
        final_table: Option<u32>,
    },
    AddVenue {
        venue: String,
        region: String,
    },
    /// A season, its best-N (`None`: every result counts) and its first scoring version.
    AddSeason {
        season: String,
        best_n: Option<u32>,
        scoring: ScoringRule,
    },
    /// A new scoring version for a season: its results are re-scored.
    SetFormula {
        season: String,
        scoring: ScoringRule,
    },
    RegisterPlayer {
        player: String,
        name: String,
        membership: String,
    },
    RenamePlayer {
        player: String,
        name: String,
    },
    /// `merge` is a duplicate of `keep`: its results count for `keep`.
    MergePlayers {
        keep: String,
        merge: String,
    },
    /// Undo the merge of `merge` into `keep`.
    UnmergePlayers {
        keep: String,
        merge: String,
    },
    RecordTournament {
        outcome: TournamentOutcome,
    },
    /// Replace a recorded tournament's outcome (same tournament id): a corrected result.
    AmendTournament {
        outcome: TournamentOutcome,
    },
}

/// One tournament's points under one version, parallel to its `finishes`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TournamentPoints {
    pub tournament: String,
    pub points: Vec<Centipoints>,
}

/// One version's points for a tournament, parallel to its `finishes`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct VersionPoints {
    pub version: u32,
    pub points: Vec<Centipoints>,
}

/// Something that happened in the league.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum Event {
    LeagueCreated {
        name: String,
        final_table: u32,
    },
    VenueAdded {
        venue: String,
        region: String,
    },
    SeasonAdded {
        season: String,
        best_n: Option<u32>,
    },
    /// A season's scoring version `version`, and every recorded result of the season
    /// scored with it.
    FormulaSet {
        season: String,
        version: u32,
        scoring: Scoring,
        rescored: Vec<TournamentPoints>,
    },
    PlayerRegistered {
        player: String,
        name: String,
        membership: String,
    },
    PlayerRenamed {
        player: String,
        name: String,
    },
    PlayersMerged {
        keep: String,
        merge: String,
    },
    PlayersUnmerged {
        keep: String,
        merge: String,
    },
    /// A tournament's outcome and its points under every version of its season.
    TournamentRecorded {
        outcome: TournamentOutcome,
        points: Vec<VersionPoints>,
    },
    /// A recorded tournament's outcome replaced, with its points.
    TournamentAmended {
        outcome: TournamentOutcome,
        points: Vec<VersionPoints>,
    },
}

/// A refused command. Refusals change nothing.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
pub enum LeagueError {
    #[error("there is no league yet: create it first")]
    NoLeague,
    #[error("the league already exists")]
    LeagueExists,
    #[error("{what} must not be blank")]
    Blank { what: String },
    #[error("the final table must have at least one place")]
    EmptyFinalTable,
    #[error("venue `{venue}` already exists")]
    VenueExists { venue: String },
    #[error("no venue `{venue}`")]
    UnknownVenue { venue: String },
    #[error("no venue in region `{region}`")]
    UnknownRegion { region: String },
    #[error("season `{season}` already exists")]
    SeasonExists { season: String },
    #[error("no season `{season}`")]
    UnknownSeason { season: String },
    #[error("season `{season}` has no scoring version {version}")]
    UnknownVersion { season: String, version: u32 },
    #[error("season `{season}`: best-N must count at least one result")]
    BestNZero { season: String },
    #[error("season `{season}`: the scoring is refused: {error}")]
    InvalidFormula { season: String, error: FormulaError },
    #[error("season `{season}`: a points table needs at least one place")]
    EmptyTable { season: String },
    #[error("scoring version {version} cannot score `{player}` in `{tournament}`: {error}")]
    CannotScore {
        tournament: String,
        player: String,
        version: u32,
        error: FormulaError,
    },
    #[error("player `{player}` already exists")]
    PlayerExists { player: String },
    #[error("no player `{player}`")]
    UnknownPlayer { player: String },
    #[error("membership number {membership} is already `{player}`'s")]
    MembershipTaken { membership: String, player: String },
    #[error("a player cannot be merged into themselves (`{player}`)")]
    SamePlayer { player: String },
    #[error("`{player}` is merged into `{into}`")]
    AlreadyMerged { player: String, into: String },
    #[error("`{merge}` is not merged into `{keep}`")]
    NotMerged { keep: String, merge: String },
    #[error("`{keep}` and `{merge}` both finished in `{tournament}`: they are two people")]
    PlayedTogether {
        keep: String,
        merge: String,
        tournament: String,
    },
    #[error("tournament `{tournament}` is already recorded")]
    AlreadyRecorded { tournament: String },
    #[error("no tournament `{tournament}`")]
    UnknownTournament { tournament: String },
    #[error("a field of {field} players is outside 2..={max}")]
    FieldOutOfRange { field: u32, max: u32 },
    #[error("`{player}` placed {place} (shared by {shared}) in a field of {field}")]
    PlaceOutOfRange {
        player: String,
        place: u32,
        shared: u32,
        field: u32,
    },
    #[error("place {place} is reported inconsistently (overlapping or over-shared places)")]
    PlaceConflict { place: u32 },
    #[error("`{player}` finishes twice (directly or through a merge)")]
    PlayerTwice { player: String },
    #[error("the prizes ({paid} cents) exceed the prize pool ({prizepool} cents)")]
    PrizesExceedPool { paid: u64, prizepool: u64 },
}

/// The league's own settings.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct League {
    pub name: String,
    pub final_table: u32,
}

/// A venue.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Venue {
    pub region: String,
}

/// A season: its best-N and its scoring versions.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Season {
    pub best_n: Option<u32>,
    versions: BTreeMap<u32, Scoring>,
}

impl Season {
    /// The current scoring version (0 before the first is set).
    pub fn version(&self) -> u32 {
        self.versions.keys().next_back().copied().unwrap_or(0)
    }

    /// One scoring version.
    pub fn scoring(&self, version: u32) -> Option<&Scoring> {
        self.versions.get(&version)
    }
}

/// A registered player.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Player {
    pub name: String,
    pub membership: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Recorded {
    outcome: TournamentOutcome,
    /// Version -> points, parallel to `outcome.finishes`.
    points: BTreeMap<u32, Vec<Centipoints>>,
}

/// Which results a standing counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope<'a> {
    /// Every result of the season.
    Season,
    /// The season's results at one venue.
    Venue(&'a str),
    /// The season's results at the venues of one region.
    Region(&'a str),
}

/// A player whose rank or points differ between two scoring versions.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Movement {
    pub player: String,
    pub from_rank: u32,
    pub to_rank: u32,
    pub from_points: Centipoints,
    pub to_points: Centipoints,
}

/// Everything the league's events have said.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LeagueState {
    league: Option<League>,
    venues: BTreeMap<String, Venue>,
    seasons: BTreeMap<String, Season>,
    players: BTreeMap<String, Player>,
    /// Merged id -> the id it was merged into.
    merged_into: BTreeMap<String, String>,
    tournaments: BTreeMap<String, Recorded>,
}

impl LeagueState {
    /// A league not yet created.
    pub fn new() -> LeagueState {
        LeagueState::default()
    }

    pub fn league(&self) -> Option<&League> {
        self.league.as_ref()
    }

    /// Every venue, by id.
    pub fn venues(&self) -> &BTreeMap<String, Venue> {
        &self.venues
    }

    /// Every season, by id.
    pub fn seasons(&self) -> &BTreeMap<String, Season> {
        &self.seasons
    }

    /// Every registered player, by id.
    pub fn players(&self) -> &BTreeMap<String, Player> {
        &self.players
    }

    /// Every recorded tournament's outcome, by id.
    pub fn tournaments(&self) -> impl Iterator<Item = &TournamentOutcome> + '_ {
        self.tournaments.values().map(|r| &r.outcome)
    }

    pub fn venue(&self, venue: &str) -> Option<&Venue> {
        self.venues.get(venue)
    }

    pub fn season(&self, season: &str) -> Option<&Season> {
        self.seasons.get(season)
    }

    pub fn player(&self, player: &str) -> Option<&Player> {
        self.players.get(player)
    }

    /// The id a player's results count for: their own, or the one they are merged into
    /// (following chains of merges).
    pub fn surviving<'a>(&'a self, player: &'a str) -> &'a str {
        let mut id = player;
        // A chain is at most as long as the merges; the bound guards a corrupt log.
        for _ in 0..=self.merged_into.len() {
            match self.merged_into.get(id) {
                Some(into) => id = into,
                None => break,
            }
        }
        id
    }

    /// A recorded tournament's outcome.
    pub fn tournament(&self, tournament: &str) -> Option<&TournamentOutcome> {
        self.tournaments.get(tournament).map(|t| &t.outcome)
    }

    /// A recorded tournament's points under one version, parallel to its finishes.
    pub fn tournament_points(&self, tournament: &str, version: u32) -> Option<&[Centipoints]> {
        self.tournaments
            .get(tournament)
            .and_then(|t| t.points.get(&version))
            .map(Vec::as_slice)
    }

    /// The season's results in `scope` scored with `version` (the current one when
    /// `None`), each counted for its player's surviving id: what the standings are made
    /// of.
    pub fn results(
        &self,
        season: &str,
        version: Option<u32>,
        scope: Scope<'_>,
    ) -> Result<Vec<TournamentResult>, LeagueError> {
        let league = self.league.as_ref().ok_or(LeagueError::NoLeague)?;
        let (_, version) = self.season_version(season, version)?;
        match scope {
            Scope::Season => {}
            Scope::Venue(venue) if !self.venues.contains_key(venue) => {
                return Err(LeagueError::UnknownVenue {
                    venue: venue.to_owned(),
                });
            }
            Scope::Venue(_) => {}
            Scope::Region(region) => {
                if !self.venues.values().any(|v| v.region == region) {
                    return Err(LeagueError::UnknownRegion {
                        region: region.to_owned(),
                    });
                }
            }
        }
        let in_scope = |outcome: &TournamentOutcome| match scope {
            Scope::Season => true,
            Scope::Venue(venue) => outcome.venue == venue,
            Scope::Region(region) => self
                .venues
                .get(&outcome.venue)
                .is_some_and(|v| v.region == region),
        };
        let mut results = Vec::new();
        for recorded in self.tournaments.values() {
            let outcome = &recorded.outcome;
            if outcome.season != season || !in_scope(outcome) {
                continue;
            }
            let points = recorded.points.get(&version);
            for (i, finish) in outcome.finishes.iter().enumerate() {
                results.push(TournamentResult {
                    player: self.surviving(&finish.player).to_owned(),
                    tournament: outcome.tournament.clone(),
                    day: outcome.day,
                    place: finish.place,
                    points: points.and_then(|p| p.get(i)).copied().unwrap_or(0),
                    final_table: finish.place <= league.final_table,
                });
            }
        }
        Ok(results)
    }

    /// The season's standings in `scope` under scoring `version` (the current one when
    /// `None`), best-N as the season counts them, ties broken as
    /// [`standings`](crate::standings::standings) publishes.
    pub fn standings(
        &self,
        season: &str,
        version: Option<u32>,
        scope: Scope<'_>,
    ) -> Result<Vec<Standing>, LeagueError> {
        let results = self.results(season, version, scope)?;
        let (season, _) = self.season_version(season, version)?;
        let best_n = season
            .best_n
            .map(|n| usize::try_from(n).unwrap_or(usize::MAX));
        Ok(standings::standings(&results, best_n))
    }

    fn season_version(
        &self,
        season: &str,
        version: Option<u32>,
    ) -> Result<(&Season, u32), LeagueError> {
        let found = self
            .seasons
            .get(season)
            .ok_or_else(|| LeagueError::UnknownSeason {
                season: season.to_owned(),
            })?;
        let version = version.unwrap_or_else(|| found.version());
        if !found.versions.contains_key(&version) {
            return Err(LeagueError::UnknownVersion {
                season: season.to_owned(),
                version,
            });
        }
        Ok((found, version))
    }
}

/// Who moves between two scoring versions of a season: every player whose rank or points
/// differ, in the order of the `to` standings.
pub fn rescore_diff(
    state: &LeagueState,
    season: &str,
    from_version: u32,
    to_version: u32,
    scope: Scope<'_>,
) -> Result<Vec<Movement>, LeagueError> {
    let from = state.standings(season, Some(from_version), scope)?;
    let to = state.standings(season, Some(to_version), scope)?;
    let before: BTreeMap<&str, &Standing> = from.iter().map(|s| (s.player.as_str(), s)).collect();
    Ok(to
        .iter()
        .filter_map(|after| {
            // Both versions score the same results, so the same players stand in both.
            let before = before.get(after.player.as_str())?;
            (before.rank != after.rank || before.points != after.points).then(|| Movement {
                player: after.player.clone(),
                from_rank: before.rank,
                to_rank: after.rank,
                from_points: before.points,
                to_points: after.points,
            })
        })
        .collect())
}

/// Checks a command against the league and says what happens, without changing anything.
pub fn decide(state: &LeagueState, command: &Command) -> Result<Vec<Event>, LeagueError> {
    if let Command::CreateLeague { name, final_table } = command {
        if state.league.is_some() {
            return Err(LeagueError::LeagueExists);
        }
        not_blank("the league's name", name)?;
        let final_table = final_table.unwrap_or(DEFAULT_FINAL_TABLE);
        if final_table == 0 {
            return Err(LeagueError::EmptyFinalTable);
        }
        return Ok(vec![Event::LeagueCreated {
            name: name.clone(),
            final_table,
        }]);
    }
    if state.league.is_none() {
        return Err(LeagueError::NoLeague);
    }
    match command {
        Command::CreateLeague { .. } => Err(LeagueError::LeagueExists),
        Command::AddVenue { venue, region } => {
            not_blank("the venue", venue)?;
            not_blank("the region", region)?;
            if state.venues.contains_key(venue) {
                return Err(LeagueError::VenueExists {
                    venue: venue.clone(),
                });
            }
            Ok(vec![Event::VenueAdded {
                venue: venue.clone(),
                region: region.clone(),
            }])
        }
        Command::AddSeason {
            season,
            best_n,
            scoring,
        } => {
            not_blank("the season", season)?;
            if state.seasons.contains_key(season) {
                return Err(LeagueError::SeasonExists {
                    season: season.clone(),
                });
            }
            if *best_n == Some(0) {
                return Err(LeagueError::BestNZero {
                    season: season.clone(),
                });
            }
            let scoring = check_scoring(season, scoring)?;
            Ok(vec![
                Event::SeasonAdded {
                    season: season.clone(),
                    best_n: *best_n,
                },
                Event::FormulaSet {
                    season: season.clone(),
                    version: 1,
                    scoring,
                    rescored: Vec::new(),
                },
            ])
        }
        Command::SetFormula { season, scoring } => set_formula(state, season, scoring),
        Command::RegisterPlayer {
            player,
            name,
            membership,
        } => {
            not_blank("the player id", player)?;
            not_blank("the player's name", name)?;
            not_blank("the membership number", membership)?;
            if state.players.contains_key(player) {
                return Err(LeagueError::PlayerExists {
                    player: player.clone(),
                });
            }
            if let Some((holder, _)) = state
                .players
                .iter()
                .find(|(_, p)| p.membership == *membership)
            {
                return Err(LeagueError::MembershipTaken {
                    membership: membership.clone(),
                    player: holder.clone(),
                });
            }
            Ok(vec![Event::PlayerRegistered {
                player: player.clone(),
                name: name.clone(),
                membership: membership.clone(),
            }])
        }
        Command::RenamePlayer { player, name } => {
            known_player(state, player)?;
            not_blank("the player's name", name)?;
            Ok(vec![Event::PlayerRenamed {
                player: player.clone(),
                name: name.clone(),
            }])
        }
        Command::MergePlayers { keep, merge } => merge_players(state, keep, merge),
        Command::UnmergePlayers { keep, merge } => {
            known_player(state, keep)?;
            known_player(state, merge)?;
            if state.merged_into.get(merge) != Some(keep) {
                return Err(LeagueError::NotMerged {
                    keep: keep.clone(),
                    merge: merge.clone(),
                });
            }
            Ok(vec![Event::PlayersUnmerged {
                keep: keep.clone(),
                merge: merge.clone(),
            }])
        }
        Command::RecordTournament { outcome } => {
            if state.tournaments.contains_key(&outcome.tournament) {
                return Err(LeagueError::AlreadyRecorded {
                    tournament: outcome.tournament.clone(),
                });
            }
            let points = check_outcome(state, outcome)?;
            Ok(vec![Event::TournamentRecorded {
                outcome: outcome.clone(),
                points,
            }])
        }
        Command::AmendTournament { outcome } => {
            if !state.tournaments.contains_key(&outcome.tournament) {
                return Err(LeagueError::UnknownTournament {
                    tournament: outcome.tournament.clone(),
                });
            }
            let points = check_outcome(state, outcome)?;
            Ok(vec![Event::TournamentAmended {
                outcome: outcome.clone(),
                points,
            }])
        }
    }
}

/// Decides and applies: appends the events to `events` and moves the state on. On a
/// refusal nothing changes and nothing is appended.
pub fn execute(
    state: &mut LeagueState,
    command: &Command,
    events: &mut Vec<Event>,
) -> Result<(), LeagueError> {
    let decided = decide(state, command)?;
    for event in &decided {
        apply(state, event);
    }
    events.extend(decided);
    Ok(())
}

/// Folds one event into the state. Events are trusted: they were decided (or are being
/// replayed from a verified log).
pub fn apply(state: &mut LeagueState, event: &Event) {
    match event {
        Event::LeagueCreated { name, final_table } => {
            state.league = Some(League {
                name: name.clone(),
                final_table: *final_table,
            });
        }
        Event::VenueAdded { venue, region } => {
            state.venues.insert(
                venue.clone(),
                Venue {
                    region: region.clone(),
                },
            );
        }
        Event::SeasonAdded { season, best_n } => {
            state.seasons.insert(
                season.clone(),
                Season {
                    best_n: *best_n,
                    versions: BTreeMap::new(),
                },
            );
        }
        Event::FormulaSet {
            season,
            version,
            scoring,
            rescored,
        } => {
            if let Some(found) = state.seasons.get_mut(season) {
                found.versions.insert(*version, scoring.clone());
            }
            for scored in rescored {
                if let Some(recorded) = state.tournaments.get_mut(&scored.tournament) {
                    recorded.points.insert(*version, scored.points.clone());
                }
            }
        }
        Event::PlayerRegistered {
            player,
            name,
            membership,
        } => {
            state.players.insert(
                player.clone(),
                Player {
                    name: name.clone(),
                    membership: membership.clone(),
                },
            );
        }
        Event::PlayerRenamed { player, name } => {
            if let Some(found) = state.players.get_mut(player) {
                found.name.clone_from(name);
            }
        }
        Event::PlayersMerged { keep, merge } => {
            state.merged_into.insert(merge.clone(), keep.clone());
        }
        Event::PlayersUnmerged { merge, .. } => {
            state.merged_into.remove(merge);
        }
        Event::TournamentRecorded { outcome, points }
        | Event::TournamentAmended { outcome, points } => {
            state.tournaments.insert(
                outcome.tournament.clone(),
                Recorded {
                    outcome: outcome.clone(),
                    points: points
                        .iter()
                        .map(|v| (v.version, v.points.clone()))
                        .collect(),
                },
            );
        }
    }
}

fn not_blank(what: &str, value: &str) -> Result<(), LeagueError> {
    if value.trim().is_empty() {
        return Err(LeagueError::Blank {
            what: what.to_owned(),
        });
    }
    Ok(())
}

fn known_player(state: &LeagueState, player: &str) -> Result<(), LeagueError> {
    if state.players.contains_key(player) {
        Ok(())
    } else {
        Err(LeagueError::UnknownPlayer {
            player: player.to_owned(),
        })
    }
}

fn check_scoring(season: &str, rule: &ScoringRule) -> Result<Scoring, LeagueError> {
    if matches!(rule, ScoringRule::Table { points } if points.is_empty()) {
        return Err(LeagueError::EmptyTable {
            season: season.to_owned(),
        });
    }
    Scoring::new(rule).map_err(|error| LeagueError::InvalidFormula {
        season: season.to_owned(),
        error,
    })
}

/// Scores every finish of an outcome with one version.
fn score(
    scoring: &Scoring,
    version: u32,
    outcome: &TournamentOutcome,
) -> Result<Vec<Centipoints>, LeagueError> {
    outcome
        .finishes
        .iter()
        .map(|finish| {
            scoring
                .points(outcome, finish)
                .map_err(|error| LeagueError::CannotScore {
                    tournament: outcome.tournament.clone(),
                    player: finish.player.clone(),
                    version,
                    error,
                })
        })
        .collect()
}

fn set_formula(
    state: &LeagueState,
    season: &str,
    rule: &ScoringRule,
) -> Result<Vec<Event>, LeagueError> {
    let found = state
        .seasons
        .get(season)
        .ok_or_else(|| LeagueError::UnknownSeason {
            season: season.to_owned(),
        })?;
    let scoring = check_scoring(season, rule)?;
    let version = found.version().saturating_add(1);
    let rescored = state
        .tournaments
        .values()
        .filter(|t| t.outcome.season == season)
        .map(|t| {
            Ok(TournamentPoints {
                tournament: t.outcome.tournament.clone(),
                points: score(&scoring, version, &t.outcome)?,
            })
        })
        .collect::<Result<Vec<_>, LeagueError>>()?;
    Ok(vec![Event::FormulaSet {
        season: season.to_owned(),
        version,
        scoring,
        rescored,
    }])
}

fn merge_players(state: &LeagueState, keep: &str, merge: &str) -> Result<Vec<Event>, LeagueError> {
    known_player(state, keep)?;
    known_player(state, merge)?;
    if keep == merge {
        return Err(LeagueError::SamePlayer {
            player: keep.to_owned(),
        });
    }
    for player in [merge, keep] {
        if let Some(into) = state.merged_into.get(player) {
            return Err(LeagueError::AlreadyMerged {
                player: player.to_owned(),
                into: into.clone(),
            });
        }
    }
    // Both are surviving ids now; their groups must never have shared a tournament.
    for recorded in state.tournaments.values() {
        let finished = |id: &str| {
            recorded
                .outcome
                .finishes
                .iter()
                .any(|f| state.surviving(&f.player) == id)
        };
        if finished(keep) && finished(merge) {
            return Err(LeagueError::PlayedTogether {
                keep: keep.to_owned(),
                merge: merge.to_owned(),
                tournament: recorded.outcome.tournament.clone(),
            });
        }
    }
    Ok(vec![Event::PlayersMerged {
        keep: keep.to_owned(),
        merge: merge.to_owned(),
    }])
}

/// Checks an outcome against the league and scores it under every version of its season.
fn check_outcome(
    state: &LeagueState,
    outcome: &TournamentOutcome,
) -> Result<Vec<VersionPoints>, LeagueError> {
    not_blank("the tournament id", &outcome.tournament)?;
    if !state.venues.contains_key(&outcome.venue) {
        return Err(LeagueError::UnknownVenue {
            venue: outcome.venue.clone(),
        });
    }
    let season = state
        .seasons
        .get(&outcome.season)
        .ok_or_else(|| LeagueError::UnknownSeason {
            season: outcome.season.clone(),
        })?;
    let field = outcome.field;
    if !(2..=MAX_FIELD).contains(&field) {
        return Err(LeagueError::FieldOutOfRange {
            field,
            max: MAX_FIELD,
        });
    }
    let mut seen = BTreeSet::new();
    let mut places: BTreeMap<u32, (u32, u32)> = BTreeMap::new();
    let mut paid = 0u64;
    for finish in &outcome.finishes {
        known_player(state, &finish.player)?;
        if !seen.insert(state.surviving(&finish.player)) {
            return Err(LeagueError::PlayerTwice {
                player: finish.player.clone(),
            });
        }
        let last = finish
            .place
            .checked_add(finish.shared)
            .and_then(|end| end.checked_sub(1));
        if finish.place == 0 || finish.shared == 0 || last.is_none_or(|last| last > field) {
            return Err(LeagueError::PlaceOutOfRange {
                player: finish.player.clone(),
                place: finish.place,
                shared: finish.shared,
                field,
            });
        }
        // Players at one place agree on how many share it, and are no more than that.
        let (shared, count) = places.entry(finish.place).or_insert((finish.shared, 0));
        *count += 1;
        if *shared != finish.shared || *count > *shared {
            return Err(LeagueError::PlaceConflict {
                place: finish.place,
            });
        }
        paid = paid.saturating_add(finish.prize);
    }
    // A shared place covers the places below it: the next place reported must be past them.
    let mut next_free = 1u32;
    for (&place, &(shared, _)) in &places {
        if place < next_free {
            return Err(LeagueError::PlaceConflict { place });
        }
        next_free = place.saturating_add(shared);
    }
    if paid > outcome.prizepool {
        return Err(LeagueError::PrizesExceedPool {
            paid,
            prizepool: outcome.prizepool,
        });
    }
    season
        .versions
        .iter()
        .map(|(&version, scoring)| {
            Ok(VersionPoints {
                version,
                points: score(scoring, version, outcome)?,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding_is_half_away_from_zero() {
        assert_eq!(div_round(7, 2), 4);
        assert_eq!(div_round(-7, 2), -4);
        assert_eq!(div_round(5, 3), 2);
        assert_eq!(div_round(4, 3), 1);
        assert_eq!(div_round(6, 3), 2);
    }

    #[test]
    fn a_shared_place_scores_the_mean_of_the_places_it_covers() {
        let apl = Scoring::new(&ScoringRule::Table {
            points: vec![12_500, 10_000, 7_500, 5_000, 4_000],
        })
        .unwrap();
        let outcome = TournamentOutcome {
            tournament: "t".into(),
            venue: "v".into(),
            season: "s".into(),
            day: 1,
            buyin: 2_000,
            prizepool: 20_000,
            field: 10,
            finishes: Vec::new(),
        };
        let shared = Finish {
            shared: 2,
            ..Finish::new("ann", 3)
        };
        assert_eq!(apl.points(&outcome, &shared).unwrap(), 6_250);
        let three = Finish {
            shared: 3,
            ..Finish::new("ann", 4)
        };
        // (5000 + 4000 + 0) / 3 = 3000.
        assert_eq!(apl.points(&outcome, &three).unwrap(), 3_000);
    }
}
