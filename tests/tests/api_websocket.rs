//! The GraphQL service end to end, the WebSocket protocols: what `graphql-transport-ws`
//! refuses and answers, and the older `graphql-ws`. Each scenario runs on its own server
//! and database, on SQLite and (with `LEAGUE_TEST_POSTGRES_URL`) PostgreSQL.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use futures_util::SinkExt as _;
use league_api::auth::Role;
use league_engine::tournament::play::Tracking;
use league_tests::{
    Backend, SCHEDULE, TestApp, closed_with, code, next_message, schedule, spawn_app_with, started,
    text,
};
use serde_json::json;

/// What the WebSocket protocol refuses, with the `graphql-transport-ws` specification's
/// close codes, and what it answers.
async fn the_websocket_protocol_refuses_what_it_must(app: &TestApp) {
    // Arrange: a tournament to watch.
    app.admin(
        SCHEDULE,
        json!({"id": "t5", "s": schedule("crown", Tracking::Results)}),
    )
    .await;
    let query = "subscription { tournament(id: \"t5\") { entries } }";
    let subscribe = |id: &str| json!({"id": id, "type": "subscribe", "payload": {"query": query}});
    // No protocol the server speaks: the upgrade is refused.
    assert!(
        awc::Client::new()
            .ws(app.ws_url())
            .protocols(["mqtt"])
            .connect()
            .await
            .is_err()
    );
    // A subscription before connection_init: 4401.
    let mut ws = app.connect("graphql-transport-ws").await;
    ws.send(text(subscribe("1"))).await.unwrap();
    assert_eq!(closed_with(&mut ws).await, 4401);
    // A token that is not one: 4403.
    let mut ws = app.connect("graphql-transport-ws").await;
    ws.send(text(
        json!({"type": "connection_init", "payload": {"Authorization": "Bearer tok_forged"}}),
    ))
    .await
    .unwrap();
    assert_eq!(closed_with(&mut ws).await, 4403);
    // Not a message of the protocol: 4400.
    let mut ws = app.connect("graphql-transport-ws").await;
    ws.send(awc::ws::Message::Text("{not json".into()))
        .await
        .unwrap();
    assert_eq!(closed_with(&mut ws).await, 4400);
    // connection_init twice: 4429.
    let mut ws = app
        .subscribe(
            "graphql-transport-ws",
            json!({}),
            json!({"type": "connection_init"}),
        )
        .await;
    assert_eq!(closed_with(&mut ws).await, 4429);
    // A ping is answered; the same id twice is 4409.
    let mut ws = app
        .subscribe("graphql-transport-ws", json!({}), subscribe("1"))
        .await;
    ws.send(text(json!({"type": "ping"}))).await.unwrap();
    let mut types = Vec::new();
    while !types.contains(&"pong".to_owned()) {
        let message = next_message(&mut ws, "a pong").await;
        types.push(message["type"].as_str().unwrap().to_owned());
    }
    assert!(types.contains(&"connection_ack".to_owned()), "{types:?}");
    ws.send(text(subscribe("1"))).await.unwrap();
    assert_eq!(closed_with(&mut ws).await, 4409);
    // `complete` ends a subscription and is acknowledged; the connection stays open.
    let mut ws = app
        .subscribe("graphql-transport-ws", json!({}), subscribe("1"))
        .await;
    assert_eq!(
        next_message(&mut ws, "an ack").await["type"],
        "connection_ack"
    );
    assert_eq!(next_message(&mut ws, "a view").await["type"], "next");
    ws.send(text(json!({"id": "1", "type": "complete"})))
        .await
        .unwrap();
    let done = next_message(&mut ws, "the acknowledgement").await;
    assert_eq!(done, json!({"type": "complete", "id": "1"}));
    ws.send(text(subscribe("1"))).await.unwrap();
    assert_eq!(
        next_message(&mut ws, "the same id again").await["type"],
        "next"
    );
}

/// The older `graphql-ws` protocol (subscriptions-transport-ws), authenticated in the
/// `connection_init` payload: a player's table subscription shows their own hole cards
/// and nobody else's (the running hand of `t2`).
async fn a_player_subscribed_over_the_older_protocol_sees_only_their_own_cards(app: &TestApp) {
    // Arrange: a running hand at `t2`'s table.
    started(app, "t2", "crown", Tracking::Dealt, &["ann", "bob"]).await;
    app.admin(
        "mutation { startHand(input: {tournamentId: \"t2\", table: 1}) { events } }",
        json!({}),
    )
    .await;
    let ann = app.token(Role::Player, None, Some("ann")).await;
    let query = "subscription { table(tournamentId: \"t2\", table: 1) { seats { player cards } } }";
    let init = json!({"Authorization": format!("Bearer {ann}")});
    let start = json!({"id": "1", "type": "start", "payload": {"query": query}});
    let mut ws = app.subscribe("graphql-ws", init, start).await;
    loop {
        let message = next_message(&mut ws, "a message").await;
        match message["type"].as_str() {
            Some("connection_ack" | "ka") => {}
            Some("data") => {
                let seats = message["payload"]["data"]["table"]["seats"]
                    .as_array()
                    .unwrap_or_else(|| panic!("{message:#}"));
                for s in seats {
                    if s["player"] == "ann" {
                        assert_eq!(s["cards"].as_array().unwrap().len(), 2, "{message:#}");
                    } else {
                        assert!(
                            s["cards"].is_null(),
                            "ann sees another's cards: {message:#}"
                        );
                    }
                }
                break;
            }
            other => panic!("unexpected {other:?}: {message:#}"),
        }
    }
}

/// A revoked token is refused on its next request, and the WebSocket opened with it is
/// closed with 1008 (policy violation) at the next heartbeat.
async fn a_revoked_token_is_refused_at_once_and_its_websocket_closed(app: &TestApp) {
    let auditor = app.token(Role::Auditor, None, None).await;
    let me = "{ me { role } }";
    let body = app.graphql(Some(&auditor), me, json!({})).await;
    assert_eq!(body["data"]["me"]["role"], "auditor", "{body:#}");
    let init = json!({"Authorization": format!("Bearer {auditor}")});
    let start = json!({
        "id": "1",
        "type": "subscribe",
        "payload": {"query": "subscription { eventLog { position } }"}
    });
    let mut ws = app.subscribe("graphql-transport-ws", init, start).await;
    assert_eq!(
        next_message(&mut ws, "the acknowledgement").await["type"],
        "connection_ack"
    );
    let id = app
        .store
        .token_by_hash(&league_api::auth::hash_token(&auditor))
        .await
        .unwrap()
        .unwrap()
        .id;
    assert!(app.store.revoke_token(&id).await.unwrap());
    let body = app.graphql(Some(&auditor), me, json!({})).await;
    assert_eq!(code(&body), "UNAUTHENTICATED", "{body:#}");
    assert_eq!(closed_with(&mut ws).await, 1008);
}

/// A token is refused once it expires (also where it was checked and cached before), its
/// WebSocket is closed with 1008 at the next heartbeat, and a renewal makes the same token
/// work again; `me` says when it expires.
async fn an_expired_token_is_refused_until_renewed(app: &TestApp) {
    // An auditor token that expires in three seconds (the CLI's shortest is a minute).
    let token = "league_expiring_auditor_token";
    let hash = league_api::auth::hash_token(token);
    let expires = app.store.now().as_micros() + 3_000_000;
    app.store
        .insert_token(&league_store::NewToken {
            id: "tok_expiring",
            hash: &hash,
            role: "auditor",
            venue: None,
            player: None,
            league: None,
            expires_at: Some(league_store::Timestamp::from_micros(expires)),
        })
        .await
        .unwrap();
    let me = "{ me { role expiresAt } }";
    let body = app.graphql(Some(token), me, json!({})).await;
    assert_eq!(body["data"]["me"]["role"], "auditor", "{body:#}");
    assert_eq!(body["data"]["me"]["expiresAt"], expires, "{body:#}");
    let init = json!({"Authorization": format!("Bearer {token}")});
    let start = json!({
        "id": "1",
        "type": "subscribe",
        "payload": {"query": "subscription { eventLog { position } }"}
    });
    let mut ws = app.subscribe("graphql-transport-ws", init, start).await;
    assert_eq!(
        next_message(&mut ws, "the acknowledgement").await["type"],
        "connection_ack"
    );
    while app.store.now().as_micros() < expires {
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let body = app.graphql(Some(token), me, json!({})).await;
    assert_eq!(code(&body), "UNAUTHENTICATED", "{body:#}");
    let message = body["errors"][0]["message"].as_str().unwrap();
    assert!(
        message.contains("expired") && message.contains("league token renew tok_expiring"),
        "{message}"
    );
    assert_eq!(closed_with(&mut ws).await, 1008);
    // Renewed: the same token works again, until its new expiry.
    let renewed = league_api::auth::renew_token(
        &app.store,
        "tok_expiring",
        None,
        &league_api::auth::Lifetimes::default(),
    )
    .await
    .unwrap();
    let body = app.graphql(Some(token), me, json!({})).await;
    assert_eq!(
        body["data"]["me"]["expiresAt"],
        renewed.as_micros(),
        "{body:#}"
    );
    // The auditor's default lifetime, 90 days, counted from the renewal.
    let lifetime = renewed.as_micros() - app.store.now().as_micros();
    assert!(
        (89 * 86_400_000_000..=90 * 86_400_000_000).contains(&lifetime),
        "{lifetime}"
    );
    // A revoked token cannot be renewed.
    assert!(app.store.revoke_token("tok_expiring").await.unwrap());
    let refused = league_api::auth::renew_token(
        &app.store,
        "tok_expiring",
        None,
        &league_api::auth::Lifetimes::default(),
    )
    .await;
    assert_eq!(refused.unwrap_err().code(), "NOT_FOUND");
}

/// An auditor's `eventLog` is never conflated: a subscriber that stops reading while the
/// log grows by far more than the connection's buffers hold gets, once it reads again,
/// every event, in order, each once.
async fn an_auditor_who_stops_reading_gets_every_event_in_order_after(app: &TestApp) {
    const EVENTS: u32 = 60_000;
    let auditor = app.token(Role::Auditor, None, None).await;
    let init = json!({"Authorization": format!("Bearer {auditor}")});
    let start = json!({
        "id": "log",
        "type": "subscribe",
        "payload": {"query": "subscription { eventLog { position streamId payload } }"}
    });
    let mut ws = app.subscribe("graphql-transport-ws", init, start).await;
    assert_eq!(
        next_message(&mut ws, "the acknowledgement").await["type"],
        "connection_ack"
    );
    // Not read while the log grows (about 12 MB of frames, more than the loopback's socket
    // buffers take), for less than the 10 s after which the server closes a silent client.
    league_testkit::fill(&app.store, EVENTS).await.unwrap();
    ws.send(text(json!({"type": "ping"}))).await.unwrap();
    tokio::time::sleep(std::time::Duration::from_secs(1)).await;
    let log: Vec<u64> = app
        .store
        .read_all(0, usize::MAX)
        .await
        .unwrap()
        .iter()
        .map(|e| e.position)
        .collect();
    assert!(log.len() >= usize::try_from(EVENTS).unwrap());
    let mut seen = Vec::with_capacity(log.len());
    while seen.len() < log.len() {
        let message = next_message(&mut ws, "the next event").await;
        if message["type"] == "pong" {
            continue;
        }
        assert_eq!(message["type"], "next", "{message:#}");
        seen.push(
            message["payload"]["data"]["eventLog"]["position"]
                .as_u64()
                .unwrap(),
        );
        // Answer the server's heartbeat now and then: a reader is not a silent client.
        if seen.len() % 1_000 == 0 {
            ws.send(text(json!({"type": "ping"}))).await.unwrap();
        }
    }
    assert_eq!(seen, log, "every event, in order, each once");
}

/// Screens of a table that changes faster than their view may be sent skip to the newest:
/// each is sent strictly newer versions, ends at the table's last one, and is sent fewer
/// views than the table had versions. Ten screens at 100 frames a second for the view: at
/// most one view each 100 ms.
async fn busy_screens_skip_to_the_newest_view(backend: Backend) {
    const SCREENS: usize = 10;
    const COMMANDS: usize = 30;
    let app = spawn_app_with(
        backend,
        league_api::Options {
            live_frames_per_view: 100,
            ..league_api::Options::default()
        },
    )
    .await;
    started(&app, "t40", "crown", Tracking::Dealt, &["cy", "di", "ed"]).await;
    let start = json!({
        "id": "tv",
        "type": "subscribe",
        "payload": {"query": "subscription { table(tournamentId: \"t40\", table: 1) { version } }"}
    });
    let mut screens = Vec::new();
    let mut first = Vec::new();
    for _ in 0..SCREENS {
        let mut ws = app
            .subscribe("graphql-transport-ws", json!({}), start.clone())
            .await;
        first.push(screen_version(&mut ws).await);
        screens.push(ws);
    }
    // The table's versions, as fast as the host's tablet can send commands.
    let mut versions = Vec::new();
    let mut view = json!({"inHand": false});
    for _ in 0..COMMANDS {
        let done = if view["inHand"] == true {
            app.admin(
                "mutation($s: Int!) { act(input: {tournamentId: \"t40\", table: 1, seat: $s, action: FOLD}) { version table(table: 1) { inHand toAct } } }",
                json!({"s": view["toAct"]}),
            )
            .await["act"]
                .clone()
        } else {
            app.admin(
                "mutation { startHand(input: {tournamentId: \"t40\", table: 1}) { version table(table: 1) { inHand toAct } } }",
                json!({}),
            )
            .await["startHand"]
                .clone()
        };
        versions.push(done["version"].as_u64().unwrap());
        view = done["table"].clone();
    }
    let last = *versions.last().unwrap();
    for (ws, first) in screens.iter_mut().zip(first) {
        let mut seen = vec![first];
        while *seen.last().unwrap() < last {
            seen.push(screen_version(ws).await);
        }
        assert!(seen.windows(2).all(|w| w[0] < w[1]), "{seen:?}");
        assert_eq!(seen.last(), Some(&last), "{seen:?}");
        assert!(
            seen.len() < COMMANDS,
            "a view paced at 100 ms skipped none of {COMMANDS} versions: {seen:?}"
        );
    }
    app.stop().await;
}

/// The version of a screen's next table view.
async fn screen_version(ws: &mut league_tests::WebSocket) -> u64 {
    loop {
        let message = next_message(ws, "the table's view").await;
        if message["type"] == "next" {
            return message["payload"]["data"]["table"]["version"]
                .as_u64()
                .unwrap();
        }
    }
}

#[actix_web::test]
async fn busy_screens_skip_to_the_newest_view_on_sqlite() {
    busy_screens_skip_to_the_newest_view(Backend::Sqlite).await;
}

#[actix_web::test]
async fn busy_screens_skip_to_the_newest_view_on_postgres() {
    if league_tests::postgres_is_configured() {
        busy_screens_skip_to_the_newest_view(Backend::Postgres).await;
    }
}

league_tests::on_every_backend!(
    an_auditor_who_stops_reading_gets_every_event_in_order_after,
    an_expired_token_is_refused_until_renewed,
    the_websocket_protocol_refuses_what_it_must,
    a_player_subscribed_over_the_older_protocol_sees_only_their_own_cards,
    a_revoked_token_is_refused_at_once_and_its_websocket_closed,
);
