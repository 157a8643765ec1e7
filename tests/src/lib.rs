//! The black-box harness of the GraphQL service's end-to-end tests (`tests/api_*.rs`):
//! [`spawn_app`] starts the real server on port 0 over a fresh database, with an admin
//! token, and [`TestApp`] drives it over HTTP and WebSocket. The conformance tests
//! (`tests/phh_conformance.rs`) do not use it.
//!
//! # Layout
//!
//! - [`spawn_app`] / [`spawn_app_with`] and [`TestApp`]: one server and one database per
//!   test; [`TestApp::graphql`], [`TestApp::admin`], [`TestApp::token`],
//!   [`TestApp::subscribe`], [`TestApp::connect`]; [`TestApp::stop`] ends it.
//! - [`on_every_backend!`]: each scenario, an `async fn(&TestApp)`, as one test on SQLite
//!   and one on PostgreSQL.
//! - WebSocket frames: [`next_message`], [`next_view`], [`closed_with`], [`text`].
//! - `/metrics`: [`metrics_page`], [`series`], [`metric_reaches`].
//! - [`webdriver`]: a headless Chromium through WebDriver, for the pages the server serves.
//! - [`TestApp::stop_server`] and [`TestApp::start_server`]: a restart on the same address.
//! - [`remote`]: a [`TestApp`] for servers started elsewhere (processes behind a load
//!   balancer), reading its writes through `League-Position` / `League-Min-Position`.
//! - Fixtures: [`schedule`], [`started`], [`a_league`], [`a_night_in_the_standings`],
//!   [`a_results_night`], and
//!   the GraphQL documents most tests send ([`SCHEDULE`], [`REGISTER`], ...).
//!
//! # Invariants
//!
//! - Nothing is shared between tests: each runs alone (`cargo test --test <file> <name>`)
//!   or in parallel with the others, in any order.
//! - A test's server is stopped and its scratch database (a SQLite file, or a PostgreSQL
//!   schema) dropped when the test ends: by [`TestApp::stop`], or, when the test panics
//!   first, by the app's `Drop`.
//! - The PostgreSQL variants run when `LEAGUE_TEST_POSTGRES_URL` is set; without it they
//!   are skipped, unless `LEAGUE_REQUIRE_POSTGRES=1` (CI), when they fail.

#![expect(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test harness: a panic is the failure report"
)]

pub mod golden;
pub mod webdriver;

use std::time::Duration;

use futures_util::future::BoxFuture;
use futures_util::{SinkExt as _, StreamExt as _};
use league_api::auth::{Role, create_token};
use league_engine::deck::Seed;
use league_engine::rules::Preset;
use league_engine::tournament::play::Tracking;
use league_engine::tournament::sim::weekly_schedule;
pub use league_store::Backend;
use league_store::Store;
use serde_json::{Value, json};

/// The server of the test's PostgreSQL (its database gets a scratch schema per test).
const POSTGRES_URL: &str = "LEAGUE_TEST_POSTGRES_URL";

/// The league [`TestApp::token`] adds a token's venue or player to when no league has it.
pub const TOKENS_LEAGUE: &str = "tokens";

/// A WebSocket to `/graphql/ws`.
pub type WebSocket = actix_codec::Framed<awc::BoxedSocket, awc::ws::Codec>;

/// Drops a test's database.
type DropDatabase = Box<dyn FnOnce() -> BoxFuture<'static, ()> + Send>;

/// The real server on port 0 over a fresh database.
pub struct TestApp {
    /// `http://127.0.0.1:<port>`.
    pub base: String,
    pub store: Store,
    /// An admin token.
    pub admin: String,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    server: Option<tokio::task::JoinHandle<std::io::Result<()>>>,
    drop_database: Option<DropDatabase>,
    options: league_api::Options,
    /// For an app behind a load balancer: the highest `League-Position` answered so far,
    /// sent back as `League-Min-Position` with every request (read your writes whichever
    /// instance answers).
    session: Option<std::sync::Arc<std::sync::atomic::AtomicU64>>,
}

/// A fresh database on `backend` and a way to drop it. The one place that knows where
/// scratch databases come from.
async fn fresh_database(backend: Backend) -> (Store, DropDatabase) {
    use league_testkit::Scratch;
    let url = std::env::var(POSTGRES_URL).ok();
    let scratch = Scratch::new(backend, url.as_deref()).await.unwrap();
    let store = scratch.open().await.unwrap();
    let drop_database: DropDatabase = Box::new(move || {
        Box::pin(async move {
            scratch.drop_it().await;
        })
    });
    (store, drop_database)
}

/// Whether the PostgreSQL variants run: `LEAGUE_TEST_POSTGRES_URL` is set. Without it
/// they are skipped, unless `LEAGUE_REQUIRE_POSTGRES=1`, when they fail.
pub fn postgres_is_configured() -> bool {
    if std::env::var_os(POSTGRES_URL).is_some() {
        return true;
    }
    assert!(
        !std::env::var("LEAGUE_REQUIRE_POSTGRES").is_ok_and(|v| v == "1"),
        "LEAGUE_REQUIRE_POSTGRES=1 but {POSTGRES_URL} is not set"
    );
    eprintln!("{POSTGRES_URL} is not set: skipped");
    false
}

/// Each scenario, an `async fn name(app: &TestApp)`, as two tests: `name::on_sqlite` and
/// `name::on_postgres`, each on its own server and database, stopped at the end. The
/// PostgreSQL one is skipped (or fails) as [`postgres_is_configured`] says.
#[macro_export]
macro_rules! on_every_backend {
    ($($scenario:ident),+ $(,)?) => {$(
        mod $scenario {
            #[::actix_web::test]
            async fn on_sqlite() {
                let app = $crate::spawn_app($crate::Backend::Sqlite).await;
                super::$scenario(&app).await;
                app.stop().await;
            }

            #[::actix_web::test]
            async fn on_postgres() {
                if !$crate::postgres_is_configured() {
                    return;
                }
                let app = $crate::spawn_app($crate::Backend::Postgres).await;
                super::$scenario(&app).await;
                app.stop().await;
            }
        }
    )+};
}

/// The server on a fresh database of `backend`, with the default options.
pub async fn spawn_app(backend: Backend) -> TestApp {
    spawn_app_with(backend, league_api::Options::default()).await
}

/// The server on a fresh database of `backend`, with `options`.
pub async fn spawn_app_with(backend: Backend, options: league_api::Options) -> TestApp {
    let (store, drop_database) = fresh_database(backend).await;
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let (_, admin) = create_token(&store, Role::Admin, None, None).await.unwrap();
    let mut app = TestApp {
        base,
        store,
        admin,
        stop: None,
        server: None,
        drop_database: Some(drop_database),
        options,
        session: None,
    };
    app.serve(listener);
    app
}

/// Servers started elsewhere (processes, behind a load balancer at `base`) over `store`,
/// with the admin token `admin`. Every request carries the highest position answered so
/// far as `League-Min-Position`, as a venue app talking to several instances does.
/// Stopping it stops nothing and drops no database.
pub fn remote(base: String, store: Store, admin: String) -> TestApp {
    TestApp {
        base,
        store,
        admin,
        stop: None,
        server: None,
        drop_database: None,
        options: league_api::Options::default(),
        session: Some(std::sync::Arc::default()),
    }
}

impl TestApp {
    /// POSTs a GraphQL request; returns the whole response body. As a venue app does, a
    /// request the rate limit refused (`429`) is sent again after a short wait: a test that
    /// plays a table at full speed is a client faster than any tablet, not a bug. The
    /// limit itself is tested with a raw client (`api_auth`).
    pub async fn graphql(&self, token: Option<&str>, query: &str, variables: Value) -> Value {
        let client = awc::Client::builder()
            .timeout(Duration::from_secs(30))
            .finish();
        let payload = json!({"query": query, "variables": variables});
        let mut waits = 0;
        loop {
            let mut request = client.post(format!("{}/graphql", self.base));
            if let Some(token) = token {
                request = request.insert_header(("Authorization", format!("Bearer {token}")));
            }
            if let Some(session) = &self.session {
                let seen = session.load(std::sync::atomic::Ordering::SeqCst);
                request = request.insert_header(("League-Min-Position", seen.to_string()));
            }
            let mut response = request.send_json(&payload).await.unwrap();
            let status = response.status();
            if let Some(session) = &self.session
                && let Some(position) = response
                    .headers()
                    .get("league-position")
                    .and_then(|v| v.to_str().ok())
                    .and_then(|v| v.parse().ok())
            {
                session.fetch_max(position, std::sync::atomic::Ordering::SeqCst);
            }
            let body = response.body().limit(10 << 20).await.unwrap();
            if status.as_u16() == 429 && waits < 200 {
                waits += 1;
                tokio::time::sleep(Duration::from_millis(25)).await;
                continue;
            }
            return serde_json::from_slice(&body)
                .unwrap_or_else(|e| panic!("{status}: {e}: {}", String::from_utf8_lossy(&body)));
        }
    }

    /// POSTs `query` once with `authorization` as the `Authorization` header (any bytes),
    /// without waiting out a 429: the status, the `Retry-After` header, and the body.
    pub async fn post_raw(
        &self,
        authorization: awc::http::header::HeaderValue,
        query: &str,
    ) -> (u16, Option<String>, Value) {
        let mut response = awc::Client::new()
            .post(format!("{}/graphql", self.base))
            .insert_header(("Authorization", authorization))
            .send_json(&json!({"query": query}))
            .await
            .unwrap();
        let retry = response
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let body = response.body().limit(10 << 20).await.unwrap();
        let body = serde_json::from_slice(&body).unwrap();
        (response.status().as_u16(), retry, body)
    }

    /// A bearer header for `token`.
    pub fn bearer(token: &str) -> awc::http::header::HeaderValue {
        format!("Bearer {token}").parse().unwrap()
    }

    /// As the admin; panics on errors.
    pub async fn admin(&self, query: &str, variables: Value) -> Value {
        let body = self.graphql(Some(&self.admin), query, variables).await;
        assert!(body.get("errors").is_none(), "{body:#}");
        body["data"].clone()
    }

    /// A new token. As an admin does before issuing one, the token's venue or player is
    /// first added (by the admin, through the API) to the league [`TOKENS_LEAGUE`] when no
    /// league has it yet: a token names a venue or a player that exists.
    pub async fn token(&self, role: Role, venue: Option<&str>, player: Option<&str>) -> String {
        if venue.is_some() || player.is_some() {
            let leagues = league_app::directory::leagues(&self.store).await.unwrap();
            if let Some(venue) = venue
                && !league_app::directory::has_venue(&leagues, venue)
            {
                self.tokens_league(&leagues).await;
                self.admin(
                    "mutation($l: ID!, $v: ID!) { addVenue(input: {leagueId: $l, venue: $v, region: \"test\"}) { events } }",
                    json!({"l": TOKENS_LEAGUE, "v": venue}),
                )
                .await;
            }
            if let Some(player) = player
                && !league_app::directory::has_player(&leagues, player)
            {
                self.tokens_league(&leagues).await;
                self.admin(
                    "mutation($l: ID!, $p: ID!) { registerPlayer(input: {leagueId: $l, player: $p, name: $p, membership: $p}) { events } }",
                    json!({"l": TOKENS_LEAGUE, "p": player}),
                )
                .await;
            }
        }
        create_token(&self.store, role, venue, player)
            .await
            .unwrap()
            .1
    }

    /// A new admin or auditor token limited to the league `league` (which must exist).
    pub async fn league_token(&self, role: Role, league: &str) -> String {
        let spec = league_api::auth::TokenSpec {
            league: Some(league.to_owned()),
            ..league_api::auth::TokenSpec::new(role, None, None)
        };
        league_api::auth::create_token_for(&self.store, &spec)
            .await
            .unwrap()
            .1
    }

    /// Creates [`TOKENS_LEAGUE`] unless it exists.
    async fn tokens_league(&self, leagues: &league_projections::Projector) {
        let stream = league_events::StreamKind::League.stream(TOKENS_LEAGUE);
        if leagues.league(&stream).is_none_or(|l| l.league().is_none()) {
            self.admin(
                "mutation($l: ID!) { createLeague(input: {id: $l, name: \"Tokens' league\"}) { events } }",
                json!({"l": TOKENS_LEAGUE}),
            )
            .await;
        }
    }

    /// A WebSocket to `/graphql/ws` speaking `protocol` (`graphql-transport-ws` or the
    /// older `graphql-ws`): `connection_init` with `init` as its payload, then `start` (the
    /// protocol's subscribe or start message).
    pub async fn subscribe(&self, protocol: &str, init: Value, start: Value) -> WebSocket {
        let mut ws = self.connect(protocol).await;
        ws.send(text(json!({"type": "connection_init", "payload": init})))
            .await
            .unwrap();
        ws.send(text(start)).await.unwrap();
        ws
    }

    /// A WebSocket to `/graphql/ws` speaking `protocol`, nothing sent yet.
    pub async fn connect(&self, protocol: &str) -> WebSocket {
        awc::Client::new()
            .ws(self.ws_url())
            .protocols([protocol])
            .connect()
            .await
            .unwrap()
            .1
    }

    /// `ws://127.0.0.1:<port>/graphql/ws`.
    pub fn ws_url(&self) -> String {
        format!("{}/graphql/ws", self.base.replacen("http", "ws", 1))
    }

    /// Schedules the results-tracked tournament `id` at crown and subscribes to its
    /// entries, anonymously.
    pub async fn scheduled_and_watched(&self, id: &str) -> WebSocket {
        self.admin(
            SCHEDULE,
            json!({"id": id, "s": schedule("crown", Tracking::Results)}),
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

    /// The events of the stream `stream` in log order, as the `events` query gives them to
    /// the admin: each one's type, actor and payload.
    pub async fn stream_events(&self, stream: &str) -> Vec<(String, String, Value)> {
        let mut found = Vec::new();
        let mut after: Option<String> = None;
        loop {
            let body = self
                .admin(
                    "query($a: String) { events(after: $a, first: 1000) { events { streamId eventType actor payload } endCursor hasNextPage } }",
                    json!({"a": after}),
                )
                .await;
            for e in body["events"]["events"].as_array().unwrap() {
                if e["streamId"] == stream {
                    found.push((
                        e["eventType"].as_str().unwrap().to_owned(),
                        e["actor"].as_str().unwrap_or("").to_owned(),
                        serde_json::from_str(e["payload"].as_str().unwrap_or("null")).unwrap(),
                    ));
                }
            }
            if body["events"]["hasNextPage"] != true {
                return found;
            }
            after = body["events"]["endCursor"].as_str().map(str::to_owned);
        }
    }

    /// The global position of the log's last event.
    pub async fn last_position(&self) -> Option<u64> {
        self.store.last_position().await.unwrap()
    }

    /// Serves on `listener`.
    fn serve(&mut self, listener: std::net::TcpListener) {
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        self.server = Some(actix_web::rt::spawn(league_api::run_with(
            listener,
            self.store.clone(),
            self.options.clone(),
            async {
                let _ = stopped.await;
            },
        )));
        self.stop = Some(stop);
    }

    /// Starts the server again, on the same address and store, after [`stop_server`]
    /// (as a restarted process would).
    ///
    /// [`stop_server`]: TestApp::stop_server
    pub fn start_server(&mut self) {
        assert!(self.server.is_none(), "the server is running");
        let address = self.base.trim_start_matches("http://");
        let (host, port) = address.rsplit_once(':').unwrap();
        let listener =
            league_api::listen(host, port.parse().unwrap(), league_api::LISTEN_BACKLOG).unwrap();
        self.serve(listener);
    }

    /// Stops the server and waits for it; the store stays open.
    pub async fn stop_server(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(server) = self.server.take() {
            server.await.unwrap().unwrap();
            self.retire_dead_connections().await;
        }
    }

    /// The stopped server's HTTP workers each ran their own runtime, and the pooled
    /// PostgreSQL connections they opened died with it: the first query on each fails
    /// (`A Tokio 1.x context was found, but it is being shutdown`) and retires it. A
    /// restarted process would start with a fresh pool; here every idle connection is
    /// tried once (the pool hands them out in turn), so the dead ones leave before the test
    /// or the next server uses the store.
    async fn retire_dead_connections(&self) {
        let pooled = league_store::StoreOptions::default().max_connections;
        for _ in 0..=pooled {
            let _ = self.store.last_position().await;
        }
    }

    /// Stops the server, closes the store and drops the database.
    pub async fn stop(mut self) {
        self.stop_server().await;
        self.store.close().await;
        if let Some(drop_database) = self.drop_database.take() {
            drop_database().await;
        }
    }
}

/// When a test panics before [`TestApp::stop`], its database is dropped all the same: the
/// server is told to stop (its channel closes), and the database is dropped on a thread of
/// its own, since `drop` cannot await on the test's runtime. The wait is bounded: a
/// PostgreSQL schema whose tables a transaction of the still running server holds cannot
/// be dropped until it ends, and the panic must still be reported.
impl Drop for TestApp {
    fn drop(&mut self) {
        let Some(drop_database) = self.drop_database.take() else {
            return;
        };
        self.stop.take();
        let (dropped, done) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            if let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            {
                runtime.block_on(drop_database());
            }
            let _ = dropped.send(());
        });
        let _ = done.recv_timeout(Duration::from_secs(30));
    }
}

/// The next text message of a subscription's WebSocket, as JSON (other frames skipped); it
/// must come within 20 s.
pub async fn next_message(ws: &mut WebSocket, what: &str) -> Value {
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
pub async fn closed_with(ws: &mut WebSocket) -> u16 {
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
pub async fn next_view(ws: &mut WebSocket) -> Value {
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
pub fn text(v: Value) -> awc::ws::Message {
    awc::ws::Message::Text(v.to_string().into())
}

/// The `extensions.code` of a response's first error.
/// Sends `document` with `vars` as `token` and checks that it is refused with the code
/// `expected`, naming `field` when one is given. (Whether anything was appended is the
/// caller's to check, once for all its refusals.)
pub async fn assert_refused(
    app: &TestApp,
    token: &str,
    document: &str,
    vars: &Value,
    expected: &str,
    field: Option<&str>,
) {
    let body = app.graphql(Some(token), document, vars.clone()).await;
    assert_eq!(code(&body), expected, "{vars}: {body:#}");
    if let Some(field) = field {
        assert_eq!(body["errors"][0]["extensions"]["field"], field, "{body:#}");
    }
}

pub fn code(body: &Value) -> &str {
    body["errors"][0]["extensions"]["code"]
        .as_str()
        .unwrap_or_else(|| panic!("no error code in {body:#}"))
}

/// The players whose hole cards a table view shows.
pub fn cards_shown(view: &Value) -> Vec<String> {
    view["seats"]
        .as_array()
        .unwrap_or_else(|| panic!("no seats in {view:#}"))
        .iter()
        .filter(|s| !s["cards"].is_null())
        .map(|s| s["player"].as_str().unwrap().to_owned())
        .collect()
}

/// The value of one series in a Prometheus text page.
pub fn series(page: &str, name: &str) -> u64 {
    page.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
        .unwrap_or_else(|| panic!("{name} missing:\n{page}"))
}

/// The `/metrics` page (checked to be Prometheus text).
pub async fn metrics_page(app: &TestApp) -> String {
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

/// Waits until `/metrics` shows `value` for `name`.
pub async fn metric_reaches(app: &TestApp, name: &str, value: u64) {
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

/// The seed of 32 bytes `n`.
pub fn seed(n: u8) -> Seed {
    Seed::from_bytes([n; 32])
}

/// A weekly tournament at `venue` under the WSOP's rules, as the `scheduleTournament`
/// mutation takes it (a `ScheduleInput`; the server commits to its first draw).
pub fn schedule(venue: &str, tracking: Tracking) -> Value {
    // WSOP refuses an undersized bet (the others bring it up to the minimum).
    let schedule = weekly_schedule(venue, Preset::Wsop, tracking, seed(1).commitment());
    league_api::schema::tournaments::inputs::schedule_input(&schedule)
}

pub const SCHEDULE: &str = "mutation($id: ID!, $s: ScheduleInput!) { scheduleTournament(input: {id: $id, schedule: $s}) { events } }";
pub const REGISTER: &str = "mutation($t: ID!, $p: ID!, $k: String) { register(input: {tournamentId: $t, player: $p, idempotencyKey: $k}) { events firstPosition lastPosition deduplicated } }";
pub const START: &str = "mutation($t: ID!) { start(input: {tournamentId: $t}) { events } }";
pub const ACT: &str = "mutation($t: ID!, $table: Int!, $seat: Int!, $a: ActionKind!, $amount: Chips) { act(input: {tournamentId: $t, table: $table, seat: $seat, action: $a, amount: $amount}) { events } }";
pub const TABLE: &str = "query($t: ID!) { table(tournamentId: $t, table: 1) { hand inHand toAct board seats { seat player cards } } }";

/// Schedules and starts a tournament of `players` at `venue`.
pub async fn started(app: &TestApp, id: &str, venue: &str, tracking: Tracking, players: &[&str]) {
    app.admin(SCHEDULE, json!({"id": id, "s": schedule(venue, tracking)}))
        .await;
    for p in players {
        app.admin(REGISTER, json!({"t": id, "p": p})).await;
    }
    app.admin(START, json!({"t": id})).await;
}

/// The tournament `id` at crown under `preset`, tracked by hand (`recorded`), with ann,
/// bob and cat at one table, started.
pub async fn recorded(app: &TestApp, id: &str, preset: Preset) {
    let schedule = weekly_schedule("crown", preset, Tracking::Recorded, seed(1).commitment());
    let schedule = league_api::schema::tournaments::inputs::schedule_input(&schedule);
    let body = app.admin(SCHEDULE, json!({"id": id, "s": schedule})).await;
    assert!(body.get("errors").is_none(), "{body:#}");
    for p in ["ann", "bob", "cat"] {
        app.admin(REGISTER, json!({"t": id, "p": p})).await;
    }
    app.admin(START, json!({"t": id})).await;
}

/// The league `apl` with the venue `crown` (region north), the season `s1` (12,500, 10,000
/// and 7,500 points for the first three) and the players ann, bob and cat.
pub async fn a_league(app: &TestApp) {
    app.admin(
        "mutation { createLeague(input: {id: \"apl\", name: \"APL\"}) { events } }",
        json!({}),
    )
    .await;
    app.admin(
        "mutation { addVenue(input: {leagueId: \"apl\", venue: \"crown\", region: \"north\"}) { events } }",
        json!({}),
    )
    .await;
    app.admin(
        "mutation($s: ScoringInput!) { addSeason(input: {leagueId: \"apl\", season: \"s1\", scoring: $s}) { events } }",
        json!({"s": {"table": [125, 100, 75]}}),
    )
    .await;
    for p in ["ann", "bob", "cat"] {
        app.admin(
            "mutation($p: ID!) { registerPlayer(input: {leagueId: \"apl\", player: $p, name: $p, membership: $p}) { events } }",
            json!({"p": p}),
        )
        .await;
    }
}

/// [`a_league`], and its first night in the standings of `s1`: the results-tracked
/// tournament `t1` at crown, where ann knocked out cat and then bob, recorded as day 1.
pub async fn a_night_in_the_standings(app: &TestApp) {
    a_league(app).await;
    a_results_night(app, "t1", 1, &["ann", "bob", "cat"]).await;
}

/// The results-tracked tournament `id` at crown, its players finishing in `order` (the
/// first knocks out the others, the last first), recorded in `apl`'s season `s1` on `day`.
pub async fn a_results_night(app: &TestApp, id: &str, day: u32, order: &[&str]) {
    started(app, id, "crown", Tracking::Results, order).await;
    for out in order.iter().skip(1).rev() {
        app.admin(
            "mutation($t: ID!, $p: ID!, $by: ID!) { eliminate(input: {tournamentId: $t, players: [$p], by: $by}) { events } }",
            json!({"t": id, "p": out, "by": order[0]}),
        )
        .await;
    }
    app.admin(
        "mutation($t: ID!, $d: Int!) { recordTournamentResult(input: {leagueId: \"apl\", tournamentId: $t, season: \"s1\", day: $d}) { events } }",
        json!({"t": id, "d": day}),
    )
    .await;
}

/// Everything the table view offers the app that plays it.
pub const TABLE_VIEW: &str = "query($t: ID!) { table(tournamentId: $t, table: 1) { hand inHand toAct toShow street currentBet pot awaitingBoard seats { seat player chips bet inHand } legalActions { seat canFold canCheck call betOrRaise { raise min max } } pots { amount seats } blinds { smallBlind bigBlind ante { kind amount } } } tournament(id: $t) { stage remaining } }";

/// A small deterministic generator, so a failing run can be replayed.
pub struct Lcg(pub u64);

impl Lcg {
    pub fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % n
    }
}

/// A count in an answer (chips, seats, versions).
pub fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a count: {v}"))
}

/// Plays table 1 of the dealt tournament `id` (one table, `total` chips) to a winner as a
/// venue app does: it reads the table view and sends only what the view offers (an action
/// of `legalActions`, an amount within its `betOrRaise`, `show` for `toShow`, `startHand`
/// between hands), checking on the way that the view accounts for every chip. `seed`
/// chooses among what is offered. Returns the commands sent.
pub async fn play_to_a_winner(app: &TestApp, id: &str, total: u64, seed: u64) -> u64 {
    let mut rng = Lcg(seed);
    let mut commands = 0;
    loop {
        let data = app.admin(TABLE_VIEW, json!({"t": id})).await;
        let (table, tournament) = (&data["table"], &data["tournament"]);
        if tournament["stage"] == "FINISHED" || tournament["remaining"] == 1 {
            break;
        }
        commands += 1;
        assert!(commands < 5_000, "no winner after {commands} commands");
        let seats = table["seats"].as_array().unwrap();
        let behind: u64 = seats.iter().map(|s| u(&s["chips"])).sum();
        let pots: u64 = table["pots"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| u(&p["amount"]))
            .sum();
        // The view accounts for every chip: behind plus in the pots.
        assert_eq!(behind + pots, total, "{table:#}");
        assert_eq!(pots, u(&table["pot"]), "{table:#}");
        if table["inHand"] != true {
            assert!(table["legalActions"].is_null() && table["blinds"].is_null());
            assert!(seats.iter().all(|s| s["bet"] == 0), "{table:#}");
            app.admin(
                "mutation($t: ID!) { startHand(input: {tournamentId: $t, table: 1}) { events } }",
                json!({"t": id}),
            )
            .await;
            continue;
        }
        let blinds = &table["blinds"];
        assert!(
            u(&blinds["bigBlind"]) >= u(&blinds["smallBlind"]),
            "{table:#}"
        );
        if !table["street"].is_null() {
            // In a betting round the highest bet is the bet to match.
            let bets: Vec<u64> = seats.iter().map(|s| u(&s["bet"])).collect();
            assert_eq!(
                bets.iter().copied().max().unwrap_or(0),
                u(&table["currentBet"]),
                "{table:#}"
            );
        }
        if let Some(seat) = table["toShow"].as_u64() {
            // At showdown: show (the engine refuses a muck by the last hand in a pot).
            app.admin(
                "mutation($t: ID!, $s: Int!) { show(input: {tournamentId: $t, table: 1, seat: $s}) { events } }",
                json!({"t": id, "s": seat}),
            )
            .await;
            continue;
        }
        let legal = &table["legalActions"];
        assert!(
            !legal.is_null(),
            "in a hand, nobody to show, nobody to act: {table:#}"
        );
        assert_eq!(legal["seat"], table["toAct"], "{table:#}");
        assert!(!table["street"].is_null(), "{table:#}");
        let seat = u(&legal["seat"]);
        let range = &legal["betOrRaise"];
        let roll = rng.below(100);
        let (action, amount) = if roll < 12 && legal["canFold"] == true {
            ("FOLD", None)
        } else if roll < 30 && !range.is_null() {
            let (min, max) = (u(&range["min"]), u(&range["max"]));
            let to = if rng.below(4) == 0 { max } else { min };
            (
                if range["raise"] == true {
                    "RAISE_TO"
                } else {
                    "BET"
                },
                Some(to),
            )
        } else if legal["canCheck"] == true {
            ("CHECK", None)
        } else if !legal["call"].is_null() {
            ("CALL", None)
        } else {
            ("FOLD", None)
        };
        let body = app
            .graphql(
                Some(&app.admin),
                ACT,
                json!({"t": id, "table": 1, "seat": seat, "a": action, "amount": amount}),
            )
            .await;
        assert!(
            body.get("errors").is_none(),
            "{action} {amount:?} from what the view offered was refused: {body:#}\n{table:#}"
        );
    }
    let data = app.admin(TABLE_VIEW, json!({"t": id})).await;
    let left: Vec<&Value> = data["table"]["seats"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| u(&s["chips"]) > 0)
        .collect();
    assert_eq!(left.len(), 1, "{data:#}");
    assert_eq!(u(&left[0]["chips"]), total, "the winner holds every chip");
    commands
}
