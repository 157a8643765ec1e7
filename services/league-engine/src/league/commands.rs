//! The commands the league takes.

use super::*;

/// A command to the league.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum Command {
    /// Start the league. `final_table`: how many places make the final table (default 9);
    /// `code`: its short name in URLs (see [`crate::units::is_code`]), if it has one.
    CreateLeague {
        name: String,
        final_table: Option<u32>,
        code: Option<String>,
    },
    /// A venue in a region, with its code if it has one (unique in the league).
    AddVenue {
        venue: VenueId,
        region: String,
        code: Option<String>,
    },
    /// The league's short name in URLs, replacing the one it had (which is then free). Its
    /// uniqueness among leagues is checked where every league is known, not here.
    SetLeagueCode {
        code: String,
    },
    /// A venue's code, unique in the league, replacing the one it had.
    SetVenueCode {
        venue: VenueId,
        code: String,
    },
    /// A venue's name and logo for its screens (`logo`: a `data:` URL, see
    /// [`super::is_logo`]; `None`: none).
    SetVenueDisplay {
        venue: VenueId,
        name: String,
        logo: Option<String>,
    },
    /// A season, its best-N (`None`: every result counts) and its first scoring version.
    AddSeason {
        season: SeasonId,
        best_n: Option<u32>,
        scoring: ScoringRule,
    },
    /// A new scoring version for a season: its results are re-scored.
    SetFormula {
        season: SeasonId,
        scoring: ScoringRule,
    },
    /// A season's tournament and overall score formulas, or none (`score: None`).
    SetSeasonScore {
        season: SeasonId,
        score: Option<SeasonScoreRule>,
    },
    /// Close a season: its results and standings become final (no result recorded or
    /// amended, no formula set), and the league stops holding its results in memory.
    CloseSeason {
        season: SeasonId,
    },
    RegisterPlayer {
        player: PlayerId,
        name: String,
        membership: String,
    },
    RenamePlayer {
        player: PlayerId,
        name: String,
    },
    /// `merge` is a duplicate of `keep`: its results count for `keep`.
    MergePlayers {
        keep: PlayerId,
        merge: PlayerId,
    },
    /// Undo the merge of `merge` into `keep`.
    UnmergePlayers {
        keep: PlayerId,
        merge: PlayerId,
    },
    RecordTournament {
        outcome: TournamentOutcome,
    },
    /// Replace a recorded tournament's outcome (same tournament id): a corrected result,
    /// re-scored, with why it was corrected.
    AmendTournament {
        outcome: TournamentOutcome,
        reason: String,
    },
}
