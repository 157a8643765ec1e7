//! Leagues: venues, seasons, players, standings under every scoring version, player
//! records, and the league's commands.
//!
//! - [`arguments`]: each mutation's input and payload.
//! - [`types`]: the output types, wrapping read models.
//! - [`inputs`]: the typed scoring and outcome inputs.
//! - [`query`]: the queries, [`LeagueQuery`].
//! - [`mutation`]: the commands, [`LeagueMutation`], and the authorisation of each command.
//! - [`subscription`]: the live standings, [`LeagueSubscription`].

pub mod arguments;
pub mod inputs;
pub mod mutation;
pub mod query;
pub mod subscription;
pub mod types;

pub use mutation::LeagueMutation;
pub use query::LeagueQuery;
pub use subscription::LeagueSubscription;

fn stream_of(id: &str) -> String {
    league_events::StreamKind::League.stream(id)
}
