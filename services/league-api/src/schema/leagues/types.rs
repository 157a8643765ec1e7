//! The league domain's GraphQL output types: a league's settings and members, a line of
//! the standings, a player's record, wrapping the read models of `league-projections`.

use super::inputs::ScoreOrderInput;
use crate::schema::scalars::{Cents, Points};
use async_graphql::{ID, Object, SimpleObject};
use league_engine::standings::Standing;
use league_projections::views::PlayerRecord;

/// A venue of the league.
#[derive(SimpleObject, Clone, Debug)]
pub struct VenueOut {
    /// The venue's id: what schedules, recorded outcomes and host tokens name.
    pub id: ID,
    /// The venue's code, unique in its league (`null`: none set).
    pub code: Option<String>,
    /// The region the venue is in, as `addVenue` named it.
    pub region: String,
    /// The venue's name on its screens, as `setVenueDisplay` set it (`null`: not set; a
    /// screen shows the id).
    pub name: Option<String>,
    /// The venue's logo on its screens: a `data:` URL of an image (`null`: none).
    pub logo: Option<String>,
}

/// A season of the league.
#[derive(SimpleObject, Clone, Debug)]
pub struct SeasonOut {
    /// The season's id.
    pub id: ID,
    /// The current scoring version: 1 when the season was added, one more with each
    /// `setFormula`.
    pub version: u32,
    /// Results counted per player (`null`: all).
    pub best_n: Option<u32>,
    /// The season's score formulas, as `setSeasonScore` set them (`null`: none).
    pub score: Option<SeasonScoreOut>,
    /// Closed by `closeSeason`: its results and standings are final.
    pub closed: bool,
}

/// A season's score formulas.
#[derive(SimpleObject, Clone, Debug)]
#[graphql(name = "SeasonScore")]
pub struct SeasonScoreOut {
    /// Each result's score.
    pub tournament_score: String,
    /// The score over a player's results.
    pub overall_score: String,
    /// Whether the score breaks ties in points or ranks the standings.
    pub order: ScoreOrderInput,
}

/// A player registered in the league.
#[derive(SimpleObject, Clone, Debug)]
pub struct LeaguePlayer {
    /// The player's id: what tournaments, recorded finishes and player tokens name.
    pub id: ID,
    /// The player's name.
    pub name: String,
}

/// A league's settings and members.
#[derive(SimpleObject, Clone, Debug)]
pub struct LeagueOut {
    /// The league's id (its stream is `league:<id>`).
    pub id: ID,
    /// The league's short name in URLs, unique among leagues (`null`: none set).
    pub code: Option<String>,
    /// The league's name.
    pub name: String,
    /// The places that make the final table: a finish at this place or better counts as a
    /// final table in the standings.
    pub final_table: u32,
    /// The league's venues, in id order.
    pub venues: Vec<VenueOut>,
    /// The league's seasons, in id order.
    pub seasons: Vec<SeasonOut>,
    /// Every registered player, in id order, merged duplicates included.
    pub players: Vec<LeaguePlayer>,
}

/// One line of the standings, with the player's name and where the line stood before the
/// scope's latest tournament.
#[derive(Clone, Debug, PartialEq)]
pub struct StandingOut {
    pub line: Standing,
    pub name: String,
    pub previous_rank: Option<u32>,
}

/// One line of a season's standings, league-wide, in a region or at one venue.
#[Object(name = "Standing")]
impl StandingOut {
    /// The line's place in the standings, from 1; no two lines share one (ties are broken
    /// as `separatedBy` says).
    async fn rank(&self) -> u32 {
        self.line.rank
    }
    /// The player's id (a merged duplicate's results count under the id kept).
    async fn player(&self) -> ID {
        self.line.player.to_string().into()
    }
    /// The player's name, as the league registered it.
    async fn name(&self) -> &str {
        &self.name
    }
    /// The line's rank before the latest tournament of the season in this scope (the
    /// latest day, then the largest id), under the same scoring: a leaderboard's movement
    /// is `previousRank - rank`. `null` for a player whose first result of the scope that
    /// tournament was.
    async fn previous_rank(&self) -> Option<u32> {
        self.previous_rank
    }
    /// The points counted (the best `n` results under the season's scoring version).
    async fn points(&self) -> Points {
        Points(self.line.points)
    }
    /// The results counted in `points`: the season's best `bestN`, or all of them.
    async fn counted(&self) -> u32 {
        self.line.counted
    }
    /// The player's results in the season (at the venue, for a venue's standings).
    async fn played(&self) -> u32 {
        self.line.played
    }
    /// Results in first place (a shared first included).
    async fn wins(&self) -> u32 {
        self.line.wins
    }
    /// Results at the league's `finalTable` place or better.
    async fn final_tables(&self) -> u32 {
        self.line.final_tables
    }
    /// The best place the player finished in (1 is a win).
    async fn best_finish(&self) -> u32 {
        self.line.best_finish
    }
    /// The day the counted total was reached: the latest `day` of the results counted.
    async fn reached(&self) -> u32 {
        self.line.reached
    }
    /// The player's overall score, when the season has a score (`setSeasonScore`) and it
    /// has a value for the player; `null` otherwise.
    async fn score(&self) -> Option<Points> {
        self.line.score.map(Points)
    }
    /// What put this player below the one above: the first of `Points`, `Wins`,
    /// `FinalTables`, `BestFinish`, `Earliest` (an earlier `reached`) and `PlayerId` (the ids
    /// in order) on which the two lines differ, with `Score` (the season's overall score)
    /// after `Points` or before it, as the season's score orders; `null` for the leader.
    async fn separated_by(&self) -> Option<String> {
        self.line
            .separated_by
            .as_ref()
            .and_then(|t| serde_json::to_value(t).ok())
            .map(|v| match v {
                serde_json::Value::String(s) => s,
                other => other.to_string(),
            })
    }
}

/// One result in a player's record.
#[derive(SimpleObject, Clone, Debug)]
pub struct RecordLineOut {
    /// The tournament's id.
    pub tournament: ID,
    /// The id of the venue it was played at.
    pub venue: ID,
    /// The id of the season it counts in.
    pub season: ID,
    /// The tournament's day, as recorded (any increasing number; the standings' "earliest"
    /// tie-break).
    pub day: u32,
    /// The player's place; 1 is the winner, and players sharing a place all have the top
    /// place they share.
    pub place: u32,
    /// Players who entered the tournament, league players or not.
    pub field: u32,
    /// The prize won, in cents.
    pub prize: Cents,
    /// Players this player knocked out.
    pub knockouts: u32,
    /// Re-buys the player made.
    pub rebuys: u32,
    /// Points, under the season's current scoring version.
    pub points: Points,
}

/// A player's record across the league.
pub struct PlayerRecordOut(pub PlayerRecord);

/// A player's record across the league: every recorded result, in every season, with the
/// results of any duplicate merged into the player.
#[Object(name = "PlayerRecord")]
impl PlayerRecordOut {
    /// The player's id (the id kept, when a merged duplicate's id was asked for).
    async fn player(&self) -> ID {
        self.0.player.to_string().into()
    }
    /// The player's name.
    async fn name(&self) -> &str {
        &self.0.name
    }
    /// Tournaments recorded for the player.
    async fn played(&self) -> u32 {
        self.0.played
    }
    /// Results in first place (a shared first included).
    async fn wins(&self) -> u32 {
        self.0.wins
    }
    /// Results with a prize above 0.
    async fn cashes(&self) -> u32 {
        self.0.cashes
    }
    /// Prizes won, in cents.
    async fn winnings(&self) -> Cents {
        Cents(self.0.winnings)
    }
    /// Players this player knocked out, over every result.
    async fn knockouts(&self) -> u32 {
        self.0.knockouts
    }
    /// Every result, by `day` and then tournament id.
    async fn results(&self) -> Vec<RecordLineOut> {
        self.0
            .results
            .iter()
            .map(|r| RecordLineOut {
                tournament: r.tournament.as_str().into(),
                venue: r.venue.as_str().into(),
                season: r.season.as_str().into(),
                day: r.day,
                place: r.place,
                field: r.field,
                prize: Cents(r.prize),
                knockouts: r.knockouts,
                rebuys: r.rebuys,
                points: Points(r.points),
            })
            .collect()
    }
}

/// One place of a formula's preview.
#[derive(SimpleObject, Clone, Debug)]
pub struct FormulaPreviewLine {
    /// The place; 1 is the winner.
    pub place: u32,
    /// The prize the preview gives the place (the default payout table's, in whole
    /// currency units, as `pw` reads it), in cents.
    pub prize: Cents,
    /// The points the formula gives the place.
    pub points: Points,
}
