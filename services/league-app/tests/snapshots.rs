//! Start-up from snapshots, on SQLite and PostgreSQL: after a simulated season, a projector
//! started again folds no event of the log and holds exactly what a rebuild from position 0
//! holds (every league, every running tournament; a finished tournament only listed, its
//! state read back from its stream on request). A snapshot that cannot be used (its bytes
//! changed, a format this build does not read, a row missing) is never trusted: its stream,
//! or the whole log, is folded again, to the same state.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::time::Duration;

use league_app::live::Live;
use league_app::{PROJECTION, rebuild, simulate};
use league_engine::tournament::play::Stage;
use league_projections::Projector;
use league_store::{Backend, Store};
use league_testkit::Scratch;

fn postgres_url() -> Option<String> {
    let url = std::env::var("LEAGUE_TEST_POSTGRES_URL").ok();
    if url.is_none() {
        assert!(
            std::env::var("LEAGUE_REQUIRE_POSTGRES").is_err(),
            "LEAGUE_REQUIRE_POSTGRES is set but LEAGUE_TEST_POSTGRES_URL is not"
        );
        eprintln!("skipped: LEAGUE_TEST_POSTGRES_URL is not set");
    }
    url
}

/// A projector started on `store`, once it has caught up with the log.
async fn started(store: &Store) -> Live {
    let live = Live::spawn(store.clone());
    live.catch_up(store, Duration::from_secs(60)).await.unwrap();
    live
}

/// The started projector holds what `rebuilt` holds: the same position and events, every
/// league equal, every tournament held equal or, once finished, listed and read back equal.
/// Finished tournaments restored from their snapshots are released; one folded again from
/// its stream is held until the next checkpoint has stored it.
async fn holds_what_a_rebuild_holds(
    store: &Store,
    live: &Live,
    rebuilt: &Projector,
    released_expected: bool,
) {
    let mut released = 0;
    {
        let p = live.read();
        assert_eq!(p.position(), rebuilt.position());
        assert_eq!(p.events(), rebuilt.events());
        for (stream, l) in rebuilt.leagues() {
            assert_eq!(p.league(stream), Some(l), "{stream}");
            assert_eq!(p.version(stream), rebuilt.version(stream), "{stream}");
        }
        for (stream, t) in rebuilt.tournaments() {
            assert_eq!(p.version(stream), rebuilt.version(stream), "{stream}");
            match p.tournament(stream) {
                Some(held) => assert_eq!(held, t, "{stream}"),
                None => {
                    assert!(matches!(t.stage(), Stage::Finished | Stage::Cancelled));
                    let listing = p.listing(stream).unwrap();
                    let schedule = t.schedule().unwrap();
                    assert_eq!(listing.venue, schedule.venue, "{stream}");
                    assert_eq!(listing.starts_at, schedule.starts_at, "{stream}");
                    released += 1;
                }
            }
        }
    }
    assert_eq!(
        released > 0,
        released_expected,
        "finished tournaments released"
    );
    for (stream, t) in rebuilt.tournaments() {
        if let Some((_, back)) = live.released_tournament(store, stream).await.unwrap() {
            assert_eq!(&*back, t, "{stream} read back");
        }
    }
}

/// Waits (at most a minute) until the projector has released a finished tournament.
async fn released_soon(live: &Live) {
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    loop {
        {
            let p = live.read();
            if p.listings_in::<std::ops::RangeFull>(..)
                .any(|(_, entry)| matches!(entry, league_projections::Entry::Released(_)))
            {
                return;
            }
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no finished tournament released a minute after the start"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Runs `sql` on the store (a tamper with the stored snapshots).
async fn tamper(store: &Store, sql: &str) {
    assert!(store.execute_raw(sql).await.unwrap() > 0, "{sql}");
}

async fn restarts(backend: Backend, url: Option<&str>) {
    let scratch = Scratch::new(backend, url).await.unwrap();
    let store = scratch.open().await.unwrap();
    let mut live = Live::spawn(store.clone());
    // More events than the projector folds between two checkpoints while catching up, so
    // that a start folding the whole log renders checkpoints on the way.
    let options = simulate::Options {
        venues: 4,
        weeks: 8,
        seed: 11,
        season_weeks: None,
    };
    let report = simulate::run(&store, &options, Some(&mut live))
        .await
        .unwrap();
    live.stop().await.unwrap();
    assert!(report.events > 20_000, "{} events", report.events);
    let rebuilt = rebuild::rebuild(&store, None).await.unwrap().projector;
    let (checkpoint, rows) = store.read_snapshots(PROJECTION).await.unwrap();
    assert_eq!(checkpoint, rebuilt.position());
    let restored = Projector::restore(checkpoint, rows);
    assert!(restored.ignored.is_empty(), "{:?}", restored.ignored);
    assert!(restored.refold.is_empty());

    // Started from the snapshots: not one event folded from the log.
    let live = started(&store).await;
    assert_eq!(live.events_folded(), 0);
    holds_what_a_rebuild_holds(&store, &live, &rebuilt, true).await;
    live.stop().await.unwrap();

    // The league's snapshot given one more byte (a space: it still parses): its digest no
    // longer matches, and the league is folded from its own stream, not from the whole log.
    let league = rebuilt.leagues().next().unwrap().0.clone();
    tamper(
        &store,
        &format!(
            "UPDATE snapshots SET state = {} WHERE stream = '{league}'",
            match backend {
                Backend::Sqlite => "CAST(state || X'20' AS BLOB)",
                Backend::Postgres => "state || '\\x20'::bytea",
            }
        ),
    )
    .await;
    let live = started(&store).await;
    assert_eq!(live.events_folded(), 0);
    holds_what_a_rebuild_holds(&store, &live, &rebuilt, true).await;
    live.stop().await.unwrap();

    // Snapshots in a format this build does not read: the tournaments are folded from
    // their streams.
    tamper(
        &store,
        "UPDATE snapshots SET format = format + 1 WHERE stream LIKE 'tournament:%'",
    )
    .await;
    let live = started(&store).await;
    assert_eq!(live.events_folded(), 0);
    holds_what_a_rebuild_holds(&store, &live, &rebuilt, false).await;
    live.stop().await.unwrap();
    // Each was written again, in this build's format, at the last checkpoint.
    let (_, rows) = store.read_snapshots(PROJECTION).await.unwrap();
    assert!(
        rows.iter()
            .all(|r| r.format == league_projections::snapshot::FORMAT)
    );
    let restored = Projector::restore(store.read_snapshots(PROJECTION).await.unwrap().0, rows);
    assert!(restored.ignored.is_empty(), "{:?}", restored.ignored);

    // A stream's snapshot missing: the manifest no longer matches the rows, so none is
    // trusted and the whole log is folded again.
    tamper(
        &store,
        &format!("DELETE FROM snapshots WHERE stream = '{league}'"),
    )
    .await;
    let live = started(&store).await;
    assert_eq!(live.events_folded(), report.events);
    // As its fold reached the log's head it rendered a checkpoint (those on the way were
    // behind the stored one, and not taken); once that is written, the finished
    // tournaments are released although no event comes.
    released_soon(&live).await;
    holds_what_a_rebuild_holds(&store, &live, &rebuilt, true).await;
    live.stop().await.unwrap();

    // Its last checkpoint wrote every stream again: the next start trusts them all.
    let (checkpoint, rows) = store.read_snapshots(PROJECTION).await.unwrap();
    let restored = Projector::restore(checkpoint, rows);
    assert!(restored.ignored.is_empty(), "{:?}", restored.ignored);
    assert_eq!(restored.projector.position(), rebuilt.position());

    // The database as the release before snapshots left it: its read models and checkpoint
    // at the log's end, no snapshot. The first start folds the whole log, and its
    // checkpoints on the way, behind the stored one, are not taken; its last writes every
    // stream, so the start after it folds nothing.
    tamper(&store, "DELETE FROM snapshots").await;
    let live = started(&store).await;
    assert_eq!(live.events_folded(), report.events);
    live.stop().await.unwrap();
    let (checkpoint, rows) = store.read_snapshots(PROJECTION).await.unwrap();
    let restored = Projector::restore(checkpoint, rows);
    assert!(restored.ignored.is_empty(), "{:?}", restored.ignored);
    let live = started(&store).await;
    assert_eq!(live.events_folded(), 0);
    holds_what_a_rebuild_holds(&store, &live, &rebuilt, true).await;
    live.stop().await.unwrap();

    // And the documents stored all along are those of a rebuild.
    let check = rebuild::check(&store).await.unwrap();
    assert_eq!(check.difference, None);
    store.close().await;
    scratch.drop_it().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restart_on_sqlite_starts_from_snapshots_and_never_trusts_a_bad_one() {
    restarts(Backend::Sqlite, None).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restart_on_postgres_starts_from_snapshots_and_never_trusts_a_bad_one() {
    let Some(url) = postgres_url() else {
        return;
    };
    restarts(Backend::Postgres, Some(&url)).await;
}
