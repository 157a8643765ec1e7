//! The GraphQL service end to end, tournaments: from the schedule to the payouts and the
//! standings, late entries, idempotent retries, racing hosts, paging. Each scenario runs on
//! its own server and database, on SQLite and (with `LEAGUE_TEST_POSTGRES_URL`) PostgreSQL.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use league_api::auth::Role;
use league_engine::tournament::play::Tracking;
use league_tests::{
    ACT, REGISTER, SCHEDULE, START, TABLE, TestApp, a_league, code, schedule, started,
};
use serde_json::{Value, json};

async fn a_results_tracked_tournament_runs_from_schedule_to_payouts_into_the_standings(
    app: &TestApp,
) {
    // Arrange: a league with a venue, a season and three players.
    a_league(app).await;

    // Act: schedule, register, start, two eliminations.
    started(
        app,
        "t1",
        "crown",
        Tracking::Results,
        &["ann", "bob", "cat"],
    )
    .await;
    app.admin(
        "mutation { eliminate(input: {tournamentId: \"t1\", players: [\"cat\"], by: \"ann\"}) { events } }",
        json!({}),
    )
    .await;
    app.admin(
        "mutation { eliminate(input: {tournamentId: \"t1\", players: [\"bob\"], by: \"ann\"}) { events } }",
        json!({}),
    )
    .await;

    // Assert: finished with everyone placed and the pool paid out.
    let t = app
        .admin(
            "{ tournament(id: \"t1\") { stage entries prizePool prizes results { player place prize knockouts } } }",
            json!({}),
        )
        .await;
    let t = &t["tournament"];
    assert_eq!(t["stage"], "FINISHED", "{t:#}");
    assert_eq!(t["entries"], 3);
    assert_eq!(t["prizePool"], 6000);
    let results = t["results"].as_array().unwrap();
    assert_eq!(results[0]["player"], "ann");
    assert_eq!(results[0]["knockouts"], 2);
    let paid: u64 = results.iter().map(|r| r["prize"].as_u64().unwrap()).sum();
    assert_eq!(paid, 6000);

    // And into the league.
    app.admin(
        "mutation { recordTournamentResult(input: {leagueId: \"apl\", tournamentId: \"t1\", season: \"s1\", day: 1}) { events } }",
        json!({}),
    )
    .await;
    let s = app
        .admin(
            "{ standings(leagueId: \"apl\", season: \"s1\") { rank player points } }",
            json!({}),
        )
        .await;
    assert_eq!(s["standings"][0]["player"], "ann");
    assert_eq!(s["standings"][0]["points"], 125);
    let record = app
        .graphql(
            None,
            "{ playerRecord(leagueId: \"apl\", player: \"bob\") { played results { place } } }",
            json!({}),
        )
        .await;
    assert_eq!(record["data"]["playerRecord"]["results"][0]["place"], 2);
}

async fn a_retry_with_the_same_idempotency_key_appends_once(app: &TestApp) {
    app.admin(
        SCHEDULE,
        json!({"id": "t4", "s": schedule("crown", Tracking::Results)}),
    )
    .await;
    let first = app
        .admin(REGISTER, json!({"t": "t4", "p": "ann", "k": "reg-ann"}))
        .await;
    let after_first = app.last_position().await;
    let again = app
        .admin(REGISTER, json!({"t": "t4", "p": "ann", "k": "reg-ann"}))
        .await;
    assert_eq!(app.last_position().await, after_first);
    assert_eq!(
        first["register"]["firstPosition"],
        again["register"]["firstPosition"]
    );
    assert_eq!(again["register"]["deduplicated"], true);
    // Without the key, the same command is a rule violation (already registered).
    let body = app
        .graphql(Some(&app.admin), REGISTER, json!({"t": "t4", "p": "ann"}))
        .await;
    assert_eq!(code(&body), "RULE_VIOLATION", "{body:#}");
}

const LATE_ENTRY: &str =
    "mutation($t: ID!, $p: ID!) { lateEntry(input: {tournamentId: $t, player: $p}) { events } }";

async fn late_entries_close_by_level_or_by_time(app: &TestApp) {
    // Open for the first hour: the server stamps the entry with its clock.
    let mut open = schedule("crown", Tracking::Results);
    open["lateRegistration"] = json!({"untilLevel": 2, "untilMinutes": 60});
    app.admin(SCHEDULE, json!({"id": "t6", "s": open})).await;
    for p in ["ann", "bob"] {
        app.admin(REGISTER, json!({"t": "t6", "p": p})).await;
    }
    app.admin(START, json!({"t": "t6"})).await;
    let late = json!({"t": "t6", "p": "cat"});
    let data = app.admin(LATE_ENTRY, late).await;
    assert!(
        data["lateEntry"]["events"].as_u64().unwrap() >= 1,
        "{data:#}"
    );
    let view = app
        .admin(
            "{ tournament(id: \"t6\") { entries remaining } }",
            json!({}),
        )
        .await;
    assert_eq!(view["tournament"]["entries"], 3, "{view:#}");
    // A window of no minutes is closed from the start: a typed refusal, nothing appended.
    let mut closed = schedule("crown", Tracking::Results);
    closed["lateRegistration"] = json!({"untilLevel": 2, "untilMinutes": 0});
    app.admin(SCHEDULE, json!({"id": "t7", "s": closed})).await;
    for p in ["ann", "bob"] {
        app.admin(REGISTER, json!({"t": "t7", "p": p})).await;
    }
    app.admin(START, json!({"t": "t7"})).await;
    let before = app.last_position().await;
    let late = json!({"t": "t7", "p": "cat"});
    let body = app.graphql(Some(&app.admin), LATE_ENTRY, late).await;
    assert_eq!(code(&body), "RULE_VIOLATION", "{body:#}");
    let message = body["errors"][0]["message"].as_str().unwrap();
    assert!(
        message.contains("late entries close after 0 minutes"),
        "{message}"
    );
    assert_eq!(app.last_position().await, before);
}

async fn two_hosts_racing_on_one_table_one_wins_and_the_log_stays_consistent(app: &TestApp) {
    started(app, "r1", "crown", Tracking::Dealt, &["ann", "bob", "cat"]).await;
    app.admin(
        "mutation { startHand(input: {tournamentId: \"r1\", table: 1}) { events } }",
        json!({}),
    )
    .await;
    let before = app.admin(TABLE, json!({"t": "r1"})).await;
    let seat = before["table"]["toAct"].as_u64().unwrap();
    let (one, two) = (
        app.token(Role::Host, Some("crown"), None).await,
        app.token(Role::Host, Some("crown"), None).await,
    );
    // Both hosts fold the seat to act at the same moment.
    {
        let fold = json!({"t": "r1", "table": 1, "seat": seat, "a": "FOLD"});
        let (a, b) = futures_util::join!(
            app.graphql(Some(&one), ACT, fold.clone()),
            app.graphql(Some(&two), ACT, fold.clone())
        );
        let ok = [&a, &b]
            .iter()
            .filter(|r| r.get("errors").is_none())
            .count();
        assert_eq!(ok, 1, "exactly one wins: {a:#} {b:#}");
        let loser = if a.get("errors").is_some() { &a } else { &b };
        assert!(
            matches!(code(loser), "NOT_YOUR_TURN" | "CONFLICT"),
            "a clear error: {loser:#}"
        );
    }
    // The log: one fold, the stream's versions contiguous from 1.
    let events = app.store.read_stream("tournament:r1", 0).await.unwrap();
    let versions: Vec<u64> = events.iter().map(|e| e.stream_version).collect();
    assert_eq!(
        versions,
        (1..=u64::try_from(events.len()).unwrap()).collect::<Vec<_>>()
    );
    let folds = events
        .iter()
        .filter(|e| String::from_utf8_lossy(&e.payload).contains("PlayerFolded"))
        .count();
    assert_eq!(folds, 1);
    let after = app.admin(TABLE, json!({"t": "r1"})).await;
    assert_ne!(after["table"]["toAct"], before["table"]["toAct"]);
}

async fn tournaments_page_by_cursor(app: &TestApp) {
    // Arrange: five tournaments, so pages of two end with a short one.
    for id in ["p1", "p2", "p3", "p4", "p5"] {
        app.admin(
            SCHEDULE,
            json!({"id": id, "s": schedule("crown", Tracking::Results)}),
        )
        .await;
    }
    let all = app
        .admin(
            "{ tournaments(first: 1000) { tournaments { id } hasNextPage } }",
            json!({}),
        )
        .await;
    let all: Vec<String> = all["tournaments"]["tournaments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_str().unwrap().to_owned())
        .collect();
    assert!(all.len() >= 5, "{all:?}");
    let mut paged = Vec::new();
    let mut after = Value::Null;
    loop {
        let page = app
            .admin(
                "query($a: String) { tournaments(first: 2, after: $a) { tournaments { id } endCursor hasNextPage } }",
                json!({"a": after}),
            )
            .await;
        let page = &page["tournaments"];
        let ids = page["tournaments"].as_array().unwrap();
        assert!(ids.len() <= 2);
        paged.extend(ids.iter().map(|t| t["id"].as_str().unwrap().to_owned()));
        if page["hasNextPage"] != true {
            break;
        }
        after = page["endCursor"].clone();
    }
    assert_eq!(paged, all, "the pages cover the list once, in order");
    let body = app
        .graphql(
            Some(&app.admin),
            "{ tournaments(after: \"nonsense\") { hasNextPage } }",
            json!({}),
        )
        .await;
    assert_eq!(code(&body), "BAD_INPUT", "{body:#}");
}

/// Fifty clients at once: the same retry (one idempotency key) all get the first answer;
/// fifty hosts starting the same level start it once (the others: `CONFLICT`, with the
/// level it is on); fifty eliminating the same player eliminate them once.
async fn fifty_concurrent_clients_get_the_answers_of_serial_ones(app: &TestApp) {
    use futures_util::future::join_all;
    a_league(app).await;
    app.admin(
        SCHEDULE,
        json!({"id": "c1", "s": schedule("crown", Tracking::Results)}),
    )
    .await;
    let host = app.token(Role::Host, Some("crown"), None).await;
    for p in ["ann", "bob"] {
        app.admin(REGISTER, json!({"t": "c1", "p": p})).await;
    }
    // One retry, fifty times at once.
    let answers = join_all((0..50).map(|_| {
        app.graphql(
            Some(&host),
            REGISTER,
            json!({"t": "c1", "p": "cat", "k": "reg-cat"}),
        )
    }))
    .await;
    for a in &answers {
        assert!(a.get("errors").is_none(), "{a:#}");
        assert_eq!(
            a["data"]["register"]["firstPosition"],
            answers[0]["data"]["register"]["firstPosition"]
        );
    }
    let firsts = answers
        .iter()
        .filter(|a| a["data"]["register"]["deduplicated"] == false)
        .count();
    assert_eq!(firsts, 1, "one appended, the others its answer");
    app.admin(START, json!({"t": "c1"})).await;

    // Fifty hosts press "next level" (level 2) at once.
    const NEXT: &str =
        "mutation($l: Int) { advanceLevel(input: {tournamentId: \"c1\", level: $l}) { events } }";
    let answers = join_all((0..50).map(|_| app.graphql(Some(&host), NEXT, json!({"l": 2})))).await;
    let started = answers.iter().filter(|a| a.get("errors").is_none()).count();
    assert_eq!(started, 1, "{answers:#?}");
    for a in answers.iter().filter(|a| a.get("errors").is_some()) {
        assert_eq!(code(a), "CONFLICT", "{a:#}");
        assert_eq!(a["errors"][0]["extensions"]["level"], 2, "{a:#}");
    }
    let view = app
        .admin("{ tournament(id: \"c1\") { level } }", json!({}))
        .await;
    assert_eq!(view["tournament"]["level"], 2, "{view:#}");

    // Fifty eliminate bob at once: once.
    const OUT: &str =
        "mutation { eliminate(input: {tournamentId: \"c1\", players: [\"bob\"]}) { events } }";
    let answers = join_all((0..50).map(|_| app.graphql(Some(&host), OUT, json!({})))).await;
    let applied = answers.iter().filter(|a| a.get("errors").is_none()).count();
    assert_eq!(applied, 1, "{answers:#?}");
    for a in answers.iter().filter(|a| a.get("errors").is_some()) {
        // Lost the race (decided before the winner's elimination was seen), or, decided
        // after it, refused as a serial client would be.
        assert!(matches!(code(a), "CONFLICT" | "RULE_VIOLATION"), "{a:#}");
    }
    let events = app.store.read_stream("tournament:c1", 0).await.unwrap();
    let count = |what: &str, who: &str| {
        events
            .iter()
            .filter(|e| e.event_type == what)
            .filter(|e| String::from_utf8_lossy(&e.payload).contains(who))
            .count()
    };
    assert_eq!(count("PlayerRegistered", "\"cat\""), 1);
    assert_eq!(count("LevelStarted", "\"level\":2,"), 1);
    assert_eq!(count("PlayersEliminated", "\"bob\""), 1);
}

/// A host and a registered player add entropy before the start; the seat draw mixes it into
/// the seed the server committed to, and an auditor re-derives the draw from the log alone.
async fn entropy_from_the_host_and_a_player_is_mixed_into_the_seat_draw(app: &TestApp) {
    use league_engine::deck::Seed;
    use league_engine::tournament::{draw_seats, mix_entropy, pool_entropy};
    use sha2::Digest as _;

    a_league(app).await;
    app.admin(
        SCHEDULE,
        json!({"id": "e1", "s": schedule("crown", Tracking::Results)}),
    )
    .await;
    for p in ["ann", "bob", "cat"] {
        app.admin(REGISTER, json!({"t": "e1", "p": p})).await;
    }
    const ADD: &str = "mutation($e: String!) { addEntropy(input: {tournamentId: \"e1\", entropy: $e}) { events tournament { stage } } }";
    let host = app.token(Role::Host, Some("crown"), None).await;
    let ann = app.token(Role::Player, None, Some("ann")).await;
    app.admin(
        "mutation { registerPlayer(input: {leagueId: \"apl\", player: \"dan\", name: \"Dan\", membership: \"d\"}) { events } }",
        json!({}),
    )
    .await;
    let dan = app.token(Role::Player, None, Some("dan")).await;
    let body = app
        .graphql(Some(&host), ADD, json!({"e": "6 2 5 1 3"}))
        .await;
    assert_eq!(body["data"]["addEntropy"]["events"], 1, "{body:#}");
    assert_eq!(
        body["data"]["addEntropy"]["tournament"]["stage"],
        "SCHEDULED"
    );
    let body = app
        .graphql(Some(&ann), ADD, json!({"e": "ann's phone: 9f3a71"}))
        .await;
    assert_eq!(body["data"]["addEntropy"]["events"], 1, "{body:#}");
    // A player not in the tournament may not; nor may nothing, or too much.
    let body = app.graphql(Some(&dan), ADD, json!({"e": "dan"})).await;
    assert_eq!(code(&body), "FORBIDDEN", "{body:#}");
    let body = app.graphql(Some(&host), ADD, json!({"e": ""})).await;
    assert_eq!(code(&body), "BAD_INPUT", "{body:#}");
    let body = app
        .graphql(Some(&host), ADD, json!({"e": "x".repeat(1_025)}))
        .await;
    assert_eq!(code(&body), "BAD_INPUT", "{body:#}");

    app.admin(START, json!({"t": "e1"})).await;

    // The auditor's view: the two contributions, the pool named just before the draw, and
    // the seats drawn from the revealed seed mixed with that pool.
    let events = app.store.read_stream("tournament:e1", 0).await.unwrap();
    let payload = |e: &league_store::RecordedEvent| -> Value {
        let stored: Value = serde_json::from_slice(&e.payload).unwrap();
        stored["data"].clone()
    };
    let seed_of = |v: &Value| -> Seed { v.as_str().unwrap().parse().unwrap() };
    let added: Vec<Seed> = events
        .iter()
        .filter(|e| e.event_type == "EntropyAdded")
        .map(|e| seed_of(&payload(e)["entropy"]))
        .collect();
    let digest = |text: &str| Seed::from_bytes(sha2::Sha256::digest(text.as_bytes()).into());
    assert_eq!(
        added,
        vec![digest("6 2 5 1 3"), digest("ann's phone: 9f3a71")]
    );
    let pool = pool_entropy(Some(&pool_entropy(None, &added[0])), &added[1]);
    let at = events
        .iter()
        .position(|e| e.event_type == "EntropyMixed")
        .expect("the start names the pool");
    assert_eq!(seed_of(&payload(&events[at])["entropy"]), pool);
    assert_eq!(events[at + 1].event_type, "TournamentStarted");
    let started = payload(&events[at + 1]);
    let seed = seed_of(&started["seed"]);
    let entrants: Vec<_> = ["ann", "bob", "cat"]
        .into_iter()
        .map(league_engine::units::PlayerId::from)
        .collect();
    let order: Vec<u8> = (0..9).collect();
    let drawn = draw_seats(&mix_entropy(&seed, &pool), &entrants, 1, &order).unwrap();
    for a in drawn {
        let seating = started["seats"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["player"] == a.entrant.as_str())
            .unwrap();
        assert_eq!(seating["seat"], a.seat, "{started:#}");
    }
    // The pool is used up: another contribution starts a new one.
    let body = app.graphql(Some(&host), ADD, json!({"e": "later"})).await;
    assert_eq!(body["data"]["addEntropy"]["events"], 1, "{body:#}");
}

league_tests::on_every_backend!(
    a_results_tracked_tournament_runs_from_schedule_to_payouts_into_the_standings,
    entropy_from_the_host_and_a_player_is_mixed_into_the_seat_draw,
    a_retry_with_the_same_idempotency_key_appends_once,
    late_entries_close_by_level_or_by_time,
    two_hosts_racing_on_one_table_one_wins_and_the_log_stays_consistent,
    tournaments_page_by_cursor,
    fifty_concurrent_clients_get_the_answers_of_serial_ones,
);
