//! Conformance against real hands and against PokerKit, the independent referee.
//!
//! - The 300 recorded hands of `../shared/phh` replay to their recorded final stacks, except
//!   the one file that is missing an action, which is refused as incomplete.
//! - 2,000 hands simulated by the engine are written as PHH and replayed by PokerKit
//!   (`../shared/tools/phh_check.py`): it agrees on every one and repairs none. This needs
//!   `python3` with `pip install pokerkit`; without it the test fails and says so.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "integration tests: a panic is the failure report"
)]
use std::path::{Path, PathBuf};
use std::process::Command;

use league_engine::cash::{self, CashEvent, CashRules, HouseTake, TableConfig};
use league_engine::phh::{self, PhhError};
use league_engine::rules::{HouseRules, Preset};
use league_engine::sim::Simulator;
use league_engine::units::{Chips, VenueId};

fn shared() -> PathBuf {
    match std::env::var_os("LEAGUE_SHARED_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared"),
    }
}

fn phh_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            phh_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "phh") {
            out.push(path);
        }
    }
}

const INCOMPLETE: &str = "wsop/2019/42/3/00-01-07.phh";

#[test]
fn the_real_hands_replay_to_their_recorded_stacks_except_the_incomplete_one() {
    let root = shared().join("phh");
    let mut files = Vec::new();
    phh_files(&root, &mut files);
    files.sort();
    assert_eq!(files.len(), 300, "the corpus has 300 hands");
    let mut passed = 0;
    for file in &files {
        let name = file
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let text = std::fs::read_to_string(file).unwrap();
        let hand = phh::parse(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let replayed = phh::replay(&hand, HouseRules::wsop());
        if name == INCOMPLETE {
            // p8 (the button) never acts pre-flop: after `p7 cbr 1150000` comes `p1 cc`.
            match replayed {
                Err(PhhError::Action {
                    index,
                    action,
                    message,
                }) => {
                    assert_eq!(index, 14);
                    assert_eq!(action, "p1 cc");
                    assert!(
                        message.contains("incomplete") && message.contains("p8"),
                        "{message}"
                    );
                }
                other => panic!("{name} must be refused as incomplete, got {other:?}"),
            }
            continue;
        }
        let replayed = replayed.unwrap_or_else(|e| panic!("{name}: {e}"));
        let expected = phh::expected_stacks(hand.finishing_stacks.as_ref().unwrap());
        assert_eq!(replayed.stacks, expected, "{name}");
        // Chips are conserved: the engine's stacks add up to the starting stacks.
        assert_eq!(
            replayed.stacks.iter().sum::<u64>(),
            hand.starting_stacks.iter().sum::<u64>(),
            "{name}"
        );
        passed += 1;
    }
    assert_eq!(passed, 299);
}

#[test]
fn recorded_half_chips_give_the_odd_chip_to_the_first_winner_left_of_the_button() {
    // pluribus/91/43.phh records a split pot as 10112.5 each; PokerKit and the engine give
    // the odd chip to the first winner clockwise from the button.
    let text = std::fs::read_to_string(shared().join("phh/pluribus/91/43.phh")).unwrap();
    let hand = phh::parse(&text).unwrap();
    let halves = hand.finishing_stacks.as_ref().unwrap();
    assert!(
        halves.iter().any(|h| !h.is_whole()),
        "the record has half chips"
    );
    let replayed = phh::replay(&hand, HouseRules::wsop()).unwrap();
    assert_eq!(replayed.stacks, phh::expected_stacks(halves));
}

#[test]
fn pokerkit_agrees_on_2000_simulated_hands_and_repairs_none() {
    let dir = std::env::temp_dir().join(format!("league-sim-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut sim = Simulator::new(1, HouseRules::wsop());
    for i in 0..2000 {
        let events = sim.play().unwrap();
        let text = phh::write(&events).unwrap();
        std::fs::write(dir.join(format!("{i:04}.phh")), text).unwrap();
    }
    let script = shared().join("tools/phh_check.py");
    let output = Command::new("python3")
        .arg(&script)
        .arg(&dir)
        .arg("--quiet")
        .output()
        .expect("python3 must be installed to run PokerKit, the referee");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "phh_check.py failed (is PokerKit installed? `pip install pokerkit`):\n{stdout}\n{stderr}"
    );
    assert!(
        stdout.contains("AGREE: 2000   DIFFER: 0   LOAD_FAIL (failed to load): 0   REPLAY_FAIL: 0"),
        "PokerKit disagrees:\n{stdout}"
    );
    assert!(
        !stdout.contains("repaired"),
        "PokerKit repaired hands:\n{stdout}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Writes the hands of a cash session as PHH files, one per hand, from `first` on; returns
/// the files written and those with a pot PokerKit splits otherwise: three or more winners
/// and two or more odd chips, which the cardrooms give one each (Oracle Odd chips 4,
/// Hippodrome Ties 3) and PokerKit all to the first (PHH cannot say which).
fn write_cash_hands(events: &[CashEvent], dir: &Path, first: usize) -> (usize, Vec<String>) {
    let mut written = 0;
    let mut odd = Vec::new();
    let mut hand: Vec<league_engine::hand::Event> = Vec::new();
    let flush =
        |hand: &mut Vec<league_engine::hand::Event>, written: &mut usize, odd: &mut Vec<String>| {
            if !hand.is_empty() {
                let name = format!("{:04}.phh", first + *written);
                let text = phh::write(hand).unwrap();
                std::fs::write(dir.join(&name), text).unwrap();
                let split_otherwise = hand.iter().any(|e| {
                    matches!(e, league_engine::hand::Event::PotAwarded { amount, shares, rake, .. }
                    if shares.len() >= 3
                        && (amount - rake) % u64::try_from(shares.len()).unwrap() >= 2)
                });
                if split_otherwise {
                    odd.push(name);
                }
                *written += 1;
                hand.clear();
            }
        };
    for event in events {
        match event {
            CashEvent::HandDealt { .. } => flush(&mut hand, &mut written, &mut odd),
            CashEvent::HandEvent { event } => hand.push(event.clone()),
            _ => {}
        }
    }
    flush(&mut hand, &mut written, &mut odd);
    (written, odd)
}

/// 2,000 hands of two cash tables, an Oracle table raking 5% of each pot up to 6 chips (no
/// flop, no drop) and a Hippodrome table charging a session fee and running the board twice
/// from a pot of 40 when all agree, with straddles, missed blinds, players coming and going:
/// PokerKit, in its cash-game mode with the table's rake as its rake function and each
/// player choosing the runout count the file records (`tools/pokerkit_cash.py`), replays
/// every one to the same stacks, repairing none; only a pot the cardrooms split one odd
/// chip each and PokerKit all to the first winner differs, by its odd chips.
#[test]
fn pokerkit_agrees_on_2000_cash_hands_with_straddles_missed_blinds_rake_and_run_twice() {
    let dir = std::env::temp_dir().join(format!("league-cash-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut written = 0;
    let mut odd = Vec::new();
    let mut raked = 0;
    let mut twice = 0;
    for (seed, preset) in [(1, Preset::Oracle), (2, Preset::Hippodrome)] {
        let config = TableConfig {
            venue: VenueId::new("cardroom"),
            name: "1/2 No-Limit".into(),
            small_blind: Chips::new(1),
            big_blind: Chips::new(2),
            min_buy_in: Chips::new(40),
            max_buy_in: Chips::new(200),
            seats: 9,
            rules: preset.rules(),
            straddle: CashRules::straddle(preset),
            take: if preset == Preset::Oracle {
                HouseTake::Rake(league_engine::hand::Rake {
                    basis_points: 500,
                    cap: 6,
                    no_flop_no_drop: true,
                })
            } else {
                HouseTake::SessionFee {
                    amount: Chips::new(3),
                    period_minutes: 30,
                }
            },
            run_twice: (preset == Preset::Hippodrome).then_some(Chips::new(40)),
        };
        let mut session = cash::sim::Session::open(seed, config, 0).unwrap();
        assert_eq!(session.play(1_000, 90).unwrap(), 1_000);
        raked += session
            .events
            .iter()
            .filter(|e| {
                matches!(
                    e,
                    CashEvent::HandEvent {
                        event: league_engine::hand::Event::PotAwarded { rake: 1.., .. }
                    }
                )
            })
            .count();
        twice += session
            .events
            .iter()
            .filter(|e| {
                matches!(
                    e,
                    CashEvent::HandEvent {
                        event: league_engine::hand::Event::BoardRunAgain { .. }
                    }
                )
            })
            .count();
        let (n, mut split) = write_cash_hands(&session.events, &dir, written);
        written += n;
        odd.append(&mut split);
    }
    assert_eq!(written, 2_000);
    assert!(raked > 300, "{raked} raked pots");
    assert!(twice > 30, "{twice} hands run twice");
    let report = dir.join("pokerkit.json");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tools/pokerkit_cash.py");
    let output = Command::new("python3")
        .arg(&script)
        .arg(&dir)
        .arg("--quiet")
        .arg("--json")
        .arg(&report)
        .output()
        .expect("python3 must be installed to run PokerKit, the referee");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "pokerkit_cash.py failed (is PokerKit installed? `pip install pokerkit`):\n{stdout}\n{stderr}"
    );
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    assert_eq!(report["repaired"], 0, "PokerKit repaired hands:\n{stdout}");
    let hands = report["hands"].as_array().unwrap();
    assert_eq!(hands.len(), 2_000);
    let mut agree = 0;
    for hand in hands {
        let name = hand["hand"].as_str().unwrap();
        match hand["status"].as_str().unwrap() {
            "AGREE" => agree += 1,
            // Only a pot PokerKit splits otherwise, and only by its odd chips.
            "DIFFER" => {
                assert!(
                    odd.iter().any(|o| o == name),
                    "{name}: PokerKit disagrees\n{hand}"
                );
                let stacks = |key: &str| -> Vec<i64> {
                    hand[key]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|v| v.as_str().unwrap().parse().unwrap())
                        .collect()
                };
                let (ours, theirs) = (stacks("recorded"), stacks("pokerkit"));
                assert_eq!(
                    ours.iter().sum::<i64>(),
                    theirs.iter().sum::<i64>(),
                    "{hand}"
                );
                assert!(
                    ours.iter().zip(&theirs).all(|(a, b)| (a - b).abs() < 10),
                    "{name}: more than odd chips apart\n{hand}"
                );
            }
            other => panic!("{name}: {other}\n{hand}"),
        }
    }
    assert!(agree + odd.len() >= 2_000, "{agree} agree of 2000");
    let _ = std::fs::remove_dir_all(&dir);
}
