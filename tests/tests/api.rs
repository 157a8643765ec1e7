//! The GraphQL service end to end: the real server on port 0 with a fresh database,
//! driven over HTTP and WebSocket. SQLite always; PostgreSQL too when
//! `LEAGUE_TEST_POSTGRES_URL` is set (each test in a fresh schema).

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::time::Duration;

use futures_util::{SinkExt as _, StreamExt as _};
use league_api::auth::{Role, create_token};
use league_engine::deck::Seed;
use league_engine::rules::Preset;
use league_engine::tournament::play::Tracking;
use league_engine::tournament::sim::weekly_schedule;
use league_store::{Backend, Store};
use league_testkit::Scratch;
use serde_json::{Value, json};

struct TestApp {
    base: String,
    store: Store,
    scratch: Scratch,
    admin: String,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    server: Option<tokio::task::JoinHandle<std::io::Result<()>>>,
}

async fn spawn_app(backend: Backend) -> TestApp {
    spawn_app_with(backend, league_api::Options::default()).await
}

async fn spawn_app_with(backend: Backend, options: league_api::Options) -> TestApp {
    let url = std::env::var("LEAGUE_TEST_POSTGRES_URL").ok();
    let scratch = Scratch::new(backend, url.as_deref()).await.unwrap();
    let store = scratch.open().await.unwrap();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = actix_web::rt::spawn(league_api::run_with(
        listener,
        store.clone(),
        options,
        async {
            let _ = stopped.await;
        },
    ));
    let (_, admin) = create_token(&store, Role::Admin, None, None).await.unwrap();
    TestApp {
        base,
        store,
        scratch,
        admin,
        stop: Some(stop),
        server: Some(server),
    }
}

impl TestApp {
    /// POSTs a GraphQL request; returns the whole response body.
    async fn graphql(&self, token: Option<&str>, query: &str, variables: Value) -> Value {
        let client = awc::Client::builder()
            .timeout(Duration::from_secs(30))
            .finish();
        let mut request = client.post(format!("{}/graphql", self.base));
        if let Some(token) = token {
            request = request.insert_header(("Authorization", format!("Bearer {token}")));
        }
        let mut response = request
            .send_json(&json!({"query": query, "variables": variables}))
            .await
            .unwrap();
        let status = response.status();
        let body = response.body().limit(10 << 20).await.unwrap();
        serde_json::from_slice(&body)
            .unwrap_or_else(|e| panic!("{status}: {e}: {}", String::from_utf8_lossy(&body)))
    }

    /// As the admin; panics on errors.
    async fn admin(&self, query: &str, variables: Value) -> Value {
        let body = self.graphql(Some(&self.admin), query, variables).await;
        assert!(body.get("errors").is_none(), "{body:#}");
        body["data"].clone()
    }

    async fn token(&self, role: Role, venue: Option<&str>, player: Option<&str>) -> String {
        create_token(&self.store, role, venue, player)
            .await
            .unwrap()
            .1
    }

    /// A WebSocket to `/graphql/ws` speaking `protocol` (`graphql-transport-ws` or the
    /// older `graphql-ws`): `connection_init` with `init` as its payload, then `start` (the
    /// protocol's subscribe or start message).
    async fn subscribe(
        &self,
        protocol: &str,
        init: Value,
        start: Value,
    ) -> actix_codec::Framed<awc::BoxedSocket, awc::ws::Codec> {
        let mut ws = self.connect(protocol).await;
        ws.send(text(json!({"type": "connection_init", "payload": init})))
            .await
            .unwrap();
        ws.send(text(start)).await.unwrap();
        ws
    }

    /// A WebSocket to `/graphql/ws` speaking `protocol`, nothing sent yet.
    async fn connect(
        &self,
        protocol: &str,
    ) -> actix_codec::Framed<awc::BoxedSocket, awc::ws::Codec> {
        let ws_url = format!("{}/graphql/ws", self.base.replacen("http", "ws", 1));
        awc::Client::new()
            .ws(ws_url)
            .protocols([protocol])
            .connect()
            .await
            .unwrap()
            .1
    }

    /// Schedules the results-tracked tournament `id` at crown (first draw `seed(draw)`) and
    /// subscribes to its entries, anonymously.
    async fn scheduled_and_watched(
        &self,
        id: &str,
        draw: u8,
    ) -> actix_codec::Framed<awc::BoxedSocket, awc::ws::Codec> {
        self.admin(
            SCHEDULE,
            json!({"id": id, "s": schedule("crown", Tracking::Results, &seed(draw))}),
        )
        .await;
        let query = format!("subscription {{ tournament(id: \"{id}\") {{ entries }} }}");
        self.subscribe(
            "graphql-transport-ws",
            json!({}),
            json!({"id": "1", "type": "subscribe", "payload": {"query": query}}),
        )
        .await
    }

    async fn last_position(&self) -> Option<u64> {
        self.store.last_position().await.unwrap()
    }

    async fn stop(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(server) = self.server.take() {
            server.await.unwrap().unwrap();
        }
        self.store.close().await;
        self.scratch.drop_it().await;
    }
}

/// The next text message of a subscription's WebSocket, as JSON (other frames skipped); it
/// must come within 20 s.
async fn next_message(
    ws: &mut actix_codec::Framed<awc::BoxedSocket, awc::ws::Codec>,
    what: &str,
) -> Value {
    loop {
        let frame = tokio::time::timeout(Duration::from_secs(20), ws.next())
            .await
            .unwrap_or_else(|_| panic!("{what} within 20 s"))
            .unwrap()
            .unwrap();
        if let awc::ws::Frame::Text(text) = frame {
            return serde_json::from_slice(&text).unwrap();
        }
    }
}

/// The code of the close frame that ends `ws` (text frames before it are skipped).
async fn closed_with(ws: &mut actix_codec::Framed<awc::BoxedSocket, awc::ws::Codec>) -> u16 {
    loop {
        let frame = tokio::time::timeout(Duration::from_secs(20), ws.next())
            .await
            .expect("a close frame within 20 s")
            .expect("a close frame before the end")
            .unwrap();
        if let awc::ws::Frame::Close(reason) = frame {
            return reason.map_or(1005, |r| u16::from(r.code));
        }
    }
}

/// The next table view a subscription delivers (acknowledgements skipped).
async fn next_view(ws: &mut actix_codec::Framed<awc::BoxedSocket, awc::ws::Codec>) -> Value {
    loop {
        let message = next_message(ws, "a table view").await;
        match message["type"].as_str() {
            Some("connection_ack") => {}
            Some("next") => return message["payload"]["data"]["table"].clone(),
            other => panic!("unexpected {other:?}: {message:#}"),
        }
    }
}

/// A JSON WebSocket message.
fn text(v: Value) -> awc::ws::Message {
    awc::ws::Message::Text(v.to_string().into())
}

fn code(body: &Value) -> &str {
    body["errors"][0]["extensions"]["code"]
        .as_str()
        .unwrap_or_else(|| panic!("no error code in {body:#}"))
}

fn seed(n: u8) -> Seed {
    Seed::from_bytes([n; 32])
}

fn schedule(venue: &str, tracking: Tracking, first_draw: &Seed) -> Value {
    // WSOP refuses an undersized bet (the others bring it up to the minimum).
    let schedule = weekly_schedule(venue, Preset::Wsop, tracking, first_draw.commitment());
    serde_json::to_value(schedule).unwrap()
}

const SCHEDULE: &str =
    "mutation($id: String!, $s: JSON!) { scheduleTournament(id: $id, schedule: $s) { events } }";
const REGISTER: &str = "mutation($t: String!, $p: String!, $k: String) { register(tournamentId: $t, player: $p, idempotencyKey: $k) { events firstPosition lastPosition deduplicated } }";
const START: &str = "mutation($t: String!, $s: String!, $n: String!) { start(tournamentId: $t, seed: $s, nextCommitment: $n) { events } }";
const ACT: &str = "mutation($t: String!, $table: Int!, $seat: Int!, $a: ActionKind!, $amount: Int) { act(tournamentId: $t, table: $table, seat: $seat, action: $a, amount: $amount) { events } }";
const TABLE: &str = "query($t: String!) { table(tournamentId: $t, table: 1) { hand inHand toAct board seats { seat player cards } } }";

/// Schedules and starts a tournament of `players` at `venue`.
async fn started(app: &TestApp, id: &str, venue: &str, tracking: Tracking, players: &[&str]) {
    app.admin(
        SCHEDULE,
        json!({"id": id, "s": schedule(venue, tracking, &seed(1))}),
    )
    .await;
    for p in players {
        app.admin(REGISTER, json!({"t": id, "p": p})).await;
    }
    app.admin(
        START,
        json!({"t": id, "s": seed(1).to_string(), "n": seed(2).commitment().to_string()}),
    )
    .await;
}

async fn a_results_tracked_tournament_runs_from_schedule_to_payouts_into_the_standings(
    app: &TestApp,
) {
    // Arrange: a league with a venue, a season and three players.
    app.admin(
        "mutation { createLeague(id: \"apl\", name: \"APL\") { events } }",
        json!({}),
    )
    .await;
    app.admin(
        "mutation { addVenue(leagueId: \"apl\", venue: \"crown\", region: \"north\") { events } }",
        json!({}),
    )
    .await;
    app.admin(
        "mutation($s: JSON!) { addSeason(leagueId: \"apl\", season: \"s1\", scoring: $s) { events } }",
        json!({"s": {"Table": {"points": [12500, 10000, 7500]}}}),
    )
    .await;
    for p in ["ann", "bob", "cat"] {
        app.admin(
            "mutation($p: String!) { registerPlayer(leagueId: \"apl\", player: $p, name: $p, membership: $p) { events } }",
            json!({"p": p}),
        )
        .await;
    }

    // Act: schedule, register, start, two eliminations.
    started(
        app,
        "t1",
        "crown",
        Tracking::Results,
        &["ann", "bob", "cat"],
    )
    .await;
    app.admin(
        "mutation { eliminate(tournamentId: \"t1\", players: [\"cat\"], by: \"ann\") { events } }",
        json!({}),
    )
    .await;
    app.admin(
        "mutation { eliminate(tournamentId: \"t1\", players: [\"bob\"], by: \"ann\") { events } }",
        json!({}),
    )
    .await;

    // Assert: finished with everyone placed and the pool paid out.
    let t = app
        .admin(
            "{ tournament(id: \"t1\") { stage entries prizePool prizes results { player place prize knockouts } } }",
            json!({}),
        )
        .await;
    let t = &t["tournament"];
    assert_eq!(t["stage"], "FINISHED", "{t:#}");
    assert_eq!(t["entries"], 3);
    assert_eq!(t["prizePool"], 6000);
    let results = t["results"].as_array().unwrap();
    assert_eq!(results[0]["player"], "ann");
    assert_eq!(results[0]["knockouts"], 2);
    let paid: u64 = results.iter().map(|r| r["prize"].as_u64().unwrap()).sum();
    assert_eq!(paid, 6000);

    // And into the league.
    app.admin(
        "mutation { recordTournamentResult(leagueId: \"apl\", tournamentId: \"t1\", season: \"s1\", day: 1) { events } }",
        json!({}),
    )
    .await;
    let s = app
        .admin(
            "{ standings(leagueId: \"apl\", season: \"s1\") { rank player points } }",
            json!({}),
        )
        .await;
    assert_eq!(s["standings"][0]["player"], "ann");
    assert_eq!(s["standings"][0]["points"], 12500);
    let record = app
        .graphql(
            None,
            "{ playerRecord(leagueId: \"apl\", player: \"bob\") { played results { place } } }",
            json!({}),
        )
        .await;
    assert_eq!(record["data"]["playerRecord"]["results"][0]["place"], 2);
}

async fn a_dealt_hand_keeps_cards_private_and_reports_rule_errors_with_codes(app: &TestApp) {
    started(app, "t2", "crown", Tracking::Dealt, &["ann", "bob"]).await;
    app.admin(
        "mutation { startHand(tournamentId: \"t2\", table: 1) { events } }",
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
            "mutation($t: String!, $seat: Int!) { act(tournamentId: $t, table: 1, seat: $seat, action: CALL) { version table(table: 1) { version seats { player cards } } } }",
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
    app.admin(
        SCHEDULE,
        json!({"id": "t3", "s": schedule("crown", Tracking::Results, &seed(1))}),
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

async fn a_retry_with_the_same_idempotency_key_appends_once(app: &TestApp) {
    app.admin(
        SCHEDULE,
        json!({"id": "t4", "s": schedule("crown", Tracking::Results, &seed(1))}),
    )
    .await;
    let first = app
        .admin(REGISTER, json!({"t": "t4", "p": "ann", "k": "reg-ann"}))
        .await;
    let after_first = app.last_position().await;
    let again = app
        .admin(REGISTER, json!({"t": "t4", "p": "ann", "k": "reg-ann"}))
        .await;
    assert_eq!(app.last_position().await, after_first);
    assert_eq!(
        first["register"]["firstPosition"],
        again["register"]["firstPosition"]
    );
    assert_eq!(again["register"]["deduplicated"], true);
    // Without the key, the same command is a rule violation (already registered).
    let body = app
        .graphql(Some(&app.admin), REGISTER, json!({"t": "t4", "p": "ann"}))
        .await;
    assert_eq!(code(&body), "RULE_VIOLATION", "{body:#}");
}

/// Positions are 64-bit: on PostgreSQL they pass 2^31 after about 32,000 transactions, so
/// they are the `Position` scalar, not GraphQL's 32-bit `Int`. Numbers and digit strings are
/// both taken; a negative position is refused.
async fn positions_are_64_bit_and_typed_as_such(app: &TestApp) {
    let auditor = app.token(Role::Auditor, None, None).await;
    let types = app
        .graphql(
            Some(&auditor),
            r#"{ event: __type(name: "EventOut") { fields { name type { kind name ofType { name } } } }
                 scalar: __type(name: "Position") { kind } }"#,
            json!({}),
        )
        .await;
    assert_eq!(types["data"]["scalar"]["kind"], "SCALAR", "{types:#}");
    let position = types["data"]["event"]["fields"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["name"] == "position")
        .unwrap();
    assert_eq!(position["type"]["ofType"]["name"], "Position", "{types:#}");

    let last = app.last_position().await.unwrap();
    let page =
        "query($from: Position) { events(fromPosition: $from, first: 10) { events { position } } }";
    for from in [json!(last), json!(last.to_string())] {
        let body = app
            .graphql(Some(&auditor), page, json!({"from": from}))
            .await;
        assert!(body.get("errors").is_none(), "{body:#}");
        let events = body["data"]["events"]["events"].as_array().unwrap();
        assert_eq!(events.len(), 1, "{body:#}");
        assert_eq!(events[0]["position"].as_u64(), Some(last));
    }
    // Far beyond the log, up to the largest 64-bit position: an empty page, no error.
    for from in [json!(1u64 << 40), json!(u64::MAX.to_string())] {
        let body = app
            .graphql(Some(&auditor), page, json!({"from": from}))
            .await;
        assert!(body.get("errors").is_none(), "{body:#}");
        assert_eq!(body["data"]["events"]["events"], json!([]));
    }
    for bad in [json!(-1), json!("-1"), json!("12x"), json!(1.5)] {
        let body = app
            .graphql(Some(&auditor), page, json!({"from": bad}))
            .await;
        assert!(body.get("errors").is_some(), "{bad} was taken: {body:#}");
    }
}

async fn a_subscription_receives_the_changes_in_order(app: &TestApp) {
    let mut ws = app.scheduled_and_watched("t5", 1).await;
    let mut seen = Vec::new();
    let mut registered = false;
    while seen.len() < 4 {
        let message = next_message(&mut ws, "a subscription message").await;
        match message["type"].as_str() {
            Some("connection_ack") => {}
            Some("next") => {
                seen.push(
                    message["payload"]["data"]["tournament"]["entries"]
                        .as_u64()
                        .unwrap(),
                );
                if !registered {
                    registered = true;
                    for p in ["ann", "bob", "cat"] {
                        app.admin(REGISTER, json!({"t": "t5", "p": p})).await;
                    }
                }
            }
            other => panic!("unexpected {other:?}: {message:#}"),
        }
    }
    assert_eq!(seen, [0, 1, 2, 3]);
}

async fn health_readiness_and_the_playground_answer(app: &TestApp) {
    let client = awc::Client::new();
    let health = client
        .get(format!("{}/healthz", app.base))
        .send()
        .await
        .unwrap();
    assert!(health.status().is_success());
    let mut ready = false;
    for _ in 0..100 {
        let r = client
            .get(format!("{}/readyz", app.base))
            .send()
            .await
            .unwrap();
        if r.status().is_success() {
            ready = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(ready);
    let page = client
        .get(format!("{}/graphql", app.base))
        .send()
        .await
        .unwrap();
    assert!(page.status().is_success());
    let big = "x".repeat(league_api::MAX_BODY + 1);
    let r = client
        .post(format!("{}/graphql", app.base))
        .insert_header(("content-type", "application/json"))
        .send_body(big)
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 413);
}

const LATE_ENTRY: &str = "mutation($t: String!, $p: String!, $s: String!, $n: String!) { lateEntry(tournamentId: $t, player: $p, seed: $s, nextCommitment: $n) { events } }";

async fn late_entries_close_by_level_or_by_time(app: &TestApp) {
    // Open for the first hour: the server stamps the entry with its clock.
    let mut open = schedule("crown", Tracking::Results, &seed(1));
    open["late_registration_until_level"] = json!(2);
    open["late_registration_until_minutes"] = json!(60);
    app.admin(SCHEDULE, json!({"id": "t6", "s": open})).await;
    for p in ["ann", "bob"] {
        app.admin(REGISTER, json!({"t": "t6", "p": p})).await;
    }
    app.admin(
        START,
        json!({"t": "t6", "s": seed(1).to_string(), "n": seed(2).commitment().to_string()}),
    )
    .await;
    let late = json!({"t": "t6", "p": "cat", "s": seed(2).to_string(), "n": seed(3).commitment().to_string()});
    let data = app.admin(LATE_ENTRY, late).await;
    assert!(
        data["lateEntry"]["events"].as_u64().unwrap() >= 1,
        "{data:#}"
    );
    let view = app
        .admin(
            "{ tournament(id: \"t6\") { entries remaining } }",
            json!({}),
        )
        .await;
    assert_eq!(view["tournament"]["entries"], 3, "{view:#}");
    // A window of no minutes is closed from the start: a typed refusal, nothing appended.
    let mut closed = schedule("crown", Tracking::Results, &seed(1));
    closed["late_registration_until_level"] = json!(2);
    closed["late_registration_until_minutes"] = json!(0);
    app.admin(SCHEDULE, json!({"id": "t7", "s": closed})).await;
    for p in ["ann", "bob"] {
        app.admin(REGISTER, json!({"t": "t7", "p": p})).await;
    }
    app.admin(
        START,
        json!({"t": "t7", "s": seed(1).to_string(), "n": seed(2).commitment().to_string()}),
    )
    .await;
    let before = app.last_position().await;
    let late = json!({"t": "t7", "p": "cat", "s": seed(2).to_string(), "n": seed(3).commitment().to_string()});
    let body = app.graphql(Some(&app.admin), LATE_ENTRY, late).await;
    assert_eq!(code(&body), "RULE_VIOLATION", "{body:#}");
    let message = body["errors"][0]["message"].as_str().unwrap();
    assert!(
        message.contains("late entries close after 0 minutes"),
        "{message}"
    );
    assert_eq!(app.last_position().await, before);
}

/// The value of one series in a Prometheus text page.
fn series(page: &str, name: &str) -> u64 {
    page.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
        .unwrap_or_else(|| panic!("{name} missing:\n{page}"))
}

async fn metrics_page(app: &TestApp) -> String {
    let mut r = awc::Client::new()
        .get(format!("{}/metrics", app.base))
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success());
    assert!(
        r.headers()
            .get("content-type")
            .unwrap()
            .to_str()
            .unwrap()
            .starts_with("text/plain")
    );
    String::from_utf8(r.body().await.unwrap().to_vec()).unwrap()
}

async fn metrics_count_requests_commands_events_and_subscribers(app: &TestApp) {
    const APPENDED: &str = "league_commands_total{outcome=\"appended\"}";
    const REFUSED: &str = "league_commands_total{outcome=\"refused\"}";
    const EVENTS: &str = "league_events_appended_total";
    const MUTATIONS: &str = "league_requests_total{kind=\"mutation\",outcome=\"ok\"}";
    const FAILED: &str = "league_requests_total{kind=\"mutation\",outcome=\"error\"}";
    const TIMED: &str = "league_request_duration_seconds_count{kind=\"mutation\"}";
    app.admin(
        SCHEDULE,
        json!({"id": "t8", "s": schedule("crown", Tracking::Results, &seed(1))}),
    )
    .await;
    let before = metrics_page(app).await;
    app.admin(REGISTER, json!({"t": "t8", "p": "ann"})).await;
    let body = app
        .graphql(Some(&app.admin), REGISTER, json!({"t": "t8", "p": "ann"}))
        .await;
    assert_eq!(code(&body), "RULE_VIOLATION");
    let after = metrics_page(app).await;
    let delta = |name| series(&after, name) - series(&before, name);
    assert_eq!(delta(APPENDED), 1);
    assert_eq!(delta(REFUSED), 1);
    assert_eq!(delta(EVENTS), 1, "one registration, one event");
    assert_eq!(delta(MUTATIONS), 1);
    assert_eq!(delta(FAILED), 1);
    assert_eq!(delta(TIMED), 2);
    assert!(after.contains("league_projection_lag_events "), "{after}");
    assert_eq!(
        series(&after, "league_log_position"),
        app.last_position().await.unwrap()
    );
    // A subscriber is counted while subscribed.
    assert_eq!(series(&after, "league_subscribers"), 0);
    let mut ws = app
        .subscribe(
            "graphql-transport-ws",
            json!({}),
            json!({
                "id": "1",
                "type": "subscribe",
                "payload": {"query": "subscription { tournament(id: \"t8\") { entries } }"}
            }),
        )
        .await;
    let mut counted = false;
    for _ in 0..100 {
        if series(&metrics_page(app).await, "league_subscribers") == 1 {
            counted = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(counted, "the subscription is counted");
    ws.send(text(json!({"id": "1", "type": "complete"})))
        .await
        .unwrap();
    let mut released = false;
    for _ in 0..100 {
        if series(&metrics_page(app).await, "league_subscribers") == 0 {
            released = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(released, "a completed subscription is no longer counted");
}

#[actix_web::test]
async fn the_rate_limit_refuses_a_token_over_its_rate_with_429() {
    let app = spawn_app_with(
        Backend::Sqlite,
        league_api::Options {
            rate_limit: 1,
            burst: 3,
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

async fn a_standings_subscription_sees_a_recorded_night(app: &TestApp) {
    let query = "subscription { standings(leagueId: \"apl\", season: \"s1\") { player points } }";
    let start = json!({"id": "s", "type": "subscribe", "payload": {"query": query}});
    let mut ws = app
        .subscribe("graphql-transport-ws", json!({}), start)
        .await;
    let mut views = Vec::new();
    while views.len() < 2 {
        let message = next_message(&mut ws, "a standings message").await;
        match message["type"].as_str() {
            Some("connection_ack") => {}
            Some("next") => {
                views.push(message["payload"]["data"]["standings"].clone());
                if views.len() == 1 {
                    // Another night at the crown: bob wins it.
                    let outcome = json!({
                        "tournament": "x2", "venue": "crown", "season": "s1", "day": 2,
                        "buyin": 2000, "prizepool": 4000, "field": 2,
                        "finishes": [{"player": "bob", "place": 1, "prize": 4000}, {"player": "ann", "place": 2}]
                    });
                    app.admin(
                        "mutation($o: JSON!) { recordTournament(leagueId: \"apl\", outcome: $o) { events } }",
                        json!({"o": outcome}),
                    )
                    .await;
                }
            }
            other => panic!("unexpected {other:?}: {message:#}"),
        }
    }
    let points = |view: &Value, player: &str| {
        view.as_array()
            .unwrap()
            .iter()
            .find(|s| s["player"] == player)
            .map_or(0, |s| s["points"].as_u64().unwrap())
    };
    assert!(
        points(&views[1], "bob") > points(&views[0], "bob"),
        "bob's win shows: {views:#?}"
    );
}

async fn two_hosts_racing_on_one_table_one_wins_and_the_log_stays_consistent(app: &TestApp) {
    started(app, "r1", "crown", Tracking::Dealt, &["ann", "bob", "cat"]).await;
    app.admin(
        "mutation { startHand(tournamentId: \"r1\", table: 1) { events } }",
        json!({}),
    )
    .await;
    let before = app.admin(TABLE, json!({"t": "r1"})).await;
    let seat = before["table"]["toAct"].as_u64().unwrap();
    let (one, two) = (
        app.token(Role::Host, Some("crown"), None).await,
        app.token(Role::Host, Some("crown"), None).await,
    );
    // Both hosts fold the seat to act at the same moment.
    {
        let fold = json!({"t": "r1", "table": 1, "seat": seat, "a": "FOLD"});
        let (a, b) = futures_util::join!(
            app.graphql(Some(&one), ACT, fold.clone()),
            app.graphql(Some(&two), ACT, fold.clone())
        );
        let ok = [&a, &b]
            .iter()
            .filter(|r| r.get("errors").is_none())
            .count();
        assert_eq!(ok, 1, "exactly one wins: {a:#} {b:#}");
        let loser = if a.get("errors").is_some() { &a } else { &b };
        assert!(
            matches!(code(loser), "NOT_YOUR_TURN" | "CONFLICT"),
            "a clear error: {loser:#}"
        );
    }
    // The log: one fold, the stream's versions contiguous from 1.
    let events = app.store.read_stream("tournament:r1", 0).await.unwrap();
    let versions: Vec<u64> = events.iter().map(|e| e.stream_version).collect();
    assert_eq!(
        versions,
        (1..=u64::try_from(events.len()).unwrap()).collect::<Vec<_>>()
    );
    let folds = events
        .iter()
        .filter(|e| String::from_utf8_lossy(&e.payload).contains("PlayerFolded"))
        .count();
    assert_eq!(folds, 1);
    let after = app.admin(TABLE, json!({"t": "r1"})).await;
    assert_ne!(after["table"]["toAct"], before["table"]["toAct"]);
}

async fn tournaments_page_by_cursor(app: &TestApp) {
    let all = app
        .admin(
            "{ tournaments(first: 1000) { tournaments { id } hasNextPage } }",
            json!({}),
        )
        .await;
    let all: Vec<String> = all["tournaments"]["tournaments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_str().unwrap().to_owned())
        .collect();
    assert!(all.len() >= 5, "{all:?}");
    let mut paged = Vec::new();
    let mut after = Value::Null;
    loop {
        let page = app
            .admin(
                "query($a: String) { tournaments(first: 2, after: $a) { tournaments { id } endCursor hasNextPage } }",
                json!({"a": after}),
            )
            .await;
        let page = &page["tournaments"];
        let ids = page["tournaments"].as_array().unwrap();
        assert!(ids.len() <= 2);
        paged.extend(ids.iter().map(|t| t["id"].as_str().unwrap().to_owned()));
        if page["hasNextPage"] != true {
            break;
        }
        after = page["endCursor"].clone();
    }
    assert_eq!(paged, all, "the pages cover the list once, in order");
    let body = app
        .graphql(
            Some(&app.admin),
            "{ tournaments(after: \"nonsense\") { hasNextPage } }",
            json!({}),
        )
        .await;
    assert_eq!(code(&body), "BAD_INPUT", "{body:#}");
}

/// The older `graphql-ws` protocol (subscriptions-transport-ws), authenticated in the
/// `connection_init` payload: a player's table subscription shows their own hole cards
/// and nobody else's (the running hand of `t2`).
async fn a_player_subscribed_over_the_older_protocol_sees_only_their_own_cards(app: &TestApp) {
    let ann = app.token(Role::Player, None, Some("ann")).await;
    let query = "subscription { table(tournamentId: \"t2\", table: 1) { seats { player cards } } }";
    let init = json!({"Authorization": format!("Bearer {ann}")});
    let start = json!({"id": "1", "type": "start", "payload": {"query": query}});
    let mut ws = app.subscribe("graphql-ws", init, start).await;
    loop {
        let message = next_message(&mut ws, "a message").await;
        match message["type"].as_str() {
            Some("connection_ack" | "ka") => {}
            Some("data") => {
                let seats = message["payload"]["data"]["table"]["seats"]
                    .as_array()
                    .unwrap_or_else(|| panic!("{message:#}"));
                for s in seats {
                    if s["player"] == "ann" {
                        assert_eq!(s["cards"].as_array().unwrap().len(), 2, "{message:#}");
                    } else {
                        assert!(
                            s["cards"].is_null(),
                            "ann sees another's cards: {message:#}"
                        );
                    }
                }
                break;
            }
            other => panic!("unexpected {other:?}: {message:#}"),
        }
    }
}

/// The players whose hole cards a table view shows.
fn cards_shown(view: &Value) -> Vec<String> {
    view["seats"]
        .as_array()
        .unwrap_or_else(|| panic!("no seats in {view:#}"))
        .iter()
        .filter(|s| !s["cards"].is_null())
        .map(|s| s["player"].as_str().unwrap().to_owned())
        .collect()
}

/// Waits until `/metrics` shows `value` for `name`.
async fn metric_reaches(app: &TestApp, name: &str, value: u64) {
    let mut last = 0;
    for _ in 0..200 {
        last = series(&metrics_page(app).await, name);
        if last == value {
            return;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("{name} is {last}, not {value}");
}

/// Identical live views run once for all their subscribers, but only between callers who
/// may see the same thing: two anonymous dashboards share one, and each player's view of
/// the same table (same query, same variables) stays their own, before and after a change.
async fn shared_live_views_never_cross_callers(app: &TestApp) {
    started(app, "t11", "crown", Tracking::Dealt, &["cy", "di"]).await;
    app.admin(
        "mutation { startHand(tournamentId: \"t11\", table: 1) { events } }",
        json!({}),
    )
    .await;
    let cy = app.token(Role::Player, None, Some("cy")).await;
    let di = app.token(Role::Player, None, Some("di")).await;
    // Earlier tests' connections have closed: nothing else is subscribed.
    metric_reaches(app, "league_subscribers", 0).await;
    metric_reaches(app, "league_live_queries", 0).await;
    let query = "subscription { table(tournamentId: \"t11\", table: 1) { version toAct seats { seat player cards } } }";
    let start = json!({"id": "v", "type": "subscribe", "payload": {"query": query}});
    let as_player = |token: &str| json!({"Authorization": format!("Bearer {token}")});
    let mut public_a = app
        .subscribe("graphql-transport-ws", json!({}), start.clone())
        .await;
    let first = next_view(&mut public_a).await;
    let mut public_b = app
        .subscribe("graphql-transport-ws", json!({}), start.clone())
        .await;
    let mut as_cy = app
        .subscribe("graphql-transport-ws", as_player(&cy), start.clone())
        .await;
    let mut as_di = app
        .subscribe(
            "graphql-ws",
            as_player(&di),
            json!({"id": "v", "type": "start", "payload": {"query": query}}),
        )
        .await;
    // A dashboard joining a running view starts from its current state.
    assert_eq!(next_view(&mut public_b).await, first);
    assert_eq!(cards_shown(&first), Vec::<String>::new(), "{first:#}");
    let cy_first = next_view(&mut as_cy).await;
    assert_eq!(cards_shown(&cy_first), ["cy"], "{cy_first:#}");
    let di_first = loop {
        let message = next_message(&mut as_di, "di's view").await;
        if message["type"] == "data" {
            break message["payload"]["data"]["table"].clone();
        }
    };
    assert_eq!(cards_shown(&di_first), ["di"], "{di_first:#}");
    // Four subscribers, three executions: the two anonymous ones share.
    metric_reaches(app, "league_subscribers", 4).await;
    metric_reaches(app, "league_live_queries", 3).await;

    // A change reaches each of them, each as they may see it.
    let seat = first["toAct"].as_u64().unwrap();
    let done = app
        .admin(
            "mutation($s: Int!) { act(tournamentId: \"t11\", table: 1, seat: $s, action: CALL) { version } }",
            json!({"s": seat}),
        )
        .await;
    let version = done["act"]["version"].as_u64().unwrap();
    let mut views = Vec::new();
    for ws in [&mut public_a, &mut public_b, &mut as_cy] {
        let view = loop {
            let view = next_view(ws).await;
            if view["version"].as_u64().unwrap() >= version {
                break view;
            }
        };
        views.push(view);
    }
    assert_eq!(views[0], views[1], "the two dashboards see one view");
    assert_eq!(
        cards_shown(&views[0]),
        Vec::<String>::new(),
        "{:#}",
        views[0]
    );
    assert_eq!(cards_shown(&views[2]), ["cy"], "{:#}", views[2]);
    let di_view = loop {
        let message = next_message(&mut as_di, "di's view").await;
        let view = &message["payload"]["data"]["table"];
        if message["type"] == "data" && view["version"].as_u64().unwrap() >= version {
            break view.clone();
        }
    };
    assert_eq!(cards_shown(&di_view), ["di"], "{di_view:#}");

    // The last subscriber of a view leaving stops it.
    drop((public_a, public_b));
    metric_reaches(app, "league_live_queries", 2).await;
    drop((as_cy, as_di));
    metric_reaches(app, "league_live_queries", 0).await;
    metric_reaches(app, "league_subscribers", 0).await;
}

/// What the WebSocket protocol refuses, with the `graphql-transport-ws` specification's
/// close codes, and what it answers.
async fn the_websocket_protocol_refuses_what_it_must(app: &TestApp) {
    let query = "subscription { tournament(id: \"t5\") { entries } }";
    let subscribe = |id: &str| json!({"id": id, "type": "subscribe", "payload": {"query": query}});
    // No protocol the server speaks: the upgrade is refused.
    let ws_url = format!("{}/graphql/ws", app.base.replacen("http", "ws", 1));
    assert!(
        awc::Client::new()
            .ws(ws_url)
            .protocols(["mqtt"])
            .connect()
            .await
            .is_err()
    );
    // A subscription before connection_init: 4401.
    let mut ws = app.connect("graphql-transport-ws").await;
    ws.send(text(subscribe("1"))).await.unwrap();
    assert_eq!(closed_with(&mut ws).await, 4401);
    // A token that is not one: 4403.
    let mut ws = app.connect("graphql-transport-ws").await;
    ws.send(text(
        json!({"type": "connection_init", "payload": {"Authorization": "Bearer tok_forged"}}),
    ))
    .await
    .unwrap();
    assert_eq!(closed_with(&mut ws).await, 4403);
    // Not a message of the protocol: 4400.
    let mut ws = app.connect("graphql-transport-ws").await;
    ws.send(awc::ws::Message::Text("{not json".into()))
        .await
        .unwrap();
    assert_eq!(closed_with(&mut ws).await, 4400);
    // connection_init twice: 4429.
    let mut ws = app
        .subscribe(
            "graphql-transport-ws",
            json!({}),
            json!({"type": "connection_init"}),
        )
        .await;
    assert_eq!(closed_with(&mut ws).await, 4429);
    // A ping is answered; the same id twice is 4409.
    let mut ws = app
        .subscribe("graphql-transport-ws", json!({}), subscribe("1"))
        .await;
    ws.send(text(json!({"type": "ping"}))).await.unwrap();
    let mut types = Vec::new();
    while !types.contains(&"pong".to_owned()) {
        let message = next_message(&mut ws, "a pong").await;
        types.push(message["type"].as_str().unwrap().to_owned());
    }
    assert!(types.contains(&"connection_ack".to_owned()), "{types:?}");
    ws.send(text(subscribe("1"))).await.unwrap();
    assert_eq!(closed_with(&mut ws).await, 4409);
    // `complete` ends a subscription and is acknowledged; the connection stays open.
    let mut ws = app
        .subscribe("graphql-transport-ws", json!({}), subscribe("1"))
        .await;
    assert_eq!(
        next_message(&mut ws, "an ack").await["type"],
        "connection_ack"
    );
    assert_eq!(next_message(&mut ws, "a view").await["type"], "next");
    ws.send(text(json!({"id": "1", "type": "complete"})))
        .await
        .unwrap();
    let done = next_message(&mut ws, "the acknowledgement").await;
    assert_eq!(done, json!({"type": "complete", "id": "1"}));
    ws.send(text(subscribe("1"))).await.unwrap();
    assert_eq!(
        next_message(&mut ws, "the same id again").await["type"],
        "next"
    );
}

/// The auditor's log withholds a hand's hole cards and deck seal while it runs, and shows
/// them once a later hand has started at the table.
async fn the_auditor_sees_a_hands_cards_once_it_is_over(app: &TestApp) {
    started(app, "a1", "crown", Tracking::Dealt, &["ann", "bob"]).await;
    let auditor = app.token(Role::Auditor, None, None).await;
    let start = "mutation { startHand(tournamentId: \"a1\", table: 1) { events } }";
    let log = |token: String| async move {
        let body = app
            .graphql(
                Some(&token),
                "{ events(first: 1000) { events { streamId eventType redacted payload } } }",
                json!({}),
            )
            .await;
        body["data"]["events"]["events"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["streamId"] == "tournament:a1")
            .cloned()
            .collect::<Vec<Value>>()
    };
    let holes = |events: &[Value]| {
        events
            .iter()
            .filter(|e| e["payload"].to_string().contains("HoleCardsDealt"))
            .count()
    };
    let redacted = |events: &[Value]| events.iter().filter(|e| e["redacted"] == true).count();
    app.admin(start, json!({})).await;
    let running = log(auditor.clone()).await;
    assert_eq!(
        (redacted(&running), holes(&running)),
        (3, 0),
        "{running:#?}"
    );
    // Heads-up: the player to act folds, the hand is over; the next one starts.
    let view = app.admin(TABLE, json!({"t": "a1"})).await;
    let seat = view["table"]["toAct"].as_u64().unwrap();
    app.admin(
        ACT,
        json!({"t": "a1", "table": 1, "seat": seat, "a": "FOLD"}),
    )
    .await;
    app.admin(start, json!({})).await;
    let next = log(auditor).await;
    assert_eq!(
        (redacted(&next), holes(&next)),
        (3, 2),
        "the first hand's two deals are shown, the second's withheld: {next:#?}"
    );
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Who {
    Anonymous,
    Admin,
    /// A host of the tournament's venue.
    Host,
    /// A host of another venue.
    OtherHost,
    Auditor,
    /// The player the mutation names (seated in the tournament).
    Player,
    /// Another player at the same table.
    TableMate,
    /// A player not in the tournament.
    Stranger,
}

/// Who may send a mutation.
#[derive(Clone, Copy)]
enum May {
    /// The league admin only.
    Admin,
    /// The admin and the venue's hosts.
    Staff,
    /// The staff and the player named (registration, or their own seat).
    StaffOrPlayer,
}

impl May {
    fn allows(self, who: Who) -> bool {
        match self {
            May::Admin => who == Who::Admin,
            May::Staff => matches!(who, Who::Admin | Who::Host),
            May::StaffOrPlayer => matches!(who, Who::Admin | Who::Host | Who::Player),
        }
    }
}

/// Every mutation against every role: a role that may not gets `FORBIDDEN` (or
/// `UNAUTHENTICATED` without a token) and nothing is appended; a role that may gets past
/// the authorisation (the engine may still refuse the command for its own reasons).
async fn every_mutation_against_every_role(app: &TestApp) {
    // The finished results tournament `t1` and the league `apl` (crown) come first.
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
    let tokens = [
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
    ];
    let hex = |n: u8| seed(n).to_string();
    let commit = |n: u8| seed(n).commitment().to_string();
    let outcome = json!({
        "tournament": "x1", "venue": "crown", "season": "s1", "day": 9, "buyin": 2000,
        "prizepool": 4000, "field": 2,
        "finishes": [{"player": "ann", "place": 1, "prize": 4000}, {"player": "bob", "place": 2}]
    });
    let cases: Vec<(&str, String, May)> = vec![
        ("scheduleTournament", format!("scheduleTournament(id: \"m2\", schedule: {})", graphql_json(&schedule("crown", Tracking::Results, &seed(1)))), May::Staff),
        ("register", "register(tournamentId: \"m1\", player: \"ann\")".into(), May::StaffOrPlayer),
        ("unregister", "unregister(tournamentId: \"m1\", player: \"ann\")".into(), May::StaffOrPlayer),
        ("lateEntry", format!("lateEntry(tournamentId: \"m1\", player: \"dan\", seed: \"{}\", nextCommitment: \"{}\")", hex(2), commit(3)), May::Staff),
        ("pause", "pause(tournamentId: \"m1\")".into(), May::Staff),
        ("resume", "resume(tournamentId: \"m1\")".into(), May::Staff),
        ("markAbsent", "markAbsent(tournamentId: \"m1\", player: \"bob\")".into(), May::Staff),
        ("arrived", "arrived(tournamentId: \"m1\", player: \"bob\")".into(), May::Staff),
        ("removeAbsent", "removeAbsent(tournamentId: \"m1\", player: \"bob\")".into(), May::Staff),
        ("announceRebuy", "announceRebuy(tournamentId: \"m1\", player: \"bob\")".into(), May::Staff),
        ("declineRebuy", "declineRebuy(tournamentId: \"m1\", player: \"bob\")".into(), May::Staff),
        ("movePlayer", "movePlayer(tournamentId: \"m1\", player: \"bob\", toTable: 2, toSeat: 0)".into(), May::Staff),
        ("start", format!("start(tournamentId: \"m1\", seed: \"{}\", nextCommitment: \"{}\")", hex(2), commit(3)), May::Staff),
        ("advanceLevel", "advanceLevel(tournamentId: \"m1\")".into(), May::Staff),
        ("dealHole", format!("dealHole(tournamentId: \"m1\", table: 1, seat: {ann}, cards: [\"As\", \"Kd\"])"), May::Staff),
        ("dealBoard", "dealBoard(tournamentId: \"m1\", table: 1, cards: [\"2c\", \"3d\", \"4h\"])".into(), May::Staff),
        ("eliminate", "eliminate(tournamentId: \"m1\", players: [\"bob\"])".into(), May::Staff),
        ("recordChips", "recordChips(tournamentId: \"m1\", counts: [{player: \"ann\", chips: 1}])".into(), May::Staff),
        ("rebuy", "rebuy(tournamentId: \"m1\", player: \"bob\")".into(), May::Staff),
        ("addOn", "addOn(tournamentId: \"m1\", player: \"bob\")".into(), May::Staff),
        ("colourUp", "colourUp(tournamentId: \"m1\")".into(), May::Staff),
        ("redraw", format!("redraw(tournamentId: \"m1\", seed: \"{}\", nextCommitment: \"{}\")", hex(2), commit(3)), May::Staff),
        ("penalise", "penalise(tournamentId: \"m1\", player: \"bob\", penalty: WARNING)".into(), May::Staff),
        ("setPayouts", "setPayouts(tournamentId: \"m1\", amounts: [1])".into(), May::Staff),
        ("deal", "deal(tournamentId: \"m1\", kind: \"ChipChop\", accepted: [\"ann\"])".into(), May::Staff),
        ("startHand", "startHand(tournamentId: \"m1\", table: 1)".into(), May::Staff),
        ("act", format!("act(tournamentId: \"m1\", table: 1, seat: {ann}, action: FOLD)"), May::StaffOrPlayer),
        ("show", format!("show(tournamentId: \"m1\", table: 1, seat: {ann})"), May::StaffOrPlayer),
        ("muck", format!("muck(tournamentId: \"m1\", table: 1, seat: {ann})"), May::StaffOrPlayer),
        ("createLeague", "createLeague(id: \"l9\", name: \"L9\")".into(), May::Admin),
        ("addVenue", "addVenue(leagueId: \"apl\", venue: \"pub9\", region: \"north\")".into(), May::Admin),
        ("addSeason", "addSeason(leagueId: \"apl\", season: \"s9\", scoring: {Table: {points: [100]}})".into(), May::Admin),
        ("setFormula", "setFormula(leagueId: \"apl\", season: \"s1\", scoring: {Formula: {text: \"n - r + 1\"}})".into(), May::Admin),
        ("registerPlayer", "registerPlayer(leagueId: \"apl\", player: \"zoe\", name: \"Zoe\", membership: \"9\")".into(), May::Admin),
        ("renamePlayer", "renamePlayer(leagueId: \"apl\", player: \"cat\", name: \"Cat\")".into(), May::Admin),
        ("mergePlayers", "mergePlayers(leagueId: \"apl\", keep: \"ann\", merge: \"cat\")".into(), May::Admin),
        ("unmergePlayers", "unmergePlayers(leagueId: \"apl\", keep: \"ann\", merge: \"cat\")".into(), May::Admin),
        ("recordTournament", format!("recordTournament(leagueId: \"apl\", outcome: {})", graphql_json(&outcome)), May::Staff),
        ("recordTournamentResult", "recordTournamentResult(leagueId: \"apl\", tournamentId: \"t1\", season: \"s1\", day: 1)".into(), May::Staff),
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
                .filter(|(w, _)| may.allows(*w) && *w != Who::Admin),
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
        format!("act(tournamentId: \"m1\", table: 1, seat: {ann}, action: FOLD)"),
        format!("show(tournamentId: \"m1\", table: 1, seat: {ann})"),
        format!("muck(tournamentId: \"m1\", table: 1, seat: {ann})"),
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

/// A JSON value written as a GraphQL input literal (object keys unquoted).
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
        other => other.to_string(),
    }
}

async fn all(backend: Backend) {
    let app = spawn_app(backend).await;
    health_readiness_and_the_playground_answer(&app).await;
    a_results_tracked_tournament_runs_from_schedule_to_payouts_into_the_standings(&app).await;
    a_dealt_hand_keeps_cards_private_and_reports_rule_errors_with_codes(&app).await;
    a_host_of_another_venue_is_forbidden_and_nothing_is_appended(&app).await;
    a_retry_with_the_same_idempotency_key_appends_once(&app).await;
    positions_are_64_bit_and_typed_as_such(&app).await;
    a_subscription_receives_the_changes_in_order(&app).await;
    late_entries_close_by_level_or_by_time(&app).await;
    a_standings_subscription_sees_a_recorded_night(&app).await;
    two_hosts_racing_on_one_table_one_wins_and_the_log_stays_consistent(&app).await;
    tournaments_page_by_cursor(&app).await;
    the_auditor_sees_a_hands_cards_once_it_is_over(&app).await;
    a_player_subscribed_over_the_older_protocol_sees_only_their_own_cards(&app).await;
    shared_live_views_never_cross_callers(&app).await;
    the_websocket_protocol_refuses_what_it_must(&app).await;
    every_mutation_against_every_role(&app).await;
    metrics_count_requests_commands_events_and_subscribers(&app).await;
    app.stop().await;
}

#[actix_web::test]
async fn the_api_works_end_to_end_on_sqlite() {
    all(Backend::Sqlite).await;
}

#[actix_web::test]
async fn the_api_works_end_to_end_on_postgres() {
    if std::env::var_os("LEAGUE_TEST_POSTGRES_URL").is_none() {
        eprintln!("LEAGUE_TEST_POSTGRES_URL is not set: skipped");
        return;
    }
    all(Backend::Postgres).await;
}

/// Stopping the server while a dashboard is still subscribed still stops the live
/// projector with a last checkpoint (the subscription's session may outlive the workers).
#[actix_web::test]
async fn stopping_with_a_subscriber_connected_writes_the_last_checkpoint() {
    let mut app = spawn_app(Backend::Sqlite).await;
    let mut ws = app.scheduled_and_watched("t9", 9).await;
    app.admin(REGISTER, json!({"t": "t9", "p": "ann"})).await;
    let mut entries = None;
    while entries != Some(1) {
        let message = next_message(&mut ws, "a subscription message").await;
        if message["type"] == "next" {
            entries = message["payload"]["data"]["tournament"]["entries"].as_u64();
        }
    }
    let last = app.last_position().await;
    assert!(last.is_some());
    // Stop with the WebSocket still open.
    let _ = app.stop.take().unwrap().send(());
    app.server.take().unwrap().await.unwrap().unwrap();
    let (checkpoint, docs) = app.store.read_models(league_app::PROJECTION).await.unwrap();
    assert_eq!(checkpoint, last, "the last checkpoint is at the last event");
    assert!(!docs.is_empty());
    drop(ws);
    app.store.close().await;
    app.scratch.drop_it().await;
}
