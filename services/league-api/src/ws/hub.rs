//! Shared live queries: one execution per distinct question, its responses shared by every
//! subscriber, conflated and paced (see the [module above](super)).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::Duration;

use actix_web::web::Bytes;
use async_graphql::parser::types::{DocumentOperations, OperationType, Selection};
use futures_util::StreamExt as _;
use futures_util::stream::BoxStream;
use tokio::sync::broadcast;

use crate::auth::Principal;
use crate::metrics::{GaugeGuard, Metrics};

/// Root subscription fields that render current state and may be shared.
const SHARED_FIELDS: [&str; 3] = ["table", "tournament", "standings"];
/// Responses a shared query keeps for its slowest subscriber before that one skips ahead.
const SHARED_CAPACITY: usize = 256;

/// What makes two subscriptions the same question: who asks, and exactly what.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) struct Key {
    principal: Principal,
    query: String,
    operation_name: Option<String>,
    variables: String,
}

/// The sharing key of a subscription whose root fields all render current state; `None`
/// for anything else (or a query that does not parse, which then fails on its own).
pub(super) fn share_key(principal: &Principal, request: &async_graphql::Request) -> Option<Key> {
    if !request.extensions.is_empty() {
        return None;
    }
    let document = async_graphql::parser::parse_query(&request.query).ok()?;
    let operation = match &document.operations {
        DocumentOperations::Single(op) => op,
        DocumentOperations::Multiple(ops) => ops.get(request.operation_name.as_deref()?)?,
    };
    if operation.node.ty != OperationType::Subscription {
        return None;
    }
    let shareable = operation.node.selection_set.node.items.iter().all(|s| {
        matches!(&s.node, Selection::Field(f) if SHARED_FIELDS.contains(&f.node.name.node.as_str()))
    });
    shareable.then(|| Key {
        principal: principal.clone(),
        query: request.query.clone(),
        operation_name: request.operation_name.clone(),
        variables: serde_json::to_string(&request.variables).unwrap_or_default(),
    })
}

/// The live queries running for more than one subscriber at a time.
pub struct Hub {
    running: Mutex<HashMap<Key, Weak<Shared>>>,
    metrics: Arc<Metrics>,
    /// Frames a second a live query may cost in all ([`crate::Options::live_frames_per_view`]).
    frames_per_view: u32,
}

impl std::fmt::Debug for Hub {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hub")
            .field("running", &self.running())
            .finish()
    }
}

/// One live query and its subscribers' shared view of it.
struct Shared {
    key: Key,
    hub: Weak<Hub>,
    tail: Arc<Mutex<Tail>>,
    driver: tokio::task::JoinHandle<()>,
    /// Counts the query while it runs.
    _counted: GaugeGuard,
}

/// The latest response, numbered, and the channel of the ones after it (`None` once the
/// query ended).
struct Tail {
    last: Option<(u64, Bytes)>,
    sender: Option<broadcast::Sender<(u64, Bytes)>>,
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Hub {
    /// A hub that counts its live queries in `metrics` and lets each send its subscribers
    /// at most `frames_per_view` frames a second in all (0: no limit).
    pub fn new(metrics: Arc<Metrics>, frames_per_view: u32) -> Hub {
        Hub {
            running: Mutex::new(HashMap::new()),
            metrics,
            frames_per_view,
        }
    }

    /// Live queries running now.
    pub fn running(&self) -> usize {
        lock(&self.running)
            .values()
            .filter(|w| w.strong_count() > 0)
            .count()
    }

    /// The responses of the live query `key`, from its latest on; `execute` starts it if it
    /// is not running.
    pub(super) fn join(
        self: &Arc<Self>,
        key: Key,
        execute: impl FnOnce() -> BoxStream<'static, Bytes>,
    ) -> BoxStream<'static, Bytes> {
        let (shared, ended) = {
            let mut running = lock(&self.running);
            match running.get(&key).and_then(Weak::upgrade) {
                Some(shared) if lock(&shared.tail).sender.is_some() => (shared, None),
                ended => {
                    let shared = Arc::new(Shared::start(
                        key.clone(),
                        Arc::downgrade(self),
                        execute(),
                        self.frames_per_view,
                        self.metrics.live_query(),
                    ));
                    running.insert(key, Arc::downgrade(&shared));
                    (shared, ended)
                }
            }
        };
        // Dropped outside the lock: it may be the last reference, and `Shared::drop` locks.
        drop(ended);
        follow(shared)
    }
}

impl Shared {
    fn start(
        key: Key,
        hub: Weak<Hub>,
        mut responses: BoxStream<'static, Bytes>,
        frames_per_view: u32,
        counted: GaugeGuard,
    ) -> Shared {
        let (sender, _) = broadcast::channel(SHARED_CAPACITY);
        let tail = Arc::new(Mutex::new(Tail {
            last: None,
            sender: Some(sender),
        }));
        let driven = Arc::clone(&tail);
        let driver = tokio::spawn(async move {
            let mut seq = 0u64;
            // Publishes a response; returns when the next may be published: the frames
            // this one costs (one per subscriber) spread at `frames_per_view` a second.
            let mut publish = |bytes: Bytes| {
                seq += 1;
                let mut tail = lock(&driven);
                tail.last = Some((seq, bytes.clone()));
                let mut screens = 0;
                if let Some(sender) = &tail.sender {
                    // No receiver right now is fine: a joiner starts from `last`.
                    screens = sender.send((seq, bytes)).unwrap_or(0);
                }
                tokio::time::Instant::now() + hold(screens, frames_per_view)
            };
            // A response that came before then waits, replaced by any newer one meanwhile.
            let mut held: Option<Bytes> = None;
            let mut next_at = tokio::time::Instant::now();
            loop {
                tokio::select! {
                    response = responses.next() => match response {
                        Some(bytes) if held.is_none() && tokio::time::Instant::now() >= next_at => {
                            next_at = publish(bytes);
                        }
                        Some(bytes) => held = Some(bytes),
                        None => break,
                    },
                    () = tokio::time::sleep_until(next_at), if held.is_some() => {
                        if let Some(bytes) = held.take() {
                            next_at = publish(bytes);
                        }
                    }
                }
            }
            if let Some(bytes) = held.take() {
                publish(bytes);
            }
            // The receivers see the end once they have read everything sent.
            lock(&driven).sender = None;
        });
        Shared {
            key,
            hub,
            tail,
            driver,
            _counted: counted,
        }
    }
}

impl Drop for Shared {
    fn drop(&mut self) {
        self.driver.abort();
        if let Some(hub) = self.hub.upgrade() {
            let mut running = lock(&hub.running);
            if running
                .get(&self.key)
                .is_some_and(|w| w.strong_count() == 0)
            {
                running.remove(&self.key);
            }
        }
    }
}

/// The longest a live query holds a response back.
const MAX_HOLD: Duration = Duration::from_secs(1);

/// How long after sending `screens` frames a live query waits before its next response,
/// at `frames_per_view` frames a second (0: no wait); at most [`MAX_HOLD`].
fn hold(screens: usize, frames_per_view: u32) -> Duration {
    if frames_per_view == 0 {
        return Duration::ZERO;
    }
    let micros = u64::try_from(screens)
        .unwrap_or(u64::MAX)
        .saturating_mul(1_000_000)
        / u64::from(frames_per_view);
    Duration::from_micros(micros).min(MAX_HOLD)
}

/// A subscriber's view of a shared query: the latest response, then each later one it is
/// ready for; of several that arrived while it was busy, only the newest.
fn follow(shared: Arc<Shared>) -> BoxStream<'static, Bytes> {
    let (receiver, first) = {
        let tail = lock(&shared.tail);
        let receiver = tail.sender.as_ref().map(broadcast::Sender::subscribe);
        (receiver, tail.last.clone())
    };
    let Some(receiver) = receiver else {
        // Ended between the lookup and now: its last response, then the end.
        return futures_util::stream::iter(first.map(|(_, b)| b)).boxed();
    };
    Follower {
        _shared: shared,
        receiver,
        first,
        seen: 0,
    }
    .into_stream()
}

struct Follower {
    /// Keeps the query running while this subscriber is.
    _shared: Arc<Shared>,
    receiver: broadcast::Receiver<(u64, Bytes)>,
    first: Option<(u64, Bytes)>,
    /// The number of the last response yielded.
    seen: u64,
}

impl Follower {
    /// `received`, or a newer response already waiting in the channel.
    fn newest(&mut self, mut received: (u64, Bytes)) -> (u64, Bytes) {
        loop {
            match self.receiver.try_recv() {
                Ok(next) if next.0 > received.0 => received = next,
                // Overrun: the channel goes on from the oldest response it still holds.
                Ok(_) | Err(broadcast::error::TryRecvError::Lagged(_)) => {}
                Err(
                    broadcast::error::TryRecvError::Empty | broadcast::error::TryRecvError::Closed,
                ) => {
                    return received;
                }
            }
        }
    }

    fn into_stream(self) -> BoxStream<'static, Bytes> {
        futures_util::stream::unfold(self, |mut f| async move {
            if let Some((seq, bytes)) = f.first.take() {
                f.seen = seq;
                return Some((bytes, f));
            }
            loop {
                match f.receiver.recv().await {
                    Ok((seq, bytes)) if seq > f.seen => {
                        // Whatever arrived while this subscriber was busy is replaced by
                        // the newest: a screen wants the table as it is now.
                        let (seq, bytes) = f.newest((seq, bytes));
                        f.seen = seq;
                        return Some((bytes, f));
                    }
                    // Too slow for the broadcast: it goes on from the oldest response it
                    // still holds, and `newest` skips from there to the latest.
                    Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => {}
                    Err(broadcast::error::RecvError::Closed) => return None,
                }
            }
        })
        .boxed()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(query: &str) -> async_graphql::Request {
        async_graphql::Request::new(query)
    }

    #[test]
    fn only_views_of_current_state_are_shared() {
        let anyone = Principal::Anonymous;
        let table = "subscription { table(tournamentId: \"t\", table: 1) { version } }";
        assert!(share_key(&anyone, &request(table)).is_some());
        let both = "subscription { table(tournamentId: \"t\", table: 1) { version } tournament(id: \"t\") { entries } }";
        assert!(share_key(&anyone, &request(both)).is_some());
        let log = "subscription { eventLog(fromPosition: 0) { position } }";
        assert!(
            share_key(&anyone, &request(log)).is_none(),
            "every event, not a state"
        );
        let mixed = "subscription { table(tournamentId: \"t\", table: 1) { version } eventLog { position } }";
        assert!(share_key(&anyone, &request(mixed)).is_none());
        let fragment = "subscription { ...F } fragment F on Subscription { table(tournamentId: \"t\", table: 1) { version } }";
        assert!(share_key(&anyone, &request(fragment)).is_none());
        assert!(share_key(&anyone, &request("query { me { role } }")).is_none());
        assert!(share_key(&anyone, &request("subscription {")).is_none());
        let named = "subscription A { table(tournamentId: \"t\", table: 1) { version } } subscription B { eventLog { position } }";
        assert!(share_key(&anyone, &request(named).operation_name("A")).is_some());
        assert!(share_key(&anyone, &request(named).operation_name("B")).is_none());
        assert!(
            share_key(&anyone, &request(named)).is_none(),
            "no operation chosen"
        );
    }

    #[test]
    fn the_caller_and_the_variables_are_part_of_the_question() {
        let query = "subscription($t: String!) { table(tournamentId: $t, table: 1) { version } }";
        let vars = |t: &str| async_graphql::Variables::from_json(serde_json::json!({ "t": t }));
        let ann = Principal::Player {
            token: "tok_a".into(),
            player: "ann".into(),
        };
        let bob = Principal::Player {
            token: "tok_b".into(),
            player: "bob".into(),
        };
        let key =
            |p: &Principal, t: &str| share_key(p, &request(query).variables(vars(t))).unwrap();
        assert_eq!(key(&ann, "t1"), key(&ann, "t1"));
        assert_ne!(key(&ann, "t1"), key(&bob, "t1"));
        assert_ne!(key(&ann, "t1"), key(&ann, "t2"));
        assert_ne!(key(&ann, "t1"), key(&Principal::Anonymous, "t1"));
    }

    /// A query's responses as a channel the test feeds.
    fn fed() -> (
        tokio::sync::mpsc::UnboundedSender<&'static str>,
        BoxStream<'static, Bytes>,
    ) {
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel::<&'static str>();
        let stream = futures_util::stream::unfold(rx, |mut rx| async move {
            rx.recv()
                .await
                .map(|s| (Bytes::from_static(s.as_bytes()), rx))
        })
        .boxed();
        (tx, stream)
    }

    /// The query `key(1)` started on `hub` from a fed channel, and its first subscriber.
    fn started(
        hub: &Arc<Hub>,
    ) -> (
        tokio::sync::mpsc::UnboundedSender<&'static str>,
        BoxStream<'static, Bytes>,
    ) {
        let (feed, stream) = fed();
        let mut stream = Some(stream);
        (feed, hub.join(key(1), || stream.take().unwrap()))
    }

    fn key(n: u8) -> Key {
        Key {
            principal: Principal::Anonymous,
            query: format!("q{n}"),
            operation_name: None,
            variables: String::new(),
        }
    }

    async fn next(s: &mut BoxStream<'static, Bytes>) -> Option<String> {
        tokio::time::timeout(Duration::from_secs(5), s.next())
            .await
            .expect("a response in time")
            .map(|b| String::from_utf8(b.to_vec()).unwrap())
    }

    #[tokio::test]
    async fn subscribers_share_one_execution_and_joiners_start_from_the_latest() {
        let hub = Arc::new(Hub::new(Arc::default(), 0));
        let (feed, mut a) = started(&hub);
        feed.send("v1").unwrap();
        assert_eq!(next(&mut a).await.as_deref(), Some("v1"));
        // A second subscriber of the same question runs nothing new.
        let mut b = hub.join(key(1), || panic!("executed twice"));
        assert_eq!(hub.running(), 1);
        assert_eq!(
            next(&mut b).await.as_deref(),
            Some("v1"),
            "the latest first"
        );
        // Subscribers that keep up get every version, in order.
        for n in ["v2", "v3"] {
            feed.send(n).unwrap();
            for s in [&mut a, &mut b] {
                assert_eq!(next(s).await.as_deref(), Some(n));
            }
        }
        // Another question is another execution.
        let (_other_feed, other) = fed();
        let mut other = Some(other);
        let _c = hub.join(key(2), || other.take().unwrap());
        assert_eq!(hub.running(), 2);
        // The query ends: every subscriber sees the end after what was sent.
        feed.send("v4").unwrap();
        drop(feed);
        for s in [&mut a, &mut b] {
            assert_eq!(next(s).await.as_deref(), Some("v4"));
            assert_eq!(next(s).await, None);
        }
        // An ended query is not joined: the next subscriber starts a new one.
        let (feed, stream) = fed();
        let mut fresh = Some(stream);
        let mut d = hub.join(key(1), || fresh.take().unwrap());
        feed.send("w1").unwrap();
        assert_eq!(next(&mut d).await.as_deref(), Some("w1"));
    }

    #[tokio::test]
    async fn the_last_subscriber_leaving_stops_the_query() {
        let hub = Arc::new(Hub::new(Arc::default(), 0));
        let (feed, a) = started(&hub);
        let b = hub.join(key(1), || panic!("executed twice"));
        drop(a);
        assert_eq!(hub.running(), 1);
        drop(b);
        assert_eq!(hub.running(), 0);
        // The driver was aborted: its receiver is gone.
        for _ in 0..100 {
            if feed.is_closed() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert!(feed.is_closed(), "the execution was dropped");
        assert!(lock(&hub.running).is_empty());
    }

    #[tokio::test]
    async fn a_subscriber_that_falls_behind_skips_to_the_latest_in_order() {
        let hub = Arc::new(Hub::new(Arc::default(), 0));
        let (feed, mut slow) = started(&hub);
        let mut fast = hub.join(key(1), || panic!("executed twice"));
        let names: Vec<&'static str> = (0..SHARED_CAPACITY * 2 + 7)
            .map(|i| &*Box::leak(format!("v{i}").into_boxed_str()))
            .collect();
        for n in &names {
            feed.send(n).unwrap();
            // The fast one keeps up.
            assert_eq!(next(&mut fast).await.as_deref(), Some(*n));
        }
        // The slow one read nothing meanwhile: it gets the latest, then what comes after.
        assert_eq!(next(&mut slow).await.as_deref(), names.last().copied());
        feed.send("after").unwrap();
        assert_eq!(next(&mut slow).await.as_deref(), Some("after"));
        assert_eq!(next(&mut fast).await.as_deref(), Some("after"));
    }

    #[tokio::test]
    async fn a_subscriber_busy_sending_gets_only_the_newest_of_what_arrived_meanwhile() {
        let hub = Arc::new(Hub::new(Arc::default(), 0));
        let (feed, mut screen) = started(&hub);
        feed.send("v1").unwrap();
        assert_eq!(next(&mut screen).await.as_deref(), Some("v1"));
        // Three versions while the screen was sending v1: it is sent v4 alone.
        for n in ["v2", "v3", "v4"] {
            feed.send(n).unwrap();
        }
        // The driver task publishes them; give it the chance to.
        while lock(&hub_tail(&hub)).last.as_ref().map(|l| l.0) != Some(4) {
            tokio::task::yield_now().await;
        }
        assert_eq!(next(&mut screen).await.as_deref(), Some("v4"));
        feed.send("v5").unwrap();
        assert_eq!(next(&mut screen).await.as_deref(), Some("v5"));
    }

    #[test]
    fn a_view_waits_in_proportion_to_its_screens() {
        assert_eq!(hold(200, 1000), Duration::from_millis(200));
        assert_eq!(hold(10, 1000), Duration::from_millis(10));
        assert_eq!(hold(1, 1000), Duration::from_millis(1));
        assert_eq!(hold(0, 1000), Duration::ZERO);
        assert_eq!(hold(10_000, 0), Duration::ZERO, "0: no limit");
        assert_eq!(hold(50_000, 1000), MAX_HOLD);
        assert_eq!(hold(usize::MAX, 1), MAX_HOLD);
    }

    #[tokio::test(start_paused = true)]
    async fn a_view_changing_faster_than_its_budget_is_sent_as_it_then_is() {
        // 10 frames a second for one screen: at most one view each 100 ms.
        let hub = Arc::new(Hub::new(Arc::default(), 10));
        let (feed, mut screen) = started(&hub);
        let start = tokio::time::Instant::now();
        feed.send("v1").unwrap();
        assert_eq!(next(&mut screen).await.as_deref(), Some("v1"));
        assert_eq!(
            start.elapsed(),
            Duration::ZERO,
            "the first change is sent at once"
        );
        for n in ["v2", "v3", "v4"] {
            feed.send(n).unwrap();
        }
        assert_eq!(next(&mut screen).await.as_deref(), Some("v4"));
        assert_eq!(start.elapsed(), Duration::from_millis(100));
        // A change after a quiet while is sent at once.
        tokio::time::sleep(Duration::from_millis(500)).await;
        let quiet = tokio::time::Instant::now();
        feed.send("v5").unwrap();
        assert_eq!(next(&mut screen).await.as_deref(), Some("v5"));
        assert_eq!(quiet.elapsed(), Duration::ZERO);
        // The query's end sends what it held.
        feed.send("v6").unwrap();
        feed.send("v7").unwrap();
        drop(feed);
        assert_eq!(next(&mut screen).await.as_deref(), Some("v7"));
        assert_eq!(next(&mut screen).await, None);
    }

    /// The shared tail of the only query running in `hub`.
    fn hub_tail(hub: &Hub) -> Arc<Mutex<Tail>> {
        let running = lock(&hub.running);
        let shared = running.values().find_map(Weak::upgrade).unwrap();
        Arc::clone(&shared.tail)
    }
}
