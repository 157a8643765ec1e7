//! Two hours of a cardroom's cash games through the API, on a clock the test moves (the
//! server's clock, which stamps every command): from 23:00 to 01:00 UTC, so the house's
//! takings fall on two days. An Oracle table rakes 5% of each pot up to 6 chips; a
//! Hippodrome table charges a session fee of 5 chips every half hour and runs the board
//! twice from a pot of 60 when the players all-in agree. Players sit down,
//! play every hand for their own seats, top up, sit out and come back, cash out, queue on
//! the waiting list and return; the host deals and charges the fees. At every hand's end
//! each table's chips are accounted for (what is at the table, plus what was cashed out,
//! plus the house's takings, is what was bought in), and at the end the takings query
//! matches, table by table and day by day, the fees and rakes in the log.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test")]

use std::collections::BTreeMap;

use league_api::auth::Role;
use league_app::clock::Clock;
use league_engine::cash::CashEvent;
use league_tests::{Backend, TestApp, code, postgres_is_configured, spawn_app_with, u};
use serde_json::{Value, json};

/// 2026-11-28 23:00:00 UTC, in milliseconds.
const START: i64 = 1_795_906_800_000;
const MINUTE: i64 = 60_000;

const VIEW: &str = "query($t: ID!) { cashTable(id: $t) { takings closed runItTwiceAsked runs firstRunBoard seats { seat player chips sittingOut waitingForBigBlind } waitingList table { inHand pot board toShow legalActions { seat canCheck call betOrRaise { raise min max } } } } }";

struct Room {
    host: String,
    tokens: BTreeMap<String, String>,
    /// Per table: chips bought in and cashed out.
    bought: BTreeMap<&'static str, u64>,
    cashed: BTreeMap<&'static str, u64>,
    hands: u32,
}

impl Room {
    async fn gql(&self, app: &TestApp, token: &str, query: &str, vars: Value) -> Value {
        let body = app.graphql(Some(token), query, vars).await;
        assert!(body["errors"].is_null(), "{query}: {body:#}");
        body["data"].clone()
    }

    async fn view(&self, app: &TestApp, table: &str) -> Value {
        self.gql(app, &self.host, VIEW, json!({"t": table})).await["cashTable"].clone()
    }

    fn token(&self, player: &str) -> &str {
        &self.tokens[player]
    }

    async fn sit(
        &mut self,
        app: &TestApp,
        table: &'static str,
        seat: u64,
        player: &str,
        buy_in: u64,
    ) {
        self.gql(
            app,
            self.token(player),
            "mutation($i: SitDownInput!) { sitDown(input: $i) { events } }",
            json!({"i": {"table": table, "seat": seat, "player": player, "buyIn": buy_in}}),
        )
        .await;
        *self.bought.entry(table).or_default() += buy_in;
    }

    async fn cash_out(&mut self, app: &TestApp, table: &'static str, seat: u64) -> u64 {
        let v = self.view(app, table).await;
        let held = seat_of(&v, seat);
        let player = held["player"].as_str().unwrap().to_owned();
        let chips = u(&held["chips"]);
        self.gql(
            app,
            self.token(&player),
            "mutation($t: ID!, $s: Int!) { cashOut(input: {table: $t, seat: $s}) { events } }",
            json!({"t": table, "s": seat}),
        )
        .await;
        *self.cashed.entry(table).or_default() += chips;
        chips
    }

    /// What was bought in is at the table, cashed out, or the house's. Counted as the
    /// league's admin sees the table: at Oracle the host is not told a no-limit pot
    /// (`Table.pot` is null for the venue's staff and players, Oracle "Pot Size").
    async fn accounted(&self, app: &TestApp, table: &'static str) {
        let v = app.admin(VIEW, json!({"t": table})).await["cashTable"].clone();
        let behind: u64 = v["seats"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| u(&s["chips"]))
            .sum();
        let at_table = behind + u(&v["table"]["pot"]);
        assert_eq!(
            at_table + self.cashed.get(table).copied().unwrap_or(0) + u(&v["takings"]),
            self.bought[table],
            "{table}: {v:#}"
        );
    }

    /// The host deals; each seat's player acts for themselves (the first to act raises
    /// the minimum, the rest call or check, so most pots see a flop; or, `all_in`, every
    /// player puts all their chips in), answers when asked to run the board twice
    /// (agreeing), and shows at the end. Returns the hand's last view.
    async fn play_hand(&mut self, app: &TestApp, table: &'static str, all_in: bool) -> Value {
        self.gql(
            app,
            &self.host,
            "mutation($t: ID!) { dealCashHand(input: {table: $t}) { events } }",
            json!({"t": table}),
        )
        .await;
        self.hands += 1;
        let mut raised = false;
        for _ in 0..200 {
            let v = self.view(app, table).await;
            let hand = &v["table"];
            if hand["inHand"] != true {
                self.accounted(app, table).await;
                return v;
            }
            if let Some(seat) = v["runItTwiceAsked"].as_array().and_then(|a| a.first()) {
                let seat = u(seat);
                let player = player_at(&v, seat);
                self.gql(
                    app,
                    self.token(&player),
                    "mutation($t: ID!, $s: Int!) { cashRunItTwice(input: {table: $t, seat: $s, agree: true}) { events } }",
                    json!({"t": table, "s": seat}),
                )
                .await;
                continue;
            }
            if let Some(seat) = hand["toShow"].as_u64() {
                let player = player_at(&v, seat);
                self.gql(
                    app,
                    self.token(&player),
                    "mutation($t: ID!, $s: Int!) { cashShowdown(input: {table: $t, seat: $s}) { events } }",
                    json!({"t": table, "s": seat}),
                )
                .await;
                continue;
            }
            let legal = &hand["legalActions"];
            let seat = u(&legal["seat"]);
            let player = player_at(&v, seat);
            let range = &legal["betOrRaise"];
            let (action, amount) = if all_in && !range.is_null() {
                ("ALL_IN", Value::Null)
            } else if all_in {
                // Facing an all-in it may not raise: the call puts the seat all-in, or
                // nothing is left to bet.
                (
                    if legal["canCheck"] == true {
                        "CHECK"
                    } else {
                        "CALL"
                    },
                    Value::Null,
                )
            } else if !raised && range["raise"] == true {
                // Three times the smallest raise, so that pots are worth raking.
                raised = true;
                let to = (u(&range["min"]) * 3).min(u(&range["max"]));
                ("RAISE_TO", json!(to))
            } else if legal["canCheck"] == true {
                ("CHECK", Value::Null)
            } else {
                ("CALL", Value::Null)
            };
            self.gql(
                app,
                self.token(&player),
                "mutation($i: CashActInput!) { cashAct(input: $i) { events } }",
                json!({"i": {"table": table, "seat": seat, "action": action, "amount": amount}}),
            )
            .await;
        }
        panic!("the hand never ended");
    }
}

fn seat_of(view: &Value, seat: u64) -> &Value {
    view["seats"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| u(&s["seat"]) == seat)
        .unwrap_or_else(|| panic!("no seat {seat}: {view:#}"))
}

fn player_at(view: &Value, seat: u64) -> String {
    seat_of(view, seat)["player"].as_str().unwrap().to_owned()
}

async fn two_hours(backend: Backend) {
    let clock = Clock::manual(START);
    let app = spawn_app_with(
        backend,
        league_api::Options {
            clock: clock.clone(),
            ..league_api::Options::default()
        },
    )
    .await;
    let mut room = Room {
        host: app.token(Role::Host, Some("cardroom"), None).await,
        tokens: BTreeMap::new(),
        bought: BTreeMap::new(),
        cashed: BTreeMap::new(),
        hands: 0,
    };
    for p in ["ann", "bob", "cat", "dan", "eve", "fay", "gus", "hal"] {
        let token = app.token(Role::Player, None, Some(p)).await;
        room.tokens.insert(p.to_owned(), token);
    }
    let open = "mutation($i: OpenCashTableInput!) { openCashTable(input: $i) { cashTable { rake { basisPoints cap noFlopNoDrop } sessionFee { amount periodMinutes } } } }";
    let common = json!({"venue": "cardroom", "smallBlind": 1, "bigBlind": 2, "minBuyIn": 40, "maxBuyIn": 200, "seats": 6});
    let mut raked = common.clone();
    raked["id"] = json!("oracle-1");
    raked["name"] = json!("Oracle 1/2");
    raked["house"] = json!("ORACLE");
    raked["rake"] = json!({"basisPoints": 500, "cap": 6});
    let data = room.gql(&app, &room.host, open, json!({"i": raked})).await;
    assert_eq!(
        data["openCashTable"]["cashTable"]["rake"],
        json!({"basisPoints": 500, "cap": 6, "noFlopNoDrop": true})
    );
    // A table takes a fee or a rake, not both.
    let mut both = common.clone();
    both["id"] = json!("both");
    both["name"] = json!("both");
    both["house"] = json!("ORACLE");
    both["rake"] = json!({"basisPoints": 500, "cap": 6});
    both["sessionFee"] = json!({"amount": 5, "periodMinutes": 30});
    let refused = app
        .graphql(Some(&room.host), open, json!({"i": both}))
        .await;
    assert_eq!(code(&refused), "BAD_INPUT", "{refused:#}");
    let mut fee = common.clone();
    fee["id"] = json!("hippodrome-1");
    fee["name"] = json!("Hippodrome 1/2");
    fee["house"] = json!("HIPPODROME");
    fee["sessionFee"] = json!({"amount": 5, "periodMinutes": 30});
    fee["runItTwiceFrom"] = json!(60);
    room.gql(&app, &room.host, open, json!({"i": fee})).await;

    for (seat, p) in (0u64..).zip(["ann", "bob", "cat", "dan"]) {
        room.sit(&app, "oracle-1", seat, p, 100).await;
    }
    for (seat, p) in (0u64..).zip(["eve", "fay", "gus"]) {
        room.sit(&app, "hippodrome-1", seat, p, 120).await;
    }

    let charge = "mutation { chargeSessionFee(input: {table: \"hippodrome-1\"}) { events } }";
    let mut fees_charged = 0;
    let mut bob_took = 0;
    let mut ran_twice = false;
    // Two hours, a hand at each table every two minutes.
    for step in 0..60 {
        let minute = step * 2;
        // The fee each half hour, charged by the host before the deal; not before.
        let body = app.graphql(Some(&room.host), charge, json!({})).await;
        if body["errors"].is_null() {
            fees_charged += 1;
            assert_eq!(minute % 30, 0, "a fee charged at minute {minute}");
        } else {
            assert_eq!(
                body["errors"][0]["extensions"]["rule"], "FEE_NOT_DUE",
                "{body:#}"
            );
        }
        match minute {
            // Bob leaves the Oracle table; Hal queues for it.
            10 => {
                bob_took = room.cash_out(&app, "oracle-1", 1).await;
                room.gql(
                    &app,
                    room.token("hal"),
                    "mutation { joinCashWaitingList(input: {table: \"oracle-1\", player: \"hal\"}) { events } }",
                    json!({}),
                )
                .await;
            }
            // Hal, first on the list, takes the seat; he waits for the big blind.
            14 => {
                let v = room.view(&app, "oracle-1").await;
                assert_eq!(v["waitingList"], json!(["hal"]));
                room.sit(&app, "oracle-1", 1, "hal", 60).await;
            }
            // Gus sits out at the Hippodrome: the fees of the half hours he is away are
            // owed, and paid when he comes back.
            20 => {
                room.gql(
                    &app,
                    room.token("gus"),
                    "mutation { sitOut(input: {table: \"hippodrome-1\", seat: 2}) { events } }",
                    json!({}),
                )
                .await;
            }
            50 => {
                room.gql(
                    &app,
                    room.token("gus"),
                    "mutation { comeBack(input: {table: \"hippodrome-1\", seat: 2, post: true}) { events } }",
                    json!({}),
                )
                .await;
            }
            // Bob comes back to the Hippodrome table an hour after leaving the Oracle's:
            // another table, so any buy-in within its limits.
            70 => room.sit(&app, "hippodrome-1", 3, "bob", 40).await,
            // Fay leaves the Hippodrome; back within two hours she must bring what she
            // took (Hippodrome, Procedures 7).
            80 => {
                let took = room.cash_out(&app, "hippodrome-1", 1).await;
                if took > 40 {
                    let body = app
                        .graphql(
                            Some(room.token("fay")),
                            "mutation($i: SitDownInput!) { sitDown(input: $i) { events } }",
                            json!({"i": {"table": "hippodrome-1", "seat": 1, "player": "fay", "buyIn": 40}}),
                        )
                        .await;
                    assert_eq!(
                        body["errors"][0]["extensions"]["rule"], "BELOW_AMOUNT_TAKEN",
                        "{body:#}"
                    );
                }
            }
            _ => {}
        }
        // Anyone short tops up between hands, to the maximum.
        for table in ["oracle-1", "hippodrome-1"] {
            let v = room.view(&app, table).await;
            for s in v["seats"].as_array().unwrap().clone() {
                let chips = u(&s["chips"]);
                if chips < 40 && s["sittingOut"] != true {
                    let player = s["player"].as_str().unwrap().to_owned();
                    room.gql(
                        &app,
                        room.token(&player),
                        "mutation($t: ID!, $s: Int!, $a: Chips!) { topUp(input: {table: $t, seat: $s, amount: $a}) { events } }",
                        json!({"t": table, "s": u(&s["seat"]), "a": 200 - chips}),
                    )
                    .await;
                    *room.bought.entry(table).or_default() += 200 - chips;
                }
            }
            // Once, at the Hippodrome table, everyone all-in: asked to run it twice, all
            // agree, and the board runs twice.
            let all_in = table == "hippodrome-1" && minute == 100;
            let last = room.play_hand(&app, table, all_in).await;
            if all_in {
                assert_eq!(last["runs"], 2, "{last:#}");
                assert_eq!(
                    last["firstRunBoard"].as_array().map(Vec::len),
                    Some(5),
                    "{last:#}"
                );
                assert_eq!(
                    last["table"]["board"].as_array().map(Vec::len),
                    Some(5),
                    "{last:#}"
                );
                ran_twice = true;
            }
        }
        clock.advance(2 * MINUTE);
    }
    assert_eq!(fees_charged, 4, "a fee at 23:00, 23:30, 00:00 and 00:30");
    assert!(ran_twice);
    assert!(bob_took > 0);
    assert!(room.hands >= 100, "{} hands", room.hands);

    // The takings query, table by table and day by day, is what the log's fees and rakes
    // took: each fee on the day it was charged or paid, each rake on the day its hand was
    // dealt.
    let mut logged: BTreeMap<(String, u64), u64> = BTreeMap::new();
    let mut dealt_at = BTreeMap::new();
    let mut raked_pots = 0;
    for e in app.store.read_all(0, 1_000_000).await.unwrap() {
        let Some(table) = e.stream_id.strip_prefix("cash:") else {
            continue;
        };
        let event: CashEvent =
            league_events::decode(&e.event_type, e.schema_version, &e.payload).unwrap();
        let mut add = |at: u64, amount: u64| {
            *logged.entry((table.to_owned(), at / 86_400)).or_default() += amount;
        };
        match event {
            CashEvent::SessionFeeCharged { paid, at, .. } => {
                add(at, paid.iter().map(|f| f.amount.get()).sum());
            }
            CashEvent::SessionFeePaid { amount, at, .. } => add(at, amount.get()),
            CashEvent::HandDealt { at, .. } => {
                dealt_at.insert(table.to_owned(), at);
            }
            CashEvent::HandEvent {
                event: league_engine::hand::Event::PotAwarded { rake, .. },
            } if rake > 0 => {
                raked_pots += 1;
                add(dealt_at[table], rake);
            }
            _ => {}
        }
    }
    assert!(raked_pots > 20, "{raked_pots} raked pots");
    let rows = room
        .gql(
            &app,
            &room.host,
            "query { cashTakings(venue: \"cardroom\") { table day amount } }",
            json!({}),
        )
        .await["cashTakings"]
        .as_array()
        .unwrap()
        .clone();
    let days: std::collections::BTreeSet<&str> =
        rows.iter().map(|r| r["day"].as_str().unwrap()).collect();
    assert_eq!(
        days.into_iter().collect::<Vec<_>>(),
        vec!["2026-11-28", "2026-11-29"]
    );
    let queried: BTreeMap<(String, u64), u64> = rows
        .iter()
        .map(|r| {
            let day = r["day"].as_str().unwrap();
            let n = if day == "2026-11-28" {
                u64::try_from(START / 1000).unwrap() / 86_400
            } else {
                u64::try_from(START / 1000).unwrap() / 86_400 + 1
            };
            (
                (r["table"].as_str().unwrap().to_owned(), n),
                u(&r["amount"]),
            )
        })
        .collect();
    assert_eq!(queried, logged);
    for table in ["oracle-1", "hippodrome-1"] {
        room.accounted(&app, table).await;
    }
    // Closing cashes everyone out: every chip bought in was cashed out or is the house's.
    for table in ["oracle-1", "hippodrome-1"] {
        let before = room.view(&app, table).await;
        room.gql(
            &app,
            &room.host,
            "mutation($t: ID!) { closeCashTable(input: {id: $t}) { cashTable { closed } } }",
            json!({"t": table}),
        )
        .await;
        let taken = u(&before["takings"]);
        let behind: u64 = before["seats"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| u(&s["chips"]))
            .sum();
        assert_eq!(
            behind + room.cashed.get(table).copied().unwrap_or(0) + taken,
            room.bought[table]
        );
    }
    app.stop().await;
}

#[actix_web::test]
async fn two_hours_of_cash_games_on_sqlite() {
    two_hours(Backend::Sqlite).await;
}

#[actix_web::test]
async fn two_hours_of_cash_games_on_postgres() {
    if !postgres_is_configured() {
        return;
    }
    two_hours(Backend::Postgres).await;
}
