//! Request ids: every answer carries its request's UUID in `X-Request-Id` (the client's own,
//! when it sent a valid one; else a new UUIDv7), every error carries it in
//! `extensions.requestId`, and the events a request appends carry it as their correlation
//! id. An operation on a WebSocket has its own.

#![expect(clippy::unwrap_used, reason = "a test")]

use futures_util::SinkExt as _;
use league_tests::*;
use serde_json::{Value, json};

on_every_backend!(a_request_id_follows_the_request_into_its_errors_and_events);

/// A UUIDv7 in its text form.
fn is_v7(id: &str) -> bool {
    let b = id.as_bytes();
    id.len() == 36
        && [8, 13, 18, 23].iter().all(|&i| b[i] == b'-')
        && b[14] == b'7'
        && id
            .chars()
            .enumerate()
            .all(|(i, c)| [8, 13, 18, 23].contains(&i) || c.is_ascii_hexdigit())
}

/// POSTs `query` with `headers`: the `X-Request-Id` answered, the status and the body.
async fn post(
    app: &TestApp,
    headers: &[(&str, &str)],
    query: &str,
    variables: Value,
) -> (String, u16, Value) {
    let mut request = awc::Client::new().post(format!("{}/graphql", app.base));
    for (name, value) in headers {
        request = request.insert_header((*name, *value));
    }
    let mut response = request
        .send_json(&json!({"query": query, "variables": variables}))
        .await
        .unwrap();
    let id = response
        .headers()
        .get("x-request-id")
        .map(|v| v.to_str().unwrap().to_owned())
        .unwrap_or_default();
    let body = response.body().limit(1 << 20).await.unwrap();
    (
        id,
        response.status().as_u16(),
        serde_json::from_slice(&body).unwrap(),
    )
}

async fn a_request_id_follows_the_request_into_its_errors_and_events(app: &TestApp) {
    let admin = format!("Bearer {}", app.admin);
    let auth = [("Authorization", admin.as_str())];

    // Without an id, each request gets a new UUIDv7; every endpoint answers with one.
    let (first, status, _) = post(app, &auth, "{ me { role } }", json!({})).await;
    let (second, _, _) = post(app, &auth, "{ me { role } }", json!({})).await;
    assert_eq!(status, 200);
    assert!(is_v7(&first) && is_v7(&second), "{first} {second}");
    assert_ne!(first, second);
    let health = awc::Client::new()
        .get(format!("{}/healthz", app.base))
        .send()
        .await
        .unwrap();
    assert!(is_v7(
        health
            .headers()
            .get("x-request-id")
            .unwrap()
            .to_str()
            .unwrap()
    ));

    // A valid id sent by the client (or its load balancer) is kept; anything else is
    // replaced.
    let sent = "0190b6c4-7d2a-4cde-8f00-123456789abc";
    let (kept, _, _) = post(
        app,
        &[auth[0], ("X-Request-Id", sent)],
        "{ me { role } }",
        json!({}),
    )
    .await;
    assert_eq!(kept, sent);
    let (replaced, _, _) = post(
        app,
        &[auth[0], ("X-Request-Id", "my-request")],
        "{ me { role } }",
        json!({}),
    )
    .await;
    assert!(is_v7(&replaced), "{replaced}");

    // Every error carries it: a refused command, a document that does not parse, a bad
    // token.
    for (headers, query, code_expected) in [
        (
            vec![auth[0], ("X-Request-Id", sent)],
            "mutation { start(input: {tournamentId: \"nowhere\"}) { events } }",
            "NOT_FOUND",
        ),
        (
            vec![auth[0], ("X-Request-Id", sent)],
            "{ me { role ",
            "GRAPHQL_PARSE_FAILED",
        ),
        (
            vec![("Authorization", "Bearer nonsense"), ("X-Request-Id", sent)],
            "{ me { role } }",
            "UNAUTHENTICATED",
        ),
    ] {
        let (id, _, body) = post(app, &headers, query, json!({})).await;
        assert_eq!(id, sent);
        let errors = body["errors"].as_array().unwrap();
        assert!(!errors.is_empty(), "{body:#}");
        assert_eq!(code(&body), code_expected, "{body:#}");
        for error in errors {
            assert_eq!(error["extensions"]["requestId"], sent, "{body:#}");
        }
    }

    // The events a request appends carry its id as their correlation id.
    let (id, _, body) = post(
        app,
        &auth,
        "mutation { createLeague(input: {id: \"rq\", name: \"Request League\"}) { events } \
         addVenue(input: {leagueId: \"rq\", venue: \"rq-pub\", region: \"north\"}) { events } }",
        json!({}),
    )
    .await;
    assert!(body.get("errors").is_none(), "{body:#}");
    let log = app
        .admin(
            "{ events(first: 1000) { events { streamId correlationId } } }",
            json!({}),
        )
        .await;
    let ours: Vec<&Value> = log["events"]["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["streamId"] == "league:rq")
        .collect();
    assert_eq!(ours.len(), 2);
    assert!(
        ours.iter().all(|e| e["correlationId"] == id.as_str()),
        "{ours:#?}"
    );

    // On a WebSocket each operation has its own id, in its errors.
    let mut ws = app.connect("graphql-transport-ws").await;
    ws.send(text(json!({"type": "connection_init", "payload": {}})))
        .await
        .unwrap();
    assert_eq!(
        next_message(&mut ws, "the ack").await["type"],
        "connection_ack"
    );
    let mut ids = Vec::new();
    for op in ["a", "b"] {
        ws.send(text(json!({"id": op, "type": "subscribe", "payload": {"query": "subscription { eventLog { streamId "}})))
            .await
            .unwrap();
        // Refused before it runs (`error`) or by the schema (`next` with errors).
        let refused = loop {
            let message = next_message(&mut ws, "the refusal").await;
            if message["type"] != "complete" {
                break message;
            }
        };
        assert_eq!(refused["id"], op);
        let error = match refused["type"].as_str() {
            Some("error") => &refused["payload"][0],
            _ => &refused["payload"]["errors"][0],
        };
        assert_eq!(
            error["extensions"]["code"], "GRAPHQL_PARSE_FAILED",
            "{refused:#}"
        );
        let id = error["extensions"]["requestId"]
            .as_str()
            .unwrap_or_else(|| panic!("{refused:#}"))
            .to_owned();
        assert!(is_v7(&id), "{id}");
        ids.push(id);
    }
    assert_ne!(ids[0], ids[1]);
}
