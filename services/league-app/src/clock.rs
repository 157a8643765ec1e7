//! The tournament clock, run by the server: when a level's time is up, its end is appended
//! as the engine's `AdvanceLevel` at the moment the level was due to end, so the clock
//! keeps time whether or not a host is watching. The clock the floor calls on a player to
//! act (`CallClock`) runs here too: when it runs out, the engine's `ClockRanOut` kills the
//! player's hand.
//!
//! A paused clock waits; a clock that a restart (or an outage) left behind catches up one
//! level per tick, each level starting at its scheduled moment, since the events are where
//! the clock stands. With several instances each runs its own ticks, and each appends
//! expecting the stream version it decided on, without retrying: the first append wins, the
//! others conflict and are dropped, and on their next tick the level is no longer due. So a
//! level changes once.

use std::time::Duration;

use league_engine::tournament::play::{self, Millis, Tournament, TournamentCommand};
use league_events::{StreamKind, encode};
use league_store::{ExpectedVersion, Metadata, NewEvent, Store, StoreError};

use crate::AppError;
use crate::live::Live;

/// How often the clock looks for levels whose time is up.
pub const TICK: Duration = Duration::from_millis(500);

/// Who the clock's events name as their actor.
pub const ACTOR: &str = "clock";

/// When the current level of `t` is due to end, if its clock runs: running, not paused, a
/// level after this one (the dashboards' `level_ends_at`), and no colour-up waiting to be
/// done.
pub fn level_due_at(t: &Tournament) -> Option<Millis> {
    if t.colour_up_due().is_some() {
        return None;
    }
    league_projections::views::level_ends_at(t)
}

/// The first table of `t` whose called clock has run out by `now`.
pub fn clock_out(t: &Tournament, now: Millis) -> Option<u32> {
    t.tables()
        .iter()
        .find(|(_, table)| table.clock().is_some_and(|c| c.expires_at <= now))
        .map(|(number, _)| *number)
}

/// One tick at `now`: every tournament whose level is due advances one level, dated when it
/// was due; else, where a clock called on a player has run out, that player's hand is
/// killed (one table per tournament a tick). Returns the tournaments changed (ids); a
/// tournament another instance changed first is skipped.
pub async fn tick(store: &Store, live: &Live, now: Millis) -> Result<Vec<String>, AppError> {
    // Decided on the projection, under its lock; appended after. A level's end with the
    // version of the event that set the clock, its cause.
    let due: Vec<(String, u64, Option<u64>, Vec<NewEvent>)> = {
        let p = live.read();
        let mut due = Vec::new();
        for (stream, t) in p.tournaments() {
            let (command, cause) = match level_due_at(t).filter(|at| *at <= now) {
                Some(at) => (
                    TournamentCommand::AdvanceLevel { at },
                    Some(p.clock_set_at(stream)),
                ),
                None => match clock_out(t, now) {
                    Some(table) => (TournamentCommand::ClockRanOut { table, at: now }, None),
                    None => continue,
                },
            };
            match play::decide(t, &command) {
                Ok(events) => {
                    let events = events.iter().map(encode).collect::<Result<Vec<_>, _>>()?;
                    due.push((stream.clone(), p.version(stream), cause, events));
                }
                Err(e) => tracing::debug!(stream = %stream, "the clock cannot act: {e}"),
            }
        }
        due
    };
    let mut advanced = Vec::new();
    for (stream, version, cause, events) in due {
        let causation_id = match cause {
            Some(cause) => store
                .event_at(&stream, cause)
                .await?
                .map(|e| e.id().to_string()),
            None => None,
        };
        let metadata = Metadata {
            actor: Some(ACTOR.to_owned()),
            correlation_id: None,
            causation_id,
            recorded_at: None,
        };
        let events: Vec<NewEvent> = events
            .into_iter()
            .map(|e| e.with_metadata(metadata.clone()))
            .collect();
        match store
            .append(&stream, ExpectedVersion::Exact(version), &events, None)
            .await
        {
            Ok(appended) => {
                live.reach(appended.last_position, crate::commands::READ_YOUR_WRITE)
                    .await?;
                let id = StreamKind::Tournament.id_of(&stream).unwrap_or(&stream);
                tracing::info!(tournament = id, "the clock acted");
                advanced.push(id.to_owned());
            }
            // Someone (a host, another instance) changed the tournament first: decided
            // again on the next tick.
            Err(StoreError::Conflict { .. }) => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(advanced)
}

/// Where the server reads the time: the system's clock, or a clock that moves only when
/// told (`manual`), with which a test plays hours of a table or a tournament in seconds
/// through the same commands. Clones share one clock.
#[derive(Clone, Debug, Default)]
pub struct Clock {
    manual: Option<std::sync::Arc<std::sync::atomic::AtomicI64>>,
}

impl Clock {
    /// The system's clock.
    pub fn system() -> Clock {
        Clock::default()
    }

    /// A clock standing at `start` (milliseconds since the Unix epoch) until advanced.
    pub fn manual(start: Millis) -> Clock {
        Clock {
            manual: Some(std::sync::Arc::new(std::sync::atomic::AtomicI64::new(
                start,
            ))),
        }
    }

    /// Milliseconds since the Unix epoch.
    pub fn now(&self) -> Millis {
        match &self.manual {
            Some(at) => at.load(std::sync::atomic::Ordering::SeqCst),
            None => now_millis(),
        }
    }

    /// Moves a manual clock on by `millis` (the system's clock cannot be moved: `false`).
    pub fn advance(&self, millis: Millis) -> bool {
        match &self.manual {
            Some(at) => {
                at.fetch_add(millis.max(0), std::sync::atomic::Ordering::SeqCst);
                true
            }
            None => false,
        }
    }
}

/// Two clocks are equal when both are the system's or they are one manual clock.
impl PartialEq for Clock {
    fn eq(&self, other: &Clock) -> bool {
        match (&self.manual, &other.manual) {
            (None, None) => true,
            (Some(a), Some(b)) => std::sync::Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

impl Eq for Clock {}

/// Milliseconds since the Unix epoch.
pub fn now_millis() -> Millis {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| Millis::try_from(d.as_millis()).unwrap_or(Millis::MAX))
        .unwrap_or(0)
}

/// Runs the clock until `stop` resolves.
pub async fn run(
    store: Store,
    live: std::sync::Arc<Live>,
    clock: Clock,
    stop: impl std::future::Future<Output = ()>,
) {
    let mut stop = std::pin::pin!(stop);
    let mut ticks = tokio::time::interval(TICK);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            () = &mut stop => return,
            _ = ticks.tick() => {
                if let Err(e) = tick(&store, &live, clock.now()).await {
                    tracing::warn!("the clock's tick failed: {e}");
                }
            }
        }
    }
}
