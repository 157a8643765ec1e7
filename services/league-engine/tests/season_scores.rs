//! Season scores (The Tournament Director's Tournament Score and Overall Score): TD3's log
//! method against its forum's worked example, every list function at its meaning, the
//! refusals, the score in the standings (as a tie-break and as the ranking, at venues and
//! after merges), re-scoring when the formulas change, and a property over random seasons:
//! each line's score is the overall formula over the player's own results, and the lines
//! are in the order the season's score says.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "integration tests: a panic is the failure report"
)]

use league_engine::league::{
    Command, Event, Finish, LeagueError, LeagueState, Scope, ScoreFormula, ScoreOrder, ScoringRule,
    SeasonScore, SeasonScoreRule, TournamentOutcome, apply, decide, execute,
};
use league_engine::points::{Centipoints, Extra, Formula, FormulaError, Inputs, hundredths};
use league_engine::standings::{Standing, TieBreak};
use league_engine::units::Cents;
use proptest::prelude::*;

const SEASON: &str = "2026";
const TD3_TOURNAMENT: &str = "log((n + 1) / r)";
const TD3_OVERALL: &str = "(1 - exp(-average(scores))) * 100";

fn run(state: &mut LeagueState, commands: &[Command]) -> Vec<Event> {
    let mut events = Vec::new();
    for command in commands {
        execute(state, command, &mut events)
            .unwrap_or_else(|e| panic!("{command:?} was refused: {e}"));
    }
    events
}

/// A league with two venues in two regions, six players and a season scored `n - r + 1`.
fn league(best_n: Option<u32>) -> LeagueState {
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
            venue: "anchor".into(),
            region: "south".into(),
            code: None,
        },
        Command::AddSeason {
            season: SEASON.into(),
            best_n,
            scoring: ScoringRule::Formula {
                text: "n - r + 1".into(),
            },
        },
    ];
    for (i, player) in ["ann", "bob", "cat", "dan", "eve", "fay"]
        .iter()
        .enumerate()
    {
        commands.push(Command::RegisterPlayer {
            player: (*player).into(),
            name: player.to_uppercase(),
            membership: format!("M{:03}", i + 1),
        });
    }
    run(&mut state, &commands);
    state
}

fn outcome(id: &str, venue: &str, day: u32, field: u32, finishes: &[(&str, u32)]) -> Command {
    Command::RecordTournament {
        outcome: TournamentOutcome {
            tournament: id.into(),
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
        },
    }
}

fn set_score(tournament: &str, overall: &str, order: ScoreOrder) -> Command {
    Command::SetSeasonScore {
        season: SEASON.into(),
        score: Some(SeasonScoreRule {
            tournament: tournament.into(),
            overall: overall.into(),
            order,
        }),
    }
}

fn standings(state: &LeagueState, scope: Scope<'_>) -> Vec<Standing> {
    state.standings(SEASON, None, scope).unwrap()
}

fn score_of(lines: &[Standing], player: &str) -> Option<i64> {
    lines
        .iter()
        .find(|s| s.player == player)
        .and_then(|s| s.score)
        .map(Centipoints::get)
}

/// An overall formula's value over a list of scores and `n` tournaments.
fn overall(text: &str, scores: &[f64], tournaments: u32) -> Result<f64, FormulaError> {
    let formula = Formula::overall_score_unchecked(text)?;
    formula.value(
        Inputs::default(),
        &Extra {
            scores,
            list_points: &[10.0, 20.0, 30.0],
            tournaments,
            ..Extra::default()
        },
    )
}

fn approx(value: f64, expected: f64) {
    assert!(
        (value - expected).abs() < 1e-9,
        "got {value}, expected {expected}"
    );
}

#[test]
fn td3_log_method_gives_the_forum_worked_example() {
    // TD3's forum: 3rd of 25 scores about 2.16 under `log((n + 1) / r)`; a player with
    // scores 2.16, 3.93, 0.89 and 1.10 averages 2.02, and the overall score is
    // (1 - e^-2.02) * 100 = 86.73.
    let tournament = Formula::tournament_score(TD3_TOURNAMENT).unwrap();
    let at = |n: u32, r: u32| {
        tournament
            .hundredths(
                Inputs {
                    n,
                    r,
                    ..Inputs::default()
                },
                &Extra::default(),
            )
            .unwrap()
            .get()
    };
    assert_eq!(
        [at(25, 3), at(50, 1), at(16, 7), at(29, 10)],
        [216, 393, 89, 110]
    );
    approx(
        overall(TD3_OVERALL, &[2.16, 3.93, 0.89, 1.10], 4).unwrap(),
        (1.0 - (-2.02f64).exp()) * 100.0,
    );
    let rounded = Formula::overall_score_unchecked(TD3_OVERALL)
        .unwrap()
        .hundredths(
            Inputs::default(),
            &Extra {
                scores: &[2.16, 3.93, 0.89, 1.10],
                tournaments: 4,
                ..Extra::default()
            },
        )
        .unwrap();
    assert_eq!(rounded.get(), 8_673);

    // The same four results recorded: the standings carry the score from the unrounded
    // tournament scores, ln(26/3), ln(51), ln(17/7) and ln(3), averaging 2.0193...: 86.73.
    let mut state = league(None);
    run(
        &mut state,
        &[
            set_score(TD3_TOURNAMENT, TD3_OVERALL, ScoreOrder::BreaksTies),
            outcome("t1", "red-lion", 1, 25, &[("ann", 3), ("bob", 1)]),
            outcome("t2", "red-lion", 2, 50, &[("ann", 1)]),
            outcome("t3", "anchor", 3, 16, &[("ann", 7)]),
            outcome("t4", "anchor", 4, 29, &[("ann", 10)]),
        ],
    );
    let exact: f64 = [26.0f64 / 3.0, 51.0, 17.0 / 7.0, 3.0]
        .iter()
        .map(|x| x.ln())
        .sum::<f64>()
        / 4.0;
    approx(exact, 2.019_306_341_436_677);
    let lines = standings(&state, Scope::Season);
    assert_eq!(score_of(&lines, "ann"), Some(8_673));
    // Bob won the 25-player tournament: ln(26), and (1 - 1/26) * 100 = 96.15.
    assert_eq!(score_of(&lines, "bob"), Some(9_615));
    // At the Anchor only Ann's last two results count: (ln(17/7) + ln(3)) / 2, 62.95.
    let anchor = standings(&state, Scope::Venue("anchor"));
    assert_eq!(score_of(&anchor, "ann"), Some(6_295));
    assert_eq!(score_of(&anchor, "bob"), None);
}

#[test]
fn every_list_function_has_its_td3_meaning() {
    let scores = [3.0, 1.0, 2.0];
    let cases: &[(&str, f64)] = &[
        ("sum(scores)", 6.0),
        ("product(scores)", 6.0),
        ("average(scores)", 2.0),
        ("count(scores)", 3.0),
        ("max(scores)", 3.0),
        ("min(scores)", 1.0),
        ("min(scores, 0)", 0.0),
        ("max(scores, 5)", 5.0),
        ("sum(scores, 4)", 10.0),
        ("count(scores, 7, 8)", 5.0),
        // top: the largest first; bottom: the smallest first.
        ("sum(top(2, scores))", 5.0),
        ("index(0, top(2, scores))", 3.0),
        ("index(1, top(2, scores))", 2.0),
        ("sum(top(10, scores))", 6.0),
        ("count(top(0, scores))", 0.0),
        ("sum(bottom(2, scores))", 3.0),
        ("index(0, bottom(3, scores))", 1.0),
        // index counts from 0, oldest first.
        ("index(0, scores)", 3.0),
        ("index(2, scores)", 2.0),
        // setListLength fills with 0 or cuts from the end.
        ("count(setListLength(5, scores))", 5.0),
        ("sum(setListLength(5, scores))", 6.0),
        ("sum(setListLength(2, scores))", 4.0),
        ("average(setListLength(n, scores))", 1.0),
        ("sum(top(2, setListLength(n, scores)))", 5.0),
        // `n` is the season's tournaments (6 here); listPoints the player's points.
        ("n", 6.0),
        ("numberOfTournaments", 6.0),
        ("sum(listPoints)", 60.0),
        ("index(2, ListPoints)", 30.0),
        // TD3's user guide: drop the worst score.
        (
            "assign(\"c\", count(scores)); average(top(c - 1, scores))",
            2.5,
        ),
        (
            "(1 - exp(-average(scores))) * 100",
            (1.0 - (-2.0f64).exp()) * 100.0,
        ),
    ];
    for (text, expected) in cases {
        let value = overall(text, &scores, 6).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert!(
            (value - expected).abs() < 1e-9,
            "{text}: got {value}, expected {expected}"
        );
    }
    // An overall score names its own values freely, even a tournament's figure's name.
    approx(
        overall(
            "assign(\"m\", average(scores)); assign(\"r\", 2); m * r",
            &scores,
            6,
        )
        .unwrap(),
        4.0,
    );
    // However lists nest, one evaluation makes at most 20,000 list values.
    let nested = format!(
        "sum({}scores{})",
        "setListLength(1000, ".repeat(21),
        ")".repeat(21)
    );
    let error = overall(&nested, &scores, 6).unwrap_err().to_string();
    assert!(error.contains("more than 20000 values"), "{error}");
    let within = format!(
        "sum({}scores{})",
        "setListLength(1000, ".repeat(19),
        ")".repeat(19)
    );
    approx(overall(&within, &scores, 6).unwrap(), 6.0);
    // Out of range: no value, with the reason.
    for (text, why) in [
        ("index(3, scores)", "past the end"),
        ("average(top(0, scores))", "average of an empty list"),
        ("max(bottom(0, scores))", "largest of an empty list"),
        ("sum(top(1.5, scores))", "whole number"),
        ("sum(setListLength(-1, scores))", "whole number"),
        ("sum(setListLength(1001, scores))", "whole number"),
    ] {
        let error = overall(text, &scores, 6).unwrap_err().to_string();
        assert!(error.contains(why), "{text}: {error}");
    }
}

#[test]
fn lists_and_names_are_refused_where_they_do_not_belong() {
    let refused = |text: &str| {
        Formula::overall_score_unchecked(text)
            .unwrap_err()
            .to_string()
    };
    assert!(refused("scores + 1").contains("`scores` is a list"));
    assert!(refused("top(2, scores)").contains("`top(...)` is a list"));
    assert!(refused("sqrt(scores)").contains("is a list"));
    assert!(refused("sum(top(2, 5))").contains("takes a list second"));
    assert!(refused("index(0, 3)").contains("takes a list second"));
    assert!(refused("assign(\"scores\", 1); scores").contains("cannot be assigned"));
    // A tournament's figures are not an overall score's.
    for name in ["r", "rank", "nh", "buyin", "prizepool"] {
        let error =
            Formula::overall_score_unchecked(&format!("average(scores) + {name}")).unwrap_err();
        assert!(
            error.to_string().contains("one tournament's figure"),
            "{name}: {error}"
        );
    }
    // `points` is a tournament score's; the lists are an overall score's: a points formula
    // knows none of them.
    for text in ["points + 1", "sum(scores)", "listPoints"] {
        assert!(
            matches!(Formula::new(text), Err(FormulaError::UnknownVariable(_))),
            "{text}"
        );
    }
    for text in ["sum(scores)", "listPoints", "average(scores) + points"] {
        assert!(Formula::tournament_score(text).is_err(), "{text}");
    }
    assert!(Formula::overall_score_unchecked("average(scores) + points").is_err());
    // A tournament score reads `points`; an old points formula that assigns `points` still
    // parses as before.
    assert!(Formula::tournament_score("points / 10 + log((n + 1) / r)").is_ok());
    assert!(Formula::new("assign(\"points\", n - r); points * 2").is_ok());
}

#[test]
fn a_score_is_checked_when_set_and_refused_with_the_inputs_that_break_it() {
    let mut state = league(None);
    let refused = |state: &LeagueState, command: &Command| {
        let before = state.clone();
        let error = decide(state, command).unwrap_err();
        let mut events = Vec::new();
        let mut after = state.clone();
        assert!(execute(&mut after, command, &mut events).is_err());
        assert!(events.is_empty());
        assert_eq!(&after, &before);
        error
    };
    // Dropping the worst of one result leaves an empty list: TD3's user-guide formula
    // needs a guard for a player with one result.
    let error = refused(
        &state,
        &set_score(
            TD3_TOURNAMENT,
            "assign(\"c\", count(scores)); average(top(c - 1, scores))",
            ScoreOrder::BreaksTies,
        ),
    );
    let LeagueError::InvalidSeasonScore { which, error, .. } = &error else {
        panic!("{error:?}")
    };
    assert_eq!(*which, ScoreFormula::Overall);
    assert!(
        error.to_string().contains("the average of an empty list"),
        "{error}"
    );
    assert!(error.to_string().contains("n=1, scores=["), "{error}");
    run(
        &mut state,
        &[set_score(
            TD3_TOURNAMENT,
            "assign(\"c\", count(scores)); if(c > 1, average(top(c - 1, scores)), average(scores))",
            ScoreOrder::BreaksTies,
        )],
    );
    // A tournament score that divides by zero for some place.
    let error = refused(
        &state,
        &set_score("10 / (r - 2)", "sum(scores)", ScoreOrder::Ranks),
    );
    assert!(
        matches!(
            &error,
            LeagueError::InvalidSeasonScore {
                which: ScoreFormula::Tournament,
                ..
            }
        ),
        "{error:?}"
    );
    // A log of a sum that a season of zero scores makes 0.
    let error = refused(
        &state,
        &set_score("if(r = 1, 1, 0)", "log(sum(scores))", ScoreOrder::Ranks),
    );
    assert!(error.to_string().contains("logarithm"), "{error}");
    // A tournament score the check's fields allow but a recorded result does not: refused
    // when set on the season, and a later result it cannot score is refused too.
    let beyond = "if(n > 1000, 1 / (n - 1001), 1)";
    run(
        &mut state,
        &[outcome("big", "red-lion", 1, 1_001, &[("ann", 1)])],
    );
    let error = refused(&state, &set_score(beyond, "sum(scores)", ScoreOrder::Ranks));
    assert!(
        matches!(&error, LeagueError::CannotScoreTournament { tournament, player, .. }
            if tournament == "big" && player == "ann"),
        "{error:?}"
    );
    let mut fresh = league(None);
    run(
        &mut fresh,
        &[set_score(beyond, "sum(scores)", ScoreOrder::Ranks)],
    );
    let error = refused(&fresh, &outcome("big", "red-lion", 1, 1_001, &[("ann", 1)]));
    assert!(
        matches!(&error, LeagueError::CannotScoreTournament { .. }),
        "{error:?}"
    );
    // An unknown season.
    let error = refused(
        &state,
        &Command::SetSeasonScore {
            season: "1999".into(),
            score: None,
        },
    );
    assert!(matches!(error, LeagueError::UnknownSeason { .. }));
}

#[test]
fn the_score_breaks_ties_in_points_or_ranks_the_standings() {
    let mut state = league(None);
    // Points `n - r + 1`: Ann 10 (1st of 10), Bob 4 + 6 (4th of 7, 1st of 6), Cat 9 + 1
    // (2nd of 10, 7th of 7): three players on 10 points; Eve 2 (1st of 2), Dan 1.
    run(
        &mut state,
        &[
            outcome("t1", "red-lion", 1, 10, &[("ann", 1), ("cat", 2)]),
            outcome("t2", "red-lion", 2, 7, &[("bob", 4), ("cat", 7)]),
            outcome("t3", "anchor", 3, 6, &[("bob", 1), ("dan", 6)]),
            outcome("t4", "anchor", 4, 2, &[("eve", 1)]),
        ],
    );
    let order = |lines: &[Standing]| -> Vec<String> {
        lines.iter().map(|s| s.player.to_string()).collect()
    };
    // Without a score: Ann and Bob are level on points and wins, and Bob has two final
    // tables to Ann's one; Cat has no win.
    let plain = standings(&state, Scope::Season);
    assert_eq!(order(&plain), ["bob", "ann", "cat", "eve", "dan"]);
    assert_eq!(plain[1].separated_by, Some(TieBreak::FinalTables));
    assert_eq!(plain[2].separated_by, Some(TieBreak::Wins));
    assert!(plain.iter().all(|s| s.score.is_none()));

    // The average of `(n - r) / (n - 1)`: Ann 1, Bob (0.5 + 1) / 2, Cat (8/9 + 0) / 2,
    // Eve 1, Dan 0. As the tie-break, it orders the three on 10 points, before wins.
    let share = "(n - r) / (n - 1)";
    let average = "average(scores) * 100";
    run(
        &mut state,
        &[set_score(share, average, ScoreOrder::BreaksTies)],
    );
    let tied = standings(&state, Scope::Season);
    assert_eq!(order(&tied), ["ann", "bob", "cat", "eve", "dan"]);
    let scores: Vec<Option<i64>> = tied.iter().map(|s| s.score.map(Centipoints::get)).collect();
    assert_eq!(
        scores,
        [
            Some(10_000),
            Some(7_500),
            Some(4_444),
            Some(10_000),
            Some(0)
        ]
    );
    let by: Vec<Option<TieBreak>> = tied.iter().map(|s| s.separated_by).collect();
    assert_eq!(
        by,
        [
            None,
            Some(TieBreak::Score),
            Some(TieBreak::Score),
            Some(TieBreak::Points),
            Some(TieBreak::Points)
        ]
    );

    // Ranking by the score: Eve's 100 is level with Ann's and her 2 points put her
    // second; Dan's 0 is last.
    run(&mut state, &[set_score(share, average, ScoreOrder::Ranks)]);
    let ranked = standings(&state, Scope::Season);
    assert_eq!(order(&ranked), ["ann", "eve", "bob", "cat", "dan"]);
    let by: Vec<Option<TieBreak>> = ranked.iter().map(|s| s.separated_by).collect();
    assert_eq!(
        by,
        [
            None,
            Some(TieBreak::Points),
            Some(TieBreak::Score),
            Some(TieBreak::Score),
            Some(TieBreak::Score)
        ]
    );

    // The same score again, or clearing a season without one, changes nothing.
    assert_eq!(
        decide(&state, &set_score(share, average, ScoreOrder::Ranks)).unwrap(),
        []
    );
    let mut none = league(None);
    let clear = Command::SetSeasonScore {
        season: SEASON.into(),
        score: None,
    };
    assert_eq!(decide(&none, &clear).unwrap(), []);
    assert!(run(&mut none, &[clear]).is_empty());

    // Cleared: the standings are as before the score.
    run(
        &mut state,
        &[Command::SetSeasonScore {
            season: SEASON.into(),
            score: None,
        }],
    );
    assert_eq!(standings(&state, Scope::Season), plain);
    assert!(state.season(SEASON).unwrap().score.is_none());
}

#[test]
fn a_changed_score_rescores_the_season_and_the_log_replays_to_the_same_state() {
    let mut state = league(Some(2));
    let mut events = run(
        &mut state,
        &[
            outcome("t1", "red-lion", 1, 20, &[("ann", 1), ("bob", 5)]),
            outcome("t2", "anchor", 2, 30, &[("ann", 12), ("bob", 2)]),
            outcome("t3", "anchor", 3, 8, &[("ann", 3), ("eve", 1)]),
            set_score("n - r + 1", "sum(top(2, scores))", ScoreOrder::BreaksTies),
        ],
    );
    let first = standings(&state, Scope::Season);
    // Ann: 20, 19, 6 -> the best two 39; Bob: 16, 29 -> 45.
    assert_eq!(score_of(&first, "ann"), Some(3_900));
    assert_eq!(score_of(&first, "bob"), Some(4_500));
    events.extend(run(
        &mut state,
        &[set_score(
            "points * 2",
            "sum(scores) / n",
            ScoreOrder::Ranks,
        )],
    ));
    // Points are n - r + 1 too; Ann's three: (20 + 19 + 6) * 2 / 3 = 30.
    let second = standings(&state, Scope::Season);
    assert_eq!(score_of(&second, "ann"), Some(3_000));
    // Eve's one 8 points: 16 / 3.
    assert_eq!(score_of(&second, "eve"), Some(533));
    // The score is the season's own: a new points version re-scores it through `points`.
    events.extend(run(
        &mut state,
        &[Command::SetFormula {
            season: SEASON.into(),
            scoring: ScoringRule::Formula {
                text: "(n - r + 1) * 10".into(),
            },
        }],
    ));
    assert_eq!(
        score_of(&standings(&state, Scope::Season), "ann"),
        Some(30_000)
    );
    // Version 1's standings still read version 1's points.
    let v1 = state.standings(SEASON, Some(1), Scope::Season).unwrap();
    assert_eq!(score_of(&v1, "ann"), Some(3_000));

    // The events, through JSON, replay to the same state.
    let mut replayed = league(Some(2));
    for event in &events {
        let json = serde_json::to_string(event).unwrap();
        let back: Event = serde_json::from_str(&json).unwrap();
        assert_eq!(&back, event);
        apply(&mut replayed, &back);
    }
    assert_eq!(replayed, state);
    let set = events
        .iter()
        .find(|e| matches!(e, Event::SeasonScoreSet { .. }))
        .unwrap();
    assert_eq!(
        serde_json::to_value(set).unwrap(),
        serde_json::json!({
            "type": "SeasonScoreSet",
            "season": SEASON,
            "score": {
                "tournament": "n - r + 1",
                "overall": "sum(top(2, scores))",
                "order": "BreaksTies",
            },
        })
    );
    // A stored score is checked again when read: a text the check refuses does not load.
    let bad = serde_json::json!({
        "type": "SeasonScoreSet",
        "season": SEASON,
        "score": {"tournament": "n - r + 1", "overall": "scores", "order": "Ranks"},
    });
    assert!(serde_json::from_value::<Event>(bad).is_err());
}

#[test]
fn scores_are_oldest_first_however_the_results_were_recorded() {
    let mut state = league(None);
    run(
        &mut state,
        &[
            set_score(
                "n - r + 1",
                "index(0, scores) * 1000 + index(2, setListLength(3, scores))",
                ScoreOrder::BreaksTies,
            ),
            // Recorded out of order: day 3, then day 1, then day 2 (two on day 2: by id).
            outcome("c", "red-lion", 3, 10, &[("ann", 1)]),
            outcome("a", "red-lion", 1, 10, &[("ann", 5)]),
            outcome("z", "anchor", 2, 10, &[("ann", 2)]),
            outcome("b", "anchor", 2, 10, &[("ann", 9)]),
        ],
    );
    // Oldest first: a (day 1) 6, b (day 2) 2, z (day 2) 9, c (day 3) 10.
    let lines = standings(&state, Scope::Season);
    assert_eq!(score_of(&lines, "ann"), Some((6 * 1000 + 9) * 100));
}

#[test]
fn a_new_points_version_is_refused_when_the_score_cannot_read_its_points() {
    let mut state = league(None);
    run(
        &mut state,
        &[
            set_score("sqrt(points)", "sum(scores)", ScoreOrder::BreaksTies),
            outcome("t1", "red-lion", 1, 10, &[("ann", 1), ("bob", 10)]),
        ],
    );
    // `n - r - 1` gives the last place -1 points: no square root.
    let command = Command::SetFormula {
        season: SEASON.into(),
        scoring: ScoringRule::Formula {
            text: "n - r - 1".into(),
        },
    };
    let error = decide(&state, &command).unwrap_err();
    assert!(
        matches!(&error, LeagueError::CannotScoreTournament { tournament, player, .. }
            if tournament == "t1" && player == "bob"),
        "{error:?}"
    );
    // A version every result can be scored under is taken, and re-scores the season.
    run(
        &mut state,
        &[Command::SetFormula {
            season: SEASON.into(),
            scoring: ScoringRule::Formula {
                text: "(n - r + 1) * 4".into(),
            },
        }],
    );
    // Ann's one result: 40 points under version 3, sqrt(40) = 6.32.
    assert_eq!(
        score_of(&standings(&state, Scope::Season), "ann"),
        Some(632)
    );
}

#[test]
fn merged_players_score_together_and_venues_count_their_own_tournaments() {
    let mut state = league(None);
    run(
        &mut state,
        &[
            outcome("t1", "red-lion", 1, 10, &[("ann", 2), ("fay", 1)]),
            outcome("t2", "anchor", 2, 10, &[("fay", 4)]),
            outcome("t3", "anchor", 3, 10, &[("ann", 5)]),
            set_score("n - r + 1", "sum(scores) * 100 + n", ScoreOrder::BreaksTies),
        ],
    );
    let season = standings(&state, Scope::Season);
    assert_eq!(score_of(&season, "ann"), Some((9 + 6) * 10_000 + 300));
    assert_eq!(score_of(&season, "fay"), Some((10 + 7) * 10_000 + 300));
    // At the Anchor there were two tournaments.
    let anchor = standings(&state, Scope::Venue("anchor"));
    assert_eq!(score_of(&anchor, "ann"), Some(6 * 10_000 + 200));
    let north = standings(&state, Scope::Region("north"));
    assert_eq!(score_of(&north, "fay"), Some(10 * 10_000 + 100));
    // Dan turns out to be Bob's duplicate: merged, his result counts in Bob's list.
    run(
        &mut state,
        &[
            outcome("t4", "anchor", 4, 10, &[("bob", 1)]),
            outcome("t5", "anchor", 5, 10, &[("dan", 10)]),
            Command::MergePlayers {
                keep: "bob".into(),
                merge: "dan".into(),
            },
        ],
    );
    let merged = standings(&state, Scope::Season);
    assert_eq!(score_of(&merged, "bob"), Some((10 + 1) * 10_000 + 500));
    assert!(merged.iter().all(|s| s.player != "dan"));
    run(
        &mut state,
        &[Command::UnmergePlayers {
            keep: "bob".into(),
            merge: "dan".into(),
        }],
    );
    let apart = standings(&state, Scope::Season);
    assert_eq!(score_of(&apart, "bob"), Some(10 * 10_000 + 500));
    assert_eq!(score_of(&apart, "dan"), Some(10_000 + 500));
}

#[test]
fn a_stored_score_round_trips_as_the_rule_the_league_wrote() {
    let rule = SeasonScoreRule {
        tournament: TD3_TOURNAMENT.into(),
        overall: TD3_OVERALL.into(),
        order: ScoreOrder::Ranks,
    };
    let score = SeasonScore::new(&rule).unwrap();
    assert_eq!(score.rule(), rule);
    let json = serde_json::to_string(&score).unwrap();
    let back: SeasonScore = serde_json::from_str(&json).unwrap();
    assert_eq!(back, score);
}

/// A random season: up to 12 tournaments at two venues, each with a field of 4 to 40 and
/// some of the six players placed in it.
/// A tournament: at the Anchor or not, its field, and `(player index, place)` finishes.
type Night = (bool, u32, Vec<(usize, u32)>);

fn season() -> impl Strategy<Value = Vec<Night>> {
    prop::collection::vec(
        (any::<bool>(), 4u32..40).prop_flat_map(|(anchor, field)| {
            (
                Just(anchor),
                Just(field),
                prop::sample::subsequence((0..6usize).collect::<Vec<_>>(), 1..=4)
                    .prop_flat_map(move |players| {
                        let count = players.len();
                        (
                            Just(players),
                            prop::sample::subsequence((1..=field).collect::<Vec<_>>(), count),
                        )
                    })
                    .prop_map(|(players, places)| players.into_iter().zip(places).collect()),
            )
        }),
        1..12,
    )
}

const PLAYERS: [&str; 6] = ["ann", "bob", "cat", "dan", "eve", "fay"];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Each line's score is the overall formula computed here from the player's own
    /// results (their tournament scores oldest first), and the lines are in the order the
    /// season's score says: by points then score, or by score then points.
    #[test]
    fn each_score_is_the_formula_over_the_players_results(
        tournaments in season(),
        ranks in any::<bool>(),
        best in 1u32..4,
    ) {
        let mut state = league(Some(best));
        let order = if ranks { ScoreOrder::Ranks } else { ScoreOrder::BreaksTies };
        run(&mut state, &[set_score(
            "(n - r) / (n - 1) * 10",
            "assign(\"c\", count(scores)); sum(top(2, scores)) + c / n",
            order,
        )]);
        let mut commands = Vec::new();
        for (i, (anchor, field, finishes)) in tournaments.iter().enumerate() {
            let named: Vec<(&str, u32)> =
                finishes.iter().map(|&(p, place)| (PLAYERS[p], place)).collect();
            let day = u32::try_from(i).unwrap() + 1;
            let venue = if *anchor { "anchor" } else { "red-lion" };
            commands.push(outcome(&format!("t{i}"), venue, day, *field, &named));
        }
        run(&mut state, &commands);
        let lines = standings(&state, Scope::Season);
        let n = tournaments.len();
        for line in &lines {
            let mut scores: Vec<f64> = Vec::new();
            for (_, field, finishes) in &tournaments {
                for &(p, place) in finishes {
                    if line.player == PLAYERS[p] {
                        scores.push(f64::from(field - place) / f64::from(field - 1) * 10.0);
                    }
                }
            }
            let count = f64::from(u32::try_from(scores.len()).unwrap());
            scores.sort_by(|a, b| b.total_cmp(a));
            let top2: f64 = scores.iter().take(2).sum();
            let expected = top2 + count / f64::from(u32::try_from(n).unwrap());
            prop_assert_eq!(line.score, hundredths(expected), "{}", line.player);
        }
        for pair in lines.windows(2) {
            let key = |s: &Standing| match order {
                ScoreOrder::BreaksTies => (s.points, s.score),
                ScoreOrder::Ranks => (s.score.unwrap(), Some(s.points)),
            };
            prop_assert!(key(&pair[0]) >= key(&pair[1]), "{:?} above {:?}", pair[0], pair[1]);
        }
    }
}
