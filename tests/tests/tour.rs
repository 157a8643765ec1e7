//! The README's tour, run: every ```` ```graphql ```` block of `README.md`, in order, against
//! the real server on port 0 with a fresh SQLite database, so the manual cannot drift from
//! the API.
//!
//! The conventions, which the README states where the tour begins:
//!
//! - A block runs with an admin token (the test creates one, as `league token create --role
//!   admin` does) unless its first line is `# as: public`, which sends no token.
//! - Values are inline literals, never variables, so a reader can paste a block into
//!   GraphiQL as it is.
//! - A block whose first statement is `subscription` runs over the WebSocket
//!   (`/graphql/ws`, `graphql-transport-ws`); its first `next` message must carry data.
//!   Any other block is POSTed to `/graphql`. No block may answer with `errors`.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::time::Duration;

use futures_util::{SinkExt as _, StreamExt as _};
use league_api::auth::{Role, create_token};
use league_store::Store;
use serde_json::{Value, json};

/// One ```` ```graphql ```` block of the README.
struct Block {
    /// The line of the README the block starts on (1-based), for failure messages.
    line: usize,
    /// The document, as a reader would paste it.
    text: String,
}

impl Block {
    /// The block without its leading comment lines.
    fn statements(&self) -> String {
        self.text
            .lines()
            .skip_while(|l| l.trim().is_empty() || l.trim_start().starts_with('#'))
            .collect::<Vec<_>>()
            .join("\n")
    }

    fn is_subscription(&self) -> bool {
        self.statements().trim_start().starts_with("subscription")
    }

    fn is_public(&self) -> bool {
        self.text
            .lines()
            .next()
            .is_some_and(|l| l.trim() == "# as: public")
    }
}

/// The README's GraphQL blocks, in order.
fn graphql_blocks(readme: &str) -> Vec<Block> {
    let mut blocks = Vec::new();
    let mut current: Option<Block> = None;
    for (i, line) in readme.lines().enumerate() {
        match current.as_mut() {
            None if line.trim() == "```graphql" => {
                current = Some(Block {
                    line: i + 1,
                    text: String::new(),
                });
            }
            None => {}
            Some(_) if line.trim() == "```" => blocks.extend(current.take()),
            Some(block) => {
                block.text.push_str(line);
                block.text.push('\n');
            }
        }
    }
    assert!(current.is_none(), "a ```graphql block is not closed");
    blocks
}

/// A fresh SQLite store. The one place this test knows where scratch databases come from.
async fn fresh_store() -> (Store, league_store::bench::Scratch) {
    let scratch = league_store::bench::Scratch::new(league_store::Backend::Sqlite, None)
        .await
        .unwrap();
    let store = scratch.open().await.unwrap();
    (store, scratch)
}

/// POSTs `query` to `/graphql`; returns the whole response body.
async fn post(base: &str, token: Option<&str>, query: &str) -> Value {
    let client = awc::Client::builder()
        .timeout(Duration::from_secs(30))
        .finish();
    let mut request = client.post(format!("{base}/graphql"));
    if let Some(token) = token {
        request = request.insert_header(("Authorization", format!("Bearer {token}")));
    }
    let mut response = request.send_json(&json!({ "query": query })).await.unwrap();
    let status = response.status();
    let body = response.body().limit(10 << 20).await.unwrap();
    serde_json::from_slice(&body)
        .unwrap_or_else(|e| panic!("{status}: {e}: {}", String::from_utf8_lossy(&body)))
}

/// The next text message of a WebSocket, as JSON, or why there is none within 20 s.
async fn next_message(
    ws: &mut actix_codec::Framed<awc::BoxedSocket, awc::ws::Codec>,
) -> Result<Value, String> {
    loop {
        let frame = tokio::time::timeout(Duration::from_secs(20), ws.next())
            .await
            .map_err(|_| "no message within 20 s".to_owned())?
            .ok_or("the server closed the connection")?
            .map_err(|e| e.to_string())?;
        match frame {
            awc::ws::Frame::Text(text) => return Ok(serde_json::from_slice(&text).unwrap()),
            awc::ws::Frame::Close(reason) => return Err(format!("closed: {reason:?}")),
            _ => {}
        }
    }
}

/// Subscribes over `graphql-transport-ws`; returns the first `next` message's payload, or
/// what came instead.
async fn first_update(base: &str, token: Option<&str>, query: &str) -> Result<Value, String> {
    let url = format!("{}/graphql/ws", base.replacen("http", "ws", 1));
    let (_, mut ws) = awc::Client::new()
        .ws(url)
        .protocols(["graphql-transport-ws"])
        .connect()
        .await
        .map_err(|e| e.to_string())?;
    let init = match token {
        Some(token) => json!({ "Authorization": format!("Bearer {token}") }),
        None => json!({}),
    };
    let send = |v: Value| awc::ws::Message::Text(v.to_string().into());
    ws.send(send(json!({ "type": "connection_init", "payload": init })))
        .await
        .map_err(|e| e.to_string())?;
    let ack = next_message(&mut ws).await?;
    if ack["type"] != "connection_ack" {
        return Err(format!("instead of connection_ack: {ack:#}"));
    }
    let subscribe = json!({ "id": "1", "type": "subscribe", "payload": { "query": query } });
    ws.send(send(subscribe)).await.map_err(|e| e.to_string())?;
    let message = next_message(&mut ws).await?;
    if message["type"] != "next" {
        return Err(format!("instead of next: {message:#}"));
    }
    let _ = ws
        .send(send(json!({ "id": "1", "type": "complete" })))
        .await;
    let _ = ws.close().await;
    Ok(message["payload"].clone())
}

#[actix_web::test]
async fn every_graphql_block_of_the_readme_runs_in_order_without_errors() {
    // Arrange: the README's blocks, and the real server on a fresh database.
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md"))
        .expect("README.md at the workspace root");
    let blocks = graphql_blocks(&readme);
    assert!(
        blocks.len() >= 8 && blocks.iter().any(Block::is_subscription),
        "the README's tour has {} GraphQL blocks (and must have a subscription)",
        blocks.len()
    );
    let (store, scratch) = fresh_store().await;
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = actix_web::rt::spawn(league_api::run_with(
        listener,
        store.clone(),
        league_api::Options::default(),
        async {
            let _ = stopped.await;
        },
    ));
    let (_, admin) = create_token(&store, Role::Admin, None, None).await.unwrap();

    // Act: every block, as a reader would send it.
    for block in &blocks {
        let token = (!block.is_public()).then_some(admin.as_str());
        let where_ = format!("README.md line {}:\n{}", block.line, block.text);
        let body = if block.is_subscription() {
            first_update(&base, token, &block.text)
                .await
                .unwrap_or_else(|e| panic!("{where_}\n{e}"))
        } else {
            post(&base, token, &block.text).await
        };
        assert!(body.get("errors").is_none(), "{where_}\n{body:#}");
        assert!(
            body["data"].as_object().is_some_and(|d| !d.is_empty()),
            "{where_}\nno data: {body:#}"
        );
    }

    // Assert: the night the tour played is over, paid out, and in the league's standings.
    let body = post(
        &base,
        None,
        r#"{ tournament(id: "crown-1") { stage prizePool results { player place prize } } }"#,
    )
    .await;
    let t = &body["data"]["tournament"];
    assert_eq!(t["stage"], "FINISHED", "{body:#}");
    let results = t["results"].as_array().unwrap();
    let paid: u64 = results.iter().map(|r| r["prize"].as_u64().unwrap()).sum();
    assert_eq!(Some(paid), t["prizePool"].as_u64(), "{body:#}");
    let winner = results.iter().find(|r| r["place"] == 1).unwrap()["player"].clone();
    let body = post(
        &base,
        None,
        r#"{ standings(leagueId: "pubs", season: "2026") { rank player points } }"#,
    )
    .await;
    let leader = &body["data"]["standings"][0];
    assert_eq!(leader["player"], winner, "{body:#}");
    assert_eq!(leader["points"], 12500, "{body:#}");

    let _ = stop.send(());
    server.await.unwrap().unwrap();
    store.close().await;
    scratch.drop_it().await;
}
