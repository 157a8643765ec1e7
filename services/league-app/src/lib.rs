//! The use cases shared by every front end (the CLI today, the GraphQL API next).
//!
//! # Layout
//!
//! - [`audit`]: what an auditor exports from the log: each completed hand (PHH,
//!   PokerStars-style text) and each tournament's summary.
//! - [`clock`]: the tournament clock: levels end on time, appended once whatever the
//!   number of instances.
//! - [`commands`]: running a command: decide on the projected state, append with the
//!   version read, retry on a conflict, wait for the projections (read your write).
//! - [`directory`]: the leagues' venues and members, for checks outside the service.
//! - [`phh`]: hand-history files: finding them and the verdict on one.
//! - [`live`]: the live projector: follows the global log with `subscribe_all`, folds it
//!   into the read models and writes them with a checkpoint.
//! - [`rebuild`]: rebuilds every read model from position 0 and compares it with the
//!   stored live ones (`league rebuild --check`).
//! - [`replay`]: one tournament from its stream as a person reads it (`league audit
//!   replay`).
//! - [`simulate`]: a seeded league season played through the engine's commands into the
//!   event store (`league simulate`).
//!
//! # Invariants
//!
//! Events are appended with the stream version they were decided on (optimistic
//! concurrency): a command decided on a stale state never lands. The live projector writes
//! documents and its checkpoint in one transaction, so a restart resumes exactly where the
//! stored documents stand.

pub mod audit;
pub mod clock;
pub mod commands;
pub mod directory;
pub mod live;
pub mod phh;
pub mod rebuild;
pub mod replay;
pub mod simulate;

/// The projection set the service keeps.
pub const PROJECTION: &str = "main";

/// Why a use case failed.
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    #[error(transparent)]
    Store(#[from] league_store::StoreError),
    #[error(transparent)]
    Projection(#[from] league_projections::ProjectionError),
    #[error("tournament rules: {0}")]
    Tournament(#[from] league_engine::tournament::play::TournamentError),
    #[error("league rules: {0}")]
    League(#[from] league_engine::league::LeagueError),
    #[error("cash table rules: {0}")]
    Cash(#[from] league_engine::cash::CashError),
    #[error("encoding an event: {0}")]
    Encode(#[from] serde_json::Error),
    /// Refused on a state another command changed while this one ran: decided first on
    /// the state before it, then again after it, where the rules refused it.
    #[error("another command changed this first; now: {0}")]
    Raced(Box<AppError>),
    /// Client input the engine never sees refused: `field` names the argument.
    #[error("{message}")]
    BadInput {
        field: &'static str,
        message: String,
    },
    /// A position asked for that the log does not hold (yet).
    #[error("the log ends at {}, before position {position}", end.map_or_else(|| "its start".to_owned(), |e| format!("position {e}")))]
    PastTheEnd { position: u64, end: Option<u64> },
    /// This instance has not folded the log as far as `position` in the time allowed.
    #[error("this instance has folded the log to {}, not yet to position {position}", folded.map_or_else(|| "its start".to_owned(), |f| format!("position {f}")))]
    NotCaughtUp { position: u64, folded: Option<u64> },
    #[error("{0}")]
    Other(String),
}
