//! Each league mutation's input and payload type (see [`crate::schema::payloads`]).

use async_graphql::{ID, MaybeUndefined};

use super::inputs::{OutcomeInput, ScoringInput, SeasonScoreInput};
use crate::schema::payloads::{command_input, payload};

command_input! {
    /// The input of `createLeague`.
    CreateLeagueInput {
        /// The new league's id, which names its stream for ever: a UUID of the client's
        /// choosing (lowercase, hyphenated), or 1 to 64 ASCII letters, digits, `-`, `_` or
        /// `.`; a UUIDv7 generated when left out (`createdId` answers it). A malformed id is
        /// `BAD_ID`, one already used `ID_TAKEN`.
        id: Option<ID>,
        /// The league's name, as people read it.
        name: String,
        /// The places that make the final table (default 9).
        final_table: Option<u32>,
        /// The league's short name in URLs (`/leaderboard/<code>/<season>`): 2 to 32
        /// lowercase letters, digits and `-`, beginning and ending with a letter or digit,
        /// not another league's code or id (`CODE_TAKEN`); none when left out.
        code: Option<String>,
    }
}

payload! {
    /// What `createLeague` did, and the league it changed.
    CreateLeaguePayload: league creates
}

command_input! {
    /// The input of `addVenue`.
    AddVenueInput {
        /// The league's id, as created.
        league_id: ID,
        /// The venue's id, which schedules, outcomes and host tokens name: a UUID of the
        /// client's choosing, or 1 to 64 ASCII letters, digits, `-`, `_` or `.`; a UUIDv7
        /// generated when left out (`createdId` answers it). A malformed id is `BAD_ID`, a
        /// venue the league has already `ID_TAKEN`.
        venue: Option<ID>,
        /// The venue's region, for regional standings.
        region: String,
        /// The venue's code, as people type it: 2 to 32 lowercase letters, digits and `-`,
        /// beginning and ending with a letter or digit, not another venue's of the league
        /// (`CODE_TAKEN`); none when left out.
        code: Option<String>,
    }
}

payload! {
    /// What `addVenue` did, and the league it changed.
    AddVenuePayload: league creates
}

command_input! {
    /// The input of `setLeagueCode`.
    SetLeagueCodeInput {
        /// The league's id, as created.
        league_id: ID,
        /// The league's new short name in URLs (as `createLeague` takes it); the old one is
        /// then free.
        code: String,
    }
}

payload! {
    /// What `setLeagueCode` did, and the league it changed.
    SetLeagueCodePayload: league
}

command_input! {
    /// The input of `setVenueCode`.
    SetVenueCodeInput {
        /// The league's id, as created.
        league_id: ID,
        /// The venue's id, as added.
        venue: ID,
        /// The venue's new code (as `addVenue` takes it); the old one is then free.
        code: String,
    }
}

payload! {
    /// What `setVenueCode` did, and the league it changed.
    SetVenueCodePayload: league
}

command_input! {
    /// The input of `setVenueDisplay`.
    SetVenueDisplayInput {
        /// The league's id, as created.
        league_id: ID,
        /// The venue's id, as added.
        venue: ID,
        /// The venue's name on its screens: 1 to 200 characters, no control characters.
        name: String,
        /// The venue's logo: a `data:` URL of a PNG, JPEG, WebP or SVG image in base64
        /// (`data:image/png;base64,...`), at most 65,536 bytes; none when left out.
        logo: Option<String>,
    }
}

payload! {
    /// What `setVenueDisplay` did, and the league it changed.
    SetVenueDisplayPayload: league
}

command_input! {
    /// The input of `addSeason`.
    AddSeasonInput {
        /// The league's id, as created.
        league_id: ID,
        /// The season's id within the league: a UUID of the client's choosing, or 1 to 64
        /// ASCII letters, digits, `-`, `_` or `.`; a UUIDv7 generated when left out
        /// (`createdId` answers it). A malformed id is `BAD_ID`, a season the league has
        /// already `ID_TAKEN`.
        season: Option<ID>,
        /// Only each player's best this many results count (all when left out).
        best_n: Option<u32>,
        /// The season's first scoring version: a points table or a formula.
        scoring: ScoringInput,
    }
}

payload! {
    /// What `addSeason` did, and the league it changed.
    AddSeasonPayload: league creates
}

command_input! {
    /// The input of `setFormula`.
    SetFormulaInput {
        /// The league's id, as created.
        league_id: ID,
        /// The season's id within the league.
        season: ID,
        /// The season's new scoring version: a points table or a formula.
        scoring: ScoringInput,
    }
}

payload! {
    /// What `setFormula` did, and the league it changed.
    SetFormulaPayload: league
}

command_input! {
    /// The input of `closeSeason`.
    CloseSeasonInput {
        /// The league's id, as created.
        league_id: ID,
        /// The season's id within the league.
        season: ID,
    }
}

payload! {
    /// What `closeSeason` did, and the league it changed.
    CloseSeasonPayload: league
}

command_input! {
    /// The input of `setSeasonScore`.
    SetSeasonScoreInput {
        /// The league's id, as created.
        league_id: ID,
        /// The season's id within the league.
        season: ID,
        /// The season's score formulas; `null` takes the season's score away (it must be
        /// given, as formulas or as `null`).
        score: MaybeUndefined<SeasonScoreInput>,
    }
}

payload! {
    /// What `setSeasonScore` did, and the league it changed.
    SetSeasonScorePayload: league
}

command_input! {
    /// The input of `registerPlayer`.
    RegisterPlayerInput {
        /// The league's id, as created.
        league_id: ID,
        /// The player's id, as the league registered them.
        player: ID,
        /// The player's name, as people read it.
        name: String,
        /// The player's membership number in the league (unique within it).
        membership: String,
    }
}

payload! {
    /// What `registerPlayer` did, and the league it changed.
    RegisterPlayerPayload: league
}

command_input! {
    /// The input of `renamePlayer`.
    RenamePlayerInput {
        /// The league's id, as created.
        league_id: ID,
        /// The player's id, as the league registered them.
        player: ID,
        /// The player's new name.
        name: String,
    }
}

payload! {
    /// What `renamePlayer` did, and the league it changed.
    RenamePlayerPayload: league
}

command_input! {
    /// The input of `mergePlayers`.
    MergePlayersInput {
        /// The league's id, as created.
        league_id: ID,
        /// The player's id that is kept.
        keep: ID,
        /// The duplicate player's id, whose results move to `keep`.
        merge: ID,
    }
}

payload! {
    /// What `mergePlayers` did, and the league it changed.
    MergePlayersPayload: league
}

command_input! {
    /// The input of `unmergePlayers`.
    UnmergePlayersInput {
        /// The league's id, as created.
        league_id: ID,
        /// The player's id that was kept.
        keep: ID,
        /// The player's id that was merged into `keep`, to separate again.
        merge: ID,
    }
}

payload! {
    /// What `unmergePlayers` did, and the league it changed.
    UnmergePlayersPayload: league
}

command_input! {
    /// The input of `recordTournament`.
    RecordTournamentInput {
        /// The league's id, as created.
        league_id: ID,
        /// The tournament's outcome: venue, season, day, field, prize pool and finishes.
        outcome: OutcomeInput,
    }
}

payload! {
    /// What `recordTournament` did, and the league it changed.
    RecordTournamentPayload: league
}

command_input! {
    /// The input of `amendTournament`.
    AmendTournamentInput {
        /// The league's id, as created.
        league_id: ID,
        /// The corrected outcome, whole: venue, season, day, field, prize pool and finishes.
        outcome: OutcomeInput,
        /// Why the result is corrected, as auditors and players will read it: 1 to 200 characters.
        reason: String,
    }
}

payload! {
    /// What `amendTournament` did, and the league it changed.
    AmendTournamentPayload: league
}

command_input! {
    /// The input of `recordTournamentResult`.
    RecordTournamentResultInput {
        /// The league's id, as created.
        league_id: ID,
        /// The tournament's id, as scheduled.
        tournament_id: ID,
        /// The season's id within the league.
        season: ID,
        /// The day of the season it counts for, from 1.
        day: u32,
    }
}

payload! {
    /// What `recordTournamentResult` did, and the league it changed.
    RecordTournamentResultPayload: league
}
