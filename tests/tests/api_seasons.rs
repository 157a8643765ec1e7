//! A league closes a season: its standings (every scope and version), its players' records
//! and a screen subscribed to it read exactly as before the close, before and after a
//! restart (when the server answers them from the stored documents, the league no longer
//! holding the season's results); nothing more is recorded, amended or re-scored in it, and
//! two of its players who finished one tournament together are not merged; the next season
//! goes on. On SQLite and (with `LEAGUE_TEST_POSTGRES_URL`) PostgreSQL.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use league_store::Backend;
use league_tests::{TestApp, a_league, a_results_night, code, next_message, spawn_app};
use serde_json::{Value, json};

const STANDINGS: &str = "query($v: Int, $venue: ID, $region: String) { standings(leagueId: \"apl\", season: \"s1\", version: $v, venue: $venue, region: $region) { player name rank points previousRank } }";
const RECORD: &str = "{ playerRecord(leagueId: \"apl\", player: \"ann\") { player played wins cashes winnings knockouts results { tournament season day place points } } }";
const OUTCOME: &str = "mutation($o: OutcomeInput!) { recordTournament(input: {leagueId: \"apl\", outcome: $o}) { events } }";
const CLOSE: &str = "mutation($s: ID!) { closeSeason(input: {leagueId: \"apl\", season: $s}) { events league { seasons { id closed } } } }";

fn outcome(id: &str, season: &str, day: u32) -> Value {
    json!({"tournament": id, "venue": "crown", "season": season, "day": day, "buyin": 2000,
        "prizepool": 6000, "field": 3, "finishes": [
            {"player": "ann", "place": 1, "prize": 6000, "knockouts": 2},
            {"player": "cat", "place": 2}, {"player": "bob", "place": 3}]})
}

/// Everything a screen or a player asks about season `s1`.
async fn answers(app: &TestApp) -> Vec<Value> {
    let mut answers = Vec::new();
    for variables in [
        json!({}),
        json!({"v": 1}),
        json!({"venue": "crown"}),
        json!({"region": "north"}),
    ] {
        answers.push(app.admin(STANDINGS, variables).await);
    }
    answers.push(app.admin(RECORD, json!({})).await);
    answers.push(subscribed(app).await);
    answers
}

/// The first standings a screen subscribed to `s1` gets.
async fn subscribed(app: &TestApp) -> Value {
    let query =
        "subscription { standings(leagueId: \"apl\", season: \"s1\") { player rank points } }";
    let mut ws = app
        .subscribe(
            "graphql-transport-ws",
            json!({}),
            json!({"id": "s", "type": "subscribe", "payload": {"query": query}}),
        )
        .await;
    loop {
        let message = next_message(&mut ws, "the season's standings").await;
        if message["type"] == "next" {
            return message["payload"]["data"].clone();
        }
        assert_eq!(message["type"], "connection_ack", "{message}");
    }
}

/// The command is refused `RULE_VIOLATION`, naming the closed season, and appends nothing.
async fn refused_as_closed(app: &TestApp, query: &str, variables: Value) {
    let before = app.last_position().await;
    let body = app.graphql(Some(&app.admin), query, variables).await;
    assert_eq!(code(&body), "RULE_VIOLATION", "{body:#}");
    let message = body["errors"][0]["message"].as_str().unwrap();
    assert!(message.contains("season `s1` is closed"), "{message}");
    assert_eq!(app.last_position().await, before);
}

async fn a_closed_season_reads_as_it_stood(backend: Backend) {
    let mut app = spawn_app(backend).await;
    a_league(&app).await;
    a_results_night(&app, "t1", 1, &["ann", "bob", "cat"]).await;
    a_results_night(&app, "t2", 2, &["bob", "cat", "ann"]).await;
    app.admin(
        "mutation { setFormula(input: {leagueId: \"apl\", season: \"s1\", scoring: {formula: \"n - r + 1\"}}) { events } }",
        json!({}),
    )
    .await;
    app.admin(
        "mutation { addSeason(input: {leagueId: \"apl\", season: \"s2\", scoring: {table: [100, 50]}}) { events } }",
        json!({}),
    )
    .await;
    app.admin(OUTCOME, json!({"o": outcome("t3", "s2", 3)}))
        .await;
    let before = answers(&app).await;
    let lines = before[0]["standings"].as_array().unwrap();
    assert_eq!(lines.len(), 3, "{before:#?}");
    assert_eq!(before[4]["playerRecord"]["played"], 3, "{before:#?}");

    let closed = app.admin(CLOSE, json!({"s": "s1"})).await;
    assert_eq!(
        closed["closeSeason"]["league"]["seasons"],
        json!([{"id": "s1", "closed": true}, {"id": "s2", "closed": false}])
    );
    assert_eq!(answers(&app).await, before);

    // The closed season takes nothing more.
    refused_as_closed(&app, OUTCOME, json!({"o": outcome("t4", "s1", 4)})).await;
    refused_as_closed(
        &app,
        "mutation($o: OutcomeInput!) { amendTournament(input: {leagueId: \"apl\", outcome: $o, reason: \"a typo\"}) { events } }",
        json!({"o": outcome("t1", "s1", 1)}),
    )
    .await;
    refused_as_closed(
        &app,
        "mutation { setFormula(input: {leagueId: \"apl\", season: \"s1\", scoring: {table: [10]}}) { events } }",
        json!({}),
    )
    .await;
    refused_as_closed(&app, CLOSE, json!({"s": "s1"})).await;
    // The open season goes on, and the player's record counts it beside the closed one.
    app.admin(OUTCOME, json!({"o": outcome("t4", "s2", 4)}))
        .await;
    let record = app.admin(RECORD, json!({})).await;
    assert_eq!(record["playerRecord"]["played"], 4, "{record:#}");
    let seasons: Vec<&str> = record["playerRecord"]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["season"].as_str().unwrap())
        .collect();
    assert_eq!(seasons, ["s1", "s1", "s2", "s2"]);
    // Two players who finished a closed season's tournament together are two people.
    let before = app.last_position().await;
    let body = app
        .graphql(
            Some(&app.admin),
            "mutation { mergePlayers(input: {leagueId: \"apl\", keep: \"ann\", merge: \"bob\"}) { events } }",
            json!({}),
        )
        .await;
    assert_eq!(code(&body), "RULE_VIOLATION", "{body:#}");
    let message = body["errors"][0]["message"].as_str().unwrap();
    assert!(message.contains("both finished in `t1`"), "{message}");
    assert_eq!(app.last_position().await, before);
    let after = answers(&app).await;

    // Restarted: the league's snapshot no longer holds the closed season's results, and
    // every answer comes from the stored documents, as before.
    app.stop_server().await;
    let (_, rows) = app
        .store
        .read_snapshots(league_app::PROJECTION)
        .await
        .unwrap();
    let league = rows.iter().find(|r| r.stream == "league:apl").unwrap();
    let state = String::from_utf8_lossy(&league.state);
    assert!(state.contains("\"tournament\":\"t3\""), "{state}");
    assert!(!state.contains("\"tournament\":\"t1\""), "{state}");
    app.start_server();
    assert_eq!(answers(&app).await, after);
    app.stop().await;
}

#[actix_web::test]
async fn a_closed_season_reads_as_it_stood_on_sqlite() {
    a_closed_season_reads_as_it_stood(Backend::Sqlite).await;
}

#[actix_web::test]
async fn a_closed_season_reads_as_it_stood_on_postgres() {
    if !league_tests::postgres_is_configured() {
        return;
    }
    a_closed_season_reads_as_it_stood(Backend::Postgres).await;
}
