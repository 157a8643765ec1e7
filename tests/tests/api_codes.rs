//! Readable codes beside ids: a league's short name in URLs and a venue's code are their
//! own fields, validated (`BAD_INPUT` naming `code`) and unique (`CODE_TAKEN`): a league's
//! among leagues (and never another league's id), a venue's in its league. A new code frees
//! the old one; `league(code:)` and `venue(leagueId:, code:)` find what they name, and a
//! refused code appends nothing.

#![expect(clippy::unwrap_used, reason = "a test")]

use league_tests::*;
use serde_json::{Value, json};

on_every_backend!(
    codes_are_validated_unique_and_find_their_objects,
    two_leagues_racing_for_one_code_get_it_once,
);

const CREATE: &str = "mutation($id: ID, $c: String) { createLeague(input: {id: $id, name: \"Coded\", code: $c}) { createdId events league { id code } } }";
const SET_LEAGUE: &str = "mutation($l: ID!, $c: String!) { setLeagueCode(input: {leagueId: $l, code: $c}) { events league { code } } }";
const ADD_VENUE: &str = "mutation($l: ID!, $c: String) { addVenue(input: {leagueId: $l, region: \"north\", code: $c}) { createdId events league { venues { id code } } } }";
const SET_VENUE: &str = "mutation($l: ID!, $v: ID!, $c: String!) { setVenueCode(input: {leagueId: $l, venue: $v, code: $c}) { events } }";
const BY_CODE: &str = "query($c: String!) { league(code: $c) { id code } }";
const VENUE_BY_CODE: &str =
    "query($l: ID!, $c: String!) { venue(leagueId: $l, code: $c) { id code region } }";

/// The one error's code and field.
fn refusal(body: &Value) -> (String, String) {
    let error = &body["errors"][0]["extensions"];
    (
        error["code"].as_str().unwrap_or_default().to_owned(),
        error["field"].as_str().unwrap_or_default().to_owned(),
    )
}

async fn events_of(app: &TestApp, league: &str) -> usize {
    match app.store.read_stream(&format!("league:{league}"), 1).await {
        Ok(events) => events.len(),
        Err(league_store::StoreError::StreamNotFound(_)) => 0,
        Err(e) => panic!("{e}"),
    }
}

async fn codes_are_validated_unique_and_find_their_objects(app: &TestApp) {
    // A league made with its code: found by it, and by its id.
    let body = app
        .graphql(Some(&app.admin), CREATE, json!({"c": "apl-north"}))
        .await;
    let north = body["data"]["createLeague"]["createdId"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(body["data"]["createLeague"]["events"], 2, "{body:#}");
    assert_eq!(body["data"]["createLeague"]["league"]["code"], "apl-north");
    let found = app.admin(BY_CODE, json!({"c": "apl-north"})).await;
    assert_eq!(found["league"]["id"], north.as_str());
    assert_eq!(
        app.admin(BY_CODE, json!({"c": "apl-south"})).await["league"],
        Value::Null
    );

    // The same code for another league: refused, and that league is not made.
    let other = uuid::Uuid::now_v7().to_string();
    let body = app
        .graphql(
            Some(&app.admin),
            CREATE,
            json!({"id": other, "c": "apl-north"}),
        )
        .await;
    assert_eq!(
        refusal(&body),
        ("CODE_TAKEN".into(), "code".into()),
        "{body:#}"
    );
    assert_eq!(events_of(app, &other).await, 0);

    // Malformed codes, at creation and when set: refused, nothing appended.
    for bad in [
        "a",
        "Apl",
        "-apl",
        "apl-",
        "apl north",
        "apl_north",
        "ápl",
        "",
        &"a".repeat(33),
        "0190b6c4-7d2a-7cde-8f00-123456789abc",
    ] {
        let body = app
            .graphql(Some(&app.admin), CREATE, json!({"id": other, "c": bad}))
            .await;
        assert_eq!(
            refusal(&body),
            ("BAD_INPUT".into(), "code".into()),
            "{bad:?}: {body:#}"
        );
        let body = app
            .graphql(Some(&app.admin), SET_LEAGUE, json!({"l": north, "c": bad}))
            .await;
        assert_eq!(
            refusal(&body),
            ("BAD_INPUT".into(), "code".into()),
            "{bad:?}: {body:#}"
        );
    }
    assert_eq!(events_of(app, &other).await, 0);
    assert_eq!(events_of(app, &north).await, 2);

    // A readable id of another league is not a code anyone else may take: a screen's URL
    // names one league, by code or by id. The league itself may take its own id.
    app.admin(
        "mutation { createLeague(input: {id: \"old-style\", name: \"Old\"}) { events } }",
        json!({}),
    )
    .await;
    let body = app
        .graphql(
            Some(&app.admin),
            SET_LEAGUE,
            json!({"l": north, "c": "old-style"}),
        )
        .await;
    assert_eq!(refusal(&body), ("CODE_TAKEN".into(), "code".into()));
    let own = app
        .admin(SET_LEAGUE, json!({"l": "old-style", "c": "old-style"}))
        .await;
    assert_eq!(own["setLeagueCode"]["league"]["code"], "old-style");

    // A new code frees the old one, which another league may then take; the same code
    // again changes nothing.
    let moved = app
        .admin(SET_LEAGUE, json!({"l": north, "c": "apl-n"}))
        .await;
    assert_eq!(moved["setLeagueCode"]["events"], 1);
    let again = app
        .admin(SET_LEAGUE, json!({"l": north, "c": "apl-n"}))
        .await;
    assert_eq!(again["setLeagueCode"]["events"], 0);
    assert_eq!(
        app.admin(BY_CODE, json!({"c": "apl-north"})).await["league"],
        Value::Null
    );
    let body = app
        .admin(CREATE, json!({"id": other, "c": "apl-north"}))
        .await;
    assert_eq!(body["createLeague"]["league"]["code"], "apl-north");

    // Nor may a new league take another league's code as its id.
    let body = app
        .graphql(Some(&app.admin), CREATE, json!({"id": "apl-north"}))
        .await;
    assert_eq!(refusal(&body), ("ID_TAKEN".into(), "id".into()), "{body:#}");
    assert_eq!(events_of(app, "apl-north").await, 0);

    // A retry with its idempotency key is answered as its first call was, even once the
    // code has moved on.
    const KEYED: &str = "mutation($l: ID!, $c: String!, $k: String) { setLeagueCode(input: {leagueId: $l, code: $c, idempotencyKey: $k}) { events deduplicated } }";
    let first = app
        .admin(
            KEYED,
            json!({"l": "old-style", "c": "keyed", "k": "code-1"}),
        )
        .await;
    assert_eq!(first["setLeagueCode"]["events"], 1);
    app.admin(SET_LEAGUE, json!({"l": "old-style", "c": "old-style"}))
        .await;
    app.admin(SET_LEAGUE, json!({"l": north, "c": "keyed"}))
        .await;
    let retry = app
        .admin(
            KEYED,
            json!({"l": "old-style", "c": "keyed", "k": "code-1"}),
        )
        .await;
    assert_eq!(retry["setLeagueCode"]["deduplicated"], true, "{retry:#}");
    app.admin(SET_LEAGUE, json!({"l": north, "c": "apl-n"}))
        .await;

    // `league` takes one of `id` and `code`.
    for args in ["", "(id: \"old-style\", code: \"old-style\")"] {
        let body = app
            .graphql(
                Some(&app.admin),
                &format!("{{ league{args} {{ id }} }}"),
                json!({}),
            )
            .await;
        assert_eq!(refusal(&body).0, "BAD_INPUT", "{args}: {body:#}");
    }

    // Venues: a code unique in its league, found with the league's id.
    let body = app
        .admin(ADD_VENUE, json!({"l": north, "c": "crown"}))
        .await;
    let crown = body["addVenue"]["createdId"].as_str().unwrap().to_owned();
    assert_eq!(body["addVenue"]["events"], 2);
    let found = app
        .admin(VENUE_BY_CODE, json!({"l": north, "c": "crown"}))
        .await;
    assert_eq!(found["venue"]["id"], crown.as_str());
    assert_eq!(found["venue"]["code"], "crown");
    let before = events_of(app, &north).await;
    let body = app
        .graphql(
            Some(&app.admin),
            ADD_VENUE,
            json!({"l": north, "c": "crown"}),
        )
        .await;
    assert_eq!(
        refusal(&body),
        ("CODE_TAKEN".into(), "code".into()),
        "{body:#}"
    );
    let body = app
        .graphql(
            Some(&app.admin),
            ADD_VENUE,
            json!({"l": north, "c": "Crown"}),
        )
        .await;
    assert_eq!(refusal(&body), ("BAD_INPUT".into(), "code".into()));
    assert_eq!(events_of(app, &north).await, before, "a refusal appended");
    // The same code in another league is that league's own.
    let body = app
        .admin(ADD_VENUE, json!({"l": other, "c": "crown"}))
        .await;
    assert_eq!(body["addVenue"]["events"], 2);

    // A venue's code is never another venue's id, nor a new venue's id another's code.
    app.admin(
        "mutation($l: ID!) { addVenue(input: {leagueId: $l, venue: \"pier\", region: \"south\"}) { events } }",
        json!({"l": north}),
    )
    .await;
    let body = app
        .graphql(
            Some(&app.admin),
            SET_VENUE,
            json!({"l": north, "v": crown, "c": "pier"}),
        )
        .await;
    assert_eq!(
        refusal(&body),
        ("CODE_TAKEN".into(), "code".into()),
        "{body:#}"
    );
    let body = app
        .graphql(
            Some(&app.admin),
            "mutation($l: ID!) { addVenue(input: {leagueId: $l, venue: \"crown\", region: \"south\"}) { events } }",
            json!({"l": north}),
        )
        .await;
    assert_eq!(
        refusal(&body),
        ("ID_TAKEN".into(), "venue".into()),
        "{body:#}"
    );

    // A venue's new code frees the old one.
    let body = app.admin(ADD_VENUE, json!({"l": north})).await;
    let pier = body["addVenue"]["createdId"].as_str().unwrap().to_owned();
    let body = app
        .graphql(
            Some(&app.admin),
            SET_VENUE,
            json!({"l": north, "v": pier, "c": "crown"}),
        )
        .await;
    assert_eq!(refusal(&body), ("CODE_TAKEN".into(), "code".into()));
    app.admin(SET_VENUE, json!({"l": north, "v": crown, "c": "the-crown"}))
        .await;
    app.admin(SET_VENUE, json!({"l": north, "v": pier, "c": "crown"}))
        .await;
    let found = app
        .admin(VENUE_BY_CODE, json!({"l": north, "c": "crown"}))
        .await;
    assert_eq!(found["venue"]["id"], pier.as_str());
    let body = app
        .graphql(
            Some(&app.admin),
            SET_VENUE,
            json!({"l": north, "v": "no-such-venue", "c": "nowhere"}),
        )
        .await;
    assert_eq!(refusal(&body).0, "NOT_FOUND", "{body:#}");

    // An operator names a host's venue, or an admin's league, by its code; the token keeps
    // the id. A venue code two leagues use names no one venue.
    use league_api::auth::{Role, TokenSpec, create_token_for};
    let (host, _) = create_token_for(
        &app.store,
        &TokenSpec::new(Role::Host, Some("the-crown"), None),
    )
    .await
    .unwrap();
    assert_eq!(host.venue.as_deref(), Some(crown.as_str()));
    let spec = TokenSpec {
        league: Some("apl-n".into()),
        ..TokenSpec::new(Role::Admin, None, None)
    };
    let (admin, _) = create_token_for(&app.store, &spec).await.unwrap();
    assert_eq!(admin.league.as_deref(), Some(north.as_str()));
    let ambiguous = create_token_for(&app.store, &TokenSpec::new(Role::Host, Some("crown"), None))
        .await
        .unwrap_err();
    assert_eq!(ambiguous.code(), "BAD_INPUT", "{ambiguous:?}");
    // `pier` is a venue's id here and, in the other league, a venue's code: the operator
    // must say which.
    app.admin(ADD_VENUE, json!({"l": other, "c": "pier"})).await;
    let both = create_token_for(&app.store, &TokenSpec::new(Role::Host, Some("pier"), None))
        .await
        .unwrap_err();
    assert_eq!(both.code(), "BAD_INPUT", "{both:?}");
    let unknown = create_token_for(
        &app.store,
        &TokenSpec::new(Role::Host, Some("nowhere"), None),
    )
    .await
    .unwrap_err();
    assert_eq!(unknown.code(), "NOT_FOUND");

    // The league's own page lists the codes.
    let league = app
        .admin(
            "query($l: ID!) { league(id: $l) { code venues { id code } } }",
            json!({"l": north}),
        )
        .await;
    assert_eq!(league["league"]["code"], "apl-n");
    let mut codes: Vec<&str> = league["league"]["venues"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|v| v["code"].as_str())
        .collect();
    codes.sort_unstable();
    assert_eq!(codes, ["crown", "the-crown"], "pier has no code");
}

/// Many leagues created at once with one code: exactly one gets it, the others are refused
/// and not created.
async fn two_leagues_racing_for_one_code_get_it_once(app: &TestApp) {
    let ids: Vec<String> = (0..8).map(|_| uuid::Uuid::now_v7().to_string()).collect();
    let answers = futures_util::future::join_all(ids.iter().map(|id| {
        app.graphql(
            Some(&app.admin),
            CREATE,
            json!({"id": id, "c": "contested"}),
        )
    }))
    .await;
    let won: Vec<&String> = ids
        .iter()
        .zip(&answers)
        .filter(|(_, a)| a["errors"].is_null())
        .map(|(id, _)| id)
        .collect();
    assert_eq!(won.len(), 1, "{answers:#?}");
    for (id, answer) in ids.iter().zip(&answers) {
        if id != won[0] {
            assert_eq!(refusal(answer).0, "CODE_TAKEN", "{answer:#}");
            assert_eq!(events_of(app, id).await, 0);
        }
    }
    let found = app.admin(BY_CODE, json!({"c": "contested"})).await;
    assert_eq!(found["league"]["id"], won[0].as_str());
}
