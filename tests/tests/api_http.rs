//! GraphQL as its ecosystem expects it, through a real HTTP client against the server: the
//! standard introspection query answered (the one graphql-js, GraphiQL and graphql-codegen
//! send, `tests/fixtures/introspection.graphql`) while data selections keep their own depth
//! bound; GraphQL over HTTP (queries by GET, mutations by GET refused with 405,
//! `application/graphql-response+json` with 4xx for a request refused before it runs,
//! `application/json` kept for older clients); a fragment bomb refused at once; anonymous
//! introspection as the operator sets it.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::time::{Duration, Instant};

use league_tests::{Backend, TestApp, code, spawn_app, spawn_app_with};
use serde_json::{Value, json};

const INTROSPECTION: &str = include_str!("../fixtures/introspection.graphql");
const GRAPHQL_RESPONSE: &str = "application/graphql-response+json";

/// The status, the `Content-Type` and the body of an answer, and its `Allow` header.
struct Answer {
    status: u16,
    content_type: String,
    allow: Option<String>,
    body: Value,
}

async fn answer(
    mut response: awc::ClientResponse<
        impl futures_util::Stream<Item = Result<actix_web::web::Bytes, awc::error::PayloadError>>
        + Unpin,
    >,
) -> Answer {
    let header = |name: &str| {
        response
            .headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    };
    let content_type = header("content-type").unwrap_or_default();
    let allow = header("allow");
    let status = response.status().as_u16();
    let bytes = response.body().limit(16 << 20).await.unwrap();
    let body = serde_json::from_slice(&bytes).unwrap_or_else(|e| {
        panic!(
            "{status} {content_type}: {e}: {}",
            String::from_utf8_lossy(&bytes)
        )
    });
    Answer {
        status,
        content_type,
        allow,
        body,
    }
}

async fn post(app: &TestApp, accept: &str, token: Option<&str>, query: &str) -> Answer {
    let mut request = awc::Client::new()
        .post(format!("{}/graphql", app.base))
        .insert_header(("accept", accept));
    if let Some(token) = token {
        request = request.insert_header(("authorization", format!("Bearer {token}")));
    }
    answer(request.send_json(&json!({ "query": query })).await.unwrap()).await
}

async fn get(app: &TestApp, accept: &str, query_string: &str) -> Answer {
    let response = awc::Client::new()
        .get(format!("{}/graphql?{query_string}", app.base))
        .insert_header(("accept", accept))
        .send()
        .await
        .unwrap();
    answer(response).await
}

fn encoded(text: &str) -> String {
    let mut out = String::new();
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-_.~".contains(&byte) {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// The standard introspection query is answered, anonymously, and describes the schema of
/// `schema/league.graphql`: every type the SDL declares, and `Mutation` with every mutation.
#[actix_web::test]
async fn the_standard_introspection_query_is_answered() {
    let app = spawn_app(Backend::Sqlite).await;
    let reply = post(&app, "application/json", None, INTROSPECTION).await;
    assert_eq!(reply.status, 200);
    assert!(reply.body.get("errors").is_none(), "{:#}", reply.body);
    let schema = &reply.body["data"]["__schema"];
    assert_eq!(schema["mutationType"]["name"], "Mutation");
    let types = schema["types"].as_array().unwrap();
    let sdl = league_api::sdl();
    for declared in sdl.lines().filter_map(|line| {
        let mut words = line.split_whitespace();
        match words.next()? {
            "type" | "input" | "enum" | "scalar" | "interface" | "union" => words.next(),
            _ => None,
        }
    }) {
        assert!(
            types.iter().any(|t| t["name"] == declared),
            "{declared} is in the SDL but not introspected"
        );
    }
    let mutation = types.iter().find(|t| t["name"] == "Mutation").unwrap();
    let mutations = mutation["fields"].as_array().unwrap().len();
    assert!(mutations >= 40, "{mutations} mutations");
    // Data selections keep their own bound: 12 levels pass it, 13 do not.
    let deep = |levels: usize| {
        format!(
            "{{ {} __typename {} }}",
            "a { ".repeat(levels),
            "}".repeat(levels)
        )
    };
    let reply = post(&app, "application/json", None, &deep(11)).await;
    assert_eq!(
        code(&reply.body),
        "GRAPHQL_VALIDATION_FAILED",
        "{:#}",
        reply.body
    );
    let reply = post(&app, "application/json", None, &deep(12)).await;
    assert_eq!(code(&reply.body), "BAD_INPUT", "{:#}", reply.body);
    let message = reply.body["errors"][0]["message"].as_str().unwrap();
    assert!(
        message.contains("deeper than 12 levels") && message.contains("13"),
        "{message}"
    );
    app.stop().await;
}

/// A GET with `query` runs it for a JSON client; a browser gets GraphiQL; a mutation by GET
/// is refused with 405 and `Allow: POST`, and appends nothing; a GET without a document is
/// a request error.
#[actix_web::test]
async fn queries_run_by_get_and_mutations_do_not() {
    let app = spawn_app(Backend::Sqlite).await;
    let reply = get(
        &app,
        "application/json",
        &format!("query={}", encoded("{ __typename }")),
    )
    .await;
    assert_eq!(
        (reply.status, reply.body["data"]["__typename"].as_str()),
        (200, Some("Query"))
    );
    assert!(
        reply.content_type.starts_with("application/json"),
        "{}",
        reply.content_type
    );
    // Variables and the operation's name as the specification sends them.
    let query = "query Q($id: ID!) { tournament(id: $id) { id } } query R { __typename }";
    let reply = get(
        &app,
        GRAPHQL_RESPONSE,
        &format!(
            "query={}&operationName=Q&variables={}",
            encoded(query),
            encoded(r#"{"id": "nope"}"#)
        ),
    )
    .await;
    assert_eq!(reply.status, 200, "{:#}", reply.body);
    assert!(
        reply.content_type.starts_with(GRAPHQL_RESPONSE),
        "{}",
        reply.content_type
    );
    assert_eq!(
        reply.body["data"]["tournament"],
        Value::Null,
        "{:#}",
        reply.body
    );
    // A mutation by GET: 405, and nothing appended.
    let before = app.last_position().await;
    let mutation = r#"mutation { createLeague(input: {id: "by-get", name: "By GET"}) { events } }"#;
    let reply = get(
        &app,
        "application/json",
        &format!("query={}", encoded(mutation)),
    )
    .await;
    assert_eq!(reply.status, 405, "{:#}", reply.body);
    assert_eq!(reply.allow.as_deref(), Some("POST"));
    assert_eq!(code(&reply.body), "METHOD_NOT_ALLOWED", "{:#}", reply.body);
    assert_eq!(app.last_position().await, before, "nothing appended");
    // No document for a JSON client: a request error with a code.
    let reply = get(&app, GRAPHQL_RESPONSE, "operationName=Q").await;
    assert_eq!(
        (reply.status, code(&reply.body)),
        (400, "BAD_INPUT"),
        "{:#}",
        reply.body
    );
    // A browser asking for the page gets GraphiQL, with or without a query in the URL.
    for query_string in ["", "query=%7B__typename%7D"] {
        let mut page = awc::Client::new()
            .get(format!("{}/graphql?{query_string}", app.base))
            .insert_header(("accept", "text/html,application/xhtml+xml,*/*;q=0.8"))
            .send()
            .await
            .unwrap();
        assert_eq!(page.status().as_u16(), 200);
        let html = page.body().await.unwrap();
        assert!(String::from_utf8_lossy(&html).contains("GraphiQL"));
    }
    app.stop().await;
}

/// With `Accept: application/graphql-response+json`, a document that does not parse or
/// does not validate answers 400 in that media type with a code and no parser drawing; an
/// error while the document runs (a field's error) still answers 200. With
/// `application/json` every GraphQL answer is 200, as older clients expect.
#[actix_web::test]
async fn request_errors_answer_4xx_in_graphql_response_json() {
    let app = spawn_app(Backend::Sqlite).await;
    for (document, expected) in [
        ("{ __typename ", "GRAPHQL_PARSE_FAILED"),
        ("{ noSuchField }", "GRAPHQL_VALIDATION_FAILED"),
        ("{ tournament { id } }", "GRAPHQL_VALIDATION_FAILED"),
    ] {
        let reply = post(&app, GRAPHQL_RESPONSE, None, document).await;
        assert_eq!(reply.status, 400, "{document}: {:#}", reply.body);
        assert!(
            reply.content_type.starts_with(GRAPHQL_RESPONSE),
            "{}",
            reply.content_type
        );
        assert_eq!(code(&reply.body), expected, "{:#}", reply.body);
        let message = reply.body["errors"][0]["message"].as_str().unwrap();
        assert!(
            !message.contains("-->") && !message.contains('^'),
            "{message}"
        );
        let legacy = post(&app, "application/json", None, document).await;
        assert_eq!(legacy.status, 200, "{document}: {:#}", legacy.body);
        assert!(legacy.content_type.starts_with("application/json"));
        assert_eq!(code(&legacy.body), expected);
    }
    // An error at a field, while the document runs: the request itself was good.
    let reply = post(
        &app,
        GRAPHQL_RESPONSE,
        None,
        r#"{ events(first: 1) { hasNextPage } }"#,
    )
    .await;
    assert_eq!(reply.status, 200, "{:#}", reply.body);
    assert!(
        reply.body["errors"][0]["path"].is_array(),
        "{:#}",
        reply.body
    );
    assert!(!code(&reply.body).is_empty(), "{:#}", reply.body);
    // Declined by `q=0`: the older media type.
    let reply = post(
        &app,
        "application/graphql-response+json;q=0, application/json",
        None,
        "{ x",
    )
    .await;
    assert!(reply.content_type.starts_with("application/json"));
    // A body that is not a GraphQL request: 400 in the media type asked for.
    let mut response = awc::Client::new()
        .post(format!("{}/graphql", app.base))
        .insert_header(("accept", GRAPHQL_RESPONSE))
        .insert_header(("content-type", "application/json"))
        .send_body("[1, 2")
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 400);
    let content_type = response
        .headers()
        .get("content-type")
        .unwrap()
        .to_str()
        .unwrap()
        .to_owned();
    assert!(content_type.starts_with(GRAPHQL_RESPONSE), "{content_type}");
    let body: Value = serde_json::from_slice(&response.body().await.unwrap()).unwrap();
    assert_eq!(code(&body), "BAD_INPUT");
    app.stop().await;
}

/// Thirty fragments each spreading the next twice (a billion selections): refused at once
/// with `BAD_INPUT` naming the bound, over HTTP and over WebSocket, and the server answers
/// the next request. Before the bound, async-graphql's own depth check walked every spread
/// (22 fragments took 5.8 s of a worker; 30 would take half an hour).
#[actix_web::test]
async fn a_fragment_bomb_is_refused_at_once() {
    let app = spawn_app(Backend::Sqlite).await;
    let mut bomb = "query { __typename ...F0 }".to_owned();
    for i in 0..30 {
        let next = i + 1;
        bomb.push_str(&format!(
            " fragment F{i} on Query {{ __typename ...F{next} ...F{next} }}"
        ));
    }
    bomb.push_str(" fragment F30 on Query { __typename }");
    let started = Instant::now();
    let reply = post(&app, "application/json", None, &bomb).await;
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(code(&reply.body), "BAD_INPUT", "{:#}", reply.body);
    let message = reply.body["errors"][0]["message"].as_str().unwrap();
    assert!(message.contains("10000 selections"), "{message}");
    // The same document as a subscription over WebSocket.
    let mut ws = app
        .subscribe(
            "graphql-transport-ws",
            json!({}),
            json!({"type": "subscribe", "id": "1", "payload": {"query": bomb.replacen("query", "subscription", 1)}}),
        )
        .await;
    let error = loop {
        let message = league_tests::next_message(&mut ws, "the refusal").await;
        if message["type"] != "connection_ack" {
            break message;
        }
    };
    assert_eq!(error["type"], "error", "{error:#}");
    assert_eq!(
        error["payload"][0]["extensions"]["code"], "BAD_INPUT",
        "{error:#}"
    );
    let reply = post(&app, "application/json", None, "{ __typename }").await;
    assert_eq!(reply.body["data"]["__typename"], "Query");
    app.stop().await;
}

/// `--no-anonymous-introspection`: introspection is refused to a caller without a token
/// (`FORBIDDEN`, 403) and answered to one with a token; other anonymous queries still run.
#[actix_web::test]
async fn anonymous_introspection_is_the_operator_s_choice() {
    let app = spawn_app_with(
        Backend::Sqlite,
        league_api::Options {
            anonymous_introspection: false,
            ..league_api::Options::default()
        },
    )
    .await;
    let reply = post(&app, "application/json", None, INTROSPECTION).await;
    assert_eq!(
        (reply.status, code(&reply.body)),
        (403, "FORBIDDEN"),
        "{:#}",
        reply.body
    );
    let reply = post(
        &app,
        "application/json",
        None,
        "{ __type(name: \"Query\") { name } }",
    )
    .await;
    assert_eq!(code(&reply.body), "FORBIDDEN", "{:#}", reply.body);
    let reply = post(&app, "application/json", Some(&app.admin), INTROSPECTION).await;
    assert!(reply.body.get("errors").is_none(), "{:#}", reply.body);
    let reply = post(&app, "application/json", None, "{ __typename }").await;
    assert_eq!(reply.body["data"]["__typename"], "Query");
    app.stop().await;
}

/// Automatic persisted queries as urql's and Apollo Client's links send them: the hash
/// alone first (`PersistedQueryNotFound`, 200), then the text with its hash, then the hash
/// alone, by POST and by GET. A mutation by hash is still refused by GET; a wrong hash is
/// refused and nothing is kept.
#[actix_web::test]
async fn persisted_queries_are_sent_by_hash() {
    use sha2::{Digest as _, Sha256};
    let app = spawn_app(Backend::Sqlite).await;
    let text = "query Name { __typename }";
    let hash: String = Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let extensions = json!({"persistedQuery": {"version": 1, "sha256Hash": hash}});
    let send = |body: Value| {
        let app = &app;
        async move {
            let response = awc::Client::new()
                .post(format!("{}/graphql", app.base))
                .insert_header(("accept", GRAPHQL_RESPONSE))
                .send_json(&body)
                .await
                .unwrap();
            answer(response).await
        }
    };
    let miss = send(json!({"extensions": extensions})).await;
    assert_eq!(miss.status, 200, "{:#}", miss.body);
    assert_eq!(miss.body["errors"][0]["message"], "PersistedQueryNotFound");
    assert_eq!(code(&miss.body), "PERSISTED_QUERY_NOT_FOUND");
    let wrong = send(json!({"query": "{ me { role } }", "extensions": extensions})).await;
    assert_eq!(
        (wrong.status, code(&wrong.body)),
        (400, "BAD_INPUT"),
        "{:#}",
        wrong.body
    );
    let first = send(json!({"query": text, "extensions": extensions})).await;
    assert_eq!(
        first.body["data"]["__typename"], "Query",
        "{:#}",
        first.body
    );
    let again = send(json!({"extensions": extensions})).await;
    assert_eq!(
        again.body["data"]["__typename"], "Query",
        "{:#}",
        again.body
    );
    let by_get = get(
        &app,
        GRAPHQL_RESPONSE,
        &format!("extensions={}", encoded(&extensions.to_string())),
    )
    .await;
    assert_eq!(
        by_get.body["data"]["__typename"], "Query",
        "{:#}",
        by_get.body
    );
    // A mutation kept by POST is not run by GET with its hash.
    let mutation = r#"mutation { createLeague(input: {id: "kept", name: "Kept"}) { events } }"#;
    let kept: String = Sha256::digest(mutation.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let kept = json!({"persistedQuery": {"version": 1, "sha256Hash": kept}});
    let created = awc::Client::new()
        .post(format!("{}/graphql", app.base))
        .insert_header(("authorization", format!("Bearer {}", app.admin)))
        .send_json(&json!({"query": mutation, "extensions": kept}))
        .await
        .unwrap();
    let created = answer(created).await;
    assert_eq!(
        created.body["data"]["createLeague"]["events"], 1,
        "{:#}",
        created.body
    );
    let by_get = get(
        &app,
        "application/json",
        &format!("extensions={}", encoded(&kept.to_string())),
    )
    .await;
    assert_eq!(by_get.status, 405, "{:#}", by_get.body);
    app.stop().await;
}
