//! The GraphQL service end to end, who may do what: hole cards kept private, rule errors
//! with stable codes, venues' hosts, every mutation against every role, the rate limit.
//! Each scenario runs on its own server and database, on SQLite and (with
//! `LEAGUE_TEST_POSTGRES_URL`) PostgreSQL.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use futures_util::SinkExt as _;
use league_api::auth::Role;
use league_engine::tournament::play::Tracking;
use league_tests::{
    ACT, Backend, REGISTER, SCHEDULE, TABLE, TOKENS_LEAGUE, TestApp, a_league,
    a_night_in_the_standings, cards_shown, closed_with, code, metrics_page, next_message, schedule,
    series, spawn_app_with, started, text,
};
use serde_json::{Value, json};

async fn a_dealt_hand_keeps_cards_private_and_reports_rule_errors_with_codes(app: &TestApp) {
    started(app, "t2", "crown", Tracking::Dealt, &["ann", "bob"]).await;
    app.admin(
        "mutation { startHand(input: {tournamentId: \"t2\", table: 1}) { events } }",
        json!({}),
    )
    .await;
    let ann = app.token(Role::Player, None, Some("ann")).await;
    let bob = app.token(Role::Player, None, Some("bob")).await;

    // Privacy: each player sees their own cards only; the public none.
    let view = app.graphql(Some(&ann), TABLE, json!({"t": "t2"})).await;
    let seats = view["data"]["table"]["seats"].as_array().unwrap().clone();
    let seat_of = |p: &str| {
        seats
            .iter()
            .find(|s| s["player"] == p)
            .map(|s| s["seat"].as_u64().unwrap())
            .unwrap()
    };
    let (ann_seat, bob_seat) = (seat_of("ann"), seat_of("bob"));
    for s in &seats {
        if s["player"] == "ann" {
            assert_eq!(s["cards"].as_array().unwrap().len(), 2, "{view:#}");
        } else {
            assert!(s["cards"].is_null(), "ann sees another's cards: {view:#}");
        }
    }
    let public = app.graphql(None, TABLE, json!({"t": "t2"})).await;
    for s in public["data"]["table"]["seats"].as_array().unwrap() {
        assert!(s["cards"].is_null(), "{public:#}");
    }

    // Rule errors come with stable codes, and append nothing.
    let to_act = view["data"]["table"]["toAct"].as_u64().unwrap();
    let other = if to_act == ann_seat {
        bob_seat
    } else {
        ann_seat
    };
    let before = app.last_position().await;
    let body = app
        .graphql(
            Some(&app.admin),
            ACT,
            json!({"t": "t2", "table": 1, "seat": other, "a": "CHECK"}),
        )
        .await;
    assert_eq!(code(&body), "NOT_YOUR_TURN", "{body:#}");

    // A player may act only for their own seat.
    let (mine, not_mine) = if to_act == ann_seat {
        (&ann, &bob)
    } else {
        (&bob, &ann)
    };
    let body = app
        .graphql(
            Some(not_mine),
            ACT,
            json!({"t": "t2", "table": 1, "seat": to_act, "a": "CALL"}),
        )
        .await;
    assert_eq!(code(&body), "FORBIDDEN", "{body:#}");
    assert_eq!(app.last_position().await, before);

    // Heads-up: the button calls, the big blind checks; on the flop a bet of 1 is too small.
    // The call's answer carries the table as the caller may see it, at the version it
    // produced: their own cards, nobody else's.
    let body = app
        .graphql(
            Some(mine),
            "mutation($t: ID!, $seat: Int!) { act(input: {tournamentId: $t, table: 1, seat: $seat, action: CALL}) { version table(table: 1) { version seats { player cards } } } }",
            json!({"t": "t2", "seat": to_act}),
        )
        .await;
    assert!(body.get("errors").is_none(), "{body:#}");
    let answer = &body["data"]["act"];
    assert_eq!(answer["table"]["version"], answer["version"], "{body:#}");
    let me = if to_act == ann_seat { "ann" } else { "bob" };
    assert_eq!(cards_shown(&answer["table"]), [me], "{body:#}");
    app.admin(
        ACT,
        json!({"t": "t2", "table": 1, "seat": other, "a": "CHECK"}),
    )
    .await;
    let view = app.admin(TABLE, json!({"t": "t2"})).await;
    assert_eq!(
        view["table"]["board"].as_array().unwrap().len(),
        3,
        "{view:#}"
    );
    let first = view["table"]["toAct"].as_u64().unwrap();
    let before = app.last_position().await;
    let body = app
        .graphql(
            Some(&app.admin),
            ACT,
            json!({"t": "t2", "table": 1, "seat": first, "a": "BET", "amount": 1}),
        )
        .await;
    assert_eq!(code(&body), "BET_BELOW_MINIMUM", "{body:#}");
    assert_eq!(body["errors"][0]["extensions"]["min"], 50, "{body:#}");
    assert_eq!(body["errors"][0]["extensions"]["got"], 1, "{body:#}");
    assert_eq!(app.last_position().await, before);

    // The running hand's hole cards and deck seed are withheld from the auditor's log.
    let auditor = app.token(Role::Auditor, None, None).await;
    let log = app
        .graphql(
            Some(&auditor),
            "{ events(first: 1000) { events { eventType redacted payload } hasNextPage } }",
            json!({}),
        )
        .await;
    let events = log["data"]["events"]["events"].as_array().unwrap();
    let redacted = events.iter().filter(|e| e["redacted"] == true).count();
    assert_eq!(
        redacted, 3,
        "two hole-card deals and the deck seal: {log:#}"
    );
    assert!(!log.to_string().contains("HoleCardsDealt"), "{log:#}");
}

async fn a_host_of_another_venue_is_forbidden_and_nothing_is_appended(app: &TestApp) {
    // Crown in the league apl, with ann a member.
    a_league(app).await;
    app.admin(
        SCHEDULE,
        json!({"id": "t3", "s": schedule("crown", Tracking::Results)}),
    )
    .await;
    let host = app.token(Role::Host, Some("anchor"), None).await;
    let before = app.last_position().await;
    let body = app
        .graphql(Some(&host), REGISTER, json!({"t": "t3", "p": "ann"}))
        .await;
    assert_eq!(code(&body), "FORBIDDEN", "{body:#}");
    let body = app
        .graphql(None, REGISTER, json!({"t": "t3", "p": "ann"}))
        .await;
    assert_eq!(code(&body), "UNAUTHENTICATED", "{body:#}");
    assert_eq!(app.last_position().await, before);

    // The host of the venue may.
    let own = app.token(Role::Host, Some("crown"), None).await;
    let body = app
        .graphql(Some(&own), REGISTER, json!({"t": "t3", "p": "ann"}))
        .await;
    assert!(body.get("errors").is_none(), "{body:#}");
}

/// Refusals say nothing of cards the caller may not see: a card held face down by another
/// seat is refused without naming it or its holder, and in a dealt hand naming the cards to
/// show is refused alike whether the guess is right or wrong (else it would be an oracle).
async fn refusals_reveal_no_hidden_card(app: &TestApp) {
    // The players' tokens first: they make ann, bob and cat members of the league that the
    // host's token then adds crown to.
    let mut players = Vec::new();
    for p in ["ann", "bob", "cat"] {
        players.push(app.token(Role::Player, None, Some(p)).await);
    }
    let host = app.token(Role::Host, Some("crown"), None).await;
    // Recorded tracking: the host records ann's cards, then mistypes one of them for bob
    // and for the board.
    started(
        app,
        "r1",
        "crown",
        Tracking::Recorded,
        &["ann", "bob", "cat"],
    )
    .await;
    app.admin(
        "mutation { startHand(input: {tournamentId: \"r1\", table: 1}) { events } }",
        json!({}),
    )
    .await;
    let view = app.admin(TABLE, json!({"t": "r1"})).await;
    let seats = view["table"]["seats"].as_array().unwrap().clone();
    let seat_of = |p: &str| {
        seats
            .iter()
            .find(|s| s["player"] == p)
            .map(|s| s["seat"].as_u64().unwrap())
            .unwrap()
    };
    let (ann, bob) = (seat_of("ann"), seat_of("bob"));
    const HOLE: &str = "mutation($t: ID!, $seat: Int!, $c: [String!]!) { dealHole(input: {tournamentId: $t, table: 1, seat: $seat, cards: $c}) { events } }";
    let body = app
        .graphql(
            Some(&host),
            HOLE,
            json!({"t": "r1", "seat": ann, "c": ["Qs", "7h"]}),
        )
        .await;
    assert!(body.get("errors").is_none(), "{body:#}");
    let before = app.last_position().await;
    let body = app
        .graphql(
            Some(&host),
            HOLE,
            json!({"t": "r1", "seat": bob, "c": ["2c", "Qs"]}),
        )
        .await;
    assert_eq!(code(&body), "BAD_INPUT", "{body:#}");
    let message = body["errors"][0]["message"].as_str().unwrap();
    assert_eq!(message, format!("that card cannot be dealt to seat {bob}"));
    let body = app
        .graphql(
            Some(&players[1]),
            HOLE,
            json!({"t": "r1", "seat": bob, "c": ["2c", "Qs"]}),
        )
        .await;
    assert_eq!(code(&body), "FORBIDDEN", "{body:#}");
    assert_eq!(app.last_position().await, before);
    // Nothing in any refusal names the hidden card or the seat holding it.
    for c in [["2c", "Qs"], ["7h", "3d"]] {
        let body = app
            .graphql(Some(&host), HOLE, json!({"t": "r1", "seat": bob, "c": c}))
            .await;
        let text = body["errors"].to_string();
        assert!(!text.contains("Qs") && !text.contains("7h"), "{body:#}");
        assert!(!text.contains(&format!("seat {ann}")), "{body:#}");
        assert!(!text.contains("in play"), "{body:#}");
    }
    assert_eq!(app.last_position().await, before);

    // A dealt hand, heads-up, checked down to the showdown.
    started(app, "d1", "crown", Tracking::Dealt, &["ann", "bob"]).await;
    app.admin(
        "mutation { startHand(input: {tournamentId: \"d1\", table: 1}) { events } }",
        json!({}),
    )
    .await;
    const STATE: &str = "query($t: ID!) { table(tournamentId: $t, table: 1) { toAct toShow seats { seat player cards } legalActions { canCheck } } }";
    let shower = loop {
        let view = app.admin(STATE, json!({"t": "d1"})).await;
        if let Some(seat) = view["table"]["toShow"].as_u64() {
            break view["table"]["seats"]
                .as_array()
                .unwrap()
                .iter()
                .find(|s| s["seat"] == seat)
                .unwrap()
                .clone();
        }
        let seat = view["table"]["toAct"].as_u64().expect("someone acts");
        let action = if view["table"]["legalActions"]["canCheck"] == true {
            "CHECK"
        } else {
            "CALL"
        };
        app.admin(
            ACT,
            json!({"t": "d1", "table": 1, "seat": seat, "a": action}),
        )
        .await;
    };
    let seat = shower["seat"].as_u64().unwrap();
    let own = if shower["player"] == "ann" {
        &players[0]
    } else {
        &players[1]
    };
    let mine = app.graphql(Some(own), STATE, json!({"t": "d1"})).await;
    let right: Vec<Value> = mine["data"]["table"]["seats"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["seat"] == seat)
        .unwrap()["cards"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(right.len(), 2, "{mine:#}");
    let wrong = if right.contains(&json!("2c")) || right.contains(&json!("3d")) {
        json!(["4h", "5s"])
    } else {
        json!(["2c", "3d"])
    };
    const SHOW: &str = "mutation($t: ID!, $seat: Int!, $c: [String!]) { show(input: {tournamentId: $t, table: 1, seat: $seat, cards: $c}) { events } }";
    let before = app.last_position().await;
    let answers: Vec<Value> = [json!(right), wrong]
        .into_iter()
        .map(|c| json!({"t": "d1", "seat": seat, "c": c}))
        .collect();
    let mut refusals = Vec::new();
    for variables in answers {
        let body = app.graphql(Some(&host), SHOW, variables).await;
        let mut refusal = body["errors"][0].clone();
        // Each request's own id differs by design; everything else must not.
        let id = refusal["extensions"]
            .as_object_mut()
            .and_then(|e| e.remove("requestId"));
        assert!(id.is_some(), "{refusal:#}");
        refusals.push(refusal);
    }
    assert_eq!(refusals[0], refusals[1], "a right and a wrong guess differ");
    assert_eq!(
        refusals[0]["extensions"]["code"], "RULE_VIOLATION",
        "{refusals:#?}"
    );
    assert_eq!(app.last_position().await, before);
    // Shown without naming them, as the engine dealt them.
    let body = app
        .graphql(
            Some(&host),
            SHOW,
            json!({"t": "d1", "seat": seat, "c": null}),
        )
        .await;
    assert!(body.get("errors").is_none(), "{body:#}");
}

/// Quantities beyond the documented maxima, malformed ids and names with control
/// characters are refused with `BAD_INPUT` naming the field, and nothing is appended.
async fn out_of_range_values_and_bad_ids_are_refused(app: &TestApp) {
    a_league(app).await;
    let before = app.last_position().await;
    let good = schedule("crown", Tracking::Results);
    let mut cases: Vec<(&str, Value)> = Vec::new();
    let mut s = good.clone();
    s["entry"]["price"] = json!(u64::MAX);
    cases.push(("a buy-in of 2^64-1", s));
    let mut s = good.clone();
    s["entry"]["fee"] = json!(10_000_000_001u64);
    cases.push(("a fee over the maximum", s));
    let mut s = good.clone();
    s["guarantee"] = json!(u64::MAX - 1);
    cases.push(("a guarantee near the top of the range", s));
    let mut s = good.clone();
    s["startingChips"] = json!(2_000_000_000_000u64);
    s["chipUnit"] = json!(1_000_000_000_000u64);
    cases.push(("a starting stack over the maximum", s));
    for name in [
        json!(""),
        json!("   "),
        json!("Tuesday\u{0}"),
        json!("x".repeat(201)),
    ] {
        let mut s = good.clone();
        s["name"] = name;
        cases.push(("a bad name", s));
    }
    for (what, s) in &cases {
        let body = app
            .graphql(Some(&app.admin), SCHEDULE, json!({"id": "h1", "s": s}))
            .await;
        assert_eq!(code(&body), "BAD_INPUT", "{what}: {body:#}");
        assert_eq!(
            body["errors"][0]["extensions"]["field"], "schedule",
            "{what}: {body:#}"
        );
    }
    // A malformed id has its own code.
    let bad_id = |body: &Value| {
        assert_eq!(code(body), "BAD_ID", "{body:#}");
        assert_eq!(body["errors"][0]["extensions"]["field"], "id", "{body:#}");
    };
    for id in ["", "a b", "t:1", &"t".repeat(65), "t\u{0}"] {
        let body = app
            .graphql(Some(&app.admin), SCHEDULE, json!({"id": id, "s": good}))
            .await;
        bad_id(&body);
    }
    let body = app
        .graphql(
            Some(&app.admin),
            "mutation($id: ID!) { createLeague(input: {id: $id, name: \"L\"}) { events } }",
            json!({"id": ""}),
        )
        .await;
    bad_id(&body);
    const MEMBER: &str = "mutation($p: ID!, $n: String!) { registerPlayer(input: {leagueId: \"apl\", player: $p, name: $n, membership: \"9\"}) { events } }";
    for (player, name) in [
        ("", "Zoe"),
        ("zoe zed", "Zoe"),
        ("zoe", "Zoe\u{0}"),
        ("zoe", "Zoe\nZed"),
        ("zoe", ""),
    ] {
        let body = app
            .graphql(Some(&app.admin), MEMBER, json!({"p": player, "n": name}))
            .await;
        let expected = if league_engine::units::is_id(player) {
            "BAD_INPUT"
        } else {
            "BAD_ID"
        };
        assert_eq!(code(&body), expected, "{player:?} {name:?}: {body:#}");
    }
    let long = "é".repeat(201);
    let body = app
        .graphql(Some(&app.admin), MEMBER, json!({"p": "zoe", "n": long}))
        .await;
    assert_eq!(code(&body), "BAD_INPUT", "{body:#}");
    assert_eq!(app.last_position().await, before, "something was appended");

    // The most the documented maxima allow is accepted, and the pool it makes is paid.
    let mut s = good.clone();
    s["entry"] = json!({"price": 10_000_000_000u64, "fee": 10_000_000_000u64});
    s["guarantee"] = json!(10_000_000_000u64);
    let body = app
        .graphql(Some(&app.admin), SCHEDULE, json!({"id": "h2", "s": s}))
        .await;
    assert!(body.get("errors").is_none(), "{body:#}");
}

/// Once an address has used its allowance of failed authentications, a token the instance
/// has already checked is still served on PostgreSQL (one device retrying a bad token does
/// not lock out the others behind the address); on SQLite, which keeps no checked tokens,
/// it waits like any other.
async fn a_checked_token_outlasts_another_devices_failures(app: &TestApp) {
    // On PostgreSQL, once the server's listener is connected (connecting bumps the
    // generation, which would forget what was checked before it).
    let started = std::time::Instant::now();
    while app.store.token_generation() == Some(0) {
        assert!(
            started.elapsed().as_secs() < 10,
            "the listener never connects"
        );
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    let me = "{ me { role } }";
    let body = app.graphql(Some(&app.admin), me, json!({})).await;
    assert!(body.get("errors").is_none(), "{body:#}");
    for n in 0..30 {
        let guess = TestApp::bearer(&format!("league_{n:064}"));
        assert_eq!(app.post_raw(guess, me).await.0, 401);
    }
    let guess = TestApp::bearer(&format!("league_{:064}", 30));
    assert_eq!(
        app.post_raw(guess, me).await.0,
        429,
        "the address has used its allowance"
    );
    let (status, _, _) = app.post_raw(TestApp::bearer(&app.admin), me).await;
    let expected = if app.store.token_generation().is_some() {
        200
    } else {
        429
    };
    assert_eq!(status, expected);
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Who {
    Anonymous,
    /// An admin of every league.
    Admin,
    /// An admin of the league `apl` (the tournament's venue is one of its venues).
    LeagueAdmin,
    /// An admin of another league.
    OtherAdmin,
    /// A host of the tournament's venue.
    Host,
    /// A host of another league's venue.
    OtherHost,
    /// An auditor of every league.
    Auditor,
    /// An auditor of another league.
    OtherAuditor,
    /// The player the mutation names (seated in the tournament).
    Player,
    /// Another player at the same table.
    TableMate,
    /// A player of another league (not in the tournament).
    Stranger,
}

/// Who may send a mutation.
#[derive(Clone, Copy)]
enum May {
    /// An admin of every league only.
    Operator,
    /// The league's admins.
    Admin,
    /// The league's admins and the venue's hosts.
    Staff,
    /// The staff and the player named (registration, or their own seat).
    StaffOrPlayer,
    /// The staff and any player registered in the tournament.
    StaffOrEntrant,
    /// The staff and the table mate (bob), at his own seat.
    StaffOrTableMate,
}

impl May {
    fn allows(self, who: Who) -> bool {
        match self {
            May::Operator => who == Who::Admin,
            May::Admin => matches!(who, Who::Admin | Who::LeagueAdmin),
            May::Staff => matches!(who, Who::Admin | Who::LeagueAdmin | Who::Host),
            May::StaffOrPlayer => {
                matches!(who, Who::Admin | Who::LeagueAdmin | Who::Host | Who::Player)
            }
            May::StaffOrEntrant => matches!(
                who,
                Who::Admin | Who::LeagueAdmin | Who::Host | Who::Player | Who::TableMate
            ),
            May::StaffOrTableMate => {
                matches!(
                    who,
                    Who::Admin | Who::LeagueAdmin | Who::Host | Who::TableMate
                )
            }
        }
    }
}

/// A caller of each kind, with their token: the league `apl` (venue crown, players ann and
/// bob at the table) must exist; the host of anchor and the player zed are made members of
/// another league (`tokens`), whose admin and auditor come last.
async fn callers(app: &TestApp) -> Vec<(Who, Option<String>)> {
    vec![
        (Who::Anonymous, None),
        (Who::Admin, Some(app.admin.clone())),
        (
            Who::Host,
            Some(app.token(Role::Host, Some("crown"), None).await),
        ),
        (
            Who::OtherHost,
            Some(app.token(Role::Host, Some("anchor"), None).await),
        ),
        (
            Who::Auditor,
            Some(app.token(Role::Auditor, None, None).await),
        ),
        (
            Who::Player,
            Some(app.token(Role::Player, None, Some("ann")).await),
        ),
        (
            Who::TableMate,
            Some(app.token(Role::Player, None, Some("bob")).await),
        ),
        (
            Who::Stranger,
            Some(app.token(Role::Player, None, Some("zed")).await),
        ),
        (
            Who::LeagueAdmin,
            Some(app.league_token(Role::Admin, "apl").await),
        ),
        (
            Who::OtherAdmin,
            Some(app.league_token(Role::Admin, TOKENS_LEAGUE).await),
        ),
        (
            Who::OtherAuditor,
            Some(app.league_token(Role::Auditor, TOKENS_LEAGUE).await),
        ),
    ]
}

/// A cash table at crown (Oracle's rules, a session fee).
const CASH_TABLE: &str = "mutation { openCashTable(input: {id: \"c1\", venue: \"crown\", name: \"1/2\", house: ORACLE, smallBlind: 1, bigBlind: 2, minBuyIn: 40, maxBuyIn: 200, seats: 6, straddle: true, sessionFee: {amount: 3, periodMinutes: 30}}) { events } }";

/// Every mutation against every role: a role that may not gets `FORBIDDEN` (or
/// `UNAUTHENTICATED` without a token) and nothing is appended; a role that may gets past
/// the authorisation (the engine may still refuse the command for its own reasons).
async fn every_mutation_against_every_role(app: &TestApp) {
    // The league `apl` (crown) and its finished results tournament `t1` come first.
    a_night_in_the_standings(app).await;
    started(app, "m1", "crown", Tracking::Dealt, &["ann", "bob", "cat"]).await;
    let table = app
        .admin(
            "{ table(tournamentId: \"m1\", table: 1) { seats { seat player } } }",
            json!({}),
        )
        .await;
    let seat_of = |p: &str| {
        table["table"]["seats"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["player"] == p)
            .unwrap()["seat"]
            .as_u64()
            .unwrap()
    };
    let ann = seat_of("ann");
    app.admin(CASH_TABLE, json!({})).await;
    for (seat, player) in [(0, "ann"), (1, "bob")] {
        app.admin(
            "mutation($s: Int!, $p: ID!) { sitDown(input: {table: \"c1\", seat: $s, player: $p, buyIn: 100}) { events } }",
            json!({"s": seat, "p": player}),
        )
        .await;
    }
    let tokens = callers(app).await;
    let outcome = json!({
        "tournament": "x1", "venue": "crown", "season": "s1", "day": 9, "buyin": 2000,
        "prizepool": 4000, "field": 2,
        "finishes": [{"player": "ann", "place": 1, "prize": 4000}, {"player": "bob", "place": 2}]
    });
    let cases: Vec<(&str, String, May)> = vec![
        ("scheduleTournament", format!("scheduleTournament(input: {{id: \"m2\", schedule: {}}})", graphql_json(&schedule("crown", Tracking::Results))), May::Staff),
        ("register", "register(input: {tournamentId: \"m1\", player: \"ann\"})".into(), May::StaffOrPlayer),
        ("unregister", "unregister(input: {tournamentId: \"m1\", player: \"ann\"})".into(), May::StaffOrPlayer),
        ("lateEntry", "lateEntry(input: {tournamentId: \"m1\", player: \"dan\"})".into(), May::Staff),
        ("pause", "pause(input: {tournamentId: \"m1\"})".into(), May::Staff),
        ("resume", "resume(input: {tournamentId: \"m1\"})".into(), May::Staff),
        ("markAbsent", "markAbsent(input: {tournamentId: \"m1\", player: \"bob\"})".into(), May::Staff),
        ("arrived", "arrived(input: {tournamentId: \"m1\", player: \"bob\"})".into(), May::Staff),
        ("removeAbsent", "removeAbsent(input: {tournamentId: \"m1\", player: \"bob\"})".into(), May::Staff),
        ("announceRebuy", "announceRebuy(input: {tournamentId: \"m1\", player: \"bob\"})".into(), May::Staff),
        ("declineRebuy", "declineRebuy(input: {tournamentId: \"m1\", player: \"bob\"})".into(), May::Staff),
        ("movePlayer", "movePlayer(input: {tournamentId: \"m1\", player: \"bob\", toTable: 2, toSeat: 0})".into(), May::Staff),
        ("start", "start(input: {tournamentId: \"m1\"})".into(), May::Staff),
        ("advanceLevel", "advanceLevel(input: {tournamentId: \"m1\"})".into(), May::Staff),
        ("dealHole", format!("dealHole(input: {{tournamentId: \"m1\", table: 1, seat: {ann}, cards: [\"As\", \"Kd\"]}})"), May::Staff),
        ("dealBoard", "dealBoard(input: {tournamentId: \"m1\", table: 1, cards: [\"2c\", \"3d\", \"4h\"]})".into(), May::Staff),
        ("eliminate", "eliminate(input: {tournamentId: \"m1\", players: [\"bob\"]})".into(), May::Staff),
        ("recordChips", "recordChips(input: {tournamentId: \"m1\", counts: [{player: \"ann\", chips: 1}]})".into(), May::Staff),
        ("rebuy", "rebuy(input: {tournamentId: \"m1\", player: \"bob\"})".into(), May::Staff),
        ("addOn", "addOn(input: {tournamentId: \"m1\", player: \"bob\"})".into(), May::Staff),
        ("colourUp", "colourUp(input: {tournamentId: \"m1\"})".into(), May::Staff),
        ("redraw", "redraw(input: {tournamentId: \"m1\"})".into(), May::Staff),
        ("penalise", "penalise(input: {tournamentId: \"m1\", player: \"bob\", penalty: WARNING})".into(), May::Staff),
        ("setPayouts", "setPayouts(input: {tournamentId: \"m1\", amounts: [1]})".into(), May::Staff),
        ("deal", "deal(input: {tournamentId: \"m1\", kind: CHIP_CHOP, accepted: [\"ann\"]})".into(), May::Staff),
        ("startHand", "startHand(input: {tournamentId: \"m1\", table: 1})".into(), May::Staff),
        ("act", format!("act(input: {{tournamentId: \"m1\", table: 1, seat: {ann}, action: FOLD}})"), May::StaffOrPlayer),
        ("show", format!("show(input: {{tournamentId: \"m1\", table: 1, seat: {ann}}})"), May::StaffOrPlayer),
        ("muck", format!("muck(input: {{tournamentId: \"m1\", table: 1, seat: {ann}}})"), May::StaffOrPlayer),
        ("createLeague", "createLeague(input: {id: \"l9\", name: \"L9\"})".into(), May::Operator),
        ("addVenue", "addVenue(input: {leagueId: \"apl\", venue: \"pub9\", region: \"north\"})".into(), May::Admin),
        ("setVenueDisplay", "setVenueDisplay(input: {leagueId: \"apl\", venue: \"crown\", name: \"The Crown\"})".into(), May::Staff),
        ("setLeagueCode", "setLeagueCode(input: {leagueId: \"apl\", code: \"apl-9\"})".into(), May::Admin),
        ("setVenueCode", "setVenueCode(input: {leagueId: \"apl\", venue: \"crown\", code: \"crown-9\"})".into(), May::Admin),
        ("addSeason", "addSeason(input: {leagueId: \"apl\", season: \"s9\", scoring: {table: [100]}})".into(), May::Admin),
        ("closeSeason", "closeSeason(input: {leagueId: \"apl\", season: \"s9\"})".into(), May::Admin),
        ("setFormula", "setFormula(input: {leagueId: \"apl\", season: \"s1\", scoring: {formula: \"n - r + 1\"}})".into(), May::Admin),
        ("setSeasonScore", "setSeasonScore(input: {leagueId: \"apl\", season: \"s1\", score: {tournamentScore: \"n - r + 1\", overallScore: \"average(scores)\"}})".into(), May::Admin),
        ("registerPlayer", "registerPlayer(input: {leagueId: \"apl\", player: \"zoe\", name: \"Zoe\", membership: \"9\"})".into(), May::Admin),
        ("renamePlayer", "renamePlayer(input: {leagueId: \"apl\", player: \"cat\", name: \"Cat\"})".into(), May::Admin),
        ("mergePlayers", "mergePlayers(input: {leagueId: \"apl\", keep: \"ann\", merge: \"cat\"})".into(), May::Admin),
        ("unmergePlayers", "unmergePlayers(input: {leagueId: \"apl\", keep: \"ann\", merge: \"cat\"})".into(), May::Admin),
        ("recordTournament", format!("recordTournament(input: {{leagueId: \"apl\", outcome: {}}})", graphql_json(&outcome)), May::Staff),
        ("recordTournamentResult", "recordTournamentResult(input: {leagueId: \"apl\", tournamentId: \"t1\", season: \"s1\", day: 1})".into(), May::Staff),
        ("amendTournament", format!("amendTournament(input: {{leagueId: \"apl\", outcome: {}, reason: \"corrected\"}})", graphql_json(&outcome)), May::Staff),
        ("reinstate", "reinstate(input: {tournamentId: \"m1\", player: \"cat\", reason: \"a mistake\"})".into(), May::Staff),
        ("callClock", format!("callClock(input: {{tournamentId: \"m1\", table: 1, seat: {ann}}})"), May::Staff),
        ("actOutOfTurn", format!("actOutOfTurn(input: {{tournamentId: \"m1\", table: 1, seat: {ann}, action: RAISE_TO, amount: 999999999}})"), May::Staff),
        ("voidHand", "voidHand(input: {tournamentId: \"m1\", table: 1, kind: MISDEAL, reason: \"a card exposed\"})".into(), May::Staff),
        ("killHand", format!("killHand(input: {{tournamentId: \"m1\", table: 1, seat: {ann}, cause: EXPOSED, reason: \"cards exposed\"}})"), May::Staff),
        ("retractCall", format!("retractCall(input: {{tournamentId: \"m1\", table: 1, seat: {ann}, reason: \"misheard the bet\"}})"), May::Staff),
        ("forfeitAggression", format!("forfeitAggression(input: {{tournamentId: \"m1\", table: 1, seat: {ann}, reason: \"flashed a card\"}})"), May::Staff),
        ("impoundPot", "impoundPot(input: {tournamentId: \"m1\", table: 1, reason: \"a disputed count\"})".to_owned(), May::Staff),
        ("releasePot", "releasePot(input: {tournamentId: \"m1\", table: 1, reason: \"ruled\"})".to_owned(), May::Staff),
        ("retrieveHand", format!("retrieveHand(input: {{tournamentId: \"m1\", table: 1, seat: {ann}, reason: \"mucked on a misread\"}})"), May::Staff),
        ("seeHand", format!("seeHand(input: {{tournamentId: \"m1\", table: 1, seat: {ann}, askedBy: {}}})", (ann + 1) % 3), May::Staff),
        ("correctChips", "correctChips(input: {tournamentId: \"m1\", table: 1, from: \"ann\", to: \"bob\", chips: 1, reason: \"a pot pushed wrong\"})".into(), May::Staff),
        ("correctSeat", "correctSeat(input: {tournamentId: \"m1\", player: \"ann\", table: 1, seat: 7, reason: \"sat in the wrong seat\"})".into(), May::Staff),
        ("correctButton", "correctButton(input: {tournamentId: \"m1\", table: 1, button: 0, reason: \"the button was misplaced\"})".into(), May::Staff),
        ("placeUnsoldStack", "placeUnsoldStack(input: {tournamentId: \"m1\", table: 1, seat: 8})".into(), May::Staff),
        ("removeUnsoldStack", "removeUnsoldStack(input: {tournamentId: \"m1\", table: 1, seat: 8, reason: \"nobody came\"})".into(), May::Staff),
        ("openCashTable", "openCashTable(input: {id: \"c2\", venue: \"crown\", name: \"2/4\", house: HIPPODROME, smallBlind: 2, bigBlind: 4, minBuyIn: 80, maxBuyIn: 400, seats: 6})".into(), May::Staff),
        ("sitDown", "sitDown(input: {table: \"c1\", seat: 4, player: \"ann\", buyIn: 100})".into(), May::StaffOrPlayer),
        ("topUp", "topUp(input: {table: \"c1\", seat: 0, amount: 1})".into(), May::StaffOrPlayer),
        ("joinCashWaitingList", "joinCashWaitingList(input: {table: \"c1\", player: \"ann\"})".into(), May::StaffOrPlayer),
        ("leaveCashWaitingList", "leaveCashWaitingList(input: {table: \"c1\", player: \"ann\"})".into(), May::StaffOrPlayer),
        ("reserveCashSeat", "reserveCashSeat(input: {table: \"c1\", seat: 3, player: \"bob\", minutes: 5})".into(), May::Staff),
        ("cancelCashReservation", "cancelCashReservation(input: {table: \"c1\", seat: 3})".into(), May::Staff),
        ("chargeSessionFee", "chargeSessionFee(input: {table: \"c1\"})".into(), May::Staff),
        ("dealCashHand", "dealCashHand(input: {table: \"c1\"})".into(), May::Staff),
        ("cashAct", "cashAct(input: {table: \"c1\", seat: 0, action: FOLD})".into(), May::StaffOrPlayer),
        ("cashShowdown", "cashShowdown(input: {table: \"c1\", seat: 0})".into(), May::StaffOrPlayer),
        ("cashRunItTwice", "cashRunItTwice(input: {table: \"c1\", seat: 0, agree: true})".into(), May::StaffOrPlayer),
        ("sitOut", "sitOut(input: {table: \"c1\", seat: 0})".into(), May::StaffOrPlayer),
        ("comeBack", "comeBack(input: {table: \"c1\", seat: 0})".into(), May::StaffOrPlayer),
        ("cashOut", "cashOut(input: {table: \"c1\", seat: 1})".into(), May::StaffOrTableMate),
        ("killCashHand", "killCashHand(input: {table: \"c1\", seat: 0, cause: FOULED, reason: \"a card from another deck\"})".into(), May::Staff),
        ("forfeitCashAggression", "forfeitCashAggression(input: {table: \"c1\", seat: 0, reason: \"flashed a card\"})".into(), May::Staff),
        ("impoundCashPot", "impoundCashPot(input: {table: \"c1\", reason: \"a disputed count\"})".into(), May::Staff),
        ("releaseCashPot", "releaseCashPot(input: {table: \"c1\", reason: \"ruled\"})".into(), May::Staff),
        ("retrieveCashHand", "retrieveCashHand(input: {table: \"c1\", seat: 0, reason: \"mucked on a misread\"})".into(), May::Staff),
        ("seeCashHand", "seeCashHand(input: {table: \"c1\", seat: 0, askedBy: 1})".into(), May::Staff),
        ("closeCashTable", "closeCashTable(input: {id: \"c1\"})".into(), May::Staff),
        // Last: the tournament is over for every case after it.
        ("addEntropy", "addEntropy(input: {tournamentId: \"m1\", entropy: \"4d1c\"})".into(), May::StaffOrEntrant),
        ("cancelTournament", "cancelTournament(input: {tournamentId: \"m1\", reason: \"called off\"})".into(), May::Staff),
    ];
    // Every mutation of the schema is in the matrix.
    let sdl = league_api::sdl();
    let mutation = &sdl[sdl.find("type Mutation {").unwrap()..];
    let mutation = &mutation[..mutation.find("\n}").unwrap()];
    let names: Vec<&str> = mutation
        .lines()
        .skip(1)
        .filter_map(|l| l.trim().split('(').next())
        .filter(|n| !n.is_empty() && !n.starts_with('"') && n.chars().all(char::is_alphanumeric))
        .collect();
    for name in &names {
        assert!(
            cases.iter().any(|(n, _, _)| n == name),
            "{name} is not in the role matrix"
        );
    }
    for (name, call, may) in &cases {
        // Forbidden roles first, while the state is as set up; then the allowed ones.
        let mut order: Vec<&(Who, Option<String>)> =
            tokens.iter().filter(|(w, _)| !may.allows(*w)).collect();
        order.extend(
            tokens
                .iter()
                .filter(|(w, _)| may.allows(*w) && !matches!(w, Who::Admin | Who::LeagueAdmin)),
        );
        order.extend(
            tokens
                .iter()
                .filter(|(w, _)| *w == Who::LeagueAdmin && may.allows(*w)),
        );
        order.extend(
            tokens
                .iter()
                .filter(|(w, _)| *w == Who::Admin && may.allows(*w)),
        );
        for (who, token) in order {
            let before = app.last_position().await;
            let body = app
                .graphql(
                    token.as_deref(),
                    &format!("mutation {{ {call} {{ events }} }}"),
                    json!({}),
                )
                .await;
            let got = body["errors"][0]["extensions"]["code"].as_str();
            if may.allows(*who) {
                assert!(
                    !matches!(got, Some("FORBIDDEN" | "UNAUTHENTICATED")),
                    "{name} as {who:?} must pass the authorisation: {body:#}"
                );
            } else {
                let expected = if *who == Who::Anonymous {
                    "UNAUTHENTICATED"
                } else {
                    "FORBIDDEN"
                };
                assert_eq!(got, Some(expected), "{name} as {who:?}: {body:#}");
                assert_eq!(
                    app.last_position().await,
                    before,
                    "{name} as {who:?} appended"
                );
            }
        }
    }
    // A player acting at a table mate's seat is forbidden.
    let mate = tokens
        .iter()
        .find(|(w, _)| *w == Who::TableMate)
        .unwrap()
        .1
        .clone();
    let before = app.last_position().await;
    for call in [
        format!("act(input: {{tournamentId: \"m1\", table: 1, seat: {ann}, action: FOLD}})"),
        format!("show(input: {{tournamentId: \"m1\", table: 1, seat: {ann}}})"),
        format!("muck(input: {{tournamentId: \"m1\", table: 1, seat: {ann}}})"),
    ] {
        let body = app
            .graphql(
                mate.as_deref(),
                &format!("mutation {{ {call} {{ events }} }}"),
                json!({}),
            )
            .await;
        assert_eq!(code(&body), "FORBIDDEN", "{body:#}");
    }
    assert_eq!(app.last_position().await, before);
}

/// What a query or subscription gives each caller.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Sees {
    /// The public answer, for everyone (with or without a token).
    Public,
    /// A table: every hole card of the completed hand for an admin or auditor whose
    /// league has the venue, the player's own cards, nothing hidden for the others.
    Cards,
    /// The log: an admin or auditor reads the streams of their league(s) only; the other
    /// roles are refused.
    Log,
    /// A computation for any caller with a token (a formula's preview); refused without.
    Token,
    /// Hand histories: every card of every completed hand for an admin or auditor whose
    /// league has the venue, a player's own hands with their own cards only; refused to
    /// the others.
    Hands,
    /// The log's integrity (signed heads, proofs, verify): any admin or auditor, of every
    /// league or one (hashes reveal nothing); refused to the other roles.
    Integrity,
    /// A venue's cash takings: its staff and the auditors whose scope takes it in.
    Takings,
}

/// Every query and subscription against every role, within and across scopes: the public
/// reads answer everyone alike; a table shows a completed hand's hole cards only to an
/// admin or auditor of the venue's league (and each player their own); the log gives an
/// admin or auditor limited to a league that league's stream and its venues' tournaments,
/// never another league's, by query and by subscription.
async fn every_query_and_subscription_within_scope(app: &TestApp) {
    a_night_in_the_standings(app).await;
    started(app, "m1", "crown", Tracking::Dealt, &["ann", "bob", "cat"]).await;
    app.admin(
        "mutation { startHand(input: {tournamentId: \"m1\", table: 1}) { events } }",
        json!({}),
    )
    .await;
    // Two folds end the hand: its hole cards are then an auditor's to read.
    for _ in 0..2 {
        let view = app.admin(TABLE, json!({"t": "m1"})).await;
        let seat = view["table"]["toAct"].as_u64().unwrap();
        app.admin(
            ACT,
            json!({"t": "m1", "table": 1, "seat": seat, "a": "FOLD"}),
        )
        .await;
    }
    app.admin(CASH_TABLE, json!({})).await;
    let tokens = callers(app).await;
    // The last event: the other league's, so the log's tail is known to each reader.
    app.admin(
        "mutation($l: ID!) { addVenue(input: {leagueId: $l, venue: \"last\", region: \"x\"}) { events } }",
        json!({"l": TOKENS_LEAGUE}),
    )
    .await;
    let queries: Vec<(&str, &str, Sees)> = vec![
        (
            "tournament",
            "tournament(id: \"m1\") { id venue }",
            Sees::Public,
        ),
        (
            "tournaments",
            "tournaments(venue: \"crown\") { tournaments { id } }",
            Sees::Public,
        ),
        (
            "table",
            "table(tournamentId: \"m1\", table: 1) { seats { player cards } }",
            Sees::Cards,
        ),
        ("league", "league(id: \"apl\") { id name }", Sees::Public),
        (
            "leagues",
            "leagues { id name venues { id name logo } }",
            Sees::Public,
        ),
        (
            "venue",
            "venue(id: \"crown\") { id name logo }",
            Sees::Public,
        ),
        (
            "standings",
            "standings(leagueId: \"apl\", season: \"s1\") { player points }",
            Sees::Public,
        ),
        (
            "playerRecord",
            "playerRecord(leagueId: \"apl\", player: \"ann\") { player played }",
            Sees::Public,
        ),
        (
            "events",
            "events(first: 1000) { events { streamId } hasNextPage }",
            Sees::Log,
        ),
        ("me", "me { role }", Sees::Public),
        (
            "handHistory",
            "handHistory(tournamentId: \"m1\") { players text }",
            Sees::Hands,
        ),
        (
            "formulaPreview",
            "formulaPreview(input: {formula: \"n - r + 1\", entrants: 3}) { place points }",
            Sees::Token,
        ),
        ("treeHead", "treeHead { treeSize root }", Sees::Integrity),
        (
            "inclusionProof",
            "inclusionProof(position: 1) { auditPath root }",
            Sees::Integrity,
        ),
        (
            "consistencyProof",
            "consistencyProof(oldSize: 1) { proof }",
            Sees::Integrity,
        ),
        (
            "verify",
            "verify { ok eventsChecked handsRederived differences { message } }",
            Sees::Integrity,
        ),
        (
            "cashTable",
            "cashTable(id: \"c1\") { id name }",
            Sees::Public,
        ),
        (
            "cashTables",
            "cashTables(venue: \"crown\") { id }",
            Sees::Public,
        ),
        (
            "cashTakings",
            "cashTakings(venue: \"crown\") { table day amount }",
            Sees::Takings,
        ),
    ];
    let subscriptions: Vec<(&str, &str, Sees)> = vec![
        (
            "tournament",
            "tournament(id: \"m1\") { id venue }",
            Sees::Public,
        ),
        (
            "table",
            "table(tournamentId: \"m1\", table: 1) { seats { player cards } }",
            Sees::Cards,
        ),
        (
            "standings",
            "standings(leagueId: \"apl\", season: \"s1\") { player points }",
            Sees::Public,
        ),
        ("eventLog", "eventLog { streamId }", Sees::Log),
        (
            "cashTable",
            "cashTable(id: \"c1\") { id name }",
            Sees::Public,
        ),
    ];
    // Every query and subscription of the schema is in the matrix.
    let sdl = league_api::sdl();
    for (kind, listed) in [("Query", &queries), ("Subscription", &subscriptions)] {
        for name in fields_of(&sdl, kind) {
            assert!(
                listed.iter().any(|(n, _, _)| *n == name),
                "{kind}.{name} is not in the matrix"
            );
        }
    }
    // Whose scope takes in crown (league apl) and the log's streams of apl.
    let in_scope = |who: Who| matches!(who, Who::Admin | Who::LeagueAdmin | Who::Auditor);
    let reader = |who: Who| in_scope(who) || matches!(who, Who::OtherAdmin | Who::OtherAuditor);
    let apl_streams = ["league:apl", "tournament:t1", "tournament:m1"];
    let check = |name: &str, sees: Sees, who: Who, data: &Value, errors: &Value| match sees {
        Sees::Public => assert!(errors.is_null(), "{name} as {who:?}: {errors:#}"),
        Sees::Token if who == Who::Anonymous => assert_eq!(
            errors[0]["extensions"]["code"], "UNAUTHENTICATED",
            "{name} as {who:?}: {errors:#}"
        ),
        Sees::Takings => {
            let allowed = matches!(
                who,
                Who::Admin | Who::LeagueAdmin | Who::Auditor | Who::Host
            );
            if allowed {
                assert!(errors.is_null(), "{name} as {who:?}: {errors:#}");
            } else {
                let expected = if who == Who::Anonymous {
                    "UNAUTHENTICATED"
                } else {
                    "FORBIDDEN"
                };
                assert_eq!(
                    errors[0]["extensions"]["code"], expected,
                    "{name} as {who:?}: {errors:#}"
                );
            }
        }
        Sees::Token => {
            assert!(errors.is_null(), "{name} as {who:?}: {errors:#}");
            assert_eq!(
                data["formulaPreview"][0]["points"], 3,
                "{name} as {who:?}: {data:#}"
            );
        }
        Sees::Cards => {
            assert!(errors.is_null(), "{name} as {who:?}: {errors:#}");
            let shown = cards_shown(&data["table"]);
            let expected: Vec<&str> = if in_scope(who) {
                vec!["ann", "bob", "cat"]
            } else if who == Who::Player {
                vec!["ann"]
            } else if who == Who::TableMate {
                vec!["bob"]
            } else {
                vec![]
            };
            let mut shown: Vec<&str> = shown.iter().map(String::as_str).collect();
            shown.sort_unstable();
            assert_eq!(shown, expected, "{name} as {who:?}: {data:#}");
        }
        Sees::Hands => {
            let refused = match who {
                Who::Anonymous => Some("UNAUTHENTICATED"),
                Who::Host | Who::OtherHost | Who::OtherAdmin | Who::OtherAuditor => {
                    Some("FORBIDDEN")
                }
                _ => None,
            };
            if let Some(code) = refused {
                assert_eq!(
                    errors[0]["extensions"]["code"], code,
                    "{name} as {who:?}: {errors:#}"
                );
                return;
            }
            assert!(errors.is_null(), "{name} as {who:?}: {errors:#}");
            let hands = data["handHistory"].as_array().unwrap();
            if who == Who::Stranger {
                assert!(hands.is_empty(), "{name} as {who:?}: {data:#}");
                return;
            }
            assert_eq!(hands.len(), 1, "{name} as {who:?}: {data:#}");
            let text = hands[0]["text"].as_str().unwrap();
            // Three dealt in: every card for the auditors, the other two hidden from a player.
            let hidden = if in_scope(who) { 0 } else { 2 };
            assert_eq!(
                text.matches("????").count(),
                hidden,
                "{name} as {who:?}: {text}"
            );
        }
        Sees::Integrity => {
            if !reader(who) {
                let expected = if who == Who::Anonymous {
                    "UNAUTHENTICATED"
                } else {
                    "FORBIDDEN"
                };
                assert_eq!(
                    errors[0]["extensions"]["code"], expected,
                    "{name} as {who:?}: {errors:#}"
                );
                return;
            }
            // Nothing is sealed in this app: a proof is then NOT_FOUND, never refused.
            if !errors.is_null() {
                assert_eq!(
                    errors[0]["extensions"]["code"], "NOT_FOUND",
                    "{name} as {who:?}: {errors:#}"
                );
                return;
            }
            if name == "verify" {
                assert_eq!(data["verify"]["ok"], true, "{name} as {who:?}: {data:#}");
                assert!(
                    data["verify"]["handsRederived"].as_u64() >= Some(1),
                    "{name} as {who:?}: {data:#}"
                );
            }
        }
        Sees::Log => {
            if !reader(who) {
                let expected = if who == Who::Anonymous {
                    "UNAUTHENTICATED"
                } else {
                    "FORBIDDEN"
                };
                assert_eq!(
                    errors[0]["extensions"]["code"], expected,
                    "{name} as {who:?}: {errors:#}"
                );
                return;
            }
            assert!(errors.is_null(), "{name} as {who:?}: {errors:#}");
            let streams: Vec<&str> = data
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s.as_str().unwrap())
                .collect();
            let other = format!("league:{TOKENS_LEAGUE}");
            let global = matches!(who, Who::Admin | Who::Auditor);
            for stream in apl_streams {
                assert_eq!(
                    streams.contains(&stream),
                    in_scope(who),
                    "{name} as {who:?}: {stream} in {streams:?}"
                );
            }
            assert_eq!(
                streams.contains(&other.as_str()),
                who != Who::LeagueAdmin,
                "{name} as {who:?}: {streams:?}"
            );
            if !global {
                let own = if who == Who::LeagueAdmin {
                    |s: &str| s == "league:apl" || s.starts_with("tournament:")
                } else {
                    |s: &str| s == "league:tokens"
                };
                assert!(
                    streams.iter().all(|s| own(s)),
                    "{name} as {who:?}: {streams:?}"
                );
            }
        }
    };
    // What each reader's log query gave, for the subscription to match.
    let mut logs = std::collections::HashMap::new();
    for (name, selection, sees) in &queries {
        for (who, token) in &tokens {
            let body = app
                .graphql(token.as_deref(), &format!("{{ {selection} }}"), json!({}))
                .await;
            let data = if *name == "events" {
                let page = &body["data"]["events"];
                let streams = json!(page["events"].as_array().map(|events| {
                    events
                        .iter()
                        .map(|e| e["streamId"].clone())
                        .collect::<Vec<_>>()
                }));
                if body["errors"].is_null() {
                    assert_eq!(page["hasNextPage"], false, "{body:#}");
                    logs.insert(*who, streams.clone());
                }
                streams
            } else {
                body["data"].clone()
            };
            check(name, *sees, *who, &data, &body["errors"]);
        }
    }
    for (name, selection, sees) in &subscriptions {
        for (who, token) in &tokens {
            let init = token.as_ref().map_or(
                json!({}),
                |t| json!({"Authorization": format!("Bearer {t}")}),
            );
            let query = format!("subscription {{ {selection} }}");
            let mut ws = app
                .subscribe(
                    "graphql-transport-ws",
                    init,
                    json!({"id": "1", "type": "subscribe", "payload": {"query": query}}),
                )
                .await;
            let mut streams = Vec::new();
            let (data, errors) = loop {
                let message = next_message(&mut ws, name).await;
                match message["type"].as_str() {
                    Some("connection_ack") => {}
                    Some("error") => break (Value::Null, message["payload"].clone()),
                    Some("next") if *name == "eventLog" => {
                        let payload = &message["payload"];
                        if !payload["errors"].is_null() {
                            break (Value::Null, payload["errors"].clone());
                        }
                        streams.push(payload["data"]["eventLog"]["streamId"].clone());
                        // As many as the same caller's log query gave.
                        if streams.len() == logs[who].as_array().unwrap().len() {
                            break (json!(streams), Value::Null);
                        }
                    }
                    Some("next") => {
                        let payload = &message["payload"];
                        break (payload["data"].clone(), payload["errors"].clone());
                    }
                    other => panic!("{name} as {who:?}: unexpected {other:?}: {message:#}"),
                }
            };
            if *name == "eventLog" && errors.is_null() {
                assert_eq!(data, logs[who], "{name} as {who:?}: the same as the query");
            }
            check(name, *sees, *who, &data, &errors);
        }
    }
}

/// The fields of the type `kind` (`Query`, `Subscription`) in the SDL.
fn fields_of(sdl: &str, kind: &str) -> Vec<String> {
    let start = sdl.find(&format!("type {kind} {{")).unwrap();
    let body = &sdl[start..];
    let body = &body[..body.find("\n}").unwrap()];
    // A field's line is indented once; its arguments' lines (and descriptions) deeper.
    body.lines()
        .skip(1)
        .filter(|l| l.starts_with('\t') && !l.starts_with("\t\t"))
        .filter_map(|l| l.trim().split(['(', ':']).next())
        .filter(|n| !n.is_empty() && !n.starts_with('"') && n.chars().all(char::is_alphanumeric))
        .map(str::to_owned)
        .collect()
}

/// A JSON value written as a GraphQL input literal (object keys unquoted; a string of
/// capitals and underscores, as `WSOP` or `BIG_BLIND`, is an enum value).
fn graphql_json(v: &Value) -> String {
    match v {
        Value::Object(map) => {
            let fields: Vec<String> = map
                .iter()
                .map(|(k, v)| format!("{k}: {}", graphql_json(v)))
                .collect();
            format!("{{{}}}", fields.join(", "))
        }
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(graphql_json).collect();
            format!("[{}]", items.join(", "))
        }
        Value::String(s) if s.bytes().all(|b| b.is_ascii_uppercase() || b == b'_') => s.clone(),
        other => other.to_string(),
    }
}

#[actix_web::test]
async fn the_rate_limit_refuses_a_token_over_its_rate_with_429() {
    let app = spawn_app_with(
        Backend::Sqlite,
        league_api::Options {
            rate_limit: 1,
            burst: 3,
            ..league_api::Options::default()
        },
    )
    .await;
    let query = "{ tournaments { tournaments { id } } }";
    for _ in 0..3 {
        let body = app.graphql(Some(&app.admin), query, json!({})).await;
        assert!(body.get("errors").is_none(), "{body:#}");
    }
    let mut r = awc::Client::new()
        .post(format!("{}/graphql", app.base))
        .insert_header(("Authorization", format!("Bearer {}", app.admin)))
        .send_json(&json!({"query": query}))
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 429);
    assert!(r.headers().get("retry-after").is_some());
    let body: Value = serde_json::from_slice(&r.body().await.unwrap()).unwrap();
    assert_eq!(code(&body), "RATE_LIMITED", "{body:#}");
    // Another token has its own allowance.
    let auditor = app.token(Role::Auditor, None, None).await;
    let body = app.graphql(Some(&auditor), query, json!({})).await;
    assert!(body.get("errors").is_none(), "{body:#}");
    let page = metrics_page(&app).await;
    assert_eq!(series(&page, "league_rate_limited_total"), 1);
    app.stop().await;
}

/// Each mutation of a document counts against the rate limit, and a document may hold only
/// so many: one POST of aliased mutations is not a way round the limit.
#[actix_web::test]
async fn each_mutation_counts_and_a_document_holds_at_most_the_maximum() {
    let app = spawn_app_with(
        Backend::Sqlite,
        league_api::Options {
            rate_limit: 1,
            burst: 10,
            max_mutations: 8,
            ..league_api::Options::default()
        },
    )
    .await;
    let server = &app;
    let post = |query: String| async move {
        let (status, _, body) = server
            .post_raw(TestApp::bearer(&server.admin), &query)
            .await;
        (status, body)
    };
    let aliased = |n: usize| {
        let fields: Vec<String> = (0..n)
            .map(|i| {
                format!("l{i}: createLeague(input: {{id: \"l{i}\", name: \"L{i}\"}}) {{ events }}")
            })
            .collect();
        format!("mutation {{ {} }}", fields.join(" "))
    };
    // Nine mutations (even hidden in a fragment) are over the maximum: refused whole.
    let (status, body) = post(aliased(9)).await;
    assert_eq!(status, 400, "{body:#}");
    assert_eq!(code(&body), "BAD_INPUT", "{body:#}");
    let (status, body) = post(
        "mutation { ...many } fragment many on Mutation { a: createLeague(input: {id: \"a\", name: \"A\"}) { events } b: createLeague(input: {id: \"b\", name: \"B\"}) { events } c: createLeague(input: {id: \"c\", name: \"C\"}) { events } d: createLeague(input: {id: \"d\", name: \"D\"}) { events } e: createLeague(input: {id: \"e\", name: \"E\"}) { events } f: createLeague(input: {id: \"f\", name: \"F\"}) { events } g: createLeague(input: {id: \"g\", name: \"G\"}) { events } h: createLeague(input: {id: \"h\", name: \"H\"}) { events } i: createLeague(input: {id: \"i\", name: \"I\"}) { events } }".to_owned(),
    )
    .await;
    assert_eq!(status, 400, "{body:#}");
    assert_eq!(app.last_position().await, None, "nothing was appended");
    // Eight run, and take eight of the ten: the next document of three is limited whole.
    let (status, body) = post(aliased(8)).await;
    assert_eq!(status, 200, "{body:#}");
    assert!(body.get("errors").is_none(), "{body:#}");
    let (status, body) = post(aliased(3).replace("\"l", "\"m")).await;
    assert_eq!(status, 429, "{body:#}");
    assert_eq!(code(&body), "RATE_LIMITED", "{body:#}");
    // Over a WebSocket (graphql-transport-ws runs mutations too) the same: nine refused
    // whole, and eight more than the bucket holds limited.
    let before = app.last_position().await;
    let init = json!({"Authorization": format!("Bearer {}", app.admin)});
    for (document, expected) in [
        (aliased(9).replace("\"l", "\"w"), "BAD_INPUT"),
        (aliased(8).replace("\"l", "\"v"), "RATE_LIMITED"),
    ] {
        let start = json!({"id": "1", "type": "subscribe", "payload": {"query": document}});
        let mut ws = app
            .subscribe("graphql-transport-ws", init.clone(), start)
            .await;
        let message = loop {
            let message = next_message(&mut ws, "the refusal").await;
            if message["type"] != "connection_ack" {
                break message;
            }
        };
        assert_eq!(message["type"], "error", "{message:#}");
        assert_eq!(
            message["payload"][0]["extensions"]["code"], expected,
            "{message:#}"
        );
    }
    assert_eq!(app.last_position().await, before, "nothing was appended");
    app.stop().await;
}

/// A malformed `Authorization` header is refused, not taken for no token; failed
/// authentications from one address are limited, with `Retry-After`, and then even a good
/// token from that address waits: guessing tokens does not run at full speed.
#[actix_web::test]
async fn failed_authentications_are_limited_per_address() {
    let app = spawn_app_with(
        Backend::Sqlite,
        league_api::Options {
            auth_failures_per_minute: 5,
            ..league_api::Options::default()
        },
    )
    .await;
    let query = "{ tournaments { tournaments { id } } }";
    let server = &app;
    let send = |auth: awc::http::header::HeaderValue| async move {
        let (status, retry, body) = server.post_raw(auth, query).await;
        (status, body, retry)
    };
    let bytes = awc::http::header::HeaderValue::from_bytes(b"Bearer caf\xe9").unwrap();
    let (status, body, _) = send(bytes).await;
    assert_eq!(status, 401, "{body:#}");
    assert_eq!(code(&body), "UNAUTHENTICATED", "{body:#}");
    for n in 0..2 {
        let guess = format!("Bearer league_{n:064}");
        let (status, body, _) = send(guess.parse().unwrap()).await;
        assert_eq!(status, 401, "{body:#}");
    }
    // A guess in a WebSocket's connection_init counts as well.
    let init = |token: String| json!({"type": "connection_init", "payload": {"Authorization": format!("Bearer {token}")}});
    for n in 2..4 {
        let mut ws = app.connect("graphql-transport-ws").await;
        ws.send(text(init(format!("league_{n:064}"))))
            .await
            .unwrap();
        assert_eq!(closed_with(&mut ws).await, 4403);
    }
    let good = format!("Bearer {}", app.admin);
    let (status, body, retry) = send(good.parse().unwrap()).await;
    assert_eq!(status, 429, "{body:#}");
    assert_eq!(code(&body), "RATE_LIMITED", "{body:#}");
    let retry: u64 = retry.unwrap().parse().unwrap();
    assert!((1..=12).contains(&retry), "{retry}");
    let mut ws = app.connect("graphql-transport-ws").await;
    ws.send(text(init(app.admin.clone()))).await.unwrap();
    assert_eq!(closed_with(&mut ws).await, 4403);
    // No token at all is still served (public reads).
    let body = app
        .graphql(None, "{ tournaments { tournaments { id } } }", json!({}))
        .await;
    assert!(body.get("errors").is_none(), "{body:#}");
    app.stop().await;
}

league_tests::on_every_backend!(
    a_dealt_hand_keeps_cards_private_and_reports_rule_errors_with_codes,
    a_host_of_another_venue_is_forbidden_and_nothing_is_appended,
    refusals_reveal_no_hidden_card,
    out_of_range_values_and_bad_ids_are_refused,
    a_checked_token_outlasts_another_devices_failures,
    every_mutation_against_every_role,
    every_query_and_subscription_within_scope,
);
