//! `league formula preview` as a league admin runs it: one line a place, two decimals.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "integration tests: a panic is the failure report"
)]
use std::process::Command;

fn league() -> Command {
    Command::new(env!("CARGO_BIN_EXE_league"))
}

#[test]
fn a_preview_prints_every_place_with_two_decimals() {
    // The PokerStars leader board's published example: 3rd of 150 at a 20 buy-in, 163.09.
    let output = league()
        .args([
            "formula",
            "preview",
            "10 * sqrt(n)/sqrt(r) * (1 + log10(buyin + 0.25))",
        ])
        .args(["--entrants", "150", "--buyin", "20"])
        .output()
        .unwrap();
    assert!(output.status.success());
    let stdout = String::from_utf8(output.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 150);
    assert_eq!(lines[2], "3 163.09");
    // TD3's names and operators, with the places paid: 20 players, 4 paid.
    let output = league()
        .args([
            "formula",
            "preview",
            "(n-r)*3 + if(r <= mr, if(r = mr, 5, (mr-r)*10), 0) + 20 + (nh*3)",
            "--entrants",
            "20",
            "--paid",
            "4",
            "--buyin",
            "20",
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert_eq!(
        stdout.lines().take(5).collect::<Vec<_>>(),
        ["1 107.00", "2 94.00", "3 81.00", "4 73.00", "5 65.00"]
    );
}

#[test]
fn a_formula_the_league_could_not_set_is_refused_as_when_set() {
    for (formula, says) in [
        (
            "100 / (n - r)",
            "could not set this formula: the formula is not a number",
        ),
        ("n - r + totalCost", "`totalcost` cannot be used"),
        ("n - ranking", "unknown variable `ranking`"),
    ] {
        let output = league()
            .args(["formula", "preview", formula, "--entrants", "10"])
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(1), "{formula}");
        assert!(output.stdout.is_empty());
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert!(stderr.contains(says), "{formula}: {stderr}");
    }
}

#[test]
fn a_freeroll_pays_no_places_and_a_formula_undefined_there_is_named() {
    // No pool: nobody is in the money, and the last place paid is 0, as scoring reads it.
    let output = league()
        .args(["formula", "preview", "mr * 100 + m * 10", "--entrants", "5"])
        .output()
        .unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(stdout.lines().all(|l| l.ends_with(" 0.00")), "{stdout}");
    // A formula the league could set, with no value at a buy-in of 0.
    let output = league()
        .args([
            "formula",
            "preview",
            "log10(pot)/sqrt(r/n)",
            "--entrants",
            "20",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains("no value for this field"), "{stderr}");
    // Output cut short by the reader is not a crash.
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_league"))
        .args(["formula", "preview", "n - r + 1", "--entrants", "10000"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let output = child.wait_with_output().unwrap();
    assert!(
        output.status.code().is_some_and(|c| c == 0),
        "{:?} {}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        output.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}
