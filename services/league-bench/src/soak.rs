//! `league-bench soak`: two `league serve` processes on one PostgreSQL database under a
//! league night's load, one of them killed with SIGKILL and started again every few
//! seconds.
//!
//! Each table is a one-table dealt tournament at its own venue, driven by its host's token
//! as a venue app behind a round-robin load balancer would drive it: every request goes to
//! the other instance than the last, carrying the highest `League-Position` answered so far
//! as `League-Min-Position`. The app reads its table, then sends the next command with an
//! idempotency key of its own; when the instance it sent it to dies (the connection fails)
//! or is not ready (`NOT_CAUGHT_UP`, `UNAVAILABLE`), it sends the same command, with the
//! same key, to the other instance, so a command that was written before the answer was
//! lost is answered from its first outcome, never applied twice.
//!
//! The first instance runs throughout; the second is killed every `--kill-every` seconds
//! (SIGKILL: no shutdown, no last checkpoint) and started again on its port.
//!
//! At the end, both stopped with SIGTERM, the run checks:
//!
//! - no acknowledged command is lost: every stream holds every version a command's answer
//!   named;
//! - no command was refused (with the commands decided on the store's truth, any instance
//!   answers as one would; a refusal is a failure);
//! - `league audit verify` passes and `league rebuild --check` says `identical`;
//! - memory is flat: the surviving instance's resident memory in the last quarter of the
//!   run is within 20% of the second quarter's, and the killed instance's before each kill
//!   does not grow from the first kills to the last.
//!
//! Any of these failing fails the run (exit 1), after the table of figures. The instances'
//! logs go to `--logs` (default `target/soak`).

use std::collections::BTreeMap;
use std::io::{Read as _, Write as _};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitCode, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use clap::Args;
use serde_json::{Value, json};

use crate::api::{PLAYERS, add_venues, schedule};
use crate::startup::ready;

#[derive(Args)]
pub struct SoakArgs {
    /// The PostgreSQL server; a database of the run's own is created on it and dropped.
    #[arg(long = "database")]
    url: String,
    /// The `league` binary run (default: the one beside this benchmark).
    #[arg(long)]
    league: Option<PathBuf>,
    /// Seconds of load.
    #[arg(long, default_value_t = 120)]
    seconds: u64,
    /// Tables playing at once (each its venue app, a thread).
    #[arg(long, default_value_t = 16)]
    tables: u32,
    /// Seconds between two kills of the second instance.
    #[arg(long, default_value_t = 5)]
    kill_every: u64,
    /// Where each instance's log goes (`first.log`, `second.log`, appended at each start).
    #[arg(long, default_value = "target/soak")]
    logs: PathBuf,
}

const START_HAND: &str = "mutation($t: ID!, $k: String!) { startHand(input: {tournamentId: $t, table: 1, idempotencyKey: $k}) { version } }";
const FOLD: &str = "mutation($t: ID!, $seat: Int!, $k: String!) { act(input: {tournamentId: $t, table: 1, seat: $seat, action: FOLD, idempotencyKey: $k}) { version } }";
const TABLE: &str = "query($t: ID!) { table(tournamentId: $t, table: 1) { version inHand toAct } }";
const SCHEDULE: &str = "mutation($id: ID!, $s: ScheduleInput!, $k: String!) { scheduleTournament(input: {id: $id, schedule: $s, idempotencyKey: $k}) { events } }";
const REGISTER: &str = "mutation($t: ID!, $p: ID!, $k: String!) { register(input: {tournamentId: $t, player: $p, idempotencyKey: $k}) { events } }";
const START: &str = "mutation($t: ID!, $k: String!) { start(input: {tournamentId: $t, idempotencyKey: $k}) { events } }";

/// How long a stopped instance may take to exit, and a started one to be ready.
const PROCESS_LIMIT: Duration = Duration::from_secs(60);
/// Tries of one command or read before its venue app gives up (each on the other instance
/// than the last, 50 ms apart): far more than a restart takes.
const TRIES: u32 = 400;

pub fn run(args: &SoakArgs) -> ExitCode {
    match soak(args) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("league-bench soak: {e}");
            ExitCode::FAILURE
        }
    }
}

/// A `league serve` process on a port of its own.
pub(crate) struct Instance {
    pub(crate) port: u16,
    child: Option<Child>,
}

impl Instance {
    pub(crate) fn start(
        league: &Path,
        url: &str,
        port: u16,
        key: &str,
        log: &Path,
    ) -> Result<Instance, String> {
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
            .map_err(|e| format!("{}: {e}", log.display()))?;
        let child = Command::new(league)
            .args([
                "serve",
                "--log-level",
                "warn",
                "--rate-limit",
                "0",
                "--host",
            ])
            .arg("127.0.0.1")
            .arg("--port")
            .arg(port.to_string())
            .arg("--database")
            .arg(url)
            .env("LEAGUE_SIGNING_KEY", key)
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .map_err(|e| format!("{}: {e}", league.display()))?;
        let mut instance = Instance {
            port,
            child: Some(child),
        };
        let started = Instant::now();
        while !ready(port) {
            if let Some(Ok(Some(status))) = instance.child.as_mut().map(Child::try_wait) {
                return Err(format!("league serve exited before it was ready: {status}"));
            }
            if started.elapsed() > PROCESS_LIMIT {
                instance.kill();
                return Err(format!("league serve was not ready in {PROCESS_LIMIT:?}"));
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        Ok(instance)
    }

    pub(crate) fn rss_kib(&self) -> Option<u64> {
        crate::startup::rss_kib(self.child.as_ref()?.id())
    }

    fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// SIGTERM, and the exit status.
    pub(crate) fn stop(&mut self) -> Result<(), String> {
        let Some(mut child) = self.child.take() else {
            return Ok(());
        };
        let _ = Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status();
        let deadline = Instant::now() + PROCESS_LIMIT;
        while Instant::now() < deadline {
            if let Ok(Some(status)) = child.try_wait() {
                return if status.success() {
                    Ok(())
                } else {
                    Err(format!("league serve stopped with {status}"))
                };
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = child.kill();
        let _ = child.wait();
        Err(format!("league serve did not stop in {PROCESS_LIMIT:?}"))
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        self.kill();
    }
}

pub(crate) fn free_port() -> Result<u16, String> {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .map_err(|e| e.to_string())
}

/// An answer of the API: its status, the `League-Position` it carried, its body.
struct Reply {
    status: u16,
    position: Option<u64>,
    body: Value,
}

/// POSTs a GraphQL request to the instance on `port` (HTTP/1.0, one connection each).
fn post(
    port: u16,
    token: &str,
    seen: u64,
    query: &str,
    variables: &Value,
) -> Result<Reply, String> {
    let body = json!({"query": query, "variables": variables}).to_string();
    let mut stream = TcpStream::connect(("127.0.0.1", port)).map_err(|e| e.to_string())?;
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .map_err(|e| e.to_string())?;
    let request = format!(
        "POST /graphql HTTP/1.0\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\nLeague-Min-Position: {seen}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream
        .write_all(request.as_bytes())
        .map_err(|e| e.to_string())?;
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).map_err(|e| e.to_string())?;
    let text = String::from_utf8_lossy(&answer);
    let (head, body) = text
        .split_once("\r\n\r\n")
        .ok_or_else(|| "an answer cut short".to_owned())?;
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("no status in {head}"))?;
    let position = head.lines().find_map(|l| {
        let (name, value) = l.split_once(':')?;
        name.eq_ignore_ascii_case("league-position")
            .then(|| value.trim().parse().ok())
            .flatten()
    });
    let body = serde_json::from_str(body).unwrap_or(Value::Null);
    Ok(Reply {
        status,
        position,
        body,
    })
}

/// What the run counted, shared by the venue apps.
#[derive(Default)]
struct Counts {
    /// Acknowledged commands, per table: the highest version an answer named.
    acknowledged: BTreeMap<u32, (u64, u64)>,
    /// Commands sent again after a failed connection or an instance not ready.
    resent: u64,
    /// Refusals (code and message), which must not happen.
    refused: Vec<String>,
    /// Venue apps that gave up (a command not answered in `TRIES` tries).
    failed: Vec<String>,
}

/// A venue app behind a round-robin balancer over `ports`.
struct App<'a> {
    ports: [u16; 2],
    next: usize,
    token: &'a str,
    seen: &'a AtomicU64,
}

enum Sent {
    Answered(Value),
    Refused(String),
}

impl App<'_> {
    /// Sends the request to the next instance; on a failed connection or an instance not
    /// ready, again to the other, up to `TRIES` times. `resent` counts the tries after the
    /// first.
    fn send(&mut self, query: &str, variables: &Value, resent: &mut u64) -> Result<Sent, String> {
        let mut last = String::new();
        for attempt in 0..TRIES {
            if attempt > 0 {
                *resent += 1;
                std::thread::sleep(Duration::from_millis(50));
            }
            let port = self.ports[self.next];
            self.next = 1 - self.next;
            let seen = self.seen.load(Ordering::SeqCst);
            let reply = match post(port, self.token, seen, query, variables) {
                Ok(reply) => reply,
                Err(e) => {
                    last = e;
                    continue;
                }
            };
            if let Some(p) = reply.position {
                self.seen.fetch_max(p, Ordering::SeqCst);
            }
            let code = reply.body["errors"][0]["extensions"]["code"]
                .as_str()
                .map(str::to_owned);
            match code.as_deref() {
                None if reply.status == 200 && reply.body["data"].is_object() => {
                    return Ok(Sent::Answered(reply.body["data"].clone()));
                }
                Some("NOT_CAUGHT_UP" | "UNAVAILABLE") => last = reply.body.to_string(),
                None if reply.status == 503 => last = format!("503 {}", reply.body),
                Some(_) => {
                    return Ok(Sent::Refused(reply.body["errors"][0].to_string()));
                }
                None => last = format!("{} {}", reply.status, reply.body),
            }
        }
        Err(format!("not answered in {TRIES} tries; the last: {last}"))
    }
}

/// One table's venue app until `stop`: sets the tournament up, then reads the table and
/// sends the next command, over and over.
fn drive(
    ports: [u16; 2],
    table: u32,
    token: &str,
    seen: &AtomicU64,
    stop: &AtomicBool,
    counts: &Mutex<Counts>,
) -> Result<(), String> {
    let mut app = App {
        ports,
        next: usize::try_from(table % 2).unwrap_or(0),
        token,
        seen,
    };
    let id = format!("soak-{table}");
    let mut resent = 0;
    let mut refused = Vec::new();
    let note = |sent: Sent, refused: &mut Vec<String>| match sent {
        Sent::Answered(data) => Some(data),
        Sent::Refused(why) => {
            refused.push(format!("table {table}: {why}"));
            None
        }
    };
    let setup = [(
        SCHEDULE,
        json!({"id": id, "s": schedule(table), "k": format!("{id}-schedule")}),
    )]
    .into_iter()
    .chain((0..PLAYERS).map(|p| {
        (
            REGISTER,
            json!({"t": id, "p": format!("t{table}-p{p}"), "k": format!("{id}-register-{p}")}),
        )
    }))
    .chain([(START, json!({"t": id, "k": format!("{id}-start")}))]);
    for (query, variables) in setup {
        let sent = app.send(query, &variables, &mut resent)?;
        note(sent, &mut refused);
    }
    let mut n = 0u64;
    while !stop.load(Ordering::SeqCst) && refused.is_empty() {
        let Some(data) = note(
            app.send(TABLE, &json!({"t": id}), &mut resent)?,
            &mut refused,
        ) else {
            break;
        };
        let view = &data["table"];
        let (query, variables) = match (view["inHand"].as_bool(), view["toAct"].as_u64()) {
            (Some(true), Some(seat)) => (FOLD, json!({"t": id, "seat": seat})),
            (Some(false), _) => (START_HAND, json!({"t": id})),
            _ => return Err(format!("table {table} waits for nothing: {view}")),
        };
        n += 1;
        let mut variables = variables;
        variables["k"] = json!(format!("{id}-{n}"));
        if let Some(data) = note(app.send(query, &variables, &mut resent)?, &mut refused) {
            let version = data
                .as_object()
                .and_then(|o| o.values().next())
                .and_then(|a| a["version"].as_u64())
                .ok_or_else(|| format!("no version in {data}"))?;
            let mut counts = counts
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            let entry = counts.acknowledged.entry(table).or_default();
            entry.0 = entry.0.max(version);
            entry.1 += 1;
        }
    }
    let mut counts = counts
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    counts.resent += resent;
    counts.refused.extend(refused);
    Ok(())
}

fn soak(args: &SoakArgs) -> Result<bool, String> {
    let league = crate::startup::league_binary(args.league.as_deref())?;
    let rt = crate::runtime().map_err(|_| "no async runtime".to_owned())?;
    let database = rt
        .block_on(league_testkit::ScratchDatabase::new(&args.url))
        .map_err(|e| e.to_string())?;
    let url = database.url().to_owned();
    let result = run_on(args, &league, &rt, &url);
    rt.block_on(database.drop_it());
    result
}

fn run_on(
    args: &SoakArgs,
    league: &Path,
    rt: &tokio::runtime::Runtime,
    url: &str,
) -> Result<bool, String> {
    // The run's log is dropped afterwards: a fixed signing key serves.
    let key = league_store::hash::to_hex(&[7u8; 32]);
    std::fs::create_dir_all(&args.logs).map_err(|e| format!("{}: {e}", args.logs.display()))?;
    let (first_log, second_log) = (args.logs.join("first.log"), args.logs.join("second.log"));
    // The first instance migrates the database; then the league and the hosts' tokens.
    let mut first = Instance::start(league, url, free_port()?, &key, &first_log)?;
    let tokens = rt.block_on(async {
        let store = league_store::Store::open(url)
            .await
            .map_err(|e| e.to_string())?;
        add_venues(&store, args.tables).await?;
        let mut tokens = Vec::new();
        for t in 0..args.tables {
            let (_, token) = league_api::auth::create_token(
                &store,
                league_api::auth::Role::Host,
                Some(&format!("venue-{t}")),
                None,
            )
            .await
            .map_err(|e| e.to_string())?;
            tokens.push(token);
        }
        store.close().await;
        Ok::<_, String>(tokens)
    })?;
    let second_port = free_port()?;
    let mut second = Instance::start(league, url, second_port, &key, &second_log)?;
    let ports = [first.port, second_port];

    let seen = Arc::new(AtomicU64::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let counts = Arc::new(Mutex::new(Counts::default()));
    let started = Instant::now();
    let apps: Vec<_> = tokens
        .into_iter()
        .zip(0..)
        .map(|(token, table)| {
            let (seen, stop, counts) = (Arc::clone(&seen), Arc::clone(&stop), Arc::clone(&counts));
            std::thread::spawn(move || {
                if let Err(e) = drive(ports, table, &token, &seen, &stop, &counts) {
                    counts
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .failed
                        .push(format!("table {table}: {e}"));
                }
            })
        })
        .collect();

    // Kill the second instance every few seconds; sample both instances' memory each second.
    let run = Duration::from_secs(args.seconds);
    let every = Duration::from_secs(args.kill_every.max(1));
    let mut survivor_rss: Vec<(Duration, u64)> = Vec::new();
    let mut killed_rss: Vec<u64> = Vec::new();
    let mut restarts: Vec<Duration> = Vec::new();
    let mut next_kill = started + every;
    let mut next_sample = started + Duration::from_secs(1);
    let mut stopped_early = None;
    while started.elapsed() < run {
        let now = Instant::now();
        if now >= next_sample {
            if let Some(rss) = first.rss_kib() {
                survivor_rss.push((started.elapsed(), rss));
            }
            next_sample += Duration::from_secs(1);
        }
        if now >= next_kill {
            killed_rss.push(second.rss_kib().unwrap_or(0));
            second.kill();
            let restarting = Instant::now();
            match Instance::start(league, url, second_port, &key, &second_log) {
                Ok(instance) => second = instance,
                Err(e) => {
                    stopped_early = Some(e);
                    break;
                }
            }
            restarts.push(restarting.elapsed());
            next_kill = Instant::now() + every;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    stop.store(true, Ordering::SeqCst);
    for app in apps {
        let _ = app.join();
    }
    let elapsed = started.elapsed();
    let stopped = [first.stop(), second.stop()];
    let counts = Arc::try_unwrap(counts)
        .map_err(|_| "a venue app still runs".to_owned())?
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);

    // Every acknowledged version is in the log.
    let lost = rt.block_on(async {
        let store = league_store::Store::open(url)
            .await
            .map_err(|e| e.to_string())?;
        let mut lost = Vec::new();
        for (table, (version, _)) in &counts.acknowledged {
            let stream = league_events::StreamKind::Tournament.stream(&format!("soak-{table}"));
            let held = store
                .stream_head(&stream)
                .await
                .map_err(|e| e.to_string())?
                .map_or(0, |(version, _)| version);
            if held < *version {
                lost.push(format!(
                    "{stream}: an answer named version {version}, the log holds {held}"
                ));
            }
        }
        store.close().await;
        Ok::<_, String>(lost)
    })?;
    let verify = league_cmd(league, &["audit", "verify", "--database", url])?;
    let rebuild = league_cmd(league, &["rebuild", "--check", "--database", url])?;

    let commands: u64 = counts.acknowledged.values().map(|(_, n)| n).sum();
    let flat = survivor_flat(&survivor_rss);
    let killed_flat = killed_flat(&killed_rss);
    restarts.sort();
    println!("| figure | value |");
    println!("|---|---:|");
    println!(
        "| run | {:.0} s, {} tables |",
        elapsed.as_secs_f64(),
        args.tables
    );
    println!(
        "| commands acknowledged | {commands} ({:.0}/s) |",
        f64::from(u32::try_from(commands).unwrap_or(u32::MAX)) / elapsed.as_secs_f64()
    );
    println!("| kills (SIGKILL) and restarts | {} |", restarts.len());
    if let (Some(fastest), Some(slowest)) = (restarts.first(), restarts.last()) {
        println!(
            "| restart to ready | median {} ms, {}-{} ms |",
            restarts[restarts.len() / 2].as_millis(),
            fastest.as_millis(),
            slowest.as_millis()
        );
    }
    println!(
        "| requests sent again (instance down or not ready) | {} |",
        counts.resent
    );
    println!("| acknowledged commands lost | {} |", lost.len());
    println!("| commands refused | {} |", counts.refused.len());
    println!("| league audit verify | {} |", verify.summary());
    println!("| league rebuild --check | {} |", rebuild.summary());
    println!("| surviving instance's memory | {} |", flat.1);
    println!(
        "| killed instance's memory before each kill | {} |",
        killed_flat.1
    );

    let mut held = true;
    let mut fail = |why: String| {
        println!("FAILED: {why}");
        held = false;
    };
    if let Some(e) = stopped_early {
        fail(format!("the second instance did not start again: {e}"));
    }
    for (e, which) in stopped.iter().zip(["first", "second"]) {
        if let Err(e) = e {
            fail(format!("the {which} instance: {e}"));
        }
    }
    for why in counts
        .failed
        .iter()
        .chain(&counts.refused)
        .chain(&lost)
        .take(10)
    {
        fail(why.clone());
    }
    if !verify.ok {
        fail(format!("league audit verify: {}", verify.output));
    }
    if !rebuild.ok || !rebuild.output.contains("identical") {
        fail(format!("league rebuild --check: {}", rebuild.output));
    }
    if !flat.0 {
        fail("the surviving instance's memory grew".into());
    }
    if !killed_flat.0 {
        fail("the killed instance's memory grew from restart to restart".into());
    }
    if commands == 0 {
        fail("no command was acknowledged".into());
    }
    Ok(held)
}

/// A `league` command's outcome.
struct Ran {
    ok: bool,
    output: String,
}

impl Ran {
    fn summary(&self) -> String {
        let last = self.output.lines().last().unwrap_or("").trim();
        format!("{} ({last})", if self.ok { "passed" } else { "FAILED" })
    }
}

fn league_cmd(league: &Path, args: &[&str]) -> Result<Ran, String> {
    let out = Command::new(league)
        .args(args)
        .args(["--log-level", "warn"])
        .output()
        .map_err(|e| format!("{}: {e}", league.display()))?;
    Ok(Ran {
        ok: out.status.success(),
        output: format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    })
}

/// Whether the surviving instance's memory is flat: the most it held in the last quarter of
/// the run within 20% of the most in the second quarter (after warming up); and the figures.
fn survivor_flat(samples: &[(Duration, u64)]) -> (bool, String) {
    let Some(&(end, _)) = samples.last() else {
        return (false, "not sampled".into());
    };
    let quarter = |from: u32, to: u32| {
        samples
            .iter()
            .filter(|(t, _)| *t >= end * from / 4 && *t <= end * to / 4)
            .map(|(_, rss)| *rss)
            .max()
            .unwrap_or(0)
    };
    let (second, last) = (quarter(1, 2), quarter(3, 4));
    (
        last <= second.saturating_mul(12) / 10,
        format!(
            "{} MiB at most in the second quarter, {} MiB in the last",
            second.div_ceil(1024),
            last.div_ceil(1024)
        ),
    )
}

/// Whether the killed instance's memory before each kill is flat: the most of the last
/// third of the kills within 20% of the most of the first third; and the figures.
fn killed_flat(samples: &[u64]) -> (bool, String) {
    let third = samples.len() / 3;
    if third == 0 {
        return (false, format!("too few kills to tell ({})", samples.len()));
    }
    let first = samples[..third].iter().copied().max().unwrap_or(0);
    let last = samples[samples.len() - third..]
        .iter()
        .copied()
        .max()
        .unwrap_or(0);
    (
        last <= first.saturating_mul(12) / 10,
        format!(
            "{} MiB at most over the first {third} kills, {} MiB over the last {third}",
            first.div_ceil(1024),
            last.div_ceil(1024)
        ),
    )
}
