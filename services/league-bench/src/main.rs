//! `league-bench`: the league's benchmarks, each side by side with its baseline in one run.
//! Kept out of the `league` binary: the product carries no load generator and no HTTP
//! client. The current figures and their commands are in `docs/benchmarks.md`.
//!
//! # Layout
//!
//! - [`engine`]: the rules engine against PokerKit (PHH replay, random full hands).
//! - [`store`]: the event store's appends and reads against a plain `INSERT`.
//! - [`projections`]: a simulated season projected live, then every read model rebuilt.
//! - [`api`]: a league night against one real server over HTTP and WebSocket.
//! - [`startup`]: `league serve`'s start-up against the history's length.
//! - [`soak`]: two `league serve` processes under load, one killed again and again.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod api;
mod engine;
mod projections;
mod soak;
mod startup;
mod store;

/// As in the `league` binary, so allocation-heavy paths measure the same here as there.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(
    name = "league-bench",
    version,
    about = "The league's benchmarks, each side by side with its baseline"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Append and read rates of the event store next to a plain INSERT of the same rows.
    Store(store::StoreArgs),
    /// The rules engine against PokerKit: PHH replay and random full hands, per second.
    Engine(engine::EngineArgs),
    /// A simulated season: simulate and project it live, then rebuild every read model,
    /// on SQLite and on PostgreSQL side by side.
    Projections(projections::ProjectionArgs),
    /// A league night against one real server over HTTP and WebSocket: tables acting at
    /// once, commands per second and latency, and subscribers' delivery latency.
    Api(api::ApiArgs),
    /// `league serve`'s start-up against the history's length: time to ready and memory,
    /// at 300,000, 1,200,000 and 5,000,000 events.
    Startup(startup::StartupArgs),
    /// Two `league serve` processes on one PostgreSQL under load, one killed (SIGKILL) and
    /// started again every few seconds: no acknowledged command lost, no refusal, the log
    /// verified and rebuilt identical, memory flat.
    Soak(soak::SoakArgs),
}

fn main() -> ExitCode {
    match Cli::parse().command {
        Command::Store(args) => store::run(&args),
        Command::Engine(args) => engine::run(&args),
        Command::Projections(args) => projections::run(&args),
        Command::Api(args) => api::api(&args),
        Command::Startup(args) => startup::run(&args),
        Command::Soak(args) => soak::run(&args),
    }
}

/// A multi-threaded runtime, or the exit code that says why there is none.
fn runtime() -> Result<tokio::runtime::Runtime, ExitCode> {
    tokio::runtime::Runtime::new().map_err(|e| {
        eprintln!("error: cannot start the async runtime: {e}");
        ExitCode::from(2)
    })
}
