//! `league-bench projections`: simulating and projecting a season, and rebuilding every
//! read model, on SQLite and (with `--database`) PostgreSQL.

use std::time::{Duration, Instant};

use std::process::ExitCode;

use clap::Args;
use league_app::live::Live;
use league_app::{AppError, rebuild, simulate};
use league_projections::Projector;
use league_store::Store;
use league_testkit::Scratch;

#[derive(Args)]
pub struct ProjectionArgs {
    /// The PostgreSQL server (a scratch schema is used and dropped); without it, SQLite only.
    #[arg(long = "database")]
    url: Option<String>,
    #[arg(long, default_value_t = 20)]
    venues: u32,
    #[arg(long, default_value_t = 12)]
    weeks: u32,
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// One measured pass.
pub struct Pass {
    pub what: &'static str,
    pub events: u64,
    pub elapsed: Duration,
}

impl Pass {
    pub fn rate(&self) -> u64 {
        let secs = self.elapsed.as_secs_f64().max(1e-9);
        #[expect(clippy::as_conversions, reason = "a rate for display")]
        let rate = (self.events as f64 / secs) as u64;
        rate
    }
}

/// Simulates a season into `store` (projected live), then measures the rebuild and its two
/// halves: reading the log, and folding it (decode and apply) from memory on one thread.
async fn passes(store: &Store, options: &simulate::Options) -> Result<Vec<Pass>, AppError> {
    let mut live = Live::spawn(store.clone());
    let report = simulate::run(store, options, Some(&mut live)).await?;
    live.stop().await?;
    let mut passes = vec![Pass {
        what: "simulate and project live (decide, append, fold, checkpoint)",
        events: report.events,
        elapsed: report.elapsed,
    }];
    // Read only.
    let started = Instant::now();
    let mut events = Vec::new();
    let mut from = 0;
    loop {
        let page = store.read_log(from, 10_000).await?;
        let Some(last) = page.last() else { break };
        from = last.position + 1;
        events.extend(page);
    }
    passes.push(Pass {
        what: "read the log (read_log, pages of 10,000)",
        events: u64::try_from(events.len()).unwrap_or(0),
        elapsed: started.elapsed(),
    });
    // Fold only, best of three.
    let mut best = Duration::MAX;
    for _ in 0..3 {
        let started = Instant::now();
        let mut p = Projector::new();
        for e in &events {
            p.apply_log(e)?;
        }
        best = best.min(started.elapsed());
    }
    passes.push(Pass {
        what: "fold from memory (decode and apply, one thread, best of 3)",
        events: u64::try_from(events.len()).unwrap_or(0),
        elapsed: best,
    });
    let rebuilt = rebuild::rebuild(store, None).await?;
    passes.push(Pass {
        what: "rebuild all read models from position 0 (read and fold)",
        events: rebuilt.events,
        elapsed: rebuilt.elapsed,
    });
    Ok(passes)
}

pub fn run(args: &ProjectionArgs) -> ExitCode {
    let rt = match crate::runtime() {
        Ok(rt) => rt,
        Err(code) => return code,
    };
    let options = league_app::simulate::Options {
        venues: args.venues,
        weeks: args.weeks,
        seed: args.seed,
        season_weeks: None,
    };
    let mut backends = vec![(league_store::Backend::Sqlite, "SQLite")];
    if args.url.is_some() {
        backends.push((league_store::Backend::Postgres, "PostgreSQL"));
    }
    println!(
        "league-bench projections: {} venues x {} weeks, seed {}",
        args.venues, args.weeks, args.seed
    );
    for (backend, name) in backends {
        let result: Result<Vec<Pass>, AppError> = rt.block_on(async {
            let scratch = Scratch::new(backend, args.url.as_deref()).await?;
            let store = scratch.open().await?;
            let passes = passes(&store, &options).await;
            store.close().await;
            scratch.drop_it().await;
            passes
        });
        match result {
            Ok(passes) => {
                for pass in passes {
                    println!(
                        "{name:<10} {:<62} {:>9} events {:>8.3} s {:>9} events/s",
                        pass.what,
                        pass.events,
                        pass.elapsed.as_secs_f64(),
                        pass.rate()
                    );
                }
            }
            Err(e) => {
                eprintln!("league-bench projections ({name}): {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    ExitCode::SUCCESS
}
