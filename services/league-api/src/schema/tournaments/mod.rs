//! Tournaments and their tables: the dashboard views, the commands that run a tournament
//! (from the schedule to the payouts), and live views over WebSocket.
//!
//! - [`arguments`]: each mutation's input and payload.
//! - [`types`]: the output types (wrapping read models) and the mutations' small inputs.
//! - [`draws`]: the seeds of the draws the server makes, committed to before each draw.
//! - [`history`]: completed hands as PHH or PokerStars text, [`HandHistoryQuery`].
//! - [`entropy`]: entropy a host or player adds to the draws, [`EntropyMutation`].
//! - [`inputs`]: the typed schedule (`ScheduleInput`) and the closed sets it names.
//! - [`query`]: the queries, [`TournamentQuery`], and the table a command's result carries.
//! - [`mutation`]: the commands, [`TournamentMutation`], and the authorisation of each command.
//! - [`corrections`]: cancelling a tournament, reinstating a player, voiding a hand,
//!   [`CorrectionMutation`].
//! - [`penalties`]: the penalties `penalise` gives and the tournament shows.
//! - [`rulings`]: the floor's rulings at a table (the clock, action out of turn),
//!   [`RulingMutation`].
//! - [`subscription`]: the live views, [`TournamentSubscription`].
//! - [`unsold`]: a stack placed in an unsold seat and its removal, [`UnsoldSeatMutation`].

pub mod arguments;
pub mod corrections;
pub mod draws;
pub mod entropy;
pub mod history;
pub mod inputs;
pub mod mutation;
pub mod penalties;
pub mod query;
pub mod rulings;
pub mod subscription;
pub mod types;
pub mod unsold;

pub use corrections::CorrectionMutation;
pub use entropy::EntropyMutation;
pub use history::HandHistoryQuery;
pub use mutation::TournamentMutation;
pub use query::TournamentQuery;
pub use rulings::RulingMutation;
pub use subscription::TournamentSubscription;
pub use unsold::UnsoldSeatMutation;

fn stream_of(id: &str) -> String {
    league_events::StreamKind::Tournament.stream(id)
}
