//! The live projector: follows the log and keeps the stored read models current.

use std::sync::{Arc, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::Duration;

use league_engine::tournament::play::Tournament;
use league_projections::Projector;
use league_store::{ReadModelDoc, Snapshot, Store};
use tokio::sync::{broadcast, mpsc, watch};

use crate::{AppError, PROJECTION};

/// Events folded between two checkpoints while catching up.
const CHECKPOINT_EVERY: u64 = 20_000;

/// Capacity of each stream's change channel: a receiver further behind than this many
/// rounds gets `Lagged` and should re-read the whole view.
const CHANGES_CAPACITY: usize = 1024;

/// What one round of folding changed: the streams whose state moved, up to `position`,
/// and each changed tournament that somebody watches, as this round left it, with its
/// stream version, so a watcher renders every version even when it runs late.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Folded {
    pub position: u64,
    pub streams: Vec<String>,
    pub tournaments: Vec<(String, u64, Arc<Tournament>)>,
}

/// A running live projector.
pub struct Live {
    /// Read with [`Live::read`]. A blocking lock, held only while folding or reading
    /// memory, never across an `await`: a fair async lock hands itself to a waiting task
    /// that may sit in a busy worker's queue, and every decision and query behind it waits
    /// for that queue too.
    projector: Arc<RwLock<Projector>>,
    /// The position folded so far (`None` before the first event).
    pub position: watch::Receiver<Option<u64>>,
    /// Whether the projector has restored its snapshots and folded the log as it stood
    /// when it started, and the log's head then (see [`Live::loaded`]).
    loaded: watch::Receiver<(bool, u64)>,
    /// Each round of folding, published per stream once the projector's lock is released
    /// (so a receiver that locks the projector sees at least this position): a watcher of
    /// one stream wakes only for its stream, and every watcher shares the round's `Arc`.
    /// Subscribe with [`Live::changes_of`].
    watchers: Arc<Watchers>,
    stop: watch::Sender<bool>,
    /// Taken by the first [`Live::finish`].
    task: std::sync::Mutex<Option<tokio::task::JoinHandle<Result<(), AppError>>>>,
    /// Events folded from the log since this projector started (not those its snapshots
    /// restored).
    folded_events: Arc<std::sync::atomic::AtomicU64>,
    /// Released tournaments read back from the store lately, with the version read.
    released: std::sync::Mutex<Vec<(String, u64, Arc<Tournament>)>>,
}

/// Released tournaments kept after being read back (see [`Live::released_tournament`]).
const RELEASED_KEPT: usize = 16;

impl Live {
    /// Starts following the log: from the snapshots of the last checkpoint, or from
    /// position 0 when there are none it can use. The projector is in memory; its stored
    /// documents and snapshots are rewritten at each checkpoint, and a finished
    /// tournament's state is released once its final documents are written.
    pub fn spawn(store: Store) -> Live {
        let projector = Arc::new(RwLock::new(Projector::new()));
        let (position_tx, position) = watch::channel(None);
        let (stop, mut stopped) = watch::channel(false);
        let shared = Arc::clone(&projector);
        let watchers = Arc::new(Watchers::default());
        let watchers_tx = Arc::clone(&watchers);
        let folded_events = Arc::new(std::sync::atomic::AtomicU64::new(0));
        let counted = Arc::clone(&folded_events);
        let (loaded_tx, loaded) = watch::channel((false, 0));
        let task = tokio::spawn(async move {
            let restored = restore(&store).await?;
            let position = restored.position();
            *write(&shared) = restored;
            // Only now: a reader that sees the position sees the projector restored.
            let _ = position_tx.send(position);
            let from = position.map_or(0, |p| p.saturating_add(1));
            // The log's head as this start found it: loaded once folded that far.
            let start_head = {
                let mut failures = 0;
                loop {
                    match store.last_position().await {
                        Err(e) if e.is_connection_io() => connection_failed(&mut failures).await,
                        read => break read?,
                    }
                }
            };
            let is_loaded = |folded: Option<u64>| {
                start_head.is_none_or(|head| folded.is_some_and(|p| p >= head))
            };
            let _ = loaded_tx.send((is_loaded(position), start_head.unwrap_or(0)));
            let mut subscription = store.subscribe_all(from);
            let mut since_checkpoint = 0u64;
            let mut failures = 0u32;
            // Checkpoints are written by a task of their own, in order: a write takes tens of
            // milliseconds, and the projector folding on meanwhile is what commands wait for.
            let (checkpoints, queued) = mpsc::unbounded_channel();
            let (written_tx, mut written) = watch::channel(None);
            let writer = tokio::spawn(write_checkpoints(store.clone(), queued, written_tx));
            loop {
                // Read before locking: decisions and queries wait on the projector's lock,
                // never on the database.
                let room = usize::try_from(CHECKPOINT_EVERY - since_checkpoint).unwrap_or(1);
                let batch = tokio::select! {
                    batch = subscription.next_batch(room) => batch,
                    // A checkpoint written releases the finished tournaments it stored, also
                    // while no event comes (a quiet league after a start that folded the
                    // whole log holds every tournament until then).
                    Ok(()) = written.changed() => {
                        if let Some(written) = *written.borrow_and_update() {
                            write(&shared).release_written(written);
                        }
                        continue;
                    }
                    _ = stopped.changed() => break,
                };
                let batch = match batch {
                    Ok(batch) => {
                        failures = 0;
                        batch
                    }
                    // The read is tried again from where it stopped (see `connection_failed`).
                    Err(e) if e.is_connection_io() => {
                        connection_failed(&mut failures).await;
                        continue;
                    }
                    Err(e) => return Err(e.into()),
                };
                rehydrate_released(&store, &shared, &batch).await?;
                since_checkpoint += u64::try_from(batch.len()).unwrap_or(u64::MAX);
                counted.fetch_add(
                    u64::try_from(batch.len()).unwrap_or(u64::MAX),
                    std::sync::atomic::Ordering::Relaxed,
                );
                // A checkpoint is also rendered as the start's fold reaches the log's head:
                // one that folded the whole log (the snapshots were another release's, or
                // unusable) has its checkpoints on the way not taken, behind the stored one,
                // and would hold every finished tournament until the next was due.
                let reaches_head = !loaded_tx.borrow().0
                    && batch.last().is_some_and(|e| is_loaded(Some(e.position)));
                let checkpoint_due = since_checkpoint >= CHECKPOINT_EVERY || reaches_head;
                if checkpoint_due {
                    since_checkpoint = 0;
                }
                let Round {
                    position,
                    streams,
                    tournaments,
                    checkpoint,
                } = fold(
                    &shared,
                    &batch,
                    &watchers_tx,
                    checkpoint_due,
                    *written.borrow(),
                )?;
                let _ = position_tx.send(position);
                if !loaded_tx.borrow().0 && is_loaded(position) {
                    loaded_tx.send_modify(|(loaded, _)| *loaded = true);
                }
                if let Some(position) = position {
                    // Sent to the watchers of each stream it changed (none is fine).
                    let folded = Arc::new(Folded {
                        position,
                        streams,
                        tournaments,
                    });
                    watchers_tx.publish(&folded);
                }
                if let Some(checkpoint) = checkpoint
                    && checkpoints.send(checkpoint).is_err()
                {
                    // The writer stopped: on an error, which is the projector's.
                    break;
                }
            }
            if let Some(last) = render_checkpoint(&mut write(&shared))? {
                let _ = checkpoints.send(last);
            }
            drop(checkpoints);
            writer
                .await
                .map_err(|e| AppError::Other(format!("the checkpoint writer panicked: {e}")))?
        });
        Live {
            projector,
            position,
            loaded,
            watchers,
            stop,
            task: std::sync::Mutex::new(Some(task)),
            folded_events,
            released: std::sync::Mutex::new(Vec::new()),
        }
    }

    /// Events folded from the log since this projector started: after a start from
    /// snapshots, only those after their checkpoint.
    pub fn events_folded(&self) -> u64 {
        self.folded_events
            .load(std::sync::atomic::Ordering::Relaxed)
    }

    /// A finished tournament whose state the projector released (its documents are
    /// stored), folded again from its stream as the projector has folded it; `None` for a
    /// stream that is not a released tournament. The last few read are kept.
    pub async fn released_tournament(
        &self,
        store: &Store,
        stream: &str,
    ) -> Result<Option<(u64, Arc<Tournament>)>, AppError> {
        let version = {
            let p = self.read();
            if p.listing(stream).is_none() {
                return Ok(None);
            }
            p.version(stream)
        };
        let kept = |released: &Vec<(String, u64, Arc<Tournament>)>| {
            released
                .iter()
                .find(|(s, v, _)| s == stream && *v == version)
                .map(|(_, v, t)| (*v, Arc::clone(t)))
        };
        if let Some(t) = kept(&self.released_lock()) {
            return Ok(Some(t));
        }
        let mut events = store.read_stream(stream, 1).await?;
        events.retain(|e| e.stream_version <= version);
        let Some(t) = league_projections::snapshot::fold_tournament(&events)? else {
            return Ok(None);
        };
        let t = Arc::new(t);
        let mut released = self.released_lock();
        released.retain(|(s, _, _)| s != stream);
        if released.len() >= RELEASED_KEPT {
            released.remove(0);
        }
        released.push((stream.to_owned(), version, Arc::clone(&t)));
        Ok(Some((version, t)))
    }

    fn released_lock(&self) -> std::sync::MutexGuard<'_, Vec<(String, u64, Arc<Tournament>)>> {
        self.released.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The projector, for reading (decisions and queries). Do not hold it across an
    /// `await`.
    pub fn read(&self) -> RwLockReadGuard<'_, Projector> {
        // A panic while folding stops the projector task, so its position stops and
        // commands waiting on it time out; reads keep what was folded, as before the panic.
        self.projector
            .read()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Every round of folding from now on that changed `stream`.
    pub fn changes_of(&self, stream: &str) -> broadcast::Receiver<Arc<Folded>> {
        self.watchers.subscribe(stream)
    }

    /// Waits until the projector has folded `position` (each caller waits on its own
    /// receiver, so any number may wait at once).
    pub async fn reach(&self, position: u64, timeout: Duration) -> Result<(), AppError> {
        let mut receiver = self.position.clone();
        let wait = receiver.wait_for(|p| p.is_some_and(|p| p >= position));
        match tokio::time::timeout(timeout, wait).await {
            Ok(Ok(_)) => Ok(()),
            Ok(Err(_)) => Err(AppError::Other("the live projector stopped".into())),
            Err(_) => Err(AppError::Other(format!(
                "the live projector did not reach position {position} in {timeout:?}"
            ))),
        }
    }

    /// Waits until the projector has restored its snapshots and folded the log as it stood
    /// when it started: what a query must wait for after a restart, or it would answer
    /// from a projector still empty. Fails after `timeout`.
    pub async fn loaded(&self, timeout: Duration) -> Result<(), AppError> {
        let mut loaded = self.loaded.clone();
        match tokio::time::timeout(timeout, loaded.wait_for(|(l, _)| *l)).await {
            Ok(Ok(_)) => Ok(()),
            Ok(Err(_)) => Err(AppError::Other("the live projector stopped".into())),
            Err(_) => Err(AppError::NotCaughtUp {
                position: self.loaded.borrow().1,
                folded: self.folded(),
            }),
        }
    }

    /// The position folded so far (`None` before the first event).
    pub fn folded(&self) -> Option<u64> {
        *self.position.borrow()
    }

    /// Waits until the projector has folded `position`, which the store holds (another
    /// instance may have appended it): once the log is readable that far, this process's
    /// readers are woken to read it now rather than at their next poll. Fails after
    /// `timeout`, and at once for a position past the log's end.
    pub async fn catch_up_to(
        &self,
        store: &Store,
        position: u64,
        timeout: Duration,
    ) -> Result<(), AppError> {
        // Positions start at 1: 0 asks for nothing.
        if position == 0 || self.folded().is_some_and(|p| p >= position) {
            return Ok(());
        }
        let (head, readable) = store.log_head().await?;
        if head.is_none_or(|head| head < position) {
            return Err(AppError::PastTheEnd {
                position,
                end: head,
            });
        }
        self.fold_readable(store, position, readable, timeout).await
    }

    /// Waits until the projector has folded every event the store holds now: what a
    /// decision must see, when another instance may have appended (a command is decided on
    /// its stream as the store holds it, not on a projection that lags).
    pub async fn catch_up(&self, store: &Store, timeout: Duration) -> Result<(), AppError> {
        // The head and the horizon in one read: on a busy instance the head is nearly
        // always past what is folded (other tables' commands), and usually readable.
        let (head, readable) = store.log_head().await?;
        match head {
            Some(head) if self.folded().is_none_or(|p| p < head) => {
                self.fold_readable(store, head, readable, timeout).await
            }
            _ => Ok(()),
        }
    }

    /// [`Live::catch_up_to`] once `position` is known to be in the log: waits until it is
    /// readable (unless it is already), wakes the readers, waits for the fold.
    async fn fold_readable(
        &self,
        store: &Store,
        position: u64,
        readable: bool,
        timeout: Duration,
    ) -> Result<(), AppError> {
        let started = tokio::time::Instant::now();
        if !readable {
            store.wait_readable(position, timeout).await?;
        }
        store.wake_subscribers();
        self.reach(position, timeout.saturating_sub(started.elapsed()))
            .await
            .map_err(|_| AppError::NotCaughtUp {
                position,
                folded: self.folded(),
            })
    }

    /// Stops following and writes a last checkpoint, even while others still share this
    /// projector (a server's lingering WebSocket sessions): they keep reading what was
    /// folded. Only the first call waits for the projector's task; later calls return at
    /// once.
    pub async fn finish(&self) -> Result<(), AppError> {
        let _ = self.stop.send(true);
        let task = self
            .task
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        match task {
            Some(task) => task
                .await
                .map_err(|e| AppError::Other(format!("the live projector panicked: {e}")))?,
            None => Ok(()),
        }
    }

    /// [`Live::finish`], then returns the projector.
    pub async fn stop(self) -> Result<Projector, AppError> {
        self.finish().await?;
        let projector = Arc::try_unwrap(self.projector)
            .map_err(|_| AppError::Other("the projector is still shared".into()))?;
        Ok(projector
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner))
    }
}

/// What one round of folding did, taken under the projector's lock.
struct Round {
    position: Option<u64>,
    streams: Vec<String>,
    tournaments: Vec<(String, u64, Arc<Tournament>)>,
    checkpoint: Option<Checkpoint>,
}

/// Folds `batch` under the lock; snapshots the changed tournaments somebody watches (a
/// clone each) and, if `checkpoint_due`, renders the checkpoint.
fn fold(
    shared: &RwLock<Projector>,
    batch: &[league_store::RecordedEvent],
    watchers: &Watchers,
    checkpoint_due: bool,
    written: Option<u64>,
) -> Result<Round, AppError> {
    let mut p = write(shared);
    let mut streams: Vec<String> = Vec::new();
    for event in batch {
        p.apply(event)?;
        if !streams.contains(&event.stream_id) {
            streams.push(event.stream_id.clone());
        }
    }
    // After folding: a tournament this batch changed is not released.
    if let Some(written) = written {
        p.release_written(written);
    }
    let checkpoint = if checkpoint_due {
        render_checkpoint(&mut p)?
    } else {
        None
    };
    let tournaments = streams
        .iter()
        .filter(|s| watchers.watched(s))
        .filter_map(|s| {
            p.tournament(s)
                .map(|t| (s.clone(), p.version(s), Arc::new(t.clone())))
        })
        .collect();
    Ok(Round {
        position: p.position(),
        streams,
        tournaments,
        checkpoint,
    })
}

/// The projector, for folding.
fn write(projector: &RwLock<Projector>) -> RwLockWriteGuard<'_, Projector> {
    projector.write().unwrap_or_else(PoisonError::into_inner)
}

/// A checkpoint rendered under the projector's lock: the position, and the documents and
/// snapshots changed since the last one.
#[derive(Debug)]
struct Checkpoint {
    position: u64,
    docs: Vec<ReadModelDoc>,
    snapshots: Vec<Snapshot>,
}

/// The checkpoint due now (`None` before the first event).
fn render_checkpoint(p: &mut Projector) -> Result<Option<Checkpoint>, AppError> {
    let Some(position) = p.position() else {
        return Ok(None);
    };
    let (docs, snapshots) = p.take_checkpoint()?;
    Ok(Some(Checkpoint {
        position,
        docs,
        snapshots,
    }))
}

/// The projector as the last checkpoint's snapshots left it, each snapshot that could not
/// be used folded again from its stream's events (an empty projector, to fold from the
/// start, when the snapshots cannot be used at all).
async fn restore(store: &Store) -> Result<Projector, AppError> {
    let mut failures = 0;
    let (checkpoint, rows) = loop {
        match store.read_snapshots(PROJECTION).await {
            Err(e) if e.is_connection_io() => connection_failed(&mut failures).await,
            read => break read?,
        }
    };
    let restored = Projector::restore(checkpoint, rows);
    for why in &restored.ignored {
        tracing::warn!("{why}: folding from the log instead");
    }
    let mut projector = restored.projector;
    if let Some(checkpoint) = checkpoint.filter(|_| projector.position().is_some()) {
        for stream in restored.refold {
            let events = read_stream_before(store, &stream, checkpoint.saturating_add(1)).await?;
            if let Err(e) = projector.rehydrate(&stream, &events) {
                tracing::warn!("{stream} cannot be folded from its events ({e}): folding the log");
                return Ok(Projector::new());
            }
        }
    }
    Ok(projector)
}

/// Holds again the released tournaments that `batch` has events of, folded from their
/// streams up to their first event in `batch`.
async fn rehydrate_released(
    store: &Store,
    shared: &RwLock<Projector>,
    batch: &[league_store::RecordedEvent],
) -> Result<(), AppError> {
    let mut released: Vec<(&str, u64)> = Vec::new();
    {
        let p = shared.read().unwrap_or_else(PoisonError::into_inner);
        for e in batch {
            if p.listing(&e.stream_id).is_some() && !released.iter().any(|(s, _)| *s == e.stream_id)
            {
                released.push((&e.stream_id, e.position));
            }
        }
    }
    for (stream, first) in released {
        let events = read_stream_before(store, stream, first).await?;
        write(shared).rehydrate(stream, &events)?;
    }
    Ok(())
}

/// The events of `stream` before position `before`.
async fn read_stream_before(
    store: &Store,
    stream: &str,
    before: u64,
) -> Result<Vec<league_store::RecordedEvent>, AppError> {
    let mut failures = 0;
    let mut events = loop {
        match store.read_stream(stream, 1).await {
            Err(e) if e.is_connection_io() => connection_failed(&mut failures).await,
            read => break read?,
        }
    };
    events.retain(|e| e.position < before);
    Ok(events)
}

/// Writes the checkpoints the projector renders, in order, until it stops sending them.
/// Checkpoints queued behind a write are written as one (the latest position, each document
/// as it was last rendered). A checkpoint that cannot be written while the database cannot
/// be reached hands its documents to the next; if the last one fails, so does the writer.
/// A checkpoint not taken (another writer stored a later one first: another instance, or
/// the release before this one) goes with the next the same way: each stream and document
/// in it that the next does not render again has not changed since, so the next one's
/// write covers every change since this writer's last. Each written checkpoint's position
/// is sent on `written` (finished tournaments listed up to it may be released); that of
/// one not taken is not.
async fn write_checkpoints(
    store: Store,
    mut queued: mpsc::UnboundedReceiver<Checkpoint>,
    written: watch::Sender<Option<u64>>,
) -> Result<(), AppError> {
    // A checkpoint whose write failed, for the next one, and why it failed.
    let mut unwritten: Option<Checkpoint> = None;
    let mut failed = None;
    while let Some(first) = queued.recv().await {
        let mut checkpoint = with_unwritten(unwritten.take(), first);
        while let Ok(next) = queued.try_recv() {
            checkpoint = with_unwritten(Some(checkpoint), next);
        }
        match write_checkpoint(&store, &checkpoint).await {
            // Kept while the database cannot be reached: the next checkpoint (or the last,
            // written as the projector stops) writes its documents too.
            Err(AppError::Store(e)) if e.is_connection_io() => {
                unwritten = Some(checkpoint);
                failed = Some(e);
            }
            done => {
                failed = None;
                if done? {
                    let _ = written.send(Some(checkpoint.position));
                } else {
                    // Nothing of it is released yet: the rows stored may not hold its
                    // snapshots (the release before this one wrote none), and a finished
                    // tournament released without its row would void every snapshot at
                    // the next start.
                    unwritten = Some(checkpoint);
                }
            }
        }
    }
    match failed {
        Some(e) => Err(e.into()),
        None => Ok(()),
    }
}

/// Writes a checkpoint rendered by [`render_checkpoint`] (after the lock is released).
/// Whether it was written: not when another instance stored a later checkpoint first.
async fn write_checkpoint(store: &Store, checkpoint: &Checkpoint) -> Result<bool, AppError> {
    let mut failures = 0;
    loop {
        let Checkpoint {
            position,
            docs,
            snapshots,
        } = checkpoint;
        match store
            .put_read_models(
                PROJECTION,
                (*position, league_store::CheckpointMove::Forward),
                docs,
                snapshots,
            )
            .await
        {
            Err(e) if e.is_connection_io() && failures < CONNECTION_TRIES => {
                connection_failed(&mut failures).await;
            }
            done => return Ok(done?),
        }
    }
}

/// `checkpoint` with the documents and snapshots of an earlier one that was not written
/// (`unwritten`: its write failed, or another writer had passed it) that it does not write
/// itself: both are written only when they change, so the earlier one's must go with a
/// later one.
fn with_unwritten(unwritten: Option<Checkpoint>, checkpoint: Checkpoint) -> Checkpoint {
    let Some(older) = unwritten else {
        return checkpoint;
    };
    let newer: std::collections::HashSet<(&str, &str)> = checkpoint
        .docs
        .iter()
        .map(|d| (d.kind.as_str(), d.key.as_str()))
        .collect();
    let mut docs: Vec<_> = older
        .docs
        .into_iter()
        .filter(|d| !newer.contains(&(d.kind.as_str(), d.key.as_str())))
        .collect();
    docs.extend(checkpoint.docs);
    let newer: std::collections::HashSet<&str> = checkpoint
        .snapshots
        .iter()
        .map(|s| s.stream.as_str())
        .collect();
    let mut snapshots: Vec<_> = older
        .snapshots
        .into_iter()
        .filter(|s| !newer.contains(s.stream.as_str()))
        .collect();
    snapshots.extend(checkpoint.snapshots);
    Checkpoint {
        position: checkpoint.position,
        docs,
        snapshots,
    }
}

/// Tries of a checkpoint's write on connections that fail (see `connection_failed`).
const CONNECTION_TRIES: u32 = 64;

/// Before the projector tries a read or a write again on another connection, after the
/// `failures`-th in a row failed in its I/O. A pooled PostgreSQL connection belongs to the
/// runtime that opened it, and a server's HTTP workers each run their own: when the server
/// stops, their runtimes stop first, and every connection one of them opened then fails at
/// once (and is retired as it goes back to the pool, which opens new ones here). The first
/// tries only let that retirement run; after as many as a pool holds, the database itself
/// is failing (restarting, unreachable), and the projector waits a little between tries
/// instead of stopping for good.
async fn connection_failed(failures: &mut u32) {
    *failures = failures.saturating_add(1);
    if *failures < CONNECTION_TRIES {
        tokio::task::yield_now().await;
    } else {
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// Per-stream change channels, created on the first watcher and dropped with the last.
#[derive(Default)]
struct Watchers {
    channels: std::sync::Mutex<std::collections::HashMap<String, broadcast::Sender<Arc<Folded>>>>,
}

impl Watchers {
    fn lock(
        &self,
    ) -> std::sync::MutexGuard<'_, std::collections::HashMap<String, broadcast::Sender<Arc<Folded>>>>
    {
        self.channels
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn subscribe(&self, stream: &str) -> broadcast::Receiver<Arc<Folded>> {
        self.lock()
            .entry(stream.to_owned())
            .or_insert_with(|| broadcast::channel(CHANGES_CAPACITY).0)
            .subscribe()
    }

    fn watched(&self, stream: &str) -> bool {
        self.lock()
            .get(stream)
            .is_some_and(|tx| tx.receiver_count() > 0)
    }

    /// Sends the round to the watchers of each stream it changed; forgets streams nobody
    /// watches any more.
    fn publish(&self, folded: &Arc<Folded>) {
        let mut channels = self.lock();
        for stream in &folded.streams {
            if let Some(tx) = channels.get(stream)
                && tx.send(Arc::clone(folded)).is_err()
            {
                channels.remove(stream);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests")]

    use super::{Checkpoint, with_unwritten, write_checkpoints};
    use league_store::{Backend, CheckpointMove, ReadModelDoc, Snapshot};

    fn doc(key: &str, v: u8) -> ReadModelDoc {
        ReadModelDoc {
            kind: "table".into(),
            key: key.into(),
            doc: vec![v],
        }
    }

    fn snapshot(stream: &str, version: u64) -> Snapshot {
        Snapshot {
            stream: stream.into(),
            version,
            format: 1,
            state: vec![1],
            digest: vec![],
        }
    }

    #[test]
    fn a_failed_checkpoints_documents_go_with_the_next_unless_it_has_newer() {
        let unwritten = Checkpoint {
            position: 5,
            docs: vec![doc("a", 1), doc("b", 1)],
            snapshots: vec![snapshot("s", 3), snapshot("t", 4)],
        };
        let next = Checkpoint {
            position: 9,
            docs: vec![doc("b", 2), doc("c", 2)],
            snapshots: vec![snapshot("t", 7)],
        };
        let merged = with_unwritten(Some(unwritten), next);
        assert_eq!(merged.position, 9);
        let mut docs: Vec<(String, u8)> =
            merged.docs.into_iter().map(|d| (d.key, d.doc[0])).collect();
        docs.sort();
        assert_eq!(docs, [("a".into(), 1), ("b".into(), 2), ("c".into(), 2)]);
        let mut snapshots: Vec<(String, u64)> = merged
            .snapshots
            .into_iter()
            .map(|s| (s.stream, s.version))
            .collect();
        snapshots.sort();
        assert_eq!(snapshots, [("s".into(), 3), ("t".into(), 7)]);
    }

    /// A checkpoint behind the one another writer stored is not taken, and its position
    /// is not reported written (nothing it lists is released: the stored rows may not hold
    /// its snapshots); it goes with the next one, which is taken.
    #[tokio::test]
    async fn a_checkpoint_not_taken_goes_with_the_next() {
        let scratch = league_testkit::Scratch::new(Backend::Sqlite, None)
            .await
            .unwrap();
        let store = scratch.open().await.unwrap();
        // As the release before snapshots left it: read models at 100, no snapshot.
        store
            .put_read_models(
                crate::PROJECTION,
                (100, CheckpointMove::Replace),
                &[doc("a", 1)],
                &[],
            )
            .await
            .unwrap();
        let streams = |rows: &[Snapshot]| -> Vec<(String, u64)> {
            let mut streams: Vec<_> = rows.iter().map(|r| (r.stream.clone(), r.version)).collect();
            streams.sort();
            streams
        };

        // Alone, behind the stored checkpoint: not taken, not reported written.
        let (checkpoints, queued) = tokio::sync::mpsc::unbounded_channel();
        let (written_tx, written) = tokio::sync::watch::channel(None);
        let writer = tokio::spawn(write_checkpoints(store.clone(), queued, written_tx));
        checkpoints
            .send(Checkpoint {
                position: 60,
                docs: vec![doc("a", 2)],
                snapshots: vec![snapshot("tournament:t", 3), snapshot("", 0)],
            })
            .unwrap();
        drop(checkpoints);
        writer.await.unwrap().unwrap();
        assert_eq!(*written.borrow(), None);
        let (checkpoint, rows) = store.read_snapshots(crate::PROJECTION).await.unwrap();
        assert_eq!((checkpoint, streams(&rows)), (Some(100), vec![]));

        // Then the next one: its write carries the one not taken.
        let (checkpoints, queued) = tokio::sync::mpsc::unbounded_channel();
        let (written_tx, written) = tokio::sync::watch::channel(None);
        let writer = tokio::spawn(write_checkpoints(store.clone(), queued, written_tx));
        checkpoints
            .send(Checkpoint {
                position: 60,
                docs: vec![doc("a", 2)],
                snapshots: vec![snapshot("tournament:t", 3), snapshot("", 0)],
            })
            .unwrap();
        // Written apart (not queued together) when the write is done in time.
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        assert_eq!(*written.borrow(), None);
        checkpoints
            .send(Checkpoint {
                position: 150,
                docs: vec![doc("b", 2)],
                snapshots: vec![snapshot("league:l", 9), snapshot("", 0)],
            })
            .unwrap();
        drop(checkpoints);
        writer.await.unwrap().unwrap();
        assert_eq!(*written.borrow(), Some(150));
        let (checkpoint, rows) = store.read_snapshots(crate::PROJECTION).await.unwrap();
        assert_eq!(
            (checkpoint, streams(&rows)),
            (
                Some(150),
                vec![
                    (String::new(), 0),
                    ("league:l".into(), 9),
                    ("tournament:t".into(), 3)
                ]
            )
        );
        store.close().await;
        scratch.drop_it().await;
    }
}
