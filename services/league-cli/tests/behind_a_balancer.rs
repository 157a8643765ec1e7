//! Two `league serve` processes on one PostgreSQL database behind HAProxy (Debian's
//! package, started here), as a league that outgrows one machine runs them: a venue app
//! plays a whole tournament night (each request to either instance), and a bar TV follows the table through the
//! balancer. Every command is accepted
//! (no refusal decided on a state that lagged the other instance), both instances take
//! commands, and the TV sees the table's versions in order up to the last.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "integration tests: a panic is the failure report"
)]

mod common;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{Process, ready, serve};
use futures_util::{SinkExt as _, StreamExt as _};
use league_api::auth::{Role, create_token};
use league_engine::tournament::play::Tracking;
use league_store::Store;
use league_tests::{WebSocket, a_league, metrics_page, play_to_a_winner, series};
use serde_json::{Value, json};

/// A port free now (the balancer binds it a moment later).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// HAProxy in front of `instances`, each request to one of them at random (round robin
/// would send a venue app's reads to one and its commands to the other: the app reads the
/// table, then acts), WebSockets passed through; returns the process and its address once both instances answer ready
/// through it.
fn balancer(instances: &[String], dir: &std::path::Path) -> (Process, String) {
    let port = free_port();
    let servers: String = instances
        .iter()
        .enumerate()
        .map(|(i, url)| {
            format!(
                "    server league{i} {} check inter 500ms\n",
                url.trim_start_matches("http://")
            )
        })
        .collect();
    let config = format!(
        "global\n    maxconn 4096\n\
         defaults\n    mode http\n    timeout connect 5s\n    timeout client 60s\n    \
         timeout server 60s\n    timeout tunnel 1h\n\
         frontend league\n    bind 127.0.0.1:{port}\n    default_backend instances\n\
         backend instances\n    balance random\n    option httpchk GET /readyz\n{servers}"
    );
    let file = dir.join("haproxy.cfg");
    std::fs::write(&file, config).unwrap();
    let child = Command::new("haproxy")
        .arg("-db")
        .arg("-f")
        .arg(&file)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| {
            panic!("HAProxy is needed (`apt-get install haproxy`; .ci/run installs it): {e}")
        });
    (Process(child), format!("http://127.0.0.1:{port}"))
}

/// The versions of the table views a subscription receives until one reaches `last`
/// (answering the server's pings meanwhile), or five minutes pass.
async fn versions_until(ws: &mut WebSocket, last: &std::cell::Cell<Option<u64>>) -> Vec<u64> {
    let mut versions = Vec::new();
    let started = Instant::now();
    loop {
        if let (Some(last), Some(seen)) = (last.get(), versions.last())
            && seen >= &last
        {
            return versions;
        }
        if started.elapsed() > Duration::from_secs(300) {
            return versions;
        }
        let frame = tokio::time::timeout(Duration::from_millis(200), ws.next()).await;
        match frame {
            Ok(Some(Ok(awc::ws::Frame::Text(bytes)))) => {
                let message: Value = serde_json::from_slice(&bytes).unwrap();
                assert_eq!(message["type"], "next", "{message:#}");
                assert!(message["payload"]["errors"].is_null(), "{message:#}");
                versions.push(
                    message["payload"]["data"]["table"]["version"]
                        .as_u64()
                        .unwrap(),
                );
            }
            Ok(Some(Ok(awc::ws::Frame::Ping(bytes)))) => {
                ws.send(awc::ws::Message::Pong(bytes)).await.unwrap();
            }
            Ok(Some(Ok(_))) | Err(_) => {}
            Ok(other) => panic!("the subscription ended: {other:?}"),
        }
    }
}

#[test]
fn two_instances_behind_haproxy_answer_a_tournament_night_as_one() {
    if !league_tests::postgres_is_configured() {
        return;
    }
    let server = std::env::var("LEAGUE_TEST_POSTGRES_URL").unwrap();
    let dir = std::env::temp_dir().join(format!("league-balancer-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    actix_web::rt::System::new().block_on(async {
        let database = league_testkit::ScratchDatabase::new(&server).await.unwrap();
        let store = Store::open(database.url()).await.unwrap();
        let (_, admin) = create_token(&store, Role::Admin, None, None).await.unwrap();
        let (_a, first) = serve(database.url());
        let (_b, second) = serve(database.url());
        let instances = [first.clone(), second.clone()];
        let (_haproxy, base) = balancer(&instances, &dir);
        for instance in &instances {
            ready(&format!("{instance}/readyz")).await;
        }
        // Both instances up as the balancer sees them (its health checks every 500 ms).
        tokio::time::sleep(Duration::from_millis(1_500)).await;
        ready(&format!("{base}/readyz")).await;
        let app = league_tests::remote(base, store.clone(), admin.clone());

        // The night: the league and its venue, a dealt table of four scheduled, the bar TV
        // following it, the table played to a winner from what its view offers.
        a_league(&app).await;
        for p in ["dan", "eve"] {
            app.admin(
                "mutation($p: ID!) { registerPlayer(input: {leagueId: \"apl\", player: $p, name: $p, membership: $p}) { events } }",
                json!({"p": p}),
            )
            .await;
        }
        let players = ["ann", "bob", "cat", "dan"];
        league_tests::started(&app, "night", "crown", Tracking::Dealt, &players).await;
        let data = app
            .admin(
                "query { table(tournamentId: \"night\", table: 1) { version seats { chips } } }",
                json!({}),
            )
            .await;
        let total: u64 = data["table"]["seats"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["chips"].as_u64().unwrap())
            .sum();
        let started_at = data["table"]["version"].as_u64().unwrap();
        let mut tv = app
            .subscribe(
                "graphql-transport-ws",
                json!({}),
                json!({"id": "tv", "type": "subscribe", "payload": {
                    "query": "subscription { table(tournamentId: \"night\", table: 1) { version } }",
                    "extensions": {"minPosition": app.last_position().await.unwrap()},
                }}),
            )
            .await;
        let ack = league_tests::next_message(&mut tv, "the connection_ack").await;
        assert_eq!(ack["type"], "connection_ack", "{ack:#}");
        let last = std::cell::Cell::new(None);
        let watching = versions_until(&mut tv, &last);
        let playing = async {
            let commands = play_to_a_winner(&app, "night", total, 17).await;
            app.admin(
                "mutation { recordTournamentResult(input: {leagueId: \"apl\", tournamentId: \"night\", season: \"s1\", day: 1}) { events } }",
                json!({}),
            )
            .await;
            let data = app
                .admin(
                    "query { table(tournamentId: \"night\", table: 1) { version } }",
                    json!({}),
                )
                .await;
            last.set(Some(data["table"]["version"].as_u64().unwrap()));
            commands
        };
        let (versions, commands) = futures_util::join!(watching, playing);
        assert!(commands > 20, "a night of {commands} commands");

        // The TV: the view as it stood when it subscribed, then every later one, in order,
        // to the last.
        assert!(versions[0] >= started_at, "{versions:?}");
        assert!(
            versions.windows(2).all(|w| w[0] < w[1]),
            "out of order: {versions:?}"
        );
        assert_eq!(versions.last().copied(), last.get(), "{versions:?}");

        // Both instances decided commands; neither refused one.
        for instance in &instances {
            let page = metrics_page(&league_tests::remote(
                instance.clone(),
                store.clone(),
                admin.clone(),
            ))
            .await;
            let appended = series(&page, "league_commands_total{outcome=\"appended\"}");
            let refused = series(&page, "league_commands_total{outcome=\"refused\"}");
            assert_eq!(refused, 0, "{instance} refused commands");
            assert!(appended > 10, "{instance} decided only {appended} commands");
        }
        let results = app
            .admin(
                "query { tournament(id: \"night\") { stage results { player place } } }",
                json!({}),
            )
            .await;
        assert_eq!(results["tournament"]["stage"], "FINISHED", "{results:#}");
        drop(tv);
        drop(app);
        store.close().await;
        database.drop_it().await;
    });
    let _ = std::fs::remove_dir_all(&dir);
}
