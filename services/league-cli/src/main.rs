//! The `league` binary: a thin composition root over the library crates.
//!
//! Each area owns its subcommands in its own module; `main` only parses and dispatches.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod phh;

#[derive(Parser)]
#[command(
    name = "league",
    version,
    about = "The league backend for live poker venues"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Poker Hand History files: check them against the engine, or simulate new ones.
    #[command(subcommand)]
    Phh(phh::PhhCommand),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Phh(command) => phh::run(command),
    }
}
