//! Random tournaments through the aggregate: every command the simulator sends is
//! accepted, chips are conserved after every event (except documented removals), every
//! entrant finishes exactly once, the prize pool is paid out exactly, and replaying the
//! stream gives the same state.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::collections::BTreeSet;

use league_engine::rules::Preset;
use league_engine::tournament::play::{self, Stage, Tournament, TournamentEvent, Tracking};
use league_engine::tournament::sim::{SimOptions, TournamentSim};
use league_engine::units::Cents;
use proptest::prelude::*;

fn check(seed: u64, options: SimOptions) {
    let mut sim = TournamentSim::new(seed, options.clone()).unwrap();
    if let Err(e) = sim.run(200_000) {
        panic!(
            "seed {seed} {options:?}: refused {e:?} to {:?} after {} events; last: {:#?}",
            sim.last_command,
            sim.events.len(),
            &sim.events[sim.events.len().saturating_sub(3)..]
        );
    }
    assert_eq!(
        sim.state.stage(),
        Stage::Finished,
        "seed {seed}: not finished"
    );
    // Replay, checking the invariants after every event.
    let mut replay = Tournament::new();
    for (i, event) in sim.events.iter().enumerate() {
        play::apply(&mut replay, event);
        if let Err(e) = replay.check_invariants() {
            panic!("seed {seed} {options:?}: after event {i} {event:?}: {e}");
        }
    }
    assert_eq!(replay, sim.state, "seed {seed}: replay differs");
    // Every event survives JSON.
    for event in &sim.events {
        let json = serde_json::to_string(event).unwrap();
        let back: TournamentEvent = serde_json::from_str(&json).unwrap();
        assert_eq!(&back, event);
    }
    let results = sim.state.results().unwrap();
    let ids: BTreeSet<&str> = results.iter().map(|r| r.player.as_str()).collect();
    assert_eq!(ids.len(), results.len(), "a player finished twice");
    assert_eq!(ids.len(), sim.state.field(), "every entrant finishes once");
    let pool = sim.state.prize_pool().unwrap();
    let paid: Cents = results.iter().map(|r| r.prize).sum();
    assert_eq!(paid, pool.total, "the prize pool is paid out exactly");
    let mut places: Vec<u32> = results.iter().map(|r| r.place).collect();
    places.sort_unstable();
    assert_eq!(places[0], 1);
    assert_eq!(
        results.iter().filter(|r| r.place == 1).count(),
        1,
        "one winner"
    );
    for r in results {
        assert!(usize::try_from(r.place).unwrap() <= results.len());
    }
}

fn options(players: usize, preset: Preset, tracking: Tracking, rebuys: bool) -> SimOptions {
    SimOptions {
        players,
        preset,
        tracking,
        table_size: 9,
        rebuys,
        late: players / 5,
        ids: Vec::new(),
        venue: "sim".into(),
        name_hands: false,
    }
}

#[test]
fn a_dealt_tournament_plays_to_the_end() {
    check(1, options(20, Preset::Wph, Tracking::Dealt, true));
}

#[test]
fn a_results_tournament_plays_to_the_end() {
    check(2, options(40, Preset::QueenSix, Tracking::Results, true));
}

#[test]
fn a_recorded_tournament_plays_to_the_end() {
    check(3, options(12, Preset::Oracle, Tracking::Recorded, false));
}

/// A case the random search found: an Oracle event dealt seven-handed, with absent
/// players' hands dead at the deal and pots split in the smallest chip.
#[test]
fn an_oracle_tournament_with_absent_players_conserves_its_chips() {
    check(
        17_907_646_556_763_648_496,
        SimOptions {
            players: 35,
            preset: Preset::Oracle,
            tracking: Tracking::Dealt,
            table_size: 7,
            rebuys: false,
            late: 8,
            ids: Vec::new(),
            venue: "sim".into(),
            name_hands: true,
        },
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn random_tournaments_keep_their_invariants(
        seed in any::<u64>(),
        players in 2usize..40,
        preset in prop::sample::select(vec![Preset::QueenSix, Preset::Wph, Preset::Oracle, Preset::Invitational]),
        tracking in prop::sample::select(vec![Tracking::Dealt, Tracking::Recorded, Tracking::Results]),
        rebuys in any::<bool>(),
        table_size in 6u8..=10,
    ) {
        check(seed, SimOptions { players, preset, tracking, table_size, rebuys, late: players / 4, ids: Vec::new(), venue: "sim".into(), name_hands: seed % 2 == 0 });
    }
}

/// The simulator is only as good as the corners it reaches: across a few seeds of each
/// tracking mode and house, every kind of tournament event occurs.
#[test]
fn the_simulator_reaches_every_kind_of_event() {
    let mut seen = std::collections::BTreeMap::<String, usize>::new();
    let presets = [
        Preset::QueenSix,
        Preset::Wph,
        Preset::Oracle,
        Preset::Invitational,
    ];
    let trackings = [Tracking::Dealt, Tracking::Recorded, Tracking::Results];
    for seed in 0..24u64 {
        let preset = presets[usize::try_from(seed % 4).unwrap()];
        let tracking = trackings[usize::try_from(seed % 3).unwrap()];
        let players = 12 + (usize::try_from(seed).unwrap() * 7) % 40;
        let mut sim =
            TournamentSim::new(seed, options(players, preset, tracking, seed % 2 == 0)).unwrap();
        sim.run(200_000).unwrap();
        for event in &sim.events {
            let json = serde_json::to_value(event).unwrap();
            *seen
                .entry(json["type"].as_str().unwrap().to_owned())
                .or_default() += 1;
        }
    }
    println!("{seen:#?}");
    let expected = [
        "TournamentScheduled",
        "PlayerRegistered",
        "TournamentStarted",
        "LevelStarted",
        "ClockPaused",
        "ClockResumed",
        "PlayerMarkedAbsent",
        "PlayerArrived",
        "PlayerEntered",
        "TableHandStarted",
        "HandEvent",
        "PlayerBusted",
        "RebuyAnnounced",
        "RebuyMade",
        "AddOnMade",
        "PlayersEliminated",
        "ChipsCounted",
        "PlayerMoved",
        "TableBroken",
        "RedrawRequired",
        "SeatsRedrawn",
        "HandForHandStarted",
        "HandForHandEnded",
        "ChipsColouredUp",
        "PenaltyGiven",
        "PlayerDisqualified",
        "TournamentFinished",
        "UnsoldStackPlaced",
        "UnsoldStackRemoved",
    ];
    let missing: Vec<&str> = expected
        .iter()
        .copied()
        .filter(|e| !seen.contains_key(*e))
        .collect();
    assert!(missing.is_empty(), "never simulated: {missing:?}");
}
