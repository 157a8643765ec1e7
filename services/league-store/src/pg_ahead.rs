//! Read-ahead for readers that page through the PostgreSQL log (`Store::read_all` with
//! pages of at least [`READ_AHEAD_MIN`] events): while a reader's page is read, the pages
//! after it are already being read on other connections, so that two server processes
//! (one per core) produce rows all the time. One server process producing rows, about a
//! microsecond a row, is the limit of a bulk read on PostgreSQL.
//!
//! # How
//!
//! A reader is taken to be sequential once it asks for the page that starts right after a
//! full page it was given (`from` = that page's last position + 1, the same `limit`). From
//! then on each call keeps two reads running: its own page's, while it runs, and the next
//! pages', each started at a *guessed* position: where that page likely begins, judged by
//! how many positions the page before spanned (positions are `xid << 16 | index` on
//! PostgreSQL: sparse, but about as many per page from one page to the next). A later call
//! assembles its page from its read-ahead (`assemble`):
//!
//! - Events the read-ahead holds before `from` (it started early) are dropped; from `from`
//!   on it is every event there is, in order, up to its own end: it is one query's answer.
//! - If it starts after `from` (it started late), the events in between are read by one
//!   query of that exact range. Every event below the read-ahead's first event is final:
//!   that event lies below its statement's commit horizon, so every transaction that could
//!   write below it had finished. No horizon is needed for that range.
//! - If the page is still short and the read-ahead was full (it hit its own limit), the rest
//!   is read by one query from after the last event taken; if it was not full, it ended at
//!   its commit horizon, and the page is the events below that horizon.
//!
//! Either way the page is exactly what one `read_all` query would have returned at some
//! moment: the first `limit` events from `from` below one commit horizon. A wrong guess
//! costs a short extra query, never a wrong page. Unlike splitting each page at its middle
//! (stops 18-19), nothing skips rows to find where a part begins (the skip read every
//! skipped row's heap tuple on a table autovacuum has not visited: a fifth of the server's
//! time on a log written by many writers), and no connection waits at the end of each page
//! for the other half.
//!
//! A reader's read-ahead is kept for a few seconds at most, for at most four readers (at
//! most two pages each), and is dropped (its queries cancelled, their connections closed)
//! when a newer one replaces it, when the store runs raw SQL (`Store::execute_raw`, which
//! may change what was read) and when the store closes. Below the horizon the log never
//! changes except by tampering, which `verify` reports; a read-ahead only ever returns what
//! a read at its own moment would have.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use sqlx::PgPool;
use tokio::task::JoinHandle;

use crate::error::StoreError;
use crate::pg_copy;
use crate::types::RecordedEvent;

/// Pages of at least this many events are read ahead for sequential readers.
pub(crate) const READ_AHEAD_MIN: usize = 2_048;
/// Readers whose next page may be read ahead at once.
const READERS: usize = 4;
/// A read-ahead not asked for within this long is dropped.
const MAX_AGE: Duration = Duration::from_secs(5);

/// The read-ahead of a store's sequential readers.
#[derive(Default)]
pub(crate) struct ReadAhead {
    readers: Mutex<Vec<Reader>>,
    /// Pages assembled from a read-ahead, and the extra queries that took.
    served: AtomicU64,
    extra: AtomicU64,
}

/// A sequential reader: where it will ask next, and its next page if it is being read.
struct Reader {
    /// One past the last event of the full page it was given.
    from: u64,
    limit: usize,
    /// Where its pages begin.
    pace: Pace,
    /// The first event after that page, if the read it came from went on past it.
    next: Option<u64>,
    /// The pages after it, each read from a guessed position (none yet for a reader's
    /// second page).
    ahead: VecDeque<Prefetch>,
    since: Instant,
}

/// A page being read ahead. Dropping it cancels the read, which closes its connection
/// (`pg_copy::copy_rows`).
struct Prefetch {
    task: Option<JoinHandle<Result<Vec<RecordedEvent>, StoreError>>>,
    /// The events it asked for: an answer this long may end before the page does.
    asked: usize,
}

impl Prefetch {
    /// Its events, or nothing if the read failed.
    async fn events(mut self) -> Vec<RecordedEvent> {
        match self.task.as_mut() {
            Some(task) => match task.await {
                Ok(Ok(events)) => events,
                _ => Vec::new(),
            },
            None => Vec::new(),
        }
    }

    fn is_finished(&self) -> bool {
        self.task.as_ref().is_none_or(JoinHandle::is_finished)
    }

    /// Lets the read run to its end, unwatched: one that starts past the end of the log is
    /// short, and cancelling it would cost its connection.
    fn let_finish(mut self) {
        self.task = None;
    }
}

impl Drop for Prefetch {
    fn drop(&mut self) {
        if let Some(task) = &self.task {
            task.abort();
        }
    }
}

impl ReadAhead {
    /// Pages assembled from a read-ahead so far, and the extra queries they took (for a
    /// range before a read-ahead that started late, or the rest of a page it fell short of).
    pub(crate) fn counts(&self) -> (u64, u64) {
        (
            self.served.load(Ordering::Relaxed),
            self.extra.load(Ordering::Relaxed),
        )
    }

    /// Drops every read-ahead (cancelling their reads).
    pub(crate) fn clear(&self) {
        let dropped = std::mem::take(&mut *self.lock());
        drop(dropped);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Reader>> {
        // A panic while holding this lock leaves a list that is still valid.
        self.readers
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The reader that continues at `from` with pages of `limit`, if one was recorded.
    fn take(&self, from: u64, limit: usize) -> Option<Reader> {
        let mut readers = self.lock();
        readers.retain(|r| r.since.elapsed() < MAX_AGE);
        let at = readers
            .iter()
            .position(|r| r.from == from && r.limit == limit)?;
        Some(readers.swap_remove(at))
    }

    /// Records a reader, replacing one at the same place and the oldest beyond `READERS`.
    fn put(&self, reader: Reader) {
        let mut readers = self.lock();
        readers.retain(|r| !(r.from == reader.from && r.limit == reader.limit));
        if readers.len() >= READERS {
            readers.remove(0);
        }
        readers.push(reader);
    }
}

/// A page of `read_all` on PostgreSQL: up to `limit` events from `from` on, below the
/// commit horizon, read ahead for sequential readers (see the module documentation).
pub(crate) async fn read_page(
    pool: &PgPool,
    ahead: &ReadAhead,
    from: u64,
    limit: usize,
) -> Result<Vec<RecordedEvent>, StoreError> {
    let reader = ahead.take(from, limit);
    let (mut queue, pace, known) = match reader {
        Some(r) => (r.ahead, Some(r.pace), r.next),
        None => (VecDeque::new(), None, None),
    };
    let current = queue.pop_front();
    if let Some(pace) = pace {
        // Two reads running at all times: this page's, while it runs, and the next ones,
        // from where they likely begin. Where the pace has just changed (a log written one
        // way, then another) a guess may miss by pages: then only the next page is read
        // ahead, from the page's last event on, found by skipping the page's rows.
        let running = current.as_ref().is_some_and(|p| !p.is_finished());
        let want = match (pace.steady, running) {
            (true, true) | (false, _) => 1,
            (true, false) => 2,
        };
        while queue.len() < want {
            let statement = if pace.steady {
                let pages_on = u64::try_from(queue.len())
                    .unwrap_or(u64::MAX)
                    .saturating_add(1);
                pg_copy::events_statement(pace.start_of(pages_on), None, asked(limit))
            } else {
                pg_copy::events_after_statement(from, limit - 1, asked(limit))
            };
            match start(pool, statement, asked(limit)).await {
                Some(prefetch) => queue.push_back(prefetch),
                None => break,
            }
        }
    }
    let (page, next) = match current {
        Some(prefetch) => from_prefetch(pool, ahead, prefetch, from, known, limit).await?,
        None => {
            let mut page = Vec::with_capacity(limit.min(20_000));
            let statement = pg_copy::events_statement(from, None, limit);
            read_into(pool, &statement, &mut page).await?;
            (page, None)
        }
    };
    match (page.first(), page.last()) {
        (Some(first), Some(last)) if page.len() == limit => ahead.put(Reader {
            from: last.position + 1,
            limit,
            pace: Pace::after(pace, first.position, last.position, limit),
            next,
            ahead: queue,
            since: Instant::now(),
        }),
        // The end of the readable log: no page follows for now.
        _ => queue.into_iter().for_each(Prefetch::let_finish),
    }
    Ok(page)
}

/// Where a reader's pages begin: the first position of the last page it was given, and the
/// positions from one page's first event to the next one's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Pace {
    first: u64,
    period: u64,
    /// The period is within an eighth of the one before it.
    steady: bool,
}

impl Pace {
    /// The pace after a page of `len` events from `first` to `last`, given the pace before
    /// it (none for a reader's first page: the page's own span then stands for the period,
    /// counting one event's share past its last).
    fn after(before: Option<Pace>, first: u64, last: u64, len: usize) -> Pace {
        let between = last - first;
        let gaps = u64::try_from(len.saturating_sub(1)).unwrap_or(u64::MAX);
        let span = between.saturating_add(between / gaps.max(1));
        let (period, steady) = match before {
            Some(before) if first > before.first => {
                let period = first - before.first;
                (period, period.abs_diff(before.period) <= period / 8)
            }
            _ => (span, false),
        };
        Pace {
            first,
            period,
            steady,
        }
    }

    /// Where the page `pages_on` pages after the one being asked for likely starts (that
    /// one is a page after the last page given). Positions per page vary by a few percent
    /// on a log written by many writers: a read-ahead that starts early costs the rows read
    /// twice (and, past its margin, a query for the rest of the page), one that starts late
    /// a query for the rows in between.
    fn start_of(self, pages_on: u64) -> u64 {
        self.first
            .saturating_add(self.period.saturating_mul(pages_on.saturating_add(1)))
    }
}

/// How many events a read-ahead asks for: a page, and a margin for a page that spans more
/// positions than the one before it.
fn asked(limit: usize) -> usize {
    limit + limit / 32
}

/// Starts reading `statement`, for `asked` events, on a second connection: an idle one, or
/// a new one if the pool may open it. A busy pool is not waited for: no read-ahead then.
async fn start(pool: &PgPool, statement: String, asked: usize) -> Option<Prefetch> {
    let conn = match pool.try_acquire() {
        Some(conn) => conn,
        None if pool.size() < pool.options().get_max_connections() => {
            tokio::time::timeout(Duration::from_millis(100), pool.acquire())
                .await
                .ok()?
                .ok()?
        }
        None => return None,
    };
    let task = tokio::spawn(async move {
        let mut events = Vec::with_capacity(asked.min(20_000));
        pg_copy::read_events(conn, &statement, &mut events).await?;
        Ok(events)
    });
    Some(Prefetch {
        task: Some(task),
        asked,
    })
}

/// The page at `from` assembled from its read-ahead; read whole by one query if the
/// read-ahead failed or found nothing (its error, if any, is the direct read's to report).
async fn from_prefetch(
    pool: &PgPool,
    counts: &ReadAhead,
    prefetch: Prefetch,
    from: u64,
    known: Option<u64>,
    limit: usize,
) -> Result<(Vec<RecordedEvent>, Option<u64>), StoreError> {
    let asked = prefetch.asked;
    let ahead = prefetch.events().await;
    let full = ahead.len() == asked;
    let page = assemble(
        Piece {
            events: ahead,
            full,
        },
        from,
        known,
        limit,
        |e| e.position,
        async |below, out| {
            counts.extra.fetch_add(1, Ordering::Relaxed);
            let statement = pg_copy::events_statement(from, Some(below), limit);
            read_into(pool, &statement, out).await
        },
        async |after, n, out| {
            counts.extra.fetch_add(1, Ordering::Relaxed);
            read_into(pool, &pg_copy::events_statement(after, None, n), out).await
        },
    )
    .await;
    counts.served.fetch_add(1, Ordering::Relaxed);
    page
}

/// Runs one binary `COPY` of events onto `out`.
async fn read_into(
    pool: &PgPool,
    statement: &str,
    out: &mut Vec<RecordedEvent>,
) -> Result<(), StoreError> {
    pg_copy::read_events(pool.acquire().await?, statement, out).await
}

/// A read-ahead's answer: every event from its first on, in order, up to its end.
struct Piece<T> {
    events: Vec<T>,
    /// It holds as many events as it asked for (so events may follow its last).
    full: bool,
}

/// The page of up to `limit` events from `from` built from a read-ahead `piece` (see the
/// module documentation), and the first event the piece holds after the page, if any.
/// `known` is the first event at or after `from`, if an earlier read showed it: when the
/// piece starts there, nothing lies before it to read. `between(below, out)` must append
/// every event from `from` to `below` (exclusive) up to `limit`; `after(from, n, out)` up to
/// `n` events from `from` on below the commit horizon, as `read_all` does. An empty `piece`
/// reads the page whole.
async fn assemble<T>(
    piece: Piece<T>,
    from: u64,
    known: Option<u64>,
    limit: usize,
    position: impl Fn(&T) -> u64,
    between: impl AsyncFnOnce(u64, &mut Vec<T>) -> Result<(), StoreError>,
    after: impl AsyncFnOnce(u64, usize, &mut Vec<T>) -> Result<(), StoreError>,
) -> Result<(Vec<T>, Option<u64>), StoreError> {
    let mut page = Vec::with_capacity(limit.min(20_000));
    let Some(first) = piece.events.first().map(&position) else {
        after(from, limit, &mut page).await?;
        return Ok((page, None));
    };
    if first > from && known != Some(first) {
        between(first, &mut page).await?;
    }
    let room = limit - page.len().min(limit);
    let mut rest = piece.events.into_iter().skip_while(|e| position(e) < from);
    page.extend(rest.by_ref().take(room));
    // The piece's next event follows the page only if the page ends with the piece's.
    let left = if room > 0 {
        rest.next().map(|e| position(&e))
    } else {
        None
    };
    if page.len() < limit && piece.full {
        let next = page.last().map_or(from, |e| position(e) + 1);
        after(next, limit - page.len(), &mut page).await?;
    }
    Ok((page, left))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::cell::Cell;

    /// A log of final event positions; a read sees those below its horizon.
    struct Log {
        positions: Vec<u64>,
    }

    impl Log {
        fn read(&self, from: u64, below: u64, n: usize) -> Vec<u64> {
            self.positions
                .iter()
                .copied()
                .filter(|&p| p >= from && p < below)
                .take(n)
                .collect()
        }
    }

    /// Assembles the page at `from` from a read-ahead at `at` with horizon `seen`, the
    /// later reads' horizon being `later`; returns the page and the extra queries run.
    ///
    /// With `known`, the first event from `from` on is given as an earlier read that saw
    /// below `seen` would show it. Also checks that the event the piece holds after the page,
    /// if any, is the one that follows the page.
    #[expect(
        clippy::too_many_arguments,
        reason = "one simulated read, every knob of it"
    )]
    fn page(
        log: &Log,
        from: u64,
        limit: usize,
        at: u64,
        asked: usize,
        seen: u64,
        later: u64,
        known: bool,
    ) -> (Vec<u64>, usize) {
        let events = log.read(at, seen, asked);
        let full = events.len() == asked;
        let known = known
            .then(|| log.read(from, seen, 1).first().copied())
            .flatten();
        let queries = Cell::new(0);
        let (page, left) = futures_util::FutureExt::now_or_never(assemble(
            Piece { events, full },
            from,
            known,
            limit,
            |p| *p,
            async |below, out| {
                queries.set(queries.get() + 1);
                // No horizon: everything below the read-ahead's first event is final.
                out.extend(log.read(from, below, limit));
                Ok(())
            },
            async |next, n, out| {
                queries.set(queries.get() + 1);
                out.extend(log.read(next, later, n));
                Ok(())
            },
        ))
        .expect("no real I/O")
        .unwrap();
        if let Some(left) = left {
            let after = page.last().map_or(from, |p| p + 1);
            assert_eq!(
                Some(&left),
                log.read(after, u64::MAX, 1).first(),
                "left after {page:?}"
            );
        }
        (page, queries.get())
    }

    #[test]
    fn a_well_aimed_read_ahead_needs_no_other_query() {
        let log = Log {
            positions: (0..100).map(|i| i * 10).collect(),
        };
        // Page from 200 (event 20), 10 events: the read-ahead started at 170, early.
        let (got, queries) = page(&log, 200, 10, 170, 14, u64::MAX, u64::MAX, false);
        assert_eq!(got, (20..30).map(|i| i * 10).collect::<Vec<_>>());
        assert_eq!(queries, 0);
    }

    #[test]
    fn a_late_read_ahead_reads_the_range_before_it_and_a_short_one_reads_on() {
        let log = Log {
            positions: (0..100).map(|i| i * 10).collect(),
        };
        // Started at 235: events 200, 210, 220, 230 are read by range, then 6 from it.
        let (got, queries) = page(&log, 200, 10, 235, 14, u64::MAX, u64::MAX, false);
        assert_eq!(got, (20..30).map(|i| i * 10).collect::<Vec<_>>());
        assert_eq!(queries, 1);
        // Started at 100 asking 12: all before 200 but 210's, 200 and 210 taken, then on.
        let (got, queries) = page(&log, 200, 10, 100, 12, u64::MAX, u64::MAX, false);
        assert_eq!(got, (20..30).map(|i| i * 10).collect::<Vec<_>>());
        assert_eq!(queries, 1);
    }

    #[test]
    fn a_late_read_ahead_that_starts_at_the_known_next_event_needs_no_other_query() {
        let log = Log {
            positions: (0..100).map(|i| i * 10).collect(),
        };
        // Asked from 191 (after 190): the next event, 200, is known, and it starts there.
        let (got, queries) = page(&log, 191, 10, 195, 10, u64::MAX, u64::MAX, true);
        assert_eq!(got, (20..30).map(|i| i * 10).collect::<Vec<_>>());
        assert_eq!(queries, 0);
        // Not known: the empty range 191..200 is read.
        let (_, queries) = page(&log, 191, 10, 195, 10, u64::MAX, u64::MAX, false);
        assert_eq!(queries, 1);
    }

    #[test]
    fn a_read_ahead_cut_by_its_horizon_ends_the_page_there() {
        let log = Log {
            positions: (0..100).map(|i| i * 10).collect(),
        };
        // It saw only below 245: the page is 200..240, although more is readable now.
        let (got, queries) = page(&log, 200, 10, 190, 14, 245, u64::MAX, false);
        assert_eq!(got, vec![200, 210, 220, 230, 240]);
        assert_eq!(queries, 0);
        // It saw nothing at all: the page is read whole.
        let (got, queries) = page(&log, 200, 10, 190, 14, 150, u64::MAX, false);
        assert_eq!(got, (20..30).map(|i| i * 10).collect::<Vec<_>>());
        assert_eq!(queries, 1);
    }

    proptest! {
        /// Wherever the read-ahead starts, however much it asks for and wherever its and the
        /// later reads' horizons lie, the page is the first events from `from` below one
        /// horizon: all `limit` of them, or every one below the read-ahead's horizon.
        #[test]
        fn the_page_is_always_what_one_query_returns(
            gaps in proptest::collection::vec(1u64..40, 0..300),
            from in 0u64..4_000,
            limit in 1usize..80,
            at in 0u64..5_000,
            asked in 1usize..120,
            seen in 0u64..6_000,
            more in 0u64..2_000,
            known in any::<bool>(),
        ) {
            let positions: Vec<u64> = gaps.iter().scan(0, |p, g| { *p += g; Some(*p) }).collect();
            let log = Log { positions };
            let later = seen + more;
            let (got, _) = page(&log, from, limit, at, asked, seen, later, known);
            let all: Vec<u64> = log.read(from, u64::MAX, limit);
            prop_assert_eq!(&got[..], &all[..got.len()], "a prefix of the log from `from`");
            let below_seen = log.read(from, seen, limit).len();
            prop_assert!(
                got.len() == limit || got.len() >= below_seen,
                "short only where a horizon ends it: got {}, {} below the read-ahead's horizon",
                got.len(),
                below_seen
            );
        }
    }
}
