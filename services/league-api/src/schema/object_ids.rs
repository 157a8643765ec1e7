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
                Ok(league::Event::VenueAdded { venue, .. }) => Some(venue),
                Ok(league::Event::SeasonAdded { season, .. }) => Some(season),
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
                _ => None,
            }
        }
        None => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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
