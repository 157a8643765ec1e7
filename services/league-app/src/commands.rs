//! Running a command: decide on the projected state, append with the version read, retry a
//! bounded number of times on a conflict, and wait until the projections have folded the
//! append (so the caller reads its own write).
//!
//! The decision is on the stream as the store holds it: the projector's copy of the stream
//! at a known version, with the events after that version read. An acceptance lands only
//! if the stream is still at the version decided on (the append's expected version); a
//! refusal is given only if the stream's head, read after the decision, is that version.
//! Otherwise (another instance appended meanwhile) the projector catches up with the log
//! and the command is decided again.

use std::time::Duration;

use league_engine::cash::{CashCommand, CashState};
use league_engine::league;
use league_engine::tournament::play::{self, TournamentCommand};
use league_engine::units::{CashTableId, LeagueId, TournamentId};
use league_events::{StreamKind, encode};
use league_store::{Appended, ExpectedVersion, Metadata, NewEvent, Store, StoreError};

use crate::AppError;
use crate::live::Live;

/// Attempts before a conflict is reported.
pub const MAX_ATTEMPTS: u32 = 5;

/// How long a command waits for the projections to fold its own events (read your write).
pub const READ_YOUR_WRITE: Duration = Duration::from_secs(10);

/// Who sent a command, for the envelope.
#[derive(Clone, Debug, Default)]
pub struct Caller {
    pub actor: Option<String>,
    /// The request's id, stored with every event the command appends.
    pub correlation_id: Option<String>,
    /// What caused the command: an event's id when the command follows from an event (a
    /// result recorded from a finished tournament), else the request's id.
    pub causation_id: Option<String>,
    /// With an idempotency key: the fingerprint of the request (what the client asked),
    /// recorded with the key so that the key reused for another request is refused.
    /// Without one, the key is recorded with the fingerprint of the events appended.
    pub idempotency_key: Option<(String, Option<league_store::Hash>)>,
}

/// A command to some aggregate.
#[derive(Clone, Debug)]
pub enum Command {
    Tournament {
        id: TournamentId,
        command: Box<TournamentCommand>,
    },
    League {
        id: LeagueId,
        command: Box<league::Command>,
    },
    Cash {
        id: CashTableId,
        command: Box<CashCommand>,
    },
}

impl Command {
    pub fn stream(&self) -> String {
        match self {
            Command::Tournament { id, .. } => StreamKind::Tournament.stream(id),
            Command::League { id, .. } => StreamKind::League.stream(id),
            Command::Cash { id, .. } => StreamKind::Cash.stream(id),
        }
    }
}

/// What a command did.
#[derive(Clone, Debug)]
pub struct Executed {
    pub stream: String,
    pub appended: Option<Appended>,
    pub events: usize,
}

/// Runs `command` against `store`, deciding on `live`'s projected state.
pub async fn execute(
    store: &Store,
    live: &Live,
    command: &Command,
    caller: &Caller,
) -> Result<Executed, AppError> {
    // The id of an aggregate being created names its stream for ever: checked here, for
    // every front end.
    let created = match command {
        Command::Tournament { id, command } => matches!(**command, TournamentCommand::Schedule(_))
            .then_some(("tournament", id.as_str())),
        Command::League { id, command } => {
            matches!(**command, league::Command::CreateLeague { .. })
                .then_some(("league", id.as_str()))
        }
        Command::Cash { id, command } => {
            matches!(**command, CashCommand::Open { .. }).then_some(("cash table", id.as_str()))
        }
    };
    if let Some((what, id)) = created
        && !league_engine::units::is_id(id)
    {
        return Err(AppError::BadInput {
            field: "id",
            message: format!("a {what} id must be {}", league_engine::units::ID_RULE),
        });
    }
    let stream = command.stream();
    let mut attempt = 0;
    // Whether a decision to append lost a race to another writer.
    let mut conflicted = false;
    loop {
        attempt += 1;
        let decided_on;
        // A finished tournament whose state the projector released is read back first.
        let released = match &command {
            Command::Tournament { .. } => live.released_tournament(store, &stream).await?,
            Command::League { .. } | Command::Cash { .. } => None,
        };
        let decided = {
            let p = live.read();
            let version = p.version(&stream);
            decided_on = version;
            // Read back at another version than the one folded now (it changed meanwhile):
            // read it again.
            let stale = p.tournament(&stream).is_none()
                && released.as_ref().is_some_and(|(v, _)| *v != version);
            if stale && attempt < MAX_ATTEMPTS {
                continue;
            }
            let events: Result<Vec<NewEvent>, AppError> = (|| match command {
                Command::Tournament { command, .. } => {
                    let empty = play::Tournament::new();
                    let read_back = released.as_ref().map(|(_, t)| &**t);
                    let state = p.tournament(&stream).or(read_back).unwrap_or(&empty);
                    Ok(play::decide(state, command)?
                        .iter()
                        .map(encode)
                        .collect::<Result<_, _>>()?)
                }
                Command::League { command, .. } => {
                    let empty = league::LeagueState::new();
                    let state = p.league(&stream).unwrap_or(&empty);
                    Ok(league::decide(state, command)?
                        .iter()
                        .map(encode)
                        .collect::<Result<_, _>>()?)
                }
                Command::Cash { command, .. } => {
                    let empty = CashState::new();
                    let state = p.cash_table(&stream).unwrap_or(&empty);
                    Ok(league_engine::cash::decide(state, command)?
                        .iter()
                        .map(encode)
                        .collect::<Result<_, _>>()?)
                }
            })();
            events.map(|events| (version, events))
        };
        let (version, events) = match decided {
            Ok(decided) => decided,
            Err(e @ (AppError::Tournament(_) | AppError::League(_) | AppError::Cash(_))) => {
                // A refusal stands only on the stream's current version: an acceptance is
                // checked by the append's expected version, a refusal by reading the
                // stream's head. Behind it (another instance appended), the projector
                // catches up and the command is decided again.
                let current = store.stream_head(&stream).await?.map_or(0, |(v, _)| v);
                if current > decided_on {
                    if attempt >= MAX_ATTEMPTS {
                        // The stream kept moving: no refusal on a state known to be old.
                        return Err(AppError::Store(StoreError::Conflict {
                            expected: ExpectedVersion::Exact(decided_on),
                            actual: Some(current),
                        }));
                    }
                    tracing::debug!(attempt, decided_on, current, "refused on a stale state");
                    live.catch_up(store, READ_YOUR_WRITE).await?;
                    continue;
                }
                // Accepted on the state it was first decided on, refused on the state a
                // concurrent command left: the caller lost a race, which it is told.
                return Err(if conflicted {
                    AppError::Raced(Box::new(e))
                } else {
                    e
                });
            }
            Err(e) => return Err(e),
        };
        if events.is_empty() {
            return Ok(Executed {
                stream,
                appended: None,
                events: 0,
            });
        }
        let metadata = Metadata {
            actor: caller.actor.clone(),
            correlation_id: caller.correlation_id.clone(),
            causation_id: caller.causation_id.clone(),
            recorded_at: None,
        };
        let events: Vec<NewEvent> = events
            .into_iter()
            .map(|mut e| {
                e.metadata = metadata.clone();
                e
            })
            .collect();
        let count = events.len();
        let expected = ExpectedVersion::Exact(version);
        let appended = match &caller.idempotency_key {
            Some((key, Some(request))) => {
                store
                    .append_for_request(&stream, expected, &events, key, request)
                    .await
            }
            Some((key, None)) => store.append(&stream, expected, &events, Some(key)).await,
            None => store.append(&stream, expected, &events, None).await,
        };
        match appended {
            Ok(appended) => {
                live.reach(appended.last_position, READ_YOUR_WRITE).await?;
                return Ok(Executed {
                    stream,
                    appended: Some(appended),
                    events: count,
                });
            }
            Err(StoreError::Conflict { actual, .. }) if attempt < MAX_ATTEMPTS => {
                // Someone else appended first: wait until their events are folded, decide
                // again on the new state.
                tracing::debug!(attempt, version, ?actual, "conflict: deciding again");
                conflicted = true;
                live.catch_up(store, READ_YOUR_WRITE).await?;
            }
            Err(e) => return Err(e.into()),
        }
    }
}
