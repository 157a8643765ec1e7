//! The ids of the objects commands create (a league, a venue, a season, a tournament).
//!
//! A client may choose the id, so that a venue offline can create a tournament and name it
//! before the server has heard of it: a UUID (any version but the nil one, in its canonical
//! lowercase hyphenated form) is the way to choose one that nobody else picks. Without one,
//! the server generates a UUIDv7. Ids already in a league's log (readable ones such as
//! `crown` or `t-results-7`, made of [`league_engine::units::ID_RULE`]) keep working, and a
//! readable id is still accepted for a new object.
//!
//! A malformed id is refused with `BAD_ID` (the field named); an id already used for an
//! object of its kind with `ID_TAKEN`. A command sent again with its idempotency key and
//! no id names the object its first call created, not a new one.

use async_graphql::ID;
use league_engine::league;
use league_engine::tournament::play::TournamentEvent;
use league_events::StreamKind;
use uuid::Uuid;

use super::ApiState;
use crate::auth::Principal;
use crate::error::{ApiError, ApiResult, code};

/// The id a create command names: the one given (checked), the one its first call created
/// when this is a retry with the same idempotency key, or a new UUIDv7.
pub(crate) async fn new_object(
    state: &ApiState,
    principal: &Principal,
    field: &'static str,
    given: Option<ID>,
    idempotency_key: Option<&str>,
) -> ApiResult<String> {
    if let Some(id) = given {
        return checked(field, id.0);
    }
    if let Some(key) = idempotency_key
        && let Some(id) = created_before(state, principal, key).await?
    {
        return Ok(id);
    }
    Ok(Uuid::now_v7().to_string())
}

/// `id` if it is well formed: a canonical UUID, or a readable id.
pub(crate) fn checked(field: &'static str, id: String) -> ApiResult<String> {
    let bad = |why: &str| {
        Err(ApiError::client(code::BAD_ID, format!("`{field}`: {why}")).with_field(field))
    };
    match Uuid::try_parse(&id) {
        Ok(uuid) if uuid.is_nil() => bad("the nil UUID names nothing"),
        Ok(uuid) if uuid.hyphenated().to_string() != id => bad(&format!(
            "a UUID is sent in its lowercase hyphenated form ({})",
            uuid.hyphenated()
        )),
        Ok(_) => Ok(id),
        Err(_) if league_engine::units::is_id(&id) => Ok(id),
        Err(_) => bad(&format!(
            "an id is a UUID, or {}",
            league_engine::units::ID_RULE
        )),
    }
}

/// The id of a table's current (or last) hand: the one its command named, or, for a hand
/// started without one, [`derived_hand_id`] of its place among the tournament's hands: the
/// same on every read, on every instance. `None` before the table's first hand.
pub fn hand_id(tournament: &str, view: &league_projections::views::TableView) -> Option<String> {
    if view.hand == 0 {
        return None;
    }
    if let Some(id) = &view.hand_id {
        return Some(id.clone());
    }
    Some(derived_hand_id(tournament, view.hand_ordinal))
}

pub use league_engine::tournament::play::derived_hand_id;

/// `id` if it is a UUID in its canonical form and not of version 8, which derived hand ids
/// have (for a hand).
pub(crate) fn checked_hand_id(field: &'static str, id: &str) -> ApiResult<String> {
    let id = checked_uuid(field, id)?;
    if Uuid::try_parse(&id).is_ok_and(|u| u.get_version_num() == 8) {
        return Err(ApiError::client(
            code::BAD_ID,
            format!("`{field}`: a UUIDv8 is the derived id of a hand its command did not name"),
        )
        .with_field(field));
    }
    Ok(id)
}

/// `id` if it is a UUID in its canonical form (for a token, which has no readable ids).
pub(crate) fn checked_uuid(field: &'static str, id: &str) -> ApiResult<String> {
    match Uuid::try_parse(id) {
        Ok(uuid) if !uuid.is_nil() && uuid.hyphenated().to_string() == id => Ok(id.to_owned()),
        _ => Err(ApiError::client(
            code::BAD_ID,
            format!("`{field}`: a UUID in its lowercase hyphenated form, not the nil one"),
        )
        .with_field(field)),
    }
}

/// Whether `code` may be the code of the league `league_id`: well formed, and neither the
/// code nor the id of another league (so that a screen's URL names one league, whichever
/// it holds). Checked on this instance's projection, with [`ApiState::league_codes`] held
/// until the command that sets it has been folded.
pub(crate) fn league_code_free(state: &ApiState, league_id: &str, code: &str) -> ApiResult<()> {
    if !league_engine::units::is_code(code) {
        return Err(ApiError::bad_field(
            "code",
            format!("a code must be {}", league_engine::units::CODE_RULE),
        ));
    }
    let p = state.live.read();
    let holder = p.leagues().find_map(|(stream, l)| {
        let id = StreamKind::League.id_of(stream)?;
        let taken = id == code || l.league().and_then(|s| s.code.as_deref()) == Some(code);
        (id != league_id && taken).then(|| id.to_owned())
    });
    match holder {
        Some(holder) => Err(ApiError::client(
            code::CODE_TAKEN,
            format!("code `{code}` names league `{holder}`"),
        )
        .with_field("code")),
        None => Ok(()),
    }
}

/// Refuses a new league's id that is another league's code (`ID_TAKEN`): a screen's URL
/// would otherwise name two leagues.
pub(crate) fn league_id_free_of_codes(state: &ApiState, id: &str) -> ApiResult<()> {
    let p = state.live.read();
    match league_app::directory::league_with_code(&p, id) {
        Some(holder) if holder != id => Err(ApiError::client(
            code::ID_TAKEN,
            format!("`{id}` is the code of league `{holder}`"),
        )
        .with_field("id")),
        _ => Ok(()),
    }
}

/// Whether `key` (this caller's idempotency key) was used already: the command is then a
/// retry, answered as its first call was, and its checks are not made again.
pub(crate) async fn is_retry(
    state: &ApiState,
    principal: &Principal,
    key: Option<&str>,
) -> ApiResult<bool> {
    let Some(key) = key else {
        return Ok(false);
    };
    let scoped = format!("{}/{key}", principal.token_id().unwrap_or("-"));
    Ok(state.store.appended_with_key(&scoped).await?.is_some())
}

/// The id of the object that the first use of `key` (by this caller's token) created, read
/// from the first event it appended (by its stream and version: a read by position on
/// PostgreSQL would wait for the commit horizon).
async fn created_before(
    state: &ApiState,
    principal: &Principal,
    key: &str,
) -> ApiResult<Option<String>> {
    let scoped = format!("{}/{key}", principal.token_id().unwrap_or("-"));
    match state.store.appended_with_key(&scoped).await? {
        Some(used) => created_by(state, &used.stream, used.appended.first_version).await,
        None => Ok(None),
    }
}

/// The id of the object created by the event of `stream` at `version`, if that event
/// created one (a league, venue, season or tournament).
pub(crate) async fn created_by(
    state: &ApiState,
    stream: &str,
    version: u64,
) -> ApiResult<Option<String>> {
    let Some(first) = state.store.event_at(stream, version).await? else {
        return Ok(None);
    };
    let stream_id = || {
        StreamKind::of(&first.stream_id)
            .and_then(|k| k.id_of(&first.stream_id))
            .map(str::to_owned)
    };
    Ok(match StreamKind::of(&first.stream_id) {
        Some(StreamKind::League) => {
            match league_events::decode::<league::Event>(
                &first.event_type,
                first.schema_version,
                &first.payload,
            ) {
                Ok(league::Event::LeagueCreated { .. }) => stream_id(),
                Ok(league::Event::VenueAdded { venue, .. }) => Some(venue.into_string()),
                Ok(league::Event::SeasonAdded { season, .. }) => Some(season.into_string()),
                _ => None,
            }
        }
        Some(StreamKind::Tournament) => {
            match league_events::decode::<TournamentEvent>(
                &first.event_type,
                first.schema_version,
                &first.payload,
            ) {
                Ok(TournamentEvent::TournamentScheduled { .. }) => stream_id(),
                Ok(TournamentEvent::TableHandStarted { hand_id, .. }) => {
                    hand_id.map(league_engine::units::HandId::into_string)
                }
                _ => None,
            }
        }
        Some(StreamKind::Cash) => {
            match league_events::decode::<league_engine::cash::CashEvent>(
                &first.event_type,
                first.schema_version,
                &first.payload,
            ) {
                Ok(league_engine::cash::CashEvent::TableOpened { .. }) => stream_id(),
                _ => None,
            }
        }
        None => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rule's vector, computed apart from this code (Python's `hashlib` and `uuid`):
    /// the 13th hand of the tournament `night`.
    #[test]
    fn a_hand_without_an_id_has_the_id_the_documented_rule_derives() {
        assert_eq!(
            derived_hand_id("night", 13),
            "c9b1dda4-38bb-85f3-8f17-8feb67b1ce08"
        );
        assert_ne!(derived_hand_id("night", 13), derived_hand_id("nigh", 13));
        assert_ne!(derived_hand_id("night", 1), derived_hand_id("night", 11));
    }

    #[test]
    fn uuids_in_their_canonical_form_and_readable_ids_are_accepted() {
        for id in [
            "0190b6c4-7d2a-7cde-8f00-123456789abc",
            "6ba7b810-9dad-11d1-80b4-00c04fd430c8",
            "crown",
            "t-results-7",
        ] {
            assert_eq!(checked("id", id.to_owned()).ok().as_deref(), Some(id));
        }
        for id in [
            "",
            "00000000-0000-0000-0000-000000000000",
            "0190B6C4-7D2A-7CDE-8F00-123456789ABC",
            "0190b6c47d2a7cde8f00123456789abc",
            "{0190b6c4-7d2a-7cde-8f00-123456789abc}",
            "urn:uuid:0190b6c4-7d2a-7cde-8f00-123456789abc",
            "has space",
            "ü",
            &"x".repeat(65),
        ] {
            let refused = checked("id", id.to_owned()).unwrap_err();
            assert_eq!(refused.code(), code::BAD_ID, "{id:?}");
        }
    }
}
