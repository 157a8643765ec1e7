//! Penalties through the API, as a venue's host gives them: at West Pennant Hills a repeat
//! offender's penalty climbs the book's ladder (WPH 47: "Repeat infractions are subject to
//! escalating penalties"), the tournament says the least the next one may be, and a lighter
//! one is refused; a forfeiture of chips (WPH 50) takes chips out of play and leaves the
//! player in; an elimination puts a player out in the place they went out in. QueenSix
//! leaves escalation to its host. Each refusal appends nothing.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test")]

use league_api::auth::Role;
use league_engine::rules::Preset;
use league_tests::{TestApp, a_league, assert_refused, code, on_every_backend, recorded, u};
use serde_json::{Value, json};

const PENALISE: &str = "mutation($t: ID!, $p: ID!, $k: PenaltyKind!, $n: Int, $c: Chips) { penalise(input: {tournamentId: $t, player: $p, penalty: $k, count: $n, chips: $c}) { events } }";
const VIEW: &str = "query($t: ID!, $p: ID!) { tournament(id: $t) { remaining places { player place } tables { seats { player chips } } penalties { player kind count chips hands rule text } leastPenalty(player: $p) { kind count text } sittingOut { player handsLeft } } }";
const START_HAND: &str =
    "mutation($t: ID!) { startHand(input: {tournamentId: $t, table: 1}) { events } }";
const VOID: &str = "mutation($t: ID!) { voidHand(input: {tournamentId: $t, table: 1, kind: MISDEAL, reason: \"a card flashed\"}) { events } }";

async fn view(app: &TestApp, id: &str, player: &str) -> Value {
    let body = app.admin(VIEW, json!({"t": id, "p": player})).await;
    assert!(body.get("errors").is_none(), "{body:#}");
    body["tournament"].clone()
}

fn chips_of(view: &Value, player: &str) -> u64 {
    u(&view["tables"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|t| t["seats"].as_array().cloned().unwrap())
        .find(|s| s["player"] == player)
        .unwrap()["chips"])
}

async fn penalise(app: &TestApp, token: &str, vars: Value) {
    let body = app.graphql(Some(token), PENALISE, vars.clone()).await;
    assert!(body.get("errors").is_none(), "{vars}: {body:#}");
}

async fn penalties_climb_the_ladder_and_forfeits_and_eliminations_take_chips_out_of_play(
    app: &TestApp,
) {
    a_league(app).await;
    recorded(app, "w1", Preset::Wph).await;
    let host = app.token(Role::Host, Some("crown"), None).await;
    let other = app.token(Role::Host, Some("anchor"), None).await;
    let player = app.token(Role::Player, None, Some("ann")).await;
    let warn = |p: &str| json!({"t": "w1", "p": p, "k": "WARNING"});
    for token in [&other, &player] {
        assert_refused(app, token, PENALISE, &warn("ann"), "FORBIDDEN", None).await;
    }
    let before = view(app, "w1", "ann").await;
    assert_eq!(before["penalties"], json!([]));
    assert_eq!(before["leastPenalty"], Value::Null, "a first infraction");

    // WPH 47: a warning, then at least one hand, then at least one round more each time.
    penalise(app, &host, warn("ann")).await;
    let t = view(app, "w1", "ann").await;
    assert_eq!(
        t["leastPenalty"],
        json!({"kind": "MISS_HANDS", "count": 1, "text": "1 hand missed"})
    );
    let at = app.last_position().await;
    let refused = app.graphql(Some(&host), PENALISE, warn("ann")).await;
    assert_eq!(app.last_position().await, at, "a refusal appends nothing");
    assert_eq!(code(&refused), "CONTRADICTS_PRESET", "{refused:#}");
    let extensions = &refused["errors"][0]["extensions"];
    assert_eq!(extensions["field"], "penalty");
    assert_eq!(extensions["rule"], "47");
    let message = refused["errors"][0]["message"].as_str().unwrap();
    assert!(
        message.contains("ann's heaviest penalty so far is a warning")
            && message.contains("at least 1 hand missed"),
        "{message}"
    );
    penalise(
        app,
        &host,
        json!({"t": "w1", "p": "ann", "k": "MISS_ROUNDS", "n": 1}),
    )
    .await;
    let t = view(app, "w1", "ann").await;
    assert_eq!(
        t["leastPenalty"],
        json!({"kind": "MISS_ROUNDS", "count": 2, "text": "2 rounds missed"})
    );
    // A round is a hand for each of the three at the table.
    assert_eq!(t["sittingOut"], json!([{"player": "ann", "handsLeft": 3}]));
    let at = app.last_position().await;
    for (vars, field) in [
        (warn("ann"), "penalty"),
        (
            json!({"t": "w1", "p": "ann", "k": "MISS_HANDS", "n": 1}),
            "penalty",
        ),
        (
            json!({"t": "w1", "p": "ann", "k": "MISS_ROUNDS", "n": 1}),
            "penalty",
        ),
        // Still bounded by the book: one to four rounds.
        (
            json!({"t": "w1", "p": "ann", "k": "MISS_ROUNDS", "n": 5}),
            "count",
        ),
    ] {
        assert_refused(
            app,
            &host,
            PENALISE,
            &vars,
            "CONTRADICTS_PRESET",
            Some(field),
        )
        .await;
    }
    assert_eq!(app.last_position().await, at, "refusals append nothing");

    // WPH 50: a forfeiture of chips, fewer than all of them, in the smallest chip (25).
    let stack = chips_of(&t, "bob");
    let forfeit = |c: Value| json!({"t": "w1", "p": "bob", "k": "FORFEIT", "c": c});
    let at = app.last_position().await;
    for (vars, field) in [
        (json!({"t": "w1", "p": "bob", "k": "FORFEIT"}), "chips"),
        (
            json!({"t": "w1", "p": "bob", "k": "FORFEIT", "c": 500, "n": 1}),
            "count",
        ),
        (
            json!({"t": "w1", "p": "bob", "k": "WARNING", "c": 500}),
            "chips",
        ),
        (json!({"t": "w1", "p": "bob", "k": "MISS_HANDS"}), "count"),
        (forfeit(json!(0)), "chips"),
        (forfeit(json!(stack)), "chips"),
        (forfeit(json!(stack + 25)), "chips"),
        (forfeit(json!(510)), "chips"),
    ] {
        assert_refused(app, &host, PENALISE, &vars, "BAD_INPUT", Some(field)).await;
    }
    // Not while a hand is on at the player's table.
    let body = app.admin(START_HAND, json!({"t": "w1"})).await;
    assert!(body.get("errors").is_none(), "{body:#}");
    let at_hand = app.last_position().await;
    let refused = app
        .graphql(Some(&host), PENALISE, forfeit(json!(500)))
        .await;
    assert_eq!(code(&refused), "RULE_VIOLATION", "{refused:#}");
    assert_eq!(app.last_position().await, at_hand);
    let body = app.graphql(Some(&host), VOID, json!({"t": "w1"})).await;
    assert!(body.get("errors").is_none(), "{body:#}");
    assert!(app.last_position().await > at);

    penalise(app, &host, forfeit(json!(500))).await;
    let t = view(app, "w1", "bob").await;
    assert_eq!(chips_of(&t, "bob"), stack - 500, "{t:#}");
    assert_eq!(t["remaining"], 3);
    assert_eq!(
        t["leastPenalty"],
        Value::Null,
        "a forfeiture is off the ladder"
    );
    let bob: Vec<&Value> = t["penalties"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["player"] == "bob")
        .collect();
    assert_eq!(
        bob,
        [
            &json!({"player": "bob", "kind": "FORFEIT", "count": null, "chips": 500, "hands": 0, "rule": "WPH 47", "text": "500 chips forfeited"})
        ]
    );
    // A forfeiture is taken at any time, even after a warning.
    penalise(app, &host, warn("bob")).await;
    penalise(app, &host, forfeit(json!(250))).await;
    assert_eq!(chips_of(&view(app, "w1", "bob").await, "bob"), stack - 750);

    // Elimination: out now, chips out of play, third of three.
    let cat = chips_of(&view(app, "w1", "cat").await, "cat");
    penalise(app, &host, json!({"t": "w1", "p": "cat", "k": "ELIMINATE"})).await;
    let t = view(app, "w1", "cat").await;
    assert_eq!(t["remaining"], 2);
    let place = t["places"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["player"] == "cat")
        .unwrap()["place"]
        .clone();
    assert_eq!(place, 3);
    assert_eq!(t["leastPenalty"], Value::Null, "cat is out");
    let kinds: Vec<(&str, &str)> = t["penalties"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["player"].as_str().unwrap(), p["kind"].as_str().unwrap()))
        .collect();
    assert_eq!(
        kinds,
        [
            ("ann", "WARNING"),
            ("ann", "MISS_ROUNDS"),
            ("bob", "FORFEIT"),
            ("bob", "WARNING"),
            ("bob", "FORFEIT"),
            ("cat", "ELIMINATE"),
        ]
    );
    // The auditor reads the elimination and the chips it took in the log.
    let body = app
        .admin(
            "{ events(first: 1000) { events { streamId eventType payload } } }",
            json!({}),
        )
        .await;
    let reasons: Vec<String> = body["events"]["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["streamId"] == "tournament:w1" && e["eventType"] == "PlayersEliminated")
        .map(|e| {
            let payload: Value = serde_json::from_str(e["payload"].as_str().unwrap()).unwrap();
            payload["data"]["reason"].as_str().unwrap().to_owned()
        })
        .collect();
    assert_eq!(
        reasons,
        [format!(
            "eliminated as a penalty: {cat} chips removed from play"
        )]
    );

    // QueenSix's book leaves escalation to its host: a second warning is taken.
    recorded(app, "q1", Preset::QueenSix).await;
    let warn = json!({"t": "q1", "p": "ann", "k": "WARNING"});
    penalise(app, &host, warn.clone()).await;
    penalise(app, &host, warn).await;
    // Its lengths are the host's, but never none.
    for kind in ["MISS_HANDS", "MISS_ROUNDS"] {
        let vars = json!({"t": "q1", "p": "ann", "k": kind, "n": 0});
        assert_refused(app, &host, PENALISE, &vars, "BAD_INPUT", Some("count")).await;
    }
    let t = view(app, "q1", "ann").await;
    assert_eq!(t["leastPenalty"], Value::Null);
    assert_eq!(t["penalties"].as_array().unwrap().len(), 2);
}

on_every_backend!(penalties_climb_the_ladder_and_forfeits_and_eliminations_take_chips_out_of_play);
