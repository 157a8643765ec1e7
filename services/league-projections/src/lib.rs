//! Read models folded from the store's global log: tournaments (clock, level, tables, chip
//! counts, places, payouts), table views (public, and per viewer), venue and season
//! leaderboards under every scoring version, and player records.
//!
//! # Layout
//!
//! - [`Projector`]: folds [`RecordedEvent`]s in global order into the engine's aggregates
//!   (one per stream) and renders the read models from them as JSON documents.
//! - [`views`]: the read-model types and how they are built from the aggregates.
//!
//! Stream names and payload decoding are `league-events`'.
//!
//! # Invariants
//!
//! - **Rebuild equals live.** The documents depend only on the events folded, never on how
//!   they were batched or when they were rendered: rendering reads the aggregates, which
//!   are a pure fold. Rebuilding from position 0 gives the same bytes as a projector that
//!   followed the log live (`league rebuild --check` compares them).
//! - **Canonical bytes.** Documents are serialised from ordered maps with serde_json, so
//!   equal read models are equal bytes.
//! - **Privacy.** The stored documents are public: no hole card appears in them unless it
//!   was shown. [`views::table_view`] adds a viewer's own cards, or an auditor's view of a
//!   completed hand, on request.

pub mod snapshot;
pub mod views;

use std::collections::{BTreeMap, BTreeSet};
use std::ops::RangeBounds;

use league_engine::cash::{CashEvent, CashState};
use league_engine::league::{self, LeagueState, Scope};
use league_engine::tournament::play::{self, Tournament};
use league_store::{LogEntry, ReadModelDoc, RecordedEvent, Snapshot};
use serde::Serialize;

use league_events::{StreamKind, decode};
pub use snapshot::{Listing, Restored};
pub use views::{PlayerRecord, TableView, TournamentView, Viewer};

/// Why an event could not be folded.
#[derive(Debug, thiserror::Error)]
pub enum ProjectionError {
    #[error("event at position {position} ({stream}): {source}")]
    Decode {
        position: u64,
        stream: String,
        source: league_events::DecodeError,
    },
    #[error(
        "event at position {position} is in stream {stream}, of a kind release {release} does \
         not know: a newer release wrote it; read this log with that release or a later one",
        release = league_events::RELEASE
    )]
    UnknownStream { position: u64, stream: String },
    #[error("event at position {position} is out of order (after {after})")]
    OutOfOrder { position: u64, after: u64 },
    #[error("a read model could not be serialised: {0}")]
    Render(serde_json::Error),
    #[error(
        "stream {stream} is a finished tournament whose state is not held: fold its events \
         with Projector::rehydrate first"
    )]
    NotHeld { stream: String },
    #[error("the events given for stream {stream} do not end at its version {version}")]
    WrongEvents { stream: String, version: u64 },
}

/// The kinds of document.
///
/// A closed season's documents are rendered once, as the season closes, and never again:
/// its `leaderboard`s, its `season` (the league as the season saw it, with its results:
/// [`LeagueState::season_archive`]) and each player's `player-season` record.
pub const KINDS: [&str; 6] = [
    "tournament",
    "table",
    "leaderboard",
    "player",
    "season",
    "player-season",
];

/// Folds the global log into the read models.
#[derive(Default)]
pub struct Projector {
    /// Every stream folded, by name: an event costs one hashed lookup.
    streams: foldhash::HashMap<String, Folded>,
    /// The tournament and league streams, in order (for documents and listings).
    tournament_names: BTreeSet<String>,
    league_names: BTreeSet<String>,
    cash_names: BTreeSet<String>,
    position: Option<u64>,
    events: u64,
    /// Streams whose documents changed since the last [`Projector::take_changed`], each
    /// once (their `dirty` flag is set).
    dirty: Vec<String>,
    /// The documents last handed out by `take_changed`, by stream: a document that is no
    /// longer rendered (a broken table) is handed out as a deletion.
    handed_out: BTreeMap<String, BTreeSet<(String, String)>>,
    /// Finished tournaments whose final documents went out with the checkpoint at this
    /// position: once it is written, their state need not be held (see
    /// [`Projector::release_written`]).
    releasable: Vec<(String, u64, u64)>,
    /// The final documents of seasons closed since the last checkpoint, rendered as they
    /// closed: handed out once, never rendered again.
    closed: Vec<ReadModelDoc>,
    /// Closed seasons' documents handed out with the checkpoint at this position, held
    /// until it is written (so they can be read before the store has them).
    closing: Vec<(u64, Vec<ReadModelDoc>)>,
}

/// One stream's fold.
struct Folded {
    /// The last version folded.
    version: u64,
    /// Listed in [`Projector::dirty`].
    dirty: bool,
    state: Aggregate,
    /// The stream version at which each table's latest hand started, by table: an
    /// auditor's log withholds the hole cards of a hand still running.
    hand_starts: BTreeMap<u32, u64>,
    /// The stream version of the last event that set a tournament's clock (started or
    /// advanced a level, paused, resumed, asked for or did a colour-up): what the
    /// server's clock names as the cause of the level it starts.
    clock_set: u64,
}

enum Aggregate {
    Tournament(Box<Tournament>),
    League(Box<LeagueState>),
    Cash(Box<CashState>),
    /// A finished tournament whose state is not held: its documents are stored, and its
    /// events are in the log.
    Released(Box<Listing>),
}

/// A tournament as [`Projector::listings_in`] lists it.
pub enum Entry<'a> {
    Held(&'a Tournament),
    Released(&'a Listing),
}

impl Entry<'_> {
    /// The tournament's venue and start.
    pub fn venue_and_start(&self) -> Option<(&str, play::Millis)> {
        match self {
            Entry::Held(t) => t.schedule().map(|s| (s.venue.as_str(), s.starts_at)),
            Entry::Released(l) => Some((l.venue.as_str(), l.starts_at)),
        }
    }
}

/// A decoded payload.
enum Decoded {
    Tournament(play::TournamentEvent),
    League(league::Event),
    Cash(CashEvent),
}

impl Projector {
    pub fn new() -> Projector {
        Projector::default()
    }

    /// The position of the last event folded.
    pub fn position(&self) -> Option<u64> {
        self.position
    }

    /// Events folded so far.
    pub fn events(&self) -> u64 {
        self.events
    }

    /// A stream's last version folded (0 for a stream with no events yet).
    pub fn version(&self, stream: &str) -> u64 {
        self.streams.get(stream).map_or(0, |f| f.version)
    }

    /// The stream version of the last event that set the tournament's clock (0 before any).
    pub fn clock_set_at(&self, stream: &str) -> u64 {
        self.streams.get(stream).map_or(0, |f| f.clock_set)
    }

    /// The stream version of the `TableHandStarted` of the latest hand at `table`.
    pub fn hand_started_at(&self, stream: &str, table: u32) -> Option<u64> {
        self.streams.get(stream)?.hand_starts.get(&table).copied()
    }

    /// A tournament whose state is held (every tournament but the finished ones released
    /// at a checkpoint; see [`Projector::listing`]).
    pub fn tournament(&self, stream: &str) -> Option<&Tournament> {
        match &self.streams.get(stream)?.state {
            Aggregate::Tournament(t) => Some(t),
            _ => None,
        }
    }

    /// A finished tournament whose state is no longer held: what lists it. Its documents
    /// are stored; its state folds again from its stream
    /// ([`snapshot::fold_tournament`]).
    pub fn listing(&self, stream: &str) -> Option<&Listing> {
        match &self.streams.get(stream)?.state {
            Aggregate::Released(l) => Some(l),
            _ => None,
        }
    }

    /// The venue of a tournament, held or released.
    pub fn tournament_venue(&self, stream: &str) -> Option<&str> {
        match &self.streams.get(stream)?.state {
            Aggregate::Tournament(t) => t.schedule().map(|s| s.venue.as_str()),
            Aggregate::Released(l) => Some(l.venue.as_str()),
            Aggregate::League(_) | Aggregate::Cash(_) => None,
        }
    }

    /// Every tournament whose stream name is in `range`, in order, held or released.
    pub fn listings_in<R: RangeBounds<String>>(
        &self,
        range: R,
    ) -> impl Iterator<Item = (&String, Entry<'_>)> {
        self.tournament_names
            .range(range)
            .filter_map(|s| match &self.streams.get(s)?.state {
                Aggregate::Tournament(t) => Some((s, Entry::Held(t))),
                Aggregate::Released(l) => Some((s, Entry::Released(l))),
                Aggregate::League(_) | Aggregate::Cash(_) => None,
            })
    }

    /// Every tournament, by stream name.
    pub fn tournaments(&self) -> impl Iterator<Item = (&String, &Tournament)> {
        self.tournaments_in::<std::ops::RangeFull>(..)
    }

    /// The tournaments whose stream names are in `range`, in order.
    pub fn tournaments_in<R: RangeBounds<String>>(
        &self,
        range: R,
    ) -> impl Iterator<Item = (&String, &Tournament)> {
        self.tournament_names
            .range(range)
            .filter_map(|s| Some((s, self.tournament(s)?)))
    }

    pub fn league(&self, stream: &str) -> Option<&LeagueState> {
        match &self.streams.get(stream)?.state {
            Aggregate::League(l) => Some(l),
            _ => None,
        }
    }

    /// A cash table, by its stream.
    pub fn cash_table(&self, stream: &str) -> Option<&CashState> {
        match &self.streams.get(stream)?.state {
            Aggregate::Cash(c) => Some(c),
            _ => None,
        }
    }

    /// Every cash table, by stream name.
    pub fn cash_tables(&self) -> impl Iterator<Item = (&String, &CashState)> {
        self.cash_names
            .iter()
            .filter_map(|s| Some((s, self.cash_table(s)?)))
    }

    /// Every league, by stream name.
    pub fn leagues(&self) -> impl Iterator<Item = (&String, &LeagueState)> {
        self.league_names
            .iter()
            .filter_map(|s| Some((s, self.league(s)?)))
    }

    /// Folds one event. Events must come in global order. A stream of a kind this release
    /// does not know (a newer release wrote it) is refused, never skipped.
    pub fn apply(&mut self, event: &RecordedEvent) -> Result<(), ProjectionError> {
        self.apply_parts(
            event.position,
            &event.stream_id,
            event.stream_version,
            (&event.event_type, event.schema_version),
            &event.payload,
        )
    }

    /// Folds one event read with [`league_store::Store::read_log`].
    pub fn apply_log(&mut self, event: &LogEntry) -> Result<(), ProjectionError> {
        self.apply_parts(
            event.position,
            &event.stream_id,
            event.stream_version,
            (&event.event_type, event.schema_version),
            &event.payload,
        )
    }

    /// `(event_type, schema_version)` say which shape `payload` has.
    fn apply_parts(
        &mut self,
        position: u64,
        stream: &str,
        version: u64,
        (event_type, schema_version): (&str, u32),
        payload: &[u8],
    ) -> Result<(), ProjectionError> {
        if let Some(after) = self.position
            && position <= after
        {
            return Err(ProjectionError::OutOfOrder { position, after });
        }
        self.fold_one(
            position,
            stream,
            version,
            (event_type, schema_version),
            payload,
        )?;
        self.position = Some(position);
        self.events += 1;
        Ok(())
    }

    /// Folds one event of `stream` (at `position`, for errors) without moving the
    /// projector's position.
    fn fold_one(
        &mut self,
        position: u64,
        stream: &str,
        version: u64,
        (event_type, schema_version): (&str, u32),
        payload: &[u8],
    ) -> Result<(), ProjectionError> {
        let decode_error = |source| ProjectionError::Decode {
            position,
            stream: stream.to_owned(),
            source,
        };
        // Decoded before anything changes: an event that cannot be read folds nothing.
        let decoded = match StreamKind::of(stream) {
            Some(StreamKind::Tournament) => Decoded::Tournament(
                decode(event_type, schema_version, payload).map_err(decode_error)?,
            ),
            Some(StreamKind::League) => {
                Decoded::League(decode(event_type, schema_version, payload).map_err(decode_error)?)
            }
            Some(StreamKind::Cash) => {
                Decoded::Cash(decode(event_type, schema_version, payload).map_err(decode_error)?)
            }
            None => {
                return Err(ProjectionError::UnknownStream {
                    position,
                    stream: stream.to_owned(),
                });
            }
        };
        // Looked up before inserting: a stream name is allocated once, not per event.
        let folded = match self.streams.get_mut(stream) {
            Some(folded) => folded,
            None => {
                let state = match &decoded {
                    Decoded::Tournament(_) => {
                        self.tournament_names.insert(stream.to_owned());
                        Aggregate::Tournament(Box::default())
                    }
                    Decoded::League(_) => {
                        self.league_names.insert(stream.to_owned());
                        Aggregate::League(Box::default())
                    }
                    Decoded::Cash(_) => {
                        self.cash_names.insert(stream.to_owned());
                        Aggregate::Cash(Box::default())
                    }
                };
                self.streams.entry(stream.to_owned()).or_insert(Folded {
                    version: 0,
                    dirty: false,
                    state,
                    hand_starts: BTreeMap::new(),
                    clock_set: 0,
                })
            }
        };
        let changed = match (&mut folded.state, &decoded) {
            (Aggregate::Tournament(state), Decoded::Tournament(e)) => {
                let clock = |t: &Tournament| {
                    (
                        t.clock(),
                        t.level().map(|(number, _)| number),
                        t.colour_up_due().is_some(),
                    )
                };
                let before = clock(state);
                play::apply(state, e);
                if let play::TournamentEvent::TableHandStarted { table, .. } = e {
                    folded.hand_starts.insert(*table, version);
                }
                if clock(state) != before {
                    folded.clock_set = version;
                }
                true
            }
            (Aggregate::League(state), Decoded::League(e)) => {
                if let league::Event::SeasonClosed { season } = e
                    && let Some(archive) = state.season_archive(season)
                {
                    let docs = closed_season_docs(stream, season, &archive)?;
                    if let Some(handed) = self.handed_out.get_mut(stream) {
                        for d in &docs {
                            handed.remove(&(d.kind.clone(), d.key.clone()));
                        }
                    }
                    self.closed.extend(docs);
                }
                league::apply(state, e);
                true
            }
            (Aggregate::Cash(state), Decoded::Cash(e)) => {
                state.apply(e);
                true
            }
            (Aggregate::Released(_), _) => {
                return Err(ProjectionError::NotHeld {
                    stream: stream.to_owned(),
                });
            }
            // A stream's kind follows from its name, so it never changes.
            _ => false,
        };
        if changed && !folded.dirty {
            folded.dirty = true;
            self.dirty.push(stream.to_owned());
        }
        folded.version = version;
        Ok(())
    }

    /// Every document, ordered by kind and key.
    pub fn docs(&self) -> Result<Vec<ReadModelDoc>, ProjectionError> {
        let tournaments: Vec<&String> = self.tournament_names.iter().collect();
        let leagues: Vec<&String> = self.league_names.iter().collect();
        let mut docs = self.render(&tournaments, &leagues)?;
        docs.extend(self.closed.iter().cloned());
        docs.sort_by(|a, b| (&a.kind, &a.key).cmp(&(&b.kind, &b.key)));
        Ok(docs)
    }

    /// A closed season's document (`season` or `player-season`, [`KINDS`]) that the store
    /// may not hold yet: rendered as the season closed, and not yet written by a
    /// checkpoint. `None`: read it from the store.
    pub fn closed_doc(&self, kind: &str, key: &str) -> Option<&ReadModelDoc> {
        self.closed
            .iter()
            .chain(self.closing.iter().flat_map(|(_, docs)| docs))
            .find(|d| d.kind == kind && d.key == key)
    }

    /// The documents whose inputs changed since the last call (for the live projector's
    /// checkpoints). A document that no longer exists comes back with an empty `doc`: a
    /// deletion.
    pub fn take_changed(&mut self) -> Result<Vec<ReadModelDoc>, ProjectionError> {
        Ok(self.take_checkpoint()?.0)
    }

    /// [`Projector::take_changed`], with the snapshots of the streams changed since the
    /// last call (and of the projector as a whole): what a checkpoint writes, so that a
    /// start-up can load them with [`Projector::restore`]. A finished tournament's snapshot
    /// only lists it, and its state may be released once this checkpoint is written.
    pub fn take_checkpoint(
        &mut self,
    ) -> Result<(Vec<ReadModelDoc>, Vec<Snapshot>), ProjectionError> {
        let dirty = self.dirty.clone();
        let docs = self.take_dirty_docs()?;
        let mut snapshots = Vec::with_capacity(dirty.len() + 1);
        for stream in &dirty {
            let Some(folded) = self.streams.get(stream) else {
                continue;
            };
            let (snapshot, finished) =
                snapshot::of_stream(stream, folded, self.handed_out.get(stream))?;
            snapshots.push(snapshot);
            if finished && let Some(position) = self.position {
                self.releasable
                    .push((stream.clone(), position, self.version(stream)));
            }
        }
        if let Some(position) = self.position {
            snapshots.push(snapshot::manifest(
                position,
                self.events,
                self.streams.len(),
            )?);
        }
        Ok((docs, snapshots))
    }

    /// Releases the state of the finished tournaments whose final documents went out with
    /// a checkpoint at or before `written` (which the caller has written): only what lists
    /// them is kept. One that changed since (a later version, or changes not yet handed
    /// out) is kept until the checkpoint that has them is written.
    pub fn release_written(&mut self, written: u64) {
        self.closing.retain(|(at, _)| *at > written);
        let mut kept = Vec::new();
        for (stream, at, version) in std::mem::take(&mut self.releasable) {
            if at > written {
                kept.push((stream, at, version));
                continue;
            }
            let Some(folded) = self.streams.get_mut(&stream) else {
                continue;
            };
            if folded.dirty || folded.version != version {
                continue;
            }
            if let Some(listing) = snapshot::listing_of(&folded.state) {
                folded.state = Aggregate::Released(Box::new(listing));
                self.handed_out.remove(&stream);
            }
        }
        self.releasable = kept;
    }

    /// A stream's state folded from `events` (the whole stream, in version order): held
    /// again, for a released tournament that has a new event (`events` must then end at
    /// the version folded), or in place of a snapshot that could not be read (its
    /// documents and snapshot are written again at the next checkpoint).
    pub fn rehydrate(
        &mut self,
        stream: &str,
        events: &[RecordedEvent],
    ) -> Result<(), ProjectionError> {
        let released = self.listing(stream).is_some();
        let mut scratch = Projector::folded_alone(events)?;
        let version = self.version(stream);
        let Some(mut folded) = scratch
            .streams
            .remove(stream)
            .filter(|f| !released || f.version == version)
        else {
            return Err(ProjectionError::WrongEvents {
                stream: stream.to_owned(),
                version,
            });
        };
        folded.dirty = !released;
        if folded.dirty {
            self.dirty.push(stream.to_owned());
        }
        // A league's closed seasons, rendered again as they closed: the same bytes as
        // stored, written again with the rest of the stream's documents.
        self.closed.append(&mut scratch.closed);
        match folded.state {
            Aggregate::League(_) => self.league_names.insert(stream.to_owned()),
            Aggregate::Cash(_) => self.cash_names.insert(stream.to_owned()),
            _ => self.tournament_names.insert(stream.to_owned()),
        };
        self.streams.insert(stream.to_owned(), folded);
        let keys = self.rendered_keys(stream)?;
        self.handed_out.insert(stream.to_owned(), keys);
        Ok(())
    }

    /// A projector that has folded `events` alone (one stream's, in version order), its
    /// position left unmoved.
    fn folded_alone(events: &[RecordedEvent]) -> Result<Projector, ProjectionError> {
        let mut scratch = Projector::new();
        for e in events {
            scratch.fold_one(
                e.position,
                &e.stream_id,
                e.stream_version,
                (&e.event_type, e.schema_version),
                &e.payload,
            )?;
        }
        Ok(scratch)
    }

    /// The kinds and keys of the documents `stream` renders now.
    fn rendered_keys(&self, stream: &str) -> Result<BTreeSet<(String, String)>, ProjectionError> {
        let name = stream.to_owned();
        let docs = if self.tournament_names.contains(stream) {
            self.render(&[&name], &[])?
        } else {
            self.render(&[], &[&name])?
        };
        Ok(docs.into_iter().map(|d| (d.kind, d.key)).collect())
    }

    fn take_dirty_docs(&mut self) -> Result<Vec<ReadModelDoc>, ProjectionError> {
        let mut dirty = std::mem::take(&mut self.dirty);
        for stream in &dirty {
            if let Some(folded) = self.streams.get_mut(stream) {
                folded.dirty = false;
            }
        }
        // Tournaments first, then leagues, each in order.
        dirty.sort_unstable();
        let (mut dirty, leagues): (Vec<String>, Vec<String>) = dirty
            .into_iter()
            .partition(|s| self.tournament_names.contains(s));
        dirty.extend(leagues);
        let mut out = Vec::new();
        for stream in &dirty {
            let docs = if self.tournament_names.contains(stream) {
                self.render(&[stream], &[])?
            } else {
                self.render(&[], &[stream])?
            };
            let now: BTreeSet<(String, String)> = docs
                .iter()
                .map(|d| (d.kind.clone(), d.key.clone()))
                .collect();
            if let Some(before) = self.handed_out.insert(stream.clone(), now.clone()) {
                for (kind, key) in before.difference(&now) {
                    out.push(ReadModelDoc {
                        kind: kind.clone(),
                        key: key.clone(),
                        doc: Vec::new(),
                    });
                }
            }
            out.extend(docs);
        }
        let closed = std::mem::take(&mut self.closed);
        out.extend(closed.iter().cloned());
        if let Some(position) = self.position
            && !closed.is_empty()
        {
            self.closing.push((position, closed));
        }
        Ok(out)
    }

    fn render(
        &self,
        tournaments: &[&String],
        leagues: &[&String],
    ) -> Result<Vec<ReadModelDoc>, ProjectionError> {
        let mut docs = Vec::new();
        for &stream in tournaments {
            let Some(t) = self.tournament(stream) else {
                continue;
            };
            docs.push(doc(
                "tournament",
                stream,
                &views::tournament_view(stream, t),
            )?);
            for number in t.tables().keys() {
                if let Some(view) = views::table_view(t, *number, &Viewer::Public) {
                    docs.push(doc("table", &format!("{stream}/{number}"), &view)?);
                }
            }
        }
        for &stream in leagues {
            let Some(l) = self.league(stream) else {
                continue;
            };
            for (season_id, season) in l.seasons() {
                if !season.closed {
                    leaderboards(stream, l, season_id, &mut docs)?;
                }
            }
            for (id, record) in views::player_records(l) {
                docs.push(doc("player", &format!("{stream}/{id}"), &record)?);
            }
        }
        docs.sort_by(|a, b| (&a.kind, &a.key).cmp(&(&b.kind, &b.key)));
        Ok(docs)
    }
}

/// Season `season`'s leaderboards in league `l` (the league stream `stream`): every
/// scoring version, the season and each venue.
fn leaderboards(
    stream: &str,
    l: &LeagueState,
    season_id: &str,
    docs: &mut Vec<ReadModelDoc>,
) -> Result<(), ProjectionError> {
    let Some(season) = l.season(season_id) else {
        return Ok(());
    };
    for version in 1..=season.version() {
        let mut scopes = vec![("season".to_owned(), Scope::Season)];
        scopes.extend(
            l.venues()
                .keys()
                .map(|v| (format!("venue:{v}"), Scope::Venue(v))),
        );
        for (name, scope) in scopes {
            if let Ok(standings) = l.standings(season_id, Some(version), scope) {
                docs.push(doc(
                    "leaderboard",
                    &format!("{stream}/{season_id}/v{version}/{name}"),
                    &standings,
                )?);
            }
        }
    }
    Ok(())
}

/// The final documents of season `season` of the league stream `stream`, from the league
/// as the season saw it as it closed ([`LeagueState::season_archive`]).
fn closed_season_docs(
    stream: &str,
    season: &str,
    archive: &LeagueState,
) -> Result<Vec<ReadModelDoc>, ProjectionError> {
    let mut docs = Vec::new();
    leaderboards(stream, archive, season, &mut docs)?;
    docs.push(doc("season", &format!("{stream}/{season}"), archive)?);
    for (id, record) in views::player_records(archive) {
        if record.played > 0 {
            docs.push(doc(
                "player-season",
                &views::player_season_key(stream, season, &id),
                &record,
            )?);
        }
    }
    Ok(docs)
}

fn doc<T: Serialize>(kind: &str, key: &str, value: &T) -> Result<ReadModelDoc, ProjectionError> {
    Ok(ReadModelDoc {
        kind: kind.to_owned(),
        key: key.to_owned(),
        doc: serde_json::to_vec(value).map_err(ProjectionError::Render)?,
    })
}

/// The first difference between two sets of documents (both ordered by kind and key).
pub fn first_difference(live: &[ReadModelDoc], rebuilt: &[ReadModelDoc]) -> Option<String> {
    let live_map: BTreeMap<(&str, &str), &[u8]> = live
        .iter()
        .map(|d| ((d.kind.as_str(), d.key.as_str()), d.doc.as_slice()))
        .collect();
    let rebuilt_map: BTreeMap<(&str, &str), &[u8]> = rebuilt
        .iter()
        .map(|d| ((d.kind.as_str(), d.key.as_str()), d.doc.as_slice()))
        .collect();
    let keys: BTreeSet<(&str, &str)> = live_map.keys().chain(rebuilt_map.keys()).copied().collect();
    for key in keys {
        match (live_map.get(&key), rebuilt_map.get(&key)) {
            (Some(a), Some(b)) if a == b => {}
            (Some(a), Some(b)) => {
                let at = a.iter().zip(b.iter()).take_while(|(x, y)| x == y).count();
                let context = |d: &[u8]| {
                    String::from_utf8_lossy(&d[at.saturating_sub(40)..(at + 40).min(d.len())])
                        .into_owned()
                };
                return Some(format!(
                    "{} {}: differs at byte {at}: live …{}… rebuilt …{}…",
                    key.0,
                    key.1,
                    context(a),
                    context(b)
                ));
            }
            (Some(_), None) => return Some(format!("{} {}: only live", key.0, key.1)),
            (None, Some(_)) => return Some(format!("{} {}: only rebuilt", key.0, key.1)),
            (None, None) => {}
        }
    }
    None
}
