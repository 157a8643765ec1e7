//! The floor's rulings through the API, as a venue's host makes them at a table tracked by
//! hand (`recorded`): a hand with an exposed card declared a misdeal and re-dealt on the
//! same button; the clock called on a player and run out by the server, the hand dead; a
//! bet out of turn ruled by the house, WPH's rule 31 and the invitational's 5.5 giving
//! different answers to the same table; a hand killed out of turn, dead at once; a pot
//! impounded, a mucked hand retrieved and another seen at a player's request; a call ruled
//! not binding after the bettor showed (QueenSix NLHE 10.1); a bettor who exposed a card
//! losing their aggressive action for the hand (Oracle's exposing cards 2); two
//! players out in one hand on the bubble, placed by the house's rule and scored by the
//! league.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test")]

use std::time::{Duration, Instant};

use league_api::auth::Role;
use league_engine::rules::Preset;
use league_engine::tournament::play::Tracking;
use league_engine::tournament::sim::weekly_schedule;
use league_tests::{
    ACT, REGISTER, SCHEDULE, START, TestApp, a_league, assert_refused, code, on_every_backend,
    recorded, seed, u,
};
use serde_json::{Value, json};

const VIEW: &str = "query($t: ID!) { table(tournamentId: $t, table: 1) { hand inHand button toAct street awaitingBoard currentBet seats { seat player chips bet inHand } blinds { bigBlind } clock { seat calledAt expiresAt } outOfTurn { seat action amount } } }";
const START_HAND: &str =
    "mutation($t: ID!) { startHand(input: {tournamentId: $t, table: 1}) { events } }";
const VOID: &str = "mutation($t: ID!, $r: String) { voidHand(input: {tournamentId: $t, table: 1, kind: MISDEAL, reason: $r}) { events } }";
const CALL_CLOCK: &str = "mutation($t: ID!, $s: Int!) { callClock(input: {tournamentId: $t, table: 1, seat: $s}) { events table(table: 1) { clock { seat calledAt expiresAt } } } }";
const OUT_OF_TURN: &str = "mutation($t: ID!, $s: Int!, $a: ActionKind!, $amount: Chips) { actOutOfTurn(input: {tournamentId: $t, table: 1, seat: $s, action: $a, amount: $amount}) { events } }";
const KILL: &str = "mutation($t: ID!, $s: Int!, $c: KillCause!, $r: String!) { killHand(input: {tournamentId: $t, table: 1, seat: $s, cause: $c, reason: $r}) { events } }";
const BOARD: &str = "mutation($t: ID!, $c: [String!]!) { dealBoard(input: {tournamentId: $t, table: 1, cards: $c}) { events } }";

async fn view(app: &TestApp, id: &str) -> Value {
    let body = app.admin(VIEW, json!({"t": id})).await;
    assert!(body.get("errors").is_none(), "{body:#}");
    body["table"].clone()
}

fn chips(view: &Value, seat: u64) -> u64 {
    let seats = view["seats"].as_array().unwrap();
    u(&seats.iter().find(|s| u(&s["seat"]) == seat).unwrap()["chips"])
}

/// The seats that posted the blinds, with what they put in.
fn bets(view: &Value) -> Vec<(u64, u64)> {
    view["seats"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| u(&s["bet"]) > 0)
        .map(|s| (u(&s["seat"]), u(&s["bet"])))
        .collect()
}

async fn an_exposed_card_is_a_misdeal_and_the_hand_is_re_dealt_on_the_same_button(app: &TestApp) {
    a_league(app).await;
    recorded(app, "m1", Preset::Wph).await;
    let host = app.token(Role::Host, Some("crown"), None).await;
    let before = view(app, "m1").await;
    app.admin(START_HAND, json!({"t": "m1"})).await;
    let dealt = view(app, "m1").await;
    assert_eq!(dealt["inHand"], true);
    let (button, blinds) = (dealt["button"].clone(), bets(&dealt));
    assert_eq!(blinds.len(), 2, "{dealt:#}");
    // WPH 28: a misdeal before substantial action. Seat to act's first card was exposed.
    let body = app
        .graphql(
            Some(&host),
            VOID,
            json!({"t": "m1", "r": "the first card to the seat to act was dealt face up"}),
        )
        .await;
    assert!(body.get("errors").is_none(), "{body:#}");
    let void = view(app, "m1").await;
    assert_eq!(void["inHand"], false);
    for s in before["seats"].as_array().unwrap() {
        let seat = u(&s["seat"]);
        assert_eq!(chips(&void, seat), chips(&before, seat), "every chip back");
    }
    // Re-dealt: the same button, the same blinds from the same seats.
    app.admin(START_HAND, json!({"t": "m1"})).await;
    let again = view(app, "m1").await;
    assert_eq!(again["button"], button);
    assert_eq!(bets(&again), blinds);
    // Once the hand is under way past the cut-off, a misdeal is refused and nothing is
    // appended: the hand is played out.
    for _ in 0..2 {
        let table = view(app, "m1").await;
        let seat = u(&table["toAct"]);
        app.admin(
            ACT,
            json!({"t": "m1", "table": 1, "seat": seat, "a": "CALL"}),
        )
        .await;
    }
    let last = app.last_position().await;
    let body = app
        .graphql(Some(&host), VOID, json!({"t": "m1", "r": "too late"}))
        .await;
    assert_eq!(code(&body), "RULE_VIOLATION", "{body:#}");
    assert_eq!(app.last_position().await, last);
    // The auditor reads who declared the misdeal, and why.
    let events = app.stream_events("tournament:m1").await;
    let voided = events
        .iter()
        .find(|(_, _, p)| p["data"]["event"]["type"] == "HandVoided")
        .unwrap();
    assert!(voided.1.starts_with("host:crown:"), "{voided:?}");
    assert_eq!(
        voided.2["data"]["event"]["data"]["reason"]["Misdeal"],
        "the first card to the seat to act was dealt face up"
    );
}

async fn the_clock_called_on_a_player_runs_out_and_the_hand_is_dead(app: &TestApp) {
    a_league(app).await;
    // The Hippodrome's clock: ten seconds, the shortest of the five houses.
    recorded(app, "k1", Preset::Hippodrome).await;
    let host = app.token(Role::Host, Some("crown"), None).await;
    let ann = app.token(Role::Player, None, Some("ann")).await;
    app.admin(START_HAND, json!({"t": "k1"})).await;
    let table = view(app, "k1").await;
    let seat = u(&table["toAct"]);
    assert_eq!(table["clock"], Value::Null);
    // Not the seat to act: refused, with the seat that is.
    let last = app.last_position().await;
    let other = table["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| u(&s["seat"]))
        .find(|s| *s != seat)
        .unwrap();
    let body = app
        .graphql(Some(&host), CALL_CLOCK, json!({"t": "k1", "s": other}))
        .await;
    assert_eq!(code(&body), "NOT_YOUR_TURN", "{body:#}");
    assert_eq!(
        body["errors"][0]["extensions"]["expected"], seat,
        "{body:#}"
    );
    // Only the venue's staff call the clock.
    let body = app
        .graphql(Some(&ann), CALL_CLOCK, json!({"t": "k1", "s": seat}))
        .await;
    assert_eq!(code(&body), "FORBIDDEN", "{body:#}");
    assert_eq!(app.last_position().await, last);

    let called = Instant::now();
    let body = app
        .graphql(Some(&host), CALL_CLOCK, json!({"t": "k1", "s": seat}))
        .await;
    assert!(body.get("errors").is_none(), "{body:#}");
    let clock = &body["data"]["callClock"]["table"]["clock"];
    assert_eq!(u(&clock["seat"]), seat);
    assert_eq!(u(&clock["expiresAt"]) - u(&clock["calledAt"]), 10_000);
    // Twice: refused while it runs.
    let body = app
        .graphql(Some(&host), CALL_CLOCK, json!({"t": "k1", "s": seat}))
        .await;
    assert_eq!(code(&body), "RULE_VIOLATION", "{body:#}");
    // The server runs it out: nobody sends anything.
    let dead = loop {
        let table = view(app, "k1").await;
        if table["toAct"] != json!(seat) {
            break table;
        }
        assert!(
            called.elapsed() < Duration::from_secs(30),
            "the clock never ran out"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert!(
        called.elapsed() >= Duration::from_millis(9_500),
        "the hand died before the clock ran out: {:?}",
        called.elapsed()
    );
    let out = dead["seats"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| u(&s["seat"]) == seat)
        .unwrap();
    assert_eq!(out["inHand"], false, "{dead:#}");
    assert_eq!(dead["clock"], Value::Null);
    let events = app.stream_events("tournament:k1").await;
    let (_, actor, payload) = events
        .iter()
        .find(|(_, _, p)| p["data"]["event"]["type"] == "PlayerFolded")
        .unwrap();
    assert_eq!(actor, league_app::clock::ACTOR);
    assert_eq!(payload["data"]["event"]["data"]["reason"], "ClockExpired");
    assert_eq!(u(&payload["data"]["event"]["data"]["seat"]), seat);
}

/// The tournament `id` under `preset`, its first hand on the flop after everyone called:
/// returns the view and the seats first and second to act on the flop and the button (last).
async fn on_the_flop(app: &TestApp, id: &str, preset: Preset) -> (Value, [u64; 3]) {
    a_league(app).await;
    recorded(app, id, preset).await;
    app.admin(START_HAND, json!({"t": id})).await;
    loop {
        let table = view(app, id).await;
        if table["awaitingBoard"] == "FLOP" {
            break;
        }
        let seat = u(&table["toAct"]);
        let a = if u(&table["seats"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| u(&s["seat"]) == seat)
            .unwrap()["bet"])
            < u(&table["currentBet"])
        {
            "CALL"
        } else {
            "CHECK"
        };
        let body = app
            .admin(ACT, json!({"t": id, "table": 1, "seat": seat, "a": a}))
            .await;
        assert!(body.get("errors").is_none(), "{body:#}");
    }
    let body = app
        .admin(BOARD, json!({"t": id, "c": ["2c", "7d", "9h"]}))
        .await;
    assert!(body.get("errors").is_none(), "{body:#}");
    let table = view(app, id).await;
    let first = u(&table["toAct"]);
    let button = u(&table["button"]);
    let second = table["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| u(&s["seat"]))
        .find(|s| *s != first && *s != button)
        .unwrap();
    (table, [first, second, button])
}

/// The button bets two big blinds out of turn on the flop; the two players before it check.
/// Returns the table before and after, and the button's bet.
async fn a_bet_out_of_turn_then_two_checks(
    app: &TestApp,
    id: &str,
    preset: Preset,
) -> (Value, Value, [u64; 3], u64) {
    let (table, [a, b, c]) = on_the_flop(app, id, preset).await;
    let host = app.token(Role::Host, Some("crown"), None).await;
    let bet = 2 * u(&table["blinds"]["bigBlind"]);
    let body = app
        .graphql(
            Some(&host),
            OUT_OF_TURN,
            json!({"t": id, "s": c, "a": "BET", "amount": bet}),
        )
        .await;
    assert!(body.get("errors").is_none(), "{body:#}");
    let waiting = view(app, id).await;
    assert_eq!(
        u(&waiting["toAct"]),
        a,
        "the action stays with the player in turn"
    );
    assert_eq!(
        waiting["outOfTurn"],
        json!({"seat": c, "action": "BET", "amount": bet})
    );
    assert_eq!(chips(&waiting, c), chips(&table, c), "nothing taken yet");
    for seat in [a, b] {
        let body = app
            .admin(
                ACT,
                json!({"t": id, "table": 1, "seat": seat, "a": "CHECK"}),
            )
            .await;
        assert!(body.get("errors").is_none(), "{body:#}");
    }
    (table, view(app, id).await, [a, b, c], bet)
}

/// The ruling as the log records it.
async fn ruling(app: &TestApp, id: &str) -> String {
    let events = app.stream_events(&format!("tournament:{id}")).await;
    let (_, _, payload) = events
        .iter()
        .rev()
        .find(|(_, _, p)| p["data"]["event"]["type"] == "OutOfTurnRuled")
        .unwrap();
    payload["data"]["event"]["data"]["ruling"]
        .as_str()
        .unwrap()
        .to_owned()
}

async fn wph_31_a_bet_out_of_turn_after_two_checks_is_taken_back(app: &TestApp) {
    // WPH 31: "Where a player bets out of turn, action will go back to the in turn player.
    // If this player: - CHECKS, the out of turn player is forced to check and take back
    // their bet."
    let (before, after, [_, _, c], _) =
        a_bet_out_of_turn_then_two_checks(app, "w1", Preset::Wph).await;
    assert_eq!(ruling(app, "w1").await, "MustCheck");
    assert_eq!(chips(&after, c), chips(&before, c), "the bet taken back");
    assert_eq!(after["awaitingBoard"], "TURN", "checked around: {after:#}");
    assert_eq!(after["outOfTurn"], Value::Null);
    // A seat with no action due cannot declare one.
    let host = app.token(Role::Host, Some("crown"), None).await;
    let last = app.last_position().await;
    let body = app
        .graphql(
            Some(&host),
            OUT_OF_TURN,
            json!({"t": "w1", "s": c, "a": "CHECK"}),
        )
        .await;
    assert_eq!(code(&body), "RULE_VIOLATION", "{body:#}");
    // A player cannot record it for themselves.
    let ann = app.token(Role::Player, None, Some("ann")).await;
    let body = app
        .graphql(
            Some(&ann),
            OUT_OF_TURN,
            json!({"t": "w1", "s": c, "a": "FOLD"}),
        )
        .await;
    assert_eq!(code(&body), "FORBIDDEN", "{body:#}");
    assert_eq!(app.last_position().await, last);
}

async fn invitational_5_5_a_bet_out_of_turn_after_two_checks_stands(app: &TestApp) {
    // Invitational 5.5: "A player who makes a verbal declaration of action out of turn
    // shall be held to that action when it is his turn, unless intervening action changes
    // the action the out-of-turn actor is facing." Two checks change nothing: the bet
    // stands, and the others face it.
    let (before, after, [a, _, c], bet) =
        a_bet_out_of_turn_then_two_checks(app, "i1", Preset::Invitational).await;
    assert_eq!(ruling(app, "i1").await, "Binding");
    assert_eq!(chips(&after, c), chips(&before, c) - bet, "the bet stands");
    assert_eq!(u(&after["toAct"]), a, "the first checker faces the bet");
    assert_eq!(u(&after["currentBet"]), bet);
}

async fn a_hand_killed_out_of_turn_is_dead_at_once_and_its_turn_passed_over(app: &TestApp) {
    // WPH 46: "a player's hand is declared dead when it is clear that their intention was
    // to fold, they do not need to be in the muck to be declared dead by a floorperson".
    let (table, [first, second, button]) = on_the_flop(app, "k1", Preset::Wph).await;
    let host = app.token(Role::Host, Some("crown"), None).await;
    let other = app.token(Role::Host, Some("anchor"), None).await;
    let ann = app.token(Role::Player, None, Some("ann")).await;
    let bet = 2 * u(&table["blinds"]["bigBlind"]);
    let body = app
        .admin(
            ACT,
            json!({"t": "k1", "table": 1, "seat": first, "a": "BET", "amount": bet}),
        )
        .await;
    assert!(body.get("errors").is_none(), "{body:#}");
    let last = app.last_position().await;
    for (token, seat, reason, expected, field) in [
        (&other, button, "threw them in", "FORBIDDEN", None),
        (&ann, button, "threw them in", "FORBIDDEN", None),
        (&host, button, "  ", "BAD_INPUT", Some("reason")),
        (&host, 9, "threw them in", "BAD_INPUT", Some("seat")),
        // The bet is not called yet and two others are still in: it is the bettor's until
        // it is called (WPH 45 gives an uncalled bet back to a killed hand).
        (&host, first, "cards exposed", "RULE_VIOLATION", None),
    ] {
        let vars = json!({"t": "k1", "s": seat, "c": "CLEAR_INTENT", "r": reason});
        assert_refused(app, token, KILL, &vars, expected, field).await;
    }
    assert_eq!(app.last_position().await, last, "nothing appended");
    // The button, not yet in turn, pushes its cards toward the muck: dead at once.
    let reason = "pushed both cards toward the muck facing the bet";
    let body = app
        .graphql(
            Some(&host),
            KILL,
            json!({"t": "k1", "s": button, "c": "CLEAR_INTENT", "r": reason}),
        )
        .await;
    assert!(body.get("errors").is_none(), "{body:#}");
    let after = view(app, "k1").await;
    assert_eq!(u(&after["toAct"]), second, "the player in turn still acts");
    let seat_of = |v: &Value, seat: u64| -> Value {
        v["seats"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| u(&s["seat"]) == seat)
            .unwrap()
            .clone()
    };
    assert_eq!(seat_of(&after, button)["inHand"], false, "{after:#}");
    assert_eq!(
        chips(&after, button),
        chips(&table, button),
        "its chips stay in"
    );
    let body = app
        .graphql(
            Some(&host),
            KILL,
            json!({"t": "k1", "s": button, "c": "EXPOSED", "r": "again"}),
        )
        .await;
    assert_eq!(code(&body), "RULE_VIOLATION", "{body:#}");
    // The second player calls; the button's turn is passed over and the flop's betting
    // is done.
    let body = app
        .admin(
            ACT,
            json!({"t": "k1", "table": 1, "seat": second, "a": "CALL"}),
        )
        .await;
    assert!(body.get("errors").is_none(), "{body:#}");
    assert_eq!(view(app, "k1").await["awaitingBoard"], "TURN");
    // The log names the ruling, who made it and why.
    let events = app.stream_events("tournament:k1").await;
    let (_, actor, payload) = events
        .iter()
        .find(|(_, _, p)| p["data"]["event"]["type"] == "HandKilled")
        .unwrap();
    assert!(actor.starts_with("host:crown"), "{actor}");
    assert_eq!(
        payload["data"]["event"]["data"],
        json!({"seat": button, "cause": "ClearIntent", "reason": reason})
    );
    // Played out: the first player bets the turn and the second folds.
    app.admin(BOARD, json!({"t": "k1", "c": ["Ks"]})).await;
    for (seat, a, amount) in [(first, "BET", Some(bet)), (second, "FOLD", None)] {
        let body = app
            .admin(
                ACT,
                json!({"t": "k1", "table": 1, "seat": seat, "a": a, "amount": amount}),
            )
            .await;
        assert!(body.get("errors").is_none(), "{body:#}");
    }
    assert_eq!(view(app, "k1").await["inHand"], false);
    // The hand history folds the button at its turn, after the call (p1 to act first on
    // the flop, the button p3).
    let body = app
        .admin(
            "query { handHistory(tournamentId: \"k1\") { text } }",
            json!({}),
        )
        .await;
    let text = body["handHistory"][0]["text"].as_str().unwrap();
    assert!(
        text.contains(&format!("'p1 cbr {bet}', 'p2 cc', 'p3 f'")),
        "{text}"
    );
}

/// Plays the hand in progress at a recorded table to its end through the API, as
/// `support/tour.rs` does in the engine's tests: the players named in `holes` go all in,
/// the others check or fold; the board is recorded and the named players show.
async fn all_in(app: &TestApp, id: &str, table: u32, holes: &[(&str, &str)], board: &[&str]) {
    let query = "query($t: ID!, $n: Int!) { table(tournamentId: $t, table: $n) { inHand toAct legalActions { canCheck call betOrRaise { max } } awaitingBoard board toShow seats { seat player } } }";
    for _ in 0..60 {
        let view = app.admin(query, json!({"t": id, "n": table})).await;
        let view = &view["table"];
        if view["inHand"] != true {
            return;
        }
        let player = |seat: &Value| -> String {
            view["seats"]
                .as_array()
                .unwrap()
                .iter()
                .find(|s| s["seat"] == *seat)
                .unwrap()["player"]
                .as_str()
                .unwrap()
                .to_owned()
        };
        let cards = |seat: &Value| holes.iter().find(|(p, _)| *p == player(seat)).map(|h| h.1);
        let body = if !view["toAct"].is_null() {
            let seat = &view["toAct"];
            let legal = &view["legalActions"];
            let a = if cards(seat).is_some() && legal["betOrRaise"].is_null() {
                // It may not bet or raise: it calls an all-in for everything it has, or
                // checks when nothing is left to call (everyone else is all in).
                if legal["canCheck"] == true {
                    "CHECK"
                } else {
                    "CALL"
                }
            } else if cards(seat).is_some() {
                "ALL_IN"
            } else if legal["canCheck"] == true {
                "CHECK"
            } else {
                "FOLD"
            };
            app.admin(ACT, json!({"t": id, "table": table, "seat": seat, "a": a}))
                .await
        } else if !view["awaitingBoard"].is_null() {
            let dealt = view["board"].as_array().unwrap().len();
            let n = if dealt == 0 { 3 } else { 1 };
            app.admin(
                "mutation($t: ID!, $n: Int!, $c: [String!]!) { dealBoard(input: {tournamentId: $t, table: $n, cards: $c}) { events } }",
                json!({"t": id, "n": table, "c": board[dealt..dealt + n]}),
            )
            .await
        } else {
            let seat = &view["toShow"];
            match cards(seat) {
                Some(c) => app.admin(
                    "mutation($t: ID!, $n: Int!, $s: Int!, $c: [String!]) { show(input: {tournamentId: $t, table: $n, seat: $s, cards: $c}) { events } }",
                    json!({"t": id, "n": table, "s": seat, "c": [&c[..2], &c[2..]]}),
                )
                .await,
                None => app.admin(
                    "mutation($t: ID!, $n: Int!, $s: Int!) { muck(input: {tournamentId: $t, table: $n, seat: $s}) { events } }",
                    json!({"t": id, "n": table, "s": seat}),
                )
                .await,
            }
        };
        assert!(body.get("errors").is_none(), "{body:#}");
    }
    panic!("the hand at table {table} did not end");
}

const NIGHT: &str = "query($t: ID!) { tournament(id: $t) { stage remaining handForHand pending { kind } tables { table seats { player chips } } places { player place shared } } }";

/// The players at `table`, with their chips.
fn at_table(night: &Value, table: u64) -> Vec<(String, u64)> {
    night["tournament"]["tables"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| u(&t["table"]) == table)
        .flat_map(|t| t["seats"].as_array().unwrap().clone())
        .map(|s| (s["player"].as_str().unwrap().to_owned(), u(&s["chips"])))
        .collect()
}

async fn two_out_in_one_hand_on_the_bubble_are_placed_by_the_house_rule_and_scored(app: &TestApp) {
    // QueenSix 31: "If multiple players go broke on the same hand, the player starting the
    // hand with the larger amount of chips finishes in the higher place for prize money and
    // any other award."
    use league_engine::tournament::{PayoutStructure, PayoutTable};
    a_league(app).await;
    for p in ["dan", "eve", "fay"] {
        app.admin(
            "mutation($p: ID!) { registerPlayer(input: {leagueId: \"apl\", player: $p, name: $p, membership: $p}) { events } }",
            json!({"p": p}),
        )
        .await;
    }
    // A season scored down to the last place: n - r + 1 points.
    let body = app
        .admin(
            "mutation { addSeason(input: {leagueId: \"apl\", season: \"s2\", scoring: {formula: \"n - r + 1\"}}) { events } }",
            json!({}),
        )
        .await;
    assert!(body.get("errors").is_none(), "{body:#}");
    // Six players at two tables of three; four paid.
    let mut schedule = weekly_schedule(
        "crown",
        Preset::QueenSix,
        Tracking::Recorded,
        seed(1).commitment(),
    );
    schedule.table_size = 3;
    schedule.payouts = PayoutTable::new(vec![
        (1, PayoutStructure::new(vec![10_000]).unwrap()),
        (
            6,
            PayoutStructure::new(vec![4_000, 3_000, 2_000, 1_000]).unwrap(),
        ),
    ])
    .unwrap();
    let schedule = league_api::schema::tournaments::inputs::schedule_input(&schedule);
    let body = app
        .admin(SCHEDULE, json!({"id": "b1", "s": schedule}))
        .await;
    assert!(body.get("errors").is_none(), "{body:#}");
    for p in ["ann", "bob", "cat", "dan", "eve", "fay"] {
        app.admin(REGISTER, json!({"t": "b1", "p": p})).await;
    }
    app.admin(START, json!({"t": "b1"})).await;
    let start = |n: u32| {
        app.admin(
            "mutation($t: ID!, $n: Int!) { startHand(input: {tournamentId: $t, table: $n}) { events } }",
            json!({"t": "b1", "n": n}),
        )
    };
    // Table 2 folds to the big blind: its three stacks now differ.
    start(2).await;
    all_in(app, "b1", 2, &[], &[]).await;
    // Table 1: one player out; five left, four paid: hand for hand.
    start(1).await;
    let night = app.admin(NIGHT, json!({"t": "b1"})).await;
    let one = at_table(&night, 1);
    all_in(
        app,
        "b1",
        1,
        &[(&one[0].0, "AsAh"), (&one[1].0, "KsKh")],
        &["2c", "7d", "9h", "3s", "8d"],
    )
    .await;
    let night = app.admin(NIGHT, json!({"t": "b1"})).await;
    assert_eq!(night["tournament"]["remaining"], 5, "{night:#}");
    assert_eq!(night["tournament"]["handForHand"], true, "{night:#}");
    // Table 2: the smaller of the two losing stacks holds the better losing hand; both are
    // out in this hand.
    let mut two = at_table(&night, 2);
    two.sort_by_key(|(_, chips)| std::cmp::Reverse(*chips));
    let [big, middle, small] = [&two[0].0, &two[1].0, &two[2].0];
    assert!(two[0].1 > two[1].1 && two[1].1 > two[2].1, "{two:?}");
    start(2).await;
    all_in(
        app,
        "b1",
        2,
        &[(big, "AsAh"), (middle, "QsQh"), (small, "KsKh")],
        &["2c", "7d", "9h", "3s", "8d"],
    )
    .await;
    let night = app.admin(NIGHT, json!({"t": "b1"})).await;
    let place = |player: &str| -> (u64, bool) {
        let p = night["tournament"]["places"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["player"] == player)
            .unwrap_or_else(|| panic!("{player} has no place: {night:#}"));
        (u(&p["place"]), p["shared"] == true)
    };
    assert_eq!(
        place(middle),
        (4, false),
        "the larger starting stack: {night:#}"
    );
    assert_eq!(place(small), (5, false), "{night:#}");
    // Played to a winner: each hand, the first two players at a table go all in, the first
    // holding aces.
    for _ in 0..20 {
        let night = app.admin(NIGHT, json!({"t": "b1"})).await;
        if night["tournament"]["stage"] == "FINISHED" {
            break;
        }
        let kinds = night["tournament"]["pending"].to_string();
        if kinds.contains("REDRAW") {
            let body = app
                .admin(
                    "mutation { redraw(input: {tournamentId: \"b1\"}) { events } }",
                    json!({}),
                )
                .await;
            assert!(body.get("errors").is_none(), "{body:#}");
            continue;
        }
        let table = night["tournament"]["tables"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["seats"].as_array().unwrap().len() >= 2)
            .unwrap_or_else(|| panic!("no table to play: {night:#}"))
            .clone();
        let n = u32::try_from(u(&table["table"])).unwrap();
        let players: Vec<String> = table["seats"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["player"].as_str().unwrap().to_owned())
            .collect();
        let body = start(n).await;
        assert!(body.get("errors").is_none(), "{body:#}");
        all_in(
            app,
            "b1",
            n,
            &[(&players[0], "AsAh"), (&players[1], "KsKh")],
            &["2c", "7d", "9h", "3s", "8d"],
        )
        .await;
    }
    let night = app.admin(NIGHT, json!({"t": "b1"})).await;
    assert_eq!(night["tournament"]["stage"], "FINISHED", "{night:#}");
    // The league scores the places: 6 - 4 + 1 = 3 points and 6 - 5 + 1 = 2.
    let body = app
        .admin(
            "mutation { recordTournamentResult(input: {leagueId: \"apl\", tournamentId: \"b1\", season: \"s2\", day: 1}) { events } }",
            json!({}),
        )
        .await;
    assert!(body.get("errors").is_none(), "{body:#}");
    let standings = app
        .admin(
            "query { standings(leagueId: \"apl\", season: \"s2\") { player points } }",
            json!({}),
        )
        .await;
    let points = |player: &str| -> Value {
        standings["standings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["player"] == player)
            .unwrap_or_else(|| panic!("{player}: {standings:#}"))["points"]
            .clone()
    };
    assert_eq!(points(middle), json!(3), "{standings:#}");
    assert_eq!(points(small), json!(2), "{standings:#}");
}

const IMPOUND: &str = "mutation($t: ID!, $r: String!) { impoundPot(input: {tournamentId: $t, table: 1, reason: $r}) { events table(table: 1) { potImpounded } } }";
const RELEASE: &str = "mutation($t: ID!, $r: String!) { releasePot(input: {tournamentId: $t, table: 1, reason: $r}) { events } }";
const RETRIEVE: &str = "mutation($t: ID!, $s: Int!, $c: [String!], $r: String!) { retrieveHand(input: {tournamentId: $t, table: 1, seat: $s, cards: $c, reason: $r}) { events } }";
const SEE: &str = "mutation($t: ID!, $s: Int!, $by: Int!, $c: [String!]) { seeHand(input: {tournamentId: $t, table: 1, seat: $s, askedBy: $by, cards: $c}) { events } }";
const TO_SHOW: &str =
    "query($t: ID!) { table(tournamentId: $t, table: 1) { toShow inHand potImpounded pot } }";

/// QueenSix dead hand 2 and showdown 5 at a recorded table: the three players check a
/// board to the showdown; the host impounds the pot as a dispute starts; the first to show
/// mucks aces, the second shows kings, the third mucks. The winner's request to see the
/// third hand makes it live (it loses anyway); the floor retrieves the aces, and releases
/// the pot to them.
async fn a_mucked_hand_is_retrieved_from_an_impounded_pot_and_another_seen_on_request(
    app: &TestApp,
) {
    let (table, [first, second, third]) = on_the_flop(app, "d1", Preset::QueenSix).await;
    let host = app.token(Role::Host, Some("crown"), None).await;
    let other = app.token(Role::Host, Some("anchor"), None).await;
    for street in [&["Js"][..], &["3d"][..], &[][..]] {
        loop {
            let v = view(app, "d1").await;
            let Some(seat) = v["toAct"].as_u64() else {
                break;
            };
            let body = app
                .admin(
                    ACT,
                    json!({"t": "d1", "table": 1, "seat": seat, "a": "CHECK"}),
                )
                .await;
            assert!(body.get("errors").is_none(), "{body:#}");
        }
        if !street.is_empty() {
            let body = app.admin(BOARD, json!({"t": "d1", "c": street})).await;
            assert!(body.get("errors").is_none(), "{body:#}");
        }
    }
    let showdown = app.admin(TO_SHOW, json!({"t": "d1"})).await;
    assert_eq!(u(&showdown["table"]["toShow"]), first, "{showdown:#}");
    let pot = u(&showdown["table"]["pot"]);
    let reason = "the first player says the dealer misread the board";
    let vars = json!({"t": "d1", "r": reason});
    let last = app.last_position().await;
    assert_refused(app, &other, IMPOUND, &vars, "FORBIDDEN", None).await;
    assert_refused(
        app,
        &host,
        IMPOUND,
        &json!({"t": "d1", "r": " "}),
        "BAD_INPUT",
        Some("reason"),
    )
    .await;
    assert_eq!(app.last_position().await, last, "nothing appended");
    let body = app.graphql(Some(&host), IMPOUND, vars.clone()).await;
    assert!(body.get("errors").is_none(), "{body:#}");
    assert_eq!(body["data"]["impoundPot"]["table"]["potImpounded"], true);
    assert_refused(app, &host, IMPOUND, &vars, "RULE_VIOLATION", None).await;
    let show = |seat: u64, cards: &[&str]| json!({"t": "d1", "s": seat, "c": cards});
    const SHOW: &str = "mutation($t: ID!, $s: Int!, $c: [String!]) { show(input: {tournamentId: $t, table: 1, seat: $s, cards: $c}) { events } }";
    const MUCK: &str = "mutation($t: ID!, $s: Int!) { muck(input: {tournamentId: $t, table: 1, seat: $s}) { events } }";
    for (query, vars) in [
        (MUCK, json!({"t": "d1", "s": first})),
        (SHOW, show(second, &["Kc", "Kh"])),
        (MUCK, json!({"t": "d1", "s": third})),
    ] {
        let body = app.admin(query, vars).await;
        assert!(body.get("errors").is_none(), "{body:#}");
    }
    let held = app.admin(TO_SHOW, json!({"t": "d1"})).await;
    assert_eq!(held["table"]["inHand"], true, "the pot waits: {held:#}");
    assert_eq!(held["table"]["potImpounded"], true);
    let held_view = view(app, "d1").await;
    assert_eq!(
        chips(&held_view, second),
        chips(&table, second),
        "nothing awarded yet"
    );
    // The winner (kings) asks to see the third hand: live, at QueenSix.
    let body = app
        .graphql(
            Some(&host),
            SEE,
            json!({"t": "d1", "s": third, "by": second, "c": ["3c", "4c"]}),
        )
        .await;
    assert!(body.get("errors").is_none(), "{body:#}");
    // Retrieving: a live hand, cards not two, a blank reason, another venue's host.
    let retrieve = |seat: u64, cards: &[&str], reason: &str| json!({"t": "d1", "s": seat, "c": cards, "r": reason});
    let why = "mucked on the dealer's misread; the cards lay apart";
    let last = app.last_position().await;
    assert_refused(
        app,
        &host,
        RETRIEVE,
        &retrieve(second, &["Kc", "Kh"], why),
        "RULE_VIOLATION",
        None,
    )
    .await;
    assert_refused(
        app,
        &host,
        RETRIEVE,
        &retrieve(first, &["Ac"], why),
        "BAD_INPUT",
        None,
    )
    .await;
    assert_refused(
        app,
        &host,
        RETRIEVE,
        &retrieve(first, &["Ac", "Ad"], ""),
        "BAD_INPUT",
        Some("reason"),
    )
    .await;
    assert_refused(
        app,
        &other,
        RETRIEVE,
        &retrieve(first, &["Ac", "Ad"], why),
        "FORBIDDEN",
        None,
    )
    .await;
    assert_eq!(app.last_position().await, last, "nothing appended");
    let body = app
        .graphql(Some(&host), RETRIEVE, retrieve(first, &["Ac", "Ad"], why))
        .await;
    assert!(body.get("errors").is_none(), "{body:#}");
    let body = app
        .graphql(
            Some(&host),
            RELEASE,
            json!({"t": "d1", "r": "the aces are retrieved"}),
        )
        .await;
    assert!(body.get("errors").is_none(), "{body:#}");
    let after = view(app, "d1").await;
    assert_eq!(after["inHand"], false);
    assert_eq!(
        chips(&after, first),
        chips(&table, first) + pot,
        "the aces win"
    );
    // The log names each ruling, who made it and why; the hand history shows the aces
    // where they were mucked.
    let events = app.stream_events("tournament:d1").await;
    let ruled = |kind: &str| {
        events
            .iter()
            .find(|(_, _, p)| p["data"]["event"]["type"] == kind)
            .unwrap_or_else(|| panic!("no {kind}"))
            .clone()
    };
    let (_, actor, payload) = ruled("HandRetrieved");
    assert!(actor.starts_with("host:crown"), "{actor}");
    assert_eq!(
        payload["data"]["event"]["data"],
        json!({"seat": first, "cards": ["Ac", "Ad"], "reason": why})
    );
    let (_, _, payload) = ruled("HandSeenOnRequest");
    assert_eq!(
        payload["data"]["event"]["data"],
        json!({"seat": third, "asked_by": second, "cards": ["3c", "4c"], "live": true, "rule": "WinnerMakesItLive"})
    );
    assert_eq!(
        ruled("PotImpounded").2["data"]["event"]["data"]["reason"],
        reason
    );
    ruled("PotReleased");
    let body = app
        .admin(
            "query { handHistory(tournamentId: \"d1\") { text } }",
            json!({}),
        )
        .await;
    let text = body["handHistory"][0]["text"].as_str().unwrap();
    assert!(text.contains("'p1 sm AcAd'"), "{text}");
}

const RETRACT: &str = "mutation($t: ID!, $s: Int!, $r: String!) { retractCall(input: {tournamentId: $t, table: 1, seat: $s, reason: $r}) { events table(table: 1) { inHand } } }";

/// QueenSix NLHE 10.1 at a recorded table: "On the end, a player puts a 500 chip into the
/// pot and says softly, 'Four hundred.' The opponent puts a 100 chip into the pot and
/// says, 'Call.' The bettor immediately shows the hand. ... the 'call' can be retracted."
/// The three players check to the river; the first bets 400, the second's call is entered
/// and the third folds; the bettor shows. The host rules the call not binding: the caller
/// has the 400 back and is out of the hand, the bettor's 400 goes back, and the bettor
/// takes the pot. WPH's book makes every call binding.
async fn queensix_nlhe_10_1_the_floor_rules_a_call_not_binding_after_the_bettor_shows(
    app: &TestApp,
) {
    let (_, [first, second, third]) = on_the_flop(app, "r1", Preset::QueenSix).await;
    let host = app.token(Role::Host, Some("crown"), None).await;
    let other = app.token(Role::Host, Some("anchor"), None).await;
    let act = |seat: u64, a: &str, amount: Option<u64>| json!({"t": "r1", "table": 1, "seat": seat, "a": a, "amount": amount});
    for street in [&["Js"][..], &["3d"][..]] {
        for seat in [first, second, third] {
            let body = app.admin(ACT, act(seat, "CHECK", None)).await;
            assert!(body.get("errors").is_none(), "{body:#}");
        }
        let body = app.admin(BOARD, json!({"t": "r1", "c": street})).await;
        assert!(body.get("errors").is_none(), "{body:#}");
    }
    let river = view(app, "r1").await;
    let pot = u(&app.admin(TO_SHOW, json!({"t": "r1"})).await["table"]["pot"]);
    for (seat, a, amount) in [
        (first, "BET", Some(400)),
        (second, "CALL", None),
        (third, "FOLD", None),
    ] {
        let body = app.admin(ACT, act(seat, a, amount)).await;
        assert!(body.get("errors").is_none(), "{body:#}");
    }
    const SHOW: &str = "mutation($t: ID!, $s: Int!, $c: [String!]) { show(input: {tournamentId: $t, table: 1, seat: $s, cards: $c}) { events } }";
    let body = app
        .admin(SHOW, json!({"t": "r1", "s": first, "c": ["Ac", "Ad"]}))
        .await;
    assert!(body.get("errors").is_none(), "{body:#}");
    let shown = view(app, "r1").await;
    assert_eq!(shown["inHand"], true, "the caller is still to show");
    assert_eq!(chips(&shown, second), chips(&river, second) - 400);
    // Refused, nothing appended: another venue's host, a blank reason, the folded hand.
    let why = "the bet was said softly as four hundred; the caller put in a 100 chip";
    let last = app.last_position().await;
    let retract = |seat: u64, reason: &str| json!({"t": "r1", "s": seat, "r": reason});
    assert_refused(
        app,
        &other,
        RETRACT,
        &retract(second, why),
        "FORBIDDEN",
        None,
    )
    .await;
    assert_refused(
        app,
        &host,
        RETRACT,
        &retract(second, " "),
        "BAD_INPUT",
        Some("reason"),
    )
    .await;
    assert_refused(
        app,
        &host,
        RETRACT,
        &retract(third, why),
        "RULE_VIOLATION",
        None,
    )
    .await;
    assert_eq!(app.last_position().await, last, "nothing appended");
    let body = app
        .graphql(Some(&host), RETRACT, retract(second, why))
        .await;
    assert!(body.get("errors").is_none(), "{body:#}");
    assert_eq!(body["data"]["retractCall"]["table"]["inHand"], false);
    let after = view(app, "r1").await;
    assert_eq!(
        chips(&after, second),
        chips(&river, second),
        "the call is back"
    );
    assert_eq!(chips(&after, third), chips(&river, third));
    assert_eq!(
        chips(&after, first),
        chips(&river, first) + pot,
        "the pot, no more"
    );
    // The log names the ruling, who made it and why; the hand history folds the caller.
    let events = app.stream_events("tournament:r1").await;
    let (_, actor, payload) = events
        .iter()
        .find(|(_, _, p)| p["data"]["event"]["type"] == "CallRetracted")
        .unwrap();
    assert!(actor.starts_with("host:crown"), "{actor}");
    assert_eq!(
        payload["data"]["event"]["data"],
        json!({"seat": second, "amount": 400, "reason": why})
    );
    assert!(events.iter().any(|(_, _, p)| p["data"]["event"]
        == json!({"type": "UncalledBetReturned", "data": {"seat": first, "amount": 400}})));
    let body = app
        .admin(
            "query { handHistory(tournamentId: \"r1\") { text } }",
            json!({}),
        )
        .await;
    let text = body["handHistory"][0]["text"].as_str().unwrap();
    let bet = text.find("'p1 cbr 400'").expect(text);
    assert!(text[bet..].contains("'p2 f'"), "{text}");
    // WPH: every call binds. The first to act calls the big blind.
    recorded(app, "r2", Preset::Wph).await;
    app.admin(START_HAND, json!({"t": "r2"})).await;
    let b = u(&view(app, "r2").await["toAct"]);
    let body = app
        .admin(ACT, json!({"t": "r2", "table": 1, "seat": b, "a": "CALL"}))
        .await;
    assert!(body.get("errors").is_none(), "{body:#}");
    let body = app
        .graphql(Some(&host), RETRACT, json!({"t": "r2", "s": b, "r": why}))
        .await;
    assert_eq!(
        body["errors"][0]["extensions"]["code"], "RULE_VIOLATION",
        "{body:#}"
    );
    assert!(
        body["errors"][0]["message"]
            .as_str()
            .unwrap()
            .starts_with("wph: every call binds"),
        "{body:#}"
    );
}

const FORFEIT: &str = "mutation($t: ID!, $s: Int!, $r: String!) { forfeitAggression(input: {tournamentId: $t, table: 1, seat: $s, reason: $r}) { events table(table: 1) { toAct legalActions { seat call betOrRaise { min } } } } }";
const LEGAL: &str = "query($t: ID!) { table(tournamentId: $t, table: 1) { toAct legalActions { seat canCheck call betOrRaise { min } } seats { seat aggressionForfeited } } }";

/// Oracle exposing cards 2: "Where a player exposes a card after betting in a multi-way
/// pot ... and causes another player to act, the bet will stand. This player will be
/// penalized for the remainder of the hand" (four-card flop 3.5: "By not being allowed to
/// make any aggressive action"). On the flop the first player bets 200 and the second
/// calls; the bettor turns a card up. The host takes the bettor's aggressive action away:
/// the bet stands, and when the button raises, the bettor is offered a call but no raise,
/// and a raise is refused. WPH's book has no such penalty.
async fn oracle_exposing_cards_2_the_floor_takes_a_bettors_aggressive_action_for_the_hand(
    app: &TestApp,
) {
    let (flop, [first, second, button]) = on_the_flop(app, "x1", Preset::Oracle).await;
    let host = app.token(Role::Host, Some("crown"), None).await;
    let other = app.token(Role::Host, Some("anchor"), None).await;
    let act = |seat: u64, a: &str, amount: Option<u64>| json!({"t": "x1", "table": 1, "seat": seat, "a": a, "amount": amount});
    for (seat, a, amount) in [(first, "BET", Some(200)), (second, "CALL", None)] {
        let body = app.admin(ACT, act(seat, a, amount)).await;
        assert!(body.get("errors").is_none(), "{body:#}");
    }
    let why = "turned the ace up after betting, with the button to act";
    let forfeit = |seat: u64, reason: &str| json!({"t": "x1", "s": seat, "r": reason});
    let last = app.last_position().await;
    assert_refused(
        app,
        &other,
        FORFEIT,
        &forfeit(first, why),
        "FORBIDDEN",
        None,
    )
    .await;
    assert_refused(
        app,
        &host,
        FORFEIT,
        &forfeit(first, ""),
        "BAD_INPUT",
        Some("reason"),
    )
    .await;
    assert_eq!(app.last_position().await, last, "nothing appended");
    let body = app.graphql(Some(&host), FORFEIT, forfeit(first, why)).await;
    assert!(body.get("errors").is_none(), "{body:#}");
    let table = &body["data"]["forfeitAggression"]["table"];
    assert_eq!(u(&table["toAct"]), button, "the ruling takes no one's turn");
    let after = view(app, "x1").await;
    assert_eq!(
        chips(&after, first),
        chips(&flop, first) - 200,
        "the bet stands"
    );
    assert_refused(
        app,
        &host,
        FORFEIT,
        &forfeit(first, why),
        "RULE_VIOLATION",
        None,
    )
    .await;
    let body = app.admin(ACT, act(button, "RAISE_TO", Some(600))).await;
    assert!(body.get("errors").is_none(), "{body:#}");
    let table = app.admin(LEGAL, json!({"t": "x1"})).await;
    // The host's screen says whose aggressive action is gone.
    let forfeited: Vec<u64> = table["table"]["seats"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["aggressionForfeited"] == true)
        .map(|s| u(&s["seat"]))
        .collect();
    assert_eq!(forfeited, [first]);
    let legal = &table["table"]["legalActions"];
    assert_eq!(u(&legal["seat"]), first);
    assert_eq!(u(&legal["call"]), 400);
    assert!(
        legal["betOrRaise"].is_null(),
        "no raise is offered: {legal:#}"
    );
    let body = app
        .graphql(Some(&host), ACT, act(first, "RAISE_TO", Some(1_800)))
        .await;
    assert_eq!(code(&body), "RULE_VIOLATION", "{body:#}");
    assert!(
        body["errors"][0]["message"].as_str().unwrap().ends_with(
            "lost its aggressive action for the rest of the hand: it may check, call or fold"
        ),
        "{body:#}"
    );
    let body = app.admin(ACT, act(first, "CALL", None)).await;
    assert!(body.get("errors").is_none(), "{body:#}");
    // The second player keeps theirs.
    let legal = &app.admin(LEGAL, json!({"t": "x1"})).await["table"]["legalActions"];
    assert_eq!(u(&legal["seat"]), second);
    assert!(!legal["betOrRaise"].is_null(), "{legal:#}");
    // The log names the ruling, who made it and why.
    let events = app.stream_events("tournament:x1").await;
    let (_, actor, payload) = events
        .iter()
        .find(|(_, _, p)| p["data"]["event"]["type"] == "AggressionForfeited")
        .unwrap();
    assert!(actor.starts_with("host:crown"), "{actor}");
    assert_eq!(
        payload["data"]["event"]["data"],
        json!({"seat": first, "reason": why})
    );
    // WPH: no such penalty.
    recorded(app, "x2", Preset::Wph).await;
    app.admin(START_HAND, json!({"t": "x2"})).await;
    let b = u(&view(app, "x2").await["toAct"]);
    let body = app
        .graphql(Some(&host), FORFEIT, json!({"t": "x2", "s": b, "r": why}))
        .await;
    assert_eq!(code(&body), "RULE_VIOLATION", "{body:#}");
    assert!(
        body["errors"][0]["message"]
            .as_str()
            .unwrap()
            .starts_with("wph: the house's book takes no player's aggressive action away"),
        "{body:#}"
    );
}

on_every_backend!(
    oracle_exposing_cards_2_the_floor_takes_a_bettors_aggressive_action_for_the_hand,
    queensix_nlhe_10_1_the_floor_rules_a_call_not_binding_after_the_bettor_shows,
    two_out_in_one_hand_on_the_bubble_are_placed_by_the_house_rule_and_scored,
    an_exposed_card_is_a_misdeal_and_the_hand_is_re_dealt_on_the_same_button,
    the_clock_called_on_a_player_runs_out_and_the_hand_is_dead,
    wph_31_a_bet_out_of_turn_after_two_checks_is_taken_back,
    invitational_5_5_a_bet_out_of_turn_after_two_checks_stands,
    a_hand_killed_out_of_turn_is_dead_at_once_and_its_turn_passed_over,
    a_mucked_hand_is_retrieved_from_an_impounded_pot_and_another_seen_on_request,
);
