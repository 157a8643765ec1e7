//! What the league's screens read, through the API: a venue's name and logo, the leagues to
//! pick from, today's tournaments, and a season's standings by region with each line's
//! movement since the latest tournament.

#![expect(clippy::unwrap_used, reason = "a test")]

use league_api::auth::Role;
use league_engine::tournament::play::Tracking;
use league_tests::*;
use serde_json::{Value, json};

on_every_backend!(
    a_venue_shows_its_name_and_logo,
    a_screen_finds_the_leagues_and_todays_tournaments,
    standings_by_region_say_how_each_line_moved,
);

const LOGO: &str = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

const SET_DISPLAY: &str = "mutation($v: ID!, $n: String!, $l: String) { setVenueDisplay(input: {leagueId: \"apl\", venue: $v, name: $n, logo: $l}) { events league { venues { id name logo } } } }";

async fn a_venue_shows_its_name_and_logo(app: &TestApp) {
    a_league(app).await;
    // Until it is set, a venue has neither.
    let venue = app
        .graphql(
            None,
            "{ venue(id: \"crown\") { id region name logo } }",
            json!({}),
        )
        .await;
    assert_eq!(
        venue["data"]["venue"],
        json!({"id": "crown", "region": "north", "name": null, "logo": null})
    );
    // Refused, each with its field, and nothing appended.
    let before = app.last_position().await;
    for (logo, name, field) in [
        ("https://example.com/logo.png", "The Crown", "logo"),
        ("data:text/html;base64,PGI+aGk8L2I+", "The Crown", "logo"),
        ("data:image/png;base64,not base64!", "The Crown", "logo"),
        ("data:image/png,plain", "The Crown", "logo"),
        (
            &format!("data:image/png;base64,{}", "A".repeat(70_000)),
            "The Crown",
            "logo",
        ),
        (LOGO, "  ", ""),
    ] {
        let body = app
            .graphql(
                Some(&app.admin),
                SET_DISPLAY,
                json!({"v": "crown", "n": name, "l": logo}),
            )
            .await;
        assert_eq!(code(&body), "BAD_INPUT", "{body:#}");
        if !field.is_empty() {
            assert_eq!(body["errors"][0]["extensions"]["field"], field, "{body:#}");
        }
    }
    let body = app
        .graphql(
            Some(&app.admin),
            SET_DISPLAY,
            json!({"v": "pier", "n": "The Pier", "l": null}),
        )
        .await;
    assert_eq!(code(&body), "NOT_FOUND", "{body:#}");
    assert_eq!(app.last_position().await, before);

    // Set by the venue's own host.
    let host = app.token(Role::Host, Some("crown"), None).await;
    let body = app
        .graphql(
            Some(&host),
            SET_DISPLAY,
            json!({"v": "crown", "n": "The Crown", "l": LOGO}),
        )
        .await;
    assert!(body.get("errors").is_none(), "{body:#}");
    assert_eq!(body["data"]["setVenueDisplay"]["events"], 1);
    assert_eq!(
        body["data"]["setVenueDisplay"]["league"]["venues"][0],
        json!({"id": "crown", "name": "The Crown", "logo": LOGO})
    );
    // The same again changes nothing; the public reads it.
    let again = app
        .admin(
            SET_DISPLAY,
            json!({"v": "crown", "n": "The Crown", "l": LOGO}),
        )
        .await;
    assert_eq!(again["setVenueDisplay"]["events"], 0);
    let venue = app
        .graphql(None, "{ venue(id: \"crown\") { name logo } }", json!({}))
        .await;
    assert_eq!(
        venue["data"]["venue"],
        json!({"name": "The Crown", "logo": LOGO})
    );
    // Without a logo, the logo is gone.
    app.admin(SET_DISPLAY, json!({"v": "crown", "n": "Crown & Anchor"}))
        .await;
    let venue = app
        .graphql(None, "{ venue(id: \"crown\") { name logo } }", json!({}))
        .await;
    assert_eq!(
        venue["data"]["venue"],
        json!({"name": "Crown & Anchor", "logo": null})
    );
    let none = app
        .graphql(None, "{ venue(id: \"nowhere\") { name } }", json!({}))
        .await;
    assert_eq!(none["data"]["venue"], Value::Null);
}

async fn a_screen_finds_the_leagues_and_todays_tournaments(app: &TestApp) {
    a_league(app).await;
    const DAY: i64 = 86_400_000;
    let today = 20_000 * DAY;
    for (id, starts) in [
        ("yesterday", today - 3_600_000),
        ("tonight", today + 20 * 3_600_000),
        ("midnight", today),
        ("tomorrow", today + DAY),
    ] {
        let mut s = schedule("crown", Tracking::Results);
        s["startsAt"] = json!(starts);
        app.admin(SCHEDULE, json!({"id": id, "s": s})).await;
    }
    let body = app
        .graphql(
            None,
            "query($from: Millis!, $before: Millis!) { \
               leagues { id name venues { id region } seasons { id bestN } } \
               tournaments(startsFrom: $from, startsBefore: $before) { tournaments { id stage startsAt } } }",
            json!({"from": today, "before": today + DAY}),
        )
        .await;
    assert!(body.get("errors").is_none(), "{body:#}");
    assert_eq!(
        body["data"]["leagues"],
        json!([{"id": "apl", "name": "APL", "venues": [{"id": "crown", "region": "north"}],
                "seasons": [{"id": "s1", "bestN": null}]}])
    );
    let ids: Vec<&str> = body["data"]["tournaments"]["tournaments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["midnight", "tonight"]);
    assert_eq!(
        body["data"]["tournaments"]["tournaments"][1]["startsAt"],
        json!(today + 20 * 3_600_000)
    );
}

const STANDINGS: &str = "query($v: ID, $r: String) { standings(leagueId: \"apl\", season: \"s1\", venue: $v, region: $r) { rank player name points previousRank } }";

async fn standings_by_region_say_how_each_line_moved(app: &TestApp) {
    a_night_in_the_standings(app).await;
    app.admin(
        "mutation { renamePlayer(input: {leagueId: \"apl\", player: \"cat\", name: \"Cat Cole\"}) { events } }",
        json!({}),
    )
    .await;
    app.admin(
        "mutation { addVenue(input: {leagueId: \"apl\", venue: \"pier\", region: \"south\"}) { events } }",
        json!({}),
    )
    .await;
    // After the first tournament every line is new.
    let first = app.admin(STANDINGS, json!({})).await;
    assert_eq!(
        first["standings"],
        json!([
            {"rank": 1, "player": "ann", "name": "ann", "points": 125, "previousRank": null},
            {"rank": 2, "player": "bob", "name": "bob", "points": 100, "previousRank": null},
            {"rank": 3, "player": "cat", "name": "Cat Cole", "points": 75, "previousRank": null},
        ])
    );
    // A region's screen follows it live.
    let mut live = app
        .subscribe(
            "graphql-transport-ws",
            json!({}),
            json!({"id": "1", "type": "subscribe", "payload": {
                "query": "subscription { standings(leagueId: \"apl\", season: \"s1\", region: \"north\") { rank player previousRank } }"}}),
        )
        .await;
    let ack = next_message(&mut live, "the acknowledgement").await;
    assert_eq!(ack["type"], "connection_ack");
    let now = next_message(&mut live, "the north's standings").await;
    assert_eq!(now["payload"]["data"]["standings"][2]["player"], "cat");

    // The second night: cat wins, bob second, ann third. All three are level on 200
    // points; ann and cat have a win each, and ann's id comes first.
    a_results_night(app, "t2", 2, &["cat", "bob", "ann"]).await;
    let moved = json!([
        {"rank": 1, "player": "ann", "name": "ann", "points": 200, "previousRank": 1},
        {"rank": 2, "player": "cat", "name": "Cat Cole", "points": 200, "previousRank": 3},
        {"rank": 3, "player": "bob", "name": "bob", "points": 200, "previousRank": 2},
    ]);
    assert_eq!(app.admin(STANDINGS, json!({})).await["standings"], moved);
    assert_eq!(
        app.admin(STANDINGS, json!({"r": "north"})).await["standings"],
        moved
    );
    let update = next_message(&mut live, "the north's standings after t2").await;
    assert_eq!(
        update["payload"]["data"]["standings"],
        json!([
            {"rank": 1, "player": "ann", "previousRank": 1},
            {"rank": 2, "player": "cat", "previousRank": 3},
            {"rank": 3, "player": "bob", "previousRank": 2},
        ])
    );
    // The south has no result yet; a region without a venue is not found; a venue and a
    // region at once are refused.
    assert_eq!(
        app.admin(STANDINGS, json!({"r": "south"})).await["standings"],
        json!([])
    );
    let body = app.graphql(None, STANDINGS, json!({"r": "nowhere"})).await;
    assert_eq!(code(&body), "NOT_FOUND", "{body:#}");
    let body = app
        .graphql(None, STANDINGS, json!({"v": "crown", "r": "north"}))
        .await;
    assert_eq!(code(&body), "BAD_INPUT", "{body:#}");
    assert_eq!(body["errors"][0]["extensions"]["field"], "region");
}
