//! Season scores: The Tournament Director's "Tournament Score" and "Overall Score" beside
//! a season's points and best-N.
//!
//! A season may have a score: a *tournament score* formula, which scores each of a player's
//! results (it reads what a points formula reads, and `points`, the player's points in that
//! tournament), and an *overall score* formula over them (it reads `scores`, the player's
//! tournament scores oldest first, `listPoints`, their points, and `n`, the number of
//! tournaments in the season, with the list functions `sum product average count max min
//! top bottom index setListLength`). TD3's log method is `log((n + 1) / r)` then
//! `(1 - exp(-average(scores))) * 100`.
//!
//! The score is read with the standings: each line carries the player's overall score,
//! rounded to the hundredth, and the season says how it orders them
//! ([`ScoreOrder`]): as the tie-break after points (before wins), or as the ranking itself,
//! with points breaking its ties. Setting a score re-scores the whole season at once, as
//! setting a formula re-scores its points; every score set stays in the log.
//!
//! Checks: both formulas when set (the tournament score as a points formula is checked;
//! the overall score over seasons of 1 to [`CHECK_TOURNAMENTS`] results made of the
//! smallest, middle and largest values the tournament score gives), and then against the
//! season as recorded: every result's tournament score and every player's overall score in
//! the season and at each venue and region. A result recorded or amended later must have a
//! tournament score, or it is refused like one that cannot be given points. A standings
//! line whose overall score has no value (a season that the check's samples did not
//! foresee) shows none and ranks below every line that has one.

use super::*;
use crate::standings::ScoreOrder;

/// The longest season (in results per player) the overall score is checked over when set.
pub const CHECK_TOURNAMENTS: u32 = 60;

/// A season's score formulas as the league writes them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SeasonScoreRule {
    /// The tournament score, e.g. `log((n + 1) / r)`.
    pub tournament: String,
    /// The overall score, e.g. `(1 - exp(-average(scores))) * 100`.
    pub overall: String,
    #[serde(default)]
    pub order: ScoreOrder,
}

/// Which of a season's score formulas a refusal is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum ScoreFormula {
    Tournament,
    Overall,
}

impl fmt::Display for ScoreFormula {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ScoreFormula::Tournament => "tournament score",
            ScoreFormula::Overall => "overall score",
        })
    }
}

/// Why a season's score formulas were refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[error("the {which}: {error}")]
pub struct ScoreError {
    pub which: ScoreFormula,
    pub error: FormulaError,
}

/// A season's checked score formulas. Stored as the text the league wrote; reading it back
/// checks it again.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(try_from = "SeasonScoreRule")]
pub struct SeasonScore {
    pub tournament: Formula,
    pub overall: Formula,
    pub order: ScoreOrder,
}

impl TryFrom<SeasonScoreRule> for SeasonScore {
    type Error = ScoreError;

    fn try_from(rule: SeasonScoreRule) -> Result<SeasonScore, ScoreError> {
        SeasonScore::new(&rule)
    }
}

impl SeasonScore {
    /// Parses and checks both formulas (see the module documentation).
    pub fn new(rule: &SeasonScoreRule) -> Result<SeasonScore, ScoreError> {
        let tournament = |error| ScoreError {
            which: ScoreFormula::Tournament,
            error,
        };
        let overall = |error| ScoreError {
            which: ScoreFormula::Overall,
            error,
        };
        let score = SeasonScore {
            tournament: Formula::tournament_score(&rule.tournament).map_err(tournament)?,
            overall: Formula::overall_score_unchecked(&rule.overall).map_err(overall)?,
            order: rule.order,
        };
        score.check_overall().map_err(overall)?;
        Ok(score)
    }

    /// The rule as written.
    pub fn rule(&self) -> SeasonScoreRule {
        SeasonScoreRule {
            tournament: self.tournament.text().to_owned(),
            overall: self.overall.text().to_owned(),
            order: self.order,
        }
    }

    /// The overall score over every season of 1 to [`CHECK_TOURNAMENTS`] results whose
    /// scores are the tournament score's smallest, middle or largest value, or alternate
    /// between the smallest and the largest, with points 0 or 100 each.
    fn check_overall(&self) -> Result<(), FormulaError> {
        let samples = self.samples();
        let (low, middle, high) = match samples.as_slice() {
            [] => (0.0, 0.0, 0.0),
            values => (
                values.first().copied().unwrap_or(0.0),
                values.get(values.len() / 2).copied().unwrap_or(0.0),
                values.last().copied().unwrap_or(0.0),
            ),
        };
        for length in 1..=CHECK_TOURNAMENTS {
            let len = usize::try_from(length).unwrap_or(usize::MAX);
            let alternate: Vec<f64> = (0..len)
                .map(|i| if i % 2 == 0 { low } else { high })
                .collect();
            let lists = [
                vec![low; len],
                vec![middle; len],
                vec![high; len],
                alternate,
            ];
            for scores in &lists {
                for points in [0.0, 100.0] {
                    let list_points = vec![points; len];
                    for tournaments in [length, CHECK_TOURNAMENTS] {
                        self.overall_value(scores, &list_points, tournaments)?;
                    }
                }
            }
        }
        Ok(())
    }

    /// The tournament score's values over a few fields, smallest first.
    fn samples(&self) -> Vec<f64> {
        let points: &[i64] = if self.tournament.reads_points() {
            &[0, 100, 10_000]
        } else {
            &[0]
        };
        let mut values = Vec::new();
        for n in [2u32, 9, 10, 27, 100, 500] {
            for r in 1..=n {
                // The check's own inputs: a tenth of the field paid, no extras.
                let inputs = points::check_inputs(n, r, n.div_ceil(10), 0);
                for &p in points {
                    let extra = Extra {
                        points: Centipoints::new(p),
                        ..Extra::default()
                    };
                    // The tournament score was checked on these fields: each has a value.
                    if let Ok(value) = self.tournament.value(inputs, &extra) {
                        values.push(value);
                    }
                }
            }
        }
        values.sort_by(f64::total_cmp);
        values
    }

    /// A player's tournament score for one finish: the mean over the places it covers, as
    /// its points are.
    pub fn tournament_value(
        &self,
        outcome: &TournamentOutcome,
        finish: &Finish,
        points: Centipoints,
    ) -> Result<f64, FormulaError> {
        let extra = Extra {
            points,
            ..Extra::default()
        };
        let inputs = place_inputs(outcome, finish, self.tournament.reads_field_totals());
        let count = inputs.len();
        let mut sum = 0.0;
        for place in inputs {
            sum += self.tournament.value(place, &extra)?;
        }
        Ok(sum / f64::from(u32::try_from(count.max(1)).unwrap_or(u32::MAX)))
    }

    /// The overall score's value.
    fn overall_value(
        &self,
        scores: &[f64],
        list_points: &[f64],
        tournaments: u32,
    ) -> Result<f64, FormulaError> {
        self.overall.value(
            Inputs::default(),
            &Extra {
                points: Centipoints::ZERO,
                scores,
                list_points,
                tournaments: tournaments.max(1),
            },
        )
    }

    /// The overall score, in hundredths.
    pub fn overall_hundredths(
        &self,
        scores: &[f64],
        list_points: &[f64],
        tournaments: u32,
    ) -> Result<Centipoints, FormulaError> {
        let value = self.overall_value(scores, list_points, tournaments)?;
        points::hundredths(value).ok_or_else(|| FormulaError::NotANumber {
            inputs: format!("{} results", scores.len()),
            why: format!("{value} is out of range"),
        })
    }
}

/// The inputs of every place a finish covers (one, or each of a shared place's).
pub(super) fn place_inputs(
    outcome: &TournamentOutcome,
    finish: &Finish,
    field_totals: bool,
) -> Vec<Inputs> {
    // The field's totals, counted only for a formula that reads them.
    let (paid, total_rebuys) = if field_totals {
        (
            outcome
                .finishes
                .iter()
                .filter(|f| !f.prize.is_zero())
                .map(|f| f.place.saturating_add(f.shared.max(1) - 1))
                .max()
                .unwrap_or(0),
            outcome
                .finishes
                .iter()
                .fold(0u32, |sum, f| sum.saturating_add(f.rebuys)),
        )
    } else {
        (0, 0)
    };
    (finish.place..finish.place.saturating_add(finish.shared.max(1)))
        .map(|place| Inputs {
            n: outcome.field,
            r: place,
            nr: finish.rebuys,
            nh: finish.knockouts,
            buyin: outcome.buyin.get() / 100,
            prizepool: outcome.prizepool.get() / 100,
            paid,
            prize: finish.prize.get() / 100,
            total_rebuys,
        })
        .collect()
}

/// Sets (or clears) a season's score: checked, then tried on the season as recorded.
pub(super) fn set_season_score(
    state: &LeagueState,
    season: &str,
    rule: Option<&SeasonScoreRule>,
) -> Result<Vec<Event>, LeagueError> {
    let found = state
        .seasons
        .get(season)
        .ok_or_else(|| LeagueError::UnknownSeason {
            season: season.to_owned(),
        })?;
    // The score the season already has changes nothing.
    if found.score.as_ref().map(SeasonScore::rule).as_ref() == rule {
        return Ok(Vec::new());
    }
    let Some(rule) = rule else {
        return Ok(vec![Event::SeasonScoreSet {
            season: season.into(),
            score: None,
        }]);
    };
    let invalid = |which, error| LeagueError::InvalidSeasonScore {
        season: season.to_owned(),
        which,
        error,
    };
    let score = SeasonScore::new(rule).map_err(|e| invalid(e.which, e.error))?;
    // Every result of the season, under every scoring version.
    for recorded in state.tournaments.values() {
        if recorded.outcome.season == season {
            tournament_scores(&score, &recorded.outcome, recorded.points.values())?;
        }
    }
    // Every player's overall score, in the season and at each venue and region.
    let version = found.version();
    let mut scopes = vec![Scope::Season];
    scopes.extend(state.venues.keys().map(|v| Scope::Venue(v)));
    let regions: BTreeSet<&str> = state.venues.values().map(|v| v.region.as_str()).collect();
    scopes.extend(regions.into_iter().map(Scope::Region));
    for scope in scopes {
        for (player, overall) in state.overall_scores(season, version, scope, &score)? {
            if let Err(error) = overall {
                return Err(LeagueError::CannotScoreSeason {
                    season: season.to_owned(),
                    player: player.to_string(),
                    scope: scope.to_string(),
                    error: Box::new(error),
                });
            }
        }
    }
    Ok(vec![Event::SeasonScoreSet {
        season: season.into(),
        score: Some(score),
    }])
}

/// Checks that every finish of an outcome has a tournament score under each version's
/// points.
pub(super) fn tournament_scores<'a>(
    score: &SeasonScore,
    outcome: &TournamentOutcome,
    versions: impl Iterator<Item = &'a Vec<Centipoints>>,
) -> Result<(), LeagueError> {
    for points in versions {
        for (finish, &points) in outcome.finishes.iter().zip(points) {
            score
                .tournament_value(outcome, finish, points)
                .map_err(|error| LeagueError::CannotScoreTournament {
                    tournament: outcome.tournament.to_string(),
                    player: finish.player.to_string(),
                    error,
                })?;
        }
    }
    Ok(())
}
