//! `league serve` stops gracefully on SIGTERM, on both backends: its readiness fails at once
//! while it still answers requests for its drain time, then its WebSockets are closed with
//! 1001 (going away), it exits with status 0 within its grace period, and the read models
//! it wrote last are those a fresh fold of the log gives (`league rebuild --check` answers
//! `identical`).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "integration tests: a panic is the failure report"
)]

mod common;

use std::process::Command;
use std::time::{Duration, Instant};

use common::{ready, serve_with};
use league_api::auth::{Role, create_token};
use league_engine::tournament::play::Tracking;
use league_store::Store;
use serde_json::json;

/// A night under way on a server of `database`, a screen subscribed, then SIGTERM.
async fn stops_gracefully(database: &str) {
    let store = Store::open(database).await.unwrap();
    let (_, admin) = create_token(&store, Role::Admin, None, None).await.unwrap();
    let (mut server, base) = serve_with(database, &["--shutdown-drain", "2"]);
    ready(&format!("{base}/readyz")).await;
    let app = league_tests::remote(base.clone(), store.clone(), admin);
    league_tests::a_league(&app).await;
    league_tests::started(&app, "night", "crown", Tracking::Results, &["ann", "bob"]).await;
    let mut screen = app
        .subscribe(
            "graphql-transport-ws",
            json!({}),
            json!({"id": "1", "type": "subscribe", "payload": {"query": "subscription { tournament(id: \"night\") { entries } }"}}),
        )
        .await;
    let ack = league_tests::next_message(&mut screen, "the connection_ack").await;
    assert_eq!(ack["type"], "connection_ack", "{ack:#}");
    let first = league_tests::next_message(&mut screen, "the first view").await;
    assert_eq!(
        first["payload"]["data"]["tournament"]["entries"], 2,
        "{first:#}"
    );

    let stopped_at = Instant::now();
    let term = Command::new("kill")
        .args(["-TERM", &server.0.id().to_string()])
        .status()
        .unwrap();
    assert!(term.success());
    // Draining: not ready, but still answering, and the screen still open.
    loop {
        let status = awc::Client::new()
            .get(format!("{base}/readyz"))
            .send()
            .await
            .unwrap()
            .status();
        if status == 503 {
            break;
        }
        assert!(stopped_at.elapsed() < Duration::from_secs(1), "still ready");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let entries = app
        .admin("query { tournament(id: \"night\") { entries } }", json!({}))
        .await;
    assert_eq!(entries["tournament"]["entries"], 2);
    assert!(
        stopped_at.elapsed() < Duration::from_secs(2),
        "the drain took too long to test"
    );
    assert_eq!(league_tests::closed_with(&mut screen).await, 1001);
    assert!(
        stopped_at.elapsed() >= Duration::from_secs(2),
        "closed before the drain ended"
    );
    let status = loop {
        if let Some(status) = server.0.try_wait().unwrap() {
            break status;
        }
        assert!(
            stopped_at.elapsed() < Duration::from_secs(20),
            "still running 20 s after SIGTERM (grace 10 s)"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(status.success(), "{status}");
    store.close().await;

    let check = Command::new(env!("CARGO_BIN_EXE_league"))
        .args(["rebuild", "--check", "--database", database])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&check.stdout);
    assert!(
        check.status.success() && said.contains("identical"),
        "{said}{}",
        String::from_utf8_lossy(&check.stderr)
    );
}

#[actix_web::test]
async fn on_sqlite() {
    let dir = std::env::temp_dir().join(format!("league-shutdown-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let database = format!("sqlite:{}", dir.join("league.db").display());
    stops_gracefully(&database).await;
    let _ = std::fs::remove_dir_all(&dir);
}

#[actix_web::test]
async fn on_postgres() {
    if !league_tests::postgres_is_configured() {
        return;
    }
    let server = std::env::var("LEAGUE_TEST_POSTGRES_URL").unwrap();
    let database = league_testkit::ScratchDatabase::new(&server).await.unwrap();
    stops_gracefully(database.url()).await;
    database.drop_it().await;
}
