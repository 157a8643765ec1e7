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
    let store = sealed_season(db).await;
    let public = public_key();

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

fn public_key() -> String {
    to_hex(SigningKey::from_bytes(&[7; 32]).verifying_key().as_bytes())
}

/// A simulated week at two venues, sealed and signed as `league serve --signing-key` does:
/// a head every 1,000 events, and one of the whole log (the sealer signs one once its
/// interval has passed).
async fn sealed_season(db: &str) -> Store {
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
    let store = Store::open(db).await.unwrap();
    store
        .seal_all(&SealerConfig {
            signing_key: Some(SigningKey::from_bytes(&[7; 32])),
            sign_every_events: 1_000,
            sign_every: std::time::Duration::ZERO,
            max_leaves_per_round: 1_000,
            ..SealerConfig::default()
        })
        .await
        .unwrap();
    store
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

/// The verdict lines of a verification (not the counts, which the two tools print
/// differently, nor `league audit verify`'s re-derivation of hands).
fn verdicts(output: &Output) -> Vec<String> {
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter(|l| {
            [
                "BROKEN",
                "OK:",
                "NOT COVERED",
                "SAVED HEAD FAILS",
                "... and",
            ]
            .iter()
            .any(|v| l.starts_with(v))
        })
        .map(str::to_owned)
        .collect()
}

/// `tools/verify_log.py` on the log exported from `db`, checked against the saved `heads`.
fn python_verify(db: &str, dir: &std::path::Path, heads: &str) -> Output {
    let export = dir.join("export");
    let _ = std::fs::remove_dir_all(&export);
    let exported = league(&[
        "audit",
        "export",
        "--format",
        "log",
        "--database",
        db,
        "--out",
        export.to_str().unwrap(),
    ]);
    assert!(exported.status.success(), "{}", said(&exported));
    let tool = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tools/verify_log.py");
    Command::new("python3")
        .arg(tool)
        .arg(&export)
        .args(["--public-key", &public_key(), "--tree-head", heads])
        .output()
        .unwrap()
}

/// One change made with SQL, as someone who can write the database would; the verdict both
/// tools must give.
struct Tamper {
    name: &'static str,
    sql: fn(&[league_store::RecordedEvent], bool) -> String,
    verdict: fn(&[league_store::RecordedEvent]) -> Vec<String>,
}

fn tampers() -> Vec<Tamper> {
    vec![
        Tamper {
            name: "nothing changed",
            sql: |_, _| String::new(),
            verdict: |_| vec!["OK: no break".into()],
        },
        Tamper {
            name: "a byte of a payload",
            sql: |all, pg| {
                let p = all[1500].position;
                if pg {
                    format!(
                        "UPDATE events SET payload = set_byte(payload, 2, 84) WHERE position = {p}"
                    )
                } else {
                    format!(
                        "UPDATE events SET payload = CAST(substr(payload, 1, 2) || 'T' || substr(payload, 4) AS BLOB) WHERE position = {p}"
                    )
                }
            },
            verdict: |all| {
                vec![format!(
                    "BROKEN at position {}: the event's hash does not match its contents",
                    all[1500].position
                )]
            },
        },
        Tamper {
            name: "an event deleted",
            sql: |all, _| format!("DELETE FROM events WHERE position = {}", all[1500].position),
            verdict: |all| {
                vec![format!(
                    "BROKEN at position {}: a sealed event is missing",
                    all[1500].position
                )]
            },
        },
        Tamper {
            name: "two events swapped",
            sql: |all, _| {
                let (a, b) = (all[1500].position, all[1501].position);
                format!(
                    "UPDATE events SET position = -1 WHERE position = {a}; \
                     UPDATE events SET position = {a} WHERE position = {b}; \
                     UPDATE events SET position = {b} WHERE position = -1;"
                )
            },
            verdict: |all| {
                vec![format!(
                    "BROKEN at position {}: the event differs from the sealed leaf",
                    all[1500].position
                )]
            },
        },
        Tamper {
            name: "a forged seal",
            sql: |_, _| {
                "UPDATE seals SET root = (SELECT root FROM seals WHERE seal_id = 1) WHERE seal_id = 2"
                    .into()
            },
            verdict: |all| {
                vec![format!(
                    "BROKEN at position {}: seal 2 is corrupt",
                    all[1000].position
                )]
            },
        },
        Tamper {
            name: "a signed head's root replaced",
            sql: |_, _| {
                "UPDATE tree_heads SET root = (SELECT root FROM seals WHERE seal_id = 1) WHERE tree_size = 2000"
                    .into()
            },
            verdict: |all| {
                vec![format!(
                    "BROKEN at position {}: the signed tree head of size 2000 does not match",
                    all[1999].position
                )]
            },
        },
        Tamper {
            name: "the end removed with the seals and heads",
            sql: |all, _| {
                format!(
                    "DELETE FROM events WHERE position > {}; DELETE FROM seals; DELETE FROM tree_heads;",
                    all[all.len() - 281].position
                )
            },
            verdict: |all| {
                let n = all.len();
                vec![
                    format!(
                        "NOT COVERED: {} events from position {} are covered by no signed tree head",
                        n - 280,
                        all[0].position
                    ),
                    "SAVED HEAD FAILS: ".into(),
                ]
            },
        },
    ]
}

/// Each change on a fresh season: `league audit verify` and `tools/verify_log.py` (on the
/// exported log) give the same verdict, naming the same position.
async fn python_agrees_on_every_change(
    fresh_db: &dyn Fn(usize) -> String,
    pg: bool,
    dir: &std::path::Path,
) {
    for (i, tamper) in tampers().into_iter().enumerate() {
        let db = fresh_db(i);
        let store = sealed_season(&db).await;
        let heads = dir.join(format!("heads-{i}.jsonl"));
        let heads = heads.to_str().unwrap();
        let saved = league(&[
            "audit",
            "tree-head",
            "--all",
            "--database",
            &db,
            "--out",
            heads,
        ]);
        assert!(saved.status.success(), "{}", said(&saved));
        let all = store.read_all(0, 1_000_000).await.unwrap();
        let sql = (tamper.sql)(&all, pg);
        if !sql.is_empty() {
            store.execute_raw(&sql).await.unwrap();
        }
        store.close().await;
        let rust = league(&[
            "audit",
            "verify",
            "--database",
            &db,
            "--public-key",
            &public_key(),
            "--tree-head",
            heads,
        ]);
        let python = python_verify(&db, dir, heads);
        let (r, p) = (verdicts(&rust), verdicts(&python));
        let expected = (tamper.verdict)(&all);
        // The verdicts begin with the expected ones (saved heads that cover the change
        // fail after them).
        assert!(
            r.len() >= expected.len(),
            "{}: {}",
            tamper.name,
            said(&rust)
        );
        for (line, want) in r.iter().zip(&expected) {
            assert!(
                line.starts_with(want.as_str()),
                "{}: {line} is not {want}\n{}",
                tamper.name,
                said(&rust)
            );
        }
        assert_eq!(r, p, "{}:\n{}\n{}", tamper.name, said(&rust), said(&python));
        assert_eq!(
            rust.status.code(),
            python.status.code(),
            "{}:\n{}\n{}",
            tamper.name,
            said(&rust),
            said(&python)
        );
        let code = if tamper.name == "nothing changed" {
            0
        } else {
            1
        };
        assert_eq!(
            rust.status.code(),
            Some(code),
            "{}: {}",
            tamper.name,
            said(&rust)
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_sqlite_the_python_verifier_agrees_on_every_change() {
    let dir = std::env::temp_dir().join(format!("league-verify-py-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let at = dir.clone();
    let fresh = move |i: usize| format!("sqlite:{}", at.join(format!("l{i}.db")).display());
    python_agrees_on_every_change(&fresh, false, &dir).await;
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_postgres_the_python_verifier_agrees_on_every_change() {
    if !league_tests::postgres_is_configured() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("league-verify-py-pg-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let server = std::env::var("LEAGUE_TEST_POSTGRES_URL").unwrap();
    let mut databases = Vec::new();
    for _ in tampers() {
        databases.push(league_testkit::ScratchDatabase::new(&server).await.unwrap());
    }
    let urls: Vec<String> = databases.iter().map(|d| d.url().to_owned()).collect();
    let fresh = move |i: usize| urls[i].clone();
    python_agrees_on_every_change(&fresh, true, &dir).await;
    for d in databases {
        d.drop_it().await;
    }
    let _ = std::fs::remove_dir_all(&dir);
}
