//! `league-bench engine`: the rules engine against PokerKit, side by side in one run: PHH
//! replay of the shared corpus, and random full hands on one core.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Instant;

use clap::Args;
use league_app::phh;
use league_engine::rules::HouseRules;
use league_engine::sim::Simulator;

#[derive(Args)]
pub struct EngineArgs {
    /// The shared folder with `phh/` and `tools/phh_check.py`.
    #[arg(long, default_value = "../shared")]
    shared: PathBuf,
    /// Hands the engine simulates (on one core).
    #[arg(long, default_value_t = 100_000)]
    hands: u64,
    /// Hands PokerKit simulates (it is about a thousand times slower).
    #[arg(long, default_value_t = 300)]
    pokerkit_hands: u64,
    /// Times the engine replays the corpus.
    #[arg(long, default_value_t = 100)]
    repeat: u32,
    /// Times PokerKit replays the corpus.
    #[arg(long, default_value_t = 1)]
    pokerkit_repeat: u32,
    /// Alternating rounds; each side keeps its best.
    #[arg(long, default_value_t = 3)]
    rounds: u32,
}

pub fn run(args: &EngineArgs) -> ExitCode {
    match engine_inner(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("league-bench engine: {message}");
            ExitCode::FAILURE
        }
    }
}

fn per_second(count: u64, seconds: f64) -> f64 {
    #[expect(clippy::as_conversions, reason = "a count shown as a rate")]
    let count = count as f64;
    count / seconds.max(1e-9)
}

fn engine_inner(args: &EngineArgs) -> Result<(), String> {
    // PHH replay: parsing and replay of every file in memory, as `league phh check` times it.
    let files = phh::collect(&[args.shared.join("phh")]).map_err(|e| e.to_string())?;
    let texts: Vec<String> = files
        .iter()
        .map(std::fs::read_to_string)
        .collect::<Result<_, _>>()
        .map_err(|e| e.to_string())?;
    // Each side runs in turn, `rounds` times, and keeps its best rate: the machine is
    // shared, and a burst of load on one side's turn would otherwise skew the ratio.
    let (mut ours_replay, mut pk_replay, mut ours_sim, mut pk_sim) = (0f64, 0f64, 0f64, 0f64);
    let mut sim = Simulator::new(1, HouseRules::wsop());
    let mut events = Vec::with_capacity(64);
    for _ in 0..args.rounds.max(1) {
        let started = Instant::now();
        for _ in 0..args.repeat {
            for text in &texts {
                std::hint::black_box(phh::check_text(std::hint::black_box(text)).is_ok());
            }
        }
        let replays = u64::try_from(texts.len()).unwrap_or(0) * u64::from(args.repeat);
        ours_replay = ours_replay.max(per_second(replays, started.elapsed().as_secs_f64()));
        pk_replay = pk_replay.max(pokerkit_replay_rate(&args.shared, args.pokerkit_repeat)?);

        // Random full hands: seeded tables, random legal actions, a seeded deck.
        let started = Instant::now();
        for _ in 0..args.hands {
            let state = sim.play_into(&mut events).map_err(|e| e.to_string())?;
            std::hint::black_box(state);
        }
        ours_sim = ours_sim.max(per_second(args.hands, started.elapsed().as_secs_f64()));
        pk_sim = pk_sim.max(pokerkit_sim_rate(args.pokerkit_hands)?);
    }

    println!(
        "{:<44} {:>14} {:>14} {:>8}",
        "benchmark", "league", "PokerKit", "ratio"
    );
    let row = |name: &str, ours: f64, theirs: f64| {
        println!(
            "{name:<44} {ours:>14.0} {theirs:>14.1} {:>7.0}x",
            ours / theirs.max(1e-9)
        );
    };
    row(
        "PHH replay, hands/s (parse+replay vs replay)",
        ours_replay,
        pk_replay,
    );
    row("random full hands simulated, hands/s", ours_sim, pk_sim);
    Ok(())
}

/// PokerKit's replay rate on the same files, as `phh_check.py` prints it.
fn pokerkit_replay_rate(shared: &Path, repeat: u32) -> Result<f64, String> {
    let output = Command::new("python3")
        .arg(shared.join("tools/phh_check.py"))
        .arg(shared.join("phh"))
        .args(["--quiet", "--repeat", &repeat.to_string()])
        .output()
        .map_err(|e| format!("python3: {e}"))?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    // "... -> 264.6 hands/s, 3.779 ms/hand"
    stdout
        .lines()
        .find_map(|line| {
            let rest = line.split("-> ").nth(1)?;
            rest.split_whitespace()
                .next()?
                .replace(',', "")
                .parse()
                .ok()
        })
        .ok_or_else(|| {
            format!("no rate in phh_check.py's output (is PokerKit installed?):\n{stdout}")
        })
}

/// PokerKit simulating the same kind of hands (`tools/pokerkit_sim.py`).
fn pokerkit_sim_rate(hands: u64) -> Result<f64, String> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tools/pokerkit_sim.py");
    let output = Command::new("python3")
        .arg(script)
        .args(["--hands", &hands.to_string()])
        .output()
        .map_err(|e| format!("python3: {e}"))?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    // "pokerkit simulated N hands in S s (R hands/s)"
    stdout
        .split('(')
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|rate| rate.parse().ok())
        .ok_or_else(|| {
            format!(
                "no rate in pokerkit_sim.py's output:\n{stdout}{}",
                String::from_utf8_lossy(&output.stderr)
            )
        })
}
