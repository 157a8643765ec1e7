//! `league phh check` and `league phh simulate`.

use std::process::ExitCode;

use clap::Subcommand;

#[derive(Subcommand)]
pub enum PhhCommand {}

pub fn run(command: PhhCommand) -> ExitCode {
    match command {}
}
