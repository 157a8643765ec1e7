//! `league-bench api`: a league night against one real server, over real HTTP and
//! WebSocket.
//!
//! The server (`league_api::run_with`, rate limit off) runs in this process on a scratch
//! database (PostgreSQL with `--database`, else SQLite) and its own worker threads; the
//! load generator is an actix system on further threads. Each table is a one-table dealt
//! tournament at its own venue, driven by its host's token as a venue app would drive it:
//! read the table, then send the next command (start a hand, or the seat to act folds), one
//! command at a time per table, every table at once. Subscribers (spread evenly over the
//! tables) subscribe to their table over `graphql-transport-ws` before play starts.
//!
//! Reported: commands per second and their latency (request sent to response read);
//! delivery latency, from the moment the command that produced a table's new version was
//! sent to the moment a subscriber of that table has the update; and updates a subscriber
//! never saw (every command changes the table, so every command's version must arrive).

use std::collections::{BTreeMap, HashMap};
use std::pin::Pin;
use std::process::ExitCode;
use std::rc::Rc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use clap::Args;
use futures_util::{SinkExt as _, StreamExt as _};
use league_engine::deck::Seed;
use league_engine::league;
use league_engine::rules::Preset;
use league_engine::tournament::play::Tracking;
use league_engine::tournament::sim::weekly_schedule;
use league_engine::units::PlayerId;
use league_store::Backend;
use league_testkit::Scratch;
use serde_json::{Value, json};

#[derive(Args)]
pub struct ApiArgs {
    /// The PostgreSQL server (a scratch schema is used and dropped); without it, SQLite.
    #[arg(long = "database")]
    url: Option<String>,
    /// Tables playing at once (each a one-table tournament at its own venue).
    #[arg(long, default_value_t = 50)]
    tables: u32,
    /// WebSocket subscribers, spread evenly over the tables.
    #[arg(long, default_value_t = 1000)]
    subscribers: u32,
    /// Seconds of play measured.
    #[arg(long, default_value_t = 20)]
    seconds: u64,
    /// Load-generator threads (each an actix system with its share of tables and
    /// subscribers).
    #[arg(long, default_value_t = 2)]
    clients: u32,
    /// How each venue app learns its table's state before its next command: from the
    /// answer to its last command (`answer`: the command asks for the table it changed),
    /// by reading it over HTTP before each command (`read`), or from its own subscription,
    /// waiting for the version its last command produced (`follow`).
    #[arg(long, value_enum, default_value_t = Mode::Answer)]
    mode: Mode,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Mode {
    Answer,
    Read,
    Follow,
}

pub(crate) const PLAYERS: u32 = 9;

const SCHEDULE: &str = "mutation($id: ID!, $s: ScheduleInput!) { scheduleTournament(input: {id: $id, schedule: $s}) { events } }";
const REGISTER: &str =
    "mutation($t: ID!, $p: ID!) { register(input: {tournamentId: $t, player: $p}) { events } }";
const START: &str = "mutation($t: ID!) { start(input: {tournamentId: $t}) { events } }";
const START_HAND: &str = "mutation($t: ID!) { startHand(input: {tournamentId: $t, table: 1}) { version table(table: 1) { version inHand toAct } } }";
const FOLD: &str = "mutation($t: ID!, $seat: Int!) { act(input: {tournamentId: $t, table: 1, seat: $seat, action: FOLD}) { version table(table: 1) { version inHand toAct } } }";
const TABLE: &str = "query($t: ID!) { table(tournamentId: $t, table: 1) { version inHand toAct } }";
const SUBSCRIBE: &str =
    "subscription($t: ID!) { table(tournamentId: $t, table: 1) { version hand toAct } }";
const FOLLOW: &str =
    "subscription($t: ID!) { table(tournamentId: $t, table: 1) { version inHand toAct } }";

/// What a venue app and a dashboard read of a table view.
#[derive(Clone, Copy, Debug, serde::Deserialize)]
struct View {
    version: u64,
    #[serde(rename = "inHand", default)]
    in_hand: Option<bool>,
    #[serde(rename = "toAct", default)]
    to_act: Option<u64>,
}

/// A `graphql-transport-ws` message from the server, read only as far as the generator
/// needs: its type and, for `next`, the table view (or the errors) it carries.
#[derive(serde::Deserialize)]
struct Incoming<'a> {
    #[serde(rename = "type", borrow)]
    kind: std::borrow::Cow<'a, str>,
    #[serde(default)]
    payload: Option<IncomingPayload>,
}

#[derive(serde::Deserialize)]
struct IncomingPayload {
    #[serde(default)]
    data: Option<IncomingData>,
    #[serde(default)]
    errors: Option<Value>,
}

#[derive(serde::Deserialize)]
struct IncomingData {
    table: Option<View>,
}

/// What one load-generator thread measured.
#[derive(Default)]
struct Measured {
    /// Per table: (version produced, when the command was sent, latency).
    commands: BTreeMap<u32, Vec<(u64, Instant, Duration)>>,
    queries: Vec<Duration>,
    /// Per subscriber: its table and the (version, when received) it saw after its first.
    updates: Vec<(u32, Vec<(u64, Instant)>)>,
    errors: Vec<String>,
}

pub fn api(args: &ApiArgs) -> ExitCode {
    match run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("league-bench api: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &ApiArgs) -> Result<(), String> {
    let backend = if args.url.is_some() {
        Backend::Postgres
    } else {
        Backend::Sqlite
    };
    let server_rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let (scratch, store) = server_rt.block_on(async {
        let scratch = Scratch::new(backend, args.url.as_deref())
            .await
            .map_err(|e| e.to_string())?;
        let store = scratch.open().await.map_err(|e| e.to_string())?;
        Ok::<_, String>((scratch, store))
    })?;
    let listener = std::net::TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
    let base = format!(
        "http://{}",
        listener.local_addr().map_err(|e| e.to_string())?
    );
    // The server on its own actix system (its HTTP workers are threads of their own).
    let (stop_tx, stop_rx) = std::sync::mpsc::channel::<()>();
    let server_store = store.clone();
    let server = std::thread::spawn(move || {
        actix_web::rt::System::new().block_on(async move {
            let options = league_api::Options {
                rate_limit: 0,
                burst: 0,
                ..league_api::Options::default()
            };
            let shutdown = async move {
                // Poll the plain channel from the async side.
                loop {
                    if stop_rx.try_recv().is_ok() {
                        break;
                    }
                    actix_web::rt::time::sleep(Duration::from_millis(50)).await;
                }
            };
            league_api::run_with(listener, server_store, options, shutdown).await
        })
    });
    let tokens = server_rt.block_on(async {
        add_venues(&store, args.tables).await?;
        let mut tokens = Vec::new();
        for t in 0..args.tables {
            let venue = format!("venue-{t}");
            let (_, token) = league_api::auth::create_token(
                &store,
                league_api::auth::Role::Host,
                Some(&venue),
                None,
            )
            .await
            .map_err(|e| e.to_string())?;
            tokens.push(token);
        }
        Ok::<_, String>(tokens)
    })?;
    let tokens = Arc::new(tokens);

    let clients = args.clients.max(1);
    let started = Arc::new(std::sync::Barrier::new(
        usize::try_from(clients).unwrap_or(1),
    ));
    let measure_from = Arc::new(Mutex::new(None::<Instant>));
    let mut threads = Vec::new();
    for c in 0..clients {
        let tables: Vec<u32> = (0..args.tables).filter(|t| t % clients == c).collect();
        let subscribers: Vec<u32> = (0..args.subscribers)
            .filter(|s| s % clients == c)
            .map(|s| s % args.tables.max(1))
            .collect();
        let base = base.clone();
        let tokens = Arc::clone(&tokens);
        let started = Arc::clone(&started);
        let measure_from = Arc::clone(&measure_from);
        let seconds = args.seconds;
        let mode = args.mode;
        threads.push(std::thread::spawn(move || {
            actix_web::rt::System::new().block_on(client(
                base,
                tokens,
                tables,
                subscribers,
                seconds,
                mode,
                started,
                measure_from,
            ))
        }));
    }
    let mut all = Measured::default();
    for t in threads {
        let m = t.join().map_err(|_| "a load-generator thread panicked")?;
        for (table, commands) in m.commands {
            all.commands.entry(table).or_default().extend(commands);
        }
        all.queries.extend(m.queries);
        all.updates.extend(m.updates);
        all.errors.extend(m.errors);
    }
    let _ = stop_tx.send(());
    match server.join() {
        Ok(Ok(())) => {}
        Ok(Err(e)) => return Err(format!("the server: {e}")),
        Err(_) => return Err("the server thread panicked".into()),
    }
    server_rt.block_on(async {
        store.close().await;
        scratch.drop_it().await;
    });
    // A subscriber or table that failed makes the run something other than the one asked
    // for: it fails, with no figures.
    if !all.errors.is_empty() {
        let mut failed = all.errors.clone();
        failed.truncate(5);
        return Err(format!(
            "the run failed, so it reports no figures: {} subscribers or tables failed; the first {}:\n  {}",
            all.errors.len(),
            failed.len(),
            failed.join("\n  ")
        ));
    }
    let missed = report(args, backend, &all);
    if missed > 0 {
        return Err(format!(
            "{missed} updates never reached their subscribers: the run fails"
        ));
    }
    Ok(())
}

#[allow(
    clippy::too_many_arguments,
    reason = "one thread's share, handed over once"
)]
async fn client(
    base: String,
    tokens: Arc<Vec<String>>,
    tables: Vec<u32>,
    subscribers: Vec<u32>,
    seconds: u64,
    mode: Mode,
    started: Arc<std::sync::Barrier>,
    measure_from: Arc<Mutex<Option<Instant>>>,
) -> Measured {
    let http = Rc::new(
        awc::Client::builder()
            .timeout(Duration::from_secs(60))
            .max_http_version(awc::http::Version::HTTP_11)
            .finish(),
    );
    let measured = Rc::new(std::cell::RefCell::new(Measured::default()));
    // Set the tables up: schedule, register, start.
    let setups = tables.iter().map(|&t| {
        let http = Rc::clone(&http);
        let base = base.clone();
        let token = tokens[usize::try_from(t).unwrap_or(0)].clone();
        async move {
            setup(&http, &base, &token, t)
                .await
                .map_err(|e| format!("table {t}: {e}"))
        }
    });
    for result in futures_util::future::join_all(setups).await {
        if let Err(e) = result {
            measured.borrow_mut().errors.push(e);
        }
    }
    // Subscribe, and wait for every subscriber's first view.
    let (first_tx, mut first_rx) = tokio::sync::mpsc::unbounded_channel::<()>();
    let deadline_cell = Rc::new(std::cell::Cell::new(None::<Instant>));
    let mut subscriptions = Vec::new();
    for (i, &table) in subscribers.iter().enumerate() {
        let base = base.clone();
        let first_tx = first_tx.clone();
        let measured = Rc::clone(&measured);
        let deadline_cell = Rc::clone(&deadline_cell);
        subscriptions.push(actix_web::rt::spawn(async move {
            match subscribe(&base, table, i, first_tx, deadline_cell).await {
                Ok(seen) => measured.borrow_mut().updates.push((table, seen)),
                Err(e) => measured
                    .borrow_mut()
                    .errors
                    .push(format!("subscriber {i} of table {table}: {e}")),
            }
        }));
    }
    drop(first_tx);
    let mut ready = 0;
    while ready < subscribers.len() {
        match first_rx.recv().await {
            Some(()) => ready += 1,
            None => break,
        }
    }
    // Every thread starts play together.
    let barrier = Arc::clone(&started);
    let _ = actix_web::rt::task::spawn_blocking(move || barrier.wait()).await;
    let start = {
        let mut from = measure_from
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        *from.get_or_insert_with(Instant::now)
    };
    let deadline = start + Duration::from_secs(seconds);
    deadline_cell.set(Some(deadline + Duration::from_secs(2)));
    let drivers = tables.iter().map(|&t| {
        let http = Rc::clone(&http);
        let base = base.clone();
        let token = tokens[usize::try_from(t).unwrap_or(0)].clone();
        let measured = Rc::clone(&measured);
        async move {
            let driven = match mode {
                Mode::Answer | Mode::Read => {
                    drive(&http, &base, &token, t, mode, deadline, &measured).await
                }
                Mode::Follow => {
                    follow_and_drive(&http, &base, &token, t, deadline, &measured).await
                }
            };
            if let Err(e) = driven {
                measured.borrow_mut().errors.push(format!("table {t}: {e}"));
            }
        }
    });
    futures_util::future::join_all(drivers).await;
    for s in subscriptions {
        let _ = s.await;
    }
    Rc::try_unwrap(measured)
        .map(std::cell::RefCell::into_inner)
        .unwrap_or_default()
}

async fn graphql(
    http: &awc::Client,
    base: &str,
    token: &str,
    query: &str,
    variables: Value,
) -> Result<Value, String> {
    let mut response = http
        .post(format!("{base}/graphql"))
        .insert_header(("Authorization", format!("Bearer {token}")))
        .send_json(&json!({"query": query, "variables": variables}))
        .await
        .map_err(|e| e.to_string())?;
    let body = response
        .body()
        .limit(1 << 20)
        .await
        .map_err(|e| e.to_string())?;
    let body: Value = serde_json::from_slice(&body).map_err(|e| e.to_string())?;
    if let Some(errors) = body.get("errors") {
        return Err(errors.to_string());
    }
    Ok(body["data"].clone())
}

/// The league the tables' venues belong to (a host token names a venue that exists), with
/// the tables' players as its members.
pub(crate) async fn add_venues(store: &league_store::Store, tables: u32) -> Result<(), String> {
    let mut state = league::LeagueState::new();
    let mut events = Vec::new();
    let commands = std::iter::once(league::Command::CreateLeague {
        name: "Bench league".into(),
        final_table: None,
        code: None,
    })
    .chain((0..tables).map(|t| league::Command::AddVenue {
        venue: format!("venue-{t}").into(),
        region: "bench".into(),
        code: None,
    }))
    // Only a venue's league members are registered at its tournaments.
    .chain((0..tables).flat_map(|t| {
        (0..PLAYERS).map(move |p| league::Command::RegisterPlayer {
            player: PlayerId::from(format!("t{t}-p{p}")),
            name: format!("Player {p} of table {t}"),
            membership: format!("B-{t}-{p}"),
        })
    }));
    for command in commands {
        for event in league::decide(&state, &command).map_err(|e| e.to_string())? {
            league::apply(&mut state, &event);
            events.push(league_events::encode(&event).map_err(|e| e.to_string())?);
        }
    }
    let stream = league_events::StreamKind::League.stream("bench");
    let mut version = 0;
    for batch in events.chunks(league_store::MAX_BATCH_EVENTS) {
        let appended = store
            .append(
                &stream,
                league_store::ExpectedVersion::Exact(version),
                batch,
                None,
            )
            .await
            .map_err(|e| e.to_string())?;
        version = appended.last_version;
    }
    Ok(())
}

fn seed(table: u32, n: u8) -> Seed {
    let mut bytes = [n; 32];
    bytes[..4].copy_from_slice(&table.to_le_bytes());
    Seed::from_bytes(bytes)
}

pub(crate) fn schedule(table: u32) -> Value {
    let schedule = weekly_schedule(
        &format!("venue-{table}"),
        Preset::Wph,
        Tracking::Dealt,
        seed(table, 1).commitment(),
    );
    league_api::schema::tournaments::inputs::schedule_input(&schedule)
}

async fn setup(http: &awc::Client, base: &str, token: &str, table: u32) -> Result<(), String> {
    let id = format!("bench-{table}");
    graphql(
        http,
        base,
        token,
        SCHEDULE,
        json!({"id": id, "s": schedule(table)}),
    )
    .await?;
    for p in 0..PLAYERS {
        graphql(
            http,
            base,
            token,
            REGISTER,
            json!({"t": id, "p": format!("t{table}-p{p}")}),
        )
        .await?;
    }
    graphql(http, base, token, START, json!({"t": id})).await?;
    Ok(())
}

/// One table's venue app, until the deadline: sends the next command for the table as it
/// last saw it, learning the table from each command's answer (`Mode::Answer`: one request
/// per command) or by reading it before each command (`Mode::Read`). The table is read
/// once before the first command either way.
async fn drive(
    http: &awc::Client,
    base: &str,
    token: &str,
    table: u32,
    mode: Mode,
    deadline: Instant,
    measured: &std::cell::RefCell<Measured>,
) -> Result<(), String> {
    let read = || async {
        let asked = Instant::now();
        let data = graphql(
            http,
            base,
            token,
            TABLE,
            json!({"t": format!("bench-{table}")}),
        )
        .await?;
        Ok::<_, String>((table_of(&data["table"])?, asked.elapsed()))
    };
    let mut view = read().await?.0;
    while Instant::now() < deadline {
        let (_, answer) = act(http, base, token, table, &view, measured).await?;
        view = match mode {
            Mode::Answer => table_of(&answer["table"])?,
            Mode::Read | Mode::Follow => {
                let (view, took) = read().await?;
                measured.borrow_mut().queries.push(took);
                view
            }
        };
    }
    Ok(())
}

fn table_of(data: &Value) -> Result<View, String> {
    serde_json::from_value(data.clone()).map_err(|e| format!("not a table view: {e}: {data}"))
}

/// One table's venue app that follows its table over its own subscription: it acts on the
/// view of the version its last command produced (or a later one).
async fn follow_and_drive(
    http: &awc::Client,
    base: &str,
    token: &str,
    table: u32,
    deadline: Instant,
    measured: &std::cell::RefCell<Measured>,
) -> Result<(), String> {
    let mut feed = TableFeed::open(base, Some(token), "app", FOLLOW, table).await?;
    let mut reached = 0u64;
    while Instant::now() < deadline {
        // The view of the version the last command produced, or a later one.
        let view = loop {
            let until = Instant::now() + Duration::from_secs(30);
            let Some((view, _)) = feed.next_view(until).await? else {
                return Err(format!("no view of version {reached} in 30 s"));
            };
            if view.version >= reached {
                break view;
            }
        };
        reached = act(http, base, token, table, &view, measured).await?.0;
    }
    feed.close().await;
    Ok(())
}

/// Sends the next command for the table as `view` shows it, records its latency and the
/// version it produced, and returns that version and the command's answer.
async fn act(
    http: &awc::Client,
    base: &str,
    token: &str,
    table: u32,
    view: &View,
    measured: &std::cell::RefCell<Measured>,
) -> Result<(u64, Value), String> {
    let id = format!("bench-{table}");
    let (query, variables) = next_command(&id, view)?;
    let sent = Instant::now();
    let data = graphql(http, base, token, query, variables).await?;
    let took = sent.elapsed();
    let answer = data
        .as_object()
        .and_then(|o| o.values().next())
        .cloned()
        .ok_or_else(|| format!("no answer in {data}"))?;
    let version = answer["version"]
        .as_u64()
        .ok_or_else(|| format!("no version in {data}"))?;
    measured
        .borrow_mut()
        .commands
        .entry(table)
        .or_default()
        .push((version, sent, took));
    Ok((version, answer))
}

/// The next command for a table as it is now.
fn next_command(id: &str, view: &View) -> Result<(&'static str, Value), String> {
    match (view.in_hand, view.to_act) {
        (Some(true), Some(seat)) => Ok((FOLD, json!({"t": id, "seat": seat}))),
        (Some(false), _) => Ok((START_HAND, json!({"t": id}))),
        _ => Err(format!("the table waits for nothing: {view:?}")),
    }
}

/// One `graphql-transport-ws` subscription to a table's view.
struct TableFeed {
    ws: actix_codec::Framed<awc::BoxedSocket, awc::ws::Codec>,
    /// The current wait's end: one timer per feed, moved only when the wait changes.
    until: Pin<Box<actix_web::rt::time::Sleep>>,
    until_at: Instant,
}

impl TableFeed {
    /// Connects (with `token` in `connection_init`, if any) and subscribes with `query`
    /// to table 1 of the bench tournament of `table`.
    async fn open(
        base: &str,
        token: Option<&str>,
        id: &str,
        query: &str,
        table: u32,
    ) -> Result<TableFeed, String> {
        let url = format!("{}/graphql/ws", base.replacen("http", "ws", 1));
        let (_, ws) = awc::Client::builder()
            .timeout(Duration::from_secs(60))
            .finish()
            .ws(url)
            .protocols(["graphql-transport-ws"])
            .connect()
            .await
            .map_err(|e| e.to_string())?;
        let until_at = Instant::now();
        let mut feed = TableFeed {
            ws,
            until: Box::pin(actix_web::rt::time::sleep_until(until_at.into())),
            until_at,
        };
        let init = match token {
            Some(token) => json!({"Authorization": format!("Bearer {token}")}),
            None => json!({}),
        };
        feed.send(json!({"type": "connection_init", "payload": init}))
            .await?;
        feed.send(json!({
            "id": id,
            "type": "subscribe",
            "payload": {"query": query, "variables": {"t": format!("bench-{table}")}}
        }))
        .await?;
        Ok(feed)
    }

    async fn send(&mut self, message: Value) -> Result<(), String> {
        self.ws
            .send(awc::ws::Message::Text(message.to_string().into()))
            .await
            .map_err(|e| e.to_string())
    }

    /// The next view of the table and when it arrived; `None` once `until` has passed
    /// without one. Answers the server's heartbeat (an unanswered ping closes the
    /// connection).
    async fn next_view(&mut self, until: Instant) -> Result<Option<(View, Instant)>, String> {
        if until != self.until_at {
            self.until_at = until;
            self.until.as_mut().reset(until.into());
        }
        loop {
            let frame = tokio::select! {
                frame = self.ws.next() => frame,
                () = &mut self.until => return Ok(None),
            };
            let frame = match frame {
                None => return Err("the server closed the connection".into()),
                Some(frame) => frame.map_err(|e| e.to_string())?,
            };
            let now = Instant::now();
            let bytes = match frame {
                awc::ws::Frame::Text(bytes) => bytes,
                awc::ws::Frame::Ping(payload) => {
                    self.ws
                        .send(awc::ws::Message::Pong(payload))
                        .await
                        .map_err(|e| e.to_string())?;
                    continue;
                }
                _ => continue,
            };
            let message: Incoming<'_> = serde_json::from_slice(&bytes)
                .map_err(|e| format!("{e}: {}", String::from_utf8_lossy(&bytes)))?;
            match message.kind.as_ref() {
                "next" => {
                    let payload = message.payload.ok_or("a next message without payload")?;
                    if let Some(errors) = payload.errors {
                        return Err(format!("the subscription failed: {errors}"));
                    }
                    let view = payload
                        .data
                        .and_then(|d| d.table)
                        .ok_or("a next message without a table")?;
                    return Ok(Some((view, now)));
                }
                "connection_ack" | "ping" | "pong" => {}
                _ => return Err(format!("unexpected {}", String::from_utf8_lossy(&bytes))),
            }
        }
    }

    async fn close(mut self) {
        let _ = self.ws.close().await;
    }
}

/// One dashboard: subscribes to a table; returns the versions it received after the first
/// view, with when.
async fn subscribe(
    base: &str,
    table: u32,
    n: usize,
    first: tokio::sync::mpsc::UnboundedSender<()>,
    deadline: Rc<std::cell::Cell<Option<Instant>>>,
) -> Result<Vec<(u64, Instant)>, String> {
    let mut feed = TableFeed::open(base, None, &n.to_string(), SUBSCRIBE, table).await?;
    let mut seen = Vec::new();
    let mut first_seen = false;
    let waiting_from = Instant::now();
    loop {
        let until = deadline
            .get()
            .unwrap_or(waiting_from + Duration::from_secs(120));
        let Some((view, at)) = feed.next_view(until).await? else {
            break;
        };
        let version = view.version;
        if first_seen {
            seen.push((version, at));
        } else {
            first_seen = true;
            let _ = first.send(());
        }
    }
    feed.close().await;
    Ok(seen)
}

fn percentile(sorted: &[Duration], p: usize) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let i = (sorted.len() * p).div_ceil(100).saturating_sub(1);
    sorted[i.min(sorted.len() - 1)]
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

/// Prints the run's figures; returns how many updates no subscriber of their table saw.
fn report(args: &ApiArgs, backend: Backend, all: &Measured) -> usize {
    let seconds = args.seconds.max(1);
    let mut latencies: Vec<Duration> = all
        .commands
        .values()
        .flatten()
        .map(|(_, _, took)| *took)
        .collect();
    latencies.sort_unstable();
    let mut queries = all.queries.clone();
    queries.sort_unstable();
    // Delivery: each update is matched to the first command of its table whose version
    // reaches it; a command none of a subscriber's updates covered was missed.
    let by_table: HashMap<u32, Vec<(u64, Instant)>> = all
        .commands
        .iter()
        .map(|(t, c)| {
            let mut v: Vec<(u64, Instant)> = c.iter().map(|(v, sent, _)| (*v, *sent)).collect();
            v.sort_unstable_by_key(|(v, _)| *v);
            (*t, v)
        })
        .collect();
    let mut delivery = Vec::new();
    let mut missed = 0usize;
    let mut expected = 0usize;
    for (table, seen) in &all.updates {
        let Some(commands) = by_table.get(table) else {
            continue;
        };
        let mut covered = vec![false; commands.len()];
        for (version, at) in seen {
            let i = commands.partition_point(|(v, _)| v < version);
            if let Some((_, sent)) = commands.get(i) {
                delivery.push(at.saturating_duration_since(*sent));
                covered[i] = true;
            }
        }
        expected += commands.len();
        missed += covered.iter().filter(|c| !**c).count();
    }
    delivery.sort_unstable();
    let name = match backend {
        Backend::Sqlite => "SQLite",
        Backend::Postgres => "PostgreSQL",
    };
    let count = latencies.len();
    let rate = u64::try_from(count).unwrap_or(u64::MAX) / seconds;
    println!(
        "api bench on {name}: {} tables, {} subscribers, {seconds} s, {} load-generator threads; venue apps {}",
        args.tables,
        args.subscribers,
        args.clients,
        match args.mode {
            Mode::Answer => "learn the table from each command's answer",
            Mode::Read => "read the table before each command",
            Mode::Follow => "follow their table's subscription",
        }
    );
    println!(
        "commands: {count} in {seconds} s = {rate} commands/s; latency p50 {}, p99 {} (goal: >= 2,000/s, p99 < 50 ms)",
        ms(percentile(&latencies, 50)),
        ms(percentile(&latencies, 99)),
    );
    println!(
        "table reads: {} = {} /s; latency p50 {}, p99 {}",
        queries.len(),
        u64::try_from(queries.len()).unwrap_or(u64::MAX) / seconds,
        ms(percentile(&queries, 50)),
        ms(percentile(&queries, 99)),
    );
    println!(
        "delivery: {} updates to {} subscribers; latency from the command's send p50 {}, p99 {} (goal: p99 < 100 ms); {missed} of {expected} updates never seen",
        delivery.len(),
        all.updates.len(),
        ms(percentile(&delivery, 50)),
        ms(percentile(&delivery, 99)),
    );
    missed
}
