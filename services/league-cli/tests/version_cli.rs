//! `league --version`: the release, and what it reads and writes.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "integration tests: a panic is the failure report"
)]
use std::process::Command;

#[test]
fn version_prints_the_release_the_event_versions_and_the_migrations() {
    let output = Command::new(env!("CARGO_BIN_EXE_league"))
        .arg("--version")
        .output()
        .unwrap();
    assert!(output.status.success());
    let stdout = String::from_utf8(output.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines[0],
        format!("league {}", env!("CARGO_PKG_VERSION")),
        "{stdout}"
    );
    assert!(lines[1].starts_with("events read and written"), "{stdout}");
    for t in league_events::CATALOGUE {
        let line = lines
            .iter()
            .find(|l| l.trim_start().starts_with(&format!("{}:", t.kind)))
            .unwrap_or_else(|| panic!("no {} line: {stdout}", t.kind));
        assert!(
            line.contains(&format!(" {} {}", t.name, t.version)),
            "{} {}: {stdout}",
            t.name,
            t.version
        );
    }
    let migrations = league_store::migrator(league_store::Backend::Sqlite)
        .iter()
        .count();
    assert_eq!(
        lines.last().unwrap(),
        &format!("database migrations: 1 to {migrations}"),
        "{stdout}"
    );
    // `-V` is the short form: the release alone.
    let short = Command::new(env!("CARGO_BIN_EXE_league"))
        .arg("-V")
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8(short.stdout).unwrap(),
        format!("league {}\n", env!("CARGO_PKG_VERSION"))
    );
}
