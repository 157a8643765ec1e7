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

/// The league as season `season` of league `league_id` saw it when it closed (its stored
/// `season` document), or `None` when the league does not hold such a closed season: an
/// open season is read from the live league.
async fn closed_season(
    state: &crate::schema::ApiState,
    league_id: &str,
    season: &str,
) -> crate::error::ApiResult<Option<league_engine::league::LeagueState>> {
    let stream = stream_of(league_id);
    let key = format!("{stream}/{season}");
    let held = {
        let p = state.live.read();
        let closed = p
            .league(&stream)
            .and_then(|l| l.season(season))
            .is_some_and(|s| s.closed);
        if !closed {
            return Ok(None);
        }
        p.closed_doc("season", &key).map(|d| d.doc.clone())
    };
    let bytes = match held {
        Some(bytes) => bytes,
        None => state
            .store
            .read_docs(league_app::PROJECTION, "season", &[key.as_str()])
            .await?
            .pop()
            .map(|d| d.doc)
            .ok_or_else(|| {
                crate::error::ApiError::internal(
                    "a closed season's stored results are missing: run `league rebuild`",
                )
            })?,
    };
    serde_json::from_slice(&bytes)
        .map(Some)
        .map_err(crate::error::ApiError::internal)
}

/// The result lines of the players `ids` in the closed seasons of the league stream
/// `stream` (each closed season's `player-season` documents: held by the projector until
/// written, then read from the store), in no particular order.
async fn closed_lines(
    state: &crate::schema::ApiState,
    stream: &str,
    ids: &[league_engine::units::PlayerId],
) -> crate::error::ApiResult<Vec<league_projections::views::RecordLine>> {
    let (mut held, keys) = {
        let p = state.live.read();
        let mut held = Vec::new();
        let mut keys = Vec::new();
        if let Some(l) = p.league(stream) {
            for (season, _) in l.seasons().iter().filter(|(_, s)| s.closed) {
                for id in ids {
                    let key = league_projections::views::player_season_key(stream, season, id);
                    match p.closed_doc("player-season", &key) {
                        Some(d) => held.push(d.doc.clone()),
                        None => keys.push(key),
                    }
                }
            }
        }
        (held, keys)
    };
    if !keys.is_empty() {
        let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
        let docs = state
            .store
            .read_docs(league_app::PROJECTION, "player-season", &keys)
            .await?;
        held.extend(docs.into_iter().map(|d| d.doc));
    }
    let mut lines = Vec::new();
    for bytes in held {
        let record: league_projections::PlayerRecord =
            serde_json::from_slice(&bytes).map_err(crate::error::ApiError::internal)?;
        lines.extend(record.results);
    }
    Ok(lines)
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
