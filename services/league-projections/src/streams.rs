//! Stream naming and payload decoding.
//!
//! - `tournament:<id>`: [`TournamentEvent`] payloads (one stream per tournament).
//! - `league:<id>`: [`league::Event`] payloads (venues, seasons, players, formulas,
//!   recorded tournament results).
//!
//! Payloads are the events' JSON (`serde_json`), with the event's `type` tag; the store's
//! `event_type` column repeats the tag.

use league_store::NewEvent;
use serde::Serialize;
use serde::de::DeserializeOwned;

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

/// Parses a payload. The bytes are checked as UTF-8 once, whole, and then parsed as a
/// `str`, so serde_json does not check every string of the event again on its own.
pub fn parse<T: DeserializeOwned>(payload: &[u8]) -> Result<T, serde_json::Error> {
    match std::str::from_utf8(payload) {
        Ok(text) => serde_json::from_str(text),
        // serde_json says where the bytes go wrong.
        Err(_) => serde_json::from_slice(payload),
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payloads_parse_as_text_and_bytes_that_are_not_utf8_are_refused() {
        let value: serde_json::Value = parse(br#"{"type":"A","x":"\u00fc \u2660"}"#).unwrap();
        assert_eq!(value["x"], "\u{fc} \u{2660}");
        let value: serde_json::Value = parse("{\"x\":\"\u{fc} \u{2660}\"}".as_bytes()).unwrap();
        assert_eq!(value["x"], "\u{fc} \u{2660}");
        // Invalid UTF-8 inside a string: serde_json's own error, with where it is.
        let bad = b"{\"type\":\"A\",\"x\":\"\xff\"}";
        let error = parse::<serde_json::Value>(bad).unwrap_err();
        assert!(error.to_string().contains("column"), "{error}");
        assert!(parse::<serde_json::Value>(b"{\"type\":").is_err());
    }
}
