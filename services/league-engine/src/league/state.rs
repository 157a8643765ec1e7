//! The folded state of the league (venues, seasons, players, results) and the ways to read it.

use super::*;

/// The league's own settings.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct League {
    pub name: String,
    pub final_table: u32,
    /// The league's short name in URLs, once set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
}

/// A venue.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Venue {
    pub region: String,
    /// The venue's code, unique in the league, once set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    /// How the venue shows itself on its screens, once set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display: Option<VenueDisplay>,
}

/// A venue's name and logo, as its screens show them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct VenueDisplay {
    /// The venue's name, as people read it.
    pub name: String,
    /// The venue's logo as a `data:` URL of a PNG, JPEG, WebP or SVG image (base64), at
    /// most [`MAX_LOGO_BYTES`] long; `None`: no logo.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logo: Option<String>,
}

/// The longest logo a venue may set, in bytes of its `data:` URL.
pub const MAX_LOGO_BYTES: usize = 64 * 1024;

/// The image types a logo may be, as its `data:` URL names them.
pub const LOGO_TYPES: [&str; 4] = ["image/png", "image/jpeg", "image/webp", "image/svg+xml"];

/// Whether `logo` is a `data:` URL of one of the [`LOGO_TYPES`], base64, within
/// [`MAX_LOGO_BYTES`].
pub fn is_logo(logo: &str) -> bool {
    if logo.len() > MAX_LOGO_BYTES {
        return false;
    }
    let Some(rest) = logo.strip_prefix("data:") else {
        return false;
    };
    let Some((media, data)) = rest.split_once(";base64,") else {
        return false;
    };
    let unpadded = data.trim_end_matches('=');
    LOGO_TYPES.contains(&media)
        && !unpadded.is_empty()
        && data.len() - unpadded.len() <= 2
        && unpadded
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'/')
}

/// A season: its best-N and its scoring versions.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Season {
    pub best_n: Option<u32>,
    pub(super) versions: BTreeMap<u32, Scoring>,
    /// The season's score formulas, when it has them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score: Option<SeasonScore>,
    /// Closed: its results and standings are final, and the league no longer holds its
    /// results (see [`LeagueState::season_archive`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub closed: bool,
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Player {
    pub name: String,
    pub membership: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct Recorded {
    pub(super) outcome: TournamentOutcome,
    /// Version -> points, parallel to `outcome.finishes`.
    pub(super) points: BTreeMap<u32, Vec<Centipoints>>,
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

impl fmt::Display for Scope<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Scope::Season => f.write_str("the season"),
            Scope::Venue(venue) => write!(f, "venue `{venue}`"),
            Scope::Region(region) => write!(f, "region `{region}`"),
        }
    }
}

/// Each player's overall score in a scope, or why it has none.
pub type OverallScores = Vec<(PlayerId, Result<Centipoints, FormulaError>)>;

/// A player's tournament scores and points in a scope, oldest first.
#[derive(Default)]
struct PlayerScores {
    scores: Vec<f64>,
    points: Vec<f64>,
    error: Option<FormulaError>,
}

/// A player's results of one season and scope, with their scores, for the overall score.
struct ScoreRow<'a> {
    day: u32,
    tournament: &'a str,
    player: &'a str,
    value: Result<f64, FormulaError>,
    points: Centipoints,
}

/// A player whose rank or points differ between two scoring versions.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Movement {
    pub player: PlayerId,
    pub from_rank: u32,
    pub to_rank: u32,
    pub from_points: Centipoints,
    pub to_points: Centipoints,
}

/// Everything the league's events have said.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LeagueState {
    pub(super) league: Option<League>,
    pub(super) venues: BTreeMap<VenueId, Venue>,
    pub(super) seasons: BTreeMap<SeasonId, Season>,
    pub(super) players: BTreeMap<PlayerId, Player>,
    /// Merged id -> the id it was merged into.
    pub(super) merged_into: BTreeMap<PlayerId, PlayerId>,
    pub(super) tournaments: BTreeMap<TournamentId, Recorded>,
    /// The tournaments recorded in closed seasons, with their season (their results are
    /// no longer held).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub(super) closed_tournaments: BTreeMap<TournamentId, SeasonId>,
    /// Each player's totals over the closed seasons, by the id that held the results when
    /// its season closed.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub(super) closed_totals: BTreeMap<PlayerId, Totals>,
}

/// A player's totals over some results.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Totals {
    pub played: u32,
    pub wins: u32,
    pub cashes: u32,
    pub winnings: Cents,
    pub knockouts: u32,
}

impl Totals {
    /// These totals with one more finish counted (saturating: totals are for display).
    pub fn add(&mut self, finish: &Finish) {
        self.played = self.played.saturating_add(1);
        self.wins = self.wins.saturating_add(u32::from(finish.place == 1));
        self.cashes = self.cashes.saturating_add(u32::from(finish.prize > 0));
        self.winnings = self.winnings.saturating_add(finish.prize);
        self.knockouts = self.knockouts.saturating_add(finish.knockouts);
    }

    /// The sum of two totals (saturating).
    pub fn plus(mut self, other: &Totals) -> Totals {
        self.played = self.played.saturating_add(other.played);
        self.wins = self.wins.saturating_add(other.wins);
        self.cashes = self.cashes.saturating_add(other.cashes);
        self.winnings = self.winnings.saturating_add(other.winnings);
        self.knockouts = self.knockouts.saturating_add(other.knockouts);
        self
    }
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
    pub fn venues(&self) -> &BTreeMap<VenueId, Venue> {
        &self.venues
    }

    /// Every season, by id.
    pub fn seasons(&self) -> &BTreeMap<SeasonId, Season> {
        &self.seasons
    }

    /// Every registered player, by id.
    pub fn players(&self) -> &BTreeMap<PlayerId, Player> {
        &self.players
    }

    /// Every recorded tournament's outcome, by id.
    pub fn tournaments(&self) -> impl Iterator<Item = &TournamentOutcome> + '_ {
        self.tournaments.values().map(|r| &r.outcome)
    }

    /// The league as season `season` saw it, with that season's results only: what a
    /// closed season is answered from once the league no longer holds its results (taken
    /// just before it closes). `None`: no such season.
    pub fn season_archive(&self, season: &str) -> Option<LeagueState> {
        let (id, found) = self.seasons.get_key_value(season)?;
        Some(LeagueState {
            league: self.league.clone(),
            venues: self.venues.clone(),
            seasons: BTreeMap::from([(id.clone(), found.clone())]),
            players: self.players.clone(),
            merged_into: self.merged_into.clone(),
            tournaments: self
                .tournaments
                .iter()
                .filter(|(_, r)| r.outcome.season.as_str() == season)
                .map(|(id, r)| (id.clone(), r.clone()))
                .collect(),
            closed_tournaments: BTreeMap::new(),
            closed_totals: BTreeMap::new(),
        })
    }

    /// A player's totals over the closed seasons, under the id that held them when each
    /// closed (the caller adds those of the ids merged into it).
    pub fn closed_totals(&self, player: &str) -> Totals {
        self.closed_totals.get(player).copied().unwrap_or_default()
    }

    /// The closed season a tournament was recorded in, if it was.
    pub fn closed_season_of(&self, tournament: &str) -> Option<&SeasonId> {
        self.closed_tournaments.get(tournament)
    }

    /// The ids whose results count for `player` (itself first, then those merged into
    /// it, directly or not).
    pub fn merged_ids(&self, player: &str) -> Vec<PlayerId> {
        let mut ids = vec![PlayerId::from(player)];
        ids.extend(
            self.merged_into
                .keys()
                .filter(|m| m.as_str() != player && self.surviving(m) == player)
                .cloned(),
        );
        ids
    }

    pub fn venue(&self, venue: &str) -> Option<&Venue> {
        self.venues.get(venue)
    }

    /// The id of the venue whose code is `code`.
    pub fn venue_with_code(&self, code: &str) -> Option<&str> {
        self.venues
            .iter()
            .find(|(_, v)| v.code.as_deref() == Some(code))
            .map(|(id, _)| id.as_str())
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
        self.results_without(season, version, scope, None)
    }

    /// [`results`](Self::results) without the tournament `without`.
    fn results_without(
        &self,
        season: &str,
        version: Option<u32>,
        scope: Scope<'_>,
        without: Option<&str>,
    ) -> Result<Vec<TournamentResult>, LeagueError> {
        let league = self.league.as_ref().ok_or(LeagueError::NoLeague)?;
        let (_, version) = self.season_version(season, version)?;
        self.check_scope(scope)?;
        let mut results = Vec::new();
        for recorded in self.tournaments.values() {
            let outcome = &recorded.outcome;
            if outcome.season != season
                || !self.in_scope(outcome, scope)
                || without == Some(outcome.tournament.as_str())
            {
                continue;
            }
            let points = recorded.points.get(&version);
            for (i, finish) in outcome.finishes.iter().enumerate() {
                results.push(TournamentResult {
                    player: PlayerId::from(self.surviving(&finish.player)),
                    tournament: outcome.tournament.to_string(),
                    day: outcome.day,
                    place: finish.place,
                    points: points
                        .and_then(|p| p.get(i))
                        .copied()
                        .unwrap_or(Centipoints::ZERO),
                    final_table: finish.place <= league.final_table,
                });
            }
        }
        Ok(results)
    }

    /// The season's standings in `scope` under scoring `version` (the current one when
    /// `None`), best-N as the season counts them, ties broken as
    /// [`standings`](crate::standings::standings) publishes; with each player's overall
    /// score when the season has one.
    pub fn standings(
        &self,
        season: &str,
        version: Option<u32>,
        scope: Scope<'_>,
    ) -> Result<Vec<Standing>, LeagueError> {
        self.standings_without(season, version, scope, None)
    }

    /// The season's latest tournament in `scope` (the latest day, then the largest id) and
    /// the standings as they stood before it, under the same scoring `version` and with
    /// the same overall score: what a leaderboard's movement is measured from. `None`
    /// when the scope has no result yet.
    pub fn standings_before_latest(
        &self,
        season: &str,
        version: Option<u32>,
        scope: Scope<'_>,
    ) -> Result<Option<(String, Vec<Standing>)>, LeagueError> {
        self.check_scope(scope)?;
        let latest = self
            .tournaments
            .values()
            .map(|r| &r.outcome)
            .filter(|o| o.season == season && self.in_scope(o, scope))
            .max_by(|a, b| a.day.cmp(&b.day).then(a.tournament.cmp(&b.tournament)));
        let Some(latest) = latest else {
            return Ok(None);
        };
        let before = self.standings_without(season, version, scope, Some(&latest.tournament))?;
        Ok(Some((latest.tournament.to_string(), before)))
    }

    /// [`standings`](Self::standings) without the tournament `without`.
    fn standings_without(
        &self,
        season: &str,
        version: Option<u32>,
        scope: Scope<'_>,
        without: Option<&str>,
    ) -> Result<Vec<Standing>, LeagueError> {
        let results = self.results_without(season, version, scope, without)?;
        let (found, version) = self.season_version(season, version)?;
        let best_n = found
            .best_n
            .map(|n| usize::try_from(n).unwrap_or(usize::MAX));
        let mut lines = standings::lines(&results, best_n);
        let Some(score) = &found.score else {
            return Ok(standings::rank(lines, None));
        };
        let overall: BTreeMap<PlayerId, Centipoints> = self
            .overall_scores_without(season, version, scope, score, without)?
            .into_iter()
            .filter_map(|(player, value)| value.ok().map(|v| (player, v)))
            .collect();
        for line in &mut lines {
            line.score = overall.get(&line.player).copied();
        }
        Ok(standings::rank(lines, Some(score.order)))
    }

    /// Every player's overall score in `scope` under scoring `version`, with `score`: each
    /// player's tournament scores and points oldest first (by day, then tournament id),
    /// `n` the tournaments of the season in the scope. A player one of whose results has
    /// no tournament score has no overall score either.
    pub fn overall_scores(
        &self,
        season: &str,
        version: u32,
        scope: Scope<'_>,
        score: &SeasonScore,
    ) -> Result<OverallScores, LeagueError> {
        self.overall_scores_without(season, version, scope, score, None)
    }

    /// [`overall_scores`](Self::overall_scores) without the tournament `without`.
    fn overall_scores_without(
        &self,
        season: &str,
        version: u32,
        scope: Scope<'_>,
        score: &SeasonScore,
        without: Option<&str>,
    ) -> Result<OverallScores, LeagueError> {
        self.check_scope(scope)?;
        let mut rows = Vec::new();
        let mut tournaments = 0u32;
        // Players sharing a place score alike unless the formula reads their own figures:
        // each shared place is then worked out once, not once a player.
        let alike = !score.tournament.reads_player();
        for recorded in self.tournaments.values() {
            let outcome = &recorded.outcome;
            if outcome.season != season
                || !self.in_scope(outcome, scope)
                || without == Some(outcome.tournament.as_str())
            {
                continue;
            }
            tournaments = tournaments.saturating_add(1);
            let points = recorded.points.get(&version);
            let mut shared: BTreeMap<(u32, u32), Result<f64, FormulaError>> = BTreeMap::new();
            for (i, finish) in outcome.finishes.iter().enumerate() {
                let points = points
                    .and_then(|p| p.get(i))
                    .copied()
                    .unwrap_or(Centipoints::ZERO);
                let value = if alike && finish.shared > 1 {
                    shared
                        .entry((finish.place, finish.shared))
                        .or_insert_with(|| score.tournament_value(outcome, finish, points))
                        .clone()
                } else {
                    score.tournament_value(outcome, finish, points)
                };
                rows.push(ScoreRow {
                    day: outcome.day,
                    tournament: &outcome.tournament,
                    player: self.surviving(&finish.player),
                    value,
                    points,
                });
            }
        }
        rows.sort_by(|a, b| (a.day, a.tournament).cmp(&(b.day, b.tournament)));
        let mut players: BTreeMap<&str, PlayerScores> = BTreeMap::new();
        for row in rows {
            let entry = players.entry(row.player).or_default();
            match row.value {
                Ok(value) => entry.scores.push(value),
                Err(error) => entry.error = Some(error),
            }
            entry.points.push(points::hundredths_to_f64(row.points));
        }
        Ok(players
            .into_iter()
            .map(|(player, found)| {
                let overall = match found.error {
                    Some(error) => Err(error),
                    None => score.overall_hundredths(&found.scores, &found.points, tournaments),
                };
                (PlayerId::from(player), overall)
            })
            .collect())
    }

    /// Refuses a venue or region the league does not have.
    fn check_scope(&self, scope: Scope<'_>) -> Result<(), LeagueError> {
        match scope {
            Scope::Season => Ok(()),
            Scope::Venue(venue) if !self.venues.contains_key(venue) => {
                Err(LeagueError::UnknownVenue {
                    venue: venue.to_owned(),
                })
            }
            Scope::Venue(_) => Ok(()),
            Scope::Region(region) if !self.venues.values().any(|v| v.region == region) => {
                Err(LeagueError::UnknownRegion {
                    region: region.to_owned(),
                })
            }
            Scope::Region(_) => Ok(()),
        }
    }

    /// Whether a result counts in a scope.
    fn in_scope(&self, outcome: &TournamentOutcome, scope: Scope<'_>) -> bool {
        match scope {
            Scope::Season => true,
            Scope::Venue(venue) => outcome.venue == venue,
            Scope::Region(region) => self
                .venues
                .get(&outcome.venue)
                .is_some_and(|v| v.region == region),
        }
    }

    pub(super) fn season_version(
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
