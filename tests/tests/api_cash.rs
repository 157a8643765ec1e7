//! A cash table through the API, as the cardroom's host and its players use it: a host
//! opens an Oracle table with a straddle and a session fee; players sit down and act for
//! their own seats only, from what the table's view offers; the floor kills a hand out of
//! turn; one sits out, misses the blinds and comes back posting them; one tops up, one
//! cashes out; the public sees no hole cards and a subscriber follows the table. Chips are
//! accounted for at every step, and the house's takings query matches the fee events in
//! the log.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test")]

use league_api::auth::Role;
use league_engine::cash::CashEvent;
use league_tests::{TestApp, code, next_message, on_every_backend, u};
use serde_json::{Value, json};

const VIEW: &str = "query($t: ID!) { cashTable(id: $t) { id version name house closed smallBlind bigBlind seatsFree waitingList takings sessionFee { amount periodMinutes } seats { seat player chips sittingOut waitingForBigBlind posting owesSmallBlind owesBigBlind feesDue } table { inHand button toAct pot currentBet street board toShow seats { seat player chips bet cards inHand } legalActions { seat canCheck call betOrRaise { raise min max } } blinds { smallBlind bigBlind } } } }";

const OPEN: &str = "mutation($i: OpenCashTableInput!) { openCashTable(input: $i) { createdId events cashTable { id seatCount straddle } } }";
const SIT: &str =
    "mutation($i: SitDownInput!) { sitDown(input: $i) { events cashTable { seatsFree } } }";
const ACT: &str = "mutation($i: CashActInput!) { cashAct(input: $i) { events } }";
const DEAL: &str = "mutation($i: DealCashHandInput!) { dealCashHand(input: $i) { events cashTable { table { toAct } } } }";

async fn view(app: &TestApp, token: Option<&str>, table: &str) -> Value {
    let body = app.graphql(token, VIEW, json!({"t": table})).await;
    assert!(body["errors"].is_null(), "{body:#}");
    body["data"]["cashTable"].clone()
}

/// The table as the league's admin sees it: at Oracle neither the players, the screens
/// nor the host are told a no-limit pot while a hand is played (`Table.pot` is null,
/// Oracle "Pot Size"), so chips are counted from this view.
async fn counted(app: &TestApp, table: &str) -> Value {
    app.admin(VIEW, json!({"t": table})).await["cashTable"].clone()
}

/// Every chip at the table: behind, in the pots.
fn on_table(view: &Value) -> u64 {
    let behind: u64 = view["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| u(&s["chips"]))
        .sum();
    behind + u(&view["table"]["pot"])
}

/// Plays the hand to its end: each seat's player acts for themselves, calling or
/// checking (the first to act raises once, to keep the pots honest).
async fn play_hand(app: &TestApp, tokens: &[(String, String)], table: &str, total: u64) {
    let mut raised = false;
    for _ in 0..200 {
        let v = counted(app, table).await;
        assert_eq!(on_table(&v), total, "{v:#}");
        if v["table"]["inHand"] != true {
            return;
        }
        let public = view(app, None, table).await;
        assert!(public["table"]["pot"].is_null(), "{public:#}");
        let hand = &v["table"];
        if let Some(seat) = hand["toShow"].as_u64() {
            let player = player_at(&v, seat);
            let token = token_of(tokens, &player);
            let body = app
                .graphql(
                    Some(token),
                    "mutation($i: CashShowdownInput!) { cashShowdown(input: $i) { events } }",
                    json!({"i": {"table": table, "seat": seat}}),
                )
                .await;
            assert!(body["errors"].is_null(), "{body:#}");
            continue;
        }
        let legal = &hand["legalActions"];
        let seat = u(&legal["seat"]);
        assert_eq!(u(&hand["toAct"]), seat);
        let player = player_at(&v, seat);
        let token = token_of(tokens, &player);
        let range = &legal["betOrRaise"];
        let (action, amount) = if !raised && range["raise"] == true {
            raised = true;
            ("RAISE_TO", range["min"].clone())
        } else if legal["canCheck"] == true {
            ("CHECK", Value::Null)
        } else {
            ("CALL", Value::Null)
        };
        // Another player may not act for this seat.
        let other = tokens.iter().find(|(p, _)| *p != player).unwrap();
        let refused = app
            .graphql(
                Some(&other.1),
                ACT,
                json!({"i": {"table": table, "seat": seat, "action": action, "amount": amount}}),
            )
            .await;
        assert_eq!(code(&refused), "FORBIDDEN", "{refused:#}");
        let body = app
            .graphql(
                Some(token),
                ACT,
                json!({"i": {"table": table, "seat": seat, "action": action, "amount": amount}}),
            )
            .await;
        assert!(body["errors"].is_null(), "{body:#}");
    }
    panic!("the hand never ended");
}

fn player_at(view: &Value, seat: u64) -> String {
    view["seats"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| u(&s["seat"]) == seat)
        .map(|s| s["player"].as_str().unwrap().to_owned())
        .unwrap()
}

fn token_of<'a>(tokens: &'a [(String, String)], player: &str) -> &'a str {
    &tokens.iter().find(|(p, _)| p == player).unwrap().1
}

async fn a_cash_session(app: &TestApp) {
    let host = app.token(Role::Host, Some("oracle-room"), None).await;
    let other_host = app.token(Role::Host, Some("elsewhere"), None).await;
    let mut tokens = Vec::new();
    for p in ["ann", "bob", "cat", "dan"] {
        tokens.push((p.to_owned(), app.token(Role::Player, None, Some(p)).await));
    }
    let open = json!({"i": {
        "id": "ring-1", "venue": "oracle-room", "name": "1/2 No-Limit", "house": "ORACLE",
        "smallBlind": 1, "bigBlind": 2, "minBuyIn": 40, "maxBuyIn": 200, "seats": 6,
        "straddle": true, "sessionFee": {"amount": 3, "periodMinutes": 30}
    }});
    // Only the venue's staff open a table there.
    let refused = app.graphql(Some(&other_host), OPEN, open.clone()).await;
    assert_eq!(code(&refused), "FORBIDDEN");
    let body = app.graphql(Some(&host), OPEN, open.clone()).await;
    assert!(body["errors"].is_null(), "{body:#}");
    assert_eq!(body["data"]["openCashTable"]["createdId"], "ring-1");
    assert_eq!(
        body["data"]["openCashTable"]["cashTable"]["straddle"],
        "UNDER_THE_GUN"
    );
    // A tournament house runs no cash games.
    let mut wrong = open.clone();
    wrong["i"]["id"] = json!("ring-2");
    wrong["i"]["house"] = json!("QUEENSIX");
    let body = app.graphql(Some(&host), OPEN, wrong).await;
    assert_eq!(code(&body), "BAD_INPUT", "{body:#}");

    // The watcher: anonymous, the public view.
    let mut ws = app
        .subscribe(
            "graphql-transport-ws",
            json!({}),
            json!({"id": "1", "type": "subscribe", "payload": {"query": "subscription { cashTable(id: \"ring-1\") { version seats { player } table { seats { cards } } } }"}}),
        )
        .await;
    let first = loop {
        let m = next_message(&mut ws, "the table").await;
        if m["type"] == "next" {
            break m;
        }
    };
    let first_version = u(&first["payload"]["data"]["cashTable"]["version"]);

    // Players buy in for themselves only, within the limits.
    let sit = |seat: u64, player: &str, buy_in: u64| json!({"i": {"table": "ring-1", "seat": seat, "player": player, "buyIn": buy_in}});
    let body = app
        .graphql(Some(&tokens[0].1), SIT, sit(0, "bob", 100))
        .await;
    assert_eq!(code(&body), "FORBIDDEN", "{body:#}");
    let body = app
        .graphql(Some(&tokens[0].1), SIT, sit(0, "ann", 39))
        .await;
    assert_eq!(code(&body), "RULE_VIOLATION", "{body:#}");
    assert_eq!(
        body["errors"][0]["extensions"]["rule"],
        "BELOW_MINIMUM_BUY_IN"
    );
    let mut bought = 0;
    for (seat, (player, token)) in (0u64..).zip(tokens.iter()) {
        let buy_in = 100 + 20 * seat;
        let body = app
            .graphql(Some(token), SIT, sit(seat, player, buy_in))
            .await;
        assert!(body["errors"].is_null(), "{body:#}");
        bought += buy_in;
    }
    // The watcher saw the table change.
    let next = loop {
        let m = next_message(&mut ws, "a later view").await;
        if m["type"] == "next" {
            break m;
        }
    };
    assert!(u(&next["payload"]["data"]["cashTable"]["version"]) > first_version);

    // The first session fee, collected before the deal.
    let body = app
        .graphql(
            Some(&host),
            "mutation { chargeSessionFee(input: {table: \"ring-1\"}) { events } }",
            json!({}),
        )
        .await;
    assert!(body["errors"].is_null(), "{body:#}");
    let mut taken = 4 * 3;
    // Not again within the period.
    let body = app
        .graphql(
            Some(&host),
            "mutation { chargeSessionFee(input: {table: \"ring-1\"}) { events } }",
            json!({}),
        )
        .await;
    assert_eq!(
        body["errors"][0]["extensions"]["rule"], "FEE_NOT_DUE",
        "{body:#}"
    );

    // Hands: dealt by the host, played by each seat's own player.
    for _ in 0..3 {
        let body = app
            .graphql(Some(&host), DEAL, json!({"i": {"table": "ring-1"}}))
            .await;
        assert!(body["errors"].is_null(), "{body:#}");
        // The public sees no hole cards in a hand being played; a player sees their own.
        let public = view(app, None, "ring-1").await;
        assert!(
            public["table"]["seats"]
                .as_array()
                .unwrap()
                .iter()
                .all(|s| s["cards"].is_null()),
            "{public:#}"
        );
        assert!(
            public["takings"].is_null(),
            "the public does not see the takings"
        );
        let own = view(app, Some(&tokens[1].1), "ring-1").await;
        let seen: Vec<&Value> = own["table"]["seats"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| !s["cards"].is_null())
            .collect();
        assert_eq!(seen.len(), 1);
        assert_eq!(seen[0]["player"], "bob");
        play_hand(app, &tokens, "ring-1", bought - taken).await;
    }

    // The floor kills a hand out of turn (cards thrown into another player's: Hippodrome
    // Dead hands 3): only the venue's staff; the seat is out of the hand at once, the turn
    // stays where it was, and every chip stays on the table.
    let body = app
        .graphql(Some(&host), DEAL, json!({"i": {"table": "ring-1"}}))
        .await;
    assert!(body["errors"].is_null(), "{body:#}");
    let v = view(app, Some(&host), "ring-1").await;
    let to_act = u(&v["table"]["toAct"]);
    let in_hand = |v: &Value, seat: u64| -> Value {
        v["table"]["seats"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| u(&s["seat"]) == seat)
            .unwrap()["inHand"]
            .clone()
    };
    let victim = (0..4)
        .find(|&s| s != to_act && in_hand(&v, s) == true)
        .unwrap();
    let kill = "mutation($i: KillCashHandInput!) { killCashHand(input: $i) { events } }";
    let input = json!({"i": {"table": "ring-1", "seat": victim, "cause": "FOULED", "reason": "cards thrown into another player's hand"}});
    for token in [&other_host, &tokens[0].1] {
        let body = app.graphql(Some(token), kill, input.clone()).await;
        assert_eq!(code(&body), "FORBIDDEN", "{body:#}");
    }
    let body = app.graphql(Some(&host), kill, input).await;
    assert!(body["errors"].is_null(), "{body:#}");
    let after = counted(app, "ring-1").await;
    assert_eq!(in_hand(&after, victim), false, "{after:#}");
    assert_eq!(u(&after["table"]["toAct"]), to_act);
    assert_eq!(on_table(&after), bought - taken);
    play_hand(app, &tokens, "ring-1", bought - taken).await;

    // The player to act shows a card (Oracle exposing cards): the floor takes their
    // aggressive action away for the hand. They are offered no raise, and one is refused;
    // the hand plays on.
    let body = app
        .graphql(Some(&host), DEAL, json!({"i": {"table": "ring-1"}}))
        .await;
    assert!(body["errors"].is_null(), "{body:#}");
    let to_act = u(&body["data"]["dealCashHand"]["cashTable"]["table"]["toAct"]);
    let before = view(app, Some(&host), "ring-1").await;
    assert!(!before["table"]["legalActions"]["betOrRaise"].is_null());
    let forfeit = "mutation($i: ForfeitCashAggressionInput!) { forfeitCashAggression(input: $i) { events cashTable { table { legalActions { seat call betOrRaise { min } } seats { seat aggressionForfeited } } } } }";
    let input = json!({"i": {"table": "ring-1", "seat": to_act, "reason": "turned a card up to a neighbour"}});
    let body = app
        .graphql(Some(&tokens[0].1), forfeit, input.clone())
        .await;
    assert_eq!(code(&body), "FORBIDDEN", "{body:#}");
    let body = app.graphql(Some(&host), forfeit, input.clone()).await;
    assert!(body["errors"].is_null(), "{body:#}");
    let legal = &body["data"]["forfeitCashAggression"]["cashTable"]["table"]["legalActions"];
    assert_eq!(u(&legal["seat"]), to_act);
    assert!(legal["betOrRaise"].is_null(), "{body:#}");
    let seats = &body["data"]["forfeitCashAggression"]["cashTable"]["table"]["seats"];
    for seat in seats.as_array().unwrap() {
        assert_eq!(
            seat["aggressionForfeited"] == true,
            u(&seat["seat"]) == to_act,
            "{seats:#}"
        );
    }
    let body = app.graphql(Some(&host), forfeit, input).await;
    assert_eq!(code(&body), "RULE_VIOLATION", "once a hand: {body:#}");
    let player = player_at(&before, to_act);
    let raise = app
        .graphql(
            Some(token_of(&tokens, &player)),
            ACT,
            json!({"i": {"table": "ring-1", "seat": to_act, "action": "RAISE_TO", "amount": 100}}),
        )
        .await;
    assert_eq!(code(&raise), "RULE_VIOLATION", "{raise:#}");
    assert!(
        raise["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("lost its aggressive action for the rest of the hand"),
        "{raise:#}"
    );
    play_hand(app, &tokens, "ring-1", bought - taken).await;

    // Cat sits out; the blinds pass her; she comes back posting them.
    let body = app
        .graphql(
            Some(&tokens[2].1),
            "mutation { sitOut(input: {table: \"ring-1\", seat: 2}) { events } }",
            json!({}),
        )
        .await;
    assert!(body["errors"].is_null(), "{body:#}");
    for _ in 0..4 {
        app.graphql(Some(&host), DEAL, json!({"i": {"table": "ring-1"}}))
            .await;
        play_hand(app, &tokens, "ring-1", bought - taken).await;
    }
    let v = view(app, Some(&host), "ring-1").await;
    let cat = &v["seats"][2];
    assert_eq!(cat["sittingOut"], true);
    assert_eq!(cat["owesBigBlind"], true, "{v:#}");
    let body = app
        .graphql(
            Some(&tokens[2].1),
            "mutation { comeBack(input: {table: \"ring-1\", seat: 2, post: true}) { cashTable { seats { seat posting } } } }",
            json!({}),
        )
        .await;
    assert!(body["errors"].is_null(), "{body:#}");
    assert_eq!(
        body["data"]["comeBack"]["cashTable"]["seats"][2]["posting"],
        true
    );

    // Dan tops up; Ann cashes out with what she has.
    let v = view(app, None, "ring-1").await;
    let dan = u(&v["seats"][3]["chips"]);
    if dan < 200 {
        let body = app
            .graphql(
                Some(&tokens[3].1),
                "mutation($a: Chips!) { topUp(input: {table: \"ring-1\", seat: 3, amount: $a}) { events } }",
                json!({"a": 200 - dan}),
            )
            .await;
        assert!(body["errors"].is_null(), "{body:#}");
        bought += 200 - dan;
    }
    let ann = u(&v["seats"][0]["chips"]);
    let body = app
        .graphql(
            Some(&tokens[0].1),
            "mutation { cashOut(input: {table: \"ring-1\", seat: 0}) { events cashTable { seatsFree } } }",
            json!({}),
        )
        .await;
    assert!(body["errors"].is_null(), "{body:#}");
    let cashed = ann;
    let v = counted(app, "ring-1").await;
    assert_eq!(on_table(&v) + cashed + taken, bought, "{v:#}");

    // The house's takings: what the fee events in the log took.
    let body = app
        .graphql(
            Some(&host),
            "query { cashTakings(venue: \"oracle-room\") { table name day amount } }",
            json!({}),
        )
        .await;
    assert!(body["errors"].is_null(), "{body:#}");
    let rows = body["data"]["cashTakings"].as_array().unwrap();
    let query_total: u64 = rows.iter().map(|r| u(&r["amount"])).sum();
    let mut logged = 0;
    for e in app.store.read_all(0, 100_000).await.unwrap() {
        if !e.stream_id.starts_with("cash:") {
            continue;
        }
        let event: CashEvent =
            league_events::decode(&e.event_type, e.schema_version, &e.payload).unwrap();
        match event {
            CashEvent::SessionFeeCharged { paid, .. } => {
                logged += paid.iter().map(|f| f.amount.get()).sum::<u64>()
            }
            CashEvent::SessionFeePaid { amount, .. } => logged += amount.get(),
            _ => {}
        }
    }
    taken = logged;
    assert_eq!(query_total, taken);
    assert_eq!(u(&v["takings"]), taken);
    let public = app
        .graphql(
            None,
            "query { cashTakings(venue: \"oracle-room\") { amount } }",
            json!({}),
        )
        .await;
    assert_eq!(code(&public), "UNAUTHENTICATED");

    // Closing cashes everyone out.
    let body = app
        .graphql(
            Some(&host),
            "mutation { closeCashTable(input: {id: \"ring-1\"}) { cashTable { closed seats { seat } } } }",
            json!({}),
        )
        .await;
    assert!(body["errors"].is_null(), "{body:#}");
    assert_eq!(body["data"]["closeCashTable"]["cashTable"]["closed"], true);
    let listed = app
        .graphql(None, "query { cashTables { id } }", json!({}))
        .await;
    assert_eq!(listed["data"]["cashTables"], json!([]));
}

on_every_backend!(a_cash_session);
