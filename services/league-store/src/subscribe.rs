//! `subscribe_all`: catch-up from the log, then live, as one ordered sequence.

use std::collections::VecDeque;

use tokio::sync::watch;

use crate::error::StoreError;
use crate::store::Store;
use crate::types::RecordedEvent;

/// Events per read when the last read found the subscriber caught up (or it just started):
/// a live tail's read returns few.
const PAGE: usize = 1_000;

/// Events per read while the last read came back full, i.e. the subscriber is behind (a
/// dashboard or an API instance following the log from its start): fewer round trips than
/// pages of 1,000. The buffer holds at most one page.
const CATCH_UP_PAGE: usize = 10_000;

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
    /// The size of the next read: [`PAGE`], or [`CATCH_UP_PAGE`] after a full one.
    page: usize,
    wake: watch::Receiver<u64>,
}

impl Subscription {
    pub(crate) fn new(store: Store, from_position: u64) -> Self {
        let wake = store.inner.wake.subscribe();
        Self {
            store,
            next_position: from_position,
            buffer: VecDeque::new(),
            page: PAGE,
            wake,
        }
    }

    /// Reads the next page into the buffer; returns whether it held anything.
    async fn read_page(&mut self) -> Result<bool, StoreError> {
        let page = self.store.read_all(self.next_position, self.page).await?;
        self.page = if page.len() >= self.page {
            CATCH_UP_PAGE
        } else {
            PAGE
        };
        let read = !page.is_empty();
        self.buffer.extend(page);
        Ok(read)
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
            if !self.read_page().await? {
                let poll = self.store.inner.poll_interval;
                tokio::select! {
                    changed = self.wake.changed() => {
                        if changed.is_err() {
                            tokio::time::sleep(poll).await;
                        }
                    }
                    () = tokio::time::sleep(poll) => {}
                }
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
            self.read_page().await?;
        }
        Ok(self.buffer.pop_front().inspect(|event| {
            self.next_position = event.position.saturating_add(1);
        }))
    }
}
