//! `subscribe_all`: catch-up from the log, then live, as one ordered sequence.

use std::collections::VecDeque;

use tokio::sync::watch;

use crate::error::StoreError;
use crate::store::Store;
use crate::types::RecordedEvent;

/// Events per read while catching up.
const PAGE: usize = 1_000;

/// A reader of the global log from some position on. Call [`Subscription::next`] in a loop.
///
/// It never reads past the commit horizon (see [`Store::read_all`]), so the sequence it
/// yields has strictly increasing positions, no gap and no duplicate. It waits for a wake-up
/// (a local append, the sealer's NOTIFY on PostgreSQL) or the poll interval, whichever
/// comes first, so a lost notification delays an event but never loses it.
#[derive(Debug)]
pub struct Subscription {
    store: Store,
    next_position: u64,
    buffer: VecDeque<RecordedEvent>,
    wake: watch::Receiver<u64>,
}

impl Subscription {
    pub(crate) fn new(store: Store, from_position: u64) -> Self {
        let wake = store.inner.wake.subscribe();
        Self {
            store,
            next_position: from_position,
            buffer: VecDeque::new(),
            wake,
        }
    }

    /// The position the next read starts from.
    pub fn next_position(&self) -> u64 {
        self.next_position
    }

    /// The next event, waiting for one to be appended if the subscriber has caught up.
    pub async fn next(&mut self) -> Result<RecordedEvent, StoreError> {
        loop {
            if let Some(event) = self.buffer.pop_front() {
                self.next_position = event.position.saturating_add(1);
                return Ok(event);
            }
            // Mark the wake-up seen before reading: an append that commits after the read
            // started bumps it again, so `changed` below cannot miss it.
            self.wake.borrow_and_update();
            let page = self.store.read_all(self.next_position, PAGE).await?;
            if page.is_empty() {
                let poll = self.store.inner.poll_interval;
                tokio::select! {
                    changed = self.wake.changed() => {
                        if changed.is_err() {
                            tokio::time::sleep(poll).await;
                        }
                    }
                    () = tokio::time::sleep(poll) => {}
                }
            } else {
                self.buffer.extend(page);
            }
        }
    }

    /// The next event and those already read after it, up to `max` in all (at least one):
    /// waits like [`Subscription::next`] for the first, then takes only what its read
    /// brought, so the caller can fold a batch without waiting on the database again.
    pub async fn next_batch(&mut self, max: usize) -> Result<Vec<RecordedEvent>, StoreError> {
        let first = self.next().await?;
        let more = self.buffer.len().min(max.saturating_sub(1));
        let mut batch = Vec::with_capacity(more + 1);
        batch.push(first);
        batch.extend(self.buffer.drain(..more));
        if let Some(last) = batch.last() {
            self.next_position = last.position.saturating_add(1);
        }
        Ok(batch)
    }

    /// The next event if one is readable now, without waiting.
    pub async fn try_next(&mut self) -> Result<Option<RecordedEvent>, StoreError> {
        if self.buffer.is_empty() {
            let page = self.store.read_all(self.next_position, PAGE).await?;
            self.buffer.extend(page);
        }
        Ok(self.buffer.pop_front().inspect(|event| {
            self.next_position = event.position.saturating_add(1);
        }))
    }
}
