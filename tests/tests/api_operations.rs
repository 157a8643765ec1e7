//! The GraphQL service end to end, for its operators: health, readiness, the playground,
//! the body limit and the metrics. Each scenario runs on its own server and database, on
//! SQLite and (with `LEAGUE_TEST_POSTGRES_URL`) PostgreSQL.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::time::Duration;

use futures_util::SinkExt as _;
use league_engine::tournament::play::Tracking;
use league_tests::{REGISTER, SCHEDULE, TestApp, code, metrics_page, schedule, series, text};
use serde_json::json;

async fn health_readiness_and_the_playground_answer(app: &TestApp) {
    let client = awc::Client::new();
    let health = client
        .get(format!("{}/healthz", app.base))
        .send()
        .await
        .unwrap();
    assert!(health.status().is_success());
    let mut ready = false;
    for _ in 0..100 {
        let r = client
            .get(format!("{}/readyz", app.base))
            .send()
            .await
            .unwrap();
        if r.status().is_success() {
            ready = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(ready);
    let page = client
        .get(format!("{}/graphql", app.base))
        .send()
        .await
        .unwrap();
    assert!(page.status().is_success());
    let big = "x".repeat(league_api::MAX_BODY + 1);
    let r = client
        .post(format!("{}/graphql", app.base))
        .insert_header(("content-type", "application/json"))
        .send_body(big)
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 413);
}

async fn metrics_count_requests_commands_events_and_subscribers(app: &TestApp) {
    const APPENDED: &str = "league_commands_total{outcome=\"appended\"}";
    const REFUSED: &str = "league_commands_total{outcome=\"refused\"}";
    const EVENTS: &str = "league_events_appended_total";
    const MUTATIONS: &str = "league_requests_total{kind=\"mutation\",outcome=\"ok\"}";
    const FAILED: &str = "league_requests_total{kind=\"mutation\",outcome=\"error\"}";
    const TIMED: &str = "league_request_duration_seconds_count{kind=\"mutation\"}";
    app.admin(
        SCHEDULE,
        json!({"id": "t8", "s": schedule("crown", Tracking::Results)}),
    )
    .await;
    let before = metrics_page(app).await;
    app.admin(REGISTER, json!({"t": "t8", "p": "ann"})).await;
    let body = app
        .graphql(Some(&app.admin), REGISTER, json!({"t": "t8", "p": "ann"}))
        .await;
    assert_eq!(code(&body), "RULE_VIOLATION");
    let after = metrics_page(app).await;
    let delta = |name| series(&after, name) - series(&before, name);
    assert_eq!(delta(APPENDED), 1);
    assert_eq!(delta(REFUSED), 1);
    assert_eq!(delta(EVENTS), 1, "one registration, one event");
    assert_eq!(delta(MUTATIONS), 1);
    assert_eq!(delta(FAILED), 1);
    assert_eq!(delta(TIMED), 2);
    assert!(after.contains("league_projection_lag_events "), "{after}");
    assert_eq!(
        series(&after, "league_log_position"),
        app.last_position().await.unwrap()
    );
    // A subscriber is counted while subscribed.
    assert_eq!(series(&after, "league_subscribers"), 0);
    let mut ws = app
        .subscribe(
            "graphql-transport-ws",
            json!({}),
            json!({
                "id": "1",
                "type": "subscribe",
                "payload": {"query": "subscription { tournament(id: \"t8\") { entries } }"}
            }),
        )
        .await;
    let mut counted = false;
    for _ in 0..100 {
        if series(&metrics_page(app).await, "league_subscribers") == 1 {
            counted = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(counted, "the subscription is counted");
    ws.send(text(json!({"id": "1", "type": "complete"})))
        .await
        .unwrap();
    let mut released = false;
    for _ in 0..100 {
        if series(&metrics_page(app).await, "league_subscribers") == 0 {
            released = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(released, "a completed subscription is no longer counted");
}

league_tests::on_every_backend!(
    health_readiness_and_the_playground_answer,
    metrics_count_requests_commands_events_and_subscribers,
);
