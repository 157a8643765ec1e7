//! The GraphQL service end to end, live views: changes in order, standings, views shared
//! only between callers who may see the same thing, and a last checkpoint when the server
//! stops under a subscriber. Each scenario runs on its own server and database, on SQLite
//! and (with `LEAGUE_TEST_POSTGRES_URL`) PostgreSQL.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use league_api::auth::Role;
use league_engine::tournament::play::Tracking;
use league_tests::{
    Backend, REGISTER, TestApp, a_night_in_the_standings, cards_shown, metric_reaches,
    next_message, next_view, spawn_app, started,
};
use serde_json::{Value, json};

/// A subscriber that keeps up sees every change, in order: each registration is made once
/// the view of the one before has arrived. (Changes that come faster than a screen reads
/// them are conflated to the newest: `busy_screens_skip_to_the_newest_view`.)
async fn a_subscription_receives_the_changes_in_order(app: &TestApp) {
    let mut ws = app.scheduled_and_watched("t5").await;
    let mut seen = Vec::new();
    let mut players = ["ann", "bob", "cat"].into_iter();
    while seen.len() < 4 {
        let message = next_message(&mut ws, "a subscription message").await;
        match message["type"].as_str() {
            Some("connection_ack") => {}
            Some("next") => {
                seen.push(
                    message["payload"]["data"]["tournament"]["entries"]
                        .as_u64()
                        .unwrap(),
                );
                if let Some(p) = players.next() {
                    app.admin(REGISTER, json!({"t": "t5", "p": p})).await;
                }
            }
            other => panic!("unexpected {other:?}: {message:#}"),
        }
    }
    assert_eq!(seen, [0, 1, 2, 3]);
}

async fn a_standings_subscription_sees_a_recorded_night(app: &TestApp) {
    // Arrange: a season with one night in its standings.
    a_night_in_the_standings(app).await;
    let query = "subscription { standings(leagueId: \"apl\", season: \"s1\") { player points } }";
    let start = json!({"id": "s", "type": "subscribe", "payload": {"query": query}});
    let mut ws = app
        .subscribe("graphql-transport-ws", json!({}), start)
        .await;
    let mut views = Vec::new();
    while views.len() < 2 {
        let message = next_message(&mut ws, "a standings message").await;
        match message["type"].as_str() {
            Some("connection_ack") => {}
            Some("next") => {
                views.push(message["payload"]["data"]["standings"].clone());
                if views.len() == 1 {
                    // Another night at the crown: bob wins it.
                    let outcome = json!({
                        "tournament": "x2", "venue": "crown", "season": "s1", "day": 2,
                        "buyin": 2000, "prizepool": 4000, "field": 2,
                        "finishes": [{"player": "bob", "place": 1, "prize": 4000}, {"player": "ann", "place": 2}]
                    });
                    app.admin(
                        "mutation($o: OutcomeInput!) { recordTournament(input: {leagueId: \"apl\", outcome: $o}) { events } }",
                        json!({"o": outcome}),
                    )
                    .await;
                }
            }
            other => panic!("unexpected {other:?}: {message:#}"),
        }
    }
    let points = |view: &Value, player: &str| {
        view.as_array()
            .unwrap()
            .iter()
            .find(|s| s["player"] == player)
            .map_or(0, |s| s["points"].as_u64().unwrap())
    };
    assert!(
        points(&views[1], "bob") > points(&views[0], "bob"),
        "bob's win shows: {views:#?}"
    );
}

/// Identical live views run once for all their subscribers, but only between callers who
/// may see the same thing: two anonymous dashboards share one, and each player's view of
/// the same table (same query, same variables) stays their own, before and after a change.
async fn shared_live_views_never_cross_callers(app: &TestApp) {
    started(app, "t11", "crown", Tracking::Dealt, &["cy", "di"]).await;
    app.admin(
        "mutation { startHand(input: {tournamentId: \"t11\", table: 1}) { events } }",
        json!({}),
    )
    .await;
    let cy = app.token(Role::Player, None, Some("cy")).await;
    let di = app.token(Role::Player, None, Some("di")).await;
    // Nothing else is subscribed.
    metric_reaches(app, "league_subscribers", 0).await;
    metric_reaches(app, "league_live_queries", 0).await;
    let query = "subscription { table(tournamentId: \"t11\", table: 1) { version toAct seats { seat player cards } } }";
    let start = json!({"id": "v", "type": "subscribe", "payload": {"query": query}});
    let as_player = |token: &str| json!({"Authorization": format!("Bearer {token}")});
    let mut public_a = app
        .subscribe("graphql-transport-ws", json!({}), start.clone())
        .await;
    let first = next_view(&mut public_a).await;
    let mut public_b = app
        .subscribe("graphql-transport-ws", json!({}), start.clone())
        .await;
    let mut as_cy = app
        .subscribe("graphql-transport-ws", as_player(&cy), start.clone())
        .await;
    let mut as_di = app
        .subscribe(
            "graphql-ws",
            as_player(&di),
            json!({"id": "v", "type": "start", "payload": {"query": query}}),
        )
        .await;
    // A dashboard joining a running view starts from its current state.
    assert_eq!(next_view(&mut public_b).await, first);
    assert_eq!(cards_shown(&first), Vec::<String>::new(), "{first:#}");
    let cy_first = next_view(&mut as_cy).await;
    assert_eq!(cards_shown(&cy_first), ["cy"], "{cy_first:#}");
    let di_first = loop {
        let message = next_message(&mut as_di, "di's view").await;
        if message["type"] == "data" {
            break message["payload"]["data"]["table"].clone();
        }
    };
    assert_eq!(cards_shown(&di_first), ["di"], "{di_first:#}");
    // Four subscribers, three executions: the two anonymous ones share.
    metric_reaches(app, "league_subscribers", 4).await;
    metric_reaches(app, "league_live_queries", 3).await;

    // A change reaches each of them, each as they may see it.
    let seat = first["toAct"].as_u64().unwrap();
    let done = app
        .admin(
            "mutation($s: Int!) { act(input: {tournamentId: \"t11\", table: 1, seat: $s, action: CALL}) { version } }",
            json!({"s": seat}),
        )
        .await;
    let version = done["act"]["version"].as_u64().unwrap();
    let mut views = Vec::new();
    for ws in [&mut public_a, &mut public_b, &mut as_cy] {
        let view = loop {
            let view = next_view(ws).await;
            if view["version"].as_u64().unwrap() >= version {
                break view;
            }
        };
        views.push(view);
    }
    assert_eq!(views[0], views[1], "the two dashboards see one view");
    assert_eq!(
        cards_shown(&views[0]),
        Vec::<String>::new(),
        "{:#}",
        views[0]
    );
    assert_eq!(cards_shown(&views[2]), ["cy"], "{:#}", views[2]);
    let di_view = loop {
        let message = next_message(&mut as_di, "di's view").await;
        let view = &message["payload"]["data"]["table"];
        if message["type"] == "data" && view["version"].as_u64().unwrap() >= version {
            break view.clone();
        }
    };
    assert_eq!(cards_shown(&di_view), ["di"], "{di_view:#}");

    // The last subscriber of a view leaving stops it.
    drop((public_a, public_b));
    metric_reaches(app, "league_live_queries", 2).await;
    drop((as_cy, as_di));
    metric_reaches(app, "league_live_queries", 0).await;
    metric_reaches(app, "league_subscribers", 0).await;
}

/// Stopping the server while a dashboard is still subscribed still stops the live
/// projector with a last checkpoint (the subscription's session may outlive the workers).
#[actix_web::test]
async fn stopping_with_a_subscriber_connected_writes_the_last_checkpoint() {
    let mut app = spawn_app(Backend::Sqlite).await;
    let mut ws = app.scheduled_and_watched("t9").await;
    app.admin(REGISTER, json!({"t": "t9", "p": "ann"})).await;
    let mut entries = None;
    while entries != Some(1) {
        let message = next_message(&mut ws, "a subscription message").await;
        if message["type"] == "next" {
            entries = message["payload"]["data"]["tournament"]["entries"].as_u64();
        }
    }
    let last = app.last_position().await;
    assert!(last.is_some());
    // Stop with the WebSocket still open.
    app.stop_server().await;
    let (checkpoint, docs) = app.store.read_models(league_app::PROJECTION).await.unwrap();
    assert_eq!(checkpoint, last, "the last checkpoint is at the last event");
    assert!(!docs.is_empty());
    drop(ws);
    app.stop().await;
}

league_tests::on_every_backend!(
    a_subscription_receives_the_changes_in_order,
    a_standings_subscription_sees_a_recorded_night,
    shared_live_views_never_cross_callers,
);
