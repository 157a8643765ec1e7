//! The league domain's typed inputs: a season's scoring and a tournament's outcome.

use async_graphql::{Enum, ID, InputObject, OneofObject};
use league_engine::league::{Finish, ScoreOrder, ScoringRule, SeasonScoreRule, TournamentOutcome};
use league_engine::tournament::Cents as EngineCents;
use league_engine::units::PlayerId;

use crate::error::{ApiError, ApiResult};
use crate::schema::scalars::{Cents, Points};

/// How a season scores a tournament: a `table` of points by place or a `formula`.
#[derive(OneofObject, Clone, Debug)]
pub enum ScoringInput {
    /// Points by place, first place first; places beyond the table score 0 (e.g.
    /// `[125, 100, 75, 50, 40]`).
    Table(Vec<Points>),
    /// A formula in The Tournament Director's language over the tournament's numbers
    /// (`n` players, `r` the place, `nr` re-buys, `nh` knock-outs, `mr` the last place
    /// paid, and the rest in docs/formulas.md; money such as `buyin` in whole currency
    /// units: a 20.00 buy-in is `20`), rounded to the hundredth; e.g.
    /// `10 * sqrt(n)/sqrt(r) * (1 + log10(buyin + 0.25))`.
    Formula(String),
}

/// The longest formula taken, in bytes (the longest The Tournament Director formulas
/// leagues post are under 200); the engine also bounds its nesting and operators.
pub const MAX_FORMULA_BYTES: usize = 2_000;

/// The most places a points table scores.
pub const MAX_TABLE_PLACES: usize = 1_000;

impl ScoringInput {
    /// The engine's rule, within the bounds above (`BAD_INPUT` naming `scoring`).
    pub fn into_rule(self) -> ApiResult<ScoringRule> {
        match self {
            ScoringInput::Table(points) if points.len() > MAX_TABLE_PLACES => {
                Err(ApiError::bad_field(
                    "scoring",
                    format!("scoring: a points table scores at most {MAX_TABLE_PLACES} places"),
                ))
            }
            ScoringInput::Table(points) => Ok(ScoringRule::Table {
                points: points.into_iter().map(|p| p.0).collect(),
            }),
            ScoringInput::Formula(text) if text.len() > MAX_FORMULA_BYTES => {
                Err(ApiError::bad_field(
                    "scoring",
                    format!("scoring: a formula is at most {MAX_FORMULA_BYTES} bytes long"),
                ))
            }
            ScoringInput::Formula(text) => Ok(ScoringRule::Formula { text }),
        }
    }
}

/// How a season's overall score orders its standings.
#[derive(Enum, Copy, Clone, Debug, PartialEq, Eq)]
#[graphql(name = "ScoreOrder")]
pub enum ScoreOrderInput {
    /// Points rank the standings; the score breaks a tie in points, before wins.
    BreaksTies,
    /// The score ranks the standings; points break a tie in score.
    Ranks,
}

impl From<ScoreOrderInput> for ScoreOrder {
    fn from(order: ScoreOrderInput) -> ScoreOrder {
        match order {
            ScoreOrderInput::BreaksTies => ScoreOrder::BreaksTies,
            ScoreOrderInput::Ranks => ScoreOrder::Ranks,
        }
    }
}

impl From<ScoreOrder> for ScoreOrderInput {
    fn from(order: ScoreOrder) -> ScoreOrderInput {
        match order {
            ScoreOrder::BreaksTies => ScoreOrderInput::BreaksTies,
            ScoreOrder::Ranks => ScoreOrderInput::Ranks,
        }
    }
}

/// A season's score, as The Tournament Director writes it: a tournament score for each
/// result and an overall score over them (docs/formulas.md, "Season scores").
#[derive(InputObject, Clone, Debug)]
pub struct SeasonScoreInput {
    /// Each result's score, over what a points formula reads and `points` (the player's
    /// points in the tournament), e.g. `log((n + 1) / r)`.
    pub tournament_score: String,
    /// The score over a player's results: `scores` (their tournament scores, oldest
    /// first), `listPoints` and `n` (the season's tournaments), with `sum`, `average`,
    /// `count`, `top`, `bottom`, `index` and `setListLength`, e.g.
    /// `(1 - exp(-average(scores))) * 100`.
    pub overall_score: String,
    /// Whether the score breaks ties in points (the default) or ranks the standings.
    #[graphql(default_with = "ScoreOrderInput::BreaksTies")]
    pub order: ScoreOrderInput,
}

impl SeasonScoreInput {
    /// The engine's rule, within the formulas' length bound (`BAD_INPUT` naming the field).
    pub fn into_rule(self) -> ApiResult<SeasonScoreRule> {
        for (field, text) in [
            ("tournamentScore", &self.tournament_score),
            ("overallScore", &self.overall_score),
        ] {
            if text.len() > MAX_FORMULA_BYTES {
                return Err(ApiError::bad_field(
                    field,
                    format!("{field}: a formula is at most {MAX_FORMULA_BYTES} bytes long"),
                ));
            }
        }
        Ok(SeasonScoreRule {
            tournament: self.tournament_score,
            overall: self.overall_score,
            order: self.order.into(),
        })
    }
}

/// One player's finish.
#[derive(InputObject, Clone, Debug)]
pub struct FinishInput {
    /// The player's id in the league.
    pub player: ID,
    /// 1 is the winner. Players sharing a place all give the top place they share.
    pub place: u32,
    /// How many players share this place (1 by default).
    #[graphql(default = 1)]
    pub shared: u32,
    /// Re-buys the player made (0 by default).
    #[graphql(default)]
    pub rebuys: u32,
    /// Players this player knocked out (0 by default).
    #[graphql(default)]
    pub knockouts: u32,
    /// Cents won (0 by default).
    #[graphql(default_with = "Cents(EngineCents::ZERO)")]
    pub prize: Cents,
}

/// A tournament played elsewhere (or on paper), as the league records it. Only the league's
/// players are listed in `finishes`; `field` counts everyone who entered.
#[derive(InputObject, Clone, Debug)]
pub struct OutcomeInput {
    /// The tournament's id (a tournament this service ran is recorded with
    /// `recordTournamentResult` instead).
    pub tournament: ID,
    /// The id of the league venue it was played at.
    pub venue: ID,
    /// The id of the season it counts in.
    pub season: ID,
    /// Days (or any increasing number): the standings' "earliest" tie-break.
    pub day: u32,
    /// One entry's cost to a player, fee included, in cents (a formula's `buyin` is this
    /// in whole currency units, rounded down).
    pub buyin: Cents,
    /// The prize pool, in cents; the prizes in `finishes` add up to no more.
    pub prizepool: Cents,
    /// Players who entered, league players or not (2 to 100,000).
    pub field: u32,
    /// The league players' finishes, each player once.
    pub finishes: Vec<FinishInput>,
}

impl From<OutcomeInput> for TournamentOutcome {
    fn from(o: OutcomeInput) -> TournamentOutcome {
        TournamentOutcome {
            tournament: o.tournament.0.into(),
            venue: o.venue.0.into(),
            season: o.season.0.into(),
            day: o.day,
            buyin: o.buyin.0,
            prizepool: o.prizepool.0,
            field: o.field,
            finishes: o
                .finishes
                .into_iter()
                .map(|f| Finish {
                    player: PlayerId::from(f.player.0),
                    place: f.place,
                    shared: f.shared,
                    rebuys: f.rebuys,
                    knockouts: f.knockouts,
                    prize: f.prize.0,
                })
                .collect(),
        }
    }
}

/// A field to preview a points formula on.
#[derive(InputObject, Clone, Debug)]
pub struct FormulaPreviewInput {
    /// The formula, as `setFormula` would take it (docs/formulas.md).
    pub formula: String,
    /// Entrants: 2 to 10,000.
    pub entrants: u32,
    /// The buy-in (0 when left out); the formula reads it in whole currency units.
    pub buyin: Option<Cents>,
    /// The prize pool (entrants times the buy-in when left out).
    pub prizepool: Option<Cents>,
    /// Re-buys every player is taken to have made (0 when left out).
    pub rebuys: Option<u32>,
    /// Knock-outs every player is taken to have made (0 when left out).
    pub hits: Option<u32>,
    /// Places paid (as the default payout table pays the field when left out).
    pub paid: Option<u32>,
}

impl FormulaPreviewInput {
    /// The formula's text and the engine's field, within the bounds (`BAD_INPUT` naming
    /// the field).
    pub fn into_preview(self) -> ApiResult<(String, league_engine::points::PreviewField)> {
        use league_engine::points::{MAX_PREVIEW_ENTRANTS, PreviewField};
        if self.formula.len() > MAX_FORMULA_BYTES {
            return Err(ApiError::bad_field(
                "formula",
                format!("formula: a formula is at most {MAX_FORMULA_BYTES} bytes long"),
            ));
        }
        if !(2..=MAX_PREVIEW_ENTRANTS).contains(&self.entrants) {
            return Err(ApiError::bad_field(
                "entrants",
                format!("entrants: a field has 2 to {MAX_PREVIEW_ENTRANTS} entrants"),
            ));
        }
        if let Some(paid) = self.paid
            && !(1..=self.entrants).contains(&paid)
        {
            return Err(ApiError::bad_field(
                "paid",
                format!(
                    "paid: the places paid are 1 to the {} entrants",
                    self.entrants
                ),
            ));
        }
        let whole = |cents: Option<Cents>| cents.map(|c| c.0.get() / 100);
        let field = PreviewField {
            entrants: self.entrants,
            buyin: whole(self.buyin).unwrap_or(0),
            prizepool: whole(self.prizepool),
            rebuys: self.rebuys.unwrap_or(0),
            hits: self.hits.unwrap_or(0),
            paid: self.paid,
        };
        Ok((self.formula, field))
    }
}
