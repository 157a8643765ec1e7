//! A whole venue night through the API, as a venue app and a bar-TV dashboard live it,
//! using only the SDL's typed inputs (the schema has no `JSON` scalar): a league set up; a
//! results-only tournament with a re-buy, a redraw that the view announces and the
//! commands wait for, and a correction (a player busted by mistake, reinstated); its result
//! recorded into the season and then amended, the points re-scored; a dealt table played to
//! a winner from what its view offers and recorded too. A dashboard subscription follows
//! the tournament and an auditor's `eventLog` subscription receives every event, in order.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test")]

use std::time::Duration;

use futures_util::StreamExt as _;
use league_api::auth::Role;
use league_engine::rules::Preset;
use league_engine::tournament::play::{PurchasePolicy, Tracking};
use league_engine::tournament::pool::Price;
use league_engine::tournament::sim::weekly_schedule;
use league_engine::units::{Cents, Chips};
use league_tests::{
    REGISTER, SCHEDULE, START, TestApp, WebSocket, a_league, code, next_message, on_every_backend,
    play_to_a_winner, seed, started, u,
};
use serde_json::{Value, json};

const NIGHT: &str = "query($t: ID!) { tournament(id: $t) { stage remaining entries rebuys field prizePool tables { table seats { player chips } } pending { kind players } results { player place shared prize rebuys knockouts } } }";

/// The results-only QueenSix night: tables of four, one $20 re-buy in levels 1 and 2.
fn night_schedule() -> Value {
    let mut s = weekly_schedule(
        "crown",
        Preset::QueenSix,
        Tracking::Results,
        seed(1).commitment(),
    );
    s.name = "Thursday night".into();
    s.table_size = 4;
    s.pool.rebuy = Some(Price::new(Cents::new(2_000), Cents::ZERO));
    s.rebuys = Some(PurchasePolicy {
        per_player: 1,
        from_level: 1,
        until_level: 2,
        chips: Chips::new(5_000),
        max_stack: None,
        after_bust_only: false,
        until_minutes: None,
    });
    league_api::schema::tournaments::inputs::schedule_input(&s)
}

/// The pending actions' kinds.
fn pending(view: &Value) -> Vec<String> {
    view["tournament"]["pending"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["kind"].as_str().unwrap().to_owned())
        .collect()
}

/// The players at the fullest table, in seat order.
fn fullest_table(view: &Value) -> Vec<String> {
    view["tournament"]["tables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            t["seats"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s["player"].as_str().unwrap().to_owned())
                .collect::<Vec<String>>()
        })
        .max_by_key(Vec::len)
        .unwrap()
}

async fn subscribe(app: &TestApp, token: Option<&str>, query: &str) -> WebSocket {
    let init = token.map_or(
        json!({}),
        |t| json!({"Authorization": format!("Bearer {t}")}),
    );
    let mut ws = app
        .subscribe(
            "graphql-transport-ws",
            init,
            json!({"id": "1", "type": "subscribe", "payload": {"query": query}}),
        )
        .await;
    let ack = next_message(&mut ws, "the connection_ack").await;
    assert_eq!(ack["type"], "connection_ack", "{ack:#}");
    ws
}

/// The next `next` payload's data.
async fn next_data(ws: &mut WebSocket, what: &str) -> Value {
    let message = next_message(ws, what).await;
    assert_eq!(message["type"], "next", "{message:#}");
    assert!(message["payload"]["errors"].is_null(), "{message:#}");
    message["payload"]["data"].clone()
}

async fn standings(app: &TestApp) -> Vec<(String, String)> {
    app.admin(
        "query { standings(leagueId: \"apl\", season: \"s1\") { player points } }",
        json!({}),
    )
    .await["standings"]
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
}

async fn a_whole_venue_night_through_the_typed_api(app: &TestApp) {
    assert!(
        !league_api::sdl().contains("scalar JSON"),
        "the venue app's schema has no JSON scalar"
    );
    // The league: apl with crown and the season s1 (ann, bob, cat), and six more members.
    a_league(app).await;
    let players = [
        "ann", "bob", "cat", "dan", "eve", "fay", "gus", "hal", "ivy",
    ];
    for p in &players[3..] {
        app.admin(
            "mutation($p: ID!) { registerPlayer(input: {leagueId: \"apl\", player: $p, name: $p, membership: $p}) { events } }",
            json!({"p": p}),
        )
        .await;
    }
    let host = app.token(Role::Host, Some("crown"), None).await;
    let from = app.last_position().await.map_or(0, |p| p + 1);
    let mut log = subscribe(
        app,
        Some(&app.admin),
        &format!("subscription {{ eventLog(fromPosition: \"{from}\") {{ position streamId eventType }} }}"),
    )
    .await;

    // The night: scheduled, watched by the bar TV (anonymously), registered, started.
    let body = app
        .graphql(
            Some(&host),
            SCHEDULE,
            json!({"id": "night", "s": night_schedule()}),
        )
        .await;
    assert!(body.get("errors").is_none(), "{body:#}");
    let mut tv = subscribe(
        app,
        None,
        "subscription { tournament(id: \"night\") { stage remaining entries rebuys } }",
    )
    .await;
    for p in players {
        let body = app
            .graphql(Some(&host), REGISTER, json!({"t": "night", "p": p}))
            .await;
        assert!(body.get("errors").is_none(), "{body:#}");
    }
    app.graphql(Some(&host), START, json!({"t": "night"})).await;
    let view = app.admin(NIGHT, json!({"t": "night"})).await;
    assert_eq!(view["tournament"]["tables"].as_array().unwrap().len(), 3);

    let eliminate = "mutation($p: ID!, $by: ID) { eliminate(input: {tournamentId: \"night\", players: [$p], by: $by}) { events } }";
    let host_does = |query: &'static str, vars: Value| {
        let host = host.clone();
        async move {
            let body = app.graphql(Some(&host), query, vars).await;
            assert!(body.get("errors").is_none(), "{query}: {body:#}");
            body
        }
    };
    // A bust in the re-buy window: the view says a decision is pending; the player pays.
    let table = fullest_table(&view);
    host_does(eliminate, json!({"p": table[0], "by": table[1]})).await;
    let view = app.admin(NIGHT, json!({"t": "night"})).await;
    assert_eq!(pending(&view), ["REBUY_DECISIONS"], "{view:#}");
    assert_eq!(
        view["tournament"]["pending"][0]["players"],
        json!([table[0]])
    );
    host_does(
        "mutation($p: ID!) { rebuy(input: {tournamentId: \"night\", player: $p}) { events } }",
        json!({"p": table[0]}),
    )
    .await;

    // The rest of the night, as the host's app runs it from what the view says.
    let (mut redraws, mut corrected, mut declined) = (0, false, 0);
    loop {
        let view = app.admin(NIGHT, json!({"t": "night"})).await;
        let t = &view["tournament"];
        if t["stage"] == "FINISHED" {
            break;
        }
        let kinds = pending(&view);
        if kinds.iter().any(|k| k == "REDRAW") {
            // The next knock-out waits for the redraw, with a code that names it.
            let someone = fullest_table(&view)[0].clone();
            let body = app
                .graphql(Some(&host), eliminate, json!({"p": someone}))
                .await;
            assert_eq!(code(&body), "REDRAW_DUE", "{body:#}");
            host_does(
                "mutation { redraw(input: {tournamentId: \"night\"}) { events } }",
                json!({}),
            )
            .await;
            redraws += 1;
            continue;
        }
        if kinds.iter().any(|k| k == "REBUY_DECISIONS") {
            let busted = t["pending"]
                .as_array()
                .unwrap()
                .iter()
                .find(|p| p["kind"] == "REBUY_DECISIONS")
                .unwrap()["players"]
                .as_array()
                .unwrap()
                .clone();
            for p in busted {
                if !corrected {
                    // The wrong player was called out: the host reinstates them.
                    host_does(
                        "mutation($p: ID!) { reinstate(input: {tournamentId: \"night\", player: $p, reason: \"the wrong player was called out\"}) { events } }",
                        json!({"p": p}),
                    )
                    .await;
                    corrected = true;
                    continue;
                }
                host_does(
                    "mutation($p: ID!) { declineRebuy(input: {tournamentId: \"night\", player: $p}) { events } }",
                    json!({"p": p}),
                )
                .await;
                declined += 1;
            }
            continue;
        }
        let table = fullest_table(&view);
        host_does(eliminate, json!({"p": table[0], "by": table[1]})).await;
    }
    assert!(redraws >= 1, "QueenSix 16 redraws as the tables come down");
    assert!(corrected && declined >= 1);

    // The bar TV saw the night in order, to its end.
    let mut seen = Vec::new();
    loop {
        let data = next_data(&mut tv, "the dashboard").await;
        let t = data["tournament"].clone();
        let done = t["stage"] == "FINISHED";
        seen.push(t);
        if done {
            break;
        }
    }
    for pair in seen.windows(2) {
        assert!(
            u(&pair[1]["entries"]) >= u(&pair[0]["entries"])
                && u(&pair[1]["rebuys"]) >= u(&pair[0]["rebuys"]),
            "purchases only grow: {pair:#?}"
        );
    }
    let last = seen.last().unwrap();
    assert_eq!(
        (
            u(&last["entries"]),
            u(&last["rebuys"]),
            u(&last["remaining"])
        ),
        (9, 1, 1),
        "{last:#}"
    );
    assert!(seen.iter().any(|t| t["stage"] == "RUNNING"), "{seen:#?}");

    // The result into the season; then amended: the runner-up was the winner.
    host_does(
        "mutation { recordTournamentResult(input: {leagueId: \"apl\", tournamentId: \"night\", season: \"s1\", day: 1}) { events } }",
        json!({}),
    )
    .await;
    let before = standings(app).await;
    let t = app.admin(NIGHT, json!({"t": "night"})).await["tournament"].clone();
    let mut finishes: Vec<Value> = t["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            json!({"player": r["player"], "place": r["place"], "shared": r["shared"],
                   "prize": r["prize"], "rebuys": r["rebuys"], "knockouts": r["knockouts"]})
        })
        .collect();
    finishes.sort_by_key(|f| u(&f["place"]));
    let (first, second) = (finishes[0]["player"].clone(), finishes[1]["player"].clone());
    finishes[0]["player"] = second.clone();
    finishes[1]["player"] = first.clone();
    let outcome = json!({
        "tournament": "night", "venue": "crown", "season": "s1", "day": 1,
        "buyin": 2_500, "prizepool": t["prizePool"], "field": t["field"], "finishes": finishes,
    });
    host_does(
        "mutation($o: OutcomeInput!) { amendTournament(input: {leagueId: \"apl\", outcome: $o, reason: \"first and second entered the wrong way round\"}) { events } }",
        json!({"o": outcome}),
    )
    .await;
    let after = standings(app).await;
    assert_eq!(before[0].0, first.as_str().unwrap(), "{before:?}");
    assert_eq!(
        after[0],
        (second.as_str().unwrap().to_owned(), before[0].1.clone()),
        "{after:?}"
    );

    // A dealt table at the same venue, played to a winner from its view, and recorded.
    started(
        app,
        "dealt",
        "crown",
        Tracking::Dealt,
        &["ann", "bob", "cat"],
    )
    .await;
    play_to_a_winner(app, "dealt", 15_000, 11).await;
    host_does(
        "mutation { recordTournamentResult(input: {leagueId: \"apl\", tournamentId: \"dealt\", season: \"s1\", day: 2}) { events } }",
        json!({}),
    )
    .await;
    let record = app
        .admin(
            "query { playerRecord(leagueId: \"apl\", player: \"ann\") { played } }",
            json!({}),
        )
        .await;
    assert_eq!(record["playerRecord"]["played"], 2, "{record:#}");

    // The auditor's feed held every event of the night, in the log's order.
    let last = app.last_position().await.unwrap();
    let mut positions = Vec::new();
    let mut types = Vec::new();
    while positions.last().is_none_or(|p| *p < last) {
        let data = next_data(&mut log, "the event log").await;
        let e = &data["eventLog"];
        positions.push(
            e["position"]
                .as_str()
                .map_or_else(|| u(&e["position"]), |s| s.parse().unwrap()),
        );
        types.push(e["eventType"].as_str().unwrap().to_owned());
    }
    assert!(positions.windows(2).all(|w| w[0] < w[1]), "in order");
    let stored = app.store.read_all(from, 100_000).await.unwrap();
    assert_eq!(
        positions,
        stored.iter().map(|e| e.position).collect::<Vec<u64>>(),
        "every event, none twice"
    );
    for wanted in [
        "PlayerBusted",
        "RebuyMade",
        "PlayerReinstated",
        "RedrawRequired",
        "SeatsRedrawn",
        "TournamentFinished",
        "TournamentRecorded",
        "TournamentAmended",
    ] {
        assert!(
            types.iter().any(|t| t == wanted),
            "no {wanted} in {types:?}"
        );
    }
    // Nothing more arrives for a while: no event was sent twice.
    let extra = tokio::time::timeout(Duration::from_millis(300), log.next()).await;
    assert!(extra.is_err(), "an event after the last: {extra:?}");
}

on_every_backend!(a_whole_venue_night_through_the_typed_api);
