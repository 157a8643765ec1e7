//! `league-bench startup`: how long `league serve` takes to be ready, and the memory it
//! holds then, against the length of the league's history.
//!
//! For each history length a league is simulated once (40 venues, as many weeks as the
//! length needs, a season every `--season-weeks` weeks, each closed when the next begins)
//! into a SQLite file kept in `--dir`, sealed (as the server that played it
//! would have), and copied afresh for each measured binary. Each start is a `league serve` process: the time from its spawn to the first
//! `200` from `/readyz` (the projector has folded the whole log), and its resident memory
//! a second later. The candidate's first start on a history another release wrote finds no
//! snapshot and folds the whole log (reported apart); the runs after it start from the
//! snapshots that start wrote. With `--baseline` an older `league` binary runs on the same
//! history first, side by side. The floors: ready in under 1 s at every length, and memory
//! at the longest history within 20% of the shortest's.

use std::io::{Read as _, Write as _};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use clap::Args;

#[derive(Args)]
pub struct StartupArgs {
    /// History lengths, in events (each is reached by whole simulated weeks of 40 venues).
    #[arg(long, value_delimiter = ',', default_value = "300000,1200000,5000000")]
    sizes: Vec<u64>,
    /// Where the simulated histories are kept between runs (each is simulated once).
    #[arg(long, default_value = "target/startup-bench")]
    dir: PathBuf,
    /// The `league` binary measured (default: the one beside this benchmark).
    #[arg(long)]
    league: Option<PathBuf>,
    /// An older `league` binary to measure on the same histories, first.
    #[arg(long)]
    baseline: Option<PathBuf>,
    /// Starts measured per binary and length (the median is reported).
    #[arg(long, default_value_t = 3)]
    runs: usize,
    /// Weeks per season (a league closes each season as the next begins, and a closed
    /// season's results are not held in memory); 0: one season of every week, never
    /// closed, as releases before 0.9.0 can simulate and read.
    #[arg(long, default_value_t = 13)]
    season_weeks: u32,
}

/// Venues of the simulated league; a week of 40 venues is 48,000 to 50,000 events, so
/// weeks of 48,000 (rounded up) reach each length.
const VENUES: u64 = 40;
const EVENTS_PER_WEEK: u64 = 48_000;
/// The longest a start may take before the benchmark gives up on it.
const START_LIMIT: Duration = Duration::from_secs(600);

/// One start: time to ready, and resident memory a second after.
#[derive(Clone, Copy)]
struct Start {
    ready: Duration,
    rss_kib: u64,
}

/// The figures of one binary at one length.
struct Measured {
    first: Option<Start>,
    median: Start,
}

/// One row of the table.
struct Row {
    events: u64,
    candidate: Measured,
    baseline: Option<Measured>,
}

pub fn run(args: &StartupArgs) -> ExitCode {
    match measure_all(args) {
        Ok(rows) => report(&rows),
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn measure_all(args: &StartupArgs) -> Result<Vec<Row>, String> {
    let league = league_binary(args.league.as_deref())?;
    if args.baseline.is_some() && args.season_weeks > 0 {
        return Err(
            "a release before 0.9.0 cannot read a history whose seasons close: give \
             --season-weeks 0 with --baseline"
                .into(),
        );
    }
    std::fs::create_dir_all(&args.dir).map_err(|e| format!("{}: {e}", args.dir.display()))?;
    let runs = args.runs.max(1);
    let mut rows = Vec::new();
    for &size in &args.sizes {
        let weeks = size.div_ceil(EVENTS_PER_WEEK).max(1);
        // Simulated by the oldest binary measured, so that every one can open it.
        let simulator = args.baseline.as_deref().unwrap_or(&league);
        let pristine = args.dir.join(format!(
            "history-{VENUES}x{weeks}-s{}.db",
            args.season_weeks
        ));
        if !pristine.exists() {
            simulate(simulator, &pristine, weeks, args.season_weeks)?;
        }
        let work = args.dir.join("work.db");
        let baseline = match &args.baseline {
            Some(baseline) => {
                fresh_copy(&pristine, &work)?;
                Some(measure(baseline, &work, runs, false)?)
            }
            None => None,
        };
        fresh_copy(&pristine, &work)?;
        let candidate = measure(&league, &work, runs, true)?;
        let events = count_events(&league, &work)?;
        remove_db(&work);
        eprintln!("{events} events measured");
        rows.push(Row {
            events,
            candidate,
            baseline,
        });
    }
    Ok(rows)
}

/// The `league` binary at `given`, or else the one beside this benchmark.
pub(crate) fn league_binary(given: Option<&Path>) -> Result<PathBuf, String> {
    let league = match given {
        Some(path) => path.to_owned(),
        None => std::env::current_exe()
            .map_err(|e| e.to_string())?
            .with_file_name("league"),
    };
    if !league.exists() {
        return Err(format!(
            "no league binary at {}: build it (cargo build --release -p league-cli) or give --league",
            league.display()
        ));
    }
    Ok(league)
}

/// Simulates 40 venues for `weeks` weeks into `db`, a season every `season_weeks` (0: one).
fn simulate(league: &Path, db: &Path, weeks: u64, season_weeks: u32) -> Result<(), String> {
    eprintln!(
        "simulating {VENUES} venues x {weeks} weeks into {} (once; kept for later runs)",
        db.display()
    );
    let partial = db.with_extension("partial");
    remove_db(&partial);
    let mut command = Command::new(league);
    command
        .args(["simulate", "--log-level", "warn", "--venues"])
        .arg(VENUES.to_string())
        .arg("--weeks")
        .arg(weeks.to_string());
    if season_weeks > 0 {
        command.arg("--season-weeks").arg(season_weeks.to_string());
    }
    let status = command
        .arg("--database")
        .arg(format!("sqlite:{}", partial.display()))
        .status()
        .map_err(|e| format!("{}: {e}", league.display()))?;
    if !status.success() {
        return Err(format!("league simulate failed: {status}"));
    }
    seal(league, &partial)?;
    std::fs::rename(&partial, db).map_err(|e| e.to_string())
}

/// Serves `db` until its whole log is sealed, as a league's log is by the server that
/// played its nights (`league simulate` does not seal): a start measured on an unsealed
/// history would measure the sealer catching up with it.
fn seal(league: &Path, db: &Path) -> Result<(), String> {
    eprintln!("sealing {} (once)", db.display());
    let rt = crate::runtime().map_err(|_| "no async runtime".to_owned())?;
    let pool = rt
        .block_on(sqlx::SqlitePool::connect(&format!(
            "sqlite:{}",
            db.display()
        )))
        .map_err(|e| e.to_string())?;
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map_err(|e| e.to_string())?
        .port();
    let mut child = Command::new(league)
        .args(["serve", "--log-level", "warn", "--port"])
        .arg(port.to_string())
        .arg("--database")
        .arg(format!("sqlite:{}", db.display()))
        .stdout(Stdio::null())
        .spawn()
        .map_err(|e| format!("{}: {e}", league.display()))?;
    let started = Instant::now();
    let sealed = loop {
        let (last, sealed): (i64, i64) = rt
            .block_on(
                sqlx::query_as(
                    "SELECT (SELECT COALESCE(MAX(position), 0) FROM events), \
                     (SELECT COALESCE(MAX(last_position), 0) FROM seals)",
                )
                .fetch_one(&pool),
            )
            .map_err(|e| e.to_string())?;
        if sealed >= last {
            break Ok(());
        }
        if let Ok(Some(status)) = child.try_wait() {
            break Err(format!("league serve exited while sealing: {status}"));
        }
        if started.elapsed() > START_LIMIT {
            break Err(format!("the log was not sealed in {START_LIMIT:?}"));
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    stop(&mut child);
    rt.block_on(pool.close());
    sealed
}

fn remove_db(db: &Path) {
    for suffix in ["", "-wal", "-shm"] {
        let mut name = db.as_os_str().to_owned();
        name.push(suffix);
        let _ = std::fs::remove_file(PathBuf::from(name));
    }
}

fn fresh_copy(from: &Path, to: &Path) -> Result<(), String> {
    remove_db(to);
    std::fs::copy(from, to)
        .map(|_| ())
        .map_err(|e| format!("copying {}: {e}", from.display()))
}

/// The events in `db`, as `league audit`'s tree size would count them: the log's last
/// position (positions on SQLite have no gaps).
fn count_events(league: &Path, db: &Path) -> Result<u64, String> {
    let out = Command::new(league)
        .args(["rebuild", "--check", "--log-level", "warn", "--database"])
        .arg(format!("sqlite:{}", db.display()))
        .output()
        .map_err(|e| e.to_string())?;
    let text = String::from_utf8_lossy(&out.stdout);
    // "rebuilt N events in ..." then "identical".
    if !text.contains("identical") {
        return Err(format!(
            "league rebuild --check after the starts did not say identical:\n{text}{}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    text.split_whitespace()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .ok_or_else(|| format!("unexpected output of league rebuild --check: {text}"))
}

/// `runs` starts of `league` on `db` (with `first`, one more before them, reported apart).
fn measure(league: &Path, db: &Path, runs: usize, first: bool) -> Result<Measured, String> {
    let first = if first {
        Some(start_once(league, db)?)
    } else {
        None
    };
    let mut starts = Vec::with_capacity(runs);
    for _ in 0..runs {
        starts.push(start_once(league, db)?);
    }
    starts.sort_by_key(|s| s.ready);
    let median = starts[starts.len() / 2];
    Ok(Measured { first, median })
}

/// Starts `league serve` on `db`, waits for `/readyz`, reads its memory, stops it with
/// SIGTERM and waits for it to exit.
fn start_once(league: &Path, db: &Path) -> Result<Start, String> {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map_err(|e| e.to_string())?
        .port();
    let started = Instant::now();
    let mut child = Command::new(league)
        .args(["serve", "--log-level", "warn", "--port"])
        .arg(port.to_string())
        .arg("--database")
        .arg(format!("sqlite:{}", db.display()))
        .stdout(Stdio::null())
        .spawn()
        .map_err(|e| format!("{}: {e}", league.display()))?;
    let ready = loop {
        if ready(port) {
            break started.elapsed();
        }
        if let Ok(Some(status)) = child.try_wait() {
            return Err(format!("league serve exited before it was ready: {status}"));
        }
        if started.elapsed() > START_LIMIT {
            stop(&mut child);
            return Err(format!("league serve was not ready in {START_LIMIT:?}"));
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    std::thread::sleep(Duration::from_secs(1));
    let rss_kib = rss_kib(child.id()).unwrap_or(0);
    stop(&mut child);
    Ok(Start { ready, rss_kib })
}

/// Whether `/readyz` answers 200.
pub(crate) fn ready(port: u16) -> bool {
    let Ok(mut stream) = TcpStream::connect(("127.0.0.1", port)) else {
        return false;
    };
    let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
    if stream
        .write_all(b"GET /readyz HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
        .is_err()
    {
        return false;
    }
    let mut answer = [0u8; 12];
    stream.read_exact(&mut answer).is_ok() && answer.ends_with(b" 200")
}

/// The process's resident memory, in KiB.
pub(crate) fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
}

fn stop(child: &mut Child) {
    let _ = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    let deadline = Instant::now() + Duration::from_secs(60);
    while Instant::now() < deadline {
        if let Ok(Some(_)) = child.try_wait() {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
}

fn secs(d: Duration) -> String {
    format!("{:.2} s", d.as_secs_f64())
}

fn mib(kib: u64) -> String {
    format!("{} MiB", kib.div_ceil(1024))
}

fn report(rows: &[Row]) -> ExitCode {
    println!(
        "| events | first start (no snapshot) | start, median | RSS at ready | baseline start | baseline RSS | start vs baseline |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|");
    for row in rows {
        let c = &row.candidate;
        let (b_start, b_rss, ratio) = match &row.baseline {
            Some(b) => (
                secs(b.median.ready),
                mib(b.median.rss_kib),
                format!(
                    "{:.2}x",
                    c.median.ready.as_secs_f64() / b.median.ready.as_secs_f64().max(1e-9)
                ),
            ),
            None => ("-".into(), "-".into(), "-".into()),
        };
        println!(
            "| {} | {} | {} | {} | {b_start} | {b_rss} | {ratio} |",
            row.events,
            c.first.map_or("-".into(), |f| secs(f.ready)),
            secs(c.median.ready),
            mib(c.median.rss_kib),
        );
    }
    let mut held = true;
    for row in rows {
        if row.candidate.median.ready >= Duration::from_secs(1) {
            println!(
                "FLOOR MISSED: ready in {} at {} events (floor: under 1 s)",
                secs(row.candidate.median.ready),
                row.events
            );
            held = false;
        }
    }
    if let (Some(first), Some(last)) = (rows.first(), rows.last()) {
        let (a, b) = (
            first.candidate.median.rss_kib,
            last.candidate.median.rss_kib,
        );
        // Growth in tenths of a percent, in integers.
        let growth = b.saturating_sub(a).saturating_mul(1000) / a.max(1);
        println!(
            "memory from {} to {} events: {} to {} ({}.{}% more; floor: under 20%)",
            first.events,
            last.events,
            mib(a),
            mib(b),
            growth / 10,
            growth % 10
        );
        if growth >= 200 {
            println!("FLOOR MISSED: memory grew by 20% or more");
            held = false;
        }
    }
    if held {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
