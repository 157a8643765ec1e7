//! A server restarted after a night: it starts from the snapshots of its last checkpoint,
//! where the finished tournaments are only listed (their state is released), and answers
//! every question about them as before the restart: the tournament and its listing from
//! the stored documents, its table and subscriptions from its stream read back, commands
//! decided on it with the same refusals, and its result recorded in the league. On SQLite
//! and (with `LEAGUE_TEST_POSTGRES_URL`) PostgreSQL.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use league_engine::tournament::play::Tracking;
use league_store::Backend;
use league_tests::{
    TestApp, a_league, a_results_night, code, next_message, play_to_a_winner, spawn_app, started,
};
use serde_json::{Value, json};

const TOURNAMENT: &str = "query($t: ID!) { tournament(id: $t) { id stage entries remaining prizePool prizes results { player place prize knockouts } } }";
const LISTING: &str = "{ tournaments(venue: \"crown\") { tournaments { id stage entries results { player place } } hasNextPage } }";
const TABLE: &str = "query($t: ID!) { table(tournamentId: $t, table: 1) { hand inHand seats { seat player chips } pots { amount } } }";
const START_HAND: &str =
    "mutation($t: ID!) { startHand(input: {tournamentId: $t, table: 1}) { events } }";
const STANDINGS: &str = "{ standings(leagueId: \"apl\", season: \"s1\") { player points } }";
const RECORD: &str = "mutation($t: ID!) { recordTournamentResult(input: {leagueId: \"apl\", tournamentId: $t, season: \"s1\", day: 2}) { events } }";

/// What a screen and a venue app ask about the finished tournaments.
async fn answers(app: &TestApp) -> Vec<Value> {
    let mut answers = Vec::new();
    for t in ["t1", "t2"] {
        answers.push(app.admin(TOURNAMENT, json!({"t": t})).await);
        answers.push(app.admin(TABLE, json!({"t": t})).await);
    }
    answers.push(app.admin(LISTING, json!({})).await);
    answers
}

async fn a_restart_answers_finished_tournaments_as_before(backend: Backend) {
    let mut app = spawn_app(backend).await;
    a_league(&app).await;
    // t1: results-tracked, finished and recorded; t2: dealt, played to a winner, not yet
    // recorded.
    a_results_night(&app, "t1", 1, &["ann", "bob", "cat"]).await;
    started(&app, "t2", "crown", Tracking::Dealt, &["ann", "bob", "cat"]).await;
    play_to_a_winner(&app, "t2", 15_000, 5).await;
    let before = answers(&app).await;
    assert_eq!(before[0]["tournament"]["stage"], "FINISHED", "{before:?}");
    assert_eq!(before[2]["tournament"]["stage"], "FINISHED", "{before:?}");
    assert!(!before[3]["table"].is_null(), "{before:?}");
    let refused = app
        .graphql(Some(&app.admin), START_HAND, json!({"t": "t2"}))
        .await;
    let refusal = code(&refused).to_owned();

    app.stop_server().await;
    // The last checkpoint listed both as finished: the restarted server holds neither.
    let (_, rows) = app
        .store
        .read_snapshots(league_app::PROJECTION)
        .await
        .unwrap();
    for t in ["tournament:t1", "tournament:t2"] {
        let row = rows.iter().find(|r| r.stream == t).unwrap();
        assert!(
            String::from_utf8_lossy(&row.state).contains("\"Released\""),
            "{t} is listed only"
        );
    }
    app.start_server();

    assert_eq!(answers(&app).await, before);
    let again = app
        .graphql(Some(&app.admin), START_HAND, json!({"t": "t2"}))
        .await;
    assert_eq!(code(&again), refusal, "{again}");
    // A screen subscribed to the finished tournament gets its view at once.
    let query = "subscription { tournament(id: \"t2\") { stage remaining } }";
    let mut ws = app
        .subscribe(
            "graphql-transport-ws",
            json!({}),
            json!({"id": "s", "type": "subscribe", "payload": {"query": query}}),
        )
        .await;
    let view = loop {
        let message = next_message(&mut ws, "the tournament's view").await;
        if message["type"] == "next" {
            break message["payload"]["data"]["tournament"].clone();
        }
        assert_eq!(message["type"], "connection_ack", "{message}");
    };
    assert_eq!(view["stage"], "FINISHED", "{view}");
    assert_eq!(view["remaining"], 1, "{view}");
    // Its result is recorded from its stream, read back.
    let points = |s: &Value| -> u64 {
        s["standings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l["points"].as_u64().unwrap())
            .sum()
    };
    let before = app.admin(STANDINGS, json!({})).await;
    let recorded = app.admin(RECORD, json!({"t": "t2"})).await;
    assert!(
        recorded["recordTournamentResult"]["events"]
            .as_u64()
            .unwrap()
            > 0,
        "{recorded}"
    );
    let after = app.admin(STANDINGS, json!({})).await;
    assert!(
        points(&after) > points(&before),
        "the second night counts: {before} then {after}"
    );
    app.stop().await;
}

#[actix_web::test]
async fn a_restarted_server_on_sqlite_answers_finished_tournaments_as_before() {
    a_restart_answers_finished_tournaments_as_before(Backend::Sqlite).await;
}

#[actix_web::test]
async fn a_restarted_server_on_postgres_answers_finished_tournaments_as_before() {
    if !league_tests::postgres_is_configured() {
        return;
    }
    a_restart_answers_finished_tournaments_as_before(Backend::Postgres).await;
}
