//! What a newer release wrote is refused by name, and folds nothing: an event type or a
//! version this release does not know, and a stream of a kind it does not know.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use league_projections::{ProjectionError, Projector};
use league_store::{RecordedEvent, Timestamp};

fn event(
    position: u64,
    stream: &str,
    event_type: &str,
    version: u32,
    payload: &str,
) -> RecordedEvent {
    RecordedEvent {
        position,
        stored_id: None,
        stream_id: stream.into(),
        stream_version: position,
        event_type: event_type.into(),
        schema_version: version,
        payload: payload.as_bytes().to_vec(),
        actor: None,
        correlation_id: None,
        causation_id: None,
        idempotency_key: None,
        recorded_at: Timestamp::from_micros(0),
        prev_hash: [0; 32],
        hash: [0; 32],
    }
}

#[test]
fn newer_types_versions_and_stream_kinds_are_refused_by_name_and_fold_nothing() {
    let mut p = Projector::new();
    let created = r#"{"type":"LeagueCreated","name":"L","final_table":9}"#;
    p.apply(&event(1, "league:l", "LeagueCreated", 1, created))
        .unwrap();

    let newer = p
        .apply(&event(
            2,
            "league:l",
            "VenueAdded",
            2,
            r#"{"type":"VenueAdded","venue":"v","region":"r"}"#,
        ))
        .unwrap_err();
    let message = newer.to_string();
    assert!(
        matches!(newer, ProjectionError::Decode { position: 2, .. }),
        "{message}"
    );
    assert!(
        message.contains("league event VenueAdded version 2 is newer than release"),
        "{message}"
    );

    let unknown = p
        .apply(&event(
            2,
            "league:l",
            "VenueClosed",
            1,
            r#"{"type":"VenueClosed","venue":"v"}"#,
        ))
        .unwrap_err()
        .to_string();
    assert!(
        unknown.contains("league event type VenueClosed is not known to release"),
        "{unknown}"
    );

    let stream = p
        .apply(&event(
            2,
            "profile:ann",
            "ProfileCreated",
            1,
            r#"{"type":"ProfileCreated"}"#,
        ))
        .unwrap_err();
    assert!(matches!(
        stream,
        ProjectionError::UnknownStream { position: 2, .. }
    ));
    assert!(
        stream
            .to_string()
            .contains("is in stream profile:ann, of a kind release"),
        "{stream}"
    );

    // Nothing of the refused events was folded: the next event is still position 2.
    assert_eq!(p.position(), Some(1));
    assert_eq!(p.events(), 1);
    let venue = r#"{"type":"VenueAdded","venue":"v","region":"r"}"#;
    p.apply(&event(2, "league:l", "VenueAdded", 1, venue))
        .unwrap();
    assert_eq!(p.position(), Some(2));
}
