//! The connections that just read a page of the PostgreSQL log, kept for the next page.
//!
//! A bulk read (`read_all`'s large pages, `read_log`) touches thousands of buffers of the
//! server's shared memory, and the first time a server process touches a buffer it takes a
//! page fault to map it. sqlx's pool hands out its idle connections first-in first-out, and
//! a reader paging through the log returns each page's connections as the next page asks for
//! new ones; so its pages went round every connection the pool had opened (16-20 after
//! the benchmark's writers) and each server process kept mapping buffers it had never
//! touched. Measured with the `read_all` example over the benchmark's log: the server
//! processes took 137,284 page faults in eight passes without this, 35,477 with it.
//!
//! So a bulk read gives its connections back here, and the next bulk read takes the last one
//! given back first. They are not the pool's while kept, so they are kept only briefly and
//! never when the pool is short of connections:
//!
//! - at most [`KEPT`] connections (one page's two halves);
//! - only if, with them kept, another caller can still get a connection at once (the pool
//!   has an idle one, or may open one);
//! - for at most [`KEEP_FOR`]: a task gives older ones back to the pool;
//! - all given back when the store closes ([`WarmConnections::release_all`]).
//!
//! A connection is given back here only after its read completed: one whose `COPY` was cut
//! short is closed (`pg_copy::copy_rows`).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use sqlx::pool::PoolConnection;
use sqlx::{PgPool, Postgres};

/// Connections kept at most.
const KEPT: usize = 2;
/// How long a connection is kept without being taken.
const KEEP_FOR: Duration = Duration::from_millis(200);

/// Connections of finished bulk reads, most recently given back last.
#[derive(Default)]
pub(crate) struct WarmConnections {
    kept: Mutex<Vec<(PoolConnection<Postgres>, Instant)>>,
    /// A task is waiting to give back connections kept too long.
    reaper: AtomicBool,
}

impl WarmConnections {
    /// The connection given back last, if one is kept.
    fn take(&self) -> Option<PoolConnection<Postgres>> {
        self.lock().pop().map(|(conn, _)| conn)
    }

    /// A connection for a bulk read: a kept one, or one from the pool.
    pub(crate) async fn acquire(
        &self,
        pool: &PgPool,
    ) -> Result<PoolConnection<Postgres>, sqlx::Error> {
        match self.take() {
            Some(conn) => Ok(conn),
            None => pool.acquire().await,
        }
    }

    /// A connection for the second half of a bulk read: a kept one, an idle one of the pool,
    /// or a new one if the pool may open it. A busy pool is not waited for: the page is then
    /// read on one connection.
    pub(crate) async fn second(&self, pool: &PgPool) -> Option<PoolConnection<Postgres>> {
        if let Some(conn) = self.take().or_else(|| pool.try_acquire()) {
            return Some(conn);
        }
        if pool.size() >= pool.options().get_max_connections() {
            return None;
        }
        tokio::time::timeout(Duration::from_millis(100), pool.acquire())
            .await
            .ok()?
            .ok()
    }

    /// Keeps `conn`, whose read completed, for the next bulk read, or gives it back to the
    /// pool (see the module's rules).
    pub(crate) fn give_back(self: &Arc<Self>, pool: &PgPool, conn: PoolConnection<Postgres>) {
        let others_served =
            pool.num_idle() > 0 || pool.size() < pool.options().get_max_connections();
        if pool.is_closed() || !others_served {
            return;
        }
        {
            let mut kept = self.lock();
            if kept.len() >= KEPT {
                return;
            }
            kept.push((conn, Instant::now()));
        }
        if !self.reaper.swap(true, Ordering::AcqRel) {
            let warm = Arc::clone(self);
            tokio::spawn(async move { warm.reap().await });
        }
    }

    /// Gives back to the pool every connection kept longer than [`KEEP_FOR`], until none is
    /// kept.
    async fn reap(&self) {
        loop {
            tokio::time::sleep(KEEP_FOR / 2).await;
            let mut kept = self.lock();
            kept.retain(|(_, since)| since.elapsed() < KEEP_FOR);
            if kept.is_empty() {
                // Under the lock: a connection given back after this sees the flag down and
                // starts a new task.
                self.reaper.store(false, Ordering::Release);
                return;
            }
        }
    }

    /// Gives every kept connection back to the pool (before it closes: a pool waits for
    /// every connection to come back).
    pub(crate) fn release_all(&self) {
        self.lock().clear();
    }

    /// Connections kept now.
    pub(crate) fn len(&self) -> usize {
        self.lock().len()
    }

    fn lock(&self) -> MutexGuard<'_, Vec<(PoolConnection<Postgres>, Instant)>> {
        self.kept.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
