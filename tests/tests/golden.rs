//! Every golden log (`tests/golden/<release>/`, see `league_tests::golden`) still opens,
//! migrates forward, verifies against its public key, and rebuilds into the read models
//! recorded beside it; this release's golden log holds every event type it writes.

#![expect(clippy::unwrap_used, clippy::expect_used, reason = "a test")]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use league_engine::rules::Preset;
use league_engine::tournament::play::Tracking;
use league_events::{CATALOGUE, RELEASE, StreamKind};
use league_store::hash::from_hex;
use league_store::{Store, VerifyingKey};
use league_tests::golden::{self, DATABASE, PUBLIC_KEY, READ_MODELS};
use serde_json::Value;
use sha2::{Digest as _, Sha256};

/// Fields added to a read model after a golden log was written compare by their documented
/// default: `(field name, default)`. A field listed here must say in `CHANGELOG.md` which
/// release added it and what it reads as for older logs.
///
/// A table's view of the hand in progress (added after 0.1.0): between hands, as every
/// table of a finished tournament is, each reads as its default.
const ADDED_FIELDS: &[(&str, FieldDefault)] = &[
    ("bet", || Value::from(0)),
    ("street", || Value::Null),
    ("legal", || Value::Null),
    ("to_show", || Value::Null),
    ("awaiting_board", || Value::Null),
    ("pots", || Value::Array(Vec::new())),
    ("blinds", || Value::Null),
    // A tournament's clock and pending actions (added after 0.1.0): null, 0 or empty
    // unless it is running, and every tournament of a golden log is finished.
    ("level_ends_at", || Value::Null),
    ("next_level", || Value::Null),
    ("next_break_at", || Value::Null),
    ("average_stack", || Value::from(0)),
    ("pending", || Value::Array(Vec::new())),
    // A cancelled tournament's reason and refunds (added in 0.2.0): null for every other.
    ("cancelled", || Value::Null),
    // When a tournament is scheduled to start (added in 0.5.0): every golden log's
    // tournaments were scheduled at 0.
    ("starts_at", || Value::from(0)),
];

/// A field's documented default.
type FieldDefault = fn() -> Value;

/// Read-model fields a release added that an older log fills from events it already
/// held, so an older golden log's recorded models lack them whatever their value: `(field,
/// release)`. From that release on, the golden log records and pins them.
const DERIVED_FIELDS: &[(&str, &str)] = &[
    // The penalties given, the least next one where penalties escalate, and the hands
    // players still in have left to sit out (0.15.0).
    ("penalties", "0.15.0"),
    ("least_penalties", "0.15.0"),
    ("sitting_out", "0.15.0"),
];

/// Whether release `a` is older than release `b` ("0.9.0" < "0.15.0").
fn older(a: &str, b: &str) -> bool {
    let parse = |r: &str| -> Vec<u32> { r.split('.').map(|n| n.parse().unwrap()).collect() };
    parse(a) < parse(b)
}

/// The golden logs, oldest release first.
fn golden_logs() -> Vec<(String, PathBuf)> {
    let mut logs: Vec<(String, PathBuf)> = std::fs::read_dir(golden::golden_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join(DATABASE).exists())
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), p))
        .collect();
    let order = |r: &str| league_store::store::releases::Release::parse(r).expect("a release");
    logs.sort_by_key(|(r, _)| order(r));
    logs
}

/// `actual` holds everything `recorded` does; a field only in `actual` must be one added
/// later, at its default.
fn compare(path: &str, recorded: &Value, actual: &Value, problems: &mut Vec<String>) {
    match (recorded, actual) {
        (Value::Object(r), Value::Object(a)) => {
            for (k, rv) in r {
                match a.get(k) {
                    Some(av) => compare(&format!("{path}.{k}"), rv, av, problems),
                    None => problems.push(format!("{path}.{k}: missing")),
                }
            }
            for (k, av) in a {
                if r.contains_key(k) {
                    continue;
                }
                // Every path starts with its release ("0.14.0.tournament/...").
                let release = path.split('.').take(3).collect::<Vec<_>>().join(".");
                if DERIVED_FIELDS
                    .iter()
                    .any(|(name, added)| name == k && older(&release, added))
                {
                    continue;
                }
                match ADDED_FIELDS.iter().find(|(name, _)| name == k) {
                    Some((_, default)) if *av == default() => {}
                    _ => problems.push(format!("{path}.{k}: not in the recorded model")),
                }
            }
        }
        (Value::Array(r), Value::Array(a)) if r.len() == a.len() => {
            for (i, (rv, av)) in r.iter().zip(a).enumerate() {
                compare(&format!("{path}[{i}]"), rv, av, problems);
            }
        }
        _ if recorded == actual => {}
        _ => problems.push(format!("{path}: recorded {recorded}, rebuilt {actual}")),
    }
}

/// A copy of a golden log's database, so the checked-in file is never written to.
fn scratch_copy(release: &str, dir: &Path, test: &str) -> PathBuf {
    let copy = std::env::temp_dir().join(format!(
        "league-golden-{release}-{test}-{}.db",
        std::process::id()
    ));
    std::fs::copy(dir.join(DATABASE), &copy).unwrap();
    copy
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_golden_log_migrates_verifies_and_rebuilds_into_its_read_models() {
    let logs = golden_logs();
    assert!(
        logs.iter().any(|(r, _)| r == RELEASE),
        "release {RELEASE} has no golden log: run `cargo run -p league-tests --bin write-golden` and check in tests/golden/{RELEASE}"
    );
    for (release, dir) in &logs {
        let copy = scratch_copy(release, dir, "replay");
        let store = Store::open(&format!("sqlite:{}", copy.display()))
            .await
            .unwrap_or_else(|e| panic!("golden log {release} does not open: {e}"));

        let hex = std::fs::read_to_string(dir.join(PUBLIC_KEY)).unwrap();
        let bytes: [u8; 32] = from_hex(hex.trim()).unwrap().try_into().unwrap();
        let key = VerifyingKey::from_bytes(&bytes).unwrap();
        let report = store.verify(0, u64::MAX, Some(&key)).await.unwrap();
        assert!(
            report.first_break.is_none(),
            "golden log {release}: {report:?}"
        );
        assert!(!report.signatures_self_checked, "{report:?}");
        assert!(
            report.tree_heads_checked > 0,
            "golden log {release} has no signed tree head"
        );
        assert_eq!(
            report.tree_size, report.events_checked,
            "golden log {release} is not sealed to its end"
        );

        let rebuilt = league_app::rebuild::rebuild(&store, None)
            .await
            .unwrap_or_else(|e| panic!("golden log {release} does not rebuild: {e}"));
        let recorded: Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join(READ_MODELS)).unwrap()).unwrap();
        let mut actual = serde_json::Map::new();
        for doc in rebuilt.projector.docs().unwrap() {
            actual.insert(
                format!("{}/{}", doc.kind, doc.key),
                serde_json::from_slice(&doc.doc).unwrap(),
            );
        }
        let mut problems = Vec::new();
        compare(release, &recorded, &Value::Object(actual), &mut problems);
        assert!(
            problems.is_empty(),
            "golden log {release} rebuilds into other read models:\n{}",
            problems.join("\n")
        );
        store.close().await;
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", copy.display()));
        }
    }
}

/// The ids of the events of the golden logs written before event ids, derived from their
/// stored hashes (`EventId::derived`), pinned: `(release, events, first id, last id,
/// SHA-256 of every id in log order joined by newlines)`. Computed from the log files by
/// the rule in `docs/event-store.md` in Python (`sqlite3`, `hashlib`, `uuid`), not by this
/// code, so a change of the rule or of the bytes read shows here.
const DERIVED_IDS: &[(&str, usize, &str, &str, &str)] = &[
    (
        "0.1.0",
        7698,
        "8bc37ea6-752e-8092-948d-2662cf850b7d",
        "5970668d-612b-82b4-934f-ea68109a12de",
        "6443985afe2ab912efb2704b7032e14c35ea2dba3ff4c7af82ed6bf7de0c4904",
    ),
    (
        "0.2.0",
        7712,
        "7c024d55-e8c1-8b1a-8de0-b6bfd5cdfa82",
        "7437157a-f0cd-8245-8c5a-ad636c9e1c4c",
        "3acb7f887b407de9c1a311161fff7ba5ac39ff008c8ccdb1f8bdea7573204f2b",
    ),
    (
        "0.3.0",
        7679,
        "c64924a8-eaaa-86b6-9b4b-d759755329a1",
        "dff66a74-9410-8cd9-955a-3bb0ef6d5b12",
        "9454df65ab39539b29c43f434d6aab02e4b8a5e9068768b5581ea6d1ac2354f3",
    ),
    (
        "0.4.0",
        7680,
        "1c43ee26-ba3e-89f9-815f-1f9d6d02a222",
        "5ab9e926-cc02-8ea8-ba03-5eb4bd053bc3",
        "5a56a4168856ad193ab852babfb0b86252409beef458df8e2e2da6a6661a77c1",
    ),
    (
        "0.5.0",
        7681,
        "49c725f0-c272-83cf-bfe3-c3f2d2954aa8",
        "e6e5df29-87a4-8ee6-a72f-4c0014b0a6eb",
        "c0fb10bac4202c2bab517fc2390d8f5f5d8e0c6614608cd82141d2b1548dd5e5",
    ),
];

/// Every event of a golden log has an id: derived from its hash for the logs written
/// before event ids (the same on every run: pinned above), stored with it for the later
/// ones. Migrating a log forward rewrites none of its bytes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_golden_event_keeps_its_id() {
    for (release, dir) in &golden_logs() {
        let copy = scratch_copy(release, dir, "ids");
        let store = Store::open(&format!("sqlite:{}", copy.display()))
            .await
            .unwrap();
        let events = store.read_all(0, 1_000_000).await.unwrap();
        let ids: Vec<String> = events.iter().map(|e| e.id().to_string()).collect();
        match DERIVED_IDS.iter().find(|(r, ..)| r == release) {
            Some((_, count, first, last, digest)) => {
                assert!(events.iter().all(|e| e.stored_id.is_none()), "{release}");
                assert_eq!(ids.len(), *count, "{release}");
                assert_eq!(ids.first().map(String::as_str), Some(*first), "{release}");
                assert_eq!(ids.last().map(String::as_str), Some(*last), "{release}");
                let joined = ids.join("\n");
                assert_eq!(
                    league_store::hash::to_hex(&Sha256::digest(joined.as_bytes())),
                    *digest,
                    "{release}"
                );
            }
            None => {
                assert!(
                    events.iter().all(|e| e.stored_id.is_some()),
                    "golden log {release} was written with event ids: every event stores one"
                );
            }
        }
        assert_eq!(
            ids.iter().collect::<BTreeSet<_>>().len(),
            ids.len(),
            "{release}: ids are unique"
        );
        store.close().await;
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", copy.display()));
        }
    }
}

/// Every hand of every golden log has one id, unique in its tournament: the one its
/// command named (release 0.6.0 on, where a hand named one), else the id derived from its
/// place among the tournament's hands, which a redraw or a table opened again does not
/// repeat (the table's own hand numbers start again from 1).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_golden_hand_has_one_id() {
    use league_projections::views::{Viewer, table_view};
    for (release, dir) in &golden_logs() {
        let copy = scratch_copy(release, dir, "hands");
        let store = Store::open(&format!("sqlite:{}", copy.display()))
            .await
            .unwrap();
        let mut projector = league_projections::Projector::new();
        let mut ids: std::collections::BTreeMap<String, BTreeSet<String>> = Default::default();
        let (mut hands, mut named, mut renumbered) = (0usize, 0usize, 0usize);
        let mut numbers: BTreeSet<(String, u32, u32)> = BTreeSet::new();
        for event in store.read_all(0, 1_000_000).await.unwrap() {
            projector.apply(&event).unwrap();
            if event.event_type != "TableHandStarted" {
                continue;
            }
            let payload: Value = serde_json::from_slice(&event.payload).unwrap();
            let table = u32::try_from(payload["data"]["table"].as_u64().unwrap()).unwrap();
            let tournament = StreamKind::Tournament.id_of(&event.stream_id).unwrap();
            let t = projector.tournament(&event.stream_id).unwrap();
            let view = table_view(t, table, &Viewer::Public).unwrap();
            let id = league_api::schema::object_ids::hand_id(tournament, &view).unwrap();
            match payload["data"]["hand_id"].as_str() {
                Some(stored) => {
                    assert_eq!(id, stored, "{release}");
                    named += 1;
                }
                None => assert_eq!(
                    uuid::Uuid::try_parse(&id).unwrap().get_version_num(),
                    8,
                    "{release}"
                ),
            }
            if !numbers.insert((tournament.to_owned(), table, view.hand)) {
                renumbered += 1;
            }
            assert!(
                ids.entry(tournament.to_owned())
                    .or_default()
                    .insert(id.clone()),
                "{release}: hand id {id} twice in {tournament}"
            );
            hands += 1;
        }
        assert!(hands > 0, "{release}");
        // The golden logs have redraws: table numbers and hand numbers repeat, ids do not.
        assert!(renumbered > 0, "{release}: no hand number repeated");
        let order = |r: &str| league_store::store::releases::Release::parse(r).unwrap();
        if order(release) >= order("0.6.0") {
            assert!(
                named > 0 && named < hands,
                "{release}: {named} of {hands} named"
            );
        } else {
            assert_eq!(named, 0, "{release}");
        }
        store.close().await;
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", copy.display()));
        }
    }
}

/// An older release's database verifies as it is, without the migration that added event
/// ids: `league audit verify` opens it without migrating, since an audit must not change
/// what it audits.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_older_log_verifies_without_being_migrated() {
    for (release, dir) in &golden_logs() {
        if !DERIVED_IDS.iter().any(|(r, ..)| r == release) {
            continue;
        }
        let copy = scratch_copy(release, dir, "unmigrated");
        let options = league_store::StoreOptions {
            migrate: false,
            ..league_store::StoreOptions::default()
        };
        let store = Store::open_with(&format!("sqlite:{}", copy.display()), options)
            .await
            .unwrap();
        let hex = std::fs::read_to_string(dir.join(PUBLIC_KEY)).unwrap();
        let bytes: [u8; 32] = from_hex(hex.trim()).unwrap().try_into().unwrap();
        let key = VerifyingKey::from_bytes(&bytes).unwrap();
        let report = store.verify(0, u64::MAX, Some(&key)).await.unwrap();
        assert!(
            report.first_break.is_none(),
            "golden log {release}: {report:?}"
        );
        assert!(report.events_checked > 0, "{release}");
        let first = store.event_at("league:apl", 1).await.unwrap();
        if let Some(first) = first {
            assert_eq!(first.stored_id, None);
        }
        store.close().await;
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", copy.display()));
        }
    }
}

/// Every hand and outcome (finish, payouts, deal, league result, re-scoring) of every
/// golden log, as each release decided it, is decided again by this release's engine to the
/// same events (`league audit verify`'s re-derivation), on the
/// database as that release left it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_golden_logs_hands_rederive() {
    for (release, dir) in &golden_logs() {
        let copy = scratch_copy(release, dir, "rederive");
        let options = league_store::StoreOptions {
            migrate: false,
            ..league_store::StoreOptions::default()
        };
        let store = Store::open_with(&format!("sqlite:{}", copy.display()), options)
            .await
            .unwrap();
        let found = league_app::audit::rederive(&store, 0, u64::MAX)
            .await
            .unwrap();
        assert!(
            found.hands > 200 && found.seeded > 100,
            "{release}: {found:?}"
        );
        // Every golden log holds each kind of outcome.
        let o = found.outcomes;
        assert!(
            o.finishes > 0 && o.payouts > 0 && o.deals > 0 && o.results > 0 && o.rescorings > 0,
            "{release}: {o:?}"
        );
        assert!(
            found.failures.is_empty(),
            "{release}: {:#?}",
            found.failures
        );
        store.close().await;
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", copy.display()));
        }
    }
}

/// This release's golden log holds every event type at the version this release writes,
/// and every kind of hand event.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn this_releases_golden_log_holds_every_event_type_it_writes() {
    let dir = golden::golden_dir().join(RELEASE);
    let copy = scratch_copy(RELEASE, &dir, "coverage");
    let store = Store::open(&format!("sqlite:{}", copy.display()))
        .await
        .unwrap();
    let mut seen = BTreeSet::new();
    let mut hand_kinds = BTreeSet::new();
    let mut schedules = BTreeSet::new();
    let mut from = 0;
    loop {
        let page = store.read_all(from, 4_096).await.unwrap();
        let Some(last) = page.last() else { break };
        from = last.position + 1;
        for e in &page {
            let kind = StreamKind::of(&e.stream_id).expect("a known stream kind");
            seen.insert((kind.name(), e.event_type.clone(), e.schema_version));
            if e.event_type == "TournamentScheduled" {
                let value: Value = serde_json::from_slice(&e.payload).unwrap();
                let schedule = &value["data"]["schedule"];
                schedules.insert(("preset", schedule["preset"].as_str().unwrap().to_owned()));
                schedules.insert((
                    "tracking",
                    schedule["tracking"].as_str().unwrap().to_owned(),
                ));
            }
            if e.event_type == "HandEvent" {
                let value: Value = serde_json::from_slice(&e.payload).unwrap();
                hand_kinds.insert(value["data"]["event"]["type"].as_str().unwrap().to_owned());
            }
        }
    }
    let missing: Vec<String> = CATALOGUE
        .iter()
        .filter(|t| !seen.contains(&(t.kind.name(), t.name.to_owned(), t.version)))
        .map(|t| format!("{} {} v{}", t.kind, t.name, t.version))
        .collect();
    assert!(
        missing.is_empty(),
        "not in the golden log of {RELEASE}: {missing:?}"
    );
    let missing: Vec<&str> = league_events::versions::HAND_EVENTS
        .iter()
        .filter(|k| !hand_kinds.contains(**k))
        .copied()
        .collect();
    assert!(
        missing.is_empty(),
        "hand events not in the golden log of {RELEASE}: {missing:?}"
    );
    // Every preset and every tracking mode, by the names a schedule writes.
    let name = |v: Value| v.as_str().unwrap().to_owned();
    let wanted = Preset::ALL
        .iter()
        .map(|p| ("preset", name(serde_json::to_value(p).unwrap())))
        .chain(
            [Tracking::Dealt, Tracking::Recorded, Tracking::Results]
                .iter()
                .map(|t| ("tracking", name(serde_json::to_value(t).unwrap()))),
        );
    for (what, value) in wanted {
        assert!(
            schedules.contains(&(what, value.clone())),
            "no tournament with {what} {value} in the golden log of {RELEASE}"
        );
    }
    store.close().await;
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", copy.display()));
    }
}
