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
//! - [`SeasonScore`]: a season's tournament and overall score formulas (TD3's), read with
//!   the standings beside points and best-N.
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
//! - **Codes.** A league and each of its venues may have a readable code beside its id
//!   (the league's short name in URLs, a venue's code), lowercase letters, digits and `-`
//!   ([`crate::units::is_code`]). A venue's code is unique in its league; a league's among
//!   leagues, which the service checks where every league is known. Setting a new code
//!   frees the old one.
//! - **Refusals.** A refused command is a typed [`LeagueError`] and no event; the state is
//!   never touched by `decide`.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::points::{self, Centipoints, Extra, Formula, FormulaError, Inputs};
use crate::standings::{self, Standing, TournamentResult};
use crate::units::{Cents, PlayerId, SeasonId, TournamentId, VenueId};

mod commands;
mod errors;
mod events;
mod players;
mod results;
mod scoring;
mod season_score;
mod state;

pub use crate::standings::ScoreOrder;
pub use commands::*;
pub use errors::*;
pub use events::*;
pub use results::*;
pub use scoring::*;
pub use season_score::*;
pub use state::*;

use players::{known_player, merge_players};

/// Checks a command against the league and says what happens, without changing anything.
pub fn decide(state: &LeagueState, command: &Command) -> Result<Vec<Event>, LeagueError> {
    if let Command::CreateLeague {
        name,
        final_table,
        code,
    } = command
    {
        if state.league.is_some() {
            return Err(LeagueError::LeagueExists);
        }
        valid_text("the league's name", name)?;
        let final_table = final_table.unwrap_or(DEFAULT_FINAL_TABLE);
        if final_table == 0 {
            return Err(LeagueError::EmptyFinalTable);
        }
        let mut events = vec![Event::LeagueCreated {
            name: name.clone(),
            final_table,
        }];
        if let Some(code) = code {
            valid_code(code)?;
            events.push(Event::LeagueCodeSet { code: code.clone() });
        }
        return Ok(events);
    }
    if state.league.is_none() {
        return Err(LeagueError::NoLeague);
    }
    match command {
        Command::CreateLeague { .. } => Err(LeagueError::LeagueExists),
        Command::AddVenue {
            venue,
            region,
            code,
        } => {
            valid_id("the venue", venue)?;
            valid_text("the region", region)?;
            if state.venues.contains_key(venue) {
                return Err(LeagueError::VenueExists {
                    venue: venue.to_string(),
                });
            }
            if let Some(holder) = state.venue_with_code(venue) {
                return Err(LeagueError::VenueIdIsACode {
                    venue: venue.to_string(),
                    holder: holder.to_owned(),
                });
            }
            let mut events = vec![Event::VenueAdded {
                venue: venue.clone(),
                region: region.clone(),
            }];
            if let Some(code) = code {
                free_venue_code(state, venue, code)?;
                events.push(Event::VenueCodeSet {
                    venue: venue.clone(),
                    code: code.clone(),
                });
            }
            Ok(events)
        }
        Command::SetLeagueCode { code } => {
            valid_code(code)?;
            if state.league.as_ref().and_then(|l| l.code.as_ref()) == Some(code) {
                return Ok(Vec::new());
            }
            Ok(vec![Event::LeagueCodeSet { code: code.clone() }])
        }
        Command::SetVenueCode { venue, code } => {
            let Some(found) = state.venues.get(venue) else {
                return Err(LeagueError::UnknownVenue {
                    venue: venue.to_string(),
                });
            };
            if found.code.as_ref() == Some(code) {
                return Ok(Vec::new());
            }
            free_venue_code(state, venue, code)?;
            Ok(vec![Event::VenueCodeSet {
                venue: venue.clone(),
                code: code.clone(),
            }])
        }
        Command::SetVenueDisplay { venue, name, logo } => {
            if !state.venues.contains_key(venue) {
                return Err(LeagueError::UnknownVenue {
                    venue: venue.to_string(),
                });
            }
            valid_text("the venue's name", name)?;
            if logo.as_deref().is_some_and(|l| !is_logo(l)) {
                return Err(LeagueError::BadLogo);
            }
            let display = Some(VenueDisplay {
                name: name.clone(),
                logo: logo.clone(),
            });
            if state
                .venues
                .get(venue)
                .is_some_and(|v| v.display == display)
            {
                return Ok(Vec::new());
            }
            Ok(vec![Event::VenueDisplaySet {
                venue: venue.clone(),
                name: name.clone(),
                logo: logo.clone(),
            }])
        }
        Command::AddSeason {
            season,
            best_n,
            scoring,
        } => {
            valid_id("the season", season)?;
            if state.seasons.contains_key(season) {
                return Err(LeagueError::SeasonExists {
                    season: season.to_string(),
                });
            }
            if *best_n == Some(0) {
                return Err(LeagueError::BestNZero {
                    season: season.to_string(),
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
        Command::SetFormula { season, scoring } => {
            open_season(state, season)?;
            set_formula(state, season, scoring)
        }
        Command::SetSeasonScore { season, score } => {
            open_season(state, season)?;
            set_season_score(state, season, score.as_ref())
        }
        Command::CloseSeason { season } => {
            open_season(state, season)?;
            Ok(vec![Event::SeasonClosed {
                season: season.clone(),
            }])
        }
        Command::RegisterPlayer {
            player,
            name,
            membership,
        } => {
            valid_id("the player id", player)?;
            valid_text("the player's name", name)?;
            valid_text("the membership number", membership)?;
            if state.players.contains_key(player) {
                return Err(LeagueError::PlayerExists {
                    player: player.to_string(),
                });
            }
            if let Some((holder, _)) = state
                .players
                .iter()
                .find(|(_, p)| p.membership == *membership)
            {
                return Err(LeagueError::MembershipTaken {
                    membership: membership.clone(),
                    player: holder.to_string(),
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
            valid_text("the player's name", name)?;
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
                    keep: keep.to_string(),
                    merge: merge.to_string(),
                });
            }
            Ok(vec![Event::PlayersUnmerged {
                keep: keep.clone(),
                merge: merge.clone(),
            }])
        }
        Command::RecordTournament { outcome } => {
            if state.tournaments.contains_key(&outcome.tournament)
                || state.closed_tournaments.contains_key(&outcome.tournament)
            {
                return Err(LeagueError::AlreadyRecorded {
                    tournament: outcome.tournament.to_string(),
                });
            }
            let points = check_outcome(state, outcome)?;
            Ok(vec![Event::TournamentRecorded {
                outcome: outcome.clone(),
                points,
            }])
        }
        Command::AmendTournament { outcome, reason } => {
            if let Some(season) = state.closed_tournaments.get(&outcome.tournament) {
                return Err(LeagueError::SeasonClosed {
                    season: season.to_string(),
                });
            }
            if !state.tournaments.contains_key(&outcome.tournament) {
                return Err(LeagueError::UnknownTournament {
                    tournament: outcome.tournament.to_string(),
                });
            }
            valid_text("reason", reason)?;
            let points = check_outcome(state, outcome)?;
            Ok(vec![Event::TournamentAmended {
                outcome: outcome.clone(),
                points,
                reason: reason.trim().to_owned(),
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
                code: None,
            });
        }
        Event::VenueAdded { venue, region } => {
            state.venues.insert(
                venue.clone(),
                Venue {
                    region: region.clone(),
                    code: None,
                    display: None,
                },
            );
        }
        Event::LeagueCodeSet { code } => {
            if let Some(league) = state.league.as_mut() {
                league.code = Some(code.clone());
            }
        }
        Event::VenueCodeSet { venue, code } => {
            if let Some(v) = state.venues.get_mut(venue) {
                v.code = Some(code.clone());
            }
        }
        Event::VenueDisplaySet { venue, name, logo } => {
            if let Some(v) = state.venues.get_mut(venue) {
                v.display = Some(VenueDisplay {
                    name: name.clone(),
                    logo: logo.clone(),
                });
            }
        }
        Event::SeasonAdded { season, best_n } => {
            state.seasons.insert(
                season.clone(),
                Season {
                    best_n: *best_n,
                    versions: BTreeMap::new(),
                    score: None,
                    closed: false,
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
        Event::SeasonScoreSet { season, score } => {
            if let Some(found) = state.seasons.get_mut(season) {
                found.score.clone_from(score);
            }
        }
        Event::SeasonClosed { season } => close_season(state, season),
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
        | Event::TournamentAmended {
            outcome, points, ..
        } => {
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

/// `season` exists and is not closed.
fn open_season(state: &LeagueState, season: &str) -> Result<(), LeagueError> {
    match state.seasons.get(season) {
        None => Err(LeagueError::UnknownSeason {
            season: season.to_owned(),
        }),
        Some(found) if found.closed => Err(LeagueError::SeasonClosed {
            season: season.to_owned(),
        }),
        Some(_) => Ok(()),
    }
}

/// Folds a season's close: its results leave the state, counted in each player's closed
/// totals (under the id they counted for then) and their tournaments' ids kept.
fn close_season(state: &mut LeagueState, season: &str) {
    let Some(found) = state.seasons.get_mut(season) else {
        return;
    };
    found.closed = true;
    let ids: Vec<TournamentId> = state
        .tournaments
        .iter()
        .filter(|(_, r)| r.outcome.season.as_str() == season)
        .map(|(id, _)| id.clone())
        .collect();
    for id in ids {
        let Some(recorded) = state.tournaments.remove(&id) else {
            continue;
        };
        for finish in &recorded.outcome.finishes {
            let holder = PlayerId::from(state.surviving(&finish.player));
            state.closed_totals.entry(holder).or_default().add(finish);
        }
        state.closed_tournaments.insert(id, recorded.outcome.season);
    }
}

/// An identifier, as [`crate::units::is_id`] says.
fn valid_id(what: &str, value: &str) -> Result<(), LeagueError> {
    if !crate::units::is_id(value) {
        return Err(LeagueError::BadId {
            what: what.to_owned(),
        });
    }
    Ok(())
}

/// A readable code, as [`crate::units::is_code`] says.
fn valid_code(code: &str) -> Result<(), LeagueError> {
    if !crate::units::is_code(code) {
        return Err(LeagueError::BadCode {
            code: code.to_owned(),
        });
    }
    Ok(())
}

/// `code` is a valid code that no venue of the league but `venue` has, as its code or its
/// id.
fn free_venue_code(state: &LeagueState, venue: &str, code: &str) -> Result<(), LeagueError> {
    valid_code(code)?;
    if code != venue && state.venues.contains_key(code) {
        return Err(LeagueError::VenueCodeTaken {
            code: code.to_owned(),
            venue: code.to_owned(),
        });
    }
    match state.venue_with_code(code) {
        Some(holder) if holder != venue => Err(LeagueError::VenueCodeTaken {
            code: code.to_owned(),
            venue: holder.to_owned(),
        }),
        _ => Ok(()),
    }
}

/// Free text, as [`crate::units::is_text`] says.
fn valid_text(what: &str, value: &str) -> Result<(), LeagueError> {
    if !crate::units::is_text(value) {
        return Err(LeagueError::BadText {
            what: what.to_owned(),
        });
    }
    Ok(())
}
