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
        ("100 / (n - r)", "division by zero"),
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
