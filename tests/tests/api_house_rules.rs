//! A house's money and entry rules through the API, as a host scheduling a night and a
//! player entering it meet them: the invitational's schedule refused when it breaks its book
//! (with the rule and the field), and its entry by invitation only; and what a table's
//! screens are told of the pot where the house does not count no-limit pots; players out
//! at separate tables in an order nobody knows, placed as the house says; and an unsold
//! seat's stack placed and removed by the host.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test")]

use league_api::auth::Role;
use league_engine::rules::Preset;
use league_engine::tournament::play::Tracking;
use league_engine::tournament::sim::weekly_schedule;
use league_tests::{
    REGISTER, SCHEDULE, TestApp, a_league, code, on_every_backend, recorded, seed, u,
};
use serde_json::{Value, json};

fn invitational() -> Value {
    let schedule = weekly_schedule(
        "crown",
        Preset::Invitational,
        Tracking::Dealt,
        seed(1).commitment(),
    );
    league_api::schema::tournaments::inputs::schedule_input(&schedule)
}

async fn an_invitational_schedule_that_breaks_its_book_is_refused_with_the_rule(app: &TestApp) {
    a_league(app).await;
    let host = app.token(Role::Host, Some("crown"), None).await;
    let last = app.last_position().await;
    let add_on = json!({"price": {"price": 1000}, "chips": 3000, "perPlayer": 1, "untilLevel": 2});
    for (change, field, rule) in [
        (json!({"addOns": add_on}), "schedule.addOns", "1.4"),
        (json!({"houseCut": "FEES"}), "schedule.houseCut", "1.5"),
        (
            json!({"lateRegistration": {"untilLevel": 2}}),
            "schedule.lateRegistration",
            "1.2",
        ),
    ] {
        let mut schedule = invitational();
        for (k, v) in change.as_object().unwrap() {
            schedule[k] = v.clone();
        }
        let body = app
            .graphql(Some(&host), SCHEDULE, json!({"id": "inv", "s": schedule}))
            .await;
        assert_eq!(code(&body), "CONTRADICTS_PRESET", "{field}: {body:#}");
        let extensions = &body["errors"][0]["extensions"];
        assert_eq!(extensions["field"], field, "{body:#}");
        assert_eq!(extensions["rule"], rule, "{body:#}");
        let message = body["errors"][0]["message"].as_str().unwrap();
        assert!(
            message.starts_with(&format!("invitational {rule}:")),
            "{message}"
        );
    }
    // A small blind at three quarters of the big blind (section 3).
    let mut schedule = invitational();
    schedule["levels"][0]["play"]["smallBlind"] = json!(75);
    schedule["levels"][0]["play"]["bigBlind"] = json!(100);
    let body = app
        .graphql(Some(&host), SCHEDULE, json!({"id": "inv", "s": schedule}))
        .await;
    assert_eq!(code(&body), "CONTRADICTS_PRESET", "{body:#}");
    assert_eq!(body["errors"][0]["extensions"]["rule"], "3", "{body:#}");
    assert_eq!(app.last_position().await, last, "refusals append nothing");
    // As the book has it: taken.
    let body = app
        .graphql(
            Some(&host),
            SCHEDULE,
            json!({"id": "inv", "s": invitational()}),
        )
        .await;
    assert!(body.get("errors").is_none(), "{body:#}");
}

async fn invitational_1_1_by_invitation_only_the_staff_register_and_no_show_ups(app: &TestApp) {
    // Invitational 1.1: "All participants are joining the tournament by invitation only. We
    // do not allow 'show-ups' to participate."
    a_league(app).await;
    app.admin(SCHEDULE, json!({"id": "inv", "s": invitational()}))
        .await;
    let host = app.token(Role::Host, Some("crown"), None).await;
    let ann = app.token(Role::Player, None, Some("ann")).await;
    let last = app.last_position().await;
    // A player cannot enter themselves.
    let body = app
        .graphql(Some(&ann), REGISTER, json!({"t": "inv", "p": "ann"}))
        .await;
    assert_eq!(code(&body), "FORBIDDEN", "{body:#}");
    assert!(
        body["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("invitational 1.1"),
        "{body:#}"
    );
    // A walk-in is a show-up.
    let body = app
        .graphql(
            Some(&host),
            "mutation { register(input: {tournamentId: \"inv\", player: \"zoe\", walkIn: {name: \"Zoe\", membership: \"77\"}}) { events } }",
            json!({}),
        )
        .await;
    assert_eq!(code(&body), "CONTRADICTS_PRESET", "{body:#}");
    assert_eq!(body["errors"][0]["extensions"]["field"], "walkIn");
    assert_eq!(app.last_position().await, last, "refusals append nothing");
    // The host registers the players invited.
    let body = app
        .graphql(Some(&host), REGISTER, json!({"t": "inv", "p": "ann"}))
        .await;
    assert!(body.get("errors").is_none(), "{body:#}");
    // Under another house a player enters themselves, as before.
    let wph = weekly_schedule("crown", Preset::Wph, Tracking::Dealt, seed(1).commitment());
    let wph = league_api::schema::tournaments::inputs::schedule_input(&wph);
    app.admin(SCHEDULE, json!({"id": "open", "s": wph})).await;
    let body = app
        .graphql(Some(&ann), REGISTER, json!({"t": "open", "p": "ann"}))
        .await;
    assert!(body.get("errors").is_none(), "{body:#}");
}

async fn wph_38_and_oracle_no_limit_pots_are_counted_for_auditors_only(app: &TestApp) {
    // WPH 38: "Players are entitled to be informed of the pot size in pot-limit games only.
    // Dealers will not count the pot in limit and no-limit games." Oracle's "Pot Size" says
    // the same; QueenSix's book is silent.
    a_league(app).await;
    let query = "query($t: ID!) { table(tournamentId: $t, table: 1) { inHand pot pots { amount seats } seats { seat bet } } }";
    let start = "mutation($t: ID!) { startHand(input: {tournamentId: $t, table: 1}) { events } }";
    let ann = app.token(Role::Player, None, Some("ann")).await;
    let host = app.token(Role::Host, Some("crown"), None).await;
    let auditor = app.league_token(Role::Auditor, "apl").await;
    for (id, preset, counted) in [
        ("w", Preset::Wph, false),
        ("o", Preset::Oracle, false),
        ("q", Preset::QueenSix, true),
    ] {
        recorded(app, id, preset).await;
        // Between hands the pot is 0 for everyone.
        let body = app.graphql(Some(&ann), query, json!({"t": id})).await;
        assert_eq!(body["data"]["table"]["pot"], 0, "{body:#}");
        app.admin(start, json!({"t": id})).await;
        let body = app.graphql(Some(&auditor), query, json!({"t": id})).await;
        let told = &body["data"]["table"];
        assert_eq!(told["inHand"], true, "{body:#}");
        let bets: u64 = told["seats"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| u(&s["bet"]))
            .sum();
        assert!(bets > 0 && u(&told["pot"]) >= bets, "{body:#}");
        assert!(!told["pots"].as_array().unwrap().is_empty(), "{body:#}");
        assert_eq!(app.admin(query, json!({"t": id})).await["table"], *told);
        for (who, token) in [
            ("a player", Some(&ann)),
            ("the host", Some(&host)),
            ("a screen", None),
        ] {
            let body = app
                .graphql(token.map(String::as_str), query, json!({"t": id}))
                .await;
            assert!(body.get("errors").is_none(), "{body:#}");
            let view = &body["data"]["table"];
            if counted {
                assert_eq!(view, told, "{preset:?}: {who}");
                continue;
            }
            assert_eq!(
                view["pot"],
                Value::Null,
                "{preset:?}: {who} is told the pot: {body:#}"
            );
            assert_eq!(
                view["seats"], told["seats"],
                "the bets are in front of each seat"
            );
            let pots = view["pots"].as_array().unwrap();
            assert_eq!(pots.len(), told["pots"].as_array().unwrap().len());
            for (p, t) in pots.iter().zip(told["pots"].as_array().unwrap()) {
                assert_eq!(p["amount"], Value::Null, "{preset:?}: {who}");
                assert_eq!(p["seats"], t["seats"], "who can win each pot is shown");
            }
        }
    }
}

/// An Oracle (or QueenSix) night tracked by results, eight players at two tables of four,
/// started.
async fn two_tables(app: &TestApp, id: &str, preset: Preset) -> [Vec<String>; 2] {
    let schedule = weekly_schedule("crown", preset, Tracking::Results, seed(1).commitment());
    let mut schedule = league_api::schema::tournaments::inputs::schedule_input(&schedule);
    schedule["tableSize"] = json!(4);
    let body = app.admin(SCHEDULE, json!({"id": id, "s": schedule})).await;
    assert!(body.get("errors").is_none(), "{body:#}");
    for n in 1..=8 {
        let p = format!("{}{n}", id);
        app.admin(
            "mutation($p: ID!) { registerPlayer(input: {leagueId: \"apl\", player: $p, name: $p, membership: $p}) { events } }",
            json!({"p": p}),
        )
        .await;
        app.admin(REGISTER, json!({"t": id, "p": p})).await;
    }
    let body = app
        .admin(
            "mutation($t: ID!) { start(input: {tournamentId: $t}) { events } }",
            json!({"t": id}),
        )
        .await;
    assert!(body.get("errors").is_none(), "{body:#}");
    let body = app
        .admin(
            "query($t: ID!) { tournament(id: $t) { tables { table seats { player } } } }",
            json!({"t": id}),
        )
        .await;
    let tables = body["tournament"]["tables"].as_array().unwrap();
    assert_eq!(tables.len(), 2, "{body:#}");
    let at = |t: usize| -> Vec<String> {
        tables[t]["seats"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["player"].as_str().unwrap().to_owned())
            .collect()
    };
    [at(0), at(1)]
}

async fn oracle_3_the_host_records_players_out_in_an_unknown_order_and_they_share(app: &TestApp) {
    // Oracle, tournament rule 3: "In the event it is impossible to determine the order of
    // elimination, they will equally split the prizes involved."
    a_league(app).await;
    let host = app.token(Role::Host, Some("crown"), None).await;
    let eliminate = "mutation($t: ID!, $p: [ID!]!, $by: ID, $u: Boolean) { eliminate(input: {tournamentId: $t, players: $p, by: $by, orderUnknown: $u}) { events } }";
    let places = "query($t: ID!) { tournament(id: $t) { places { player place shared } } }";
    let [one, two] = two_tables(app, "o", Preset::Oracle).await;
    let last = app.last_position().await;
    // Two at one table: placed by their chips, not in an unknown order.
    let body = app
        .graphql(
            Some(&host),
            eliminate,
            json!({"t": "o", "p": [two[0], two[1]], "u": true}),
        )
        .await;
    assert_eq!(code(&body), "RULE_VIOLATION", "{body:#}");
    assert!(
        body["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("Oracle tournament 3")
    );
    // Nobody knocked out players at two tables.
    let body = app
        .graphql(
            Some(&host),
            eliminate,
            json!({"t": "o", "p": [one[0], two[0]], "by": one[1], "u": true}),
        )
        .await;
    assert_eq!(code(&body), "BAD_INPUT", "{body:#}");
    assert_eq!(body["errors"][0]["extensions"]["field"], "by", "{body:#}");
    assert_eq!(app.last_position().await, last, "refusals append nothing");
    let body = app
        .graphql(
            Some(&host),
            eliminate,
            json!({"t": "o", "p": [one[0], two[0]], "u": true}),
        )
        .await;
    assert!(body.get("errors").is_none(), "{body:#}");
    let body = app.admin(places, json!({"t": "o"})).await;
    let place = |p: &str| {
        body["tournament"]["places"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["player"] == p)
            .map(|x| (u(&x["place"]), u(&x["shared"])))
            .unwrap()
    };
    assert_eq!(place(&one[0]), (7, 2), "{body:#}");
    assert_eq!(place(&two[0]), (7, 2), "{body:#}");
    // QueenSix's book has no such rule: the host records the order.
    let [one, two] = two_tables(app, "q", Preset::QueenSix).await;
    let body = app
        .graphql(
            Some(&host),
            eliminate,
            json!({"t": "q", "p": [one[0], two[0]], "u": true}),
        )
        .await;
    assert_eq!(code(&body), "RULE_VIOLATION", "{body:#}");
    assert!(
        body["errors"][0]["message"]
            .as_str()
            .unwrap()
            .starts_with("queensix:"),
        "{body:#}"
    );
}

async fn invitational_2_7_the_host_places_an_unsold_seat_s_stack_and_removes_it(app: &TestApp) {
    // Invitational 2.7: "Unsold seats will have a chip stack, and blinds will be taken from
    // their stacks. If the seat remains empty, the stacks will be removed by the director."
    a_league(app).await;
    recorded(app, "u", Preset::Invitational).await;
    let host = app.token(Role::Host, Some("crown"), None).await;
    let other = app.token(Role::Host, Some("elsewhere"), None).await;
    let ann = app.token(Role::Player, None, Some("ann")).await;
    let view = "query { table(tournamentId: \"u\", table: 1) { inHand seats { seat } unsoldSeats { seat chips inHand bet } } tournament(id: \"u\") { remaining field } }";
    let place = "mutation($s: Int!) { placeUnsoldStack(input: {tournamentId: \"u\", table: 1, seat: $s}) { events table(table: 1) { unsoldSeats { seat chips } } } }";
    let remove = "mutation($s: Int!, $r: String!) { removeUnsoldStack(input: {tournamentId: \"u\", table: 1, seat: $s, reason: $r}) { events } }";
    let before = app.admin(view, json!({})).await;
    let taken: Vec<u64> = before["table"]["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| u(&s["seat"]))
        .collect();
    let seat = (0..9).find(|s| !taken.contains(s)).unwrap();

    // Only the venue's staff; a seat taken or off the table is refused; nothing appended.
    let logged = app.stream_events("tournament:u").await.len();
    let last = app.last_position().await;
    for token in [&other, &ann] {
        let body = app.graphql(Some(token), place, json!({"s": seat})).await;
        assert_eq!(code(&body), "FORBIDDEN", "{body:#}");
    }
    for s in [taken[0], 9] {
        let body = app.graphql(Some(&host), place, json!({"s": s})).await;
        assert_eq!(code(&body), "RULE_VIOLATION", "{body:#}");
    }
    assert_eq!(app.last_position().await, last, "a refusal appends nothing");

    let body = app.graphql(Some(&host), place, json!({"s": seat})).await;
    assert!(body.get("errors").is_none(), "{body:#}");
    let placed = &body["data"]["placeUnsoldStack"];
    assert_eq!(placed["events"], 1, "{body:#}");
    assert_eq!(
        placed["table"]["unsoldSeats"],
        json!([{"seat": seat, "chips": 5000}])
    );
    let events = app.stream_events("tournament:u").await;
    let events = &events[logged..];
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(events[0].0, "UnsoldStackPlaced");
    assert!(
        events[0].2["data"]["rule"]
            .as_str()
            .unwrap()
            .starts_with("invitational 2.7"),
        "{events:?}"
    );
    // Nobody's stack: not a player left, not an entry.
    let now = app.admin(view, json!({})).await;
    assert_eq!(now["tournament"], before["tournament"]);
    assert_eq!(now["table"]["seats"], before["table"]["seats"]);

    // Dealt in and blinded: its chips and bet are the stack it was.
    app.admin(
        "mutation { startHand(input: {tournamentId: \"u\", table: 1}) { events } }",
        json!({}),
    )
    .await;
    let during = app.admin(view, json!({})).await;
    let unsold = &during["table"]["unsoldSeats"][0];
    assert_eq!(during["table"]["inHand"], true);
    assert_eq!(u(&unsold["chips"]) + u(&unsold["bet"]), 5000, "{during:#}");
    let body = app
        .graphql(Some(&host), remove, json!({"s": seat, "r": "nobody came"}))
        .await;
    assert_eq!(code(&body), "RULE_VIOLATION", "{body:#}");
    let body = app
        .admin(
            "mutation { voidHand(input: {tournamentId: \"u\", table: 1, kind: MISDEAL, reason: \"the first card was exposed\"}) { events } }",
            json!({}),
        )
        .await;
    assert!(body.get("errors").is_none(), "{body:#}");

    // The director removes it, with a reason.
    let body = app
        .graphql(Some(&host), remove, json!({"s": seat, "r": " "}))
        .await;
    assert_eq!(code(&body), "BAD_INPUT", "{body:#}");
    assert_eq!(
        body["errors"][0]["extensions"]["field"], "reason",
        "{body:#}"
    );
    let logged = app.stream_events("tournament:u").await.len();
    let body = app
        .graphql(
            Some(&host),
            remove,
            json!({"s": seat, "r": "nobody came for the seat"}),
        )
        .await;
    assert!(body.get("errors").is_none(), "{body:#}");
    let events = app.stream_events("tournament:u").await;
    let events = &events[logged..];
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(events[0].0, "UnsoldStackRemoved");
    assert_eq!(events[0].2["data"]["chips"], 5000, "{events:?}");
    let after = app.admin(view, json!({})).await;
    assert_eq!(after["table"]["unsoldSeats"], json!([]));
    let body = app
        .graphql(Some(&host), remove, json!({"s": seat, "r": "again"}))
        .await;
    assert_eq!(code(&body), "RULE_VIOLATION", "{body:#}");

    // A house whose book has no unsold seats.
    recorded(app, "w", Preset::Wph).await;
    let body = app
        .graphql(
            Some(&host),
            "mutation($s: Int!) { placeUnsoldStack(input: {tournamentId: \"w\", table: 1, seat: $s}) { events } }",
            json!({"s": seat}),
        )
        .await;
    assert_eq!(code(&body), "RULE_VIOLATION", "{body:#}");
    assert!(
        body["errors"][0]["message"]
            .as_str()
            .unwrap()
            .starts_with("wph:"),
        "{body:#}"
    );
}

on_every_backend!(
    an_invitational_schedule_that_breaks_its_book_is_refused_with_the_rule,
    invitational_1_1_by_invitation_only_the_staff_register_and_no_show_ups,
    wph_38_and_oracle_no_limit_pots_are_counted_for_auditors_only,
    oracle_3_the_host_records_players_out_in_an_unknown_order_and_they_share,
    invitational_2_7_the_host_places_an_unsold_seat_s_stack_and_removes_it,
);
