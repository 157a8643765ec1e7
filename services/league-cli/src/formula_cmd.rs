//! `league formula preview`: the points a formula gives every place of a field, checked as
//! when a league sets it.

use std::process::ExitCode;

use clap::{Args, Subcommand};
use league_engine::points::{Centipoints, Formula, PreviewField, preview};

#[derive(Subcommand)]
pub enum FormulaCommand {
    /// Print the points a formula gives every place of a field (one line a place: the
    /// place and the points, two decimals), checked as when a league sets it.
    Preview(PreviewArgs),
}

#[derive(Args)]
pub struct PreviewArgs {
    /// The formula, in The Tournament Director's language (docs/formulas.md).
    formula: String,
    /// Entrants: 2 to 10,000.
    #[arg(long)]
    entrants: u32,
    /// The buy-in, whole currency units.
    #[arg(long, default_value_t = 0)]
    buyin: u64,
    /// The prize pool, whole currency units (default: entrants times the buy-in).
    #[arg(long)]
    prizepool: Option<u64>,
    /// Re-buys every player is taken to have made.
    #[arg(long, default_value_t = 0)]
    rebuys: u32,
    /// Knock-outs ("hits") every player is taken to have made.
    #[arg(long, default_value_t = 0)]
    hits: u32,
    /// Places paid (default: as the default payout table pays the field).
    #[arg(long)]
    paid: Option<u32>,
}

pub fn run(command: FormulaCommand) -> ExitCode {
    match command {
        FormulaCommand::Preview(args) => preview_cmd(&args),
    }
}

fn preview_cmd(args: &PreviewArgs) -> ExitCode {
    let field = PreviewField {
        entrants: args.entrants,
        buyin: args.buyin,
        prizepool: args.prizepool,
        rebuys: args.rebuys,
        hits: args.hits,
        paid: args.paid,
    };
    let lines = Formula::new(&args.formula).and_then(|formula| preview(&formula, field));
    match lines {
        Ok(lines) => {
            let mut out = String::new();
            for line in lines {
                out.push_str(&format!("{} {}\n", line.place, two_decimals(line.points)));
            }
            print!("{out}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            crate::error(format!("league formula preview: refused: {e}"));
            ExitCode::from(1)
        }
    }
}

/// `163.09`, `-4.50`, `0.00`.
fn two_decimals(points: Centipoints) -> String {
    let value = points.get();
    let sign = if value < 0 { "-" } else { "" };
    let abs = value.unsigned_abs();
    format!("{sign}{}.{:02}", abs / 100, abs % 100)
}
