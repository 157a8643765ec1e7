//! `league phh check` and `league phh simulate`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use clap::Subcommand;
use league_app::phh::{check_text, collect};
use league_engine::phh;
use league_engine::rules::HouseRules;
use league_engine::sim::Simulator;

#[derive(Subcommand)]
pub enum PhhCommand {
    /// Replay every `.phh` file below the folders under the `wsop` preset and compare the
    /// final stacks with the recorded `finishing_stacks`.
    Check {
        #[arg(required = true)]
        dirs: Vec<PathBuf>,
        /// Replay every hand this many times (timing only; the verdict is the first's).
        #[arg(long, default_value_t = 1)]
        repeat: u32,
    },
    /// Play random hands through the engine and write each as a PHH file.
    Simulate {
        #[arg(long)]
        hands: u64,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[arg(long)]
        out: PathBuf,
    },
}

pub fn run(command: PhhCommand) -> ExitCode {
    match command {
        PhhCommand::Check { dirs, repeat } => check(&dirs, repeat.max(1)),
        PhhCommand::Simulate { hands, seed, out } => simulate(hands, seed, &out),
    }
}

fn check(dirs: &[PathBuf], repeat: u32) -> ExitCode {
    let files = match collect(dirs) {
        Ok(files) => files,
        Err(error) => {
            crate::error(format!("league phh check: {error}"));
            return ExitCode::from(2);
        }
    };
    // Read everything first: the rate is parsing and replay, not the disk.
    let mut texts = Vec::with_capacity(files.len());
    for file in &files {
        match std::fs::read_to_string(file) {
            Ok(text) => texts.push(text),
            Err(error) => {
                crate::error(format!("league phh check: {}: {error}", file.display()));
                return ExitCode::from(2);
            }
        }
    }
    let started = Instant::now();
    let verdicts: Vec<Result<(), String>> = texts.iter().map(|t| check_text(t)).collect();
    for _ in 1..repeat {
        for text in &texts {
            std::hint::black_box(check_text(std::hint::black_box(text)).is_ok());
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    let mut failed = 0usize;
    for (file, verdict) in files.iter().zip(&verdicts) {
        if let Err(reason) = verdict {
            failed += 1;
            println!("{}: {reason}", display_path(file, dirs));
        }
    }
    let total = files.len();
    let replays = total * usize::try_from(repeat).unwrap_or(1);
    let rate = rate(replays, seconds);
    println!("replayed {replays} hands in {seconds:.4} s ({rate:.0} hands/s)");
    println!("{} passed, {failed} failed", total - failed);
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn rate(count: usize, seconds: f64) -> f64 {
    #[expect(
        clippy::as_conversions,
        reason = "a count shown as a rate; precision is moot"
    )]
    let count = count as f64;
    if seconds > 0.0 { count / seconds } else { 0.0 }
}

fn display_path(file: &Path, roots: &[PathBuf]) -> String {
    roots
        .iter()
        .find_map(|root| {
            file.strip_prefix(root)
                .ok()
                .filter(|rest| !rest.as_os_str().is_empty())
        })
        .unwrap_or(file)
        .display()
        .to_string()
}

fn simulate(hands: u64, seed: u64, out: &Path) -> ExitCode {
    if let Err(error) = std::fs::create_dir_all(out) {
        crate::error(format!("league phh simulate: {}: {error}", out.display()));
        return ExitCode::from(2);
    }
    let mut simulator = Simulator::new(seed, HouseRules::wsop());
    let width = hands.to_string().len();
    for i in 0..hands {
        let text = simulator
            .play()
            .map_err(|e| e.to_string())
            .and_then(|events| phh::write(&events));
        let text = match text {
            Ok(text) => text,
            Err(error) => {
                crate::error(format!("league phh simulate: hand {i}: {error}"));
                return ExitCode::FAILURE;
            }
        };
        let path = out.join(format!("{i:0width$}.phh"));
        if let Err(error) = std::fs::write(&path, text) {
            crate::error(format!("league phh simulate: {}: {error}", path.display()));
            return ExitCode::from(2);
        }
    }
    println!("wrote {hands} hands to {}", out.display());
    ExitCode::SUCCESS
}
