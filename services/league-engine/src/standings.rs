//! Season and venue standings: best-N results and a deterministic multi-key tie-break.
//!
//! A player's score is the sum of their best `best_n` results' points (all of them when
//! `best_n` is `None`). Players level on points are ordered by, in turn: more points, more
//! wins, more final tables, better best finish, earlier to reach their total (the date of
//! the last result that counts toward it), and last the player id, so two publications of
//! the same results are identical to the byte. The tie-break that separated each pair of
//! neighbours is published with the standings. A season with a score (see
//! [`crate::league::SeasonScore`]) puts it after points, or first, as [`ScoreOrder`] says.

use std::cmp::Ordering;
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::points::Centipoints;
use crate::units::PlayerId;

/// One player's result in one tournament.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TournamentResult {
    pub player: PlayerId,
    pub tournament: String,
    /// Days (or any increasing timestamp) of the tournament.
    pub day: u32,
    pub place: u32,
    pub points: Centipoints,
    pub final_table: bool,
}

/// How a season's overall score (see [`crate::league::SeasonScore`]) orders the standings.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum ScoreOrder {
    /// Points rank the standings; the score breaks a tie in points, before wins.
    #[default]
    BreaksTies,
    /// The score ranks the standings; points break a tie in score, then the rest.
    Ranks,
}

/// Which key separated a player from the one above.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum TieBreak {
    /// The season's overall score.
    Score,
    Points,
    Wins,
    FinalTables,
    BestFinish,
    Earliest,
    PlayerId,
}

/// One line of the standings.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Standing {
    pub rank: u32,
    pub player: PlayerId,
    pub points: Centipoints,
    pub counted: u32,
    pub played: u32,
    pub wins: u32,
    pub final_tables: u32,
    pub best_finish: u32,
    /// The day the counted total was reached.
    pub reached: u32,
    /// What put this player below the one above (`None` for the leader).
    pub separated_by: Option<TieBreak>,
    /// The season's overall score, when the season has one and it has a value here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score: Option<Centipoints>,
}

/// The standings from a list of results.
pub fn standings(results: &[TournamentResult], best_n: Option<usize>) -> Vec<Standing> {
    rank(lines(results, best_n), None)
}

/// Each player's line, not yet ranked (no scores).
pub fn lines(results: &[TournamentResult], best_n: Option<usize>) -> Vec<Standing> {
    let mut by_player: BTreeMap<&str, Vec<&TournamentResult>> = BTreeMap::new();
    for result in results {
        by_player.entry(&result.player).or_default().push(result);
    }
    by_player
        .into_iter()
        .map(|(player, mut played)| {
            // Best results first; equal points: the earlier one counts.
            played.sort_by(|a, b| b.points.cmp(&a.points).then(a.day.cmp(&b.day)));
            let counted: Vec<&&TournamentResult> =
                played.iter().take(best_n.unwrap_or(usize::MAX)).collect();
            let count = |f: &dyn Fn(&TournamentResult) -> bool| {
                u32::try_from(played.iter().filter(|r| f(r)).count()).unwrap_or(u32::MAX)
            };
            Standing {
                rank: 0,
                player: PlayerId::from(player),
                points: counted.iter().map(|r| r.points).sum(),
                counted: u32::try_from(counted.len()).unwrap_or(u32::MAX),
                played: u32::try_from(played.len()).unwrap_or(u32::MAX),
                wins: count(&|r| r.place == 1),
                final_tables: count(&|r| r.final_table),
                best_finish: played.iter().map(|r| r.place).min().unwrap_or(u32::MAX),
                reached: counted.iter().map(|r| r.day).max().unwrap_or(0),
                separated_by: None,
                score: None,
            }
        })
        .collect()
}

/// Ranks lines: by points and the tie-breaks, with the season's score where `score` says
/// (`None`: the season has no score). A line without a score ranks below one with one.
pub fn rank(mut lines: Vec<Standing>, score: Option<ScoreOrder>) -> Vec<Standing> {
    lines.sort_by(|a, b| compare(a, b, score).0);
    for i in 0..lines.len() {
        lines[i].rank = u32::try_from(i + 1).unwrap_or(u32::MAX);
        if i > 0 {
            lines[i].separated_by = Some(compare(&lines[i - 1], &lines[i], score).1);
        }
    }
    lines
}

/// The order of two lines and the key that decides it.
fn compare(a: &Standing, b: &Standing, score: Option<ScoreOrder>) -> (Ordering, TieBreak) {
    // `None` sorts below `Some`, so the larger score (or any score) comes first.
    let by_score = (b.score.cmp(&a.score), TieBreak::Score);
    let by_points = (b.points.cmp(&a.points), TieBreak::Points);
    let (first, second) = match score {
        None => ((Ordering::Equal, TieBreak::Score), by_points),
        Some(ScoreOrder::BreaksTies) => (by_points, by_score),
        Some(ScoreOrder::Ranks) => (by_score, by_points),
    };
    let keys = [
        first,
        second,
        (b.wins.cmp(&a.wins), TieBreak::Wins),
        (b.final_tables.cmp(&a.final_tables), TieBreak::FinalTables),
        (a.best_finish.cmp(&b.best_finish), TieBreak::BestFinish),
        (a.reached.cmp(&b.reached), TieBreak::Earliest),
        (a.player.cmp(&b.player), TieBreak::PlayerId),
    ];
    keys.into_iter()
        .find(|(order, _)| order.is_ne())
        .unwrap_or((Ordering::Equal, TieBreak::PlayerId))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(player: &str, day: u32, place: u32, points: Centipoints) -> TournamentResult {
        TournamentResult {
            player: player.into(),
            tournament: format!("t{day}"),
            day,
            place,
            points,
            final_table: place <= 9,
        }
    }

    #[test]
    fn best_n_results_count_and_ties_are_broken_in_order() {
        let results = [
            result("ann", 1, 1, Centipoints::new(3_600)),
            result("ann", 2, 20, Centipoints::new(100)),
            result("ann", 3, 5, Centipoints::new(1_100)),
            result("bob", 1, 2, Centipoints::new(2_300)),
            result("bob", 2, 3, Centipoints::new(1_700)),
            result("bob", 3, 30, Centipoints::ZERO),
            result("cat", 2, 1, Centipoints::new(3_600)),
            result("cat", 3, 12, Centipoints::new(1_100)),
        ];
        let table = standings(&results, Some(2));
        let order: Vec<(&str, i64)> = table
            .iter()
            .map(|s| (s.player.as_str(), s.points.get()))
            .collect();
        // ann: 3600 + 1100 (her 20th place does not count); cat 3600 + 1100; bob 4000.
        assert_eq!(order, [("ann", 4_700), ("cat", 4_700), ("bob", 4_000)]);
        // Ann and Cat are level on points and wins (one each) and final tables (ann has
        // two: 1st and 5th; cat one): final tables decide.
        assert_eq!(table[1].separated_by, Some(TieBreak::FinalTables));
        assert_eq!(table[2].separated_by, Some(TieBreak::Points));
        assert_eq!(table[0].counted, 2);
        assert_eq!(table[0].played, 3);
    }

    #[test]
    fn level_on_everything_else_the_earlier_total_wins_then_the_id() {
        let results = [
            result("zed", 1, 3, Centipoints::new(1_000)),
            result("amy", 2, 3, Centipoints::new(1_000)),
        ];
        let table = standings(&results, None);
        assert_eq!(table[0].player, "zed");
        assert_eq!(table[1].separated_by, Some(TieBreak::Earliest));
        let same_day = [
            result("zed", 1, 3, Centipoints::new(1_000)),
            result("amy", 1, 3, Centipoints::new(1_000)),
        ];
        let table = standings(&same_day, None);
        assert_eq!(table[0].player, "amy");
        assert_eq!(table[1].separated_by, Some(TieBreak::PlayerId));
    }

    #[test]
    fn the_same_results_in_any_order_publish_the_same_standings() {
        let mut results = vec![
            result("ann", 1, 1, Centipoints::new(3_600)),
            result("bob", 1, 2, Centipoints::new(2_300)),
            result("cat", 2, 1, Centipoints::new(3_600)),
            result("bob", 2, 4, Centipoints::new(1_300)),
        ];
        let first = standings(&results, Some(1));
        results.reverse();
        assert_eq!(standings(&results, Some(1)), first);
    }
}
