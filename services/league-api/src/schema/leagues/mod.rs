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

/// The scope the `venue` and `region` arguments name: one of them at most.
fn scope_of<'a>(
    venue: Option<&'a str>,
    region: Option<&'a str>,
) -> crate::error::ApiResult<league_engine::league::Scope<'a>> {
    use league_engine::league::Scope;
    match (venue, region) {
        (None, None) => Ok(Scope::Season),
        (Some(venue), None) => Ok(Scope::Venue(venue)),
        (None, Some(region)) => Ok(Scope::Region(region)),
        (Some(_), Some(_)) => Err(crate::error::ApiError::bad_field(
            "region",
            "give a venue or a region, not both",
        )),
    }
}

/// A season's standings in `scope` under `version`, each line with its player's name and
/// its rank before the scope's latest tournament.
fn standings_out(
    l: &league_engine::league::LeagueState,
    season: &str,
    version: Option<u32>,
    scope: league_engine::league::Scope<'_>,
) -> Result<Vec<types::StandingOut>, league_engine::league::LeagueError> {
    let now = l.standings(season, version, scope)?;
    let before: std::collections::BTreeMap<_, u32> = l
        .standings_before_latest(season, version, scope)?
        .map(|(_, lines)| lines.into_iter().map(|s| (s.player, s.rank)).collect())
        .unwrap_or_default();
    Ok(now
        .into_iter()
        .map(|line| types::StandingOut {
            name: l
                .player(&line.player)
                .map_or_else(|| line.player.to_string(), |p| p.name.clone()),
            previous_rank: before.get(&line.player).copied(),
            line,
        })
        .collect())
}
