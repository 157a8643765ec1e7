//! What a venue app meets when it is written against the API: idempotency keys that never
//! drop a request silently, a code on every error (bad values, parse and validation
//! errors), messages without Rust debug text, subscriptions to unknown ids answered at once,
//! tokens only for venues and players that exist, and GraphiQL served by the binary alone.
//! Each scenario runs on its own server and database, on SQLite and (with
//! `LEAGUE_TEST_POSTGRES_URL`) PostgreSQL.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use league_api::auth::{Role, create_token};
use league_engine::rules::Preset;
use league_engine::tournament::play::Tracking;
use league_engine::tournament::sim::weekly_schedule;
use league_tests::{
    ACT, REGISTER, SCHEDULE, START, TABLE_VIEW, TestApp, a_league, code, next_message,
    play_to_a_winner, schedule, seed, started, u,
};
use serde_json::{Value, json};

async fn an_idempotency_key_reused_for_another_request_is_refused(app: &TestApp) {
    // Crown in the league apl, with ann and bob members.
    a_league(app).await;
    app.admin(
        SCHEDULE,
        json!({"id": "t1", "s": schedule("crown", Tracking::Results)}),
    )
    .await;
    app.admin(REGISTER, json!({"t": "t1", "p": "ann", "k": "k1"}))
        .await;
    let before = app.last_position().await;
    // The same key, the same tournament, another player: refused, and bob is not dropped
    // silently as a "deduplicated" retry.
    let body = app
        .graphql(
            Some(&app.admin),
            REGISTER,
            json!({"t": "t1", "p": "bob", "k": "k1"}),
        )
        .await;
    assert_eq!(code(&body), "IDEMPOTENCY_KEY_REUSED", "{body:#}");
    // Another mutation with the key: refused too.
    let body = app
        .graphql(
            Some(&app.admin),
            "mutation($t: ID!, $k: String) { pause(input: {tournamentId: $t, idempotencyKey: $k}) { events } }",
            json!({"t": "t1", "k": "k1"}),
        )
        .await;
    assert_eq!(code(&body), "IDEMPOTENCY_KEY_REUSED", "{body:#}");
    assert_eq!(app.last_position().await, before, "nothing appended");
    // The same request, its arguments written inline and in another order: the first answer.
    let again = app
        .admin(
            "mutation { register(input: {player: \"ann\", idempotencyKey: \"k1\", tournamentId: \"t1\"}) { deduplicated } }",
            json!({}),
        )
        .await;
    assert_eq!(again["register"]["deduplicated"], true);
    // A key is the token's own: another token may use the same text for its own request.
    let host = app.token(Role::Host, Some("crown"), None).await;
    let body = app
        .graphql(
            Some(&host),
            REGISTER,
            json!({"t": "t1", "p": "bob", "k": "k1"}),
        )
        .await;
    assert!(body.get("errors").is_none(), "{body:#}");
}

async fn every_error_has_a_code_and_reads_as_words(app: &TestApp) {
    a_league(app).await;
    // A negative amount: BAD_INPUT naming the variable, not a bare "Failed to parse".
    started(app, "t2", "crown", Tracking::Dealt, &["ann", "bob"]).await;
    let body = app
        .graphql(
            Some(&app.admin),
            ACT,
            json!({"t": "t2", "table": 1, "seat": 0, "a": "BET", "amount": -5}),
        )
        .await;
    assert_eq!(code(&body), "BAD_INPUT", "{body:#}");
    // The same value written in the document: BAD_INPUT naming the argument.
    let body = app
        .graphql(
            Some(&app.admin),
            "mutation { act(input: {tournamentId: \"t2\", table: 1, seat: 0, action: BET, amount: -5}) { events } }",
            json!({}),
        )
        .await;
    assert_eq!(code(&body), "BAD_INPUT", "{body:#}");
    assert_eq!(
        body["errors"][0]["extensions"]["field"], "amount",
        "{body:#}"
    );
    assert_eq!(
        body["errors"][0]["message"], "amount: chips are a whole number from 0 to 2^64 - 1",
        "{body:#}"
    );
    // A document that does not parse: a code and no drawing of the line.
    let body = app
        .graphql(Some(&app.admin), "{ tournaments(", json!({}))
        .await;
    assert_eq!(code(&body), "GRAPHQL_PARSE_FAILED", "{body:#}");
    let message = body["errors"][0]["message"].as_str().unwrap();
    assert!(
        !message.contains("-->") && !message.contains('^'),
        "{message}"
    );
    // A document nested past the parser's bound (64) or the server's bound on data
    // selections (12): input past a limit, named in the message.
    for (levels, bound) in [(70, "64"), (40, "12")] {
        let document = format!("{}{}", "{ a ".repeat(levels), "}".repeat(levels));
        let body = app.graphql(None, &document, json!({})).await;
        assert_eq!(code(&body), "BAD_INPUT", "{body:#}");
        let message = body["errors"][0]["message"].as_str().unwrap();
        assert!(
            message.contains(&format!("deeper than {bound} levels")),
            "{message}"
        );
    }
    // Values nested past the parser's stack guard: the same, and the server serves on.
    let nested = format!("{}\"x\"{}", "[".repeat(20_000), "]".repeat(20_000));
    let document = format!("{{ tournaments(after: {nested}) {{ hasNextPage }} }}");
    let body = app.graphql(None, &document, json!({})).await;
    assert_eq!(code(&body), "BAD_INPUT", "{body:#}");
    assert!(
        body["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("stack limit"),
        "{body:#}"
    );
    let body = app.graphql(None, "{ __typename }", json!({})).await;
    assert_eq!(body["data"]["__typename"], "Query", "{body:#}");
    // A field the schema does not have.
    let body = app.graphql(None, "{ nope }", json!({})).await;
    assert_eq!(code(&body), "GRAPHQL_VALIDATION_FAILED", "{body:#}");
    // A rule error with an option inside reads as words: no `Some(..)`.
    app.admin(
        "mutation { startHand(input: {tournamentId: \"t2\", table: 1}) { events } }",
        json!({}),
    )
    .await;
    let table = app
        .admin(
            "{ table(tournamentId: \"t2\", table: 1) { toAct seats { seat } } }",
            json!({}),
        )
        .await;
    let to_act = table["table"]["toAct"].as_u64().unwrap();
    let other = table["table"]["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["seat"].as_u64().unwrap())
        .find(|s| *s != to_act)
        .unwrap();
    let body = app
        .graphql(
            Some(&app.admin),
            ACT,
            json!({"t": "t2", "table": 1, "seat": other, "a": "FOLD"}),
        )
        .await;
    assert_eq!(code(&body), "NOT_YOUR_TURN", "{body:#}");
    let message = body["errors"][0]["message"].as_str().unwrap();
    assert_eq!(
        message,
        format!("it is not seat {other}'s turn; seat {to_act} is to act")
    );
    // An amount with an action that takes none is refused, not silently dropped.
    let body = app
        .graphql(
            Some(&app.admin),
            ACT,
            json!({"t": "t2", "table": 1, "seat": to_act, "a": "CALL", "amount": 5}),
        )
        .await;
    assert_eq!(code(&body), "BAD_INPUT", "{body:#}");
    assert_eq!(
        body["errors"][0]["extensions"]["field"], "amount",
        "{body:#}"
    );
    // A bad value deep inside a typed input is named by its path in the mutation's input.
    let body = app
        .graphql(
            Some(&app.admin),
            "mutation { scheduleTournament(input: {id: \"x9\", schedule: {name: \"n\", venue: \"crown\", startsAt: 0, preset: WSOP, tracking: RESULTS, entry: {price: 100}, startingChips: 1000, levels: [{play: {smallBlind: 5, bigBlind: 10, minutes: -20}}]}}) { events } }",
            json!({}),
        )
        .await;
    assert_eq!(code(&body), "BAD_INPUT", "{body:#}");
    assert_eq!(
        body["errors"][0]["extensions"]["field"], "schedule.levels.0.play.minutes",
        "{body:#}"
    );
    assert_eq!(
        body["errors"][0]["message"],
        "schedule.levels.0.play.minutes: expected a whole number of 0 or more",
        "{body:#}"
    );
    // A formula nested 1,400 deep (which once overflowed the stack and stopped the server)
    // or longer than the limit is refused with words, and the server goes on serving.
    for (text, says) in [
        (
            format!("{}n{}", "(".repeat(900), ")".repeat(900)),
            "nests deeper than 64",
        ),
        ("n + ".repeat(600) + "n", "at most 2000 bytes"),
    ] {
        let body = app
            .graphql(
                Some(&app.admin),
                "mutation($f: String!) { addSeason(input: {leagueId: \"apl\", season: \"deep\", scoring: {formula: $f}}) { events } }",
                json!({"f": text}),
            )
            .await;
        assert_eq!(code(&body), "BAD_INPUT", "{body:#}");
        assert_eq!(
            body["errors"][0]["extensions"]["field"], "scoring",
            "{body:#}"
        );
        assert!(
            body["errors"][0]["message"]
                .as_str()
                .unwrap()
                .contains(says),
            "{body:#}"
        );
    }
    // A league that does not exist is named.
    let body = app
        .graphql(
            Some(&app.admin),
            "mutation { addVenue(input: {leagueId: \"nope\", venue: \"v\", region: \"r\"}) { events } }",
            json!({}),
        )
        .await;
    assert_eq!(code(&body), "NOT_FOUND", "{body:#}");
    assert_eq!(body["errors"][0]["message"], "no league `nope`", "{body:#}");
}

/// The first message of a subscription to `query`, after the acknowledgement.
async fn first_answer(app: &TestApp, query: &str) -> Value {
    let mut ws = app
        .subscribe(
            "graphql-transport-ws",
            json!({}),
            json!({"id": "1", "type": "subscribe", "payload": {"query": query}}),
        )
        .await;
    loop {
        let message = next_message(&mut ws, "an answer to the subscription").await;
        if message["type"] != "connection_ack" {
            return message;
        }
    }
}

async fn a_subscription_to_an_unknown_id_is_answered_at_once(app: &TestApp) {
    for (query, id) in [
        (
            "subscription { tournament(id: \"nope\") { entries } }",
            "\"nope\"",
        ),
        (
            "subscription { table(tournamentId: \"nope\", table: 1) { hand } }",
            "\"nope\"",
        ),
        (
            "subscription { standings(leagueId: \"nope\", season: \"s1\") { player } }",
            "`nope`",
        ),
    ] {
        let message = first_answer(app, query).await;
        // The subscription's answer is its error (`next` carrying `errors`, then
        // `complete`), never a stream that stays silent.
        assert_eq!(message["type"], "next", "{message:#}");
        assert!(message["payload"]["data"].is_null(), "{message:#}");
        let error = &message["payload"]["errors"][0];
        assert_eq!(error["extensions"]["code"], "NOT_FOUND", "{message:#}");
        assert!(
            error["message"].as_str().unwrap().contains(id),
            "{message:#}"
        );
    }
    // A table the started tournament does not have.
    started(app, "t3", "crown", Tracking::Results, &["ann", "bob"]).await;
    let message = first_answer(
        app,
        "subscription { table(tournamentId: \"t3\", table: 9) { hand } }",
    )
    .await;
    assert_eq!(message["type"], "next", "{message:#}");
    assert!(
        message["payload"]["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("no table 9"),
        "{message:#}"
    );
}

async fn tokens_are_issued_only_for_venues_and_players_that_exist(app: &TestApp) {
    let venue = create_token(&app.store, Role::Host, Some("no-such-venue"), None)
        .await
        .unwrap_err();
    assert_eq!(venue.code(), "NOT_FOUND", "{venue}");
    let player = create_token(&app.store, Role::Player, None, Some("nobody"))
        .await
        .unwrap_err();
    assert_eq!(player.code(), "NOT_FOUND", "{player}");
    // Once the league has them, the tokens are issued.
    app.admin(
        "mutation { createLeague(input: {id: \"apl\", name: \"APL\"}) { events } }",
        json!({}),
    )
    .await;
    app.admin(
        "mutation { addVenue(input: {leagueId: \"apl\", venue: \"anchor\", region: \"north\"}) { events } }",
        json!({}),
    )
    .await;
    app.admin(
        "mutation { registerPlayer(input: {leagueId: \"apl\", player: \"dee\", name: \"Dee\", membership: \"m-1\"}) { events } }",
        json!({}),
    )
    .await;
    create_token(&app.store, Role::Host, Some("anchor"), None)
        .await
        .unwrap();
    create_token(&app.store, Role::Player, None, Some("dee"))
        .await
        .unwrap();
}

async fn graphiql_is_served_by_the_binary_alone(app: &TestApp) {
    let client = awc::Client::new();
    let mut page = client
        .get(format!("{}/graphql", app.base))
        .insert_header(("accept", "text/html"))
        .send()
        .await
        .unwrap();
    assert!(page.status().is_success());
    let html = String::from_utf8(page.body().await.unwrap().to_vec()).unwrap();
    assert!(html.contains("GraphiQL"), "{html}");
    let mut assets = 0;
    for attr in ["src=\"", "href=\""] {
        for (i, _) in html.match_indices(attr) {
            let rest = &html[i + attr.len()..];
            let url = &rest[..rest.find('"').unwrap()];
            assert!(url.starts_with('/'), "{url} is not served by the binary");
            let mut asset = client
                .get(format!("{}{url}", app.base))
                .send()
                .await
                .unwrap();
            assert!(asset.status().is_success(), "{url}: {}", asset.status());
            let body = asset.body().limit(8 << 20).await.unwrap();
            assert!(body.len() > 1_000, "{url}");
            assets += 1;
        }
    }
    assert_eq!(assets, 4, "the stylesheet, React, ReactDOM and GraphiQL");
}

async fn a_dealt_table_is_played_to_a_winner_from_what_its_view_offers(app: &TestApp) {
    let players = ["ann", "bob", "cy", "di"];
    started(app, "t5", "crown", Tracking::Dealt, &players).await;
    let total = 5_000 * u64::try_from(players.len()).unwrap();
    play_to_a_winner(app, "t5", total, 29).await;
}

const CLOCK: &str = "query($t: ID!) { tournament(id: $t) { level paused levelStartedAt levelEndsAt timeLeft nextBreakAt nextLevel { kind minutes bigBlind ante { kind amount } } averageStack remaining pending { kind tables players low high pool prizes } } }";

async fn the_tournament_view_shows_its_clock_and_what_is_pending(app: &TestApp) {
    started(app, "t6", "crown", Tracking::Results, &["ann", "bob", "cy"]).await;
    let t = &app.admin(CLOCK, json!({"t": "t6"})).await["tournament"];
    let minute = 60_000;
    let started_at = u(&t["levelStartedAt"]);
    // The structure: four levels of 20 minutes, then a break with a colour-up.
    assert_eq!(t["level"], 1);
    assert_eq!(t["paused"], false);
    assert_eq!(u(&t["levelEndsAt"]), started_at + 20 * minute, "{t:#}");
    assert_eq!(u(&t["nextBreakAt"]), started_at + 80 * minute, "{t:#}");
    assert!(u(&t["timeLeft"]) <= 20 * minute, "{t:#}");
    assert_eq!(t["nextLevel"]["bigBlind"], 100, "{t:#}");
    assert_eq!(t["nextLevel"]["ante"]["kind"], "NONE", "{t:#}");
    assert_eq!(u(&t["averageStack"]), 5_000, "{t:#}");
    // No late entries, re-entries, re-buys or add-ons: the pool is final, its prizes wait
    // to be announced (the payout table's, until the host announces them).
    let pending = &t["pending"];
    assert_eq!(pending.as_array().unwrap().len(), 1, "{t:#}");
    assert_eq!(pending[0]["kind"], "ANNOUNCE_PAYOUTS", "{t:#}");
    assert_eq!(pending[0]["pool"], 6_000, "three entries at 20.00: {t:#}");
    let prizes = pending[0]["prizes"].clone();
    let sum: u64 = prizes.as_array().unwrap().iter().map(u).sum();
    assert_eq!(sum, 6_000, "{t:#}");
    app.admin(
        "mutation($a: [Cents!]!) { setPayouts(input: {tournamentId: \"t6\", amounts: $a}) { events } }",
        json!({"a": prizes}),
    )
    .await;
    let t = &app.admin(CLOCK, json!({"t": "t6"})).await["tournament"];
    assert_eq!(t["pending"], json!([]), "{t:#}");
    // Paused: no end to count down to.
    app.admin(
        "mutation { pause(input: {tournamentId: \"t6\"}) { events } }",
        json!({}),
    )
    .await;
    let t = &app.admin(CLOCK, json!({"t": "t6"})).await["tournament"];
    assert_eq!(t["paused"], true);
    assert!(
        t["levelEndsAt"].is_null() && t["timeLeft"].is_null(),
        "{t:#}"
    );
    app.admin(
        "mutation { resume(input: {tournamentId: \"t6\"}) { events } }",
        json!({}),
    )
    .await;
    // Up to the break: the colour-up is pending, and the next level waits for it with a
    // code that names it.
    for _ in 0..4 {
        app.admin(
            "mutation { advanceLevel(input: {tournamentId: \"t6\"}) { events } }",
            json!({}),
        )
        .await;
    }
    let t = &app.admin(CLOCK, json!({"t": "t6"})).await["tournament"];
    assert_eq!(t["level"], 5);
    assert_eq!(
        t["pending"],
        json!([{"kind": "COLOUR_UP", "tables": [], "players": [], "low": 25, "high": 100, "pool": null, "prizes": null}]),
        "{t:#}"
    );
    let body = app
        .graphql(
            Some(&app.admin),
            "mutation { advanceLevel(input: {tournamentId: \"t6\"}) { events } }",
            json!({}),
        )
        .await;
    assert_eq!(code(&body), "COLOUR_UP_DUE", "{body:#}");
}

async fn an_undersized_raise_brought_up_is_reported_in_the_answer(app: &TestApp) {
    // QueenSix NLHE 12: an undersized bet or raise is brought up to the minimum.
    let schedule = league_api::schema::tournaments::inputs::schedule_input(&weekly_schedule(
        "crown",
        Preset::QueenSix,
        Tracking::Dealt,
        seed(1).commitment(),
    ));
    app.admin(SCHEDULE, json!({"id": "t7", "s": schedule}))
        .await;
    for p in ["ann", "bob", "cy"] {
        app.admin(REGISTER, json!({"t": "t7", "p": p})).await;
    }
    app.admin(START, json!({"t": "t7"})).await;
    app.admin(
        "mutation { startHand(input: {tournamentId: \"t7\", table: 1}) { events } }",
        json!({}),
    )
    .await;
    let table = &app.admin(TABLE_VIEW, json!({"t": "t7"})).await["table"];
    let legal = &table["legalActions"];
    let (seat, min) = (u(&legal["seat"]), u(&legal["betOrRaise"]["min"]));
    let act = "mutation($t: ID!, $s: Int!, $a: Chips) { act(input: {tournamentId: $t, table: 1, seat: $s, action: RAISE_TO, amount: $a}) { events adjusted { seat declared made treatedAsCall } } }";
    let answer = app
        .admin(act, json!({"t": "t7", "s": seat, "a": min - 1}))
        .await;
    assert_eq!(
        answer["act"]["adjusted"],
        json!({"seat": seat, "declared": min - 1, "made": min, "treatedAsCall": false}),
        "{answer:#}"
    );
    // A raise that stands as declared: nothing adjusted.
    let table = &app.admin(TABLE_VIEW, json!({"t": "t7"})).await["table"];
    let legal = &table["legalActions"];
    let (seat, min) = (u(&legal["seat"]), u(&legal["betOrRaise"]["min"]));
    let answer = app
        .admin(act, json!({"t": "t7", "s": seat, "a": min}))
        .await;
    assert!(answer["act"]["adjusted"].is_null(), "{answer:#}");
}

async fn a_host_cannot_record_another_venue_s_tournament(app: &TestApp) {
    a_league(app).await;
    app.admin(
        "mutation { addVenue(input: {leagueId: \"apl\", venue: \"anchor\", region: \"south\"}) { events } }",
        json!({}),
    )
    .await;
    // Crown's tournament, running; anchor's host claims its id for an anchor night.
    started(app, "t8", "crown", Tracking::Results, &["ann", "bob"]).await;
    let host = app.token(Role::Host, Some("anchor"), None).await;
    let before = app.last_position().await;
    let body = app
        .graphql(
            Some(&host),
            "mutation($o: OutcomeInput!) { recordTournament(input: {leagueId: \"apl\", outcome: $o}) { events } }",
            json!({"o": {
                "tournament": "t8", "venue": "anchor", "season": "s1", "day": 1, "buyin": 2000,
                "prizepool": 4000, "field": 2,
                "finishes": [{"player": "ann", "place": 1, "prize": 4000}, {"player": "bob", "place": 2}]
            }}),
        )
        .await;
    assert_eq!(code(&body), "FORBIDDEN", "{body:#}");
    assert_eq!(app.last_position().await, before, "nothing appended");
}

async fn only_members_are_registered_and_a_walk_in_becomes_one(app: &TestApp) {
    a_league(app).await;
    app.admin(
        SCHEDULE,
        json!({"id": "t11", "s": schedule("crown", Tracking::Results)}),
    )
    .await;
    // Before the start the view already says what level follows the first.
    let t = app
        .admin(
            "{ tournament(id: \"t11\") { nextLevel { bigBlind } } }",
            json!({}),
        )
        .await;
    assert_eq!(t["tournament"]["nextLevel"]["bigBlind"], 100, "{t:#}");
    // Zed is not a member of apl, crown's league: refused, nothing appended.
    let before = app.last_position().await;
    let body = app
        .graphql(Some(&app.admin), REGISTER, json!({"t": "t11", "p": "zed"}))
        .await;
    assert_eq!(code(&body), "NOT_A_MEMBER", "{body:#}");
    assert!(
        body["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("apl"),
        "{body:#}"
    );
    assert_eq!(app.last_position().await, before, "nothing appended");
    // A player cannot make themselves a member.
    let zed = app.token(Role::Player, None, Some("zed")).await;
    let walk_in = "mutation($t: ID!, $p: ID!) { register(input: {tournamentId: $t, player: $p, walkIn: {name: \"Zed\", membership: \"P-9\"}}) { events } }";
    let body = app
        .graphql(Some(&zed), walk_in, json!({"t": "t11", "p": "zed"}))
        .await;
    assert_eq!(code(&body), "FORBIDDEN", "{body:#}");
    // The host registers the walk-in: zed joins apl, then the tournament.
    let host = app.token(Role::Host, Some("crown"), None).await;
    let body = app
        .graphql(Some(&host), walk_in, json!({"t": "t11", "p": "zed"}))
        .await;
    assert!(body.get("errors").is_none(), "{body:#}");
    let league = app
        .admin("{ league(id: \"apl\") { players { id name } } }", json!({}))
        .await;
    assert!(
        league["league"]["players"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["id"] == "zed" && p["name"] == "Zed"),
        "{league:#}"
    );
    // Members register as before; a venue in no league takes anyone.
    app.admin(REGISTER, json!({"t": "t11", "p": "ann"})).await;
    app.admin(
        SCHEDULE,
        json!({"id": "t12", "s": schedule("garage", Tracking::Results)}),
    )
    .await;
    app.admin(REGISTER, json!({"t": "t12", "p": "anyone"}))
        .await;
}

async fn after_a_deal_the_prizes_are_the_deal_s(app: &TestApp) {
    started(
        app,
        "t13",
        "crown",
        Tracking::Results,
        &["ann", "bob", "cat"],
    )
    .await;
    let view = "{ tournament(id: \"t13\") { stage prizePool prizes results { player prize } } }";
    let before = app.admin(view, json!({})).await["tournament"].clone();
    app.admin(
        "mutation { recordChips(input: {tournamentId: \"t13\", counts: [{player: \"ann\", chips: 9000}, {player: \"bob\", chips: 4500}, {player: \"cat\", chips: 1500}]}) { events } }",
        json!({}),
    )
    .await;
    app.admin(
        "mutation { deal(input: {tournamentId: \"t13\", kind: ICM, accepted: [\"ann\", \"bob\", \"cat\"]}) { events } }",
        json!({}),
    )
    .await;
    let after = app.admin(view, json!({})).await["tournament"].clone();
    assert_eq!(after["stage"], "FINISHED", "{after:#}");
    let mut dealt: Vec<u64> = after["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["prize"].as_u64().unwrap())
        .collect();
    dealt.sort_unstable_by(|a, b| b.cmp(a));
    let prizes: Vec<u64> = after["prizes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_u64().unwrap())
        .collect();
    assert_eq!(
        prizes, dealt,
        "the prizes are what the deal pays: {after:#}"
    );
    assert_ne!(
        after["prizes"], before["prizes"],
        "not the announced prizes"
    );
    assert_eq!(
        prizes.iter().sum::<u64>(),
        after["prizePool"].as_u64().unwrap()
    );
}

async fn a_tournament_is_recorded_only_into_a_season_of_its_venue_s_league(app: &TestApp) {
    // apl has crown; bpl has anchor and its own season.
    a_league(app).await;
    for m in [
        "createLeague(input: {id: \"bpl\", name: \"BPL\"}) { events }",
        "addVenue(input: {leagueId: \"bpl\", venue: \"anchor\", region: \"south\"}) { events }",
        "addSeason(input: {leagueId: \"bpl\", season: \"b1\", scoring: {table: [10, 5]}}) { events }",
    ] {
        app.admin(&format!("mutation {{ {m} }}"), json!({})).await;
    }
    started(app, "t14", "crown", Tracking::Results, &["ann", "bob"]).await;
    app.admin(
        "mutation { eliminate(input: {tournamentId: \"t14\", players: [\"bob\"], by: \"ann\"}) { events } }",
        json!({}),
    )
    .await;
    // Crown's night into bpl's season: crown is not bpl's venue.
    let before = app.last_position().await;
    let body = app
        .graphql(
            Some(&app.admin),
            "mutation { recordTournamentResult(input: {leagueId: \"bpl\", tournamentId: \"t14\", season: \"b1\", day: 1}) { events } }",
            json!({}),
        )
        .await;
    assert_eq!(code(&body), "NOT_FOUND", "{body:#}");
    assert!(
        body["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("crown"),
        "{body:#}"
    );
    // Nor into a season bpl does not have, from apl.
    let body = app
        .graphql(
            Some(&app.admin),
            "mutation { recordTournamentResult(input: {leagueId: \"apl\", tournamentId: \"t14\", season: \"b1\", day: 1}) { events } }",
            json!({}),
        )
        .await;
    assert_eq!(code(&body), "NOT_FOUND", "{body:#}");
    assert_eq!(app.last_position().await, before, "nothing appended");
    // Into its own league's season: recorded.
    app.admin(
        "mutation { recordTournamentResult(input: {leagueId: \"apl\", tournamentId: \"t14\", season: \"s1\", day: 1}) { events } }",
        json!({}),
    )
    .await;
}

async fn the_server_makes_every_draw_and_the_log_proves_it(app: &TestApp) {
    // No mutation takes a seed or a commitment: a venue app holds no secret.
    let sdl = league_api::sdl();
    assert!(
        !sdl.contains("nextCommitment") && !sdl.contains("seed:"),
        "a client seed in the SDL"
    );
    let mut s = schedule("crown", Tracking::Results);
    s["lateRegistration"] = json!({"untilLevel": 2});
    app.admin(SCHEDULE, json!({"id": "t10", "s": s})).await;
    for p in ["ann", "bob", "cat"] {
        app.admin(REGISTER, json!({"t": "t10", "p": p})).await;
    }
    app.admin(START, json!({"t": "t10"})).await;
    app.admin(
        "mutation { lateEntry(input: {tournamentId: \"t10\", player: \"dan\"}) { events } }",
        json!({}),
    )
    .await;
    // Each draw reveals the seed the event before it committed to, and commits to the next.
    let events = app.store.read_stream("tournament:t10", 1).await.unwrap();
    let payloads: Vec<Value> = events
        .iter()
        .map(|e| serde_json::from_slice(&e.payload).unwrap())
        .collect();
    let of = |kind: &str| {
        payloads
            .iter()
            .find(|p| p["type"] == kind)
            .unwrap_or_else(|| panic!("no {kind}"))["data"]
            .clone()
    };
    let (scheduled, started, entered) = (
        of("TournamentScheduled"),
        of("TournamentStarted"),
        of("PlayerEntered"),
    );
    let seed_of = |v: &Value| {
        v.as_str()
            .unwrap()
            .parse::<league_engine::deck::Seed>()
            .unwrap()
    };
    let commitment = |v: &Value| v.as_str().unwrap().to_owned();
    assert_eq!(
        seed_of(&started["seed"]).commitment().to_string(),
        commitment(&scheduled["schedule"]["draw_commitment"])
    );
    assert_eq!(
        seed_of(&entered["seed"]).commitment().to_string(),
        commitment(&started["next_commitment"])
    );
    // Before its draw a seed is nowhere in the log: only its commitment is.
    let start_seed = started["seed"].as_str().unwrap();
    let start_at = payloads
        .iter()
        .position(|p| p["type"] == "TournamentStarted")
        .unwrap();
    assert!(
        payloads[..start_at]
            .iter()
            .all(|p| !p.to_string().contains(start_seed))
    );
    // The seeds are the server's: fresh for every tournament, never a client's.
    assert_ne!(seed_of(&started["seed"]), seed(1));
    assert_ne!(started["seed"], entered["seed"]);
}

async fn the_preset_decides_the_house_rules_and_an_override_is_named(app: &TestApp) {
    // QueenSix 8 fixes the colour-up (round up): a chip race contradicts it.
    let mut s = schedule("crown", Tracking::Results);
    s["preset"] = json!("QUEENSIX");
    // QueenSix house policies 4: every event caps its blinds.
    s["blindCapPercent"] = json!(10);
    s["house"] = json!({"colourUp": "CHIP_RACE"});
    let before = app.last_position().await;
    let body = app
        .graphql(Some(&app.admin), SCHEDULE, json!({"id": "t9", "s": s}))
        .await;
    assert_eq!(code(&body), "CONTRADICTS_PRESET", "{body:#}");
    assert_eq!(
        body["errors"][0]["extensions"]["field"],
        "schedule.house.colourUp"
    );
    assert!(
        body["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("QueenSix 8"),
        "{body:#}"
    );
    assert_eq!(app.last_position().await, before, "nothing appended");
    // QueenSix's rulebook says nothing of a button draw at the final table: the host may
    // choose one; every other rule is the preset's.
    s["house"] = json!({"finalTableButtonDraw": true});
    app.admin(SCHEDULE, json!({"id": "t9", "s": s})).await;
    let events = app.store.read_stream("tournament:t9", 1).await.unwrap();
    let scheduled: Value = serde_json::from_slice(&events[0].payload).unwrap();
    let mut expected =
        league_engine::tournament::play::TournamentRules::for_preset(Preset::QueenSix);
    expected.final_table_button_draw = true;
    assert_eq!(
        scheduled["data"]["schedule"]["house"],
        serde_json::to_value(expected).unwrap(),
        "{scheduled:#}"
    );
}

async fn a_league_previews_a_formula_before_it_sets_it(app: &TestApp) {
    a_league(app).await;
    const PREVIEW: &str = "query($f: String!, $n: Int!, $b: Cents, $paid: Int) { \
        formulaPreview(input: {formula: $f, entrants: $n, buyin: $b, paid: $paid}) { place prize points } }";
    // The PokerStars leader board's published example: 3rd of 150 at a 20.00 buy-in.
    let preview = app
        .admin(
            PREVIEW,
            json!({"f": "10 * sqrt(n)/sqrt(r) * (1 + log10(buyin + 0.25))", "n": 150, "b": 2000}),
        )
        .await;
    let lines = preview["formulaPreview"].as_array().unwrap();
    assert_eq!(lines.len(), 150);
    assert_eq!(lines[2]["place"], 3);
    assert_eq!(lines[2]["points"], json!(163.09));
    // The prizes, in cents, add up to the pool.
    let paid: u64 = lines.iter().map(|l| l["prize"].as_u64().unwrap()).sum();
    assert_eq!(paid, 150 * 2000);
    // TD3's names, in any case, with the places paid.
    let preview = app
        .admin(
            PREVIEW,
            json!({"f": "(N-Rank)*3 + IF(r <= mr, if(r = mr, 5, (mr-r)*10), 0) + 20", "n": 20, "b": 2000, "paid": 4}),
        )
        .await;
    assert_eq!(preview["formulaPreview"][0]["points"], json!(107));
    // What setFormula would refuse is refused, naming the field; nothing is appended.
    let before = app.last_position().await;
    for (f, n, paid, field) in [
        ("100 / (n - r)", 10, None, "formula"),
        ("n - r + totalCost", 10, None, "formula"),
        ("n - r", 1, None, "entrants"),
        ("n - r", 10, Some(11), "paid"),
    ] {
        let body = app
            .graphql(
                Some(&app.admin),
                PREVIEW,
                json!({"f": f, "n": n, "paid": paid}),
            )
            .await;
        assert_eq!(code(&body), "BAD_INPUT", "{body:#}");
        assert_eq!(body["errors"][0]["extensions"]["field"], field, "{body:#}");
    }
    assert_eq!(app.last_position().await, before);
    // A host's token may preview; an anonymous caller may not.
    let host = app.token(Role::Host, Some("crown"), None).await;
    let body = app
        .graphql(Some(&host), PREVIEW, json!({"f": "n - r + 1", "n": 5}))
        .await;
    assert_eq!(
        body["data"]["formulaPreview"][0]["points"],
        json!(5),
        "{body:#}"
    );
    let body = app
        .graphql(None, PREVIEW, json!({"f": "n - r + 1", "n": 5}))
        .await;
    assert_eq!(code(&body), "UNAUTHENTICATED", "{body:#}");
}

async fn a_season_keeps_a_score_beside_its_points(app: &TestApp) {
    a_league(app).await;
    const RECORD: &str = "mutation($o: OutcomeInput!) { recordTournament(input: {leagueId: \"apl\", outcome: $o}) { events } }";
    // Points by the table 125, 100, 75: Ann 100 + 100, Bob 125 + 75; level on 200 (a
    // guest won the second night).
    for (id, day, field, finishes) in [
        (
            "t1",
            1,
            25,
            json!([{"player": "bob", "place": 1}, {"player": "ann", "place": 2}]),
        ),
        (
            "t2",
            2,
            50,
            json!([{"player": "ann", "place": 2}, {"player": "bob", "place": 3}]),
        ),
    ] {
        app.admin(
            RECORD,
            json!({"o": {"tournament": id, "venue": "crown", "season": "s1", "day": day,
                "buyin": 2000, "prizepool": field * 2000, "field": field, "finishes": finishes}}),
        )
        .await;
    }
    const SET: &str = "mutation($s: SeasonScoreInput) { setSeasonScore(input: {leagueId: \"apl\", season: \"s1\", score: $s}) { \
        league { seasons { id score { tournamentScore overallScore order } } } } }";
    const STANDINGS: &str =
        "{ standings(leagueId: \"apl\", season: \"s1\") { player points score separatedBy } }";
    let plain = app.admin(STANDINGS, json!({})).await;
    assert_eq!(plain["standings"][0]["score"], Value::Null);
    // TD3's log method: ln((n + 1) / r) a result, (1 - e^-average) * 100 over them.
    let set = app
        .admin(
            SET,
            json!({"s": {"tournamentScore": "log((n + 1) / r)",
                "overallScore": "(1 - exp(-average(scores))) * 100"}}),
        )
        .await;
    assert_eq!(
        set["setSeasonScore"]["league"]["seasons"][0]["score"],
        json!({"tournamentScore": "log((n + 1) / r)",
            "overallScore": "(1 - exp(-average(scores))) * 100", "order": "BREAKS_TIES"})
    );
    let standings = app.admin(STANDINGS, json!({})).await;
    // Bob: ln(26) and ln(51/3), average 3.0457: 95.24. Ann: ln(26/2) and ln(51/2),
    // average 2.9018: 94.51. Level on points, the score separates them (before wins).
    let lines = standings["standings"].as_array().unwrap();
    assert_eq!(lines[0]["player"], "bob", "{standings:#}");
    assert_eq!(lines[0]["points"], json!(200));
    assert_eq!(lines[0]["score"], json!(95.24));
    assert_eq!(lines[1]["player"], "ann");
    assert_eq!(lines[1]["points"], json!(200));
    assert_eq!(lines[1]["score"], json!(94.51));
    assert_eq!(lines[1]["separatedBy"], "Score");
    // Refusals name the formula's field and append nothing.
    let before = app.last_position().await;
    for (tournament, overall, field) in [
        ("10 / (r - 2)", "sum(scores)", "tournamentScore"),
        ("n - r + 1", "scores + 1", "overallScore"),
        ("n - r + 1", "average(scores) + r", "overallScore"),
    ] {
        let body = app
            .graphql(
                Some(&app.admin),
                SET,
                json!({"s": {"tournamentScore": tournament, "overallScore": overall}}),
            )
            .await;
        assert_eq!(code(&body), "BAD_INPUT", "{body:#}");
        assert_eq!(body["errors"][0]["extensions"]["field"], field, "{body:#}");
    }
    // `score` left out is refused naming it (`null` is how a score is taken away).
    let body = app
        .graphql(
            Some(&app.admin),
            "mutation { setSeasonScore(input: {leagueId: \"apl\", season: \"s1\"}) { events } }",
            json!({}),
        )
        .await;
    assert_eq!(code(&body), "BAD_INPUT", "{body:#}");
    assert_eq!(
        body["errors"][0]["extensions"]["field"], "score",
        "{body:#}"
    );
    // A host may not set a season's score.
    let host = app.token(Role::Host, Some("crown"), None).await;
    let body = app.graphql(Some(&host), SET, json!({"s": null})).await;
    assert_eq!(code(&body), "FORBIDDEN", "{body:#}");
    assert_eq!(app.last_position().await, before);
    // A third night puts Bob 125 points ahead; ranked by a score of second places, Ann
    // (two) is first and Bob (none) below her on the score.
    app.admin(
        RECORD,
        json!({"o": {"tournament": "t3", "venue": "crown", "season": "s1", "day": 3,
            "buyin": 2000, "prizepool": 20000, "field": 10,
            "finishes": [{"player": "bob", "place": 1}]}}),
    )
    .await;
    app.admin(
        SET,
        json!({"s": {"tournamentScore": "if(r = 2, 1, 0)", "overallScore": "sum(scores)",
            "order": "RANKS"}}),
    )
    .await;
    let ranked = app.admin(STANDINGS, json!({})).await;
    let lines = ranked["standings"].as_array().unwrap();
    assert_eq!(lines[0]["player"], "ann", "{ranked:#}");
    assert_eq!(
        (&lines[0]["points"], &lines[0]["score"]),
        (&json!(200), &json!(2))
    );
    assert_eq!(lines[1]["player"], "bob", "{ranked:#}");
    assert_eq!(
        (&lines[1]["points"], &lines[1]["score"]),
        (&json!(325), &json!(0))
    );
    assert_eq!(lines[1]["separatedBy"], "Score");
    // The same score again appends nothing.
    let again = app
        .admin(
            "mutation { setSeasonScore(input: {leagueId: \"apl\", season: \"s1\", score: \
                {tournamentScore: \"if(r = 2, 1, 0)\", overallScore: \"sum(scores)\", order: RANKS}}) { events } }",
            json!({}),
        )
        .await;
    assert_eq!(again["setSeasonScore"]["events"], 0, "{again:#}");
    let cleared = app.admin(SET, json!({"s": null})).await;
    assert_eq!(
        cleared["setSeasonScore"]["league"]["seasons"][0]["score"],
        Value::Null
    );
    let after = app.admin(STANDINGS, json!({})).await;
    assert!(
        after["standings"]
            .as_array()
            .unwrap()
            .iter()
            .all(|l| l["score"].is_null()),
        "{after:#}"
    );
    assert_eq!(after["standings"][0]["player"], "bob");
}

league_tests::on_every_backend!(
    a_season_keeps_a_score_beside_its_points,
    a_league_previews_a_formula_before_it_sets_it,
    the_preset_decides_the_house_rules_and_an_override_is_named,
    the_server_makes_every_draw_and_the_log_proves_it,
    after_a_deal_the_prizes_are_the_deal_s,
    a_tournament_is_recorded_only_into_a_season_of_its_venue_s_league,
    only_members_are_registered_and_a_walk_in_becomes_one,
    a_host_cannot_record_another_venue_s_tournament,
    an_undersized_raise_brought_up_is_reported_in_the_answer,
    the_tournament_view_shows_its_clock_and_what_is_pending,
    a_dealt_table_is_played_to_a_winner_from_what_its_view_offers,
    an_idempotency_key_reused_for_another_request_is_refused,
    every_error_has_a_code_and_reads_as_words,
    a_subscription_to_an_unknown_id_is_answered_at_once,
    tokens_are_issued_only_for_venues_and_players_that_exist,
    graphiql_is_served_by_the_binary_alone,
);
