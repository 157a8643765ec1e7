//! The end of a simulated season removed together with its seals and signed heads, as
//! someone who can write the database would: `league audit verify` alone answers `OK: no
//! break`; against the heads an auditor saved with `league audit tree-head` it fails and
//! names the last position left. On both backends.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "integration tests: a panic is the failure report"
)]
use std::process::{Command, Output};

use league_store::hash::to_hex;
use league_store::{SealerConfig, SigningKey, Store};

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

async fn the_end_removed_is_caught_against_a_saved_head(db: &str, dir: &std::path::Path) {
    let simulated = league(&[
        "simulate",
        "--database",
        db,
        "--venues",
        "2",
        "--weeks",
        "1",
        "--seed",
        "3",
    ]);
    assert!(simulated.status.success(), "{}", said(&simulated));
    // Sealed and signed as `league serve --signing-key` does: a head every 1,000 events,
    // and one of the whole log (the sealer signs one once its interval has passed).
    let key = SigningKey::from_bytes(&[7; 32]);
    let public = to_hex(key.verifying_key().as_bytes());
    let store = Store::open(db).await.unwrap();
    store
        .seal_all(&SealerConfig {
            signing_key: Some(key),
            sign_every_events: 1_000,
            sign_every: std::time::Duration::ZERO,
            max_leaves_per_round: 1_000,
            ..SealerConfig::default()
        })
        .await
        .unwrap();

    // The auditor keeps the heads.
    let heads = dir.join("heads.jsonl");
    let heads_arg = heads.to_str().unwrap();
    let saved = league(&[
        "audit",
        "tree-head",
        "--all",
        "--database",
        db,
        "--out",
        heads_arg,
    ]);
    assert!(saved.status.success(), "{}", said(&saved));
    let count = std::fs::read_to_string(&heads).unwrap().lines().count();
    assert!(count >= 2, "{count} heads");
    let clean = league(&[
        "audit",
        "verify",
        "--database",
        db,
        "--public-key",
        &public,
        "--tree-head",
        heads_arg,
    ]);
    assert_eq!(clean.status.code(), Some(0), "{}", said(&clean));
    let text = said(&clean);
    assert!(
        text.contains(&format!("saved tree heads:   {count} hold")),
        "{text}"
    );

    // The last 280 events, every seal and every signed head deleted.
    let all = store.read_all(0, 1_000_000).await.unwrap();
    let last_kept = all[all.len() - 281].position;
    store
        .execute_raw(&format!("DELETE FROM events WHERE position > {last_kept}"))
        .await
        .unwrap();
    store.execute_raw("DELETE FROM seals").await.unwrap();
    store.execute_raw("DELETE FROM tree_heads").await.unwrap();
    store.close().await;

    // What is left verifies: chains, hands, nothing sealed.
    let alone = league(&["audit", "verify", "--database", db]);
    assert_eq!(alone.status.code(), Some(0), "{}", said(&alone));
    assert!(said(&alone).contains("OK: no break"), "{}", said(&alone));
    // Against the saved heads it does not, and the position is named.
    let caught = league(&[
        "audit",
        "verify",
        "--database",
        db,
        "--public-key",
        &public,
        "--tree-head",
        heads_arg,
    ]);
    assert_eq!(caught.status.code(), Some(1), "{}", said(&caught));
    let text = said(&caught);
    assert!(
        text.contains("SAVED HEAD FAILS")
            && text.contains("were removed")
            && text.contains(&format!("after position {last_kept}")),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_sqlite_the_end_removed_is_caught_against_a_saved_head() {
    let dir = std::env::temp_dir().join(format!("league-tamper-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let db = format!("sqlite:{}", dir.join("l.db").display());
    the_end_removed_is_caught_against_a_saved_head(&db, &dir).await;
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_postgres_the_end_removed_is_caught_against_a_saved_head() {
    if !league_tests::postgres_is_configured() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("league-tamper-pg-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let server = std::env::var("LEAGUE_TEST_POSTGRES_URL").unwrap();
    let postgres = league_testkit::ScratchDatabase::new(&server).await.unwrap();
    the_end_removed_is_caught_against_a_saved_head(postgres.url(), &dir).await;
    postgres.drop_it().await;
    let _ = std::fs::remove_dir_all(&dir);
}
