//! Event ids: every event has one UUID, the same through the store, the `events` query and
//! the `eventLog` subscription; the events a command appends carry the request's id as
//! their correlation and causation ids, and a result recorded from a finished tournament
//! names the tournament's last event as its cause.
//!
//! Object ids: a league, venue, season or tournament takes the UUID its client chose, or
//! gets a UUIDv7; a malformed id is `BAD_ID`, one already used `ID_TAKEN`, and a retry with
//! the same idempotency key names the object its first call created.

#![expect(clippy::unwrap_used, reason = "a test")]

use std::collections::{BTreeMap, HashSet};

use league_engine::tournament::play::Tracking;
use league_tests::*;
use serde_json::{Value, json};

on_every_backend!(
    an_event_has_one_id_everywhere_and_names_its_cause,
    objects_take_the_ids_clients_choose_or_get_new_ones,
    a_token_has_a_uuid,
    a_hand_takes_the_id_its_command_names,
);

/// `startHand` takes the hand's UUID from its client or generates a UUIDv7; the table
/// shows it as `handId`; an id the tournament already used is `ID_TAKEN`, a malformed one
/// `BAD_ID`, and neither appends anything; a retry with the idempotency key names the hand
/// its first call started.
async fn a_hand_takes_the_id_its_command_names(app: &TestApp) {
    const START_HAND: &str = "mutation($h: ID, $k: String) { startHand(input: {tournamentId: \"hid\", table: 1, handId: $h, idempotencyKey: $k}) { createdId events deduplicated } }";
    const HAND: &str = "{ table(tournamentId: \"hid\", table: 1) { hand handId toAct } }";
    started(app, "hid", "crown", Tracking::Dealt, &["ann", "bob"]).await;
    let fold = || async {
        let view = app.admin(HAND, json!({})).await;
        let seat = view["table"]["toAct"].as_u64().unwrap();
        app.admin(
            ACT,
            json!({"t": "hid", "table": 1, "seat": seat, "a": "FOLD"}),
        )
        .await;
    };
    let table = app.admin(HAND, json!({})).await;
    assert_eq!(
        table["table"]["handId"],
        Value::Null,
        "before the first hand"
    );

    // None given: a UUIDv7, on the table; a retry with the key names the same hand.
    let first = app.admin(START_HAND, json!({"k": "first-hand"})).await;
    let generated = first["startHand"]["createdId"].clone();
    assert!(is_uuid(&generated, 7), "{first:#}");
    assert_eq!(
        app.admin(HAND, json!({})).await["table"]["handId"],
        generated
    );
    let retry = app.admin(START_HAND, json!({"k": "first-hand"})).await;
    assert_eq!(retry["startHand"]["deduplicated"], true);
    assert_eq!(retry["startHand"]["createdId"], generated);
    fold().await;

    // One the client chose: kept.
    let chosen = uuid::Uuid::now_v7().to_string();
    let second = app.admin(START_HAND, json!({"h": chosen})).await;
    assert_eq!(second["startHand"]["createdId"], chosen.as_str());
    let table = app.admin(HAND, json!({})).await;
    assert_eq!(table["table"]["handId"], chosen.as_str());
    assert_eq!(table["table"]["hand"], 2);
    fold().await;

    // Used already in this tournament, or malformed: refused, nothing appended.
    let before = app
        .store
        .read_stream("tournament:hid", 1)
        .await
        .unwrap()
        .len();
    for (id, refused, field) in [
        (generated.as_str().unwrap(), "ID_TAKEN", "handId"),
        (chosen.as_str(), "ID_TAKEN", "handId"),
        ("hand-3", "BAD_ID", "handId"),
        ("877b95a9-8f77-8b47-bd76-07b9770fb263", "BAD_ID", "handId"),
        ("00000000-0000-0000-0000-000000000000", "BAD_ID", "handId"),
        (&chosen.to_uppercase(), "BAD_ID", "handId"),
    ] {
        let body = app
            .graphql(Some(&app.admin), START_HAND, json!({"h": id}))
            .await;
        assert_eq!(
            body["errors"][0]["extensions"]["code"], refused,
            "{id}: {body:#}"
        );
        assert_eq!(body["errors"][0]["extensions"]["field"], field, "{id}");
    }
    assert_eq!(
        app.store
            .read_stream("tournament:hid", 1)
            .await
            .unwrap()
            .len(),
        before
    );
    let table = app.admin(HAND, json!({})).await;
    assert_eq!(table["table"]["hand"], 2);

    // A host of another venue is refused as such, whatever the id.
    let stranger = app
        .token(league_api::auth::Role::Host, Some("pier"), None)
        .await;
    let body = app
        .graphql(Some(&stranger), START_HAND, json!({"h": "not-a-uuid"}))
        .await;
    assert_eq!(
        body["errors"][0]["extensions"]["code"], "FORBIDDEN",
        "{body:#}"
    );
}

/// A token's id is a UUIDv7, or the UUID its operator chose; the log's actors name it.
async fn a_token_has_a_uuid(app: &TestApp) {
    use league_api::auth::{Role, TokenSpec, create_token_for};
    let (record, token) = create_token_for(&app.store, &TokenSpec::new(Role::Admin, None, None))
        .await
        .unwrap();
    assert!(is_uuid(&json!(record.id), 7), "{}", record.id);
    let me = app
        .graphql(Some(&token), "{ me { token } }", json!({}))
        .await;
    assert_eq!(me["data"]["me"]["token"], record.id.as_str());

    let chosen = uuid::Uuid::now_v7().to_string();
    let spec = TokenSpec {
        id: Some(chosen.clone()),
        ..TokenSpec::new(Role::Admin, None, None)
    };
    let (record, token) = create_token_for(&app.store, &spec).await.unwrap();
    assert_eq!(record.id, chosen);
    let created = app
        .graphql(
            Some(&token),
            "mutation { createLeague(input: {name: \"By a chosen token\"}) { createdId } }",
            json!({}),
        )
        .await;
    let league = created["data"]["createLeague"]["createdId"]
        .as_str()
        .unwrap();
    let events = app
        .store
        .read_stream(&format!("league:{league}"), 1)
        .await
        .unwrap();
    assert_eq!(
        events[0].actor.as_deref(),
        Some(format!("admin:{chosen}").as_str())
    );

    let again = create_token_for(&app.store, &spec).await.unwrap_err();
    assert_eq!(again.code(), "ID_TAKEN");
    for bad in ["tok_123456789abc", "not-a-uuid", &chosen.to_uppercase()] {
        let spec = TokenSpec {
            id: Some(bad.to_owned()),
            ..TokenSpec::new(Role::Admin, None, None)
        };
        assert_eq!(
            create_token_for(&app.store, &spec)
                .await
                .unwrap_err()
                .code(),
            "BAD_ID",
            "{bad}"
        );
    }
}

/// A UUID of version `version` in its canonical text form.
fn is_uuid(id: &Value, version: usize) -> bool {
    id.as_str()
        .and_then(|s| uuid::Uuid::try_parse(s).ok().map(|u| (s, u)))
        .is_some_and(|(s, u)| u.hyphenated().to_string() == s && u.get_version_num() == version)
}

async fn objects_take_the_ids_clients_choose_or_get_new_ones(app: &TestApp) {
    const LEAGUE: &str = "mutation($id: ID, $k: String) { createLeague(input: {id: $id, name: \"Ids\", idempotencyKey: $k}) { createdId events deduplicated } }";
    const VENUE: &str = "mutation($l: ID!, $v: ID) { addVenue(input: {leagueId: $l, venue: $v, region: \"north\"}) { createdId events league { venues { id region } } } }";
    const SEASON: &str = "mutation($l: ID!, $s: ID) { addSeason(input: {leagueId: $l, season: $s, scoring: {table: [3, 2, 1]}}) { createdId events league { seasons { id } } } }";
    const TOURNAMENT: &str = "mutation($id: ID, $s: ScheduleInput!, $k: String) { scheduleTournament(input: {id: $id, schedule: $s, idempotencyKey: $k}) { createdId events deduplicated tournament { id name } } }";

    // None given: a new UUIDv7, and the league is found by it.
    let body = app.graphql(Some(&app.admin), LEAGUE, json!({})).await;
    let generated = body["data"]["createLeague"]["createdId"].clone();
    assert!(is_uuid(&generated, 7), "{body:#}");
    let found = app
        .admin(
            "query($id: ID!) { league(id: $id) { id name } }",
            json!({"id": generated}),
        )
        .await;
    assert_eq!(found["league"]["id"], generated);
    assert_eq!(found["league"]["name"], "Ids");

    // One chosen by the client (as a venue offline would): kept, and found by it.
    let chosen = uuid::Uuid::now_v7().to_string();
    let body = app
        .graphql(Some(&app.admin), LEAGUE, json!({"id": chosen}))
        .await;
    assert_eq!(
        body["data"]["createLeague"]["createdId"], chosen,
        "{body:#}"
    );
    let found = app
        .admin(
            "query($id: ID!) { league(id: $id) { id } }",
            json!({"id": chosen}),
        )
        .await;
    assert_eq!(found["league"]["id"], chosen);

    // Used already, or malformed: refused with their own codes, nothing appended.
    let before = app.last_position().await;
    for (id, expected) in [
        (chosen.clone(), "ID_TAKEN"),
        (generated.as_str().unwrap().to_owned(), "ID_TAKEN"),
        (chosen.to_uppercase(), "BAD_ID"),
        (chosen.replace('-', ""), "BAD_ID"),
        ("00000000-0000-0000-0000-000000000000".to_owned(), "BAD_ID"),
        ("not an id".to_owned(), "BAD_ID"),
    ] {
        let body = app
            .graphql(Some(&app.admin), LEAGUE, json!({"id": id}))
            .await;
        assert_eq!(code(&body), expected, "{id}: {body:#}");
        assert_eq!(body["errors"][0]["extensions"]["field"], "id", "{body:#}");
    }
    assert_eq!(app.last_position().await, before, "something was appended");

    // A retry with the same idempotency key and no id: the same league, nothing new.
    let first = app
        .graphql(Some(&app.admin), LEAGUE, json!({"k": "ids-1"}))
        .await;
    let again = app
        .graphql(Some(&app.admin), LEAGUE, json!({"k": "ids-1"}))
        .await;
    let (first, again) = (
        &first["data"]["createLeague"],
        &again["data"]["createLeague"],
    );
    assert!(is_uuid(&first["createdId"], 7), "{first:#}");
    assert_eq!(again["createdId"], first["createdId"]);
    assert_eq!(again["deduplicated"], true, "{again:#}");

    // Venues and seasons within the league.
    let l = generated.as_str().unwrap();
    let body = app.admin(VENUE, json!({"l": l})).await;
    let venue = body["addVenue"]["createdId"].clone();
    assert!(is_uuid(&venue, 7), "{body:#}");
    assert_eq!(body["addVenue"]["league"]["venues"][0]["id"], venue);
    let body = app
        .graphql(Some(&app.admin), VENUE, json!({"l": l, "v": venue}))
        .await;
    assert_eq!(code(&body), "ID_TAKEN", "{body:#}");
    assert_eq!(
        body["errors"][0]["extensions"]["field"], "venue",
        "{body:#}"
    );
    // A venue added again with the same key and no id: the same venue, nothing new.
    const VENUE_KEYED: &str = "mutation($l: ID!) { addVenue(input: {leagueId: $l, region: \"south\", idempotencyKey: \"v-1\"}) { createdId deduplicated } }";
    let first = app.admin(VENUE_KEYED, json!({"l": l})).await;
    let again = app.admin(VENUE_KEYED, json!({"l": l})).await;
    assert!(is_uuid(&first["addVenue"]["createdId"], 7), "{first:#}");
    assert_eq!(
        again["addVenue"]["createdId"],
        first["addVenue"]["createdId"]
    );
    assert_eq!(again["addVenue"]["deduplicated"], true, "{again:#}");
    let body = app.admin(SEASON, json!({"l": l, "s": "2027"})).await;
    assert_eq!(body["addSeason"]["createdId"], "2027", "{body:#}");
    let body = app.admin(SEASON, json!({"l": l})).await;
    assert!(is_uuid(&body["addSeason"]["createdId"], 7), "{body:#}");
    let body = app
        .graphql(Some(&app.admin), SEASON, json!({"l": l, "s": "2027"}))
        .await;
    assert_eq!(code(&body), "ID_TAKEN", "{body:#}");
    assert_eq!(
        body["errors"][0]["extensions"]["field"], "season",
        "{body:#}"
    );

    // Tournaments: chosen, taken, generated, retried.
    let s = schedule("crown", league_engine::tournament::play::Tracking::Results);
    let offline = uuid::Uuid::now_v7().to_string();
    let body = app.admin(TOURNAMENT, json!({"id": offline, "s": s})).await;
    assert_eq!(body["scheduleTournament"]["createdId"], offline, "{body:#}");
    assert_eq!(body["scheduleTournament"]["tournament"]["id"], offline);
    let found = app
        .admin(
            "query($id: ID!) { tournament(id: $id) { id } }",
            json!({"id": offline}),
        )
        .await;
    assert_eq!(found["tournament"]["id"], offline);
    let body = app
        .graphql(Some(&app.admin), TOURNAMENT, json!({"id": offline, "s": s}))
        .await;
    assert_eq!(code(&body), "ID_TAKEN", "{body:#}");
    assert_eq!(body["errors"][0]["extensions"]["field"], "id", "{body:#}");
    let first = app.admin(TOURNAMENT, json!({"s": s, "k": "t-1"})).await;
    let again = app.admin(TOURNAMENT, json!({"s": s, "k": "t-1"})).await;
    let (first, again) = (&first["scheduleTournament"], &again["scheduleTournament"]);
    assert!(is_uuid(&first["createdId"], 7), "{first:#}");
    assert_eq!(again["createdId"], first["createdId"]);
    assert_eq!(again["deduplicated"], true, "{again:#}");
    assert_eq!(again["tournament"]["id"], first["createdId"]);
    // A readable id, as every log before UUIDs has, still names a new object.
    let body = app
        .admin(TOURNAMENT, json!({"id": "tuesday-7", "s": s}))
        .await;
    assert_eq!(
        body["scheduleTournament"]["createdId"], "tuesday-7",
        "{body:#}"
    );
}

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
