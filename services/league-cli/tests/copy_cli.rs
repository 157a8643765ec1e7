//! `league copy` moves a league from the SQLite default to PostgreSQL with its history: a
//! simulated season, sealed and signed by a service that ran on it, copied into a new
//! PostgreSQL database audits as the original (`league audit verify` against the league's
//! public key, on both), rebuilds to the same read models, keeps its tokens, and copies
//! back to SQLite the same way. A copy into a database that holds anything is refused.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "integration tests: a panic is the failure report"
)]

mod common;

use std::process::{Command, Output};
use std::time::{Duration, Instant};

use league_store::hash::to_hex;
use league_store::{SigningKey, Store};

fn league(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_league"))
        .args(args)
        .output()
        .unwrap()
}

fn said(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// The audit's lines that describe the log (not the timing of its unsigned end).
fn audited(output: &Output) -> Vec<String> {
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter(|l| !l.starts_with("those events are younger"))
        .map(str::to_owned)
        .collect()
}

#[actix_web::test]
async fn a_season_moves_from_sqlite_to_postgres_and_back_intact() {
    if !league_tests::postgres_is_configured() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("league-copy-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let sqlite = format!("sqlite:{}", dir.join("league.db").display());
    let back = format!("sqlite:{}", dir.join("back.db").display());
    let server = std::env::var("LEAGUE_TEST_POSTGRES_URL").unwrap();
    let postgres = league_testkit::ScratchDatabase::new(&server).await.unwrap();

    // A season on SQLite, then a service on it that seals and signs it, and a token.
    let simulated = league(&[
        "simulate",
        "--database",
        &sqlite,
        "--venues",
        "3",
        "--weeks",
        "2",
    ]);
    assert!(simulated.status.success(), "{}", said(&simulated));
    let key = SigningKey::from_bytes(&common::SIGNING_SEED);
    let public = to_hex(key.verifying_key().as_bytes());
    let store = Store::open(&sqlite).await.unwrap();
    let events = store.last_position().await.unwrap().unwrap();
    {
        let (_service, _) = common::serve(&sqlite);
        let started = Instant::now();
        while store
            .tree_heads()
            .await
            .unwrap()
            .last()
            .is_none_or(|h| h.tree_size != events)
        {
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "no signed head covers the log"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
    let token = league(&[
        "token",
        "create",
        "--database",
        &sqlite,
        "--role",
        "auditor",
    ]);
    assert!(token.status.success(), "{}", said(&token));
    let original_models = store.read_models(league_app::PROJECTION).await.unwrap();
    store.close().await;

    // The copy, audited on both sides against the league's public key.
    let copied = league(&["copy", "--from", &sqlite, "--to", postgres.url()]);
    assert!(copied.status.success(), "{}", said(&copied));
    assert!(
        said(&copied).contains(&format!("copied {events} events")),
        "{}",
        said(&copied)
    );
    let verify = |url: &str| {
        league(&[
            "audit",
            "verify",
            "--database",
            url,
            "--public-key",
            &public,
        ])
    };
    let (before, after) = (verify(&sqlite), verify(postgres.url()));
    assert!(before.status.success(), "{}", said(&before));
    assert!(after.status.success(), "{}", said(&after));
    assert_eq!(audited(&before), audited(&after));
    assert!(
        String::from_utf8_lossy(&after.stdout).contains(&format!("signed tree size:   {events}")),
        "{}",
        said(&after)
    );

    // The same read models, stored and rebuilt; the token works on the copy.
    let copy = Store::open(postgres.url()).await.unwrap();
    assert_eq!(
        copy.read_models(league_app::PROJECTION).await.unwrap(),
        original_models
    );
    let tokens = league(&["token", "list", "--database", postgres.url()]);
    assert!(
        String::from_utf8_lossy(&tokens.stdout).contains("auditor"),
        "{}",
        said(&tokens)
    );
    let rebuilt = league(&["rebuild", "--check", "--database", postgres.url()]);
    assert!(
        rebuilt.status.success() && said(&rebuilt).contains("identical"),
        "{}",
        said(&rebuilt)
    );

    // And back to SQLite, intact.
    let returned = league(&["copy", "--from", postgres.url(), "--to", &back]);
    assert!(returned.status.success(), "{}", said(&returned));
    let back_verified = verify(&back);
    assert!(back_verified.status.success(), "{}", said(&back_verified));

    // Into a database that holds anything: refused, and nothing changes.
    let again = league(&["copy", "--from", &sqlite, "--to", postgres.url()]);
    assert!(!again.status.success());
    assert!(said(&again).contains("not empty"), "{}", said(&again));

    // A copy appends where the original would: the log goes on, and still verifies.
    copy.append(
        "notes",
        league_store::ExpectedVersion::Any,
        &[league_store::NewEvent::new("Noted", b"{\"n\":1}".to_vec())],
        None,
    )
    .await
    .unwrap();
    assert_eq!(
        copy.verify(0, u64::MAX, None).await.unwrap().first_break,
        None
    );
    copy.close().await;

    postgres.drop_it().await;
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_copy_from_nothing_is_refused_and_creates_nothing() {
    let dir = std::env::temp_dir().join(format!("league-copy-none-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let missing = dir.join("leage.db");
    let target = format!("sqlite:{}", dir.join("target.db").display());
    let refused = league(&[
        "copy",
        "--from",
        &format!("sqlite:{}", missing.display()),
        "--to",
        &target,
    ]);
    assert!(!refused.status.success());
    assert!(
        said(&refused).contains("no such file"),
        "{}",
        said(&refused)
    );
    assert!(!missing.exists(), "the mistyped source was created");

    // A store with no events is nothing to copy.
    let empty = format!("sqlite:{}", dir.join("empty.db").display());
    let migrated = league(&["migrate", "--database", &empty]);
    assert!(migrated.status.success(), "{}", said(&migrated));
    let refused = league(&["copy", "--from", &empty, "--to", &target]);
    assert!(!refused.status.success());
    assert!(
        said(&refused).contains("holds no events"),
        "{}",
        said(&refused)
    );
    let _ = std::fs::remove_dir_all(&dir);
}
