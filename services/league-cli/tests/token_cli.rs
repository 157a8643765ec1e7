//! `league token`: each role's lifetime is the deployment's to choose, from a flag or the
//! environment, for new tokens and renewals alike; `--expires-in` still wins.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "integration tests: a panic is the failure report"
)]
use std::process::Command;

use league_store::Timestamp;

fn league(database: &str, args: &[&str], env: &[(&str, &str)]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_league"))
        .args(args)
        .args(["--database", database])
        .env_remove("LEAGUE_ADMIN_TOKEN_LIFETIME")
        .env_remove("LEAGUE_AUDITOR_TOKEN_LIFETIME")
        .envs(env.iter().copied())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

/// The expiry `league token list` shows for each token, by role.
fn expiries(database: &str) -> Vec<(String, String)> {
    league(database, &["token", "list"], &[])
        .lines()
        .skip(1)
        .map(|l| {
            let cols: Vec<&str> = l.split('\t').collect();
            (cols[1].to_owned(), cols[5].to_owned())
        })
        .collect()
}

/// The date (`YYYY-MM-DD`) `days` from now, as the list prints it.
fn day_in(days: i64) -> String {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_micros();
    let then = i64::try_from(now).unwrap() + days * 86_400 * 1_000_000;
    Timestamp::from_micros(then).utc()[..10].to_owned()
}

#[test]
fn role_lifetimes_come_from_the_deployment_and_expires_in_still_wins() {
    let dir = std::env::temp_dir().join(format!("league-tokens-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let database = format!("sqlite:{}", dir.join("league.db").display());
    league(&database, &["migrate"], &[]);

    // The defaults: an admin's 30 days.
    league(&database, &["token", "create", "--role", "admin"], &[]);
    // The environment sets an admin's to 7 days, a flag an auditor's to 2.
    league(
        &database,
        &["token", "create", "--role", "admin"],
        &[("LEAGUE_ADMIN_TOKEN_LIFETIME", "7d")],
    );
    league(
        &database,
        &[
            "token",
            "create",
            "--role",
            "auditor",
            "--auditor-lifetime",
            "2d",
        ],
        &[],
    );
    // A token's own `--expires-in` wins over the role's.
    league(
        &database,
        &["token", "create", "--role", "admin", "--expires-in", "3d"],
        &[("LEAGUE_ADMIN_TOKEN_LIFETIME", "7d")],
    );
    let listed = expiries(&database);
    let days: Vec<(&str, String)> = listed
        .iter()
        .map(|(r, at)| (r.as_str(), at[..10].to_owned()))
        .collect();
    // Dates, not moments: a test running across midnight may see the day after.
    let near = |got: &str, days: i64| got == day_in(days) || got == day_in(days - 1);
    assert_eq!(days.len(), 4, "{listed:?}");
    assert!(
        days.iter().any(|(r, d)| *r == "admin" && near(d, 30)),
        "{listed:?}"
    );
    assert!(
        days.iter().any(|(r, d)| *r == "admin" && near(d, 7)),
        "{listed:?}"
    );
    assert!(
        days.iter().any(|(r, d)| *r == "auditor" && near(d, 2)),
        "{listed:?}"
    );
    assert!(
        days.iter().any(|(r, d)| *r == "admin" && near(d, 3)),
        "{listed:?}"
    );

    // A renewal takes the role's lifetime from the deployment too.
    let auditor = league(&database, &["token", "list"], &[])
        .lines()
        .find(|l| l.split('\t').nth(1) == Some("auditor"))
        .map(|l| l.split('\t').next().unwrap().to_owned())
        .unwrap();
    league(
        &database,
        &["token", "renew", &auditor],
        &[("LEAGUE_AUDITOR_TOKEN_LIFETIME", "5d")],
    );
    let renewed = expiries(&database)
        .into_iter()
        .find(|(r, _)| r == "auditor")
        .unwrap();
    assert!(near(&renewed.1[..10], 5), "{renewed:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}
