//! Snapshots of real logs: every golden log folded to points through its middle (tables
//! mid-hand, players busting, leagues recording), each point's snapshots restored into a
//! projector that holds exactly the state folded; and the bytes of this build's snapshot
//! format pinned, so a change of what a snapshot holds cannot ship under the same format.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::path::PathBuf;

use league_projections::Projector;
use league_projections::snapshot::FORMAT;
use league_store::{LogEntry, Store};
use league_tests::golden::{self, DATABASE};
use sha2::{Digest, Sha256};

/// A scratch copy of a golden log's database, opened, and its path (see [`close`]).
async fn golden_store(release: &str, test: &str) -> (Store, PathBuf) {
    let dir = golden::golden_dir().join(release);
    // Tests of this file run at once: each copy has a name of its own.
    static COPIES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = COPIES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let copy = std::env::temp_dir().join(format!(
        "league-golden-{release}-{test}-{}-{n}.db",
        std::process::id()
    ));
    std::fs::copy(dir.join(DATABASE), &copy).unwrap();
    let store = Store::open(&format!("sqlite:{}", copy.display()))
        .await
        .unwrap();
    (store, copy)
}

async fn close(store: Store, copy: PathBuf) {
    store.close().await;
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", copy.display()));
    }
}

/// Every event of a golden log.
async fn golden_events(release: &str) -> Vec<LogEntry> {
    let (store, copy) = golden_store(release, "log").await;
    let mut events = Vec::new();
    loop {
        let from = events.last().map_or(0, |e: &LogEntry| e.position + 1);
        let page = store.read_log(from, 10_000).await.unwrap();
        if page.is_empty() {
            break;
        }
        events.extend(page);
    }
    close(store, copy).await;
    events
}

fn releases() -> Vec<String> {
    let mut releases: Vec<String> = std::fs::read_dir(golden::golden_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join(DATABASE).exists())
        .map(|p: PathBuf| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    releases.sort();
    releases
}

fn folded(events: &[LogEntry]) -> Projector {
    let mut p = Projector::new();
    for e in events {
        p.apply_log(e).unwrap();
    }
    p
}

/// `restored` holds what `p` holds: position, events, every stream's version and state
/// (a finished tournament only listed).
fn same(restored: &Projector, p: &Projector, at: &str) {
    assert_eq!(restored.position(), p.position(), "{at}");
    assert_eq!(restored.events(), p.events(), "{at}");
    for (stream, l) in p.leagues() {
        assert_eq!(restored.league(stream), Some(l), "{at}: {stream}");
        assert_eq!(
            restored.version(stream),
            p.version(stream),
            "{at}: {stream}"
        );
    }
    for (stream, t) in p.tournaments() {
        assert_eq!(
            restored.version(stream),
            p.version(stream),
            "{at}: {stream}"
        );
        assert_eq!(
            restored.clock_set_at(stream),
            p.clock_set_at(stream),
            "{at}: {stream}"
        );
        match restored.tournament(stream) {
            Some(held) => {
                assert_eq!(held, t, "{at}: {stream}");
                for table in t.tables().keys() {
                    assert_eq!(
                        restored.hand_started_at(stream, *table),
                        p.hand_started_at(stream, *table),
                        "{at}: {stream} table {table}"
                    );
                }
            }
            None => assert!(restored.listing(stream).is_some(), "{at}: {stream}"),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_point_of_every_golden_log_restores_from_its_snapshots() {
    let mut points = 0;
    for release in releases() {
        let events = golden_events(&release).await;
        assert!(events.len() > 100, "{release}");
        // Twenty points through the log, the last one at its end.
        for k in 1..=20 {
            let n = events.len() * k / 20;
            let at = format!("golden log {release} after {n} events");
            let mut p = folded(&events[..n]);
            let (_, snapshots) = p.take_checkpoint().unwrap();
            let restored = Projector::restore(p.position(), snapshots);
            assert!(restored.ignored.is_empty(), "{at}: {:?}", restored.ignored);
            assert!(restored.refold.is_empty(), "{at}");
            let mut restored = restored.projector;
            same(&restored, &p, &at);
            // And both fold the rest of the log to the same documents.
            for e in &events[n..] {
                p.apply_log(e).unwrap();
                restored.apply_log(e).unwrap();
            }
            same(&restored, &p, &format!("{at}, then to its end"));
            let (live, _) = restored.take_checkpoint().unwrap();
            let (all, _) = p.take_checkpoint().unwrap();
            for doc in live.iter().filter(|d| !d.doc.is_empty()) {
                assert!(all.contains(doc), "{at}: {} {}", doc.kind, doc.key);
            }
            points += 1;
        }
    }
    assert!(points >= 120, "{points}");
}

/// SHA-256 of the snapshots of golden log 0.6.0 folded to its middle, in format
/// [`FORMAT`]. A change of what a snapshot holds (a field of an aggregate added, renamed or
/// encoded otherwise) changes these bytes: raise `FORMAT` (so that snapshots written before
/// are folded again rather than misread) and pin the new digest here.
const PINNED: (u32, &str) = (
    10,
    "fcd9140c7a50a55b08609966e37bc85bad802ce3e02e2f6ddefb6fb2f4cea1a2",
);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_snapshot_keeps_its_format() {
    let events = golden_events("0.6.0").await;
    let mut p = folded(&events[..events.len() / 2]);
    let (_, snapshots) = p.take_checkpoint().unwrap();
    assert!(
        snapshots
            .iter()
            .any(|s| s.state.starts_with(b"{\"clock_set\"")
                && String::from_utf8_lossy(&s.state).contains("\"Tournament\"")),
        "the middle of the log has a running tournament"
    );
    let mut digest = Sha256::new();
    // The streams' rows (the manifest names the release, which moves on its own).
    for s in snapshots.iter().filter(|s| !s.stream.is_empty()) {
        digest.update(s.stream.as_bytes());
        digest.update([0]);
        digest.update(&s.state);
        digest.update([0]);
    }
    let digest = league_store::hash::to_hex(&digest.finalize());
    assert_eq!(
        (FORMAT, digest.as_str()),
        PINNED,
        "the snapshot's bytes changed: if what a snapshot holds changed, raise \
         league_projections::snapshot::FORMAT and pin the new digest"
    );
}

/// A released tournament that gets a new event (a finished tournament still takes a late
/// arrival): folded onto a released state it is refused, never folded onto nothing; held
/// again from its stream it folds as the whole log would; and one changed after the
/// checkpoint that listed it is not released by that checkpoint's write.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_released_tournament_is_held_again_before_a_new_event_is_folded() {
    let events = golden_events("0.6.0").await;
    let mut p = folded(&events);
    let (_, _) = p.take_checkpoint().unwrap();
    let end = p.position().unwrap();
    let stream = p
        .tournaments()
        .map(|(s, _)| s.clone())
        .next()
        .expect("a finished tournament");
    let whole = folded(&events);
    // A copy of the stream's last event, as its next one.
    let own: Vec<&LogEntry> = events.iter().filter(|e| *e.stream_id == *stream).collect();
    let last = (*own.last().unwrap()).clone();
    let next = LogEntry {
        position: end + 1,
        stream_version: last.stream_version + 1,
        ..last
    };

    // Changed after the checkpoint: that checkpoint's write does not release it.
    let mut changed = folded(&events);
    let _ = changed.take_checkpoint().unwrap();
    changed.apply_log(&next).unwrap();
    changed.release_written(end);
    assert!(changed.tournament(&stream).is_some());

    p.release_written(end);
    assert!(p.tournament(&stream).is_none());
    assert!(p.listing(&stream).is_some());
    let refused = p.apply_log(&next).unwrap_err();
    assert!(
        matches!(refused, league_projections::ProjectionError::NotHeld { .. }),
        "{refused}"
    );
    assert_eq!(p.position(), Some(end), "nothing folded");
    let (store, copy) = golden_store("0.6.0", "stream").await;
    let recorded = store.read_stream(&stream, 1).await.unwrap();
    close(store, copy).await;
    assert_eq!(recorded.len(), own.len());
    p.rehydrate(&stream, &recorded).unwrap();
    assert_eq!(p.tournament(&stream), whole.tournament(&stream));
    p.apply_log(&next).unwrap();
    changed.take_checkpoint().unwrap();
    assert_eq!(p.tournament(&stream), changed.tournament(&stream));
    assert_eq!(p.version(&stream), next.stream_version);
}
