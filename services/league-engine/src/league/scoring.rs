//! Scoring: a season's points rule (formula or table), checked when set, and scoring
//! outcomes with it.

use super::*;

/// The final-table size when the league does not choose one.
pub const DEFAULT_FINAL_TABLE: u32 = 9;

/// How a season scores a tournament, as the league writes it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum ScoringRule {
    /// Points by place, 1st first; places beyond the table score 0 (the APL's 125, 100,
    /// 75, 50, 40 is `[12_500, 10_000, 7_500, 5_000, 4_000]`).
    Table { points: Vec<Centipoints> },
    /// An expression in The Tournament Director's syntax (see [`points`]).
    Formula { text: String },
}

/// A checked [`ScoringRule`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
        let field_totals =
            matches!(self, Scoring::Formula { formula } if formula.reads_field_totals());
        let mut sum = 0i128;
        for inputs in place_inputs(outcome, finish, field_totals) {
            sum += i128::from(self.place_points(inputs)?.get());
        }
        let mean = div_round(sum, i128::from(shared));
        // The mean of i64 values is an i64.
        i64::try_from(mean)
            .map(Centipoints::new)
            .map_err(|_| FormulaError::NotANumber {
                inputs: format!("place {} shared by {shared}", finish.place),
                why: "out of range".to_owned(),
            })
    }
}

/// `a / b` rounded half away from zero (`b > 0`).
pub(super) fn div_round(a: i128, b: i128) -> i128 {
    let (q, r) = (a / b, a % b);
    if 2 * r.abs() >= b { q + a.signum() } else { q }
}

pub(super) fn check_scoring(season: &str, rule: &ScoringRule) -> Result<Scoring, LeagueError> {
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

pub(super) fn set_formula(
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
    // The season's score reads `points`: every result keeps a tournament score under the
    // new version.
    if let Some(season_score) = &found.score {
        for scored in &rescored {
            if let Some(recorded) = state.tournaments.get(&scored.tournament) {
                tournament_scores(
                    season_score,
                    &recorded.outcome,
                    std::iter::once(&scored.points),
                )?;
            }
        }
    }
    Ok(vec![Event::FormulaSet {
        season: season.into(),
        version,
        scoring,
        rescored,
    }])
}

/// Scores every finish of an outcome with one version.
pub(super) fn score(
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
                    tournament: outcome.tournament.to_string(),
                    player: finish.player.to_string(),
                    version,
                    error,
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
            points: vec![
                Centipoints::new(12_500),
                Centipoints::new(10_000),
                Centipoints::new(7_500),
                Centipoints::new(5_000),
                Centipoints::new(4_000),
            ],
        })
        .unwrap();
        let outcome = TournamentOutcome {
            tournament: "t".into(),
            venue: "v".into(),
            season: "s".into(),
            day: 1,
            buyin: Cents::new(2_000),
            prizepool: Cents::new(20_000),
            field: 10,
            finishes: Vec::new(),
        };
        let shared = Finish {
            shared: 2,
            ..Finish::new("ann", 3)
        };
        assert_eq!(
            apl.points(&outcome, &shared).unwrap(),
            Centipoints::new(6_250)
        );
        let three = Finish {
            shared: 3,
            ..Finish::new("ann", 4)
        };
        // (5000 + 4000 + 0) / 3 = 3000.
        assert_eq!(
            apl.points(&outcome, &three).unwrap(),
            Centipoints::new(3_000)
        );
    }
}
