//! `league simulate` and `league rebuild`: a seeded season into the event store, and the
//! read models rebuilt from position 0 beside the live ones.

use std::process::ExitCode;

use clap::Args;
use league_app::live::Live;
use league_app::{rebuild, simulate};
use league_store::Store;

use crate::config::DatabaseArgs;
use crate::store_cmd::{fail, runtime};

/// `league simulate`.
#[derive(Args, Debug)]
pub struct SimulateArgs {
    #[command(flatten)]
    db: DatabaseArgs,
    /// Venues, each running one tournament a week.
    #[arg(long, default_value_t = 20)]
    venues: u32,
    /// Weeks simulated.
    #[arg(long, default_value_t = 12)]
    weeks: u32,
    /// Weeks per season: a new season every so many weeks, each closed after its last
    /// week but the last (default: one season of every week, left open).
    #[arg(long)]
    season_weeks: Option<u32>,
    /// The seed: the same seed gives the same season.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// `league rebuild`.
#[derive(Args, Debug)]
pub struct RebuildArgs {
    #[command(flatten)]
    db: DatabaseArgs,
    /// Compare the rebuilt read models with the stored live ones; exit 1 on a difference.
    #[arg(long)]
    check: bool,
}

pub fn simulate(args: SimulateArgs) -> ExitCode {
    let rt = match runtime() {
        Ok(rt) => rt,
        Err(code) => return code,
    };
    rt.block_on(async {
        let store = match Store::open(&args.db.url).await {
            Ok(s) => s,
            Err(e) => return fail(e),
        };
        let mut live = Live::spawn(store.clone());
        let options = simulate::Options {
            venues: args.venues,
            weeks: args.weeks,
            seed: args.seed,
            season_weeks: args.season_weeks,
        };
        let report = match simulate::run(&store, &options, Some(&mut live)).await {
            Ok(r) => r,
            Err(e) => return fail(e),
        };
        if let Err(e) = live.stop().await {
            return fail(e);
        }
        store.close().await;
        println!(
            "simulated {} tournaments and {} cash tables ({} cash hands): {} events in {} appends, projected live, in {:.2} s ({} events/s)",
            report.tournaments,
            report.cash_tables,
            report.cash_hands,
            report.events,
            report.appends,
            report.elapsed.as_secs_f64(),
            report.events_per_second()
        );
        ExitCode::SUCCESS
    })
}

pub fn rebuild(args: RebuildArgs) -> ExitCode {
    let rt = match runtime() {
        Ok(rt) => rt,
        Err(code) => return code,
    };
    rt.block_on(async {
        let store = match Store::open(&args.db.url).await {
            Ok(s) => s,
            Err(e) => return fail(e),
        };
        if args.check {
            let check = match rebuild::check(&store).await {
                Ok(c) => c,
                Err(e) => return fail(e),
            };
            store.close().await;
            report(&check.rebuilt);
            match check.difference {
                None => {
                    println!("identical");
                    ExitCode::SUCCESS
                }
                Some(d) => {
                    println!("{d}");
                    ExitCode::FAILURE
                }
            }
        } else {
            let mut rebuilt = match rebuild::rebuild(&store, None).await {
                Ok(r) => r,
                Err(e) => return fail(e),
            };
            report(&rebuilt);
            // Every document and every stream's snapshot, with the checkpoint.
            let written = match (rebuilt.projector.take_checkpoint(), rebuilt.position) {
                (Ok((docs, snapshots)), Some(position)) => store
                    .put_read_models(
                        league_app::PROJECTION,
                        (position, league_store::CheckpointMove::Replace),
                        &docs,
                        &snapshots,
                    )
                    .await
                    .map(|_| ())
                    .map_err(|e| e.to_string()),
                (Ok(_), None) => Ok(()),
                (Err(e), _) => Err(e.to_string()),
            };
            store.close().await;
            match written {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => fail(e),
            }
        }
    })
}

fn report(rebuilt: &rebuild::Rebuilt) {
    println!(
        "rebuilt {} events in {:.3} s ({} events/s)",
        rebuilt.events,
        rebuilt.elapsed.as_secs_f64(),
        rebuilt.events_per_second()
    );
}
