//! Events are the persisted contract: a seeded hand's events, serialized, must stay
//! byte-for-byte what the fixture says. An intended change of format is a new schema
//! version with an upcaster, and the fixture is regenerated with `UPDATE_GOLDEN=1`.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "integration tests: a panic is the failure report"
)]

use league_engine::hand::{Event, HandState, apply};
use league_engine::rules::Preset;
use league_engine::sim::Simulator;

fn hands() -> Vec<Vec<Event>> {
    // Enough seeded hands to cover showdowns, side pots, folds and antes.
    let mut sim = Simulator::new(2026, Preset::QueenSix.rules());
    (0..12).map(|_| sim.play().unwrap()).collect()
}

#[test]
fn seeded_hands_serialize_exactly_as_the_fixture() {
    let mut text = String::new();
    for events in hands() {
        for event in &events {
            text.push_str(&serde_json::to_string(event).unwrap());
            text.push('\n');
        }
        text.push('\n');
    }
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/hand_events.jsonl"
    );
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(path, &text).unwrap();
    }
    let fixture = std::fs::read_to_string(path).unwrap();
    assert!(fixture == text, "event JSON changed; see {path}");
}

#[test]
fn the_fixture_reads_back_and_replays_to_the_same_state() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/hand_events.jsonl"
    );
    let fixture = std::fs::read_to_string(path).unwrap();
    for (block, played) in fixture.split("\n\n").zip(hands()) {
        let events: Vec<Event> = block
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect();
        assert_eq!(events, played);
        let mut state = HandState::new();
        for event in &events {
            apply(&mut state, event);
        }
        assert!(state.is_over());
    }
}
