//! Why a league command was refused.

use super::*;

/// A refused command. Refusals change nothing.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum LeagueError {
    #[error("there is no league yet: create it first")]
    NoLeague,
    #[error("the league already exists")]
    LeagueExists,
    #[error("{what} must be {}", crate::units::ID_RULE)]
    BadId { what: String },
    #[error("{what} must be {}", crate::units::TEXT_RULE)]
    BadText { what: String },
    #[error("a code must be {}", crate::units::CODE_RULE)]
    BadCode { code: String },
    #[error("code `{code}` names venue `{venue}`")]
    VenueCodeTaken { code: String, venue: String },
    #[error("`{venue}` is the code of venue `{holder}`")]
    VenueIdIsACode { venue: String, holder: String },
    #[error("the final table must have at least one place")]
    EmptyFinalTable,
    #[error("venue `{venue}` already exists")]
    VenueExists { venue: String },
    #[error("no venue `{venue}`")]
    UnknownVenue { venue: String },
    #[error(
        "the logo must be a `data:` URL of a PNG, JPEG, WebP or SVG image in base64 \
         (`data:image/png;base64,...`), at most {} bytes",
        MAX_LOGO_BYTES
    )]
    BadLogo,
    #[error("no venue in region `{region}`")]
    UnknownRegion { region: String },
    #[error("season `{season}` already exists")]
    SeasonExists { season: String },
    #[error("no season `{season}`")]
    UnknownSeason { season: String },
    #[error("season `{season}` is closed: its results and standings are final")]
    SeasonClosed { season: String },
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
    #[error("season `{season}`: the {which} is refused: {error}")]
    InvalidSeasonScore {
        season: String,
        which: ScoreFormula,
        error: FormulaError,
    },
    #[error("the season's tournament score cannot score `{player}` in `{tournament}`: {error}")]
    CannotScoreTournament {
        tournament: String,
        player: String,
        error: FormulaError,
    },
    #[error("season `{season}`: the overall score has no value for `{player}` in {scope}: {error}")]
    CannotScoreSeason {
        season: String,
        player: String,
        scope: String,
        error: Box<FormulaError>,
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
    PrizesExceedPool { paid: Cents, prizepool: Cents },
}
