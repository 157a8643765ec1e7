//! The `league phh` commands as a user runs them: output format and exit status.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "integration tests: a panic is the failure report"
)]
use std::path::{Path, PathBuf};
use std::process::Command;

fn league() -> Command {
    Command::new(env!("CARGO_BIN_EXE_league"))
}

fn shared() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared")
}

#[test]
fn phh_check_on_the_corpus_refuses_only_the_incomplete_hand() {
    let output = league()
        .args(["phh", "check"])
        .arg(shared().join("phh"))
        .output()
        .unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        output.status.code(),
        Some(1),
        "one file fails: exit 1\n{stdout}"
    );
    assert_eq!(lines.len(), 3, "{stdout}");
    assert!(
        lines[0].starts_with("wsop/2019/42/3/00-01-07.phh: refused [PHH_ILLEGAL_ACTION]: "),
        "{stdout}"
    );
    assert!(lines[0].contains("incomplete"), "{stdout}");
    assert!(lines[1].starts_with("replayed 300 hands in "), "{stdout}");
    assert!(lines[1].ends_with(" hands/s)"), "{stdout}");
    assert_eq!(lines[2], "299 passed, 1 failed");
}

/// PokerKit plays 2,000 random hands choosing among all its legal actions
/// (`tools/pokerkit_hands.py`, seed 1): `league phh check` ends every one on the stacks
/// PokerKit recorded. Needs `python3` with PokerKit (`pip install pokerkit`).
#[test]
fn every_hand_pokerkit_plays_passes_phh_check() {
    let dir = std::env::temp_dir().join(format!("league-cli-pokerkit-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tools/pokerkit_hands.py");
    let played = Command::new("python3")
        .arg(&script)
        .args(["--hands", "2000", "--seed", "1", "--out"])
        .arg(&dir)
        .output()
        .expect("python3 must be installed to run PokerKit");
    assert!(
        played.status.success(),
        "pokerkit_hands.py failed (is PokerKit installed? `pip install pokerkit`):\n{}",
        String::from_utf8_lossy(&played.stderr)
    );
    let output = league().args(["phh", "check"]).arg(&dir).output().unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(output.status.success(), "{stdout}");
    assert_eq!(
        stdout.lines().last(),
        Some("2000 passed, 0 failed"),
        "{stdout}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn simulated_hands_pass_the_engine_own_check() {
    let dir = std::env::temp_dir().join(format!("league-cli-sim-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let status = league()
        .args(["phh", "simulate", "--hands", "200", "--seed", "9", "--out"])
        .arg(&dir)
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 200);
    let output = league().args(["phh", "check"]).arg(&dir).output().unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(output.status.success(), "{stdout}");
    assert_eq!(stdout.lines().last(), Some("200 passed, 0 failed"));
    // The same seed writes the same hands.
    let again = dir.with_extension("again");
    let _ = std::fs::remove_dir_all(&again);
    league()
        .args(["phh", "simulate", "--hands", "200", "--seed", "9", "--out"])
        .arg(&again)
        .status()
        .unwrap();
    for name in ["000.phh", "123.phh", "199.phh"] {
        assert_eq!(
            std::fs::read(dir.join(name)).unwrap(),
            std::fs::read(again.join(name)).unwrap()
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&again);
}

#[test]
fn a_broken_file_is_refused_with_the_action_that_broke_it() {
    let dir = std::env::temp_dir().join(format!("league-cli-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("bad.phh"),
        "variant = 'NT'\nantes = [0, 0]\nblinds_or_straddles = [1, 2]\nmin_bet = 2\n\
         starting_stacks = [100, 100]\nactions = ['d dh p1 AhAd', 'd dh p2 KhKd', 'p2 cbr 1']\n",
    )
    .unwrap();
    let output = league().args(["phh", "check"]).arg(&dir).output().unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stdout.contains(
            "bad.phh: refused [PHH_ILLEGAL_ACTION]: action 3 \"p2 cbr 1\": raise below the minimum: min 4, got 1"
        ),
        "{stdout}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
