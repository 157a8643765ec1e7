//! The `league` binary: a thin composition root over the library crates.
//!
//! Each area owns its subcommands in its own module; `main` only parses the command line,
//! sets up logging and dispatches. The service's configuration (flags and their environment
//! variables) is one typed struct in [`config`]. Commands print their results on stdout and their errors through [`error`];
//! the service logs through `tracing`.

use std::fmt::Display;
use std::process::ExitCode;

use clap::{CommandFactory as _, FromArgMatches as _, Parser, Subcommand};

mod audit_cmd;
mod config;
mod formula_cmd;
mod league_cmd;
mod phh;
mod serve_cmd;
mod store_cmd;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(
    name = "league",
    version,
    about = "The league backend for live poker venues"
)]
struct Cli {
    #[command(flatten)]
    log: config::LogArgs,
    #[command(subcommand)]
    command: Command,
}

/// A command's error, on stderr; the exit code is the caller's.
pub(crate) fn error(message: impl Display) {
    eprintln!("error: {message}");
}

#[derive(Subcommand)]
enum Command {
    /// Poker Hand History files: check them against the engine, or simulate new ones.
    #[command(subcommand)]
    Phh(phh::PhhCommand),
    /// Apply the event store's migrations to `--database` (default `sqlite:league.db`).
    Migrate(store_cmd::MigrateArgs),
    /// Audit the event log: verify its hash chains, Merkle tree and signed tree heads.
    #[command(subcommand)]
    Audit(store_cmd::AuditCommand),
    /// League points formulas: preview one on a field before a league sets it.
    #[command(subcommand)]
    Formula(formula_cmd::FormulaCommand),
    /// Simulate a league season through the engine's commands into the event store, with
    /// the read models projected live.
    Simulate(league_cmd::SimulateArgs),
    /// Rebuild every read model from position 0; `--check` compares with the live ones.
    Rebuild(league_cmd::RebuildArgs),
    /// Copy a whole store (its log with every hash, seal and signed head, its tokens, held
    /// seeds and read models) into an empty database, e.g. from SQLite to PostgreSQL, and
    /// audit both.
    Copy(store_cmd::CopyArgs),
    /// Serve the GraphQL API (default: SQLite `league.db`, port 8080).
    Serve(config::ServeConfig),
    /// API bearer tokens: create (printed once), list, revoke.
    #[command(subcommand)]
    Token(serve_cmd::TokenCommand),
    /// Write the GraphQL SDL to `schema/league.graphql` (`--check`: compare only).
    Schema(serve_cmd::SchemaArgs),
}

/// What `league --version` prints after the name: the release, the version of each event
/// type it reads and writes (older versions are read through upcasters), and the database
/// migrations it knows.
fn long_version() -> String {
    let mut out = format!(
        "{}\nevents read and written (type version; older versions are upcast on read):",
        league_events::RELEASE
    );
    for kind in [
        league_events::StreamKind::Tournament,
        league_events::StreamKind::League,
        league_events::StreamKind::Cash,
    ] {
        let types: Vec<String> = league_events::CATALOGUE
            .iter()
            .filter(|t| t.kind == kind)
            .map(|t| format!("{} {}", t.name, t.version))
            .collect();
        out.push_str(&format!("\n  {kind}: {}", types.join(", ")));
    }
    let migrations = league_store::migrator(league_store::Backend::Sqlite)
        .iter()
        .map(|m| m.version)
        .max()
        .unwrap_or(0);
    out.push_str(&format!("\ndatabase migrations: 1 to {migrations}"));
    out
}

fn main() -> ExitCode {
    // Built once per process; clap keeps `&'static str`s.
    let long_version: &'static str = Box::leak(long_version().into_boxed_str());
    let matches = Cli::command().long_version(long_version).get_matches();
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    if let Err(e) = config::init_logging(&cli.log) {
        error(e);
        return ExitCode::from(2);
    }
    match cli.command {
        Command::Phh(command) => phh::run(command),
        Command::Migrate(args) => store_cmd::migrate(args),
        Command::Audit(command) => store_cmd::audit(command),
        Command::Formula(command) => formula_cmd::run(command),
        Command::Simulate(args) => league_cmd::simulate(args),
        Command::Rebuild(args) => league_cmd::rebuild(args),
        Command::Copy(args) => store_cmd::copy(args),
        Command::Serve(args) => serve_cmd::serve(args),
        Command::Token(command) => serve_cmd::token(command),
        Command::Schema(args) => serve_cmd::schema(args),
    }
}
