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
//! With `--process` the server is a `league serve` process of its own instead (the release
//! binary beside this benchmark, on a scratch PostgreSQL database): the load generator and
//! the server then share the machine but not a process, and the server's memory per idle
//! subscription is measured (its resident memory with every subscriber subscribed, less
//! that with the tables set up).
//!
//! Reported: commands per second and their latency (request sent to response read); how
//! long the subscribers took to connect and receive their first view (all at once, or
//! paced with `--connect-rate`); delivery latency, from the moment the command that
//! produced a table's new version was sent to the moment a subscriber of that table has
//! the update; the screens' lag, from each command's send until a subscriber shows its
//! version or a newer one (a skipped version counts until its replacement arrived);
//! versions a subscriber skipped because a newer one reached it first
//! (conflated: a dashboard gets the latest view); and subscribers that did not end at
//! their table's final version, which fail the run.

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
use serde_json::{Value, json};

mod server;
use server::Server;

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
    /// Run the server as a `league serve` process of its own (PostgreSQL only: give
    /// `--database`), and measure its memory per subscription.
    #[arg(long)]
    process: bool,
    /// The `league` binary `--process` runs (default: the one beside this benchmark).
    #[arg(long)]
    league: Option<std::path::PathBuf>,
    /// Subscribers connecting per second, over all load-generator threads (0: all at once,
    /// as every screen does after a restart).
    #[arg(long, default_value_t = 0)]
    connect_rate: u32,
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

/// What the benchmark's own thread measured of the server while the load generator set up.
#[derive(Default)]
struct Setup {
    /// From the tables set up to every subscriber's first view.
    subscribing: Duration,
    /// The server process's memory with the tables set up, and with every subscriber idle.
    rss_kib: Option<(u64, u64)>,
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
    let (server, base) = match (args.process, args.url.as_deref()) {
        (true, Some(url)) => Server::process(&server_rt, args.league.as_deref(), url)?,
        (true, None) => {
            return Err("--process runs the server on PostgreSQL: give --database".into());
        }
        (false, url) => Server::thread(&server_rt, backend, url)?,
    };
    let tokens = server_rt.block_on(async {
        let store = server.store().await?;
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
        if args.process {
            store.close().await;
        }
        Ok::<_, String>(tokens)
    });
    let tokens = match tokens {
        Ok(tokens) => Arc::new(tokens),
        Err(e) => {
            let _ = server.stop(&server_rt);
            return Err(e);
        }
    };

    let clients = args.clients.max(1);
    // This thread waits with the load generator's: for the tables set up, for every
    // subscriber's first view, and to start play.
    let parties = usize::try_from(clients).unwrap_or(1) + 1;
    let phases = Arc::new(Phases {
        set_up: std::sync::Barrier::new(parties),
        subscribed: std::sync::Barrier::new(parties),
        started: std::sync::Barrier::new(parties),
    });
    let measure_from = Arc::new(Mutex::new(None::<Instant>));
    // Each thread's share of the connections a second.
    let connect_gap = (args.connect_rate > 0)
        .then(|| Duration::from_secs_f64(f64::from(clients) / f64::from(args.connect_rate)));
    let mut threads = Vec::new();
    for c in 0..clients {
        let tables: Vec<u32> = (0..args.tables).filter(|t| t % clients == c).collect();
        let subscribers: Vec<u32> = (0..args.subscribers)
            .filter(|s| s % clients == c)
            .map(|s| s % args.tables.max(1))
            .collect();
        let base = base.clone();
        let tokens = Arc::clone(&tokens);
        let phases = Arc::clone(&phases);
        let measure_from = Arc::clone(&measure_from);
        let seconds = args.seconds;
        let mode = args.mode;
        threads.push(std::thread::spawn(move || {
            actix_web::rt::System::new().block_on(client(
                base,
                tokens,
                tables,
                (subscribers, connect_gap),
                seconds,
                mode,
                phases,
                measure_from,
            ))
        }));
    }
    let mut setup = Setup::default();
    phases.set_up.wait();
    let set_up_rss = server.rss_kib();
    let subscribing = Instant::now();
    phases.subscribed.wait();
    setup.subscribing = subscribing.elapsed();
    // Idle: every subscriber has its first view, and no table has moved since.
    std::thread::sleep(Duration::from_secs(1));
    setup.rss_kib = set_up_rss.zip(server.rss_kib());
    phases.started.wait();
    let mut all = Measured::default();
    let mut panicked = false;
    for t in threads {
        let Ok(m) = t.join() else {
            panicked = true;
            continue;
        };
        for (table, commands) in m.commands {
            all.commands.entry(table).or_default().extend(commands);
        }
        all.queries.extend(m.queries);
        all.updates.extend(m.updates);
        all.errors.extend(m.errors);
    }
    server.stop(&server_rt)?;
    if panicked {
        return Err("a load-generator thread panicked".into());
    }
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
    let behind = report(args, backend, &all, &setup);
    if behind > 0 {
        return Err(format!(
            "{behind} subscribers did not end at their table's final version: the run fails"
        ));
    }
    Ok(())
}

/// The points at which the load generator's threads and the benchmark's wait for each
/// other.
struct Phases {
    set_up: std::sync::Barrier,
    subscribed: std::sync::Barrier,
    started: std::sync::Barrier,
}

#[allow(
    clippy::too_many_arguments,
    reason = "one thread's share, handed over once"
)]
async fn client(
    base: String,
    tokens: Arc<Vec<String>>,
    tables: Vec<u32>,
    (subscribers, connect_gap): (Vec<u32>, Option<Duration>),
    seconds: u64,
    mode: Mode,
    phases: Arc<Phases>,
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
    let wait = |phase: fn(&Phases) -> &std::sync::Barrier| {
        let phases = Arc::clone(&phases);
        actix_web::rt::task::spawn_blocking(move || {
            phase(&phases).wait();
        })
    };
    let _ = wait(|p| &p.set_up).await;
    // Subscribe (all at once, or one every `connect_gap`), and wait for every subscriber's
    // first view.
    let (first_tx, mut first_rx) = tokio::sync::mpsc::unbounded_channel::<()>();
    let deadline_cell = Rc::new(std::cell::Cell::new(None::<Instant>));
    let mut subscriptions = Vec::new();
    for (i, &table) in subscribers.iter().enumerate() {
        if let Some(gap) = connect_gap
            && i > 0
        {
            actix_web::rt::time::sleep(gap).await;
        }
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
    let _ = wait(|p| &p.subscribed).await;
    // Every thread starts play together.
    let _ = wait(|p| &p.started).await;
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

/// Prints the run's figures; returns how many subscribers did not end at their table's
/// final version.
fn report(args: &ApiArgs, backend: Backend, all: &Measured, setup: &Setup) -> usize {
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
    // reaches it. A command none of a subscriber's updates covered, before one that was,
    // was conflated (a newer view reached the subscriber first); one after the last
    // covered leaves the subscriber behind its table's final version. A screen's lag, per
    // command and subscriber, runs from the command's send to the first update showing its
    // version or a newer one: a conflated version counts until the view that replaced it
    // arrived.
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
    let mut lag = Vec::new();
    let mut conflated = 0usize;
    let mut behind = 0usize;
    let mut expected = 0usize;
    for (table, seen) in &all.updates {
        let Some(commands) = by_table.get(table) else {
            continue;
        };
        let mut covered = vec![false; commands.len()];
        // The commands whose versions the subscriber already shows.
        let mut shown = 0usize;
        for (version, at) in seen {
            let i = commands.partition_point(|(v, _)| v < version);
            if let Some((_, sent)) = commands.get(i) {
                delivery.push(at.saturating_duration_since(*sent));
                covered[i] = true;
            }
            // Every command up to this version is on the screen from now: a conflated
            // version waited for the newer view that replaced it.
            let now_shown = commands.partition_point(|(v, _)| v <= version);
            for (_, sent) in commands.get(shown..now_shown).unwrap_or_default() {
                lag.push(at.saturating_duration_since(*sent));
            }
            shown = shown.max(now_shown);
        }
        expected += commands.len();
        let last = covered.iter().rposition(|c| *c);
        let reached = last.map_or(0, |i| i + 1);
        conflated += covered[..reached].iter().filter(|c| !**c).count();
        if reached < commands.len() {
            behind += 1;
        }
    }
    delivery.sort_unstable();
    lag.sort_unstable();
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
        "subscribing: {} subscribers had their first view {:.2} s after the tables were set up ({})",
        all.updates.len(),
        setup.subscribing.as_secs_f64(),
        match args.connect_rate {
            0 => "all connecting at once".to_owned(),
            rate => format!("connecting at {rate} a second"),
        }
    );
    if let Some((set_up, subscribed)) = setup.rss_kib {
        // Bytes per subscription, printed in KB (1,000 bytes) to a tenth.
        let per = subscribed.saturating_sub(set_up).saturating_mul(1024)
            / u64::from(args.subscribers.max(1));
        println!(
            "server memory: {} MiB with the tables set up, {} MiB with every subscriber idle: {}.{} KB per subscription (floor: at most 25 KB)",
            set_up.div_ceil(1024),
            subscribed.div_ceil(1024),
            per / 1000,
            per % 1000 / 100,
        );
    }
    println!(
        "delivery: {} updates to {} subscribers; latency of each update from its command's send p50 {}, p99 {} (goal: p99 < 100 ms); {conflated} of {expected} versions conflated (a newer one arrived first); {behind} subscribers not at their table's final version",
        delivery.len(),
        all.updates.len(),
        ms(percentile(&delivery, 50)),
        ms(percentile(&delivery, 99)),
    );
    println!(
        "screens' lag: from each command's send until each subscriber of its table shows its version or a newer one, p50 {}, p99 {}",
        ms(percentile(&lag, 50)),
        ms(percentile(&lag, 99)),
    );
    behind
}
