//! A simulated season on a real database (SQLite, and PostgreSQL when
//! `LEAGUE_TEST_POSTGRES_URL` is set): the read models rebuilt from position 0 equal the
//! live ones byte for byte; every tournament's places and payouts are consistent; league
//! points equal a recomputation from the recorded results under each formula version.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::collections::{BTreeMap, BTreeSet};

use league_app::live::Live;
use league_app::{rebuild, simulate};
use league_engine::league::{LeagueState, Scope};
use league_engine::points::{Formula, Inputs};
use league_engine::tournament::play::Stage;
use league_engine::units::{Cents, PlayerId};
use league_store::Backend;
use league_testkit::Scratch;

const FORMULAS: [&str; 2] = ["round(10 * sqrt(n) / sqrt(r)) - 9", "n - r + 1"];

/// Half away from zero, as the league documents.
fn mean(sum: i64, n: i64) -> i64 {
    let (q, r) = (sum / n, sum % n);
    if 2 * r.abs() >= n {
        q + sum.signum()
    } else {
        q
    }
}

fn check_league(l: &LeagueState) {
    let season = l.season("season-1").unwrap();
    assert_eq!(season.version(), 2, "the formula changed halfway");
    let mut outcomes = 0;
    for outcome in l.tournaments() {
        outcomes += 1;
        for (v, text) in FORMULAS.iter().enumerate() {
            let version = u32::try_from(v + 1).unwrap();
            let formula = Formula::new(text).unwrap();
            let stored = l.tournament_points(&outcome.tournament, version).unwrap();
            for (i, f) in outcome.finishes.iter().enumerate() {
                let shared = f.shared.max(1);
                let sum: i64 = (f.place..f.place + shared)
                    .map(|r| {
                        formula
                            .points(Inputs {
                                n: outcome.field,
                                r,
                                nr: f.rebuys,
                                nh: f.knockouts,
                                buyin: outcome.buyin.get() / 100,
                                prizepool: outcome.prizepool.get() / 100,
                                ..Inputs::default()
                            })
                            .unwrap()
                            .get()
                    })
                    .sum();
                assert_eq!(
                    stored[i],
                    mean(sum, i64::from(shared)),
                    "{} {} version {version}",
                    outcome.tournament,
                    f.player
                );
            }
        }
    }
    assert!(outcomes > 0);
    // The season standings' totals are each player's best 8 results under the version.
    for version in [1, 2] {
        let results = l.results("season-1", Some(version), Scope::Season).unwrap();
        let mut by_player: BTreeMap<PlayerId, Vec<i64>> = BTreeMap::new();
        for r in &results {
            by_player
                .entry(r.player.clone())
                .or_default()
                .push(r.points.get());
        }
        for s in l
            .standings("season-1", Some(version), Scope::Season)
            .unwrap()
        {
            let mut points = by_player.remove(&s.player).unwrap();
            points.sort_unstable_by(|a, b| b.cmp(a));
            let best: i64 = points.iter().take(8).sum();
            assert_eq!(s.points, best, "{} under version {version}", s.player);
        }
        assert!(by_player.is_empty());
    }
}

async fn season(backend: Backend, url: Option<&str>) {
    let scratch = Scratch::new(backend, url).await.unwrap();
    let store = scratch.open().await.unwrap();
    let mut live = Live::spawn(store.clone());
    let options = simulate::Options {
        venues: 3,
        weeks: 3,
        seed: 7,
        season_weeks: None,
    };
    let report = simulate::run(&store, &options, Some(&mut live))
        .await
        .unwrap();
    assert_eq!(report.tournaments, 9);
    let live = live.stop().await.unwrap();

    // Rebuild equals live: the stored documents, and every league and every tournament the
    // live projector still holds (it may have released finished ones).
    let check = rebuild::check(&store).await.unwrap();
    assert_eq!(check.difference, None);
    assert_eq!(check.rebuilt.events, report.events);
    let projector = &check.rebuilt.projector;
    for (stream, l) in live.leagues() {
        assert_eq!(Some(l), projector.league(stream), "{stream}");
    }
    for (stream, t) in live.tournaments() {
        assert_eq!(Some(t), projector.tournament(stream), "{stream}");
    }

    // Every tournament finished with consistent places and payouts, and the league
    // recorded exactly its result.
    let league = projector.leagues().next().unwrap().1;
    for (stream, t) in projector.tournaments() {
        assert_eq!(t.stage(), Stage::Finished, "{stream}");
        t.check_invariants().unwrap();
        let results = t.results().unwrap();
        let players: BTreeSet<&str> = results.iter().map(|r| r.player.as_str()).collect();
        assert_eq!(players.len(), results.len());
        assert_eq!(results.len(), t.field());
        let paid: Cents = results.iter().map(|r| r.prize).sum();
        assert_eq!(paid, t.prize_pool().unwrap().total, "{stream}");
        assert_eq!(results.iter().filter(|r| r.place == 1).count(), 1);
        for r in results {
            assert!(r.place >= 1 && usize::try_from(r.place).unwrap() <= results.len());
        }
        let id = stream.strip_prefix("tournament:").unwrap();
        let outcome = league.tournament(id).unwrap();
        assert_eq!(outcome.prizepool, t.prize_pool().unwrap().total);
        for (f, r) in outcome.finishes.iter().zip(results) {
            assert_eq!(
                (f.player.as_str(), f.place, f.prize),
                (r.player.as_str(), r.place, r.prize)
            );
        }
    }
    check_league(league);
    store.close().await;
    scratch.drop_it().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_simulated_season_on_sqlite_rebuilds_to_the_live_read_models() {
    season(Backend::Sqlite, None).await;
}

/// `LEAGUE_TEST_POSTGRES_URL`, or `None` (the test is skipped) unless
/// `LEAGUE_REQUIRE_POSTGRES` is set.
/// A league of one venue, or two, is simulated to its end: every week's fields are drawn
/// from the league's own players, with a merged player left out, whatever the seed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_league_of_one_or_two_venues_is_simulated_to_its_end() {
    for venues in [1, 2] {
        for seed in 0..4 {
            let scratch = Scratch::new(Backend::Sqlite, None).await.unwrap();
            let store = scratch.open().await.unwrap();
            let options = simulate::Options {
                venues,
                weeks: 3,
                seed,
                season_weeks: None,
            };
            let report = tokio::time::timeout(
                std::time::Duration::from_secs(120),
                simulate::run(&store, &options, None),
            )
            .await
            .unwrap_or_else(|_| panic!("{venues} venues, seed {seed}: never ends"))
            .unwrap();
            assert_eq!(report.tournaments, venues * 3, "seed {seed}");
            store.close().await;
            scratch.drop_it().await;
        }
    }
}

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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_simulated_season_on_postgres_rebuilds_to_the_live_read_models() {
    let Some(url) = postgres_url() else {
        return;
    };
    season(Backend::Postgres, Some(&url)).await;
}

/// A server's HTTP workers each run their own runtime, and a pooled PostgreSQL connection
/// belongs to the runtime that opened it: when the server stops, its workers' runtimes stop
/// first, and then the live projector writes its last checkpoint. Here every connection of
/// the pool is opened on such a runtime, which stops before the projector finishes: the
/// last checkpoint must still be written, at the last position folded.
#[test]
fn the_last_checkpoint_is_written_after_the_runtime_that_opened_the_connections_stops() {
    let Some(url) = postgres_url() else {
        return;
    };
    let runtime = || {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap()
    };
    let (main, worker) = (runtime(), runtime());
    // The pool's 16 connections, all opened on the worker's runtime.
    let (scratch, store) = worker.block_on(async {
        let scratch = Scratch::new(Backend::Postgres, Some(&url)).await.unwrap();
        let store = scratch.open().await.unwrap();
        let mut sleeps = tokio::task::JoinSet::new();
        for _ in 0..16 {
            let store = store.clone();
            sleeps.spawn(async move { store.execute_raw("SELECT pg_sleep(0.2)").await });
        }
        while let Some(done) = sleeps.join_next().await {
            done.unwrap().unwrap();
        }
        (scratch, store)
    });
    let live = main.block_on(async {
        let mut live = Live::spawn(store.clone());
        let options = simulate::Options {
            venues: 1,
            weeks: 1,
            seed: 3,
            season_weeks: None,
        };
        simulate::run(&store, &options, Some(&mut live))
            .await
            .unwrap();
        live
    });
    let folded = main.block_on(async { store.last_position().await.unwrap().unwrap() });
    main.block_on(async {
        live.reach(folded, std::time::Duration::from_secs(30))
            .await
            .unwrap();
    });
    drop(worker);
    main.block_on(async {
        live.finish().await.unwrap();
        let check = scratch.open().await.unwrap();
        let (checkpoint, docs) = check.read_models(league_app::PROJECTION).await.unwrap();
        assert_eq!(checkpoint, Some(folded));
        assert!(!docs.is_empty());
        check.close().await;
        store.close().await;
        scratch.drop_it().await;
    });
}

/// A league of two seasons, the first closed after its second week: the rebuilt read models
/// equal the live ones, closed season's frozen documents included; the live league holds the
/// open season's results only; and the closed season's standings and every player's record
/// are exactly those of the same league had the season never closed.
async fn closed_season(backend: Backend, url: Option<&str>) {
    use league_engine::league::{self, Event};
    use league_projections::views::{player_records, player_season_key};

    let scratch = Scratch::new(backend, url).await.unwrap();
    let store = scratch.open().await.unwrap();
    let mut live = Live::spawn(store.clone());
    let options = simulate::Options {
        venues: 3,
        weeks: 4,
        seed: 7,
        season_weeks: Some(2),
    };
    let report = simulate::run(&store, &options, Some(&mut live))
        .await
        .unwrap();
    assert_eq!(report.tournaments, 12);
    let live = live.stop().await.unwrap();
    let check = rebuild::check(&store).await.unwrap();
    assert_eq!(check.difference, None);

    // The league as it would stand had no season closed: its events but the close.
    let mut full = LeagueState::new();
    let mut closes = 0;
    for e in store.read_log(0, 10_000_000).await.unwrap() {
        if !e.stream_id.starts_with("league:") {
            continue;
        }
        let event: Event =
            league_events::decode(&e.event_type, e.schema_version, &e.payload).unwrap();
        if matches!(event, Event::SeasonClosed { .. }) {
            closes += 1;
            continue;
        }
        league::apply(&mut full, &event);
    }
    assert_eq!(closes, 1);

    let (stream, l) = live.leagues().next().unwrap();
    assert!(l.season("season-1").unwrap().closed);
    assert!(!l.season("season-2").unwrap().closed);
    let held: Vec<&str> = l.tournaments().map(|o| o.season.as_str()).collect();
    assert_eq!(held.len(), 6, "the open season's six results");
    assert!(held.iter().all(|s| *s == "season-2"), "{held:?}");
    assert_eq!(full.tournaments().count(), 12);

    let (_, docs) = store.read_models(league_app::PROJECTION).await.unwrap();
    let stored: BTreeMap<(String, String), Vec<u8>> =
        docs.into_iter().map(|d| ((d.kind, d.key), d.doc)).collect();
    // Both seasons' leaderboards, closed and open, every version and scope.
    let mut compared = 0;
    for season in ["season-1", "season-2"] {
        for version in [1, 2] {
            let mut scopes = vec![("season".to_owned(), Scope::Season)];
            scopes.extend(
                full.venues()
                    .keys()
                    .map(|v| (format!("venue:{v}"), Scope::Venue(v))),
            );
            for (name, scope) in scopes {
                let key = format!("{stream}/{season}/v{version}/{name}");
                let want =
                    serde_json::to_vec(&full.standings(season, Some(version), scope).unwrap())
                        .unwrap();
                let got = stored
                    .get(&("leaderboard".to_owned(), key.clone()))
                    .map(|d| String::from_utf8_lossy(d));
                assert_eq!(got, Some(String::from_utf8_lossy(&want)), "{key}");
                compared += 1;
            }
        }
    }
    assert_eq!(compared, 16);
    // The closed season as stored, and as the live league no longer holds it.
    let archive: LeagueState =
        serde_json::from_slice(&stored[&("season".to_owned(), format!("{stream}/season-1"))])
            .unwrap();
    assert_eq!(archive.tournaments().count(), 6);
    assert_eq!(
        archive.standings("season-1", None, Scope::Region("region-1")),
        full.standings("season-1", None, Scope::Region("region-1"))
    );

    // Each player's record: the totals held, and the lines of the open season held plus
    // those of the closed season stored, are the record had it never closed.
    let now = player_records(l);
    let mut with_closed_lines = 0;
    for (id, want) in player_records(&full) {
        let mut got = now[&id].clone();
        for held_by in l.merged_ids(&id) {
            let key = player_season_key(stream, "season-1", &held_by);
            if let Some(doc) = stored.get(&("player-season".to_owned(), key)) {
                let closed: league_projections::PlayerRecord = serde_json::from_slice(doc).unwrap();
                got.results.extend(closed.results);
                with_closed_lines += 1;
            }
        }
        got.results
            .sort_by(|a, b| (a.day, &a.tournament).cmp(&(b.day, &b.tournament)));
        assert_eq!(got, want, "{id}");
    }
    assert!(with_closed_lines > 20, "{with_closed_lines}");
    store.close().await;
    scratch.drop_it().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_closed_season_on_sqlite_keeps_its_standings_and_records_out_of_memory() {
    closed_season(Backend::Sqlite, None).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_closed_season_on_postgres_keeps_its_standings_and_records_out_of_memory() {
    let Some(url) = postgres_url() else {
        return;
    };
    closed_season(Backend::Postgres, Some(&url)).await;
}
