//! Stream naming and payload decoding.
//!
//! - `tournament:<id>`: [`TournamentEvent`] payloads (one stream per tournament).
//! - `league:<id>`: [`league::Event`] payloads (venues, seasons, players, formulas,
//!   recorded tournament results).
//!
//! Payloads are the events' JSON (`serde_json`), with the event's `type` tag; the store's
//! `event_type` column repeats the tag.

use league_engine::league;
use league_engine::tournament::play::TournamentEvent;
use league_store::NewEvent;
use serde::Serialize;

/// What a stream holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StreamKind {
    Tournament,
    League,
}

impl StreamKind {
    pub fn of(stream: &str) -> Option<StreamKind> {
        if stream.starts_with("tournament:") {
            Some(StreamKind::Tournament)
        } else if stream.starts_with("league:") {
            Some(StreamKind::League)
        } else {
            None
        }
    }

    pub fn prefix(self) -> &'static str {
        match self {
            StreamKind::Tournament => "tournament:",
            StreamKind::League => "league:",
        }
    }
}

/// A decoded event.
pub enum Decoded {
    Tournament(Box<TournamentEvent>),
    League(Box<league::Event>),
}

/// Decodes an event's payload by its stream; `None` for streams the projections do not
/// fold.
pub fn decode(stream: &str, payload: &[u8]) -> Result<Option<Decoded>, serde_json::Error> {
    Ok(match StreamKind::of(stream) {
        Some(StreamKind::Tournament) => Some(Decoded::Tournament(Box::new(
            serde_json::from_slice(payload)?,
        ))),
        Some(StreamKind::League) => {
            Some(Decoded::League(Box::new(serde_json::from_slice(payload)?)))
        }
        None => None,
    })
}

/// An event ready to append: its `type` tag as the event type, its JSON as the payload.
pub fn encode<E: Serialize>(event: &E) -> Result<NewEvent, serde_json::Error> {
    let payload = serde_json::to_vec(event)?;
    // serde writes an internally tagged enum's tag first: `{"type":"Name",...`.
    let event_type = payload
        .strip_prefix(br#"{"type":""#)
        .and_then(|rest| rest.split(|&b| b == b'"').next())
        .map_or_else(
            || "Event".to_owned(),
            |t| String::from_utf8_lossy(t).into_owned(),
        );
    Ok(NewEvent::new(event_type, payload))
}
