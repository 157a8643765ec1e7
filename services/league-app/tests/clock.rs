//! The tournament clock run by the server: a level ends at its scheduled moment, a paused
//! clock waits, a restart catches up level by level from the events, and two instances
//! ticking at once advance a level once. On SQLite, and on PostgreSQL when
//! `LEAGUE_TEST_POSTGRES_URL` is set.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::sync::Arc;

use league_app::clock::{clock_out, level_due_at, tick};
use league_app::commands::{Caller, Command, execute};
use league_app::live::Live;
use league_engine::deck::Seed;
use league_engine::rules::Preset;
use league_engine::tournament::play::{Millis, TournamentCommand, Tracking};
use league_engine::tournament::sim::weekly_schedule;
use league_engine::units::PlayerId;
use league_store::{Backend, Store};
use league_testkit::Scratch;

const ID: &str = "clocked";
const STREAM: &str = "tournament:clocked";
/// When the tournament starts: 2026-11-25 20:00 UTC.
const START: Millis = 1_764_100_800_000;
const MINUTE: Millis = 60_000;

async fn send(store: &Store, live: &Live, command: TournamentCommand) {
    let command = Command::Tournament {
        id: ID.into(),
        command: Box::new(command),
    };
    execute(store, live, &command, &Caller::default())
        .await
        .unwrap();
}

/// A running tournament whose first level (20 minutes) started at `START`.
async fn running(store: &Store, live: &Live) {
    running_as(store, live, Preset::Wsop, Tracking::Results).await;
}

/// As [`running`], under `preset`, tracked as `tracking`.
async fn running_as(store: &Store, live: &Live, preset: Preset, tracking: Tracking) {
    let draw = Seed::from_bytes([7; 32]);
    let schedule = weekly_schedule("crown", preset, tracking, draw.commitment());
    send(store, live, TournamentCommand::Schedule(Box::new(schedule))).await;
    for p in ["ann", "bob", "cy"] {
        send(
            store,
            live,
            TournamentCommand::Register {
                player: PlayerId::new(p),
            },
        )
        .await;
    }
    send(
        store,
        live,
        TournamentCommand::Start {
            at: START,
            seed: draw,
            next_commitment: Seed::from_bytes([8; 32]).commitment(),
        },
    )
    .await;
}

/// The current level and when it started.
fn level(live: &Live) -> (u32, Millis) {
    let p = live.read();
    let t = p.tournament(STREAM).unwrap();
    (t.level().unwrap().0, t.clock().0)
}

/// Waits until every instance has folded the whole log.
async fn caught_up(store: &Store, instances: &[&Live]) {
    let last = store.last_position().await.unwrap().unwrap();
    for live in instances {
        live.reach(last, std::time::Duration::from_secs(10))
            .await
            .unwrap();
    }
}

async fn the_clock(backend: Backend, url: Option<&str>) {
    let scratch = Scratch::new(backend, url).await.unwrap();
    let store = scratch.open().await.unwrap();
    let live = Live::spawn(store.clone());
    running(&store, &live).await;
    assert_eq!(level(&live), (1, START));
    let due = level_due_at(live.read().tournament(STREAM).unwrap()).unwrap();
    assert_eq!(due, START + 20 * MINUTE);

    // Not yet due: nothing.
    assert!(tick(&store, &live, due - 1).await.unwrap().is_empty());
    assert_eq!(level(&live).0, 1);
    // Due, and noticed half a second late: the level starts when it was due.
    assert_eq!(tick(&store, &live, due + 500).await.unwrap(), [ID]);
    assert_eq!(level(&live), (2, due));

    // Paused five minutes into level 2, for as long as you like: it waits.
    send(
        &store,
        &live,
        TournamentCommand::Pause {
            at: due + 5 * MINUTE,
        },
    )
    .await;
    assert!(
        tick(&store, &live, due + 90 * MINUTE)
            .await
            .unwrap()
            .is_empty()
    );
    // Resumed after ten minutes: level 2 now ends ten minutes later than it would have.
    send(
        &store,
        &live,
        TournamentCommand::Resume {
            at: due + 15 * MINUTE,
        },
    )
    .await;
    let due_2 = level_due_at(live.read().tournament(STREAM).unwrap()).unwrap();
    assert_eq!(due_2, due + 30 * MINUTE);
    assert!(tick(&store, &live, due_2 - 1).await.unwrap().is_empty());

    // The server was down for 50 minutes past that: a new instance, folded from the log,
    // catches up one level per tick, each dated at its scheduled moment.
    live.finish().await.unwrap();
    let restarted = Arc::new(Live::spawn(store.clone()));
    let other = Arc::new(Live::spawn(store.clone()));
    caught_up(&store, &[&restarted, &other]).await;
    let now = due_2 + 50 * MINUTE;
    let mut rounds = 0;
    loop {
        // Two instances tick at the same moment. Whichever decides second either loses the
        // append (its projection had not seen the first's level) or, when the first's level
        // had already reached it, starts the level after; never the same level twice.
        let (a, b) = tokio::join!(tick(&store, &restarted, now), tick(&store, &other, now));
        let advanced = a.unwrap().len() + b.unwrap().len();
        if advanced == 0 {
            break;
        }
        rounds += 1;
        assert!(rounds <= 10, "the clock does not settle");
        caught_up(&store, &[&restarted, &other]).await;
    }
    // Levels 3 and 4 are 20 minutes each, so both are over; level 5, a break of 10 minutes,
    // started at due_2 + 40 and ended at due_2 + 50, but it carries a colour-up, which the
    // clock leaves to the host (the engine refuses the next level until it is done).
    assert_eq!(level(&restarted), (5, due_2 + 40 * MINUTE));
    assert_eq!(level(&other), (5, due_2 + 40 * MINUTE));
    assert!(
        level_due_at(restarted.read().tournament(STREAM).unwrap()).is_none(),
        "the colour-up is due: the clock waits for it"
    );
    // Every level change the clock made is in the log once, by the clock, each dated at its
    // scheduled moment.
    let events = store.read_stream(STREAM, 1).await.unwrap();
    let by_clock: Vec<(u64, Millis)> = events
        .iter()
        .filter(|e| e.actor.as_deref() == Some(league_app::clock::ACTOR))
        .map(|e| {
            assert_eq!(e.event_type, "LevelStarted", "{e:?}");
            let v: serde_json::Value = serde_json::from_slice(&e.payload).unwrap();
            let body = &v["data"];
            (
                body["level"].as_u64().unwrap(),
                body["at"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        by_clock,
        [
            (2, due),
            (3, due_2),
            (4, due_2 + 20 * MINUTE),
            (5, due_2 + 40 * MINUTE),
        ]
    );
    // Each names as its cause the event that set the clock it ran out: level 1's start
    // (by the host's `start`) for level 2, the resume for level 3, the clock's own
    // previous level after that.
    let cause = |level: u64| {
        let e = events
            .iter()
            .filter(|e| e.actor.as_deref() == Some(league_app::clock::ACTOR))
            .nth(usize::try_from(level - 2).unwrap())
            .unwrap();
        let id = e.causation_id.as_deref().expect("a causation id");
        events.iter().find(|c| c.id().to_string() == id).unwrap()
    };
    assert_eq!(cause(2).event_type, "LevelStarted");
    assert_eq!(cause(2).actor, None);
    assert_eq!(cause(3).event_type, "ClockResumed");
    for level in [2, 4, 5] {
        let previous = cause(level);
        assert_eq!(previous.event_type, "LevelStarted");
        assert_eq!(
            serde_json::from_slice::<serde_json::Value>(&previous.payload).unwrap()["data"]["level"],
            level - 1
        );
    }
    restarted.finish().await.unwrap();
    other.finish().await.unwrap();
    scratch.drop_it().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_clock_on_sqlite() {
    the_clock(Backend::Sqlite, None).await;
    a_called_clock(Backend::Sqlite, None).await;
}

/// The clock the floor calls on a player to act: WPH 20 gives "one minute" and a final
/// ten-second count; the server kills the hand when that runs out, not a moment before,
/// and a player who acts in time stops it.
async fn a_called_clock(backend: Backend, url: Option<&str>) {
    use league_engine::hand::{Action, Command as HandCommand, Event as HandEvent, FoldReason};
    use league_engine::tournament::play::{TournamentError, TournamentEvent};
    let scratch = Scratch::new(backend, url).await.unwrap();
    let store = scratch.open().await.unwrap();
    let live = Live::spawn(store.clone());
    running_as(&store, &live, Preset::Wph, Tracking::Recorded).await;
    let table = 1;
    send(
        &store,
        &live,
        TournamentCommand::StartHand {
            table,
            seed: None,
            hand_id: None,
        },
    )
    .await;
    let to_act = || {
        live.read().tournament(STREAM).unwrap().tables()[&table]
            .hand()
            .unwrap()
            .to_act()
            .unwrap()
    };
    let first = to_act();
    let called = START + 2 * MINUTE;
    // Called on a seat that is not to act: refused.
    let other = Command::Tournament {
        id: ID.into(),
        command: Box::new(TournamentCommand::CallClock {
            table,
            seat: first + 1,
            at: called,
        }),
    };
    let refused = execute(&store, &live, &other, &Caller::default()).await;
    assert!(
        matches!(
            refused,
            Err(league_app::AppError::Tournament(TournamentError::Hand(_)))
        ),
        "{refused:?}"
    );
    // Called on the player to act, who acts in time: the clock stops.
    send(
        &store,
        &live,
        TournamentCommand::CallClock {
            table,
            seat: first,
            at: called,
        },
    )
    .await;
    let expires = called + 70_000;
    {
        let p = live.read();
        let clock = p.tournament(STREAM).unwrap().tables()[&table]
            .clock()
            .copied();
        assert_eq!(
            clock.map(|c| (c.seat, c.expires_at)),
            Some((first, expires))
        );
    }
    send(
        &store,
        &live,
        TournamentCommand::Hand {
            table,
            command: HandCommand::Act {
                seat: first,
                action: Action::Call,
            },
        },
    )
    .await;
    assert!(clock_out(live.read().tournament(STREAM).unwrap(), expires + MINUTE).is_none());
    assert!(
        tick(&store, &live, expires + MINUTE)
            .await
            .unwrap()
            .is_empty()
    );
    // Called on the next player, who does not act: nothing a moment before it runs out,
    // then the hand is dead, by the clock.
    let second = to_act();
    send(
        &store,
        &live,
        TournamentCommand::CallClock {
            table,
            seat: second,
            at: called + MINUTE,
        },
    )
    .await;
    let expires = called + MINUTE + 70_000;
    assert!(tick(&store, &live, expires - 1).await.unwrap().is_empty());
    assert_eq!(tick(&store, &live, expires).await.unwrap(), [ID]);
    caught_up(&store, &[&live]).await;
    assert_ne!(to_act(), second);
    let events = store.read_stream(STREAM, 1).await.unwrap();
    let last = events.last().unwrap();
    assert_eq!(last.actor.as_deref(), Some(league_app::clock::ACTOR));
    let read: TournamentEvent = serde_json::from_slice(&last.payload).unwrap();
    assert!(
        matches!(
            read,
            TournamentEvent::HandEvent {
                event: HandEvent::PlayerFolded {
                    seat,
                    reason: FoldReason::ClockExpired
                },
                ..
            } if seat == second
        ),
        "{read:?}"
    );
    assert!(
        live.read().tournament(STREAM).unwrap().tables()[&table]
            .clock()
            .is_none()
    );
    live.finish().await.unwrap();
    scratch.drop_it().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_clock_on_postgres() {
    let Ok(url) = std::env::var("LEAGUE_TEST_POSTGRES_URL") else {
        assert!(
            std::env::var("LEAGUE_REQUIRE_POSTGRES").is_err(),
            "LEAGUE_REQUIRE_POSTGRES is set but LEAGUE_TEST_POSTGRES_URL is not"
        );
        return;
    };
    the_clock(Backend::Postgres, Some(&url)).await;
    a_called_clock(Backend::Postgres, Some(&url)).await;
}
