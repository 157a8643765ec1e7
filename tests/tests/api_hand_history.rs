//! The GraphQL service end to end, hand histories: an auditor reads every completed hand
//! with every card; a player the hands they were dealt into, with their own cards and the
//! hands shown, never another player's unshown cards; others are refused. On SQLite and
//! (with `LEAGUE_TEST_POSTGRES_URL`) PostgreSQL.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use league_api::auth::Role;
use league_engine::tournament::play::Tracking;
use league_tests::{TestApp, code, play_to_a_winner, started};
use serde_json::{Value, json};

const HISTORY: &str = "query($t: ID!, $f: HandHistoryFormat, $h: ID) { handHistory(tournamentId: $t, format: $f, handId: $h) { handId number table position startedAt players text } }";

async fn history(app: &TestApp, token: Option<&str>, format: &str, hand: Option<&str>) -> Value {
    app.graphql(token, HISTORY, json!({"t": "h1", "f": format, "h": hand}))
        .await
}

fn hands(body: &Value) -> Vec<Value> {
    assert!(body.get("errors").is_none(), "{body:#}");
    body["data"]["handHistory"].as_array().unwrap().clone()
}

/// The `d dh` actions of a PHH text: (player, cards).
fn deals(text: &str) -> Vec<(String, String)> {
    let line = |key: &str| {
        text.lines()
            .find(|l| l.starts_with(&format!("{key} = ")))
            .unwrap_or_else(|| panic!("no {key} in {text}"))
            .to_owned()
    };
    let players: Vec<String> = line("players")
        .split('"')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect();
    line("actions")
        .split('\'')
        .skip(1)
        .step_by(2)
        .filter_map(|a| a.strip_prefix("d dh p"))
        .map(|rest| {
            let (n, cards) = rest.split_once(' ').unwrap();
            let i: usize = n.parse().unwrap();
            (players[i - 1].clone(), cards.to_owned())
        })
        .collect()
}

/// Shown at the showdown: the players whose `sm` carries cards.
fn shown(text: &str) -> usize {
    text.matches(" sm ").count()
}

async fn hand_histories_show_each_reader_what_is_theirs(app: &TestApp) {
    started(app, "h1", "crown", Tracking::Dealt, &["ann", "bob", "cat"]).await;
    play_to_a_winner(app, "h1", 15_000, 7).await;
    let auditor = app.token(Role::Auditor, None, None).await;
    let all = hands(&history(app, Some(&auditor), "PHH", None).await);
    assert!(!all.is_empty(), "{all:#?}");
    for (i, hand) in all.iter().enumerate() {
        let text = hand["text"].as_str().unwrap();
        assert_eq!(hand["number"].as_u64(), Some(u64::try_from(i + 1).unwrap()));
        // Every card, and the stacks the engine ends on from the file alone.
        assert!(!text.contains("????"), "{text}");
        league_app::phh::check_text(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(deals(text).len(), hand["players"].as_array().unwrap().len());
    }

    // A player: the hands ann was dealt into, her cards, nobody else's unless shown.
    let ann = app.token(Role::Player, None, Some("ann")).await;
    let hers = hands(&history(app, Some(&ann), "PHH", None).await);
    let dealt_in: Vec<&Value> = all
        .iter()
        .filter(|h| h["players"].as_array().unwrap().contains(&json!("ann")))
        .collect();
    assert_eq!(hers.len(), dealt_in.len());
    assert!(!hers.is_empty());
    for (mine, full) in hers.iter().zip(dealt_in) {
        assert_eq!(mine["handId"], full["handId"]);
        let text = mine["text"].as_str().unwrap();
        for (player, cards) in deals(text) {
            if player == "ann" {
                assert_ne!(cards, "????", "her own cards: {text}");
            } else {
                assert_eq!(cards, "????", "{player}'s cards leaked to ann: {text}");
            }
        }
        // What was shown is shown to her too, and the outcome is the same.
        let full = full["text"].as_str().unwrap();
        assert_eq!(shown(text), shown(full));
        let stacks = |t: &str| {
            t.lines()
                .find(|l| l.starts_with("finishing_stacks"))
                .unwrap()
                .to_owned()
        };
        assert_eq!(stacks(text), stacks(full));
    }

    // PokerStars text: the auditor's gives every player's cards, ann's only hers.
    let stars = hands(&history(app, Some(&auditor), "POKERSTARS", None).await);
    assert_eq!(stars.len(), all.len());
    let first = stars[0]["text"].as_str().unwrap();
    assert!(first.starts_with("PokerStars Hand #"), "{first}");
    assert!(first.contains(" Hold'em No Limit - Level I "), "{first}");
    assert_eq!(first.matches("Dealt to ").count(), 3, "{first}");
    let mine = hands(&history(app, Some(&ann), "POKERSTARS", None).await);
    let text = mine[0]["text"].as_str().unwrap();
    assert_eq!(text.matches("Dealt to ").count(), 1, "{text}");
    assert!(text.contains("Dealt to ann ["), "{text}");

    // One hand by its id.
    let last = all.last().unwrap();
    let id = last["handId"].as_str().unwrap();
    let one = hands(&history(app, Some(&auditor), "PHH", Some(id)).await);
    assert_eq!(one.len(), 1);
    assert_eq!(one[0]["text"], last["text"]);

    // Nobody else: a host, the public; a tournament that does not exist.
    let host = app.token(Role::Host, Some("crown"), None).await;
    assert_eq!(
        code(&history(app, Some(&host), "PHH", None).await),
        "FORBIDDEN"
    );
    assert_eq!(
        code(&history(app, None, "PHH", None).await),
        "UNAUTHENTICATED"
    );
    let missing = app
        .graphql(Some(&auditor), HISTORY, json!({"t": "nope", "f": "PHH"}))
        .await;
    assert_eq!(code(&missing), "NOT_FOUND", "{missing:#}");
}

league_tests::on_every_backend!(hand_histories_show_each_reader_what_is_theirs);
