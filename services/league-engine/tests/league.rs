//! The league aggregate, given / when / then: points by formula and table (the golden
//! vectors), formulas refused when set, re-scoring with old versions still queryable,
//! venue and region standings, merges and their reversal, every refusal typed and
//! eventless, the events' JSON fixture, and a property over random seasons: the standings
//! are a recomputation from the recorded results, and replaying the events gives the same
//! state.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "integration tests: a panic is the failure report"
)]

use std::collections::BTreeMap;
use std::sync::OnceLock;

use league_engine::league::{
    Command, Event, Finish, LeagueError, LeagueState, Movement, Scope, ScoringRule,
    TournamentOutcome, apply, decide, execute, rescore_diff,
};
use league_engine::points::{self, Centipoints, Formula, FormulaError, Inputs};
use league_engine::standings::{self, TournamentResult};
use league_engine::units::{Cents, PlayerId};
use proptest::prelude::*;

const SEASON: &str = "2026";
const SQRT: &str = "round(10 * sqrt(n) / sqrt(r)) - 9";
const APL: [i64; 5] = [12_500, 10_000, 7_500, 5_000, 4_000];

fn table(points: &[i64]) -> ScoringRule {
    ScoringRule::Table {
        points: points.iter().copied().map(Centipoints::new).collect(),
    }
}

fn formula(text: &str) -> ScoringRule {
    ScoringRule::Formula { text: text.into() }
}

fn run(state: &mut LeagueState, commands: &[Command]) -> Vec<Event> {
    let mut events = Vec::new();
    for command in commands {
        execute(state, command, &mut events)
            .unwrap_or_else(|e| panic!("{command:?} was refused: {e}"));
    }
    events
}

/// A league with three venues in two regions, five players and a season scored by the
/// APL table, every result counting.
fn given_a_league(scoring: ScoringRule, best_n: Option<u32>) -> LeagueState {
    let mut state = LeagueState::new();
    let mut commands = vec![
        Command::CreateLeague {
            name: "Pub Poker League".into(),
            final_table: None,
            code: None,
        },
        Command::AddVenue {
            venue: "red-lion".into(),
            region: "north".into(),
            code: None,
        },
        Command::AddVenue {
            venue: "crown".into(),
            region: "north".into(),
            code: None,
        },
        Command::AddVenue {
            venue: "anchor".into(),
            region: "south".into(),
            code: None,
        },
        Command::AddSeason {
            season: SEASON.into(),
            best_n,
            scoring,
        },
    ];
    for (i, player) in ["ann", "bob", "cat", "dan", "eve"].iter().enumerate() {
        commands.push(Command::RegisterPlayer {
            player: (*player).into(),
            name: player.to_uppercase(),
            membership: format!("M{:03}", i + 1),
        });
    }
    run(&mut state, &commands);
    state
}

fn outcome(
    tournament: &str,
    venue: &str,
    day: u32,
    field: u32,
    finishes: &[(&str, u32)],
) -> TournamentOutcome {
    TournamentOutcome {
        tournament: tournament.into(),
        venue: venue.into(),
        season: SEASON.into(),
        day,
        buyin: Cents::new(2_000),
        prizepool: Cents::new(u64::from(field) * 2_000),
        field,
        finishes: finishes
            .iter()
            .map(|(player, place)| Finish::new(player, *place))
            .collect(),
    }
}

fn record(outcome: TournamentOutcome) -> Command {
    Command::RecordTournament { outcome }
}

/// `(player, points)` in standing order.
fn table_of(state: &LeagueState, version: Option<u32>, scope: Scope<'_>) -> Vec<(String, i64)> {
    state
        .standings(SEASON, version, scope)
        .unwrap()
        .into_iter()
        .map(|s| (s.player.into_string(), s.points.get()))
        .collect()
}

fn pairs(expected: &[(&str, i64)]) -> Vec<(String, i64)> {
    expected.iter().map(|(p, c)| ((*p).into(), *c)).collect()
}

/// The command is refused with `expected`, `decide` says no events, and `execute` leaves
/// the state and the event list as they were.
fn assert_refused(state: &LeagueState, command: &Command, expected: &LeagueError) {
    assert_eq!(
        decide(state, command).as_ref(),
        Err(expected),
        "{command:?}"
    );
    let mut after = state.clone();
    let mut events = Vec::new();
    assert_eq!(
        execute(&mut after, command, &mut events).as_ref(),
        Err(expected)
    );
    assert!(events.is_empty());
    assert_eq!(&after, state);
}

// Golden vectors.

#[test]
fn the_square_root_formula_scores_36_23_17_13_11_and_1_for_twenty_players() {
    let mut state = given_a_league(formula(SQRT), None);
    let places = [("ann", 1), ("bob", 2), ("cat", 3), ("dan", 4), ("eve", 5)];
    run(
        &mut state,
        &[record(outcome("t1", "crown", 1, 20, &places))],
    );
    run(
        &mut state,
        &[Command::RegisterPlayer {
            player: "fay".into(),
            name: "Fay".into(),
            membership: "M006".into(),
        }],
    );
    run(
        &mut state,
        &[record(outcome("t2", "crown", 2, 20, &[("fay", 20)]))],
    );

    assert_eq!(
        state.tournament_points("t1", 1).unwrap(),
        [3_600, 2_300, 1_700, 1_300, 1_100]
    );
    assert_eq!(state.tournament_points("t2", 1).unwrap(), [100]);
}

#[test]
fn n_minus_r_plus_one_and_the_apl_table_score_their_golden_vectors() {
    let mut state = given_a_league(formula("n - r + 1"), None);
    let places = [("ann", 1), ("bob", 2), ("cat", 3), ("dan", 4), ("eve", 6)];
    run(
        &mut state,
        &[record(outcome("t1", "crown", 1, 30, &places))],
    );
    run(
        &mut state,
        &[Command::SetFormula {
            season: SEASON.into(),
            scoring: table(&APL),
        }],
    );

    assert_eq!(
        state.tournament_points("t1", 1).unwrap(),
        [3_000, 2_900, 2_800, 2_700, 2_500]
    );
    // APL: 125, 100, 75, 50, 40 and 0 beyond the table.
    assert_eq!(
        state.tournament_points("t1", 2).unwrap(),
        [12_500, 10_000, 7_500, 5_000, 0]
    );
}

#[test]
fn money_reaches_formulas_in_whole_currency_units_rounded_down() {
    let mut state = given_a_league(formula("buyin + prizepool / 100"), None);
    let mut t1 = outcome("t1", "crown", 1, 10, &[("ann", 1)]);
    t1.buyin = Cents::new(1_299); // 12.99 -> 12
    t1.prizepool = Cents::new(12_990); // 129.90 -> 129
    run(&mut state, &[record(t1)]);

    assert_eq!(state.tournament_points("t1", 1).unwrap(), [1_200 + 129]);
}

#[test]
fn a_shared_place_scores_the_mean_of_the_places_it_covers_and_counts_as_that_place() {
    let mut state = given_a_league(table(&APL), None);
    let mut t1 = outcome("t1", "crown", 1, 10, &[("ann", 1), ("bob", 2), ("cat", 2)]);
    t1.finishes[1].shared = 2;
    t1.finishes[2].shared = 2;
    run(&mut state, &[record(t1)]);

    // 2nd and 3rd shared: (100 + 75) / 2 = 87.5 each.
    assert_eq!(
        state.tournament_points("t1", 1).unwrap(),
        [12_500, 8_750, 8_750]
    );
    let standings = state.standings(SEASON, None, Scope::Season).unwrap();
    assert_eq!(standings[1].best_finish, 2);
    assert_eq!(standings[2].best_finish, 2);
}

// Formulas refused when set.

#[test]
fn a_formula_that_divides_by_zero_is_refused_when_set_with_no_event() {
    let state = given_a_league(table(&APL), None);
    let command = Command::SetFormula {
        season: SEASON.into(),
        scoring: formula("10 / (n - r)"),
    };

    let refused = decide(&state, &command).unwrap_err();

    let LeagueError::InvalidFormula { season, error } = &refused else {
        panic!("{refused:?}");
    };
    assert_eq!(season, SEASON);
    assert!(
        matches!(error, FormulaError::NotANumber { why, .. } if why == "division by zero"),
        "{error:?}"
    );
    assert_refused(&state, &command, &refused);
    assert_eq!(state.season(SEASON).unwrap().version(), 1);
}

#[test]
fn a_formula_naming_an_unknown_variable_is_refused_when_set_with_no_event() {
    let state = given_a_league(table(&APL), None);

    assert_refused(
        &state,
        &Command::SetFormula {
            season: SEASON.into(),
            scoring: formula("n - ranking + 1"),
        },
        &LeagueError::InvalidFormula {
            season: SEASON.into(),
            error: FormulaError::UnknownVariable("ranking".into()),
        },
    );
    assert_refused(
        &state,
        &Command::AddSeason {
            season: "2027".into(),
            best_n: None,
            scoring: formula("n - ranking + 1"),
        },
        &LeagueError::InvalidFormula {
            season: "2027".into(),
            error: FormulaError::UnknownVariable("ranking".into()),
        },
    );
}

#[test]
fn a_formula_that_cannot_score_a_recorded_result_is_refused() {
    // `prizepool / buyin` passes the formula's own check (a 20 buy-in) but not a freeroll.
    let mut state = given_a_league(table(&APL), None);
    let mut freeroll = outcome("t1", "crown", 1, 10, &[("ann", 1)]);
    freeroll.buyin = Cents::new(0);
    freeroll.prizepool = Cents::new(0);
    run(&mut state, &[record(freeroll.clone())]);

    let refused = decide(
        &state,
        &Command::SetFormula {
            season: SEASON.into(),
            scoring: formula("prizepool / buyin"),
        },
    )
    .unwrap_err();

    assert!(
        matches!(&refused, LeagueError::CannotScore { tournament, version: 2, .. } if tournament == "t1"),
        "{refused:?}"
    );
    // And the other way round: with the formula set, a freeroll cannot be recorded.
    let mut state = given_a_league(formula("prizepool / buyin"), None);
    freeroll.tournament = "t2".into();
    assert!(matches!(
        decide(&state, &record(freeroll)),
        Err(LeagueError::CannotScore { version: 1, .. })
    ));
    run(
        &mut state,
        &[record(outcome("t3", "crown", 1, 10, &[("ann", 1)]))],
    );
    assert_eq!(state.tournament_points("t3", 1).unwrap(), [1_000]);
}

// Re-scoring.

/// Two tournaments of 20: v1 is the APL table.
fn given_two_tournaments() -> LeagueState {
    let mut state = given_a_league(table(&APL), None);
    run(
        &mut state,
        &[
            record(outcome(
                "t1",
                "red-lion",
                1,
                20,
                &[("ann", 1), ("bob", 2), ("cat", 3), ("dan", 12)],
            )),
            record(outcome(
                "t2",
                "anchor",
                2,
                20,
                &[("bob", 1), ("dan", 2), ("cat", 5)],
            )),
        ],
    );
    state
}

#[test]
fn a_closed_season_is_final_and_its_results_leave_the_league() {
    let mut state = given_two_tournaments();
    run(
        &mut state,
        &[Command::AddSeason {
            season: "2027".into(),
            best_n: None,
            scoring: table(&APL),
        }],
    );
    let standings = table_of(&state, None, Scope::Season);
    let archive = state.season_archive(SEASON).unwrap();
    let events = run(
        &mut state,
        &[Command::CloseSeason {
            season: SEASON.into(),
        }],
    );
    assert_eq!(
        events,
        [Event::SeasonClosed {
            season: SEASON.into()
        }]
    );
    assert!(state.season(SEASON).unwrap().closed);
    // The league no longer holds the results; the archive taken as it closed does.
    assert_eq!(state.tournaments().count(), 0);
    assert_eq!(table_of(&archive, None, Scope::Season), standings);
    assert_eq!(
        standings,
        pairs(&[
            ("bob", 22_500),
            ("ann", 12_500),
            ("cat", 11_500),
            ("dan", 10_000)
        ])
    );
    assert_eq!(state.closed_season_of("t1"), Some(&SEASON.into()));
    // Each player's totals are kept: bob played twice and won once.
    let bob = state.closed_totals("bob");
    assert_eq!((bob.played, bob.wins), (2, 1));
    assert_eq!(state.closed_totals("eve").played, 0);

    // Nothing of the closed season changes any more, and a closed tournament's id is not
    // recorded again in another season.
    let closed = LeagueError::SeasonClosed {
        season: SEASON.into(),
    };
    let late = outcome("t3", "crown", 3, 10, &[("eve", 1), ("ann", 2)]);
    assert_refused(&state, &record(late.clone()), &closed);
    let amended = outcome("t1", "red-lion", 1, 20, &[("bob", 1), ("ann", 2)]);
    assert_refused(
        &state,
        &Command::AmendTournament {
            outcome: amended,
            reason: "swapped".into(),
        },
        &closed,
    );
    assert_refused(
        &state,
        &Command::SetFormula {
            season: SEASON.into(),
            scoring: formula("n - r + 1"),
        },
        &closed,
    );
    assert_refused(
        &state,
        &Command::SetSeasonScore {
            season: SEASON.into(),
            score: None,
        },
        &closed,
    );
    assert_refused(
        &state,
        &Command::CloseSeason {
            season: SEASON.into(),
        },
        &closed,
    );
    assert_refused(
        &state,
        &Command::CloseSeason {
            season: "1999".into(),
        },
        &LeagueError::UnknownSeason {
            season: "1999".into(),
        },
    );
    let mut again = outcome("t1", "red-lion", 9, 20, &[("bob", 1), ("ann", 2)]);
    again.season = "2027".into();
    assert_refused(
        &state,
        &record(again),
        &LeagueError::AlreadyRecorded {
            tournament: "t1".into(),
        },
    );
    // The open season goes on.
    let mut next = late;
    next.season = "2027".into();
    run(&mut state, &[record(next)]);
    assert_eq!(state.tournaments().count(), 1);
}

#[test]
fn changing_the_formula_rescores_the_season_and_the_old_standings_stay_queryable() {
    let mut state = given_two_tournaments();
    let before = state.standings(SEASON, None, Scope::Season).unwrap();
    assert_eq!(
        table_of(&state, None, Scope::Season),
        pairs(&[
            ("bob", 22_500),
            ("ann", 12_500),
            ("cat", 11_500),
            ("dan", 10_000)
        ])
    );

    let events = run(
        &mut state,
        &[Command::SetFormula {
            season: SEASON.into(),
            scoring: formula("n - r + 1"),
        }],
    );

    assert!(matches!(
        events.as_slice(),
        [Event::FormulaSet { version: 2, rescored, .. }] if rescored.len() == 2
    ));
    assert_eq!(
        table_of(&state, None, Scope::Season),
        pairs(&[
            ("bob", 3_900),
            ("cat", 3_400),
            ("dan", 2_800),
            ("ann", 2_000)
        ])
    );
    assert_eq!(
        table_of(&state, Some(2), Scope::Season),
        table_of(&state, None, Scope::Season)
    );
    assert_eq!(
        state.standings(SEASON, Some(1), Scope::Season).unwrap(),
        before
    );
}

#[test]
fn rescore_diff_lists_only_the_players_whose_rank_or_points_moved() {
    let mut state = given_two_tournaments();
    run(
        &mut state,
        &[
            Command::SetFormula {
                season: SEASON.into(),
                scoring: formula("n - r + 1"),
            },
            // v3: the APL table with 5th worth 50 instead of 40.
            Command::SetFormula {
                season: SEASON.into(),
                scoring: table(&[12_500, 10_000, 7_500, 5_000, 5_000]),
            },
        ],
    );

    let to_v2 = rescore_diff(&state, SEASON, 1, 2, Scope::Season).unwrap();
    let to_v3 = rescore_diff(&state, SEASON, 1, 3, Scope::Season).unwrap();

    let movement = |player: &str, from_rank, to_rank, from_points, to_points| Movement {
        player: player.into(),
        from_rank,
        to_rank,
        from_points: Centipoints::new(from_points),
        to_points: Centipoints::new(to_points),
    };
    assert_eq!(
        to_v2,
        [
            movement("bob", 1, 1, 22_500, 3_900),
            movement("cat", 3, 2, 11_500, 3_400),
            movement("dan", 4, 3, 10_000, 2_800),
            movement("ann", 2, 4, 12_500, 2_000),
        ]
    );
    // Cat draws level with Ann on 125; Ann's win keeps her above: only Cat's points move.
    assert_eq!(to_v3, [movement("cat", 3, 3, 11_500, 12_500)]);
    assert_eq!(
        rescore_diff(&state, SEASON, 3, 3, Scope::Season).unwrap(),
        []
    );
    assert_eq!(
        rescore_diff(&state, SEASON, 1, 4, Scope::Season),
        Err(LeagueError::UnknownVersion {
            season: SEASON.into(),
            version: 4
        })
    );
}

#[test]
fn every_version_scores_results_recorded_after_it_was_replaced() {
    let mut state = given_two_tournaments();
    run(
        &mut state,
        &[
            Command::SetFormula {
                season: SEASON.into(),
                scoring: formula("n - r + 1"),
            },
            record(outcome("t3", "crown", 3, 10, &[("eve", 1)])),
        ],
    );

    assert_eq!(state.tournament_points("t3", 1).unwrap(), [12_500]);
    assert_eq!(state.tournament_points("t3", 2).unwrap(), [1_000]);
    assert_eq!(
        table_of(&state, Some(1), Scope::Season)[0],
        ("bob".into(), 22_500)
    );
    assert!(table_of(&state, Some(1), Scope::Season).contains(&("eve".into(), 12_500)));
}

#[test]
fn amending_a_result_rescores_it_under_every_version() {
    let mut state = given_two_tournaments();
    run(
        &mut state,
        &[Command::SetFormula {
            season: SEASON.into(),
            scoring: formula("n - r + 1"),
        }],
    );

    // t2's 2nd and 5th were swapped on the sheet.
    run(
        &mut state,
        &[Command::AmendTournament {
            outcome: outcome("t2", "anchor", 2, 20, &[("bob", 1), ("dan", 5), ("cat", 2)]),
            reason: "places entered wrongly".into(),
        }],
    );

    assert_eq!(
        state.tournament_points("t2", 1).unwrap(),
        [12_500, 4_000, 10_000]
    );
    assert_eq!(
        state.tournament_points("t2", 2).unwrap(),
        [2_000, 1_600, 1_900]
    );
    assert_eq!(
        table_of(&state, Some(1), Scope::Season),
        pairs(&[
            ("bob", 22_500),
            ("cat", 17_500),
            ("ann", 12_500),
            ("dan", 4_000)
        ])
    );
}

// Venue, region and best-N.

#[test]
fn venue_and_region_standings_count_only_their_results() {
    let mut state = given_two_tournaments();
    run(
        &mut state,
        &[record(outcome(
            "t3",
            "crown",
            3,
            10,
            &[("eve", 1), ("ann", 2)],
        ))],
    );

    assert_eq!(
        table_of(&state, None, Scope::Venue("anchor")),
        pairs(&[("bob", 12_500), ("dan", 10_000), ("cat", 4_000)])
    );
    // North: the Red Lion (t1) and the Crown (t3).
    assert_eq!(
        table_of(&state, None, Scope::Region("north")),
        pairs(&[
            ("ann", 22_500),
            ("eve", 12_500),
            ("bob", 10_000),
            ("cat", 7_500),
            ("dan", 0)
        ])
    );
    assert_eq!(
        state.standings(SEASON, None, Scope::Venue("nowhere")),
        Err(LeagueError::UnknownVenue {
            venue: "nowhere".into()
        })
    );
    assert_eq!(
        state.standings(SEASON, None, Scope::Region("west")),
        Err(LeagueError::UnknownRegion {
            region: "west".into()
        })
    );
    assert_eq!(
        state.standings("1999", None, Scope::Season),
        Err(LeagueError::UnknownSeason {
            season: "1999".into()
        })
    );
}

#[test]
fn only_the_best_n_results_count_and_ties_break_as_published() {
    let mut state = given_a_league(table(&APL), Some(2));
    run(
        &mut state,
        &[
            record(outcome("t1", "crown", 1, 20, &[("ann", 1), ("bob", 2)])),
            record(outcome("t2", "crown", 2, 20, &[("ann", 5), ("bob", 1)])),
            record(outcome("t3", "crown", 3, 20, &[("ann", 2), ("bob", 5)])),
        ],
    );

    let standings = state.standings(SEASON, None, Scope::Season).unwrap();

    // Both count 125 + 100 of their three; both have one win and three final tables and a
    // best finish of 1st; Bob reached his total on day 2, Ann on day 3.
    assert_eq!(
        table_of(&state, None, Scope::Season),
        pairs(&[("bob", 22_500), ("ann", 22_500)])
    );
    assert_eq!(standings[0].counted, 2);
    assert_eq!(standings[0].played, 3);
    assert_eq!(
        standings[1].separated_by,
        Some(standings::TieBreak::Earliest)
    );
}

// Merges.

#[test]
fn a_merge_counts_the_duplicates_results_for_the_survivor_and_unmerging_restores_them() {
    let mut state = given_two_tournaments();
    run(
        &mut state,
        &[record(outcome(
            "t3",
            "crown",
            3,
            10,
            &[("eve", 1), ("bob", 4)],
        ))],
    );
    let before = state.standings(SEASON, None, Scope::Season).unwrap();
    let venue_before = state
        .standings(SEASON, None, Scope::Venue("crown"))
        .unwrap();

    run(
        &mut state,
        &[Command::MergePlayers {
            keep: "ann".into(),
            merge: "eve".into(),
        }],
    );

    assert_eq!(state.surviving("eve"), "ann");
    assert_eq!(
        table_of(&state, None, Scope::Season),
        pairs(&[
            ("bob", 27_500),
            ("ann", 25_000),
            ("cat", 11_500),
            ("dan", 10_000)
        ])
    );
    assert_eq!(
        table_of(&state, None, Scope::Venue("crown")),
        pairs(&[("ann", 12_500), ("bob", 5_000)])
    );

    run(
        &mut state,
        &[Command::UnmergePlayers {
            keep: "ann".into(),
            merge: "eve".into(),
        }],
    );

    assert_eq!(state.surviving("eve"), "eve");
    assert_eq!(
        state.standings(SEASON, None, Scope::Season).unwrap(),
        before
    );
    assert_eq!(
        state
            .standings(SEASON, None, Scope::Venue("crown"))
            .unwrap(),
        venue_before
    );
}

#[test]
fn merges_chain_and_are_undone_one_at_a_time() {
    let mut state = given_a_league(table(&APL), None);
    run(
        &mut state,
        &[
            record(outcome("t1", "crown", 1, 10, &[("ann", 1)])),
            record(outcome("t2", "crown", 2, 10, &[("bob", 2)])),
            record(outcome("t3", "crown", 3, 10, &[("cat", 3)])),
            Command::MergePlayers {
                keep: "bob".into(),
                merge: "ann".into(),
            },
            Command::MergePlayers {
                keep: "cat".into(),
                merge: "bob".into(),
            },
        ],
    );
    assert_eq!(state.surviving("ann"), "cat");
    assert_eq!(
        table_of(&state, None, Scope::Season),
        pairs(&[("cat", 30_000)])
    );

    run(
        &mut state,
        &[Command::UnmergePlayers {
            keep: "cat".into(),
            merge: "bob".into(),
        }],
    );

    assert_eq!(
        table_of(&state, None, Scope::Season),
        pairs(&[("bob", 22_500), ("cat", 7_500)])
    );
}

#[test]
fn a_merged_id_cannot_finish_alongside_its_survivor() {
    let mut state = given_a_league(table(&APL), None);
    run(
        &mut state,
        &[Command::MergePlayers {
            keep: "ann".into(),
            merge: "eve".into(),
        }],
    );

    assert_refused(
        &state,
        &record(outcome("t1", "crown", 1, 10, &[("ann", 1), ("eve", 2)])),
        &LeagueError::PlayerTwice {
            player: "eve".into(),
        },
    );
    // Recorded under the duplicate id alone, the result counts for the survivor.
    run(
        &mut state,
        &[record(outcome("t1", "crown", 1, 10, &[("eve", 2)]))],
    );
    assert_eq!(
        table_of(&state, None, Scope::Season),
        pairs(&[("ann", 10_000)])
    );
}

// Refusals.

#[test]
fn each_refusal_is_a_typed_error_and_decides_no_events() {
    let mut state = given_two_tournaments();
    run(
        &mut state,
        &[Command::MergePlayers {
            keep: "ann".into(),
            merge: "eve".into(),
        }],
    );
    let t = |finishes: &[(&str, u32)]| outcome("t9", "crown", 9, 10, finishes);
    let shared = |place, shared| Finish {
        shared,
        ..Finish::new("bob", place)
    };
    let with = |finishes: Vec<Finish>| record(TournamentOutcome { finishes, ..t(&[]) });
    let mut rich = t(&[("bob", 1)]);
    rich.finishes[0].prize = rich.prizepool + Cents::new(1);
    let mut elsewhere = t(&[("bob", 1)]);
    elsewhere.venue = "nowhere".into();
    let mut other_season = t(&[("bob", 1)]);
    other_season.season = "1999".into();
    let mut huge = t(&[("bob", 1)]);
    huge.field = 100_001;
    let s = |v: &str| v.to_owned();

    let cases: Vec<(Command, LeagueError)> = vec![
        (
            Command::CreateLeague {
                name: s("again"),
                final_table: None,
                code: None,
            },
            LeagueError::LeagueExists,
        ),
        (
            Command::AddVenue {
                venue: s("crown").into(),
                region: s("north"),
                code: None,
            },
            LeagueError::VenueExists { venue: s("crown") },
        ),
        (
            Command::AddVenue {
                venue: s(" ").into(),
                region: s("north"),
                code: None,
            },
            LeagueError::BadId {
                what: s("the venue"),
            },
        ),
        (
            Command::AddVenue {
                venue: s("the crown").into(),
                region: s("north"),
                code: None,
            },
            LeagueError::BadId {
                what: s("the venue"),
            },
        ),
        (
            Command::AddVenue {
                venue: s("anchor").into(),
                region: s("north\u{0}"),
                code: None,
            },
            LeagueError::BadText {
                what: s("the region"),
            },
        ),
        (
            Command::AddSeason {
                season: s(SEASON).into(),
                best_n: None,
                scoring: table(&APL),
            },
            LeagueError::SeasonExists { season: s(SEASON) },
        ),
        (
            Command::AddSeason {
                season: s("2027").into(),
                best_n: Some(0),
                scoring: table(&APL),
            },
            LeagueError::BestNZero { season: s("2027") },
        ),
        (
            Command::AddSeason {
                season: s("2027").into(),
                best_n: None,
                scoring: table(&[]),
            },
            LeagueError::EmptyTable { season: s("2027") },
        ),
        (
            Command::SetFormula {
                season: s("1999").into(),
                scoring: table(&APL),
            },
            LeagueError::UnknownSeason { season: s("1999") },
        ),
        (
            Command::RegisterPlayer {
                player: PlayerId::from(s("ann")),
                name: s("Ann"),
                membership: s("M999"),
            },
            LeagueError::PlayerExists { player: s("ann") },
        ),
        (
            Command::RegisterPlayer {
                player: PlayerId::from(s("fay")),
                name: s("Fay"),
                membership: s("M002"),
            },
            LeagueError::MembershipTaken {
                membership: s("M002"),
                player: s("bob"),
            },
        ),
        (
            Command::RenamePlayer {
                player: PlayerId::from(s("zed")),
                name: s("Zed"),
            },
            LeagueError::UnknownPlayer { player: s("zed") },
        ),
        (
            Command::MergePlayers {
                keep: PlayerId::from(s("bob")),
                merge: PlayerId::from(s("bob")),
            },
            LeagueError::SamePlayer { player: s("bob") },
        ),
        (
            Command::MergePlayers {
                keep: PlayerId::from(s("bob")),
                merge: PlayerId::from(s("eve")),
            },
            LeagueError::AlreadyMerged {
                player: s("eve"),
                into: s("ann"),
            },
        ),
        (
            Command::MergePlayers {
                keep: PlayerId::from(s("bob")),
                merge: PlayerId::from(s("cat")),
            },
            LeagueError::PlayedTogether {
                keep: s("bob"),
                merge: s("cat"),
                tournament: s("t1"),
            },
        ),
        (
            Command::UnmergePlayers {
                keep: PlayerId::from(s("bob")),
                merge: PlayerId::from(s("eve")),
            },
            LeagueError::NotMerged {
                keep: s("bob"),
                merge: s("eve"),
            },
        ),
        (
            record(outcome("t1", "crown", 9, 10, &[("bob", 1)])),
            LeagueError::AlreadyRecorded {
                tournament: s("t1"),
            },
        ),
        (
            Command::AmendTournament {
                outcome: t(&[("bob", 1)]),
                reason: "a correction".into(),
            },
            LeagueError::UnknownTournament {
                tournament: s("t9"),
            },
        ),
        (
            Command::AmendTournament {
                outcome: outcome("t1", "crown", 1, 10, &[("bob", 1)]),
                reason: s(" \t"),
            },
            LeagueError::BadText { what: s("reason") },
        ),
        (
            record(elsewhere),
            LeagueError::UnknownVenue {
                venue: s("nowhere"),
            },
        ),
        (
            record(other_season),
            LeagueError::UnknownSeason { season: s("1999") },
        ),
        (
            record(t(&[("zed", 1)])),
            LeagueError::UnknownPlayer { player: s("zed") },
        ),
        (
            record(huge),
            LeagueError::FieldOutOfRange {
                field: 100_001,
                max: 100_000,
            },
        ),
        (
            record(t(&[("bob", 0)])),
            LeagueError::PlaceOutOfRange {
                player: s("bob"),
                place: 0,
                shared: 1,
                field: 10,
            },
        ),
        (
            record(t(&[("bob", 11)])),
            LeagueError::PlaceOutOfRange {
                player: s("bob"),
                place: 11,
                shared: 1,
                field: 10,
            },
        ),
        (
            with(vec![shared(9, 3)]),
            LeagueError::PlaceOutOfRange {
                player: s("bob"),
                place: 9,
                shared: 3,
                field: 10,
            },
        ),
        (
            record(t(&[("bob", 1), ("cat", 1)])),
            LeagueError::PlaceConflict { place: 1 },
        ),
        (
            with(vec![shared(3, 2), Finish::new("cat", 4)]),
            LeagueError::PlaceConflict { place: 4 },
        ),
        (
            record(t(&[("bob", 1), ("bob", 2)])),
            LeagueError::PlayerTwice { player: s("bob") },
        ),
        (
            record(t(&[("ann", 1), ("eve", 2)])),
            LeagueError::PlayerTwice { player: s("eve") },
        ),
        (
            record(rich),
            LeagueError::PrizesExceedPool {
                paid: Cents::new(20_001),
                prizepool: Cents::new(20_000),
            },
        ),
    ];
    for (command, expected) in &cases {
        assert_refused(&state, command, expected);
    }

    // Before the league exists, nothing but its creation is accepted.
    let empty = LeagueState::new();
    assert_refused(
        &empty,
        &Command::AddVenue {
            venue: s("crown").into(),
            region: s("north"),
            code: None,
        },
        &LeagueError::NoLeague,
    );
    assert_refused(
        &empty,
        &Command::CreateLeague {
            name: s("L"),
            final_table: Some(0),
            code: None,
        },
        &LeagueError::EmptyFinalTable,
    );
}

// A venue's screens, and the leaderboard's movement.

#[test]
fn a_venue_sets_its_name_and_logo_for_its_screens() {
    let mut state = given_a_league(table(&APL), None);
    let png = "data:image/png;base64,iVBORw0KGgo=";
    let set = |venue: &str, logo: Option<&str>| Command::SetVenueDisplay {
        venue: venue.into(),
        name: "The Crown".into(),
        logo: logo.map(str::to_owned),
    };
    for (command, refused) in [
        (
            set("nowhere", None),
            LeagueError::UnknownVenue {
                venue: "nowhere".into(),
            },
        ),
        (
            set("crown", Some("https://example.com/a.png")),
            LeagueError::BadLogo,
        ),
        (
            set("crown", Some("data:image/gif;base64,R0lGOD==")),
            LeagueError::BadLogo,
        ),
        (
            set("crown", Some("data:image/png;base64,a b")),
            LeagueError::BadLogo,
        ),
        (
            set("crown", Some("data:image/png;base64,QQ===")),
            LeagueError::BadLogo,
        ),
        (
            set("crown", Some("data:image/png;base64,")),
            LeagueError::BadLogo,
        ),
        (
            set(
                "crown",
                Some(&format!("data:image/png;base64,{}", "A".repeat(65_536))),
            ),
            LeagueError::BadLogo,
        ),
        (
            Command::SetVenueDisplay {
                venue: "crown".into(),
                name: " ".into(),
                logo: None,
            },
            LeagueError::BadText {
                what: "the venue's name".into(),
            },
        ),
    ] {
        assert_eq!(decide(&state, &command), Err(refused), "{command:?}");
    }
    let events = run(&mut state, &[set("crown", Some(png))]);
    assert_eq!(
        events,
        [Event::VenueDisplaySet {
            venue: "crown".into(),
            name: "The Crown".into(),
            logo: Some(png.into()),
        }]
    );
    let display = state.venue("crown").unwrap().display.clone().unwrap();
    assert_eq!(
        (display.name.as_str(), display.logo.as_deref()),
        ("The Crown", Some(png))
    );
    // The same again records nothing; every image type is taken.
    assert_eq!(decide(&state, &set("crown", Some(png))), Ok(Vec::new()));
    for media in ["image/jpeg", "image/webp", "image/svg+xml"] {
        let logo = format!("data:{media};base64,PHN2Zz4=");
        assert_eq!(
            decide(&state, &set("crown", Some(&logo))).map(|e| e.len()),
            Ok(1)
        );
    }
    // Replayed, the events give the same venue.
    let mut replayed = given_a_league(table(&APL), None);
    for event in &events {
        apply(&mut replayed, event);
    }
    assert_eq!(replayed.venue("crown"), state.venue("crown"));
}

#[test]
fn the_standings_before_the_latest_tournament_are_those_without_it() {
    let mut state = given_a_league(table(&APL), Some(2));
    assert_eq!(
        state.standings_before_latest(SEASON, None, Scope::Season),
        Ok(None)
    );
    run(
        &mut state,
        &[
            record(outcome(
                "t1",
                "crown",
                1,
                10,
                &[("ann", 1), ("bob", 2), ("cat", 3)],
            )),
            record(outcome(
                "t2",
                "anchor",
                2,
                10,
                &[("cat", 1), ("bob", 2), ("dan", 3)],
            )),
            // Recorded last, played first: the latest is by day, not by recording.
            record(outcome("t0", "red-lion", 0, 10, &[("bob", 1), ("eve", 2)])),
        ],
    );
    let (latest, before) = state
        .standings_before_latest(SEASON, None, Scope::Season)
        .unwrap()
        .unwrap();
    assert_eq!(latest, "t2");
    let mut without = given_a_league(table(&APL), Some(2));
    run(
        &mut without,
        &[
            record(outcome(
                "t1",
                "crown",
                1,
                10,
                &[("ann", 1), ("bob", 2), ("cat", 3)],
            )),
            record(outcome("t0", "red-lion", 0, 10, &[("bob", 1), ("eve", 2)])),
        ],
    );
    assert_eq!(
        before,
        without.standings(SEASON, None, Scope::Season).unwrap()
    );
    // In the north the latest is t1.
    let (latest, before) = state
        .standings_before_latest(SEASON, None, Scope::Region("north"))
        .unwrap()
        .unwrap();
    assert_eq!(latest, "t1");
    assert_eq!(
        before.iter().map(|s| s.player.as_str()).collect::<Vec<_>>(),
        ["bob", "eve"]
    );
}

// The events are the persisted contract.

fn fixture_events() -> Vec<Event> {
    let mut state = LeagueState::new();
    let mut events = run(
        &mut state,
        &[
            Command::CreateLeague {
                name: "Pub Poker League".into(),
                final_table: Some(8),
                code: None,
            },
            Command::AddVenue {
                venue: "crown".into(),
                region: "north".into(),
                code: None,
            },
            Command::AddSeason {
                season: SEASON.into(),
                best_n: Some(10),
                scoring: table(&APL),
            },
            Command::RegisterPlayer {
                player: "ann".into(),
                name: "Ann".into(),
                membership: "M001".into(),
            },
            Command::RegisterPlayer {
                player: "bob".into(),
                name: "Bob".into(),
                membership: "M002".into(),
            },
            Command::RenamePlayer {
                player: "bob".into(),
                name: "Robert".into(),
            },
            record(outcome("t1", "crown", 1, 20, &[("ann", 1), ("bob", 2)])),
            Command::SetFormula {
                season: SEASON.into(),
                scoring: formula(SQRT),
            },
            Command::AmendTournament {
                outcome: outcome("t1", "crown", 1, 20, &[("ann", 2), ("bob", 1)]),
                reason: "winner entered second".into(),
            },
        ],
    );
    events.extend(run(
        &mut state,
        &[
            Command::RegisterPlayer {
                player: "eve".into(),
                name: "Eve".into(),
                membership: "M005".into(),
            },
            Command::MergePlayers {
                keep: "ann".into(),
                merge: "eve".into(),
            },
            Command::UnmergePlayers {
                keep: "ann".into(),
                merge: "eve".into(),
            },
            Command::CloseSeason {
                season: SEASON.into(),
            },
        ],
    ));
    events
}

#[test]
fn league_events_serialize_exactly_as_the_fixture() {
    let mut text = String::new();
    for event in fixture_events() {
        text.push_str(&serde_json::to_string(&event).unwrap());
        text.push('\n');
    }
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/league_events.jsonl"
    );
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(path, &text).unwrap();
    }
    let fixture = std::fs::read_to_string(path).unwrap();
    assert!(fixture == text, "event JSON changed; see {path}");

    let read: Vec<Event> = fixture
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(read, fixture_events());
}

#[test]
fn a_stored_formula_that_no_longer_passes_its_check_does_not_read_back() {
    let line = r#"{"type":"FormulaSet","season":"2026","version":2,"scoring":{"Formula":{"formula":"10 / (n - r)"}},"rescored":[]}"#;
    let refused = serde_json::from_str::<Event>(line).unwrap_err();
    assert!(
        refused.to_string().contains("division by zero"),
        "{refused}"
    );
}

// Properties over random seasons.

/// The scorings the property draws from, as the oracle computes them.
const SCORINGS: [&str; 5] = [
    "table:apl",
    SQRT,
    "n - r + 1",
    "if(r <= 10, 11 - r, 0) + nh * 0.5 + nr",
    "table:short",
];

fn rule(i: usize) -> ScoringRule {
    match SCORINGS[i] {
        "table:apl" => table(&APL),
        "table:short" => table(&[1_000, 500]),
        text => formula(text),
    }
}

/// [`SCORINGS`] compiled once: a formula's check is the slow part of a case.
fn compiled() -> &'static [Option<Formula>] {
    static COMPILED: OnceLock<Vec<Option<Formula>>> = OnceLock::new();
    COMPILED.get_or_init(|| {
        SCORINGS
            .iter()
            .map(|text| Formula::new(text).ok())
            .collect()
    })
}

/// The oracle: a place of its own, scored directly (`formulas` is [`SCORINGS`] compiled).
fn oracle_points(
    formulas: &[Option<Formula>],
    i: usize,
    outcome: &TournamentOutcome,
    finish: &Finish,
) -> Centipoints {
    match (SCORINGS[i], &formulas[i]) {
        ("table:apl", _) => points::table_points(&APL.map(Centipoints::new), finish.place),
        ("table:short", _) => points::table_points(
            &[Centipoints::new(1_000), Centipoints::new(500)],
            finish.place,
        ),
        (text, formula) => formula
            .as_ref()
            .unwrap_or_else(|| panic!("{text} does not compile"))
            .points(Inputs {
                n: outcome.field,
                r: finish.place,
                nr: finish.rebuys,
                nh: finish.knockouts,
                buyin: outcome.buyin.get() / 100,
                prizepool: outcome.prizepool.get() / 100,
                ..Inputs::default()
            })
            .unwrap(),
    }
}

const PLAYERS: [&str; 6] = ["ann", "bob", "cat", "dan", "eve", "fay"];
const VENUES: [&str; 3] = ["red-lion", "crown", "anchor"];

#[derive(Clone, Debug)]
enum Op {
    Record {
        venue: usize,
        field: u32,
        day: u32,
        /// (player, place seed, rebuys, knockouts)
        finishes: Vec<(usize, u32, u32, u32)>,
    },
    SetFormula(usize),
    Merge(usize, usize),
    Unmerge(usize, usize),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        5 => (
            0..VENUES.len(),
            2u32..40,
            0u32..30,
            prop::collection::vec((0..PLAYERS.len(), 0u32..1_000, 0u32..3, 0u32..3), 0..6),
        )
            .prop_map(|(venue, field, day, finishes)| Op::Record {
                venue,
                field,
                day,
                finishes,
            }),
        1 => (0..SCORINGS.len()).prop_map(Op::SetFormula),
        1 => (0..PLAYERS.len(), 0..PLAYERS.len()).prop_map(|(a, b)| Op::Merge(a, b)),
        1 => (0..PLAYERS.len(), 0..PLAYERS.len()).prop_map(|(a, b)| Op::Unmerge(a, b)),
    ]
}

fn command(op: &Op, n: usize) -> Command {
    match op {
        Op::Record {
            venue,
            field,
            day,
            finishes,
        } => {
            // Places from the seeds, distinct where they can be (a clash is refused).
            let finishes = finishes
                .iter()
                .map(|&(player, seed, rebuys, knockouts)| Finish {
                    rebuys,
                    knockouts,
                    ..Finish::new(PLAYERS[player], seed % field + 1)
                })
                .collect();
            record(TournamentOutcome {
                tournament: format!("t{n:03}").into(),
                venue: VENUES[*venue].into(),
                season: SEASON.into(),
                day: *day,
                buyin: Cents::new(1_550),
                prizepool: Cents::new(u64::from(*field) * 1_550),
                field: *field,
                finishes,
            })
        }
        Op::SetFormula(i) => Command::SetFormula {
            season: SEASON.into(),
            scoring: rule(*i),
        },
        Op::Merge(a, b) => Command::MergePlayers {
            keep: PLAYERS[*a].into(),
            merge: PLAYERS[*b].into(),
        },
        Op::Unmerge(a, b) => Command::UnmergePlayers {
            keep: PLAYERS[*a].into(),
            merge: PLAYERS[*b].into(),
        },
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn standings_are_a_recomputation_of_the_recorded_results_and_replay_is_exact(
        first in 0..SCORINGS.len(),
        best_n in prop::option::of(1u32..4),
        ops in prop::collection::vec(op(), 1..30),
    ) {
        let mut commands = vec![
            Command::CreateLeague { name: "L".into(), final_table: None, code: None },
            Command::AddSeason { season: SEASON.into(), best_n, scoring: rule(first) },
        ];
        for (venue, region) in VENUES.iter().zip(["north", "north", "south"]) {
            commands.push(Command::AddVenue { venue: (*venue).into(), region: region.into(), code: None });
        }
        for (i, player) in PLAYERS.iter().enumerate() {
            commands.push(Command::RegisterPlayer {
                player: (*player).into(),
                name: player.to_uppercase(),
                membership: format!("M{i}"),
            });
        }
        commands.extend(ops.iter().enumerate().map(|(n, op)| command(op, n)));

        // The decide loop, with the oracle's own book of what was accepted.
        let mut state = LeagueState::new();
        let mut events = Vec::new();
        let mut versions = Vec::new();
        let mut recorded = Vec::new();
        let mut merged: BTreeMap<PlayerId, PlayerId> = BTreeMap::new();
        for command in &commands {
            let Ok(decided) = decide(&state, command) else {
                let mut after = state.clone();
                prop_assert!(execute(&mut after, command, &mut Vec::new()).is_err());
                prop_assert_eq!(&after, &state);
                continue;
            };
            for event in &decided {
                apply(&mut state, event);
            }
            events.extend(decided);
            match command {
                Command::AddSeason { .. } => versions.push(first),
                Command::SetFormula { scoring, .. } => {
                    versions.push((0..SCORINGS.len()).find(|&i| &rule(i) == scoring).unwrap());
                }
                Command::RecordTournament { outcome } => recorded.push(outcome.clone()),
                Command::MergePlayers { keep, merge } => {
                    merged.insert(merge.clone(), keep.clone());
                }
                Command::UnmergePlayers { merge, .. } => {
                    merged.remove(merge);
                }
                _ => {}
            }
        }

        // Every version's standings, season-wide and at one venue, are the recorded
        // results scored afresh with that version's scoring.
        let surviving = |id: &PlayerId| {
            let mut id = id.clone();
            while let Some(into) = merged.get(&id) {
                id.clone_from(into);
            }
            id
        };
        let best = best_n.map(|n| usize::try_from(n).unwrap());
        let formulas = compiled();
        for (v, &scoring) in versions.iter().enumerate() {
            let version = u32::try_from(v + 1).unwrap();
            let mut results = Vec::new();
            for outcome in &recorded {
                for finish in &outcome.finishes {
                    results.push((outcome.venue.clone(), TournamentResult {
                        player: surviving(&finish.player),
                        tournament: outcome.tournament.to_string(),
                        day: outcome.day,
                        place: finish.place,
                        points: oracle_points(formulas, scoring, outcome, finish),
                        final_table: finish.place <= 9,
                    }));
                }
            }
            let all: Vec<TournamentResult> = results.iter().map(|(_, r)| r.clone()).collect();
            prop_assert_eq!(
                state.standings(SEASON, Some(version), Scope::Season).unwrap(),
                standings::standings(&all, best)
            );
            let crown: Vec<TournamentResult> = results
                .iter()
                .filter(|(venue, _)| venue == "crown")
                .map(|(_, r)| r.clone())
                .collect();
            prop_assert_eq!(
                state.standings(SEASON, Some(version), Scope::Venue("crown")).unwrap(),
                standings::standings(&crown, best)
            );
        }

        // Replaying the stored events (through JSON) gives the same state.
        let mut replayed = LeagueState::new();
        for event in &events {
            let stored = serde_json::to_string(event).unwrap();
            apply(&mut replayed, &serde_json::from_str(&stored).unwrap());
        }
        prop_assert_eq!(replayed, state);
    }
}
