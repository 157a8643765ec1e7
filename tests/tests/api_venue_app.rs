//! What a venue app meets when it is written against the API: idempotency keys that never
//! drop a request silently, a code on every error (bad values, parse and validation
//! errors), messages without Rust debug text, subscriptions to unknown ids answered at once,
//! tokens only for venues and players that exist, and GraphiQL served by the binary alone.
//! Each scenario runs on its own server and database, on SQLite and (with
//! `LEAGUE_TEST_POSTGRES_URL`) PostgreSQL.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use league_api::auth::{Role, create_token};
use league_engine::tournament::play::Tracking;
use league_tests::{
    ACT, REGISTER, SCHEDULE, TestApp, code, next_message, schedule, seed, started,
};
use serde_json::{Value, json};

async fn an_idempotency_key_reused_for_another_request_is_refused(app: &TestApp) {
    app.admin(
        SCHEDULE,
        json!({"id": "t1", "s": schedule("crown", Tracking::Results, &seed(1))}),
    )
    .await;
    app.admin(REGISTER, json!({"t": "t1", "p": "ann", "k": "k1"}))
        .await;
    let before = app.last_position().await;
    // The same key, the same tournament, another player: refused, and bob is not dropped
    // silently as a "deduplicated" retry.
    let body = app
        .graphql(
            Some(&app.admin),
            REGISTER,
            json!({"t": "t1", "p": "bob", "k": "k1"}),
        )
        .await;
    assert_eq!(code(&body), "IDEMPOTENCY_KEY_REUSED", "{body:#}");
    // Another mutation with the key: refused too.
    let body = app
        .graphql(
            Some(&app.admin),
            "mutation($t: String!, $k: String) { pause(tournamentId: $t, idempotencyKey: $k) { events } }",
            json!({"t": "t1", "k": "k1"}),
        )
        .await;
    assert_eq!(code(&body), "IDEMPOTENCY_KEY_REUSED", "{body:#}");
    assert_eq!(app.last_position().await, before, "nothing appended");
    // The same request, its arguments written inline and in another order: the first answer.
    let again = app
        .admin(
            "mutation { register(player: \"ann\", idempotencyKey: \"k1\", tournamentId: \"t1\") { deduplicated } }",
            json!({}),
        )
        .await;
    assert_eq!(again["register"]["deduplicated"], true);
    // A key is the token's own: another token may use the same text for its own request.
    let host = app.token(Role::Host, Some("crown"), None).await;
    let body = app
        .graphql(Some(&host), REGISTER, json!({"t": "t1", "p": "bob", "k": "k1"}))
        .await;
    assert!(body.get("errors").is_none(), "{body:#}");
}

async fn every_error_has_a_code_and_reads_as_words(app: &TestApp) {
    // A negative amount: BAD_INPUT naming the variable, not a bare "Failed to parse".
    started(app, "t2", "crown", Tracking::Dealt, &["ann", "bob"]).await;
    let body = app
        .graphql(
            Some(&app.admin),
            ACT,
            json!({"t": "t2", "table": 1, "seat": 0, "a": "BET", "amount": -5}),
        )
        .await;
    assert_eq!(code(&body), "BAD_INPUT", "{body:#}");
    // The same value written in the document: BAD_INPUT naming the argument.
    let body = app
        .graphql(
            Some(&app.admin),
            "mutation { act(tournamentId: \"t2\", table: 1, seat: 0, action: BET, amount: -5) { events } }",
            json!({}),
        )
        .await;
    assert_eq!(code(&body), "BAD_INPUT", "{body:#}");
    assert_eq!(body["errors"][0]["extensions"]["field"], "amount", "{body:#}");
    // A document that does not parse: a code and no drawing of the line.
    let body = app
        .graphql(Some(&app.admin), "{ tournaments(", json!({}))
        .await;
    assert_eq!(code(&body), "GRAPHQL_PARSE_FAILED", "{body:#}");
    let message = body["errors"][0]["message"].as_str().unwrap();
    assert!(!message.contains("-->") && !message.contains('^'), "{message}");
    // A field the schema does not have.
    let body = app.graphql(None, "{ nope }", json!({})).await;
    assert_eq!(code(&body), "GRAPHQL_VALIDATION_FAILED", "{body:#}");
    // A rule error with an option inside reads as words: no `Some(..)`.
    app.admin(
        "mutation { startHand(tournamentId: \"t2\", table: 1) { events } }",
        json!({}),
    )
    .await;
    let table = app
        .admin(
            "{ table(tournamentId: \"t2\", table: 1) { toAct seats { seat } } }",
            json!({}),
        )
        .await;
    let to_act = table["table"]["toAct"].as_u64().unwrap();
    let other = table["table"]["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["seat"].as_u64().unwrap())
        .find(|s| *s != to_act)
        .unwrap();
    let body = app
        .graphql(
            Some(&app.admin),
            ACT,
            json!({"t": "t2", "table": 1, "seat": other, "a": "FOLD"}),
        )
        .await;
    assert_eq!(code(&body), "NOT_YOUR_TURN", "{body:#}");
    let message = body["errors"][0]["message"].as_str().unwrap();
    assert_eq!(
        message,
        format!("it is not seat {other}'s turn; seat {to_act} is to act")
    );
}

/// The first message of a subscription to `query`, after the acknowledgement.
async fn first_answer(app: &TestApp, query: &str) -> Value {
    let mut ws = app
        .subscribe(
            "graphql-transport-ws",
            json!({}),
            json!({"id": "1", "type": "subscribe", "payload": {"query": query}}),
        )
        .await;
    loop {
        let message = next_message(&mut ws, "an answer to the subscription").await;
        if message["type"] != "connection_ack" {
            return message;
        }
    }
}

async fn a_subscription_to_an_unknown_id_is_answered_at_once(app: &TestApp) {
    for (query, id) in [
        ("subscription { tournament(id: \"nope\") { entries } }", "\"nope\""),
        (
            "subscription { table(tournamentId: \"nope\", table: 1) { hand } }",
            "\"nope\"",
        ),
        (
            "subscription { standings(leagueId: \"nope\", season: \"s1\") { player } }",
            "\"nope\"",
        ),
    ] {
        let message = first_answer(app, query).await;
        assert_eq!(message["type"], "error", "{message:#}");
        let error = &message["payload"][0];
        assert_eq!(error["extensions"]["code"], "NOT_FOUND", "{message:#}");
        assert!(
            error["message"].as_str().unwrap().contains(id),
            "{message:#}"
        );
    }
    // A table the started tournament does not have.
    started(app, "t3", "crown", Tracking::Results, &["ann", "bob"]).await;
    let message = first_answer(
        app,
        "subscription { table(tournamentId: \"t3\", table: 9) { hand } }",
    )
    .await;
    assert_eq!(message["type"], "error", "{message:#}");
    assert!(
        message["payload"][0]["message"]
            .as_str()
            .unwrap()
            .contains("no table 9"),
        "{message:#}"
    );
}

async fn tokens_are_issued_only_for_venues_and_players_that_exist(app: &TestApp) {
    let venue = create_token(&app.store, Role::Host, Some("no-such-venue"), None)
        .await
        .unwrap_err();
    assert_eq!(venue.code(), "NOT_FOUND", "{venue}");
    let player = create_token(&app.store, Role::Player, None, Some("nobody"))
        .await
        .unwrap_err();
    assert_eq!(player.code(), "NOT_FOUND", "{player}");
    // Once the league has them, the tokens are issued.
    app.admin(
        "mutation { createLeague(id: \"apl\", name: \"APL\") { events } }",
        json!({}),
    )
    .await;
    app.admin(
        "mutation { addVenue(leagueId: \"apl\", venue: \"anchor\", region: \"north\") { events } }",
        json!({}),
    )
    .await;
    app.admin(
        "mutation { registerPlayer(leagueId: \"apl\", player: \"dee\", name: \"Dee\", membership: \"m-1\") { events } }",
        json!({}),
    )
    .await;
    create_token(&app.store, Role::Host, Some("anchor"), None)
        .await
        .unwrap();
    create_token(&app.store, Role::Player, None, Some("dee"))
        .await
        .unwrap();
}

async fn graphiql_is_served_by_the_binary_alone(app: &TestApp) {
    let client = awc::Client::new();
    let mut page = client
        .get(format!("{}/graphql", app.base))
        .insert_header(("accept", "text/html"))
        .send()
        .await
        .unwrap();
    assert!(page.status().is_success());
    let html = String::from_utf8(page.body().await.unwrap().to_vec()).unwrap();
    assert!(html.contains("GraphiQL"), "{html}");
    let mut assets = 0;
    for attr in ["src=\"", "href=\""] {
        for (i, _) in html.match_indices(attr) {
            let rest = &html[i + attr.len()..];
            let url = &rest[..rest.find('"').unwrap()];
            assert!(url.starts_with('/'), "{url} is not served by the binary");
            let mut asset = client
                .get(format!("{}{url}", app.base))
                .send()
                .await
                .unwrap();
            assert!(asset.status().is_success(), "{url}: {}", asset.status());
            let body = asset.body().limit(8 << 20).await.unwrap();
            assert!(body.len() > 1_000, "{url}");
            assets += 1;
        }
    }
    assert_eq!(assets, 4, "the stylesheet, React, ReactDOM and GraphiQL");
}

league_tests::on_every_backend!(
    an_idempotency_key_reused_for_another_request_is_refused,
    every_error_has_a_code_and_reads_as_words,
    a_subscription_to_an_unknown_id_is_answered_at_once,
    tokens_are_issued_only_for_venues_and_players_that_exist,
    graphiql_is_served_by_the_binary_alone,
);
