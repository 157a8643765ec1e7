//! One suite, two engines: every test here runs on SQLite and on PostgreSQL.
//!
//! PostgreSQL tests read `LEAGUE_TEST_POSTGRES_URL` and give each test a fresh schema,
//! dropped afterwards. Without the variable they say by name that they were skipped, unless
//! `LEAGUE_REQUIRE_POSTGRES=1` (CI), when a missing or unreachable server fails them.
#![expect(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "clippy.toml allows these in #[test] fns only; the async bodies here are tests too"
)]

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::{BufRead as _, BufReader, Write as _};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use league_store::merkle;
use league_store::{
    BreakKind, Clock, EventId, ExpectedVersion, MAX_BATCH_EVENTS, MAX_PAYLOAD_BYTES, Metadata,
    NewEvent, RecordedEvent, SavedHeadOutcome, SealerConfig, SigningKey, Store, StoreError,
    StoreOptions, Timestamp, TrustedKeys, parse_heads,
};
use sqlx::Connection as _;

// ---------------------------------------------------------------------------------------
// Harness

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Sqlite,
    Postgres,
}

/// A deterministic clock: 1,000,000 us, then +1 us per call.
#[derive(Debug, Default)]
struct StepClock(AtomicI64);

impl Clock for StepClock {
    fn now(&self) -> Timestamp {
        Timestamp::from_micros(1_000_000 + self.0.fetch_add(1, Ordering::Relaxed))
    }
}

struct TestDb {
    kind: Kind,
    url: String,
    schema: Option<String>,
    file: Option<std::path::PathBuf>,
}

static COUNTER: AtomicU64 = AtomicU64::new(0);

fn unique(name: &str) -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    format!(
        "{}_{}_{}_{}",
        name.chars().take(30).collect::<String>(),
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed),
        nanos
    )
    .to_lowercase()
}

/// Writes past the test harness's output capture, so a skip is visible in a normal run.
fn say(line: &str) {
    let _ = writeln!(std::io::stderr(), "{line}");
}

impl TestDb {
    async fn new(kind: Kind, name: &str) -> Option<Self> {
        match kind {
            Kind::Sqlite => {
                let path = std::env::temp_dir().join(format!("league-store-{}.db", unique(name)));
                Some(Self {
                    kind,
                    url: format!("sqlite:{}", path.display()),
                    schema: None,
                    file: Some(path),
                })
            }
            Kind::Postgres => {
                let required = std::env::var("LEAGUE_REQUIRE_POSTGRES").is_ok_and(|v| v == "1");
                let Ok(url) = std::env::var("LEAGUE_TEST_POSTGRES_URL") else {
                    assert!(
                        !required,
                        "LEAGUE_REQUIRE_POSTGRES=1 but LEAGUE_TEST_POSTGRES_URL is not set"
                    );
                    say(&format!(
                        "SKIPPED postgres::{name}: LEAGUE_TEST_POSTGRES_URL is not set"
                    ));
                    return None;
                };
                let schema = format!("t_{}", unique(name));
                let conn = sqlx::PgConnection::connect(&url).await;
                let mut conn = match conn {
                    Ok(c) => c,
                    Err(e) => {
                        assert!(!required, "cannot reach PostgreSQL at {url}: {e}");
                        say(&format!(
                            "SKIPPED postgres::{name}: cannot reach {url}: {e}"
                        ));
                        return None;
                    }
                };
                sqlx::raw_sql(sqlx::AssertSqlSafe(format!("CREATE SCHEMA {schema}")))
                    .execute(&mut conn)
                    .await
                    .unwrap();
                conn.close().await.unwrap();
                Some(Self {
                    kind,
                    url,
                    schema: Some(schema),
                    file: None,
                })
            }
        }
    }

    fn options(&self) -> StoreOptions {
        StoreOptions {
            clock: Arc::new(StepClock::default()),
            pg_schema: self.schema.clone(),
            poll_interval: Duration::from_millis(200),
            ..StoreOptions::default()
        }
    }

    async fn open(&self) -> Store {
        Store::open_with(&self.url, self.options()).await.unwrap()
    }

    async fn cleanup(self) {
        // Dropping does it; also when a test panics half-way.
        drop(self);
    }
}

impl Drop for TestDb {
    fn drop(&mut self) {
        if let Some(file) = &self.file {
            for suffix in ["", "-wal", "-shm"] {
                let _ = std::fs::remove_file(format!("{}{suffix}", file.display()));
            }
        }
        let Some(schema) = self.schema.take() else {
            return;
        };
        let url = self.url.clone();
        // A thread of its own: this may run inside the test's runtime, even while unwinding.
        let _ = std::thread::spawn(move || {
            let Ok(rt) = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            else {
                return;
            };
            rt.block_on(async move {
                if let Ok(mut conn) = sqlx::PgConnection::connect(&url).await {
                    let sql = format!("SET lock_timeout = '10s'; DROP SCHEMA {schema} CASCADE");
                    let _ = sqlx::raw_sql(sqlx::AssertSqlSafe(sql))
                        .execute(&mut conn)
                        .await;
                }
            });
        })
        .join();
    }
}

/// A token's revocation is announced to every instance: on PostgreSQL another instance's
/// token generation moves (so its cache of checked tokens is dropped); SQLite has none (its
/// callers read every token from the file).
async fn a_revocation_is_announced_to_every_instance(db: &TestDb) {
    let (a, b) = (db.open().await, db.open().await);
    let hash = [7u8; 32];
    let at = |micros: i64| league_store::Timestamp::from_micros(micros);
    let expires = at(a.now().as_micros() + 3_600_000_000);
    let token = league_store::NewToken {
        id: "tok_revoked",
        hash: &hash,
        role: "admin",
        venue: None,
        player: None,
        league: Some("apl"),
        expires_at: Some(expires),
    };
    a.insert_token(&token).await.unwrap();
    // Its scope and expiry are kept, and a renewal moves the expiry.
    let stored = b.token_by_hash(&hash).await.unwrap().unwrap();
    assert_eq!(stored.league.as_deref(), Some("apl"));
    assert_eq!(stored.expires_at, Some(expires));
    assert!(!stored.expired(at(expires.as_micros() - 1)) && stored.expired(expires));
    let later = at(expires.as_micros() + 86_400_000_000);
    assert!(a.renew_token("tok_revoked", later).await.unwrap());
    assert_eq!(
        b.token_by_hash(&hash).await.unwrap().unwrap().expires_at,
        Some(later)
    );
    assert!(!a.renew_token("tok_none", later).await.unwrap());
    if db.kind == Kind::Sqlite {
        assert_eq!(b.token_generation(), None);
        assert!(a.revoke_token("tok_revoked").await.unwrap());
        assert!(!a.renew_token("tok_revoked", later).await.unwrap());
        return;
    }
    // Once b's listener is connected (it bumps the generation when it connects).
    let started = std::time::Instant::now();
    while b.token_generation() == Some(0) {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "b never listens"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let before = b.token_generation();
    assert!(a.revoke_token("tok_revoked").await.unwrap());
    let started = std::time::Instant::now();
    while b.token_generation() == before {
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "the revocation never reached the other instance"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert!(
        b.token_by_hash(&hash)
            .await
            .unwrap()
            .unwrap()
            .revoked_at
            .is_some(),
        "it reads the revocation"
    );
}

/// Instantiates each `async fn name(db: &TestDb)` once per backend.
macro_rules! on_both_backends {
    ($($name:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
                async fn $name() {
                    if let Some(db) = super::TestDb::new(super::Kind::Sqlite, stringify!($name)).await {
                        super::$name(&db).await;
                        db.cleanup().await;
                    }
                }
            )*
        }
        mod postgres {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
                async fn $name() {
                    if let Some(db) = super::TestDb::new(super::Kind::Postgres, stringify!($name)).await {
                        super::$name(&db).await;
                        db.cleanup().await;
                    }
                }
            )*
        }
    };
}

on_both_backends!(
    saved_heads_catch_what_the_database_no_longer_shows,
    appending_then_reading_returns_the_exact_bytes_and_a_chain,
    a_wrong_expected_version_is_a_typed_conflict_and_appends_nothing,
    a_repeated_idempotency_key_returns_the_original_positions,
    bad_input_is_refused_with_a_typed_error_and_appends_nothing,
    eight_writers_and_a_subscriber_see_one_gap_free_order,
    of_racing_appends_to_one_version_exactly_one_wins,
    a_killed_writer_loses_no_acknowledged_append,
    verify_reports_tampering_at_the_right_position,
    every_event_has_an_id_that_its_hash_covers,
    proofs_from_the_store_verify_against_signed_heads,
    a_subscriber_in_another_instance_is_woken_by_the_sealer,
    an_open_older_transaction_holds_readers_back_instead_of_letting_them_skip,
    two_sealers_never_seal_the_same_leaves_and_a_forged_head_is_caught,
    bulk_reads_of_the_log_equal_row_by_row_reads_of_its_streams,
    large_pages_read_while_appending_and_across_gaps,
    bulk_reads_cut_short_leave_every_pooled_connection_usable,
    a_subscriber_far_behind_catches_up_with_what_small_pages_get,
    many_writers_at_once_are_written_together_and_every_append_stays_exact,
    a_log_a_newer_release_wrote_to_is_read_but_never_appended_to,
    a_revocation_is_announced_to_every_instance,
    a_rotated_key_verifies_with_each_key_from_its_tree_size,
    a_lost_listener_connection_moves_the_token_generation,
    a_checkpoint_behind_the_stored_one_writes_nothing,
);

/// Two instances write their checkpoints to one projection set: one that lags writes
/// nothing over the newer one (its documents and snapshots would be older), one at the
/// same position or ahead writes; a rebuild replaces whatever is stored.
async fn a_checkpoint_behind_the_stored_one_writes_nothing(db: &TestDb) {
    use league_store::{CheckpointMove, ReadModelDoc, Snapshot};
    let (a, b) = (db.open().await, db.open().await);
    let doc = |v: &str| ReadModelDoc {
        kind: "table".into(),
        key: "t/1".into(),
        doc: v.as_bytes().to_vec(),
    };
    let snapshot = |version: u64| Snapshot {
        stream: "tournament:t".into(),
        version,
        format: 1,
        state: b"{}".to_vec(),
        digest: vec![version.to_le_bytes()[0]],
    };
    let forward = |p: u64| (p, CheckpointMove::Forward);
    assert!(
        a.put_read_models("p", forward(10), &[doc("ten")], &[snapshot(10)])
            .await
            .unwrap()
    );
    // Behind: nothing of it is written.
    assert!(
        !b.put_read_models("p", forward(7), &[doc("seven")], &[snapshot(7)])
            .await
            .unwrap()
    );
    let (checkpoint, docs) = a.read_models("p").await.unwrap();
    assert_eq!((checkpoint, docs), (Some(10), vec![doc("ten")]));
    let (_, snapshots) = a.read_snapshots("p").await.unwrap();
    assert_eq!(snapshots, vec![snapshot(10)]);
    // At the same position (a restart that folded a snapshot again) and ahead: written.
    assert!(
        b.put_read_models("p", forward(10), &[doc("ten again")], &[])
            .await
            .unwrap()
    );
    assert!(
        b.put_read_models("p", forward(12), &[doc("twelve")], &[snapshot(12)])
            .await
            .unwrap()
    );
    let (checkpoint, docs) = a.read_models("p").await.unwrap();
    assert_eq!((checkpoint, docs), (Some(12), vec![doc("twelve")]));
    // A rebuild writes at its own position, whatever is stored.
    assert!(
        a.put_read_models("p", (5, CheckpointMove::Replace), &[doc("five")], &[])
            .await
            .unwrap()
    );
    assert_eq!(a.read_models("p").await.unwrap().0, Some(5));
    // Another projection set is apart.
    assert!(b.put_read_models("q", forward(1), &[], &[]).await.unwrap());
    a.close().await;
    b.close().await;
}

/// PostgreSQL: when the connection that listens for revocations is lost, a revocation
/// announced meanwhile would be missed, so the token generation moves (every checked token
/// is read again). `PgListener::recv` reconnected silently and it did not.
async fn a_lost_listener_connection_moves_the_token_generation(db: &TestDb) {
    if db.kind == Kind::Sqlite {
        return;
    }
    let mut conn = sqlx::PgConnection::connect(&db.url).await.unwrap();
    let listeners = "SELECT pid FROM pg_stat_activity \
        WHERE datname = current_database() AND query LIKE 'LISTEN%'";
    let before: Vec<i32> = sqlx::query_scalar(listeners)
        .fetch_all(&mut conn)
        .await
        .unwrap();
    let store = db.open().await;
    let started = Instant::now();
    while store.token_generation() == Some(0) {
        assert!(started.elapsed() < Duration::from_secs(10), "never listens");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let ours: Vec<i32> = loop {
        let now: Vec<i32> = sqlx::query_scalar(listeners)
            .fetch_all(&mut conn)
            .await
            .unwrap();
        let new: Vec<i32> = now.into_iter().filter(|p| !before.contains(p)).collect();
        if !new.is_empty() {
            break new;
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "no LISTEN seen"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    let generation = store.token_generation();
    for pid in ours {
        sqlx::query("SELECT pg_terminate_backend($1)")
            .bind(pid)
            .execute(&mut conn)
            .await
            .unwrap();
    }
    let started = Instant::now();
    while store.token_generation() == generation {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "the lost listener went unnoticed"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    conn.close().await.unwrap();
}

/// A league that rotates its signing key (a restart with a new key) gives the audit each
/// key with the first tree size it signed: the log verifies then, and not with either key
/// alone nor with the boundary misplaced.
async fn a_rotated_key_verifies_with_each_key_from_its_tree_size(db: &TestDb) {
    let (store, _) = sealed_log(db).await;
    let old = key().verifying_key();
    let rotated_at = store.tree_heads().await.unwrap().last().unwrap().tree_size + 1;
    let new_key = SigningKey::from_bytes(&[43; 32]);
    for i in 0..10 {
        store
            .append(
                "s9",
                ExpectedVersion::Any,
                &[ev("T", &format!("{i}"))],
                None,
            )
            .await
            .unwrap();
    }
    settle(&store).await;
    let config = SealerConfig {
        signing_key: Some(new_key.clone()),
        ..sealer(7, 9)
    };
    store.seal_all(&config).await.unwrap();
    let new = new_key.verifying_key();
    let first_new = store
        .tree_heads()
        .await
        .unwrap()
        .iter()
        .map(|h| h.tree_size)
        .find(|size| *size >= rotated_at)
        .unwrap();
    let check = |keys: Vec<(u64, league_store::VerifyingKey)>| {
        let store = store.clone();
        async move {
            let keys = league_store::TrustedKeys::new(keys).unwrap();
            store
                .verify_with_keys(0, u64::MAX, Some(&keys))
                .await
                .unwrap()
        }
    };
    let both = check(vec![(0, old), (rotated_at, new)]).await;
    assert_eq!(both.first_break, None, "{both}");
    let last = store.tree_heads().await.unwrap().last().unwrap().tree_size;
    assert!(last >= first_new && both.signed_size == last, "{both}");
    for wrong in [
        vec![(0, old)],
        vec![(0, new)],
        vec![(0, old), (first_new + 1, new)],
        vec![(0, old), (rotated_at - 1, new)],
    ] {
        let report = check(wrong).await;
        assert!(
            matches!(
                report.first_break.as_ref().map(|b| &b.kind),
                Some(BreakKind::TreeHeadMismatch { .. })
            ),
            "{report}"
        );
    }
    assert!(league_store::TrustedKeys::new(vec![(5, old)]).is_err());
    assert!(league_store::TrustedKeys::new(vec![(0, old), (0, new)]).is_err());
}

/// Each release that appends is recorded once; a build refuses to append to a log that a
/// newer release has appended to (reads go on), and to a database a newer release migrated.
async fn a_log_a_newer_release_wrote_to_is_read_but_never_appended_to(db: &TestDb) {
    let store = db.open().await;
    assert_eq!(store.releases().await.unwrap(), Vec::new());
    store
        .append("s", ExpectedVersion::NoStream, &[ev("A", "{}")], None)
        .await
        .unwrap();
    store
        .append("s", ExpectedVersion::Exact(1), &[ev("A", "{}")], None)
        .await
        .unwrap();
    let releases = store.releases().await.unwrap();
    assert_eq!(releases.len(), 1, "{releases:?}");
    assert_eq!(releases[0].0, league_store::store::releases::RELEASE);
    // An older release's row changes nothing.
    store
        .execute_raw(
            "INSERT INTO releases (release, major, minor, patch, first_appended_at) \
             VALUES ('0.0.1', 0, 0, 1, 5)",
        )
        .await
        .unwrap();
    store.close().await;
    let store = db.open().await;
    store
        .append("s", ExpectedVersion::Exact(2), &[ev("A", "{}")], None)
        .await
        .unwrap();
    // A newer one: reads go on, appends are refused and append nothing.
    store
        .execute_raw(
            "INSERT INTO releases (release, major, minor, patch, first_appended_at) \
             VALUES ('99.1.0', 99, 1, 0, 6)",
        )
        .await
        .unwrap();
    store.close().await;
    let store = db.open().await;
    let refused = store
        .append("s", ExpectedVersion::Exact(3), &[ev("A", "{}")], None)
        .await
        .unwrap_err();
    assert!(matches!(refused, StoreError::NewerRelease { ref release } if release == "99.1.0"));
    let message = refused.to_string();
    assert!(
        message.starts_with("release 99.1.0 has appended to this log, and this build is release "),
        "{message}"
    );
    assert_eq!(read_everything(&store).await.len(), 3);
    let names: Vec<String> = store
        .releases()
        .await
        .unwrap()
        .into_iter()
        .map(|r| r.0)
        .collect();
    assert_eq!(
        names,
        ["0.0.1", league_store::store::releases::RELEASE, "99.1.0"]
    );
    // A migration this build does not know: the database is not opened.
    let checksum = match db.kind {
        Kind::Sqlite => "X'00'",
        Kind::Postgres => "'\\x00'::bytea",
    };
    store
        .execute_raw(&format!(
            "INSERT INTO _sqlx_migrations (version, description, success, checksum, \
             execution_time) VALUES (9999, 'a later release', TRUE, {checksum}, 0)"
        ))
        .await
        .unwrap();
    store.close().await;
    let refused = Store::open_with(&db.url, db.options()).await.err().unwrap();
    assert!(
        matches!(refused, StoreError::NewerSchema { migration: 9999 }),
        "{refused}"
    );
    assert!(
        refused
            .to_string()
            .starts_with("the database has migration 9999, which release "),
        "{refused}"
    );
}

fn json(v: &serde_json::Value) -> Vec<u8> {
    serde_json::to_vec(v).unwrap()
}

fn ev(t: &str, payload: &str) -> NewEvent {
    NewEvent::new(t, payload.as_bytes().to_vec())
}

async fn read_everything(store: &Store) -> Vec<RecordedEvent> {
    read_in_pages(store, 2_000).await
}

/// The whole readable log, read with `read_all` in pages of `limit`.
async fn read_in_pages(store: &Store, limit: usize) -> Vec<RecordedEvent> {
    let mut all = Vec::new();
    let mut next = 0;
    loop {
        let page = store.read_all(next, limit).await.unwrap();
        let Some(last) = page.last() else { break };
        next = last.position + 1;
        all.extend(page);
    }
    all
}

/// Waits until everything committed so far is readable (PostgreSQL's commit horizon also
/// waits for other tests' transactions on the same server).
async fn settle(store: &Store) {
    if let Some(last) = store.last_position().await.unwrap() {
        assert!(
            store
                .wait_readable(last, Duration::from_secs(30))
                .await
                .unwrap()
        );
    }
}

fn key() -> SigningKey {
    SigningKey::from_bytes(&[42; 32])
}

fn sealer(every: u64, per_round: usize) -> SealerConfig {
    SealerConfig {
        signing_key: Some(key()),
        sign_every_events: every,
        sign_every: Duration::from_secs(3600),
        poll_interval: Duration::from_millis(20),
        max_leaves_per_round: per_round,
        publish: None,
    }
}

// ---------------------------------------------------------------------------------------
// Tests

async fn appending_then_reading_returns_the_exact_bytes_and_a_chain(db: &TestDb) {
    // Arrange
    let store = db.open().await;
    let odd_bytes = "{ \"b\" : 1,   \"a\":[2, 3 ],\"s\":\"\\u00e9\" }";
    let meta = Metadata {
        actor: Some("host:7".into()),
        correlation_id: Some("req-1".into()),
        causation_id: Some("cmd-9".into()),
        recorded_at: Some(Timestamp::from_micros(1_700_000_000_000_000)),
    };

    // Act
    let first = store
        .append(
            "tournament:1",
            ExpectedVersion::NoStream,
            &[
                ev("A", odd_bytes).with_metadata(meta.clone()),
                ev("B", "2"),
                ev("C", "[]"),
            ],
            None,
        )
        .await
        .unwrap();
    let second = store
        .append(
            "tournament:1",
            ExpectedVersion::Exact(3),
            &[ev("D", "null").with_schema_version(2), ev("E", "\"x\"")],
            None,
        )
        .await
        .unwrap();
    let other = store
        .append("league:1", ExpectedVersion::Any, &[ev("X", "{}")], None)
        .await
        .unwrap();

    // Assert
    assert_eq!((first.first_version, first.last_version), (1, 3));
    assert_eq!((second.first_version, second.last_version), (4, 5));
    assert!(first.last_position < second.first_position);
    assert!(second.last_position < other.first_position);
    let events = store.read_stream("tournament:1", 1).await.unwrap();
    assert_eq!(
        events.iter().map(|e| e.stream_version).collect::<Vec<_>>(),
        [1, 2, 3, 4, 5]
    );
    assert_eq!(
        events[0].payload,
        odd_bytes.as_bytes(),
        "payload bytes are stored exactly"
    );
    assert_eq!(events[0].actor, meta.actor);
    assert_eq!(events[0].correlation_id, meta.correlation_id);
    assert_eq!(events[0].causation_id, meta.causation_id);
    assert_eq!(events[0].recorded_at, meta.recorded_at.unwrap());
    assert_eq!(
        events[1].recorded_at,
        Timestamp::from_micros(1_000_000),
        "the injected clock"
    );
    assert_eq!(events[3].schema_version, 2);
    assert_eq!(events[0].prev_hash, [0; 32]);
    for pair in events.windows(2) {
        assert_eq!(pair[1].prev_hash, pair[0].hash);
    }
    assert_eq!(
        events.iter().map(|e| e.position).collect::<Vec<_>>(),
        first
            .positions()
            .chain(second.positions())
            .collect::<Vec<_>>()
    );
    assert_eq!(store.read_stream("tournament:1", 4).await.unwrap().len(), 2);
    assert_eq!(store.read_stream("tournament:1", 6).await.unwrap().len(), 0);
    settle(&store).await;
    let all = store.read_all(0, 100).await.unwrap();
    assert_eq!(all.len(), 6);
    assert!(all.windows(2).all(|w| w[0].position < w[1].position));
    assert_eq!(
        store.read_all(all[2].position, 2).await.unwrap(),
        all[2..4].to_vec()
    );
    let report = store.verify(0, u64::MAX, None).await.unwrap();
    assert_eq!(report.first_break, None, "{report}");
    assert_eq!(report.events_checked, 6);
}

/// `read_all` and `read_log` read in bulk (SQLite: rows read in place through rusqlite;
/// PostgreSQL: rows decoded from their raw binary values), `read_stream` row by row through
/// sqlx's typed decoding: the two must agree on every field of every event, with awkward
/// names and metadata.
async fn bulk_reads_of_the_log_equal_row_by_row_reads_of_its_streams(db: &TestDb) {
    // Arrange: 1,300 events in 7 streams, in appends of 1 to 9 events.
    let store = db.open().await;
    let streams = [
        "tournament:1",
        "12,34;56",
        "table:ü-7 ♠",
        "-1",
        "a;b,c:d",
        "league:9",
        "0",
    ];
    let texts = [
        None,
        Some("0"),
        Some("x"),
        Some("1,2;3"),
        Some("-7"),
        Some("é♥ \"q\""),
    ];
    let mut written = 0usize;
    let mut round = 0usize;
    while written < 1_300 {
        let stream = streams[round % streams.len()];
        let size = 1 + round % 9;
        let batch: Vec<NewEvent> = (0..size)
            .map(|i| {
                let n = written + i;
                // Mostly small payloads, now and then a large one.
                let filler = "z".repeat(if n.is_multiple_of(97) { 70_000 } else { n % 40 });
                let payload = json(&serde_json::json!({"n": n, "f": filler, "s": "\u{0}\t;,"}));
                let meta = Metadata {
                    actor: texts[n % texts.len()].map(str::to_owned),
                    correlation_id: texts[(n / 2) % texts.len()].map(str::to_owned),
                    causation_id: texts[(n / 3) % texts.len()].map(str::to_owned),
                    recorded_at: Some(Timestamp::from_micros(
                        if n.is_multiple_of(5) {
                            -1_234_567
                        } else {
                            1_700_000_000_000_000
                        } + i64::try_from(n).unwrap(),
                    )),
                };
                NewEvent::new(["Seat,ed", "Hand;Won", "Ä", "1"][n % 4], payload)
                    .with_metadata(meta)
                    .with_schema_version(u32::try_from(1 + n % 3).unwrap())
            })
            .collect();
        let key = round.is_multiple_of(4).then(|| format!("key,{round};"));
        store
            .append(stream, ExpectedVersion::Any, &batch, key.as_deref())
            .await
            .unwrap();
        written += size;
        round += 1;
    }
    settle(&store).await;
    let mut oracle = Vec::new();
    for stream in streams {
        oracle.extend(store.read_stream(stream, 1).await.unwrap());
    }
    oracle.sort_by_key(|e| e.position);
    assert_eq!(oracle.len(), written);
    assert!(oracle.iter().any(|e| e.idempotency_key.is_some()));
    assert!(oracle.iter().any(|e| e.actor.as_deref() == Some("1,2;3")));
    assert!(oracle.iter().any(|e| e.actor.is_none()));

    // Act and assert: pages that start and end on and around 512 and 1,024 events (where
    // a read packing 512 events at a time would split them).
    let at = |i: usize| oracle[i].position;
    let cases = [
        (0, 1),
        (0, 511),
        (0, 512),
        (0, 513),
        (0, 1_024),
        (0, 1_025),
        (0, 10_000),
        (at(1), 512),
        (at(511), 2),
        (at(512), 700),
        (at(700), 513),
        (at(1_299), 5),
        (at(1_299) + 1, 5),
        (at(3), 0),
    ];
    check_bulk_reads(&store, &oracle, &cases).await;
    assert_eq!(read_everything(&store).await, oracle);

    // Gaps (events deleted with SQL, as a tamperer would): single events, two on either
    // side of 1,024, and runs of 60 and 150. Bulk reads still return exactly the events
    // that are there.
    let mut gone: Vec<usize> = vec![3, 900, 1_023, 1_024];
    gone.extend(40..100);
    gone.extend(1_100..1_250);
    let left = delete_events(&store, &oracle, &gone).await;
    let more = [
        (at(2), 1_030),
        (at(100), 2_048),
        (at(600), 1_024),
        (at(1_024), 2_048),
        (u64::MAX - 100, 2_048),
    ];
    check_bulk_reads(&store, &left, &cases).await;
    check_bulk_reads(&store, &left, &more).await;
    assert_eq!(read_everything(&store).await, left);
}

/// Pages of 2,048 events or more: a reader paging while a writer appends sees every event
/// once, in order; after deletions (a small gap, and one of 1,201 events), a page is still
/// the events that are there.
async fn large_pages_read_while_appending_and_across_gaps(db: &TestDb) {
    const TOTAL: usize = 6_000;
    let store = db.open().await;
    let writer_store = store.clone();
    let writer = tokio::spawn(async move {
        let mut written = 0;
        let mut round = 0;
        while written < TOTAL {
            let size = (1 + round * 7 % 50).min(TOTAL - written);
            let batch: Vec<NewEvent> = (written..written + size)
                .map(|n| ev("E", &format!("{{\"n\":{n}}}")))
                .collect();
            writer_store
                .append("s", ExpectedVersion::Any, &batch, None)
                .await
                .unwrap();
            written += size;
            round += 1;
            if round % 10 == 0 {
                tokio::task::yield_now().await;
            }
        }
    });
    let mut seen: Vec<RecordedEvent> = Vec::with_capacity(TOTAL);
    let mut next = 0;
    while seen.len() < TOTAL {
        let page = store.read_all(next, 4_096).await.unwrap();
        match page.last() {
            Some(last) => next = last.position + 1,
            None => tokio::task::yield_now().await,
        }
        seen.extend(page);
    }
    writer.await.unwrap();
    settle(&store).await;
    let oracle = store.read_stream("s", 1).await.unwrap();
    assert_eq!(oracle.len(), TOTAL);
    assert!(
        seen == oracle,
        "the paging reader's sequence differs from the stream"
    );
    assert!(seen.windows(2).all(|w| w[0].position < w[1].position));

    let at = |i: usize| oracle[i].position;
    let dense = oracle
        .windows(2)
        .all(|w| w[1].position == w[0].position + 1);
    let cases = [
        (at(0), 2_048),
        (at(0), 4_096),
        (at(10), 3_000),
        (at(1_000), 2_048),
        (at(1_076), 2_048),
        (at(2_000), 2_048),
        (at(TOTAL - 2_048), 2_048),
        (at(TOTAL - 2_049), 2_048),
        (at(3_400), 4_096),
        (at(0), 10_000),
    ];
    check_bulk_reads(&store, &oracle, &cases).await;

    // A small gap in a page from 0, a gap of 1,201 events that is the whole second half of
    // a page from 1,076 (SQLite's positions are dense here: checked).
    let gone: Vec<usize> = (500..511).chain(2_100..3_301).collect();
    let left = delete_events(&store, &oracle, &gone).await;
    if matches!(db.kind, Kind::Sqlite) {
        assert!(dense, "SQLite assigns positions densely");
    }
    check_bulk_reads(&store, &left, &cases).await;
    assert_eq!(read_everything(&store).await, left);

    // A closed store reads nothing, however it reads.
    store.close().await;
    for limit in [10, 4_096] {
        assert!(store.read_all(0, limit).await.is_err(), "read_all, {limit}");
        assert!(store.read_log(0, limit).await.is_err(), "read_log, {limit}");
    }
}

/// A bulk read whose future is dropped half-way (a caller that gave up: a timeout, a client
/// that went away) leaves no pooled connection with the rest of its rows unread: every
/// query after it works.
async fn bulk_reads_cut_short_leave_every_pooled_connection_usable(db: &TestDb) {
    let store = db.open().await;
    league_testkit::fill(&store, 30_000).await.unwrap();
    settle(&store).await;
    let whole = store.read_all(0, 10_000).await.unwrap();
    assert_eq!(whole.len(), 10_000);
    let mut cut = 0;
    for i in 0..40u64 {
        let wait = Duration::from_micros(300 + i * 150);
        let read = if i % 2 == 0 {
            tokio::time::timeout(wait, async { store.read_all(0, 10_000).await.map(|_| ()) }).await
        } else {
            tokio::time::timeout(wait, async { store.read_log(0, 10_000).await.map(|_| ()) }).await
        };
        match read {
            Err(_) => cut += 1,
            Ok(result) => result.unwrap(),
        }
        // A large page from elsewhere.
        let from = whole[4_999].position + 1;
        let _ = tokio::time::timeout(wait, store.read_all(from, 2_048)).await;
    }
    assert!(cut > 0, "no read was cut short");
    store.execute_raw("SELECT 1").await.unwrap();
    let queries: Vec<_> = (0..40)
        .map(|i| {
            let store = store.clone();
            tokio::spawn(async move {
                let page = store.read_all(0, 5).await?;
                let log = store.read_log(0, 5).await?;
                let big = store.read_all(0, 2_048 + i).await?;
                store.stream_head("fill").await?;
                Ok::<_, StoreError>((page.len(), log.len(), big.len()))
            })
        })
        .collect();
    for (i, q) in queries.into_iter().enumerate() {
        assert_eq!(q.await.unwrap().unwrap(), (5, 5, 2_048 + i));
    }
    let appended = store
        .append("after", ExpectedVersion::NoStream, &[ev("A", "{}")], None)
        .await
        .unwrap();
    assert_eq!(appended.first_version, 1);
}

/// A subscriber far behind the head reads the log in large pages (`subscribe`'s catch-up
/// pages) and yields what small pages of `read_all` give,
/// from the start or from the middle, through `next`, `next_batch` or `try_next`, and then
/// follows the log live.
async fn a_subscriber_far_behind_catches_up_with_what_small_pages_get(db: &TestDb) {
    let store = db.open().await;
    league_testkit::fill(&store, 23_000).await.unwrap();
    for i in 0..1_500u32 {
        let stream = format!("s{}", i % 7);
        store
            .append(
                &stream,
                ExpectedVersion::Any,
                &[ev("E", &format!("{{\"i\":{i}}}"))],
                None,
            )
            .await
            .unwrap();
    }
    settle(&store).await;
    let oracle = read_in_pages(&store, 500).await;
    assert_eq!(oracle.len(), 24_500);
    let positions =
        |events: &[RecordedEvent]| events.iter().map(|e| e.position).collect::<Vec<_>>();

    let mut sub = store.subscribe_all(0);
    let mut seen = Vec::new();
    while seen.len() < oracle.len() {
        seen.push(sub.next().await.unwrap());
    }
    assert!(seen == oracle, "next() from 0");

    let middle = oracle[12_345].position;
    let mut sub = store.subscribe_all(middle);
    let mut batched: Vec<RecordedEvent> = Vec::new();
    while batched.len() < oracle.len() - 12_345 {
        let batch = sub.next_batch(7_000).await.unwrap();
        assert!(!batch.is_empty() && batch.len() <= 7_000);
        batched.extend(batch);
    }
    assert_eq!(
        positions(&batched),
        positions(&oracle[12_345..]),
        "next_batch from the middle"
    );

    let mut sub = store.subscribe_all(0);
    let mut tried = Vec::new();
    while let Some(event) = sub.try_next().await.unwrap() {
        tried.push(event);
    }
    assert_eq!(positions(&tried), positions(&oracle), "try_next from 0");

    // Caught up: the next append arrives live.
    let live = tokio::spawn(async move { sub.next().await });
    let appended = store
        .append("late", ExpectedVersion::NoStream, &[ev("L", "{}")], None)
        .await
        .unwrap();
    let event = tokio::time::timeout(Duration::from_secs(30), live)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert_eq!(event.position, appended.first_position);
}

/// Deletes the events at the indexes `gone` of `oracle` with SQL, as a tamperer would;
/// returns the events left.
async fn delete_events(
    store: &Store,
    oracle: &[RecordedEvent],
    gone: &[usize],
) -> Vec<RecordedEvent> {
    for &i in gone {
        store
            .execute_raw(&format!(
                "DELETE FROM events WHERE position = {}",
                oracle[i].position
            ))
            .await
            .unwrap();
    }
    oracle
        .iter()
        .enumerate()
        .filter(|(i, _)| !gone.contains(i))
        .map(|(_, e)| e.clone())
        .collect()
}

/// The first `limit` of `events` (in global order) at or after position `from`.
fn page_of(events: &[RecordedEvent], from: u64, limit: usize) -> Vec<RecordedEvent> {
    events
        .iter()
        .filter(|e| e.position >= from)
        .take(limit)
        .cloned()
        .collect()
}

/// `read_all` and `read_log` from each `(from, limit)` equal `oracle`'s events from there.
async fn check_bulk_reads(store: &Store, oracle: &[RecordedEvent], cases: &[(u64, usize)]) {
    for &(from, limit) in cases {
        let expected = page_of(oracle, from, limit);
        let page = store.read_all(from, limit).await.unwrap();
        assert_eq!(page.len(), expected.len(), "read_all({from}, {limit})");
        assert!(page == expected, "read_all({from}, {limit}) differs");
        let log = store.read_log(from, limit).await.unwrap();
        assert_eq!(log.len(), expected.len(), "read_log({from}, {limit})");
        for (entry, event) in log.iter().zip(&expected) {
            assert_eq!(
                (
                    entry.position,
                    &*entry.stream_id,
                    entry.stream_version,
                    &*entry.payload
                ),
                (
                    event.position,
                    event.stream_id.as_str(),
                    event.stream_version,
                    event.payload.as_slice()
                ),
                "read_log({from}, {limit})"
            );
        }
    }
}

async fn a_wrong_expected_version_is_a_typed_conflict_and_appends_nothing(db: &TestDb) {
    let store = db.open().await;
    store
        .append(
            "s",
            ExpectedVersion::NoStream,
            &[ev("A", "1"), ev("A", "2")],
            None,
        )
        .await
        .unwrap();

    let no_stream = store
        .append("s", ExpectedVersion::NoStream, &[ev("A", "3")], None)
        .await;
    let stale = store
        .append("s", ExpectedVersion::Exact(1), &[ev("A", "3")], None)
        .await;
    let ahead = store
        .append("s", ExpectedVersion::Exact(5), &[ev("A", "3")], None)
        .await;
    let unknown = store
        .append("nobody", ExpectedVersion::Exact(1), &[ev("A", "3")], None)
        .await;

    assert!(
        matches!(
            no_stream,
            Err(StoreError::Conflict {
                expected: ExpectedVersion::NoStream,
                actual: Some(2)
            })
        ),
        "{no_stream:?}"
    );
    assert!(
        matches!(
            stale,
            Err(StoreError::Conflict {
                expected: ExpectedVersion::Exact(1),
                actual: Some(2)
            })
        ),
        "{stale:?}"
    );
    assert!(
        matches!(
            ahead,
            Err(StoreError::Conflict {
                expected: ExpectedVersion::Exact(5),
                actual: Some(2)
            })
        ),
        "{ahead:?}"
    );
    assert!(
        matches!(
            unknown,
            Err(StoreError::Conflict {
                expected: ExpectedVersion::Exact(1),
                actual: None
            })
        ),
        "{unknown:?}"
    );
    settle(&store).await;
    assert_eq!(store.read_all(0, 100).await.unwrap().len(), 2);
    let zero = store
        .append("s", ExpectedVersion::Exact(0), &[ev("A", "3")], None)
        .await;
    assert!(
        matches!(
            zero,
            Err(StoreError::Conflict {
                expected: ExpectedVersion::Exact(0),
                actual: Some(2)
            })
        ),
        "{zero:?}"
    );
    let fresh = store
        .append("new", ExpectedVersion::Exact(0), &[ev("A", "1")], None)
        .await
        .unwrap();
    assert_eq!(fresh.first_version, 1);
    let ok = store
        .append("s", ExpectedVersion::Exact(2), &[ev("A", "3")], None)
        .await
        .unwrap();
    assert_eq!(ok.last_version, 3);
}

async fn a_repeated_idempotency_key_returns_the_original_positions(db: &TestDb) {
    let store = db.open().await;
    let batch = [ev("A", "{\"n\":1}"), ev("B", "{\"n\":2}")];

    let original = store
        .append("s", ExpectedVersion::NoStream, &batch, Some("req-1"))
        .await
        .unwrap();
    // A retry: the client's expectation is stale now, and its clock has moved on.
    let retry = store
        .append("s", ExpectedVersion::NoStream, &batch, Some("req-1"))
        .await
        .unwrap();
    let different = store
        .append(
            "s",
            ExpectedVersion::Any,
            &[ev("A", "{\"n\":9}")],
            Some("req-1"),
        )
        .await;
    let other_stream = store
        .append("t", ExpectedVersion::Any, &batch, Some("req-1"))
        .await;

    assert!(!original.deduplicated);
    assert!(retry.deduplicated);
    assert_eq!(
        retry.positions().collect::<Vec<_>>(),
        original.positions().collect::<Vec<_>>()
    );
    assert_eq!((retry.first_version, retry.last_version), (1, 2));
    assert!(
        matches!(different, Err(StoreError::IdempotencyMismatch { ref key }) if key == "req-1"),
        "{different:?}"
    );
    assert!(
        matches!(other_stream, Err(StoreError::IdempotencyMismatch { .. })),
        "{other_stream:?}"
    );
    settle(&store).await;
    let events = store.read_all(0, 100).await.unwrap();
    assert_eq!(events.len(), 2, "nothing appended by the repeats");
    assert!(
        events
            .iter()
            .all(|e| e.idempotency_key.as_deref() == Some("req-1"))
    );

    // Racing retries of one request: one append, everyone gets its positions.
    let mut tasks = Vec::new();
    for _ in 0..8 {
        let store = store.clone();
        tasks.push(tokio::spawn(async move {
            store
                .append(
                    "race",
                    ExpectedVersion::Any,
                    &[ev("R", "1"), ev("R", "2"), ev("R", "3")],
                    Some("req-2"),
                )
                .await
        }));
    }
    let mut results = Vec::new();
    for t in tasks {
        results.push(t.await.unwrap().unwrap());
    }
    assert_eq!(results.iter().filter(|r| !r.deduplicated).count(), 1);
    assert!(
        results
            .iter()
            .all(|r| r.first_position == results[0].first_position)
    );
    assert_eq!(store.read_stream("race", 1).await.unwrap().len(), 3);
    assert_eq!(
        store.verify(0, u64::MAX, None).await.unwrap().first_break,
        None
    );
}

async fn bad_input_is_refused_with_a_typed_error_and_appends_nothing(db: &TestDb) {
    let store = db.open().await;
    store
        .append("s", ExpectedVersion::Any, &[ev("A", "1")], None)
        .await
        .unwrap();
    let any = ExpectedVersion::Any;

    let not_json = store
        .append("s", any, &[ev("A", "1"), ev("B", "{\"a\":")], None)
        .await;
    let two_values = store.append("s", any, &[ev("A", "1 2")], None).await;
    let empty = store.append("s", any, &[], None).await;
    let mut big = vec![b'"'];
    big.resize(MAX_PAYLOAD_BYTES, b'x');
    big.push(b'"');
    let too_big = store
        .append("s", any, &[NewEvent::new("A", big.clone())], None)
        .await;
    let too_many = store
        .append("s", any, &vec![ev("A", "1"); MAX_BATCH_EVENTS + 1], None)
        .await;
    let no_stream_id = store.append("", any, &[ev("A", "1")], None).await;
    let control = store.append("s\n", any, &[ev("A", "1")], None).await;
    let no_type = store.append("s", any, &[ev("", "1")], None).await;
    let schema_zero = store
        .append("s", any, &[ev("A", "1").with_schema_version(0)], None)
        .await;
    let unknown = store.read_stream("nobody", 1).await;

    assert!(
        matches!(not_json, Err(StoreError::InvalidJson { index: 1, .. })),
        "{not_json:?}"
    );
    assert!(
        matches!(two_values, Err(StoreError::InvalidJson { index: 0, .. })),
        "{two_values:?}"
    );
    assert!(matches!(empty, Err(StoreError::EmptyBatch)), "{empty:?}");
    assert!(
        matches!(too_big, Err(StoreError::PayloadTooLarge { index: 0, size, limit }) if size == MAX_PAYLOAD_BYTES + 1 && limit == MAX_PAYLOAD_BYTES),
        "{too_big:?}"
    );
    assert!(
        matches!(too_many, Err(StoreError::BatchTooLarge { .. })),
        "{too_many:?}"
    );
    assert!(
        matches!(
            no_stream_id,
            Err(StoreError::InvalidName {
                what: "stream id",
                ..
            })
        ),
        "{no_stream_id:?}"
    );
    assert!(
        matches!(control, Err(StoreError::InvalidName { .. })),
        "{control:?}"
    );
    assert!(
        matches!(
            no_type,
            Err(StoreError::InvalidName {
                what: "event type",
                ..
            })
        ),
        "{no_type:?}"
    );
    assert!(
        matches!(
            schema_zero,
            Err(StoreError::InvalidSchemaVersion { index: 0 })
        ),
        "{schema_zero:?}"
    );
    assert!(
        matches!(unknown, Err(StoreError::StreamNotFound(ref s)) if s == "nobody"),
        "{unknown:?}"
    );
    settle(&store).await;
    assert_eq!(
        store.read_all(0, 100).await.unwrap().len(),
        1,
        "nothing appended"
    );

    // Exactly at the limit is fine, and comes back byte for byte.
    big.truncate(MAX_PAYLOAD_BYTES - 1);
    big.push(b'"');
    store
        .append("s", any, &[NewEvent::new("A", big.clone())], None)
        .await
        .unwrap();
    assert_eq!(store.read_stream("s", 2).await.unwrap()[0].payload, big);
}

async fn eight_writers_and_a_subscriber_see_one_gap_free_order(db: &TestDb) {
    const WRITERS: u64 = 8;
    const PER_WRITER: u64 = 10_000;
    const TOTAL: usize = 80_000;
    let store = db.open().await;
    let sealer_handle = store.spawn_sealer(sealer(5_000, 10_000));

    // A subscriber from position 0, running while the writers write.
    let sub_store = store.clone();
    let subscriber = tokio::spawn(async move {
        let mut sub = sub_store.subscribe_all(0);
        let mut seen = Vec::with_capacity(TOTAL);
        while seen.len() < TOTAL {
            let e = tokio::time::timeout(Duration::from_secs(60), sub.next())
                .await
                .unwrap()
                .unwrap();
            seen.push(e);
        }
        seen
    });
    // A second subscriber takes batches (as the live projector does), of varying sizes.
    let batch_store = store.clone();
    let batched = tokio::spawn(async move {
        let mut sub = batch_store.subscribe_all(0);
        let mut seen: Vec<RecordedEvent> = Vec::with_capacity(TOTAL);
        for max in [1usize, 7, 1_000, 3].iter().cycle() {
            if seen.len() >= TOTAL {
                break;
            }
            let batch = tokio::time::timeout(Duration::from_secs(60), sub.next_batch(*max))
                .await
                .unwrap()
                .unwrap();
            assert!(
                !batch.is_empty() && batch.len() <= *max,
                "{} > {max}",
                batch.len()
            );
            assert_eq!(sub.next_position(), batch[batch.len() - 1].position + 1);
            seen.extend(batch);
        }
        seen
    });

    // Writers 0-3 share one stream (expected: any, so they race and retry); writers 4-7
    // each own a stream and append with exact expected versions.
    let mut writers = Vec::new();
    for w in 0..WRITERS {
        let store = store.clone();
        writers.push(tokio::spawn(async move {
            let shared = w < 4;
            let stream = if shared {
                "shared".to_owned()
            } else {
                format!("own-{w}")
            };
            let sizes = [1u64, 3, 7, 13, 1, 25, 2];
            let (mut i, mut k, mut version) = (0u64, 0usize, 0u64);
            while i < PER_WRITER {
                let n = sizes[k % sizes.len()].min(PER_WRITER - i);
                k += 1;
                let batch: Vec<NewEvent> = (i..i + n)
                    .map(|j| NewEvent::new("Tick", json(&serde_json::json!({"w": w, "i": j}))))
                    .collect();
                let expected = if shared {
                    ExpectedVersion::Any
                } else if version == 0 {
                    ExpectedVersion::NoStream
                } else {
                    ExpectedVersion::Exact(version)
                };
                let appended = store
                    .append(&stream, expected, &batch, None)
                    .await
                    .unwrap_or_else(|e| panic!("writer {w} on {stream} ({expected}): {e:?}"));
                version = appended.last_version;
                i += n;
            }
        }));
    }
    for w in writers {
        w.await.unwrap();
    }
    let seen = subscriber.await.unwrap();
    let seen_in_batches = batched.await.unwrap();

    // Exactly once, strictly increasing, and the same sequence as a final read.
    assert_eq!(seen.len(), TOTAL);
    assert!(
        seen_in_batches
            .iter()
            .map(|e| e.position)
            .eq(seen.iter().map(|e| e.position)),
        "batches give the same sequence as single events"
    );
    assert!(
        seen.windows(2).all(|p| p[0].position < p[1].position),
        "strictly increasing positions"
    );
    settle(&store).await;
    let all = read_everything(&store).await;
    assert_eq!(all.len(), TOTAL);
    assert!(
        seen.iter()
            .map(|e| e.position)
            .eq(all.iter().map(|e| e.position))
    );
    assert!(seen.iter().map(|e| &e.hash).eq(all.iter().map(|e| &e.hash)));
    // Global order agrees with each stream's order and with each writer's order.
    let mut versions: HashMap<&str, u64> = HashMap::new();
    let mut next_i: HashMap<u64, u64> = HashMap::new();
    for e in &seen {
        let v = versions.entry(&e.stream_id).or_insert(0);
        assert_eq!(
            e.stream_version,
            *v + 1,
            "stream {} out of order at {}",
            e.stream_id,
            e.position
        );
        *v += 1;
        let p: serde_json::Value = serde_json::from_slice(&e.payload).unwrap();
        let (w, i) = (p["w"].as_u64().unwrap(), p["i"].as_u64().unwrap());
        let expect = next_i.entry(w).or_insert(0);
        assert_eq!(i, *expect, "writer {w} out of order");
        *expect += 1;
    }
    assert_eq!(versions["shared"], 4 * PER_WRITER);

    // The background sealer has kept up (or does now), and the whole log verifies.
    drop(sealer_handle);
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let o = store.seal_all(&sealer(5_000, 10_000)).await.unwrap();
        if o.leader && o.tree_size == u64::try_from(TOTAL).unwrap() {
            break;
        }
        assert!(Instant::now() < deadline, "sealer never caught up: {o:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let report = store
        .verify(0, u64::MAX, Some(&key().verifying_key()))
        .await
        .unwrap();
    assert_eq!(report.first_break, None, "{report}");
    assert_eq!(report.tree_size, u64::try_from(TOTAL).unwrap());
    assert!(report.tree_heads_checked >= 1);
}

async fn of_racing_appends_to_one_version_exactly_one_wins(db: &TestDb) {
    let store = db.open().await;
    store
        .append(
            "table:1",
            ExpectedVersion::NoStream,
            &[ev("Opened", "{}")],
            None,
        )
        .await
        .unwrap();
    let mut head = 1u64;
    for round in 0..25 {
        let barrier = Arc::new(tokio::sync::Barrier::new(4));
        let mut tasks = Vec::new();
        for c in 0..4 {
            let (store, barrier) = (store.clone(), barrier.clone());
            tasks.push(tokio::spawn(async move {
                barrier.wait().await;
                let batch = [ev("Acted", &format!("{c}")), ev("Acted", "0")];
                store
                    .append("table:1", ExpectedVersion::Exact(head), &batch, None)
                    .await
            }));
        }
        let mut wins = 0;
        for t in tasks {
            match t.await.unwrap() {
                Ok(a) => {
                    wins += 1;
                    assert_eq!((a.first_version, a.last_version), (head + 1, head + 2));
                }
                Err(StoreError::Conflict { expected, actual }) => {
                    assert_eq!(expected, ExpectedVersion::Exact(head));
                    assert_eq!(actual, Some(head + 2));
                }
                Err(e) => panic!("unexpected {e}"),
            }
        }
        assert_eq!(wins, 1, "round {round}");
        head += 2;
        assert_eq!(store.stream_head("table:1").await.unwrap().unwrap().0, head);
    }
    let events = store.read_stream("table:1", 1).await.unwrap();
    assert_eq!(events.len(), 51);
    assert!(
        events
            .windows(2)
            .all(|w| w[1].stream_version == w[0].stream_version + 1)
    );
    assert_eq!(
        store.verify(0, u64::MAX, None).await.unwrap().first_break,
        None
    );
}

/// 32 writers each append 40 times to a stream of their own (1 to 3 events, exact versions)
/// while 4 race on one shared stream each round: on PostgreSQL concurrent appends on known
/// heads are written in groups, one transaction for several streams (`store::postgres::batch`), and a
/// group that a racing append poisons is retried append by append. Every append must come
/// back with exactly the positions its events have in the log, every stream must be whole
/// and in order, exactly one racer must win each round, the log must verify, and on
/// PostgreSQL some transactions must indeed hold several streams.
async fn many_writers_at_once_are_written_together_and_every_append_stays_exact(db: &TestDb) {
    let store = db.open().await;
    store
        .append(
            "hot",
            ExpectedVersion::NoStream,
            &[ev("Opened", "{}")],
            None,
        )
        .await
        .unwrap();
    let mut tasks = Vec::new();
    for w in 0..32u64 {
        let store = store.clone();
        tasks.push(tokio::spawn(async move {
            let stream = format!("own-{w}");
            let mut appended = Vec::new();
            let mut version = 0;
            for i in 0..40u64 {
                let n = usize::try_from(1 + (w + i) % 3).unwrap();
                let batch: Vec<NewEvent> = (0..n)
                    .map(|k| ev("Acted", &format!("{{\"w\":{w},\"i\":{i},\"k\":{k}}}")))
                    .collect();
                let expected = if version == 0 {
                    ExpectedVersion::NoStream
                } else {
                    ExpectedVersion::Exact(version)
                };
                let a = store.append(&stream, expected, &batch, None).await.unwrap();
                assert_eq!(a.first_version, version + 1);
                version = a.last_version;
                appended.push((stream.clone(), a));
            }
            appended
        }));
    }
    let mut hot_wins = Vec::new();
    for _ in 0..10 {
        let head = store.stream_head("hot").await.unwrap().unwrap().0;
        let racers: Vec<_> = (0..4)
            .map(|c| {
                let store = store.clone();
                tokio::spawn(async move {
                    store
                        .append(
                            "hot",
                            ExpectedVersion::Exact(head),
                            &[ev("Raced", &format!("{c}"))],
                            None,
                        )
                        .await
                })
            })
            .collect();
        let mut wins = 0;
        for r in racers {
            match r.await.unwrap() {
                Ok(a) => {
                    wins += 1;
                    hot_wins.push(("hot".to_owned(), a));
                }
                Err(StoreError::Conflict { .. }) => {}
                Err(e) => panic!("unexpected {e}"),
            }
        }
        assert_eq!(wins, 1, "one racer wins each round");
    }
    let mut appends = hot_wins;
    for t in tasks {
        appends.extend(t.await.unwrap());
    }
    let log = read_everything(&store).await;
    assert!(log.windows(2).all(|w| w[0].position < w[1].position));
    let by_position: HashMap<u64, &RecordedEvent> = log.iter().map(|e| (e.position, e)).collect();
    for (stream, a) in &appends {
        let mut events: Vec<&RecordedEvent> = log
            .iter()
            .filter(|e| {
                &e.stream_id == stream
                    && (a.first_version..=a.last_version).contains(&e.stream_version)
            })
            .collect();
        events.sort_by_key(|e| e.stream_version);
        let positions: Vec<u64> = events.iter().map(|e| e.position).collect();
        assert_eq!(positions.first(), Some(&a.first_position), "{stream} {a:?}");
        assert_eq!(positions.last(), Some(&a.last_position), "{stream} {a:?}");
        assert!(
            positions.windows(2).all(|w| w[1] == w[0] + 1),
            "an append's positions are contiguous: {positions:?}"
        );
        assert!(by_position.contains_key(&a.first_position));
    }
    for w in 0..32usize {
        let stream = store.read_stream(&format!("own-{w}"), 1).await.unwrap();
        // 40 appends of 1, 2, 3, 1, 2, ... events, starting at 1 + w % 3.
        assert_eq!(stream.len(), 79 + w % 3, "own-{w}");
        assert!(stream.iter().zip(1..).all(|(e, v)| e.stream_version == v));
    }
    assert_eq!(store.read_stream("hot", 1).await.unwrap().len(), 11);
    assert_eq!(
        store.verify(0, u64::MAX, None).await.unwrap().first_break,
        None
    );
    if db.kind == Kind::Postgres {
        // Positions are `xid << 16 | index`: several streams under one xid is a group.
        let mut streams_of: HashMap<u64, HashSet<&str>> = HashMap::new();
        for e in &log {
            streams_of
                .entry(e.position >> 16)
                .or_default()
                .insert(&e.stream_id);
        }
        let grouped = streams_of.values().filter(|s| s.len() > 1).count();
        assert!(grouped > 0, "no transaction held more than one stream");
    }
}

/// The child half of the crash test: appends batches of three until killed, printing each
/// acknowledged batch. Does nothing in a normal test run.
#[test]
fn crash_child_process() {
    let Ok(url) = std::env::var("LEAGUE_STORE_CRASH_CHILD_URL") else {
        return;
    };
    let schema = std::env::var("LEAGUE_STORE_CRASH_CHILD_SCHEMA").ok();
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async move {
        let options = StoreOptions {
            pg_schema: schema,
            ..StoreOptions::default()
        };
        let store = Store::open_with(&url, options).await.unwrap();
        let _sealer = store.spawn_sealer(sealer(50, 200));
        let mut out = std::io::stdout().lock();
        for batch in 0u64.. {
            let events: Vec<NewEvent> = (0..3)
                .map(|k| NewEvent::new("Crash", json(&serde_json::json!({"batch": batch, "k": k}))))
                .collect();
            let a = store
                .append(
                    &format!("crash-{}", batch % 5),
                    ExpectedVersion::Any,
                    &events,
                    Some(&format!("b{batch}")),
                )
                .await
                .unwrap();
            writeln!(out, "ACK {batch} {} {}", a.first_position, a.last_position).unwrap();
            out.flush().unwrap();
        }
    });
}

async fn a_killed_writer_loses_no_acknowledged_append(db: &TestDb) {
    // Arrange: a child process appending in a loop.
    db.open().await.close().await; // migrate first, so the child starts appending at once
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "crash_child_process",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("LEAGUE_STORE_CRASH_CHILD_URL", &db.url)
        .env(
            "LEAGUE_STORE_CRASH_CHILD_SCHEMA",
            db.schema.clone().unwrap_or_default(),
        )
        .env_remove("LEAGUE_REQUIRE_POSTGRES")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();

    // Act: let it acknowledge a few hundred batches, then SIGKILL it mid-flight.
    let (acks, child) = tokio::task::spawn_blocking(move || {
        let mut acks = Vec::new();
        let started = Instant::now();
        for line in BufReader::new(stdout).lines() {
            let line = line.unwrap();
            if let Some(rest) = line.strip_prefix("ACK ") {
                let f: Vec<u64> = rest.split(' ').map(|x| x.parse().unwrap()).collect();
                acks.push((f[0], f[1], f[2]));
                if acks.len() >= 300 || started.elapsed() > Duration::from_secs(30) {
                    break;
                }
            }
        }
        child.kill().unwrap(); // SIGKILL
        let status = child.wait().unwrap();
        (acks, status)
    })
    .await
    .unwrap();
    assert!(!child.success());
    assert!(
        acks.len() >= 50,
        "the child acknowledged only {} batches",
        acks.len()
    );

    // Assert: restart; every acknowledged batch is there in full, no batch is partial.
    let store = db.open().await;
    tokio::time::sleep(Duration::from_millis(300)).await; // let the server reap the child's sessions
    settle(&store).await;
    let all = read_everything(&store).await;
    let by_position: HashMap<u64, &RecordedEvent> = all.iter().map(|e| (e.position, e)).collect();
    for (batch, first, last) in &acks {
        for (k, p) in (*first..=*last).enumerate() {
            let e = by_position
                .get(&p)
                .unwrap_or_else(|| panic!("acknowledged position {p} lost"));
            let v: serde_json::Value = serde_json::from_slice(&e.payload).unwrap();
            assert_eq!(
                (v["batch"].as_u64(), v["k"].as_u64()),
                (Some(*batch), Some(u64::try_from(k).unwrap()))
            );
        }
    }
    let mut per_batch: BTreeMap<u64, usize> = BTreeMap::new();
    for e in &all {
        let v: serde_json::Value = serde_json::from_slice(&e.payload).unwrap();
        *per_batch.entry(v["batch"].as_u64().unwrap()).or_default() += 1;
    }
    assert!(
        per_batch.values().all(|n| *n == 3),
        "a partial batch is visible: {per_batch:?}"
    );
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let o = store.seal_all(&sealer(50, 200)).await.unwrap();
        if o.leader && o.tree_size == u64::try_from(all.len()).unwrap() {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "cannot seal after the crash: {o:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let report = store
        .verify(0, u64::MAX, Some(&key().verifying_key()))
        .await
        .unwrap();
    assert_eq!(report.first_break, None, "{report}");
    assert_eq!(report.events_checked, u64::try_from(all.len()).unwrap());
}

/// Builds a sealed, signed log of 40 events over three streams and returns it.
async fn sealed_log(db: &TestDb) -> (Store, Vec<RecordedEvent>) {
    let store = db.open().await;
    for i in 0..20u64 {
        let stream = format!("s{}", i % 3);
        let batch = if i % 2 == 0 { 1 } else { 3 };
        let events: Vec<NewEvent> = (0..batch)
            .map(|k| {
                NewEvent::new(
                    "T",
                    format!("{{\"n\":{}}}", 10_000 + i * 10 + k).into_bytes(),
                )
            })
            .collect();
        store
            .append(&stream, ExpectedVersion::Any, &events, None)
            .await
            .unwrap();
    }
    settle(&store).await;
    store.seal_all(&sealer(7, 9)).await.unwrap();
    let all = read_everything(&store).await;
    assert_eq!(all.len(), 40);
    assert_eq!(
        store
            .verify(0, u64::MAX, Some(&key().verifying_key()))
            .await
            .unwrap()
            .first_break,
        None
    );
    (store, all)
}

async fn expect_break(store: &Store, position: u64, kind: fn(&BreakKind) -> bool) {
    let report = store
        .verify(0, u64::MAX, Some(&key().verifying_key()))
        .await
        .unwrap();
    let b = report
        .first_break
        .clone()
        .unwrap_or_else(|| panic!("no break reported:\n{report}"));
    assert_eq!(b.position, position, "{report}");
    assert!(kind(&b.kind), "{report}");
}

/// The end of the log removed together with its seals and signed heads verifies clean,
/// but not against the heads an auditor saved before: each one that covers a removed or
/// changed event fails, and says where.
async fn saved_heads_catch_what_the_database_no_longer_shows(db: &TestDb) {
    let (store, all) = sealed_log(db).await;
    let keys = TrustedKeys::one(key().verifying_key());
    let saved = store.tree_heads().await.unwrap();
    let sizes: Vec<u64> = saved.iter().map(|h| h.tree_size).collect();
    assert_eq!(sizes, [9, 18, 27, 36]);
    let text: String = saved.iter().map(|h| h.to_json() + "\n").collect();
    assert_eq!(
        parse_heads(&text).unwrap(),
        saved,
        "the saved file reads back"
    );
    let checks = store.check_saved_heads(&saved, Some(&keys)).await.unwrap();
    assert!(checks.iter().all(|c| !c.failed()), "{checks:?}");

    // A forged head: its signature bent, or signed by a key that is not the league's.
    let mut bent = saved[1].clone();
    bent.signature[0] ^= 1;
    let mut stranger = saved[1].clone();
    {
        use ed25519_dalek::Signer as _;
        let k = SigningKey::from_bytes(&[5; 32]);
        stranger.public_key = k.verifying_key().to_bytes();
        stranger.signature = k
            .sign(&league_store::hash::tree_head_message(
                stranger.tree_size,
                stranger.signed_at,
                &stranger.root,
            ))
            .to_bytes();
    }
    let own = store
        .check_saved_heads(std::slice::from_ref(&stranger), None)
        .await
        .unwrap();
    assert_eq!(own[0].outcome, SavedHeadOutcome::Holds, "its own key");
    let checks = store
        .check_saved_heads(&[stranger], Some(&keys))
        .await
        .unwrap();
    assert_eq!(checks[0].outcome, SavedHeadOutcome::BadSignature);
    let checks = store.check_saved_heads(&[bent], Some(&keys)).await.unwrap();
    assert_eq!(checks[0].outcome, SavedHeadOutcome::BadSignature);

    // The last ten events, every seal and every head deleted: the rest verifies clean.
    for e in &all[30..] {
        store
            .execute_raw(&format!(
                "DELETE FROM events WHERE position = {}",
                e.position
            ))
            .await
            .unwrap();
    }
    store.execute_raw("DELETE FROM seals").await.unwrap();
    store.execute_raw("DELETE FROM tree_heads").await.unwrap();
    let report = store.verify(0, u64::MAX, None).await.unwrap();
    assert_eq!(report.first_break, None, "{report}");
    let checks = store.check_saved_heads(&saved, Some(&keys)).await.unwrap();
    let outcomes: Vec<&SavedHeadOutcome> = checks.iter().map(|c| &c.outcome).collect();
    assert_eq!(
        outcomes,
        [
            &SavedHeadOutcome::Holds,
            &SavedHeadOutcome::Holds,
            &SavedHeadOutcome::Holds,
            &SavedHeadOutcome::Truncated {
                events: 30,
                last_position: Some(all[29].position)
            }
        ]
    );
    assert!(
        checks[3].to_string().contains(&format!(
            "the 6 after position {} were removed",
            all[29].position
        )),
        "{}",
        checks[3]
    );

    // In another log, one event between the second and third heads deleted with the seals
    // and heads: the first two hold, the later ones name the range it lies in.
    let fresh = TestDb::new(db.kind, "saved_heads_edit").await.unwrap();
    let (store, all) = sealed_log(&fresh).await;
    let saved = store.tree_heads().await.unwrap();
    store
        .execute_raw(&format!(
            "DELETE FROM events WHERE position = {}",
            all[20].position
        ))
        .await
        .unwrap();
    store.execute_raw("DELETE FROM seals").await.unwrap();
    store.execute_raw("DELETE FROM tree_heads").await.unwrap();
    let checks = store.check_saved_heads(&saved, Some(&keys)).await.unwrap();
    assert!(!checks[0].failed() && !checks[1].failed(), "{checks:?}");
    assert_eq!(
        checks[2].outcome,
        SavedHeadOutcome::Differs {
            from: all[17].position + 1,
            to: all[27].position
        }
    );
    assert!(checks[3].failed());
    fresh.cleanup().await;
}

async fn verify_reports_tampering_at_the_right_position(db: &TestDb) {
    let (store, all) = sealed_log(db).await;
    let pg = db.kind == Kind::Postgres;

    // One byte of one payload: {"n":10071} -> {"n":10079}.
    let p = all[17].position;
    let sql = if pg {
        format!("UPDATE events SET payload = set_byte(payload, 9, 57) WHERE position = {p}")
    } else {
        format!(
            "UPDATE events SET payload = CAST(substr(payload, 1, 9) || '9' || substr(payload, 11) AS BLOB) WHERE position = {p}"
        )
    };
    assert_eq!(store.execute_raw(&sql).await.unwrap(), 1);
    assert_ne!(
        store.read_all(p, 1).await.unwrap()[0].payload,
        all[17].payload
    );
    expect_break(&store, p, |k| *k == BreakKind::HashMismatch).await;
    // A range that ends before the edit does not see it; one that covers it does.
    assert_eq!(
        store
            .verify(0, p - 1, Some(&key().verifying_key()))
            .await
            .unwrap()
            .first_break,
        None
    );
    assert_eq!(
        store
            .verify(p, p, Some(&key().verifying_key()))
            .await
            .unwrap()
            .first_break
            .unwrap()
            .position,
        p
    );
    // Put it back: verify passes again.
    let restore = if pg {
        format!(
            "UPDATE events SET payload = set_byte(payload, 9, {}) WHERE position = {p}",
            all[17].payload[9]
        )
    } else {
        format!(
            "UPDATE events SET payload = CAST(substr(payload, 1, 9) || '{}' || substr(payload, 11) AS BLOB) WHERE position = {p}",
            char::from(all[17].payload[9])
        )
    };
    store.execute_raw(&restore).await.unwrap();
    assert_eq!(
        store.verify(0, u64::MAX, None).await.unwrap().first_break,
        None
    );

    // Two events of different streams swapped.
    let other = (25..40)
        .find(|i| all[*i].stream_id != all[5].stream_id)
        .unwrap();
    let (a, b) = (all[5].position, all[other].position);
    store
        .execute_raw(&format!(
            "UPDATE events SET position = -1 WHERE position = {a}; \
             UPDATE events SET position = {a} WHERE position = {b}; \
             UPDATE events SET position = {b} WHERE position = -1;"
        ))
        .await
        .unwrap();
    expect_break(&store, a, |k| *k == BreakKind::LeafMismatch).await;
    store
        .execute_raw(&format!(
            "UPDATE events SET position = -1 WHERE position = {a}; \
             UPDATE events SET position = {a} WHERE position = {b}; \
             UPDATE events SET position = {b} WHERE position = -1;"
        ))
        .await
        .unwrap();
    assert_eq!(
        store.verify(0, u64::MAX, None).await.unwrap().first_break,
        None
    );

    // An event deleted.
    let d = all[22].position;
    assert_eq!(
        store
            .execute_raw(&format!("DELETE FROM events WHERE position = {d}"))
            .await
            .unwrap(),
        1
    );
    expect_break(&store, d, |k| *k == BreakKind::MissingEvent).await;

    // Deletion and reordering in the unsealed tail are caught by the stream chains.
    let fresh = TestDb::new(db.kind, "tamper_tail").await.unwrap();
    let store = fresh.open().await;
    for i in 0..6u64 {
        store
            .append(
                "only",
                ExpectedVersion::Any,
                &[ev("T", &format!("{i}"))],
                None,
            )
            .await
            .unwrap();
    }
    settle(&store).await;
    let tail = read_everything(&store).await;
    store
        .execute_raw(&format!(
            "DELETE FROM events WHERE position = {}",
            tail[2].position
        ))
        .await
        .unwrap();
    expect_break(&store, tail[3].position, |k| {
        matches!(
            k,
            BreakKind::VersionGap {
                expected: 3,
                found: 4,
                ..
            }
        )
    })
    .await;
    let (a, b) = (tail[4].position, tail[5].position);
    store
        .execute_raw(&format!(
            "UPDATE events SET position = -1 WHERE position = {a}; \
             UPDATE events SET position = {a} WHERE position = {b}; \
             UPDATE events SET position = {b} WHERE position = -1;"
        ))
        .await
        .unwrap();
    let report = store.verify(a, u64::MAX, None).await.unwrap();
    assert_eq!(
        report.first_break.as_ref().map(|b| b.position),
        Some(a),
        "{report}"
    );
    store.close().await;
    fresh.cleanup().await;
}

/// Every event has an id: a UUIDv7 stored with it and covered by its hash, the same on
/// every read; clearing or changing it is an edit `verify` finds; two events cannot share
/// one. An event stored without one (as every event before event ids was) reads with the
/// id derived from its hash, and verifies.
async fn every_event_has_an_id_that_its_hash_covers(db: &TestDb) {
    let (store, all) = sealed_log(db).await;
    let ids: Vec<_> = all
        .iter()
        .map(|e| e.stored_id.expect("a stored id"))
        .collect();
    assert!(ids.iter().all(|id| id.0.get_version_num() == 7));
    assert_eq!(ids.iter().collect::<HashSet<_>>().len(), all.len());
    assert!(all.iter().all(|e| e.id() == e.stored_id.unwrap()));
    // The same through a stream read and a page read.
    for e in &all {
        let again = store
            .read_stream(&e.stream_id, e.stream_version)
            .await
            .unwrap();
        assert_eq!(again[0].id(), e.id());
    }
    assert_eq!(read_in_pages(&store, 7).await, all);

    let kind = db.kind;
    let p = all[11].position;
    let original = hex_literal(kind, all[11].stored_id.unwrap().as_bytes());
    for edit in [
        "NULL".to_owned(),
        hex_literal(kind, EventId::new_v7().as_bytes()),
    ] {
        let sql = format!("UPDATE events SET event_id = {edit} WHERE position = {p}");
        assert_eq!(store.execute_raw(&sql).await.unwrap(), 1);
        expect_break(&store, p, |k| *k == BreakKind::HashMismatch).await;
    }
    store
        .execute_raw(&format!(
            "UPDATE events SET event_id = {original} WHERE position = {p}"
        ))
        .await
        .unwrap();
    assert_eq!(
        store.verify(0, u64::MAX, None).await.unwrap().first_break,
        None
    );
    // Another event's id is refused by the store itself.
    let duplicate = store
        .execute_raw(&format!(
            "UPDATE events SET event_id = {original} WHERE position = {}",
            all[12].position
        ))
        .await;
    assert!(duplicate.is_err(), "{duplicate:?}");

    // An event as a release before event ids stored it: no id, the v1 hash.
    let appended = store
        .append(
            "before-ids",
            ExpectedVersion::NoStream,
            &[ev("T", "{}")],
            None,
        )
        .await
        .unwrap();
    let e = store.read_stream("before-ids", 1).await.unwrap().remove(0);
    let v1 = league_store::hash::event_hash(&league_store::hash::EventFields {
        event_id: None,
        ..e.hash_fields()
    });
    store
        .execute_raw(&format!(
            "UPDATE events SET event_id = NULL, hash = {} WHERE position = {}",
            hex_literal(kind, &v1),
            appended.first_position
        ))
        .await
        .unwrap();
    let old = store.read_stream("before-ids", 1).await.unwrap().remove(0);
    assert_eq!(old.stored_id, None);
    assert_eq!(old.id(), EventId::derived(&v1));
    assert_eq!(old.id().0.get_version_num(), 8);
    assert_eq!(
        store.read_stream("before-ids", 1).await.unwrap()[0].id(),
        old.id()
    );
    settle(&store).await;
    store.seal_all(&sealer(7, 9)).await.unwrap();
    assert_eq!(
        store
            .verify(0, u64::MAX, Some(&key().verifying_key()))
            .await
            .unwrap()
            .first_break,
        None
    );
    // The next event of that stream gets an id of its own and chains onto the old hash.
    store
        .append(
            "before-ids",
            ExpectedVersion::Exact(1),
            &[ev("T", "{}")],
            None,
        )
        .await
        .unwrap();
    let next = store.read_stream("before-ids", 2).await.unwrap().remove(0);
    assert_eq!(next.prev_hash, v1);
    assert!(next.stored_id.is_some());
    assert_eq!(
        store.verify(0, u64::MAX, None).await.unwrap().first_break,
        None
    );
}

async fn proofs_from_the_store_verify_against_signed_heads(db: &TestDb) {
    let store = db.open().await;
    let mut positions = Vec::new();
    for i in 0..60u64 {
        let a = store
            .append(
                &format!("p{}", i % 4),
                ExpectedVersion::Any,
                &[ev("T", &format!("{i}"))],
                None,
            )
            .await
            .unwrap();
        positions.push(a.first_position);
        if i % 13 == 12 {
            settle(&store).await;
            store.seal_all(&sealer(10, 7)).await.unwrap();
        }
    }
    settle(&store).await;
    let last = store.seal_all(&sealer(10, 7)).await.unwrap();
    assert_eq!(last.tree_size, 60);
    let heads = store.tree_heads().await.unwrap();
    assert!(heads.len() >= 4, "{} heads", heads.len());
    let vk = key().verifying_key();
    for h in &heads {
        assert!(h.verify(&vk));
        assert_eq!(store.tree_root(h.tree_size).await.unwrap(), h.root);
        let size = usize::try_from(h.tree_size).unwrap();
        for (i, p) in positions[..size].iter().enumerate() {
            let proof = store.inclusion_proof(*p, h.tree_size).await.unwrap();
            assert_eq!(proof.leaf_index, u64::try_from(i).unwrap());
            assert!(
                proof.verify(&h.root),
                "position {p} in tree {}",
                h.tree_size
            );
            let e = &store.read_all(*p, 1).await.unwrap()[0];
            assert_eq!(proof.leaf_hash, merkle::leaf_hash(&e.hash));
        }
        assert!(
            store
                .inclusion_proof(positions[size.min(59)] + u64::from(size == 60), h.tree_size)
                .await
                .is_err()
                || size == 60
        );
    }
    for pair in heads.windows(2) {
        let (old, new) = (&pair[0], &pair[1]);
        let proof = store
            .consistency_proof(old.tree_size, new.tree_size)
            .await
            .unwrap();
        assert!(merkle::verify_consistency(
            old.tree_size,
            new.tree_size,
            &old.root,
            &new.root,
            &proof
        ));
        assert!(!merkle::verify_consistency(
            old.tree_size,
            new.tree_size,
            &new.root,
            &new.root,
            &proof
        ));
    }
    let first = &heads[0];
    let newest = heads.last().unwrap();
    let proof = store
        .consistency_proof(first.tree_size, newest.tree_size)
        .await
        .unwrap();
    assert!(merkle::verify_consistency(
        first.tree_size,
        newest.tree_size,
        &first.root,
        &newest.root,
        &proof
    ));
    assert!(store.consistency_proof(1, 61).await.is_err());
    let seen: HashSet<u64> = heads.iter().map(|h| h.tree_size).collect();
    assert_eq!(seen.len(), heads.len());
}

async fn a_subscriber_in_another_instance_is_woken_by_the_sealer(db: &TestDb) {
    // Two stores on one database stand for two processes: B only learns of A's appends
    // through the database (NOTIFY from A's sealer on PostgreSQL, its poll on SQLite).
    let a = db.open().await;
    let b = Store::open_with(
        &db.url,
        StoreOptions {
            poll_interval: if db.kind == Kind::Postgres {
                Duration::from_secs(60)
            } else {
                Duration::from_millis(100)
            },
            ..db.options()
        },
    )
    .await
    .unwrap();
    let _sealer = a.spawn_sealer(sealer(1_000, 1_000));
    let mut sub = b.subscribe_all(0);
    tokio::time::sleep(Duration::from_millis(200)).await; // B is listening and caught up
    assert!(sub.try_next().await.unwrap().is_none());

    let started = Instant::now();
    let appended = a
        .append("x", ExpectedVersion::Any, &[ev("T", "1")], None)
        .await
        .unwrap();
    let e = tokio::time::timeout(Duration::from_secs(10), sub.next())
        .await
        .expect("woken well before the poll")
        .unwrap();

    assert_eq!(e.position, appended.first_position);
    assert!(started.elapsed() < Duration::from_secs(5));
    // And a local subscriber is woken at once by a local append.
    let mut local = a.subscribe_all(e.position + 1);
    let second = a
        .append("x", ExpectedVersion::Any, &[ev("T", "2")], None)
        .await
        .unwrap();
    let e2 = tokio::time::timeout(Duration::from_secs(5), local.next())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(e2.position, second.first_position);
}

async fn an_open_older_transaction_holds_readers_back_instead_of_letting_them_skip(db: &TestDb) {
    let store = db.open().await;
    // An empty log has no head, and nothing to wait for.
    assert_eq!(store.log_head().await.unwrap(), (None, true));
    let first = store
        .append("a", ExpectedVersion::Any, &[ev("T", "1")], None)
        .await
        .unwrap();
    settle(&store).await;
    assert_eq!(
        store.log_head().await.unwrap(),
        (Some(first.first_position), true)
    );
    if db.kind == Kind::Sqlite {
        // One writer at a time: an append cannot commit "behind" another. Nothing to hold.
        assert_eq!(store.read_all(0, 10).await.unwrap().len(), 1);
        return;
    }
    // Arrange: a transaction that took its xid first and has not committed yet (as an
    // append that is slow to commit would be).
    let opts: sqlx::postgres::PgConnectOptions = db.url.parse().unwrap();
    let opts = opts.options([("search_path", db.schema.as_deref().unwrap())]);
    let mut older = sqlx::PgConnection::connect_with(&opts).await.unwrap();
    let mut tx = older.begin().await.unwrap();
    sqlx::query("SELECT pg_current_xact_id()")
        .execute(&mut *tx)
        .await
        .unwrap();

    // Act: a younger append commits first.
    let younger = store
        .append("b", ExpectedVersion::Any, &[ev("T", "2")], None)
        .await
        .unwrap();

    // Assert: readers do not see the younger event while the older transaction is open...
    let visible = store.read_all(0, 10).await.unwrap();
    assert_eq!(
        visible.iter().map(|e| e.position).collect::<Vec<_>>(),
        [first.first_position]
    );
    assert!(
        !store
            .wait_readable(younger.first_position, Duration::from_millis(200))
            .await
            .unwrap()
    );
    // The head names the younger event, in the same statement that says it cannot be
    // read yet (what a mutation's catch-up asks before it decides).
    assert_eq!(
        store.log_head().await.unwrap(),
        (Some(younger.first_position), false)
    );
    let mut sub = store.subscribe_all(0);
    assert_eq!(sub.next().await.unwrap().position, first.first_position);
    assert!(sub.try_next().await.unwrap().is_none());
    // ...and see it, in order, once it has finished.
    tx.rollback().await.unwrap();
    settle(&store).await;
    assert_eq!(
        store.log_head().await.unwrap(),
        (Some(younger.first_position), true)
    );
    let e = tokio::time::timeout(Duration::from_secs(5), sub.next())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(e.position, younger.first_position);
}

async fn two_sealers_never_seal_the_same_leaves_and_a_forged_head_is_caught(db: &TestDb) {
    let a = db.open().await;
    let b = db.open().await;
    let _sa = a.spawn_sealer(sealer(25, 40));
    let _sb = b.spawn_sealer(sealer(25, 40));
    let mut last = 0;
    for i in 0..300u64 {
        let store = if i % 2 == 0 { &a } else { &b };
        last = store
            .append(
                &format!("x{}", i % 7),
                ExpectedVersion::Any,
                &[ev("T", &format!("{i}"))],
                None,
            )
            .await
            .unwrap()
            .last_position;
    }
    assert!(
        a.wait_readable(last, Duration::from_secs(30))
            .await
            .unwrap()
    );
    let deadline = Instant::now() + Duration::from_secs(30);
    while a.verify(0, u64::MAX, None).await.unwrap().tree_size < 300 {
        assert!(Instant::now() < deadline, "the sealers never caught up");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let vk = key().verifying_key();
    let report = a.verify(0, u64::MAX, Some(&vk)).await.unwrap();
    assert_eq!(report.first_break, None, "{report}");
    assert_eq!(report.tree_size, 300);
    assert!(report.tree_heads_checked >= 1);

    // A head signed by someone else, for a tree the log does not have, is reported.
    let forged = SigningKey::from_bytes(&[9; 32]);
    let heads = a.tree_heads().await.unwrap();
    let h = &heads[0];
    let message = league_store::hash::tree_head_message(h.tree_size, h.signed_at, &h.root);
    let signature = ed25519_dalek::Signer::sign(&forged, &message);
    a.execute_raw(&format!(
        "UPDATE tree_heads SET signature = {}, public_key = {} WHERE tree_size = {}",
        hex_literal(db.kind, &signature.to_bytes()),
        hex_literal(db.kind, forged.verifying_key().as_bytes()),
        h.tree_size
    ))
    .await
    .unwrap();
    let report = a.verify(0, u64::MAX, Some(&vk)).await.unwrap();
    let b = report.first_break.clone().unwrap();
    assert_eq!(
        b.kind,
        BreakKind::TreeHeadMismatch {
            tree_size: h.tree_size
        },
        "{report}"
    );
    // Without the league's key, the forged head checks out against its own key: which is
    // why the report says so.
    let unkeyed = a.verify(0, u64::MAX, None).await.unwrap();
    assert_eq!(unkeyed.first_break, None);
    assert!(unkeyed.signatures_self_checked);
}

fn hex_literal(kind: Kind, bytes: &[u8]) -> String {
    let hex = league_store::hash::to_hex(bytes);
    match kind {
        Kind::Sqlite => format!("X'{hex}'"),
        Kind::Postgres => format!("'\\x{hex}'::bytea"),
    }
}

/// An in-memory SQLite database is only reachable through sqlx's own connections, so its
/// bulk reads are sqlx's row-by-row reads: the same events as a file's.
#[tokio::test]
async fn an_in_memory_sqlite_store_reads_its_log_row_by_row() {
    let store = Store::open("sqlite::memory:").await.unwrap();
    for round in 0..60 {
        let batch: Vec<NewEvent> = (0..50)
            .map(|i| ev("E", &format!("{{\"round\":{round},\"i\":{i}}}")))
            .collect();
        store
            .append(
                &format!("s{}", round % 7),
                ExpectedVersion::Any,
                &batch,
                None,
            )
            .await
            .unwrap();
    }
    let mut oracle = Vec::new();
    for s in 0..7 {
        oracle.extend(store.read_stream(&format!("s{s}"), 1).await.unwrap());
    }
    oracle.sort_by_key(|e| e.position);
    assert_eq!(oracle.len(), 3_000);
    let at = |i: usize| oracle[i].position;
    check_bulk_reads(
        &store,
        &oracle,
        &[
            (0, 1),
            (0, 2_048),
            (at(1_000), 2_048),
            (at(2_999), 10),
            (0, 10_000),
        ],
    )
    .await;
    assert_eq!(read_everything(&store).await, oracle);
}

/// Tokens made before tokens expired get their role's lifetime from the upgrade (migration
/// 7), so an upgrade neither leaves them for ever nor cuts a device off: a database of
/// release 0.1.0 with a token of each role is opened (migrated) by this build.
#[tokio::test]
async fn tokens_made_before_expiry_expire_by_role_from_the_upgrade() {
    let golden =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/golden/0.1.0/league.db");
    let path = std::env::temp_dir().join(format!("{}.db", unique("tokens-upgrade")));
    std::fs::copy(golden, &path).unwrap();
    {
        let db = rusqlite::Connection::open(&path).unwrap();
        for (n, role) in ["admin", "auditor", "host", "player"]
            .into_iter()
            .enumerate()
        {
            db.execute(
                "INSERT INTO tokens (id, hash, role, venue, player, created_at) \
                 VALUES (?1, ?2, ?3, NULL, NULL, 0)",
                rusqlite::params![
                    format!("tok_{role}"),
                    vec![u8::try_from(n).unwrap(); 32],
                    role
                ],
            )
            .unwrap();
        }
    }
    let store = Store::open(&format!("sqlite:{}", path.display()))
        .await
        .unwrap();
    let now = store.now().as_micros();
    let day = 86_400_000_000i64;
    for (role, days) in [
        ("admin", 30),
        ("auditor", 90),
        ("host", 180),
        ("player", 365),
    ] {
        let token = store
            .tokens()
            .await
            .unwrap()
            .into_iter()
            .find(|t| t.role == role)
            .unwrap();
        let left = token.expires_at.unwrap().as_micros() - now;
        assert!(
            (days * day - 60_000_000..=days * day).contains(&left),
            "{role}: {left} µs left"
        );
        assert_eq!(token.league, None);
    }
    store.close().await;
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
}
