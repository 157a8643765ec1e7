//! Event ids: every event has one UUID, the same through the store, the `events` query and
//! the `eventLog` subscription; the events a command appends carry the request's id as
//! their correlation and causation ids, and a result recorded from a finished tournament
//! names the tournament's last event as its cause.

#![expect(clippy::unwrap_used, reason = "a test")]

use std::collections::{BTreeMap, HashSet};

use league_tests::*;
use serde_json::{Value, json};

on_every_backend!(an_event_has_one_id_everywhere_and_names_its_cause);

async fn an_event_has_one_id_everywhere_and_names_its_cause(app: &TestApp) {
    a_night_in_the_standings(app).await;
    let stored = app.store.read_all(0, 100_000).await.unwrap();
    assert!(stored.len() > 10, "{}", stored.len());

    // The `events` query, page by page.
    let mut listed = Vec::new();
    let mut after = Value::Null;
    loop {
        let page = app
            .admin(
                "query($after: String) { events(first: 7, after: $after) { events { eventId position streamId streamVersion eventType correlationId causationId } endCursor hasNextPage } }",
                json!({"after": after}),
            )
            .await;
        let page = &page["events"];
        listed.extend(page["events"].as_array().unwrap().iter().cloned());
        if page["hasNextPage"] != true {
            break;
        }
        after = page["endCursor"].clone();
    }
    assert_eq!(listed.len(), stored.len());
    for (e, s) in listed.iter().zip(&stored) {
        assert_eq!(u(&e["position"]), s.position);
        assert_eq!(e["eventId"], s.id().to_string());
        assert_eq!(s.stored_id, Some(s.id()), "new events store their ids");
        assert_eq!(s.id().0.get_version_num(), 7);
    }
    let ids: HashSet<&str> = listed
        .iter()
        .map(|e| e["eventId"].as_str().unwrap())
        .collect();
    assert_eq!(ids.len(), listed.len(), "ids are unique");

    // The `eventLog` subscription from the start: the same ids at the same positions.
    let mut ws = app
        .subscribe(
            "graphql-transport-ws",
            json!({"Authorization": format!("Bearer {}", app.admin)}),
            json!({"id": "log", "type": "subscribe", "payload": {"query": "subscription { eventLog(fromPosition: 0) { eventId position } }"}}),
        )
        .await;
    let mut streamed = BTreeMap::new();
    while streamed.len() < stored.len() {
        let message = next_message(&mut ws, "an event").await;
        match message["type"].as_str() {
            Some("connection_ack") => {}
            Some("next") => {
                let e = &message["payload"]["data"]["eventLog"];
                streamed.insert(u(&e["position"]), e["eventId"].clone());
            }
            other => panic!("unexpected {other:?}: {message:#}"),
        }
    }
    for s in &stored {
        assert_eq!(streamed[&s.position], s.id().to_string());
    }

    // A command's events: the request id as correlation and cause.
    let created = listed
        .iter()
        .find(|e| e["streamId"] == "league:apl" && e["streamVersion"] == 1)
        .unwrap();
    assert!(created["correlationId"].is_string(), "{created:#}");
    assert_eq!(created["causationId"], created["correlationId"]);

    // The recorded result: caused by the tournament's last event.
    let last_of_t1 = listed
        .iter()
        .filter(|e| e["streamId"] == "tournament:t1")
        .max_by_key(|e| u(&e["streamVersion"]))
        .unwrap();
    let recorded = listed
        .iter()
        .find(|e| e["streamId"] == "league:apl" && e["eventType"] == "TournamentRecorded")
        .unwrap_or_else(|| panic!("{listed:#?}"));
    assert_eq!(
        recorded["causationId"], last_of_t1["eventId"],
        "{recorded:#}"
    );
    assert_ne!(recorded["causationId"], recorded["correlationId"]);
}
