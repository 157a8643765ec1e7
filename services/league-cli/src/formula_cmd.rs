//! `league formula preview`: the points a formula gives every place of a field, checked as
//! when a league sets it.

use std::io::Write as _;
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
    let formula = match Formula::new(&args.formula) {
        Ok(formula) => formula,
        Err(e) => {
            crate::error(format!(
                "league formula preview: a league could not set this formula: {e}"
            ));
            return ExitCode::from(1);
        }
    };
    let lines = match preview(&formula, field) {
        Ok(lines) => lines,
        Err(e) => {
            crate::error(format!(
                "league formula preview: the formula has no value for this field: {e}"
            ));
            return ExitCode::from(1);
        }
    };
    let mut out = String::new();
    for line in lines {
        out.push_str(&format!("{} {}\n", line.place, two_decimals(line.points)));
    }
    // A reader that stops early (`| head`) is not an error.
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(out.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            crate::error(format!("league formula preview: {e}"));
            ExitCode::from(2)
        }
        _ => ExitCode::SUCCESS,
    }
}

/// `163.09`, `-4.50`, `0.00`.
fn two_decimals(points: Centipoints) -> String {
    let value = points.get();
    let sign = if value < 0 { "-" } else { "" };
    let abs = value.unsigned_abs();
    format!("{sign}{}.{:02}", abs / 100, abs % 100)
}
