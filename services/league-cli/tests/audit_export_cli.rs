//! `league audit export` as an auditor runs it on a simulated season: the PHH files replay
//! in PokerKit, a raked cash hand with its rake (`tools/pokerkit_cash.py`), the PokerStars
//! text reads back through PokerKit's own PokerStars parser to the same stacks
//! (`tools/pokerstars_check.py`), and the summary adds up. Needs `python3` with PokerKit (`pip install pokerkit`).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "integration tests: a panic is the failure report"
)]
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn league() -> Command {
    Command::new(env!("CARGO_BIN_EXE_league"))
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// A scratch folder with a simulated season (2 venues, 2 weeks, seed 5) in `l.db`.
fn season(name: &str) -> (PathBuf, String) {
    let dir = std::env::temp_dir().join(format!("league-export-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let db = format!("sqlite:{}", dir.join("l.db").display());
    let out = league()
        .args([
            "simulate",
            "--venues",
            "2",
            "--weeks",
            "2",
            "--seed",
            "5",
            "--database",
        ])
        .arg(&db)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    (dir, db)
}

fn export(db: &str, format: &str, out: &Path, tournament: Option<&str>) -> Output {
    let mut command = league();
    command
        .args([
            "audit",
            "export",
            "--format",
            format,
            "--database",
            db,
            "--out",
        ])
        .arg(out);
    if let Some(t) = tournament {
        command.args(["--tournament", t]);
    }
    command.output().unwrap()
}

/// Every exported hand replays in PokerKit, none repaired; a hand PokerKit splits
/// otherwise is one whose house gives odd chips one each (PokerKit has no such rule), and
/// it differs by odd chips only. The same hands as PokerStars text, read by PokerKit's
/// PokerStars parser, end on the same stacks.
#[test]
fn a_seasons_hands_replay_in_pokerkit_in_both_formats() {
    let (dir, db) = season("hands");
    let phh = dir.join("phh");
    let out = export(&db, "phh", &phh, None);
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).starts_with("wrote 219 PHH files (4 tournaments and 2 cash tables)"),
        "{}",
        text(&out)
    );
    let report = dir.join("pokerkit.json");
    // PokerKit with each raked hand's rake as its rake function (`tools/pokerkit_cash.py`;
    // the unraked hands replay as `../shared/tools/phh_check.py` replays them).
    let checked = Command::new("python3")
        .arg(root().join("tools/pokerkit_cash.py"))
        .arg(&phh)
        .arg("--quiet")
        .arg("--json")
        .arg(&report)
        .output()
        .expect("python3 with PokerKit must be installed");
    assert!(checked.status.success(), "{}", text(&checked));
    let report: Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    let hands = report["hands"].as_array().unwrap();
    assert_eq!(hands.len(), 219);
    let mut agree = 0;
    for hand in hands {
        let name = hand["hand"].as_str().unwrap();
        assert_eq!(hand["repaired"], "", "{name}: PokerKit repaired the file");
        match hand["status"].as_str().unwrap() {
            "AGREE" => agree += 1,
            "DIFFER" => {
                let file = std::fs::read_to_string(phh.join(name)).unwrap();
                assert!(
                    !file.contains("_odd_chips = \"AllToFirstLeftOfButton\""),
                    "{name}: differs although its house splits as PokerKit does\n{hand}"
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
                // Odd chips of the smallest chip in play (`_chip_unit`, else 1).
                let unit: i64 = file
                    .lines()
                    .find_map(|l| l.strip_prefix("_chip_unit = "))
                    .map_or(1, |v| v.trim().parse().unwrap());
                assert!(
                    ours.iter()
                        .zip(&theirs)
                        .all(|(a, b)| (a - b).abs() < 10 * unit),
                    "{name}: more than odd chips apart\n{hand}"
                );
            }
            other => panic!("{name}: {other}\n{hand}"),
        }
    }
    assert!(agree >= 183, "{agree} of 187 agree");

    let stars = dir.join("stars");
    let out = export(&db, "pokerstars", &stars, None);
    assert!(out.status.success(), "{}", text(&out));
    let read = Command::new("python3")
        .arg(root().join("tools/pokerstars_check.py"))
        .arg(&stars)
        .arg(&phh)
        .output()
        .unwrap();
    let said = text(&read);
    let counts = said
        .lines()
        .find(|l| l.starts_with("AGREE:"))
        .unwrap_or_else(|| panic!("no counts: {said}"));
    // PokerKit's PokerStars parser reads no straddle and no second blind (a player coming
    // into a cash game posts one): such cash hands are checked as PHH above, and only they
    // may fail to parse here.
    let failed: Vec<&str> = said
        .lines()
        .filter(|l| l.starts_with("PARSE_FAIL"))
        .collect();
    for line in &failed {
        assert!(
            line.contains("-cash-")
                && (line.contains("posts straddle")
                    || line.matches("posts big blind").count() > 1
                    || line.matches("posts small blind").count() > 1),
            "{line}"
        );
    }
    assert!(
        counts.contains("DIFFER: 0")
            && counts.ends_with(&format!("FAILED: {}", failed.len()))
            && failed.len() < 20,
        "{said}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The summary: every finished tournament's places, prizes adding up to its prize pool,
/// and the league's points for each place; `--tournament` limits it to one, and a
/// tournament the log does not hold is refused with exit 2.
#[test]
fn the_summary_adds_up_and_names_one_tournament_on_request() {
    let (dir, db) = season("summary");
    let out_dir = dir.join("summary");
    let out = export(&db, "summary", &out_dir, None);
    assert!(out.status.success(), "{}", text(&out));
    let json: Value =
        serde_json::from_slice(&std::fs::read(out_dir.join("summary.json")).unwrap()).unwrap();
    let tournaments = json.as_array().unwrap();
    assert_eq!(tournaments.len(), 4);
    let mut rows = 0;
    for t in tournaments {
        assert_eq!(t["stage"], "finished", "{t}");
        let places = t["places"].as_array().unwrap();
        rows += places.len();
        let prizes: u64 = places
            .iter()
            .map(|p| p["prize_cents"].as_u64().unwrap())
            .sum();
        assert_eq!(Some(prizes), t["prize_pool_cents"].as_u64(), "{t}");
        let entries: u64 = places.iter().map(|p| p["entries"].as_u64().unwrap()).sum();
        assert_eq!(Some(entries), t["entries"].as_u64(), "{t}");
        assert_eq!(t["season"], "season-1", "{t}");
        assert!(places.iter().all(|p| p["points_centi"].is_i64()), "{t}");
        let mut by_place: Vec<(u64, i64)> = places
            .iter()
            .map(|p| {
                (
                    p["place"].as_u64().unwrap(),
                    p["points_centi"].as_i64().unwrap(),
                )
            })
            .collect();
        by_place.sort_unstable();
        assert!(
            by_place.windows(2).all(|w| w[0].1 >= w[1].1),
            "a better place never scores fewer points: {by_place:?}"
        );
    }
    let csv = std::fs::read_to_string(out_dir.join("summary.csv")).unwrap();
    assert_eq!(
        csv.lines().count(),
        rows + 1,
        "a header and a row per place"
    );

    let one = dir.join("one");
    let out = export(&db, "summary", &one, Some("venue-02-w01"));
    assert!(out.status.success(), "{}", text(&out));
    let json: Value =
        serde_json::from_slice(&std::fs::read(one.join("summary.json")).unwrap()).unwrap();
    assert_eq!(json.as_array().unwrap().len(), 1);
    assert_eq!(json[0]["tournament"], "venue-02-w01");
    assert!(json[0]["hands"].as_u64().unwrap() > 0);

    // An audit of a database that is not there refuses, and creates nothing.
    let missing = dir.join("missing.db");
    for args in [
        vec!["audit", "verify"],
        vec!["audit", "replay", "--tournament", "t1"],
    ] {
        let out = league()
            .args(&args)
            .arg("--database")
            .arg(format!("sqlite:{}", missing.display()))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{}", text(&out));
        assert!(text(&out).contains("no database at "), "{}", text(&out));
        assert!(!missing.exists(), "{args:?} created {}", missing.display());
    }

    let out = export(&db, "phh", &dir.join("none"), Some("no-such-night"));
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("the log holds no tournament \"no-such-night\""),
        "{}",
        text(&out)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `league audit replay`: the night as a person reads it; its hands are the export's, its
/// final places the summary's.
#[test]
fn a_replay_reads_the_night_in_order_with_every_hand_and_the_places() {
    let (dir, db) = season("replay");
    let out = league()
        .args([
            "audit",
            "replay",
            "--tournament",
            "venue-02-w01",
            "--database",
        ])
        .arg(&db)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let replay = String::from_utf8(out.stdout).unwrap();
    assert!(replay.starts_with('['), "{replay}");
    let first = replay.lines().next().unwrap();
    assert!(
        first.contains("Scheduled: ") && first.contains("venue venue-02"),
        "{first}"
    );
    assert!(
        replay.contains("level 1: blinds 25/50, 20 min"),
        "the structure is listed"
    );
    assert!(
        replay.contains("] Started: seats drawn from seed "),
        "the seat draw"
    );
    assert!(
        replay.contains("] Now level 2: "),
        "the levels as they start"
    );

    let summary_dir = dir.join("summary");
    let out = export(&db, "summary", &summary_dir, Some("venue-02-w01"));
    assert!(out.status.success(), "{}", text(&out));
    let json: Value =
        serde_json::from_slice(&std::fs::read(summary_dir.join("summary.json")).unwrap()).unwrap();
    let hands = replay.matches("\nPokerStars Hand #").count();
    assert_eq!(
        Some(u64::try_from(hands).unwrap()),
        json[0]["hands"].as_u64(),
        "every hand, once"
    );
    let outs = replay.lines().filter(|l| l.contains("] Out: ")).count();
    assert!(outs > 0, "eliminations are told");

    let (_, finished) = replay
        .split_once("] Finished: prize pool ")
        .expect("the end");
    let places: Vec<&str> = finished
        .lines()
        .skip(1)
        .take_while(|l| l.starts_with("    "))
        .collect();
    let expected = json[0]["places"].as_array().unwrap();
    assert_eq!(places.len(), expected.len());
    for (line, want) in places.iter().zip(expected) {
        let prefix = format!(
            "    {}. {} ",
            want["place"].as_u64().unwrap(),
            want["player"].as_str().unwrap()
        );
        assert!(line.starts_with(&prefix), "{line:?} is not {prefix:?}");
    }

    // A cash table reads the same way: its stakes and take, the players coming and going,
    // each hand with its rake, and what the house took in all.
    let out = league()
        .args([
            "audit",
            "replay",
            "--cash-table",
            "venue-01-cash-w01",
            "--database",
        ])
        .arg(&db)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let cash = String::from_utf8(out.stdout).unwrap();
    let first = cash.lines().next().unwrap();
    assert!(
        first.contains("Opened: ")
            && first.contains("oracle rules")
            && first.contains("a rake of 5.00% of each pot, at most 6, no flop no drop"),
        "{first}"
    );
    for line in [
        "] cash-",
        " sits down at seat ",
        " cashes out ",
        "] Closed: every player cashed out",
    ] {
        assert!(cash.contains(line), "{line:?} in the cash table's replay");
    }
    let hands = cash.matches("\nPokerStars Hand #").count();
    assert_eq!(hands, 30, "every hand, once");
    let raked: u64 = cash
        .lines()
        .filter_map(|l| l.strip_prefix("Total pot "))
        .map(|l| l.split(" | Rake ").nth(1).unwrap().parse::<u64>().unwrap())
        .sum();
    let last = cash.lines().last().unwrap();
    assert!(
        last.starts_with("30 hands played; bought in ")
            && last.ends_with(&format!("taken by the house {raked}")),
        "{last} (the hands' rakes: {raked})"
    );
    assert!(raked > 0);
    let out = league()
        .args([
            "audit",
            "replay",
            "--cash-table",
            "no-such-table",
            "--database",
        ])
        .arg(&db)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out).contains("the log holds no cash table \"no-such-table\""));

    let out = league()
        .args([
            "audit",
            "replay",
            "--tournament",
            "no-such-night",
            "--database",
        ])
        .arg(&db)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out).contains("the log holds no tournament \"no-such-night\""));
    let _ = std::fs::remove_dir_all(&dir);
}
