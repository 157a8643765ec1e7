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

use league_tests::{Backend, TestApp, next_message, spawn_app};
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

/// Subscribes over `graphql-transport-ws`; returns the first `next` message's payload,
/// failing with what came instead.
async fn first_update(app: &TestApp, token: Option<&str>, query: &str, where_: &str) -> Value {
    let init = match token {
        Some(token) => json!({ "Authorization": format!("Bearer {token}") }),
        None => json!({}),
    };
    let start = json!({ "id": "1", "type": "subscribe", "payload": { "query": query } });
    let mut ws = app.subscribe("graphql-transport-ws", init, start).await;
    let ack = next_message(&mut ws, where_).await;
    assert_eq!(ack["type"], "connection_ack", "{where_}\n{ack:#}");
    let message = next_message(&mut ws, where_).await;
    assert_eq!(message["type"], "next", "{where_}\n{message:#}");
    drop(ws);
    message["payload"].clone()
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
    let app = spawn_app(Backend::Sqlite).await;

    // Act: every block, as a reader would send it.
    for block in &blocks {
        let token = (!block.is_public()).then_some(app.admin.as_str());
        let where_ = format!("README.md line {}:\n{}", block.line, block.text);
        let body = if block.is_subscription() {
            first_update(&app, token, &block.text, &where_).await
        } else {
            app.graphql(token, &block.text, json!({})).await
        };
        assert!(body.get("errors").is_none(), "{where_}\n{body:#}");
        assert!(
            body["data"].as_object().is_some_and(|d| !d.is_empty()),
            "{where_}\nno data: {body:#}"
        );
    }

    // Assert: the night the tour played is over, paid out, and in the league's standings.
    let body = app
        .graphql(
            None,
            r#"{ tournament(id: "crown-1") { stage prizePool results { player place prize } } }"#,
            json!({}),
        )
        .await;
    let t = &body["data"]["tournament"];
    assert_eq!(t["stage"], "FINISHED", "{body:#}");
    let results = t["results"].as_array().unwrap();
    let paid: u64 = results.iter().map(|r| r["prize"].as_u64().unwrap()).sum();
    assert_eq!(Some(paid), t["prizePool"].as_u64(), "{body:#}");
    let winner = results.iter().find(|r| r["place"] == 1).unwrap()["player"].clone();
    let body = app
        .graphql(
            None,
            r#"{ standings(leagueId: "pubs", season: "2026") { rank player points } }"#,
            json!({}),
        )
        .await;
    let leader = &body["data"]["standings"][0];
    assert_eq!(leader["player"], winner, "{body:#}");
    assert_eq!(leader["points"], 125, "{body:#}");

    app.stop().await;
}
