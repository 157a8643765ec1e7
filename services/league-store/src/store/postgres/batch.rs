//! PostgreSQL appends in groups: concurrent appends of different streams written by one
//! `INSERT` in one transaction.
//!
//! Every append is a transaction of its own otherwise, and most of a small append's cost is
//! the transaction's (a round trip, the commit, its WAL flush), not its rows'. An append
//! whose stream head this process knows (and that carries no idempotency key) queues here;
//! a writer task takes everything queued, at most one append per stream, and inserts it
//! with one statement, up to [`WRITERS`] groups at a time. The rows of one group share their
//! transaction's id, so each append's positions are `xid << 16 | index` with the indexes of
//! its rows within the group: contiguous, in its stream's order.
//!
//! The store's invariants hold as for a lone append. The insert is the transaction's only
//! write, so its id is taken after the snapshot in which each queued append's head was known
//! (the append of the previous version returned, committed, before this one was built). A
//! group commits or fails as one: if it fails (a stale head or a version taken by a racing
//! append violates `(stream, version)`, or anything else), every append of the group is told
//! to try again alone, where conflicts are told apart and reported as before. A queued
//! append whose caller has gone away is left out of the group.

use std::collections::{HashSet, VecDeque};
use std::sync::{Mutex, PoisonError};

use sqlx::{PgPool, Row as _};
use tokio::sync::oneshot;

use crate::store::{PG_INDEX_BITS, RowData, to_u64};

/// Groups being written at once.
const WRITERS: usize = 2;
/// Most events in one group (positions take 16 bits of index per transaction).
const MAX_GROUP_EVENTS: usize = 4_096;

const PG_GROUP_INSERT: &str = "WITH ins AS ( \
    INSERT INTO events (position, stream_id, stream_version, event_type, schema_version, \
        payload, actor, correlation_id, causation_id, idempotency_key, recorded_at, \
        prev_hash, hash, event_id) \
    SELECT x.base | u.idx::bigint, u.stream, u.ver, u.typ, \
        u.sv, u.payload, u.actor, u.corr, u.caus, NULL, u.at, u.prev, u.hash, u.id \
    FROM (SELECT pg_current_xact_id()::text::bigint << 16 AS base) AS x, \
        UNNEST($1::text[], $2::int4[], $3::int8[], $4::text[], $5::int4[], $6::bytea[], \
        $7::text[], $8::text[], $9::text[], $10::int8[], $11::bytea[], $12::bytea[], \
        $13::bytea[]) \
        AS u(stream, idx, ver, typ, sv, payload, actor, corr, caus, at, prev, hash, id) \
    RETURNING 1 \
) \
SELECT pg_current_xact_id()::text::bigint, (SELECT count(*) FROM ins)";

/// What became of a queued append.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Grouped {
    /// Written: the global position of its first event.
    Appended(u64),
    /// Its group failed: append it alone.
    Alone,
}

struct Queued {
    stream_id: String,
    rows: Vec<RowData>,
    reply: oneshot::Sender<Grouped>,
}

#[derive(Default)]
struct Queue {
    waiting: VecDeque<Queued>,
    writers: usize,
}

/// The appends waiting to be written in groups.
#[derive(Default)]
pub(crate) struct Groups {
    queue: Mutex<Queue>,
}

impl std::fmt::Debug for Groups {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Groups").finish_non_exhaustive()
    }
}

impl Groups {
    fn queue(&self) -> std::sync::MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Queues the rows of one append (built on a known head) and waits for its group.
    pub(crate) async fn append(
        self: &std::sync::Arc<Self>,
        pool: &PgPool,
        stream_id: &str,
        rows: Vec<RowData>,
    ) -> Grouped {
        let (reply, done) = oneshot::channel();
        let start_writer = {
            let mut queue = self.queue();
            queue.waiting.push_back(Queued {
                stream_id: stream_id.to_owned(),
                rows,
                reply,
            });
            let start = queue.writers < WRITERS;
            if start {
                queue.writers += 1;
            }
            start
        };
        if start_writer {
            // A task of its own, so that a caller going away cannot cut a group short.
            tokio::spawn(Self::write(std::sync::Arc::clone(self), pool.clone()));
        }
        done.await.unwrap_or(Grouped::Alone)
    }

    /// Writes groups until nothing waits.
    async fn write(groups: std::sync::Arc<Self>, pool: PgPool) {
        let mut writer = Writer {
            groups,
            finished: false,
        };
        loop {
            let group = {
                let mut queue = writer.groups.queue();
                let group = take_group(&mut queue.waiting);
                if group.is_empty() {
                    queue.writers -= 1;
                    writer.finished = true;
                    return;
                }
                group
            };
            let outcome = insert_group(&pool, &group).await;
            for (q, outcome) in group.into_iter().zip(outcome) {
                let _ = q.reply.send(outcome);
            }
        }
    }
}

/// A running writer. Should its task be dropped before the queue is empty (its runtime
/// shutting down), it gives its place back and sends every waiting append off to be
/// written alone, so that no caller waits for a writer that will never come.
struct Writer {
    groups: std::sync::Arc<Groups>,
    finished: bool,
}

impl Drop for Writer {
    fn drop(&mut self) {
        if self.finished {
            return;
        }
        let mut queue = self.groups.queue();
        queue.writers -= 1;
        // Dropping their reply channels tells the callers: alone.
        queue.waiting.clear();
    }
}

/// The next group: from the front of the queue, at most one append per stream and
/// [`MAX_GROUP_EVENTS`] events (the first append always); appends whose callers have gone
/// are dropped.
fn take_group(waiting: &mut VecDeque<Queued>) -> Vec<Queued> {
    let mut group: Vec<Queued> = Vec::new();
    let mut streams = HashSet::new();
    let mut events = 0usize;
    let mut left = VecDeque::new();
    while let Some(q) = waiting.pop_front() {
        if q.reply.is_closed() {
            continue;
        }
        let fits = group.is_empty() || events + q.rows.len() <= MAX_GROUP_EVENTS;
        if fits && !streams.contains(&q.stream_id) {
            events += q.rows.len();
            streams.insert(q.stream_id.clone());
            group.push(q);
        } else {
            left.push_back(q);
        }
    }
    *waiting = left;
    group
}

/// Inserts a group in one statement: each append's first position, or `Alone` for all.
async fn insert_group(pool: &PgPool, group: &[Queued]) -> Vec<Grouped> {
    let alone = || group.iter().map(|_| Grouped::Alone).collect();
    let events: usize = group.iter().map(|q| q.rows.len()).sum();
    let mut stream = Vec::with_capacity(events);
    let mut idx = Vec::with_capacity(events);
    let mut ver = Vec::with_capacity(events);
    let mut typ = Vec::with_capacity(events);
    let mut sv = Vec::with_capacity(events);
    let mut payload = Vec::with_capacity(events);
    let mut actor = Vec::with_capacity(events);
    let mut corr = Vec::with_capacity(events);
    let mut caus = Vec::with_capacity(events);
    let mut at = Vec::with_capacity(events);
    let mut prev = Vec::with_capacity(events);
    let mut hash = Vec::with_capacity(events);
    let mut id = Vec::with_capacity(events);
    let mut firsts = Vec::with_capacity(group.len());
    for q in group {
        firsts.push(stream.len());
        for r in &q.rows {
            idx.push(i32::try_from(stream.len()).unwrap_or(i32::MAX));
            stream.push(q.stream_id.as_str());
            ver.push(r.stream_version);
            typ.push(r.event_type.as_str());
            sv.push(r.schema_version);
            payload.push(r.payload.as_slice());
            actor.push(r.actor.as_deref());
            corr.push(r.correlation_id.as_deref());
            caus.push(r.causation_id.as_deref());
            at.push(r.recorded_at);
            prev.push(r.prev_hash.as_slice());
            hash.push(r.hash.as_slice());
            id.push(r.event_id.as_slice());
        }
    }
    let inserted = sqlx::query(PG_GROUP_INSERT)
        .bind(stream)
        .bind(idx)
        .bind(ver)
        .bind(typ)
        .bind(sv)
        .bind(payload)
        .bind(actor)
        .bind(corr)
        .bind(caus)
        .bind(at)
        .bind(prev)
        .bind(hash)
        .bind(id)
        .fetch_one(pool)
        .await;
    let Ok(row) = inserted else {
        return alone();
    };
    let (Ok(xid), Ok(count)) = (row.try_get::<i64, _>(0), row.try_get::<i64, _>(1)) else {
        return alone();
    };
    let base = to_u64("transaction id", xid)
        .ok()
        .and_then(|x| x.checked_mul(1 << PG_INDEX_BITS))
        .filter(|p| *p < (1 << 63));
    match base {
        Some(base) if usize::try_from(count).ok() == Some(events) => firsts
            .into_iter()
            .map(|i| Grouped::Appended(base | u64::try_from(i).unwrap_or(u64::MAX)))
            .collect(),
        // Cannot happen (the statement inserts every row or fails); if it did, the appends
        // are retried alone and the unique index tells what was written.
        _ => alone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn queued(stream: &str, events: usize) -> (Queued, oneshot::Receiver<Grouped>) {
        let (reply, done) = oneshot::channel();
        let rows = (0..events)
            .map(|i| RowData {
                event_id: vec![2; 16],
                stream_version: i64::try_from(i + 1).unwrap_or(0),
                event_type: "E".into(),
                schema_version: 1,
                payload: b"{}".to_vec(),
                actor: None,
                correlation_id: None,
                causation_id: None,
                recorded_at: 0,
                prev_hash: vec![0; 32],
                hash: vec![1; 32],
            })
            .collect();
        (
            Queued {
                stream_id: stream.into(),
                rows,
                reply,
            },
            done,
        )
    }

    fn streams(group: &[Queued]) -> Vec<&str> {
        group.iter().map(|q| q.stream_id.as_str()).collect()
    }

    #[test]
    fn a_writer_cut_short_sends_the_waiting_appends_off_alone() {
        let groups = std::sync::Arc::new(Groups::default());
        let (a, mut a_done) = queued("a", 1);
        let (b, mut b_done) = queued("b", 1);
        {
            let mut queue = groups.queue();
            queue.waiting.extend([a, b]);
            queue.writers = 1;
        }
        drop(Writer {
            groups: std::sync::Arc::clone(&groups),
            finished: false,
        });
        let queue = groups.queue();
        assert_eq!(queue.writers, 0, "its place is free for the next append");
        assert!(queue.waiting.is_empty());
        // The callers see their channel closed, which `append` reads as `Alone`.
        assert!(a_done.try_recv().is_err() && b_done.try_recv().is_err());
    }

    #[test]
    fn a_group_takes_one_append_per_stream_in_queue_order() {
        let mut waiting = VecDeque::new();
        let mut receivers = Vec::new();
        for s in ["a", "b", "a", "c", "b"] {
            let (q, r) = queued(s, 2);
            waiting.push_back(q);
            receivers.push(r);
        }
        let first = take_group(&mut waiting);
        assert_eq!(streams(&first), ["a", "b", "c"]);
        let second = take_group(&mut waiting);
        assert_eq!(streams(&second), ["a", "b"]);
        assert!(take_group(&mut waiting).is_empty());
    }

    #[test]
    fn a_group_is_bounded_but_never_empty_and_skips_the_departed() {
        let mut waiting = VecDeque::new();
        let (big, _r1) = queued("big", MAX_GROUP_EVENTS + 10);
        let (gone, r2) = queued("gone", 1);
        let (small, _r3) = queued("small", 5);
        waiting.extend([big, gone, small]);
        drop(r2);
        // An append larger than a group still goes, alone.
        assert_eq!(streams(&take_group(&mut waiting)), ["big"]);
        // The caller of "gone" left: its append is not written.
        assert_eq!(streams(&take_group(&mut waiting)), ["small"]);
        assert!(waiting.is_empty());
    }
}
