//! Operations: Prometheus metrics (`GET /metrics`) and the per-token rate limit.
//!
//! Metrics are plain atomics written as the Prometheus text format by hand (no client
//! library): requests by kind and outcome, a latency histogram, commands and the events
//! they appended, open subscriptions, requests refused by the rate limit, and, computed
//! when scraped, the projection lag (the log's last position less the position the live
//! projector has folded).

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::Mutex;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Upper bounds of the latency histogram's buckets, in microseconds.
const BUCKETS_US: [u64; 12] = [
    500, 1_000, 2_500, 5_000, 10_000, 25_000, 50_000, 100_000, 250_000, 500_000, 1_000_000,
    5_000_000,
];

/// What a request was.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Query,
    Mutation,
    /// A WebSocket connection for subscriptions.
    Subscription,
}

impl Kind {
    const ALL: [Kind; 3] = [Kind::Query, Kind::Mutation, Kind::Subscription];

    fn index(self) -> usize {
        match self {
            Kind::Query => 0,
            Kind::Mutation => 1,
            Kind::Subscription => 2,
        }
    }

    fn label(self) -> &'static str {
        match self {
            Kind::Query => "query",
            Kind::Mutation => "mutation",
            Kind::Subscription => "subscription",
        }
    }
}

/// The service's counters.
#[derive(Debug, Default)]
pub struct Metrics {
    /// Requests by kind: answered without errors, with errors.
    requests_ok: [AtomicU64; 3],
    requests_error: [AtomicU64; 3],
    /// Latency histogram of queries and mutations (cumulative counts per bucket).
    buckets: [[AtomicU64; BUCKETS_US.len()]; 2],
    latency_sum_us: [AtomicU64; 2],
    latency_count: [AtomicU64; 2],
    commands_ok: AtomicU64,
    commands_error: AtomicU64,
    events_appended: AtomicU64,
    subscribers: AtomicI64,
    live_queries: AtomicI64,
    rate_limited: AtomicU64,
}

impl Metrics {
    /// A request answered after `elapsed`, with or without errors.
    pub fn request(&self, kind: Kind, ok: bool, elapsed: Duration) {
        let counters = if ok {
            &self.requests_ok
        } else {
            &self.requests_error
        };
        counters[kind.index()].fetch_add(1, Ordering::Relaxed);
        if kind == Kind::Subscription {
            return;
        }
        let h = kind.index();
        let us = u64::try_from(elapsed.as_micros()).unwrap_or(u64::MAX);
        for (bucket, bound) in self.buckets[h].iter().zip(BUCKETS_US) {
            if us <= bound {
                bucket.fetch_add(1, Ordering::Relaxed);
            }
        }
        self.latency_sum_us[h].fetch_add(us, Ordering::Relaxed);
        self.latency_count[h].fetch_add(1, Ordering::Relaxed);
    }

    /// A command decided and appended (`events` new events; 0 for a replayed key), or
    /// refused.
    pub fn command(&self, appended: Option<u64>) {
        match appended {
            Some(events) => {
                self.commands_ok.fetch_add(1, Ordering::Relaxed);
                self.events_appended.fetch_add(events, Ordering::Relaxed);
            }
            None => {
                self.commands_error.fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    pub fn rate_limited(&self) {
        self.rate_limited.fetch_add(1, Ordering::Relaxed);
    }

    /// Counts an open subscription until the guard is dropped.
    pub fn subscriber(self: &std::sync::Arc<Self>) -> GaugeGuard {
        GaugeGuard::new(self, |m| &m.subscribers)
    }

    pub fn subscribers(&self) -> i64 {
        self.subscribers.load(Ordering::Relaxed)
    }

    /// Counts a live query (one execution shared by its subscribers) until the guard is
    /// dropped.
    pub fn live_query(self: &std::sync::Arc<Self>) -> GaugeGuard {
        GaugeGuard::new(self, |m| &m.live_queries)
    }

    pub fn live_queries(&self) -> i64 {
        self.live_queries.load(Ordering::Relaxed)
    }

    /// The Prometheus text exposition; `lag` is the projection lag in events, when known.
    pub fn render(&self, log_position: Option<u64>, folded: Option<u64>) -> String {
        let mut out = String::new();
        let load = |a: &AtomicU64| a.load(Ordering::Relaxed);
        family(
            &mut out,
            "league_requests_total",
            "counter",
            "GraphQL requests (HTTP) and subscription connections (WebSocket), by outcome.",
        );
        for kind in Kind::ALL {
            for (outcome, counters) in [("ok", &self.requests_ok), ("error", &self.requests_error)]
            {
                let _ = writeln!(
                    out,
                    "league_requests_total{{kind=\"{}\",outcome=\"{outcome}\"}} {}",
                    kind.label(),
                    load(&counters[kind.index()])
                );
            }
        }
        family(
            &mut out,
            "league_request_duration_seconds",
            "histogram",
            "Time to answer a GraphQL request over HTTP.",
        );
        for kind in [Kind::Query, Kind::Mutation] {
            let h = kind.index();
            for (bucket, bound) in self.buckets[h].iter().zip(BUCKETS_US) {
                let _ = writeln!(
                    out,
                    "league_request_duration_seconds_bucket{{kind=\"{}\",le=\"{}\"}} {}",
                    kind.label(),
                    seconds(bound),
                    load(bucket)
                );
            }
            let count = load(&self.latency_count[h]);
            let _ = writeln!(
                out,
                "league_request_duration_seconds_bucket{{kind=\"{}\",le=\"+Inf\"}} {count}",
                kind.label()
            );
            let _ = writeln!(
                out,
                "league_request_duration_seconds_sum{{kind=\"{}\"}} {}",
                kind.label(),
                seconds(load(&self.latency_sum_us[h]))
            );
            let _ = writeln!(
                out,
                "league_request_duration_seconds_count{{kind=\"{}\"}} {count}",
                kind.label()
            );
        }
        family(
            &mut out,
            "league_commands_total",
            "counter",
            "Commands (mutations) decided and appended, or refused.",
        );
        let _ = writeln!(
            out,
            "league_commands_total{{outcome=\"appended\"}} {}",
            load(&self.commands_ok)
        );
        let _ = writeln!(
            out,
            "league_commands_total{{outcome=\"refused\"}} {}",
            load(&self.commands_error)
        );
        family(
            &mut out,
            "league_events_appended_total",
            "counter",
            "Events this instance appended to the log.",
        );
        let _ = writeln!(
            out,
            "league_events_appended_total {}",
            load(&self.events_appended)
        );
        family(
            &mut out,
            "league_subscribers",
            "gauge",
            "Open GraphQL subscriptions on this instance.",
        );
        let _ = writeln!(out, "league_subscribers {}", self.subscribers());
        family(
            &mut out,
            "league_live_queries",
            "gauge",
            "Subscriptions executed on this instance: identical views of current state are \
             executed once for all their subscribers.",
        );
        let _ = writeln!(out, "league_live_queries {}", self.live_queries());
        family(
            &mut out,
            "league_rate_limited_total",
            "counter",
            "Requests refused by the per-token rate limit.",
        );
        let _ = writeln!(
            out,
            "league_rate_limited_total {}",
            load(&self.rate_limited)
        );
        if let Some(last) = log_position {
            let folded_n = folded.unwrap_or(0);
            let lag = match folded {
                Some(f) => last.saturating_sub(f),
                None => last.saturating_add(1),
            };
            family(
                &mut out,
                "league_log_position",
                "gauge",
                "The last global position in the event log.",
            );
            let _ = writeln!(out, "league_log_position {last}");
            family(
                &mut out,
                "league_projection_position",
                "gauge",
                "The last position the live projections folded.",
            );
            let _ = writeln!(out, "league_projection_position {folded_n}");
            family(&mut out, "league_projection_lag_events", "gauge", LAG_HELP);
            let _ = writeln!(out, "league_projection_lag_events {lag}");
        } else {
            family(&mut out, "league_projection_lag_events", "gauge", LAG_HELP);
            let _ = writeln!(out, "league_projection_lag_events 0");
        }
        out
    }
}

const LAG_HELP: &str = "Events in the log the live projections have not folded yet.";

/// The `# HELP` and `# TYPE` lines that open a metric family.
fn family(out: &mut String, name: &str, kind: &str, help: &str) {
    let _ = writeln!(out, "# HELP {name} {help}");
    let _ = writeln!(out, "# TYPE {name} {kind}");
}

/// Microseconds as decimal seconds, exactly (no float).
fn seconds(us: u64) -> String {
    let frac = format!("{:06}", us % 1_000_000);
    let frac = frac.trim_end_matches('0');
    if frac.is_empty() {
        format!("{}", us / 1_000_000)
    } else {
        format!("{}.{frac}", us / 1_000_000)
    }
}

/// Keeps something counted in a gauge while it lasts.
pub struct GaugeGuard {
    metrics: std::sync::Arc<Metrics>,
    gauge: fn(&Metrics) -> &AtomicI64,
}

impl GaugeGuard {
    fn new(metrics: &std::sync::Arc<Metrics>, gauge: fn(&Metrics) -> &AtomicI64) -> GaugeGuard {
        gauge(metrics).fetch_add(1, Ordering::Relaxed);
        GaugeGuard {
            metrics: std::sync::Arc::clone(metrics),
            gauge,
        }
    }
}

impl std::fmt::Debug for GaugeGuard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GaugeGuard").finish_non_exhaustive()
    }
}

impl Drop for GaugeGuard {
    fn drop(&mut self) {
        (self.gauge)(&self.metrics).fetch_sub(1, Ordering::Relaxed);
    }
}

/// A token bucket per caller: `per_second` requests a second on average, bursts up to
/// `burst`. Counted in thousandths of a request, so the arithmetic stays in integers.
#[derive(Debug)]
pub struct RateLimiter {
    per_second: u32,
    burst: u32,
    buckets: Mutex<HashMap<String, Bucket>>,
}

#[derive(Clone, Copy, Debug)]
struct Bucket {
    /// Units left (a thousandth of a request).
    milli: u64,
    at: Instant,
}

/// Callers remembered before idle buckets are swept.
const SWEEP_AT: usize = 10_000;

impl RateLimiter {
    /// `per_second` 0 turns the limit off.
    pub fn new(per_second: u32, burst: u32) -> RateLimiter {
        RateLimiter {
            per_second,
            burst: burst.max(per_second).max(1),
            buckets: Mutex::new(HashMap::new()),
        }
    }

    /// The units of one request (1,000) and the units refilled each millisecond.
    fn scale(&self) -> (u64, u64) {
        (1_000, u64::from(self.per_second))
    }

    /// How long until `caller` may be served, without taking anything; `None` when now.
    pub fn blocked(&self, caller: &str, now: Instant) -> Option<Duration> {
        if self.per_second == 0 {
            return None;
        }
        let (unit, rate) = self.scale();
        let full = u64::from(self.burst) * unit;
        let buckets = self
            .buckets
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let bucket = buckets.get(caller)?;
        let left = refill(*bucket, now, rate, full);
        (left < unit).then(|| Duration::from_millis((unit - left).div_ceil(rate)))
    }

    pub fn per_second(&self) -> u32 {
        self.per_second
    }

    /// Takes one request from `caller`'s bucket at `now`; `Err(wait)` when it is empty,
    /// with how long until the next request would be allowed.
    pub fn check(&self, caller: &str, now: Instant) -> Result<(), Duration> {
        self.take(caller, 1, now)
    }

    /// Takes `n` requests at once (the mutations of one document): all or none.
    pub fn take(&self, caller: &str, n: u32, now: Instant) -> Result<(), Duration> {
        if self.per_second == 0 || n == 0 {
            return Ok(());
        }
        let (unit, rate) = self.scale();
        let full = u64::from(self.burst) * unit;
        // A document of more mutations than the burst takes the whole burst.
        let need = (u64::from(n) * unit).min(full);
        let mut buckets = self
            .buckets
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if buckets.len() >= SWEEP_AT {
            // Forget callers whose buckets have refilled: they are as good as new.
            buckets.retain(|_, b| refill(*b, now, rate, full) < full);
        }
        let bucket = buckets.entry(caller.to_owned()).or_insert(Bucket {
            milli: full,
            at: now,
        });
        let milli = refill(*bucket, now, rate, full);
        if milli >= need {
            *bucket = Bucket {
                milli: milli - need,
                at: now,
            };
            Ok(())
        } else {
            *bucket = Bucket { milli, at: now };
            // Each millisecond refills `rate` units.
            let wait_ms = (need - milli).div_ceil(rate);
            Err(Duration::from_millis(wait_ms.max(1)))
        }
    }
}

/// Failed authentications per client address, with back-off: the first `allowance` within
/// a minute are free; from then on each failure shuts the address out for longer, starting
/// at a minute's share of the allowance (`60 s / allowance`: 2 s for 30) and doubling with
/// every failure after it, up to [`MAX_BACKOFF`]. A minute without a failure (counted from
/// the end of the last wait) forgets the address.
#[derive(Debug)]
pub struct AuthBackoff {
    allowance: u32,
    addresses: Mutex<HashMap<String, Failures>>,
}

#[derive(Clone, Copy, Debug)]
struct Failures {
    count: u32,
    last: Instant,
    /// Shut out until then.
    until: Instant,
}

/// The longest an address is shut out after one failure.
pub const MAX_BACKOFF: Duration = Duration::from_secs(15 * 60);
/// The quiet time after which an address's failures are forgotten.
const FORGET_AFTER: Duration = Duration::from_secs(60);

impl AuthBackoff {
    /// `allowance` 0 turns the limit off.
    pub fn new(allowance: u32) -> AuthBackoff {
        AuthBackoff {
            allowance,
            addresses: Mutex::new(HashMap::new()),
        }
    }

    fn remembered(f: &Failures, now: Instant) -> bool {
        now.saturating_duration_since(f.last.max(f.until)) < FORGET_AFTER
    }

    /// How long `addr` is still shut out; `None` when it may try now.
    pub fn blocked(&self, addr: &str, now: Instant) -> Option<Duration> {
        let addresses = self
            .addresses
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let f = addresses.get(addr)?;
        (f.until > now).then(|| f.until.saturating_duration_since(now))
    }

    /// Counts a failed authentication from `addr` at `now`; `Err(wait)` once the allowance is
    /// used up, with how long the address is now shut out.
    pub fn check(&self, addr: &str, now: Instant) -> Result<(), Duration> {
        if self.allowance == 0 {
            return Ok(());
        }
        let mut addresses = self
            .addresses
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if addresses.len() >= SWEEP_AT {
            addresses.retain(|_, f| AuthBackoff::remembered(f, now));
        }
        let f = addresses.entry(addr.to_owned()).or_insert(Failures {
            count: 0,
            last: now,
            until: now,
        });
        if !AuthBackoff::remembered(f, now) {
            f.count = 0;
        }
        f.count = f.count.saturating_add(1);
        f.last = now;
        let Some(over) = f.count.checked_sub(self.allowance) else {
            return Ok(());
        };
        let first =
            Duration::from_millis(60_000 / u64::from(self.allowance)).max(Duration::from_secs(1));
        let wait = first
            .checked_mul(1_u32.checked_shl(over).unwrap_or(u32::MAX))
            .unwrap_or(MAX_BACKOFF)
            .min(MAX_BACKOFF);
        f.until = now + wait;
        Err(wait)
    }
}

/// The bucket's units at `now`: `rate` units come back every millisecond.
fn refill(bucket: Bucket, now: Instant, rate: u64, full: u64) -> u64 {
    let ms =
        u64::try_from(now.saturating_duration_since(bucket.at).as_millis()).unwrap_or(u64::MAX);
    bucket
        .milli
        .saturating_add(ms.saturating_mul(rate))
        .min(full)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests")]

    use super::*;

    #[test]
    fn a_bucket_allows_its_burst_then_its_rate() {
        let limiter = RateLimiter::new(10, 20);
        let t0 = Instant::now();
        for _ in 0..20 {
            assert!(limiter.check("a", t0).is_ok());
        }
        let wait = limiter.check("a", t0).unwrap_err();
        assert_eq!(wait, Duration::from_millis(100), "one request per 100 ms");
        // Another caller has its own bucket.
        assert!(limiter.check("b", t0).is_ok());
        // 100 ms later, one more; not two.
        let t1 = t0 + Duration::from_millis(100);
        assert!(limiter.check("a", t1).is_ok());
        assert!(limiter.check("a", t1).is_err());
        // A second refills ten.
        let t2 = t1 + Duration::from_secs(1);
        for _ in 0..10 {
            assert!(limiter.check("a", t2).is_ok());
        }
        assert!(limiter.check("a", t2).is_err());
    }

    #[test]
    fn a_document_takes_one_request_per_mutation_all_or_none() {
        let limiter = RateLimiter::new(10, 20);
        let t0 = Instant::now();
        assert!(limiter.take("a", 15, t0).is_ok());
        // Five left: six are refused whole, and the five are still there.
        assert_eq!(limiter.take("a", 6, t0), Err(Duration::from_millis(100)));
        assert!(limiter.take("a", 5, t0).is_ok());
        assert!(limiter.check("a", t0).is_err());
        // More than the burst waits for the whole burst.
        let t1 = t0 + Duration::from_secs(2);
        assert!(limiter.take("a", 500, t1).is_ok());
        assert!(limiter.check("a", t1).is_err());
    }

    #[test]
    fn failed_authentications_back_off_and_a_quiet_minute_forgets_them() {
        let backoff = AuthBackoff::new(30);
        let t0 = Instant::now();
        assert_eq!(backoff.blocked("addr", t0), None);
        for _ in 0..29 {
            assert!(backoff.check("addr", t0).is_ok());
        }
        assert_eq!(backoff.blocked("addr", t0), None);
        // The allowance used up: 2 s, then twice as long after each further failure.
        assert_eq!(backoff.check("addr", t0), Err(Duration::from_secs(2)));
        // Looking does not count.
        assert_eq!(backoff.blocked("addr", t0), Some(Duration::from_secs(2)));
        assert_eq!(backoff.blocked("addr", t0), Some(Duration::from_secs(2)));
        assert_eq!(backoff.blocked("other", t0), None);
        let t1 = t0 + Duration::from_secs(2);
        assert_eq!(backoff.blocked("addr", t1), None);
        assert_eq!(backoff.check("addr", t1), Err(Duration::from_secs(4)));
        let t2 = t1 + Duration::from_secs(4);
        assert_eq!(backoff.check("addr", t2), Err(Duration::from_secs(8)));
        // Persisting reaches the cap and stays there.
        let mut t = t2;
        let mut wait = Duration::ZERO;
        for _ in 0..20 {
            t += wait;
            wait = backoff.check("addr", t).unwrap_err();
        }
        assert_eq!(wait, MAX_BACKOFF);
        // A quiet minute after the last wait ends forgets the address.
        let later = t + MAX_BACKOFF + Duration::from_secs(60);
        assert_eq!(backoff.blocked("addr", later), None);
        assert!(backoff.check("addr", later).is_ok());
        // 0 turns it off.
        let off = AuthBackoff::new(0);
        for _ in 0..1_000 {
            assert!(off.check("addr", t0).is_ok());
        }
        assert_eq!(off.blocked("addr", t0), None);
    }

    #[test]
    fn zero_turns_the_limit_off() {
        let limiter = RateLimiter::new(0, 0);
        let t0 = Instant::now();
        for _ in 0..10_000 {
            assert!(limiter.check("a", t0).is_ok());
        }
    }

    #[test]
    fn the_text_format_names_every_series() {
        let m = std::sync::Arc::new(Metrics::default());
        m.request(Kind::Mutation, true, Duration::from_micros(3_000));
        m.request(Kind::Query, false, Duration::from_micros(700));
        m.command(Some(4));
        m.command(None);
        let guard = m.subscriber();
        let (a, b) = (m.live_query(), m.live_query());
        drop(a);
        let text = m.render(Some(10), Some(7));
        drop((guard, b));
        for line in [
            "league_requests_total{kind=\"mutation\",outcome=\"ok\"} 1",
            "league_requests_total{kind=\"query\",outcome=\"error\"} 1",
            "league_request_duration_seconds_bucket{kind=\"mutation\",le=\"0.0025\"} 0",
            "league_request_duration_seconds_bucket{kind=\"mutation\",le=\"0.005\"} 1",
            "league_request_duration_seconds_bucket{kind=\"mutation\",le=\"+Inf\"} 1",
            "league_request_duration_seconds_sum{kind=\"mutation\"} 0.003",
            "league_commands_total{outcome=\"appended\"} 1",
            "league_commands_total{outcome=\"refused\"} 1",
            "league_events_appended_total 4",
            "league_subscribers 1",
            "league_live_queries 1",
            "league_projection_lag_events 3",
        ] {
            assert!(text.lines().any(|l| l == line), "{line} missing:\n{text}");
        }
        assert_eq!(m.subscribers(), 0);
        assert_eq!(m.live_queries(), 0);
    }
}
