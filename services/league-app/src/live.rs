//! The live projector: follows the log and keeps the stored read models current.

use std::sync::Arc;
use std::time::Duration;

use league_engine::tournament::play::Tournament;
use league_projections::Projector;
use league_store::Store;
use tokio::sync::{Mutex, broadcast, watch};

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
    pub projector: Arc<Mutex<Projector>>,
    /// The position folded so far (`None` before the first event).
    pub position: watch::Receiver<Option<u64>>,
    /// Each round of folding, published per stream once the projector's lock is released
    /// (so a receiver that locks the projector sees at least this position): a watcher of
    /// one stream wakes only for its stream, and every watcher shares the round's `Arc`.
    /// Subscribe with [`Live::changes_of`].
    watchers: Arc<Watchers>,
    stop: watch::Sender<bool>,
    task: tokio::task::JoinHandle<Result<(), AppError>>,
}

impl Live {
    /// Starts following the log from position 0 (the projector is in memory; its stored
    /// documents are rewritten at each checkpoint).
    pub fn spawn(store: Store) -> Live {
        let projector = Arc::new(Mutex::new(Projector::new()));
        let (position_tx, position) = watch::channel(None);
        let (stop, mut stopped) = watch::channel(false);
        let shared = Arc::clone(&projector);
        let watchers = Arc::new(Watchers::default());
        let watchers_tx = Arc::clone(&watchers);
        let task = tokio::spawn(async move {
            let mut subscription = store.subscribe_all(0);
            let mut since_checkpoint = 0u64;
            loop {
                let next = tokio::select! {
                    next = subscription.next() => next?,
                    _ = stopped.changed() => break,
                };
                let mut p = shared.lock().await;
                let mut streams = vec![next.stream_id.clone()];
                p.apply(&next)?;
                since_checkpoint += 1;
                // Fold whatever else is readable now before publishing the position.
                while let Some(more) = subscription.try_next().await? {
                    p.apply(&more)?;
                    if !streams.contains(&more.stream_id) {
                        streams.push(more.stream_id.clone());
                    }
                    since_checkpoint += 1;
                    if since_checkpoint >= CHECKPOINT_EVERY {
                        break;
                    }
                }
                if since_checkpoint >= CHECKPOINT_EVERY {
                    checkpoint(&store, &mut p).await?;
                    since_checkpoint = 0;
                }
                let position = p.position();
                // Snapshots only for watched streams (a clone per changed tournament per
                // round).
                let tournaments = streams
                    .iter()
                    .filter(|s| watchers_tx.watched(s))
                    .filter_map(|s| {
                        p.tournament(s)
                            .map(|t| (s.clone(), p.version(s), Arc::new(t.clone())))
                    })
                    .collect();
                drop(p);
                let _ = position_tx.send(position);
                if let Some(position) = position {
                    // Sent to the watchers of each stream it changed (none is fine).
                    let folded = Arc::new(Folded {
                        position,
                        streams,
                        tournaments,
                    });
                    watchers_tx.publish(&folded);
                }
            }
            let mut p = shared.lock().await;
            checkpoint(&store, &mut p).await
        });
        Live {
            projector,
            position,
            watchers,
            stop,
            task,
        }
    }

    /// Every round of folding from now on that changed `stream`.
    pub fn changes_of(&self, stream: &str) -> broadcast::Receiver<Arc<Folded>> {
        self.watchers.subscribe(stream)
    }

    /// Waits until the projector has folded `position`.
    pub async fn reach(&mut self, position: u64, timeout: Duration) -> Result<(), AppError> {
        let wait = self.position.wait_for(|p| p.is_some_and(|p| p >= position));
        match tokio::time::timeout(timeout, wait).await {
            Ok(Ok(_)) => Ok(()),
            Ok(Err(_)) => Err(AppError::Other("the live projector stopped".into())),
            Err(_) => Err(AppError::Other(format!(
                "the live projector did not reach position {position} in {timeout:?}"
            ))),
        }
    }

    /// [`Live::reach`] for a shared reference (each caller waits on its own receiver).
    pub async fn reach_shared(&self, position: u64, timeout: Duration) -> Result<(), AppError> {
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

    /// Stops following, writes a last checkpoint, and returns the projector.
    pub async fn stop(self) -> Result<Projector, AppError> {
        let _ = self.stop.send(true);
        self.task
            .await
            .map_err(|e| AppError::Other(format!("the live projector panicked: {e}")))??;
        let projector = Arc::try_unwrap(self.projector)
            .map_err(|_| AppError::Other("the projector is still shared".into()))?;
        Ok(projector.into_inner())
    }
}

/// Writes the documents changed since the last checkpoint, with the position.
pub async fn checkpoint(store: &Store, p: &mut Projector) -> Result<(), AppError> {
    let Some(position) = p.position() else {
        return Ok(());
    };
    let docs = p.take_changed()?;
    store.put_read_models(PROJECTION, position, &docs).await?;
    Ok(())
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
