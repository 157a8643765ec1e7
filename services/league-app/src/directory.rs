//! Who exists: the leagues' venues and members, folded from the league streams alone (a
//! tournament's events are skipped unread), for checks made outside the live service,
//! such as `league token create`.

use league_events::StreamKind;
use league_projections::Projector;
use league_store::Store;

use crate::AppError;

/// Events per read.
const PAGE: usize = 10_000;

/// The leagues as the log has them now.
pub async fn leagues(store: &Store) -> Result<Projector, AppError> {
    let mut projector = Projector::new();
    let mut from = 0u64;
    loop {
        let page = store.read_log(from, PAGE).await?;
        let Some(last) = page.last() else {
            break;
        };
        from = last.position.saturating_add(1);
        for event in &page {
            if StreamKind::of(&event.stream_id) == Some(StreamKind::League) {
                projector.apply_log(event)?;
            }
        }
        if page.len() < PAGE {
            break;
        }
    }
    Ok(projector)
}

/// Whether some league has the venue `venue`.
pub fn has_venue(leagues: &Projector, venue: &str) -> bool {
    leagues.leagues().any(|(_, l)| l.venue(venue).is_some())
}

/// The ids of the venues whose code is `code`, in every league.
pub fn venues_with_code(leagues: &Projector, code: &str) -> Vec<String> {
    leagues
        .leagues()
        .filter_map(|(_, l)| l.venue_with_code(code).map(str::to_owned))
        .collect()
}

/// The id of the league whose code is `code`.
pub fn league_with_code(leagues: &Projector, code: &str) -> Option<String> {
    leagues
        .leagues()
        .find(|(_, l)| l.league().and_then(|s| s.code.as_deref()) == Some(code))
        .and_then(|(stream, _)| StreamKind::League.id_of(stream))
        .map(str::to_owned)
}

/// Whether some league has `player` as a member.
pub fn has_player(leagues: &Projector, player: &str) -> bool {
    leagues.leagues().any(|(_, l)| l.player(player).is_some())
}
