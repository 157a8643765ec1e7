//! The persisted contract between the engine's events and the log: which stream an
//! aggregate's events go to, how an event is written (its type and payload bytes), and how
//! a payload is read back. The write side (`league-app`) encodes with it, the read side
//! (`league-projections`) decodes with it; nothing else names a stream or parses a payload.
//!
//! - `tournament:<id>`: [`TournamentEvent`] payloads (one stream per tournament).
//! - `league:<id>`: `league_engine::league::Event` payloads (venues, seasons, players,
//!   formulas, recorded tournament results).
//! - `cash:<id>`: [`CashEvent`] payloads (one stream per cash table: its seats, fees and
//!   hands).
//!
//! Payloads are the events' JSON (`serde_json`), with the event's `type` tag; the store's
//! `event_type` column repeats the tag and `schema_version` carries the version of the
//! type's shape ([`versions`]: the catalogue of types and versions, and the upcasting of old
//! versions on read).

mod tournament_json;
pub mod versions;

use std::fmt;

use league_engine::cash::CashEvent;
use league_engine::league;
use league_engine::tournament::play::TournamentEvent;
use league_store::NewEvent;
use serde::Serialize;
use serde::de::DeserializeOwned;

pub use versions::{CATALOGUE, CODEC, DecodeError, EventType};

/// This build's release (the workspace's semantic version).
pub const RELEASE: &str = env!("CARGO_PKG_VERSION");

/// What a stream holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StreamKind {
    Tournament,
    League,
    Cash,
}

impl StreamKind {
    pub fn of(stream: &str) -> Option<StreamKind> {
        if stream.starts_with(StreamKind::Tournament.prefix()) {
            Some(StreamKind::Tournament)
        } else if stream.starts_with(StreamKind::League.prefix()) {
            Some(StreamKind::League)
        } else if stream.starts_with(StreamKind::Cash.prefix()) {
            Some(StreamKind::Cash)
        } else {
            None
        }
    }

    /// The prefix every stream of this kind starts with.
    pub fn prefix(self) -> &'static str {
        match self {
            StreamKind::Tournament => "tournament:",
            StreamKind::League => "league:",
            StreamKind::Cash => "cash:",
        }
    }

    /// The stream of the aggregate `id` of this kind: `tournament:<id>`, `league:<id>` or
    /// `cash:<id>`.
    pub fn stream(self, id: &str) -> String {
        format!("{}{id}", self.prefix())
    }

    /// The aggregate's id, when `stream` is of this kind.
    pub fn id_of(self, stream: &str) -> Option<&str> {
        stream.strip_prefix(self.prefix())
    }

    /// The kind's name: `tournament`, `league` or `cash`.
    pub fn name(self) -> &'static str {
        match self {
            StreamKind::Tournament => "tournament",
            StreamKind::League => "league",
            StreamKind::Cash => "cash",
        }
    }
}

impl fmt::Display for StreamKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An event of one stream kind's aggregate.
pub trait LogEvent: Serialize + DeserializeOwned {
    /// The kind of stream the event is written to.
    const KIND: StreamKind;

    /// Reads the current version's payload (the short path where there is one).
    fn parse_current(payload: &[u8]) -> Result<Self, serde_json::Error> {
        parse(payload)
    }
}

impl LogEvent for TournamentEvent {
    const KIND: StreamKind = StreamKind::Tournament;

    fn parse_current(payload: &[u8]) -> Result<Self, serde_json::Error> {
        parse_tournament(payload)
    }
}

impl LogEvent for league::Event {
    const KIND: StreamKind = StreamKind::League;
}

impl LogEvent for CashEvent {
    const KIND: StreamKind = StreamKind::Cash;
}

/// Reads a stored event of type `event_type`, version `version`: refused when this build
/// does not know the type or the version; old versions are upcast ([`versions`]).
pub fn decode<E: LogEvent>(
    event_type: &str,
    version: u32,
    payload: &[u8],
) -> Result<E, DecodeError> {
    CODEC.read(E::KIND, event_type, version, payload, E::parse_current)
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

/// Parses a tournament stream's payload, as [`parse`] would.
///
/// Most events (every frequent one, 96% of a simulated season) are read by the short path
/// of `tournament_json`, which accepts only the exact shape serde writes and gives what
/// serde would. Anything else goes through [`parse`]: the result, and any error, are
/// serde's own.
pub fn parse_tournament(payload: &[u8]) -> Result<TournamentEvent, serde_json::Error> {
    if let Some((table, event)) = tournament_json::hand_event(payload) {
        return Ok(TournamentEvent::HandEvent { table, event });
    }
    if let Some(event) = tournament_json::tournament_event(payload) {
        return Ok(event);
    }
    parse(payload)
}

/// An event ready to append: its `type` tag as the event type, the version of the type's
/// shape this build writes, its JSON as the payload.
pub fn encode<E: LogEvent>(event: &E) -> Result<NewEvent, serde_json::Error> {
    let payload = serde_json::to_vec(event)?;
    // serde writes an internally tagged enum's tag first: `{"type":"Name",...`.
    let event_type = payload
        .strip_prefix(br#"{"type":""#)
        .and_then(|rest| rest.split(|&b| b == b'"').next())
        .map(|t| String::from_utf8_lossy(t).into_owned())
        .unwrap_or_default();
    let version = CODEC.current(E::KIND, &event_type).ok_or_else(|| {
        <serde_json::Error as serde::ser::Error>::custom(format_args!(
            "{} event type {event_type:?} is not in the catalogue",
            E::KIND
        ))
    })?;
    Ok(NewEvent::new(event_type, payload).with_schema_version(version))
}

#[cfg(test)]
mod tests {
    use super::*;
    use league_engine::hand::Event as HandEvent;

    /// `parse_tournament` gives what `parse` gives, value or error.
    fn same_as_parse(payload: &[u8]) {
        let fast = parse_tournament(payload);
        let full = parse::<TournamentEvent>(payload);
        match (&fast, &full) {
            (Ok(a), Ok(b)) => assert_eq!(a, b, "{}", String::from_utf8_lossy(payload)),
            (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
            _ => panic!(
                "{}: {fast:?} against {full:?}",
                String::from_utf8_lossy(payload)
            ),
        }
    }

    #[test]
    fn tournament_payloads_read_the_same_on_the_short_path_as_through_serde() {
        use league_engine::rules::Preset;
        use league_engine::tournament::play::Tracking;
        use league_engine::tournament::sim::{SimOptions, TournamentSim};

        let (mut hand_events, mut short_path, mut other_short_path) = (0, 0, 0);
        for (seed, tracking) in [(7, Tracking::Dealt), (8, Tracking::Recorded)] {
            let mut sim = TournamentSim::new(
                seed,
                SimOptions {
                    players: 12,
                    preset: Preset::Wph,
                    tracking,
                    table_size: 9,
                    rebuys: true,
                    late: 2,
                    ids: Vec::new(),
                    venue: "sim".into(),
                    name_hands: false,
                },
            )
            .unwrap();
            sim.run(100_000).unwrap();
            for event in &sim.events {
                let payload = encode(event).unwrap().payload;
                assert_eq!(&parse_tournament(&payload).unwrap(), event);
                same_as_parse(&payload);
                if let TournamentEvent::HandEvent { table, event } = event {
                    hand_events += 1;
                    // Every hand event but the rare rulings and voids takes the short path.
                    let short = tournament_json::hand_event(&payload);
                    match event {
                        HandEvent::RaiseTreatedAsCall { .. }
                        | HandEvent::ActedOutOfTurn { .. }
                        | HandEvent::OutOfTurnRuled { .. }
                        | HandEvent::HandKilled { .. }
                        | HandEvent::HandVoided { .. } => assert_eq!(short, None),
                        _ => {
                            assert_eq!(short, Some((*table, event.clone())));
                            short_path += 1;
                        }
                    }
                } else {
                    // So do the frequent tournament events (the simulator's ids are plain).
                    let short = tournament_json::tournament_event(&payload);
                    match event {
                        TournamentEvent::TableHandStarted { .. }
                        | TournamentEvent::PlayersEliminated { .. }
                        | TournamentEvent::PlayerRegistered { .. }
                        | TournamentEvent::PlayerEntered { .. }
                        | TournamentEvent::PlayerBusted { .. }
                        | TournamentEvent::RebuyMade { .. } => {
                            assert_eq!(short.as_ref(), Some(event));
                            other_short_path += 1;
                        }
                        _ => assert_eq!(short, None),
                    }
                }
            }
        }
        assert!(other_short_path > 100, "{other_short_path}");
        assert!(hand_events > 1_000, "{hand_events}");
        assert!(
            short_path * 10 > hand_events * 9,
            "{short_path} of {hand_events}"
        );
        // Shapes the short path must hand to serde, or read exactly as serde does.
        let inside = r#"{"table":3,"event":{"type":"PlayerChecked","data":{"seat":4}}}"#;
        for payload in [
            format!(r#"{{"type":"HandEvent","data":{inside}}}"#),
            format!(r#"{{"type":"HandEvent","data":{inside} }}"#),
            format!(r#"{{"type":"HandEvent","data": {inside}}}"#),
            format!(r#"{{"data":{inside},"type":"HandEvent"}}"#),
            format!(r#"{{"type":"HandEvent","data":{inside},"extra":1}}"#),
            format!(r#"{{"type":"HandEvent","data":{inside},"data":{inside}}}"#),
            format!(r#"{{"type":"HandEvent","data":{inside}}} x"#),
            format!(r#"{{"type":"HandEvent","data":{inside}}}}}"#),
            format!(r#"{{"type":"HandEvent","data":{inside}"#),
            r#"{"type":"HandEvent","data":{"table":3,"table":4,"event":{"type":"PreflopStarted"}}}"#
                .to_owned(),
            r#"{"type":"HandEvent","data":{"table":-3,"event":{"type":"PreflopStarted"}}}"#
                .to_owned(),
            r#"{"type":"HandEvent","data":{"table":3,"event":{"type":"Nope"}}}"#.to_owned(),
            r#"{"type":"HandEvent","data":{"table":3}}"#.to_owned(),
            r#"{"type":"HandEvent","data":"#.to_owned(),
            r#"{"type":"ClockPaused","data":{"at":5}}"#.to_owned(),
        ] {
            same_as_parse(payload.as_bytes());
        }
        same_as_parse(b"{\"type\":\"HandEvent\",\"data\":{\"table\":\xff}}");
    }

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
