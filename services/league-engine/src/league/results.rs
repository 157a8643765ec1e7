//! Recorded tournament results: finishes, outcomes, and the checks an outcome passes.

use super::*;

/// The largest field a tournament may report (a guard: a shared place is scored place by
/// place).
pub const MAX_FIELD: u32 = 100_000;

/// One player's finish in a tournament.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Finish {
    pub player: PlayerId,
    /// 1 is the winner. Players sharing a place all report the top place they share.
    pub place: u32,
    /// How many players share this place (1 normally).
    #[serde(default = "one")]
    pub shared: u32,
    #[serde(default)]
    pub rebuys: u32,
    #[serde(default)]
    pub knockouts: u32,
    #[serde(default)]
    pub prize: Cents,
}

pub(super) fn one() -> u32 {
    1
}

impl Finish {
    /// A place of one's own, no re-buys, knock-outs or prize.
    pub fn new(player: &str, place: u32) -> Finish {
        Finish {
            player: PlayerId::from(player),
            place,
            shared: 1,
            rebuys: 0,
            knockouts: 0,
            prize: Cents::ZERO,
        }
    }
}

/// A finished tournament, as the league records it. Only the league's players are listed
/// in `finishes`; `field` counts everyone who entered.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TournamentOutcome {
    pub tournament: TournamentId,
    pub venue: VenueId,
    pub season: SeasonId,
    /// Days (or any increasing timestamp): the standings' "earliest" tie-break.
    pub day: u32,
    pub buyin: Cents,
    pub prizepool: Cents,
    pub field: u32,
    pub finishes: Vec<Finish>,
}

/// Checks an outcome against the league and scores it under every version of its season.
pub(super) fn check_outcome(
    state: &LeagueState,
    outcome: &TournamentOutcome,
) -> Result<Vec<VersionPoints>, LeagueError> {
    valid_id("the tournament id", &outcome.tournament)?;
    if !state.venues.contains_key(&outcome.venue) {
        return Err(LeagueError::UnknownVenue {
            venue: outcome.venue.to_string(),
        });
    }
    let season = state
        .seasons
        .get(&outcome.season)
        .ok_or_else(|| LeagueError::UnknownSeason {
            season: outcome.season.to_string(),
        })?;
    if season.closed {
        return Err(LeagueError::SeasonClosed {
            season: outcome.season.to_string(),
        });
    }
    let field = outcome.field;
    if !(2..=MAX_FIELD).contains(&field) {
        return Err(LeagueError::FieldOutOfRange {
            field,
            max: MAX_FIELD,
        });
    }
    let mut seen = BTreeSet::new();
    let mut places: BTreeMap<u32, (u32, u32)> = BTreeMap::new();
    let mut paid = Cents::ZERO;
    for finish in &outcome.finishes {
        known_player(state, &finish.player)?;
        if !seen.insert(state.surviving(&finish.player)) {
            return Err(LeagueError::PlayerTwice {
                player: finish.player.to_string(),
            });
        }
        let last = finish
            .place
            .checked_add(finish.shared)
            .and_then(|end| end.checked_sub(1));
        if finish.place == 0 || finish.shared == 0 || last.is_none_or(|last| last > field) {
            return Err(LeagueError::PlaceOutOfRange {
                player: finish.player.to_string(),
                place: finish.place,
                shared: finish.shared,
                field,
            });
        }
        // Players at one place agree on how many share it, and are no more than that.
        let (shared, count) = places.entry(finish.place).or_insert((finish.shared, 0));
        *count += 1;
        if *shared != finish.shared || *count > *shared {
            return Err(LeagueError::PlaceConflict {
                place: finish.place,
            });
        }
        paid = paid.saturating_add(finish.prize);
    }
    // A shared place covers the places below it: the next place reported must be past them.
    let mut next_free = 1u32;
    for (&place, &(shared, _)) in &places {
        if place < next_free {
            return Err(LeagueError::PlaceConflict { place });
        }
        next_free = place.saturating_add(shared);
    }
    if paid > outcome.prizepool {
        return Err(LeagueError::PrizesExceedPool {
            paid,
            prizepool: outcome.prizepool,
        });
    }
    let points = season
        .versions
        .iter()
        .map(|(&version, scoring)| {
            Ok(VersionPoints {
                version,
                points: score(scoring, version, outcome)?,
            })
        })
        .collect::<Result<Vec<_>, LeagueError>>()?;
    if let Some(season_score) = &season.score {
        tournament_scores(season_score, outcome, points.iter().map(|v| &v.points))?;
    }
    Ok(points)
}
