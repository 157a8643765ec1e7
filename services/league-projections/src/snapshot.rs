//! Snapshots: the projector's state of each stream at a checkpoint, written with the
//! checkpoint's documents ([`Projector::take_checkpoint`]) and loaded at start-up
//! ([`Projector::restore`]), so a start-up folds only the log after the checkpoint.
//!
//! One row per stream, and a manifest (the stream named `""`) with the checkpoint's
//! position, the events folded and the number of streams. A row's `state` is JSON in the
//! shape [`FORMAT`] names, and its digest is SHA-256 over the format, the stream, the
//! version and the state. A snapshot is used only when its format is this build's, its
//! digest matches and it parses: any other is ignored and its stream folded from its own
//! events, and a manifest that does not match the checkpoint or the rows voids them all
//! (the log is then folded from the start). A finished tournament's row only lists it
//! (venue and start): its documents are stored, and its state is not held.

use std::collections::{BTreeMap, BTreeSet};

use league_engine::cash::CashState;
use league_engine::league::LeagueState;
use league_engine::tournament::play::{Millis, Stage, Tournament};
use league_engine::units::VenueId;
use league_events::StreamKind;
use league_store::{RecordedEvent, Snapshot};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::{Aggregate, Folded, ProjectionError, Projector};

/// The shape of a snapshot's state. Raise it with any change to what a snapshot holds
/// (the engine's aggregates included): a snapshot of another format is not read, and its
/// stream is folded from its events instead. The test `a_snapshot_keeps_its_format` pins
/// the bytes of this format.
pub const FORMAT: u32 = 10;

/// The manifest's stream name: no stream is named so.
const MANIFEST: &str = "";

/// A finished tournament whose state is no longer held, as the projector still lists it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Listing {
    pub venue: VenueId,
    pub starts_at: Millis,
    /// The tables whose last hand never ended (a tournament cancelled mid-hand): the hole
    /// cards of such a hand stay private.
    pub unfinished_hands: Vec<u32>,
}

/// What [`Projector::restore`] made of a checkpoint's snapshots.
pub struct Restored {
    pub projector: Projector,
    /// Streams whose snapshot could not be used: fold each from its events up to the
    /// checkpoint, with [`Projector::rehydrate`], before folding on.
    pub refold: Vec<String>,
    /// Why snapshots were ignored, one line each (empty when every one was used).
    pub ignored: Vec<String>,
}

#[derive(Serialize, Deserialize)]
struct Manifest {
    /// The release that wrote it: a start of another release folds the whole log once, so
    /// that every stored document is rendered by the release that serves it.
    release: String,
    position: u64,
    events: u64,
    streams: u64,
}

/// A stream's row, as written.
#[derive(Serialize)]
struct SavedRef<'a> {
    clock_set: u64,
    hand_starts: &'a BTreeMap<u32, u64>,
    documents: Option<&'a BTreeSet<(String, String)>>,
    state: StateRef<'a>,
}

#[derive(Serialize)]
enum StateRef<'a> {
    Tournament(&'a Tournament),
    League(&'a LeagueState),
    Cash(&'a CashState),
    Released(&'a Listing),
}

/// A stream's row, as read.
#[derive(Deserialize)]
struct Saved {
    clock_set: u64,
    hand_starts: BTreeMap<u32, u64>,
    documents: Option<BTreeSet<(String, String)>>,
    state: State,
}

#[derive(Deserialize)]
enum State {
    Tournament(Box<Tournament>),
    League(Box<LeagueState>),
    Cash(Box<CashState>),
    Released(Box<Listing>),
}

fn digest(format: u32, stream: &str, version: u64, state: &[u8]) -> Vec<u8> {
    let mut h = Sha256::new();
    h.update(b"league-snapshot\0");
    h.update(format.to_le_bytes());
    h.update(
        u64::try_from(stream.len())
            .unwrap_or(u64::MAX)
            .to_le_bytes(),
    );
    h.update(stream.as_bytes());
    h.update(version.to_le_bytes());
    h.update(state);
    h.finalize().to_vec()
}

fn sealed(stream: &str, version: u64, state: Vec<u8>) -> Snapshot {
    Snapshot {
        stream: stream.to_owned(),
        version,
        format: FORMAT,
        digest: digest(FORMAT, stream, version, &state),
        state,
    }
}

/// The state of a finished (or cancelled) tournament that may be released.
pub(crate) fn listing_of(state: &Aggregate) -> Option<Listing> {
    match state {
        Aggregate::Tournament(t) if matches!(t.stage(), Stage::Finished | Stage::Cancelled) => {
            t.schedule().map(|s| Listing {
                venue: s.venue.clone(),
                starts_at: s.starts_at,
                unfinished_hands: t
                    .tables()
                    .iter()
                    .filter(|(_, table)| table.hand().is_some_and(|h| !h.is_over()))
                    .map(|(number, _)| *number)
                    .collect(),
            })
        }
        Aggregate::Released(l) => Some((**l).clone()),
        _ => None,
    }
}

/// The snapshot of one stream, and whether it is a finished tournament (whose state may
/// be released once the snapshot is written).
pub(crate) fn of_stream(
    stream: &str,
    folded: &Folded,
    documents: Option<&BTreeSet<(String, String)>>,
) -> Result<(Snapshot, bool), ProjectionError> {
    let listing = listing_of(&folded.state);
    let state = match (&listing, &folded.state) {
        (Some(l), _) => StateRef::Released(l),
        (None, Aggregate::Tournament(t)) => StateRef::Tournament(t),
        (None, Aggregate::League(l)) => StateRef::League(l),
        (None, Aggregate::Cash(c)) => StateRef::Cash(c),
        (None, Aggregate::Released(l)) => StateRef::Released(l),
    };
    let released = matches!(state, StateRef::Released(_));
    let saved = SavedRef {
        clock_set: folded.clock_set,
        hand_starts: &folded.hand_starts,
        documents: if released { None } else { documents },
        state,
    };
    let bytes = serde_json::to_vec(&saved).map_err(ProjectionError::Render)?;
    Ok((sealed(stream, folded.version, bytes), listing.is_some()))
}

/// The manifest of a checkpoint at `position`.
pub(crate) fn manifest(
    position: u64,
    events: u64,
    streams: usize,
) -> Result<Snapshot, ProjectionError> {
    let manifest = Manifest {
        release: league_events::RELEASE.to_owned(),
        position,
        events,
        streams: u64::try_from(streams).unwrap_or(u64::MAX),
    };
    let bytes = serde_json::to_vec(&manifest).map_err(ProjectionError::Render)?;
    Ok(sealed(MANIFEST, position, bytes))
}

/// Why `row` cannot be used, or what it holds.
fn open<T: for<'de> Deserialize<'de>>(row: &Snapshot) -> Result<T, String> {
    if row.format != FORMAT {
        return Err(format!(
            "snapshot of {:?} is in format {}, this build reads {FORMAT}",
            row.stream, row.format
        ));
    }
    if digest(row.format, &row.stream, row.version, &row.state) != row.digest {
        return Err(format!(
            "snapshot of {:?} does not match its digest",
            row.stream
        ));
    }
    serde_json::from_slice(&row.state)
        .map_err(|e| format!("snapshot of {:?} cannot be read: {e}", row.stream))
}

impl Projector {
    /// The projector as a checkpoint's snapshots left it (`checkpoint` and `rows` as
    /// [`league_store::Store::read_snapshots`] gives them). With no usable manifest the
    /// projector is empty and the log is to be folded from the start.
    pub fn restore(checkpoint: Option<u64>, rows: Vec<Snapshot>) -> Restored {
        let mut restored = Restored {
            projector: Projector::new(),
            refold: Vec::new(),
            ignored: Vec::new(),
        };
        let Some(checkpoint) = checkpoint else {
            return restored;
        };
        let (manifests, rows): (Vec<Snapshot>, Vec<Snapshot>) =
            rows.into_iter().partition(|r| r.stream == MANIFEST);
        let manifest = match manifests.first().map(open::<Manifest>) {
            Some(Ok(m)) => m,
            Some(Err(why)) => {
                restored.ignored.push(why);
                return restored;
            }
            None => {
                if !rows.is_empty() {
                    restored.ignored.push("snapshots without a manifest".into());
                }
                return restored;
            }
        };
        if manifest.release != league_events::RELEASE {
            restored.ignored.push(format!(
                "the snapshots were written by release {}; this is {}",
                manifest.release,
                league_events::RELEASE
            ));
            return restored;
        }
        let count = u64::try_from(rows.len()).unwrap_or(u64::MAX);
        if manifest.position != checkpoint || manifest.streams != count {
            restored.ignored.push(format!(
                "the snapshots' manifest names position {} and {} streams; the checkpoint is \
                 at {checkpoint} with {count} streams",
                manifest.position, manifest.streams
            ));
            return restored;
        }
        let p = &mut restored.projector;
        for row in rows {
            let kind = StreamKind::of(&row.stream);
            let saved = open::<Saved>(&row).and_then(|saved| {
                let matches = matches!(
                    (&saved.state, kind),
                    (
                        State::Tournament(_) | State::Released(_),
                        Some(StreamKind::Tournament)
                    ) | (State::League(_), Some(StreamKind::League))
                        | (State::Cash(_), Some(StreamKind::Cash))
                );
                if matches && row.version > 0 {
                    Ok(saved)
                } else {
                    Err(format!(
                        "snapshot of {:?} is not of its stream's kind",
                        row.stream
                    ))
                }
            });
            match kind {
                Some(StreamKind::Tournament) => p.tournament_names.insert(row.stream.clone()),
                Some(StreamKind::League) => p.league_names.insert(row.stream.clone()),
                Some(StreamKind::Cash) => p.cash_names.insert(row.stream.clone()),
                None => false,
            };
            let saved = match saved {
                Ok(saved) => saved,
                Err(why) => {
                    restored.ignored.push(why);
                    restored.refold.push(row.stream);
                    continue;
                }
            };
            let state = match saved.state {
                State::Tournament(t) => Aggregate::Tournament(t),
                State::League(l) => Aggregate::League(l),
                State::Cash(c) => Aggregate::Cash(c),
                State::Released(l) => Aggregate::Released(l),
            };
            if let Some(documents) = saved.documents {
                p.handed_out.insert(row.stream.clone(), documents);
            }
            p.streams.insert(
                row.stream,
                Folded {
                    version: row.version,
                    dirty: false,
                    state,
                    hand_starts: saved.hand_starts,
                    clock_set: saved.clock_set,
                },
            );
        }
        p.position = Some(checkpoint);
        p.events = manifest.events;
        restored
    }
}

/// A tournament folded from its stream's events, in version order (a released
/// tournament, read back for a query or a decision).
pub fn fold_tournament(events: &[RecordedEvent]) -> Result<Option<Tournament>, ProjectionError> {
    let Some(stream) = events.first().map(|e| e.stream_id.clone()) else {
        return Ok(None);
    };
    let mut scratch = Projector::folded_alone(events)?;
    Ok(match scratch.streams.remove(&stream).map(|f| f.state) {
        Some(Aggregate::Tournament(t)) => Some(*t),
        _ => None,
    })
}
