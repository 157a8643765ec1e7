//! The events the league records, and the points they carry.

use super::*;

/// One tournament's points under one version, parallel to its `finishes`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TournamentPoints {
    pub tournament: TournamentId,
    pub points: Vec<Centipoints>,
}

/// One version's points for a tournament, parallel to its `finishes`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct VersionPoints {
    pub version: u32,
    pub points: Vec<Centipoints>,
}

/// Something that happened in the league.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "type")]
pub enum Event {
    LeagueCreated {
        name: String,
        final_table: u32,
    },
    VenueAdded {
        venue: VenueId,
        region: String,
    },
    /// The league's short name in URLs (replacing the one it had).
    LeagueCodeSet {
        code: String,
    },
    /// A venue's code, unique in the league (replacing the one it had).
    VenueCodeSet {
        venue: VenueId,
        code: String,
    },
    /// A venue's name and logo for its screens (replacing any set before).
    VenueDisplaySet {
        venue: VenueId,
        name: String,
        /// A `data:` URL of the logo image; `None`: no logo.
        #[serde(default)]
        logo: Option<String>,
    },
    SeasonAdded {
        season: SeasonId,
        best_n: Option<u32>,
    },
    /// A season's scoring version `version`, and every recorded result of the season
    /// scored with it.
    FormulaSet {
        season: SeasonId,
        version: u32,
        scoring: Scoring,
        rescored: Vec<TournamentPoints>,
    },
    /// A season's score formulas (`None`: the season has no score any more); the
    /// standings read them from then on.
    SeasonScoreSet {
        season: SeasonId,
        score: Option<SeasonScore>,
    },
    /// A season closed (release 0.9.0): its results and standings are final.
    SeasonClosed {
        season: SeasonId,
    },
    PlayerRegistered {
        player: PlayerId,
        name: String,
        membership: String,
    },
    PlayerRenamed {
        player: PlayerId,
        name: String,
    },
    PlayersMerged {
        keep: PlayerId,
        merge: PlayerId,
    },
    PlayersUnmerged {
        keep: PlayerId,
        merge: PlayerId,
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
        /// Why it was corrected (version 2; an amendment of version 1 reads as empty).
        reason: String,
    },
}
