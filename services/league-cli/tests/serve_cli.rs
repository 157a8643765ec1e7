//! `league serve` runs the sealer: what a running service appends is sealed into the Merkle
//! tree and its tree heads are signed with the league's key, so `league audit verify`
//! checks them against the public key the service printed.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "integration tests: a panic is the failure report"
)]
use std::io::{BufRead as _, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use league_store::hash::to_hex;
use league_store::{ExpectedVersion, NewEvent, SigningKey, Store};

fn league() -> Command {
    Command::new(env!("CARGO_BIN_EXE_league"))
}

/// Kills the server when the test ends, however it ends.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn the_service_seals_what_is_appended_and_signs_tree_heads_with_the_league_key() {
    let dir = std::env::temp_dir().join(format!("league-serve-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let db = format!("sqlite:{}", dir.join("league.db").display());
    let seed = [7u8; 32];
    let public = to_hex(SigningKey::from_bytes(&seed).verifying_key().as_bytes());

    // A key that is not 32 bytes of hex is refused before anything starts.
    let refused = league()
        .args([
            "serve",
            "--database",
            &db,
            "--port",
            "0",
            "--signing-key",
            "abc",
        ])
        .output()
        .unwrap();
    assert!(!refused.status.success());
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("signing key"),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );

    // Publishing heads needs a key to sign them.
    let published = dir.join("heads.jsonl");
    let refused = league()
        .args([
            "serve",
            "--database",
            &db,
            "--port",
            "0",
            "--publish-tree-heads",
        ])
        .arg(&published)
        .env_remove("LEAGUE_SIGNING_KEY")
        .output()
        .unwrap();
    assert!(!refused.status.success());
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("needs --signing-key"),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );

    let mut child = league()
        .args([
            "serve",
            "--database",
            &db,
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--publish-tree-heads",
        ])
        .arg(&published)
        .env("LEAGUE_SIGNING_KEY", to_hex(&seed))
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let server = Server(child);
    let mut lines = BufReader::new(stderr).lines();
    let mut announced = String::new();
    for line in lines.by_ref() {
        let line = line.unwrap();
        announced.push_str(&line);
        announced.push('\n');
        if line.contains("serving http://") {
            break;
        }
    }
    assert!(
        announced.contains(&format!("tree heads signed with public key {public}")),
        "{announced}"
    );
    // Keep draining the server's output so it never blocks on a full pipe.
    std::thread::spawn(move || for _ in lines {});

    let rt = tokio::runtime::Runtime::new().unwrap();
    let head_line = rt.block_on(async {
        // Another process appends to the same database, as a second instance would.
        let store = Store::open(&db).await.unwrap();
        for n in 0..5 {
            let event = NewEvent::new("Noted", format!("{{\"n\":{n}}}").into_bytes());
            store
                .append("notes", ExpectedVersion::Any, &[event], None)
                .await
                .unwrap();
        }
        let started = Instant::now();
        let head = loop {
            let heads = store.tree_heads().await.unwrap();
            if let Some(head) = heads.last().filter(|h| h.tree_size == 5) {
                break head.clone();
            }
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "no signed head of the 5 events: {heads:?}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        };
        assert_eq!(to_hex(&head.public_key), public);
        assert!(head.verify(&SigningKey::from_bytes(&seed).verifying_key()));
        // The server published it outside the database, once its round committed.
        let line = head.to_json();
        loop {
            let text = std::fs::read_to_string(&published).unwrap_or_default();
            if text.lines().last() == Some(line.as_str()) {
                break;
            }
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "the head of 5 was not published: {text}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        store.close().await;
        line
    });
    drop(server);

    // `league audit tree-head` prints the same head.
    let printed = league()
        .args(["audit", "tree-head", "--database", &db])
        .output()
        .unwrap();
    assert!(printed.status.success());
    assert_eq!(String::from_utf8_lossy(&printed.stdout).trim(), head_line);

    let audit = league()
        .args([
            "audit",
            "verify",
            "--database",
            &db,
            "--public-key",
            &public,
            "--tree-head",
        ])
        .arg(&published)
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&audit.stdout).contains("saved tree heads:"),
        "{}",
        String::from_utf8_lossy(&audit.stdout)
    );
    assert!(
        audit.status.success(),
        "{}{}",
        String::from_utf8_lossy(&audit.stdout),
        String::from_utf8_lossy(&audit.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `league audit verify --public-key` exits 3 (not OK) when the end of the log is covered
/// by no tree head signed with the key: events appended after the last head, or heads
/// stripped from the database; and says when the unsigned events are merely younger than
/// the sealing interval.
#[test]
fn a_log_no_signed_head_covers_fails_the_audit_with_its_own_code() {
    let dir = std::env::temp_dir().join(format!("league-uncovered-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let key = SigningKey::from_bytes(&[9u8; 32]);
    let public = to_hex(key.verifying_key().as_bytes());
    let audit = |db: &str| {
        let out = league()
            .args(["audit", "verify", "--database", db, "--public-key", &public])
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    let an_hour_ago = league_store::Timestamp::from_micros(
        i64::try_from(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_micros(),
        )
        .unwrap()
            - 3_600_000_000,
    );
    let sealer = league_store::SealerConfig {
        signing_key: Some(key.clone()),
        sign_every_events: 1,
        ..league_store::SealerConfig::default()
    };
    let rt = tokio::runtime::Runtime::new().unwrap();

    // Three events an hour old, sealed and signed: OK.
    let db = format!("sqlite:{}", dir.join("old.db").display());
    rt.block_on(notes(&db, 0..3, Some(an_hour_ago), Some(&sealer)));
    let (code, out) = audit(&db);
    assert_eq!(code, Some(0), "{out}");
    assert!(
        out.contains("OK: no break") && out.contains("signed tree size:   3"),
        "{out}"
    );

    // Two more, an hour old, that no head covers: the end of the log could have been
    // rewritten unseen.
    rt.block_on(notes(&db, 3..5, Some(an_hour_ago), None));
    let (code, out) = audit(&db);
    assert_eq!(code, Some(3), "{out}");
    assert!(out.contains("NOT COVERED: 2 events from position"), "{out}");
    assert!(!out.contains("younger"), "{out}");

    // The signed heads deleted: nothing is covered.
    rt.block_on(async {
        let store = Store::open(&db).await.unwrap();
        store.execute_raw("DELETE FROM tree_heads").await.unwrap();
        store.close().await;
    });
    let (code, out) = audit(&db);
    assert_eq!(code, Some(3), "{out}");
    assert!(out.contains("NOT COVERED: 5 events from position"), "{out}");

    // A log just written, before the sealer's interval has passed: said so, still not OK.
    let young = format!("sqlite:{}", dir.join("young.db").display());
    rt.block_on(notes(&young, 0..1, None, None));
    let (code, out) = audit(&young);
    assert_eq!(code, Some(3), "{out}");
    assert!(out.contains("younger than the sealing interval"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Appends a `Noted` event for each of `ns` to the log at `db`, recorded at `at` (the
/// store's clock when `None`), then seals with `sealer` if given.
async fn notes(
    db: &str,
    ns: std::ops::Range<u32>,
    at: Option<league_store::Timestamp>,
    sealer: Option<&league_store::SealerConfig>,
) {
    let store = Store::open(db).await.unwrap();
    for n in ns {
        let event = NewEvent::new("Noted", format!("{{\"n\":{n}}}").into_bytes()).with_metadata(
            league_store::Metadata {
                actor: None,
                correlation_id: None,
                causation_id: None,
                recorded_at: at,
            },
        );
        store
            .append("notes", ExpectedVersion::Any, &[event], None)
            .await
            .unwrap();
    }
    if let Some(sealer) = sealer {
        store.seal_all(sealer).await.unwrap();
    }
    store.close().await;
}
