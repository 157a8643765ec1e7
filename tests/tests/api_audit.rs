//! The GraphQL service end to end, the auditor's log: 64-bit positions, and hole cards
//! withheld while their hand runs. Each scenario runs on its own server and database, on
//! SQLite and (with `LEAGUE_TEST_POSTGRES_URL`) PostgreSQL.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use league_api::auth::Role;
use league_engine::tournament::play::Tracking;
use league_tests::{ACT, SCHEDULE, TABLE, TestApp, schedule, started};
use serde_json::{Value, json};

/// Positions are 64-bit: on PostgreSQL they pass 2^31 after about 32,000 transactions, so
/// they are the `Position` scalar, not GraphQL's 32-bit `Int`. Numbers and digit strings are
/// both taken; a negative position is refused.
async fn positions_are_64_bit_and_typed_as_such(app: &TestApp) {
    // Arrange: an event in the log.
    app.admin(
        SCHEDULE,
        json!({"id": "t1", "s": schedule("crown", Tracking::Results)}),
    )
    .await;
    let auditor = app.token(Role::Auditor, None, None).await;
    let types = app
        .graphql(
            Some(&auditor),
            r#"{ event: __type(name: "EventOut") { fields { name type { kind name ofType { name } } } }
                 scalar: __type(name: "Position") { kind } }"#,
            json!({}),
        )
        .await;
    assert_eq!(types["data"]["scalar"]["kind"], "SCALAR", "{types:#}");
    let position = types["data"]["event"]["fields"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["name"] == "position")
        .unwrap();
    assert_eq!(position["type"]["ofType"]["name"], "Position", "{types:#}");

    let last = app.last_position().await.unwrap();
    let page =
        "query($from: Position) { events(fromPosition: $from, first: 10) { events { position } } }";
    for from in [json!(last), json!(last.to_string())] {
        let body = app
            .graphql(Some(&auditor), page, json!({"from": from}))
            .await;
        assert!(body.get("errors").is_none(), "{body:#}");
        let events = body["data"]["events"]["events"].as_array().unwrap();
        assert_eq!(events.len(), 1, "{body:#}");
        assert_eq!(events[0]["position"].as_u64(), Some(last));
    }
    // Far beyond the log, up to the largest 64-bit position: an empty page, no error.
    for from in [json!(1u64 << 40), json!(u64::MAX.to_string())] {
        let body = app
            .graphql(Some(&auditor), page, json!({"from": from}))
            .await;
        assert!(body.get("errors").is_none(), "{body:#}");
        assert_eq!(body["data"]["events"]["events"], json!([]));
    }
    for bad in [json!(-1), json!("-1"), json!("12x"), json!(1.5)] {
        let body = app
            .graphql(Some(&auditor), page, json!({"from": bad}))
            .await;
        assert!(body.get("errors").is_some(), "{bad} was taken: {body:#}");
    }
}

/// The auditor's log withholds a hand's hole cards and deck seal while it runs, and shows
/// them once a later hand has started at the table.
async fn the_auditor_sees_a_hands_cards_once_it_is_over(app: &TestApp) {
    started(app, "a1", "crown", Tracking::Dealt, &["ann", "bob"]).await;
    let auditor = app.token(Role::Auditor, None, None).await;
    let start = "mutation { startHand(input: {tournamentId: \"a1\", table: 1}) { events } }";
    let log = |token: String| async move {
        let body = app
            .graphql(
                Some(&token),
                "{ events(first: 1000) { events { streamId eventType redacted payload } } }",
                json!({}),
            )
            .await;
        body["data"]["events"]["events"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["streamId"] == "tournament:a1")
            .cloned()
            .collect::<Vec<Value>>()
    };
    let holes = |events: &[Value]| {
        events
            .iter()
            .filter(|e| e["payload"].to_string().contains("HoleCardsDealt"))
            .count()
    };
    let redacted = |events: &[Value]| events.iter().filter(|e| e["redacted"] == true).count();
    app.admin(start, json!({})).await;
    let running = log(auditor.clone()).await;
    assert_eq!(
        (redacted(&running), holes(&running)),
        (3, 0),
        "{running:#?}"
    );
    // Heads-up: the player to act folds, the hand is over; the next one starts.
    let view = app.admin(TABLE, json!({"t": "a1"})).await;
    let seat = view["table"]["toAct"].as_u64().unwrap();
    app.admin(
        ACT,
        json!({"t": "a1", "table": 1, "seat": seat, "a": "FOLD"}),
    )
    .await;
    app.admin(start, json!({})).await;
    let next = log(auditor).await;
    assert_eq!(
        (redacted(&next), holes(&next)),
        (3, 2),
        "the first hand's two deals are shown, the second's withheld: {next:#?}"
    );
}

league_tests::on_every_backend!(
    positions_are_64_bit_and_typed_as_such,
    the_auditor_sees_a_hands_cards_once_it_is_over,
);
