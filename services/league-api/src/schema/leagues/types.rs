//! The league domain's GraphQL output types: a league's settings and members, a line of
//! the standings, a player's record, wrapping the read models of `league-projections`.

use crate::schema::scalars::Points;
use async_graphql::{Object, SimpleObject};
use league_engine::standings::Standing;
use league_projections::views::PlayerRecord;

#[derive(SimpleObject, Clone, Debug)]
pub struct VenueOut {
    pub id: String,
    pub region: String,
}

#[derive(SimpleObject, Clone, Debug)]
pub struct SeasonOut {
    pub id: String,
    /// The current scoring version.
    pub version: u32,
    /// Results counted per player (`null`: all).
    pub best_n: Option<u32>,
}

#[derive(SimpleObject, Clone, Debug)]
pub struct LeaguePlayer {
    pub id: String,
    pub name: String,
}

/// A league's settings and members.
#[derive(SimpleObject, Clone, Debug)]
pub struct LeagueOut {
    pub id: String,
    pub name: String,
    pub final_table: u32,
    pub venues: Vec<VenueOut>,
    pub seasons: Vec<SeasonOut>,
    pub players: Vec<LeaguePlayer>,
}

/// One line of the standings.
pub struct StandingOut(pub Standing);

#[Object(name = "Standing")]
impl StandingOut {
    async fn rank(&self) -> u32 {
        self.0.rank
    }
    async fn player(&self) -> &str {
        &self.0.player
    }
    /// The points counted (the best `n` results under the season's scoring version).
    async fn points(&self) -> Points {
        Points(self.0.points)
    }
    async fn counted(&self) -> u32 {
        self.0.counted
    }
    async fn played(&self) -> u32 {
        self.0.played
    }
    async fn wins(&self) -> u32 {
        self.0.wins
    }
    async fn final_tables(&self) -> u32 {
        self.0.final_tables
    }
    async fn best_finish(&self) -> u32 {
        self.0.best_finish
    }
    /// The day the counted total was reached.
    async fn reached(&self) -> u32 {
        self.0.reached
    }
    /// What put this player below the one above (`null` for the leader).
    async fn separated_by(&self) -> Option<String> {
        self.0
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
    pub tournament: String,
    pub venue: String,
    pub season: String,
    pub day: u32,
    pub place: u32,
    pub field: u32,
    /// Cents.
    pub prize: u64,
    pub knockouts: u32,
    pub rebuys: u32,
    /// Points, under the season's current scoring version.
    pub points: Points,
}

/// A player's record across the league.
pub struct PlayerRecordOut(pub PlayerRecord);

#[Object(name = "PlayerRecord")]
impl PlayerRecordOut {
    async fn player(&self) -> &str {
        &self.0.player
    }
    async fn name(&self) -> &str {
        &self.0.name
    }
    async fn played(&self) -> u32 {
        self.0.played
    }
    async fn wins(&self) -> u32 {
        self.0.wins
    }
    async fn cashes(&self) -> u32 {
        self.0.cashes
    }
    /// Cents.
    async fn winnings(&self) -> u64 {
        self.0.winnings.get()
    }
    async fn knockouts(&self) -> u32 {
        self.0.knockouts
    }
    async fn results(&self) -> Vec<RecordLineOut> {
        self.0
            .results
            .iter()
            .map(|r| RecordLineOut {
                tournament: r.tournament.clone(),
                venue: r.venue.clone(),
                season: r.season.clone(),
                day: r.day,
                place: r.place,
                field: r.field,
                prize: r.prize.get(),
                knockouts: r.knockouts,
                rebuys: r.rebuys,
                points: Points(r.points),
            })
            .collect()
    }
}
