//! Corrections through the API, as a venue's host and a league's admin make them: a
//! tournament cancelled (refunds shown, every later command refused with its code), a
//! player eliminated by mistake reinstated (chips and places back), a hand voided (every
//! chip back), a stack, a seat and the button put right between hands (until the next
//! hand starts), a recorded result amended (points re-scored). Each is in the audit log with
//! its reason and who sent it; bad reasons and other venues' objects change nothing.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test")]

use league_api::auth::Role;
use league_engine::tournament::play::Tracking;
use league_tests::{
    ACT, TestApp, a_league, a_night_in_the_standings, assert_refused, code, on_every_backend,
    started,
};
use serde_json::{Value, json};

const CANCEL: &str = "mutation($t: ID!, $r: String!) { cancelTournament(input: {tournamentId: $t, reason: $r}) { events } }";
const REINSTATE: &str = "mutation($t: ID!, $p: ID!, $r: String!) { reinstate(input: {tournamentId: $t, player: $p, reason: $r}) { events } }";
const ELIMINATE: &str = "mutation($t: ID!, $p: ID!, $by: ID) { eliminate(input: {tournamentId: $t, players: [$p], by: $by}) { events } }";
const TOURNAMENT: &str = "query($t: ID!) { tournament(id: $t) { stage remaining places { player place shared } tables { seats { player chips } } cancelled { reason refunds { player amount } } } }";

fn chips_of(view: &Value, player: &str) -> Option<u64> {
    view["tournament"]["tables"]
        .as_array()?
        .iter()
        .flat_map(|t| t["seats"].as_array().cloned().unwrap_or_default())
        .find(|s| s["player"] == player)
        .and_then(|s| s["chips"].as_u64())
}

async fn a_host_cancels_a_tournament_and_every_entrant_is_refunded(app: &TestApp) {
    a_league(app).await;
    started(
        app,
        "c1",
        "crown",
        Tracking::Results,
        &["ann", "bob", "cat"],
    )
    .await;
    let host = app.token(Role::Host, Some("crown"), None).await;
    let other = app.token(Role::Host, Some("anchor"), None).await;
    let before = app.last_position().await;
    for (token, reason, expected) in [
        (&other, "not theirs", "FORBIDDEN"),
        (&host, "   ", "BAD_INPUT"),
        (&host, "a\nb", "BAD_INPUT"),
    ] {
        let body = app
            .graphql(Some(token), CANCEL, json!({"t": "c1", "r": reason}))
            .await;
        assert_eq!(code(&body), expected, "{body:#}");
        if expected == "BAD_INPUT" {
            assert_eq!(
                body["errors"][0]["extensions"]["field"], "reason",
                "{body:#}"
            );
        }
    }
    assert_eq!(app.last_position().await, before, "refusals append nothing");

    let body = app
        .graphql(
            Some(&host),
            CANCEL,
            json!({"t": "c1", "r": "power cut at the venue"}),
        )
        .await;
    assert_eq!(body["data"]["cancelTournament"]["events"], 1, "{body:#}");
    let view = app.admin(TOURNAMENT, json!({"t": "c1"})).await;
    let t = &view["tournament"];
    assert_eq!(t["stage"], "CANCELLED");
    assert_eq!(t["cancelled"]["reason"], "power cut at the venue");
    let refunds: Vec<(String, u64)> = t["cancelled"]["refunds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["player"].as_str().unwrap().to_owned(),
                r["amount"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        refunds,
        [
            ("ann".to_owned(), 2_500),
            ("bob".to_owned(), 2_500),
            ("cat".to_owned(), 2_500)
        ]
    );
    // Every later command is refused, with a code that says why.
    let body = app
        .graphql(Some(&host), ELIMINATE, json!({"t": "c1", "p": "bob"}))
        .await;
    assert_eq!(code(&body), "TOURNAMENT_CANCELLED", "{body:#}");
    // The auditor sees who cancelled it and why.
    let events = app.stream_events("tournament:c1").await;
    let (ty, actor, payload) = events.last().unwrap();
    assert_eq!(ty, "TournamentCancelled");
    assert!(actor.starts_with("host:crown:"), "{actor}");
    assert_eq!(payload["data"]["reason"], "power cut at the venue");
}

async fn a_player_eliminated_by_mistake_is_reinstated(app: &TestApp) {
    a_league(app).await;
    started(
        app,
        "r1",
        "crown",
        Tracking::Results,
        &["ann", "bob", "cat"],
    )
    .await;
    let host = app.token(Role::Host, Some("crown"), None).await;
    let view = app.admin(TOURNAMENT, json!({"t": "r1"})).await;
    let start = chips_of(&view, "cat").unwrap();
    app.admin(ELIMINATE, json!({"t": "r1", "p": "cat", "by": "ann"}))
        .await;
    let view = app.admin(TOURNAMENT, json!({"t": "r1"})).await;
    assert_eq!(view["tournament"]["remaining"], 2);
    assert_eq!(chips_of(&view, "ann"), Some(2 * start));

    let body = app
        .graphql(
            Some(&host),
            REINSTATE,
            json!({"t": "r1", "p": "bob", "r": "x"}),
        )
        .await;
    assert_eq!(code(&body), "RULE_VIOLATION", "bob is still in: {body:#}");
    let body = app
        .graphql(
            Some(&host),
            REINSTATE,
            json!({"t": "r1", "p": "cat", "r": "the wrong player was called out"}),
        )
        .await;
    assert_eq!(body["data"]["reinstate"]["events"], 1, "{body:#}");
    let view = app.admin(TOURNAMENT, json!({"t": "r1"})).await;
    assert_eq!(view["tournament"]["remaining"], 3);
    assert_eq!(chips_of(&view, "cat"), Some(start));
    assert_eq!(chips_of(&view, "ann"), Some(start));
    let (ty, actor, payload) = app.stream_events("tournament:r1").await.pop().unwrap();
    assert_eq!(ty, "PlayerReinstated");
    assert!(actor.starts_with("host:crown:"), "{actor}");
    assert_eq!(payload["data"]["reason"], "the wrong player was called out");
    assert_eq!(payload["data"]["from"], "ann");

    // Played on: bob out first, then cat; the places follow what really happened.
    for out in ["bob", "cat"] {
        app.admin(ELIMINATE, json!({"t": "r1", "p": out, "by": "ann"}))
            .await;
    }
    let view = app.admin(TOURNAMENT, json!({"t": "r1"})).await;
    assert_eq!(view["tournament"]["stage"], "FINISHED");
    let places: Vec<(String, u64)> = view["tournament"]["places"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["player"].as_str().unwrap().to_owned(),
                p["place"].as_u64().unwrap(),
            )
        })
        .collect();
    assert!(places.contains(&("cat".to_owned(), 2)), "{places:?}");
    assert!(places.contains(&("bob".to_owned(), 3)), "{places:?}");
    // Finished: corrections go to the league's record now.
    let body = app
        .graphql(
            Some(&host),
            REINSTATE,
            json!({"t": "r1", "p": "bob", "r": "too late"}),
        )
        .await;
    assert_eq!(code(&body), "RULE_VIOLATION", "{body:#}");
}

async fn a_misdealt_hand_is_voided_and_every_chip_goes_back(app: &TestApp) {
    a_league(app).await;
    started(app, "v1", "crown", Tracking::Dealt, &["ann", "bob", "cat"]).await;
    let host = app.token(Role::Host, Some("crown"), None).await;
    let table = "query { table(tournamentId: \"v1\", table: 1) { inHand toAct seats { seat player chips } } }";
    let chips = |view: &Value| -> Vec<u64> {
        view["table"]["seats"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["chips"].as_u64().unwrap())
            .collect()
    };
    let before = chips(&app.admin(table, json!({})).await);
    app.admin(
        "mutation { startHand(input: {tournamentId: \"v1\", table: 1}) { events } }",
        json!({}),
    )
    .await;
    let void = "mutation($k: VoidKind!, $r: String, $c: String) { voidHand(input: {tournamentId: \"v1\", table: 1, kind: $k, reason: $r, card: $c}) { events } }";
    let last = app.last_position().await;
    for (vars, field) in [
        (json!({"k": "MISDEAL"}), "reason"),
        (json!({"k": "DUPLICATE_CARD", "r": "two queens"}), "card"),
        (json!({"k": "DUPLICATE_CARD", "c": "Zz"}), "card"),
        (json!({"k": "MISDEAL", "r": "x", "c": "Qs"}), "card"),
    ] {
        assert_refused(app, &host, void, &vars, "BAD_INPUT", Some(field)).await;
    }
    assert_eq!(app.last_position().await, last);
    let body = app
        .graphql(
            Some(&host),
            void,
            json!({"k": "MISDEAL", "r": "seat 1's first card exposed"}),
        )
        .await;
    assert!(body.get("errors").is_none(), "{body:#}");
    let view = app.admin(table, json!({})).await;
    assert_eq!(view["table"]["inHand"], false);
    assert_eq!(chips(&view), before, "every chip back where it came from");
    // The next hand is dealt, and acting in it works as ever.
    app.admin(
        "mutation { startHand(input: {tournamentId: \"v1\", table: 1}) { events } }",
        json!({}),
    )
    .await;
    let view = app.admin(table, json!({})).await;
    let seat = view["table"]["toAct"].as_u64().unwrap();
    app.admin(
        ACT,
        json!({"t": "v1", "table": 1, "seat": seat, "a": "FOLD"}),
    )
    .await;
}

async fn an_admin_amends_a_result_and_the_points_are_rescored(app: &TestApp) {
    a_night_in_the_standings(app).await;
    let standings = "query { standings(leagueId: \"apl\", season: \"s1\") { player points } }";
    let points = |body: &Value| -> Vec<(String, String)> {
        body["standings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                (
                    s["player"].as_str().unwrap().to_owned(),
                    s["points"].to_string(),
                )
            })
            .collect()
    };
    let before = points(&app.admin(standings, json!({})).await);
    assert_eq!(before[0].0, "ann", "{before:?}");
    let amend = "mutation($o: OutcomeInput!, $r: String!) { amendTournament(input: {leagueId: \"apl\", outcome: $o, reason: $r}) { events } }";
    // bob and ann were entered the wrong way round.
    let outcome = json!({
        "tournament": "t1", "venue": "crown", "season": "s1", "day": 1, "buyin": 2500,
        "prizepool": 7500, "field": 3,
        "finishes": [
            {"player": "bob", "place": 1, "prize": 5000},
            {"player": "ann", "place": 2, "prize": 2500},
            {"player": "cat", "place": 3}
        ]
    });
    let other = app.token(Role::Host, Some("anchor"), None).await;
    let mut elsewhere = outcome.clone();
    elsewhere["venue"] = json!("anchor");
    let last = app.last_position().await;
    let body = app
        .graphql(
            Some(&other),
            amend,
            json!({"o": elsewhere, "r": "mine now"}),
        )
        .await;
    assert_eq!(code(&body), "FORBIDDEN", "another venue's result: {body:#}");
    let body = app
        .graphql(Some(&app.admin), amend, json!({"o": outcome, "r": ""}))
        .await;
    assert_eq!(code(&body), "BAD_INPUT", "{body:#}");
    assert_eq!(app.last_position().await, last);

    let host = app.token(Role::Host, Some("crown"), None).await;
    let body = app
        .graphql(
            Some(&host),
            amend,
            json!({"o": outcome, "r": "winner and runner-up swapped on the sheet"}),
        )
        .await;
    assert_eq!(body["data"]["amendTournament"]["events"], 1, "{body:#}");
    let after = points(&app.admin(standings, json!({})).await);
    assert_eq!(
        after[0],
        ("bob".to_owned(), before[0].1.clone()),
        "{after:?}"
    );
    assert_eq!(
        after[1],
        ("ann".to_owned(), before[1].1.clone()),
        "{after:?}"
    );
    let (ty, actor, payload) = app.stream_events("league:apl").await.pop().unwrap();
    assert_eq!(ty, "TournamentAmended");
    assert!(actor.starts_with("host:crown:"), "{actor}");
    assert_eq!(
        payload["reason"],
        "winner and runner-up swapped on the sheet"
    );
}

async fn a_pot_pushed_to_the_wrong_player_is_put_right_before_the_next_hand(app: &TestApp) {
    a_league(app).await;
    started(app, "k1", "crown", Tracking::Dealt, &["ann", "bob", "cat"]).await;
    let host = app.token(Role::Host, Some("crown"), None).await;
    let other = app.token(Role::Host, Some("anchor"), None).await;
    let table = "query { table(tournamentId: \"k1\", table: 1) { inHand toAct seats { seat player chips } } }";
    let correct = "mutation($from: ID!, $to: ID!, $c: Chips!, $r: String!) { correctChips(input: {tournamentId: \"k1\", table: 1, from: $from, to: $to, chips: $c, reason: $r}) { events tournament { tables { seats { player chips } } } } }";
    let start = "mutation { startHand(input: {tournamentId: \"k1\", table: 1}) { events } }";
    let stacks = |view: &Value| -> Vec<(String, u64)> {
        view["table"]["seats"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                (
                    s["player"].as_str().unwrap().to_owned(),
                    s["chips"].as_u64().unwrap(),
                )
            })
            .collect()
    };
    let why = "the pot went to the big blind; seat 0 held the winning hand";
    // No hand played yet: nothing to put right.
    let body = app
        .graphql(
            Some(&host),
            correct,
            json!({"from": "ann", "to": "bob", "c": 10, "r": why}),
        )
        .await;
    assert_eq!(code(&body), "RULE_VIOLATION", "{body:#}");
    app.admin(start, json!({})).await;
    // During the hand the window is shut.
    let body = app
        .graphql(
            Some(&host),
            correct,
            json!({"from": "ann", "to": "bob", "c": 10, "r": why}),
        )
        .await;
    assert_eq!(code(&body), "RULE_VIOLATION", "{body:#}");
    loop {
        let view = app.admin(table, json!({})).await;
        if view["table"]["inHand"] != true {
            break;
        }
        let seat = view["table"]["toAct"].as_u64().unwrap();
        app.admin(
            ACT,
            json!({"t": "k1", "table": 1, "seat": seat, "a": "FOLD"}),
        )
        .await;
    }
    let before = stacks(&app.admin(table, json!({})).await);
    let total: u64 = before.iter().map(|(_, c)| c).sum();
    let (winner, won) = before.iter().max_by_key(|(_, c)| *c).cloned().unwrap();
    let loser = before
        .iter()
        .find(|(p, _)| *p != winner)
        .map(|(p, _)| p.clone())
        .unwrap();
    // Bad input, another venue's host, and more chips than the player has: each refused
    // with its code, nothing appended.
    let last = app.last_position().await;
    for (token, vars, expected, field) in [
        (
            &host,
            json!({"from": winner, "to": loser, "c": 0, "r": why}),
            "BAD_INPUT",
            Some("chips"),
        ),
        (
            &host,
            json!({"from": winner, "to": winner, "c": 5, "r": why}),
            "BAD_INPUT",
            Some("to"),
        ),
        (
            &host,
            json!({"from": winner, "to": loser, "c": 5, "r": " "}),
            "BAD_INPUT",
            Some("reason"),
        ),
        (
            &host,
            json!({"from": winner, "to": loser, "c": won, "r": why}),
            "RULE_VIOLATION",
            None,
        ),
        (
            &host,
            json!({"from": winner, "to": "nobody", "c": 5, "r": why}),
            "NOT_FOUND",
            None,
        ),
        (
            &other,
            json!({"from": winner, "to": loser, "c": 5, "r": why}),
            "FORBIDDEN",
            None,
        ),
    ] {
        assert_refused(app, token, correct, &vars, expected, field).await;
    }
    assert_eq!(app.last_position().await, last, "a refusal appends nothing");
    let body = app
        .graphql(
            Some(&host),
            correct,
            json!({"from": winner, "to": loser, "c": 15, "r": why}),
        )
        .await;
    assert!(body.get("errors").is_none(), "{body:#}");
    assert_eq!(body["data"]["correctChips"]["events"], 1, "{body:#}");
    let after = stacks(&app.admin(table, json!({})).await);
    for (player, chips) in &after {
        let had = before.iter().find(|(p, _)| p == player).unwrap().1;
        let expected = if *player == winner {
            had - 15
        } else if *player == loser {
            had + 15
        } else {
            had
        };
        assert_eq!(*chips, expected, "{player}: {after:?}");
    }
    assert_eq!(after.iter().map(|(_, c)| c).sum::<u64>(), total);
    // The auditor reads what was done, by whom and why.
    let events = app.stream_events("tournament:k1").await;
    let (kind, actor, payload) = events.last().unwrap();
    assert_eq!(kind, "ChipsCorrected");
    assert!(actor.starts_with("host:crown:"), "{actor}");
    assert_eq!(payload["data"]["reason"], why);
    assert_eq!(payload["data"]["hand"], 1);
    assert_eq!(payload["data"]["chips"], 15);
    // The next hand shuts the window again.
    app.admin(start, json!({})).await;
    let body = app
        .graphql(
            Some(&host),
            correct,
            json!({"from": loser, "to": winner, "c": 15, "r": why}),
        )
        .await;
    assert_eq!(code(&body), "RULE_VIOLATION", "{body:#}");
}

async fn a_player_in_the_wrong_seat_and_a_misplaced_button_are_put_right_between_hands(
    app: &TestApp,
) {
    a_league(app).await;
    started(app, "p1", "crown", Tracking::Dealt, &["ann", "bob", "cat"]).await;
    let host = app.token(Role::Host, Some("crown"), None).await;
    let other = app.token(Role::Host, Some("anchor"), None).await;
    let table = "query { table(tournamentId: \"p1\", table: 1) { inHand toAct button nextHand { button smallBlind bigBlind } seats { seat player chips } } }";
    let seat_fix = "mutation($p: ID!, $s: Int!, $r: String!) { correctSeat(input: {tournamentId: \"p1\", player: $p, table: 1, seat: $s, reason: $r}) { events } }";
    let button_fix = "mutation($b: Int!, $r: String!) { correctButton(input: {tournamentId: \"p1\", table: 1, button: $b, reason: $r}) { events } }";
    let start = "mutation { startHand(input: {tournamentId: \"p1\", table: 1}) { events } }";
    let seats = |view: &Value| -> Vec<(u64, String, u64)> {
        view["table"]["seats"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                (
                    s["seat"].as_u64().unwrap(),
                    s["player"].as_str().unwrap().to_owned(),
                    s["chips"].as_u64().unwrap(),
                )
            })
            .collect()
    };
    let seat_of = |view: &Value, player: &str| -> (u64, u64) {
        seats(view)
            .into_iter()
            .find(|(_, p, _)| p == player)
            .map(|(s, _, c)| (s, c))
            .unwrap()
    };
    let view = app.admin(table, json!({})).await;
    let (ann_seat, ann_chips) = seat_of(&view, "ann");
    let (bob_seat, _) = seat_of(&view, "bob");
    let open = (0..9)
        .find(|s| !seats(&view).iter().any(|(t, _, _)| t == s))
        .unwrap();
    let why = "sat at the wrong seat: the draw put her elsewhere";

    // Refused, each with its code, nothing appended: another venue's host, a seat off
    // the table, the player's own seat, a blank reason.
    let last = app.last_position().await;
    for (token, vars, expected, field) in [
        (
            &other,
            json!({"p": "ann", "s": open, "r": why}),
            "FORBIDDEN",
            None,
        ),
        (
            &host,
            json!({"p": "ann", "s": 99, "r": why}),
            "BAD_INPUT",
            Some("seat"),
        ),
        (
            &host,
            json!({"p": "ann", "s": ann_seat, "r": why}),
            "BAD_INPUT",
            Some("seat"),
        ),
        (
            &host,
            json!({"p": "ann", "s": open, "r": ""}),
            "BAD_INPUT",
            Some("reason"),
        ),
        (
            &host,
            json!({"p": "nobody", "s": open, "r": why}),
            "NOT_FOUND",
            None,
        ),
    ] {
        assert_refused(app, token, seat_fix, &vars, expected, field).await;
    }
    assert_eq!(app.last_position().await, last, "a refusal appends nothing");

    // To an open seat, with her chips.
    let body = app
        .graphql(
            Some(&host),
            seat_fix,
            json!({"p": "ann", "s": open, "r": why}),
        )
        .await;
    assert_eq!(body["data"]["correctSeat"]["events"], 1, "{body:#}");
    let view = app.admin(table, json!({})).await;
    assert_eq!(seat_of(&view, "ann"), (open, ann_chips));
    let (kind, actor, payload) = app.stream_events("tournament:p1").await.pop().unwrap();
    assert_eq!(kind, "SeatCorrected");
    assert!(actor.starts_with("host:crown:"), "{actor}");
    assert_eq!(payload["data"]["from_seat"], ann_seat, "{payload}");
    assert_eq!(payload["data"]["to_seat"], open, "{payload}");
    assert_eq!(payload["data"]["reason"], why);
    // Two players in each other's seats change places.
    let body = app
        .graphql(
            Some(&host),
            seat_fix,
            json!({"p": "bob", "s": open, "r": why}),
        )
        .await;
    assert_eq!(body["data"]["correctSeat"]["events"], 1, "{body:#}");
    let view = app.admin(table, json!({})).await;
    assert_eq!(seat_of(&view, "bob").0, open);
    assert_eq!(seat_of(&view, "ann"), (bob_seat, ann_chips));
    let (_, _, payload) = app.stream_events("tournament:p1").await.pop().unwrap();
    assert_eq!(payload["data"]["swapped"], "ann", "{payload}");

    // No button to put right before the first hand (it was drawn), and no correction
    // while a hand runs.
    let body = app
        .graphql(
            Some(&host),
            button_fix,
            json!({"b": open, "r": "misplaced"}),
        )
        .await;
    assert_eq!(code(&body), "RULE_VIOLATION", "{body:#}");
    app.admin(start, json!({})).await;
    for body in [
        app.graphql(
            Some(&host),
            seat_fix,
            json!({"p": "ann", "s": ann_seat, "r": why}),
        )
        .await,
        app.graphql(
            Some(&host),
            button_fix,
            json!({"b": open, "r": "misplaced"}),
        )
        .await,
    ] {
        assert_eq!(code(&body), "RULE_VIOLATION", "{body:#}");
    }
    loop {
        let view = app.admin(table, json!({})).await;
        if view["table"]["inHand"] != true {
            break;
        }
        let seat = view["table"]["toAct"].as_u64().unwrap();
        app.admin(
            ACT,
            json!({"t": "p1", "table": 1, "seat": seat, "a": "FOLD"}),
        )
        .await;
    }
    // The button was placed wrong in the hand just played: for the next one it belongs
    // at another player's seat than the one it is due at.
    let view = app.admin(table, json!({})).await;
    let empty = (0..9)
        .find(|s| !seats(&view).iter().any(|(t, _, _)| t == s))
        .unwrap();
    let last = app.last_position().await;
    for (vars, expected, field) in [
        (
            json!({"b": 99, "r": "misplaced"}),
            "BAD_INPUT",
            Some("button"),
        ),
        (
            json!({"b": empty, "r": "misplaced"}),
            "RULE_VIOLATION",
            None,
        ),
    ] {
        assert_refused(app, &host, button_fix, &vars, expected, field).await;
    }
    assert_eq!(app.last_position().await, last, "a refusal appends nothing");
    let reason = "the button was placed at the wrong seat last hand";
    let due = view["table"]["nextHand"]["button"].as_u64().unwrap();
    let belongs = seats(&view)
        .iter()
        .map(|(s, _, _)| *s)
        .find(|s| *s != due)
        .unwrap();
    let body = app
        .graphql(Some(&host), button_fix, json!({"b": belongs, "r": reason}))
        .await;
    assert_eq!(body["data"]["correctButton"]["events"], 1, "{body:#}");
    // The table shows where the button now goes, with the blinds after it.
    let view = app.admin(table, json!({})).await;
    assert_eq!(view["table"]["button"], Value::Null, "{view:#}");
    assert_eq!(view["table"]["nextHand"]["button"], belongs, "{view:#}");
    let (kind, actor, payload) = app.stream_events("tournament:p1").await.pop().unwrap();
    assert_eq!(kind, "ButtonCorrected");
    assert!(actor.starts_with("host:crown:"), "{actor}");
    assert_eq!(payload["data"]["button"], belongs, "{payload}");
    assert_eq!(payload["data"]["hand"], 1, "{payload}");
    assert_eq!(payload["data"]["was"], due, "{payload}");
    assert_eq!(payload["data"]["reason"], reason);
    // Where it was due, it is refused now; the next hand is dealt on it.
    let body = app
        .graphql(Some(&host), button_fix, json!({"b": belongs, "r": reason}))
        .await;
    assert_eq!(code(&body), "RULE_VIOLATION", "{body:#}");
    app.admin(start, json!({})).await;
    let view = app.admin(table, json!({})).await;
    assert_eq!(view["table"]["button"], belongs, "{view:#}");
    assert_eq!(
        view["table"]["nextHand"],
        Value::Null,
        "a hand is in progress"
    );
}

on_every_backend!(
    a_player_in_the_wrong_seat_and_a_misplaced_button_are_put_right_between_hands,
    a_pot_pushed_to_the_wrong_player_is_put_right_before_the_next_hand,
    a_host_cancels_a_tournament_and_every_entrant_is_refunded,
    a_player_eliminated_by_mistake_is_reinstated,
    a_misdealt_hand_is_voided_and_every_chip_goes_back,
    an_admin_amends_a_result_and_the_points_are_rescored,
);
