//! Players: checking one is known, and merging two (reversibly).

use super::*;

pub(super) fn known_player(state: &LeagueState, player: &str) -> Result<(), LeagueError> {
    if state.players.contains_key(player) {
        Ok(())
    } else {
        Err(LeagueError::UnknownPlayer {
            player: player.to_owned(),
        })
    }
}

pub(super) fn merge_players(
    state: &LeagueState,
    keep: &str,
    merge: &str,
) -> Result<Vec<Event>, LeagueError> {
    known_player(state, keep)?;
    known_player(state, merge)?;
    if keep == merge {
        return Err(LeagueError::SamePlayer {
            player: keep.to_owned(),
        });
    }
    for player in [merge, keep] {
        if let Some(into) = state.merged_into.get(player) {
            return Err(LeagueError::AlreadyMerged {
                player: player.to_owned(),
                into: into.to_string(),
            });
        }
    }
    // Both are surviving ids now; their groups must never have shared a tournament.
    for recorded in state.tournaments.values() {
        let finished = |id: &str| {
            recorded
                .outcome
                .finishes
                .iter()
                .any(|f| state.surviving(&f.player) == id)
        };
        if finished(keep) && finished(merge) {
            return Err(LeagueError::PlayedTogether {
                keep: keep.to_owned(),
                merge: merge.to_owned(),
                tournament: recorded.outcome.tournament.to_string(),
            });
        }
    }
    Ok(vec![Event::PlayersMerged {
        keep: PlayerId::from(keep),
        merge: PlayerId::from(merge),
    }])
}
