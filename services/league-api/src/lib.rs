//! The GraphQL service: actix-web + async-graphql over the event store and the live
//! projector.
//!
//! # Layout
//!
//! - [`run`]: the server entry: a bound listener, a store, a shutdown future (tests bind
//!   port 0). It starts the live projector and serves `/healthz`, `/readyz`, GraphiQL at
//!   `GET /graphql`, queries and mutations at `POST /graphql`, subscriptions over WebSocket
//!   at `/graphql/ws` (or `/graphql` with an upgrade).
//! - `graphiql`: the GraphiQL page and its scripts, embedded in the binary (no CDN).
//! - `dashboard`: the league's screens (the bar TV's tournament clock and leaderboard, and
//!   a picker at `/`), embedded in the binary.
//! - [`ws`]: the WebSocket transport (`graphql-transport-ws`, `graphql-ws`), which runs
//!   each distinct live view once for all its subscribers.
//! - [`schema`]: the schema by domain (tournaments, leagues, audit), merged.
//! - [`auth`]: bearer tokens (stored as SHA-256) and roles.
//! - [`metrics`]: `/metrics` (Prometheus text) and the per-token rate limit.
//! - [`request_id`]: every request's and WebSocket operation's UUID (`X-Request-Id`).
//! - [`consistency`]: several instances answering as one: commands catch up with the
//!   log first; reads wait for a least position (`League-Min-Position`).
//! - [`error`]: the one mapping of failures to stable `extensions.code`s; [`error_codes`]
//!   gives a code to the errors async-graphql makes itself (parse, validation, bad values).
//!
//! # Invariants
//!
//! - Every mutation is a command decided by the engine on its stream as the store holds it
//!   (the projector caught up with the log first, the version read checked by the append,
//!   a refusal checked against the stream's head: `league_app::commands::execute`); it
//!   returns once this instance's projections include it (read your write), and any
//!   instance reads it for a caller that asks for its position ([`consistency`]).
//! - No hole card reaches a caller who may not see it: tables render per viewer, and the
//!   event log withholds hole cards and deck seeds of running hands.
//! - async-graphql is built with `custom-error-conversion`: only [`error::ApiError`]
//!   becomes a GraphQL error, so a database message cannot leak through a bare `?`.

pub mod auth;
pub mod consistency;
mod dashboard;
pub mod document;
pub mod error;
pub mod error_codes;
mod graphiql;
mod http;
pub mod metrics;
pub mod request_id;
pub mod schema;
mod ws;

use std::future::Future;
use std::sync::Arc;

use actix_web::{App, HttpServer, web};
use league_app::live::Live;
use league_store::Store;

pub use http::MAX_BODY;
pub use schema::{ApiSchema, ApiState, sdl};

/// Seconds the server waits for requests in flight when it is told to stop, by default.
pub const SHUTDOWN_GRACE_SECS: u64 = 10;
/// HTTP worker threads per core. Each worker is a single-threaded event loop: on a busy
/// server a command whose append or projection has just come back waits there behind every
/// WebSocket frame and request queued on its worker. With two per core the kernel
/// interleaves the workers' queues; on `league-bench api` (2 cores) this halved the wait
/// after an append and for the projection at the 99th percentile, and the command p99 went
/// from 50-58 ms to 33-40 ms (3 to 8 workers measured, 4 to 6 best).
const WORKERS_PER_CORE: usize = 2;
/// Most HTTP worker threads.
const MAX_WORKERS: usize = 8;

/// How the server limits its callers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// Requests a second per token (per address without one); 0 for no limit. Each
    /// mutation of a document counts as one request.
    pub rate_limit: u32,
    /// Requests a caller may send at once before the rate applies.
    pub burst: u32,
    /// The most mutations one document may hold.
    pub max_mutations: u32,
    /// Failed authentications (a token that is unknown, revoked or malformed) a client
    /// address may make within a minute; from the last of them on, every request with a
    /// token from that address answers 429 for a while that doubles with each further
    /// failure (60 s / this, then twice that, up to 15 minutes); a quiet minute forgets
    /// them. 0 for no limit.
    pub auth_failures_per_minute: u32,
    /// Proxies whose `X-Forwarded-For` is believed: a request from one of them is limited
    /// by the address it forwarded for (the last one not itself a trusted proxy).
    pub trusted_proxies: Vec<std::net::IpAddr>,
    /// Whether callers without a token may introspect the schema (`__schema`, `__type`):
    /// the SDL is public by default, as GraphiQL and code generators expect.
    pub anonymous_introspection: bool,
    /// How long a stopping server waits for the requests in flight before it closes their
    /// connections (its last checkpoint is written after).
    pub shutdown_grace: std::time::Duration,
    /// How long a stopping server keeps serving, its readiness failed, before it closes:
    /// time for a load balancer's health checks (or Kubernetes' endpoints) to take it out,
    /// so that no request is sent to it once it refuses them.
    pub shutdown_drain: std::time::Duration,
    /// Frames a second one shared view (a table, a tournament, standings) may send its
    /// screens in all: a view on `n` screens is sent at most `this / n` times a second. A
    /// change within that time of the last one sent waits for it, and is sent as the view
    /// then is (the versions between are conflated; each view says its version). A view on
    /// few screens is never held; one on a whole league's screens changing many times a
    /// second is, which bounds the server's work per change. 0: every version is sent.
    pub live_frames_per_view: u32,
    /// Where the server reads the time: the system's clock, or (in tests) a manual one.
    pub clock: league_app::clock::Clock,
}

/// Where a server is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    Serving,
    /// Told to stop: `/readyz` answers 503 and new WebSockets are refused, everything else
    /// is served, for [`Options::shutdown_drain`].
    Draining,
    /// New requests are refused (`UNAVAILABLE`), WebSockets closed with 1001, the requests
    /// in flight finish within [`Options::shutdown_grace`].
    Closing,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            rate_limit: 200,
            burst: 400,
            max_mutations: 50,
            auth_failures_per_minute: 30,
            trusted_proxies: Vec::new(),
            anonymous_introspection: true,
            shutdown_grace: std::time::Duration::from_secs(SHUTDOWN_GRACE_SECS),
            shutdown_drain: std::time::Duration::ZERO,
            live_frames_per_view: LIVE_FRAMES_PER_VIEW,
            clock: league_app::clock::Clock::system(),
        }
    }
}

/// [`Options::live_frames_per_view`] unless told otherwise: a table on 200 screens is sent
/// at most 5 times a second, one on 10 screens 100 times.
pub const LIVE_FRAMES_PER_VIEW: u32 = 1000;

/// The listen backlog [`listen`] asks for unless told otherwise: room for every screen of a
/// league reconnecting at once after a restart or a Wi-Fi drop (the kernel caps it at
/// `net.core.somaxconn`, 4,096 on current Linux). The standard library's `bind` asks for
/// 128, and the kernel drops the connection attempts past it, which then wait out their
/// SYN retries.
pub const LISTEN_BACKLOG: u32 = 4_096;

/// A listener on `host:port` (port 0: any free port) with room for `backlog` connections
/// not yet accepted.
pub fn listen(host: &str, port: u16, backlog: u32) -> std::io::Result<std::net::TcpListener> {
    use std::net::ToSocketAddrs as _;
    let address = (host, port).to_socket_addrs()?.next().ok_or_else(|| {
        std::io::Error::new(
            std::io::ErrorKind::NotFound,
            format!("no address for {host}"),
        )
    })?;
    let socket = socket2::Socket::new(
        socket2::Domain::for_address(address),
        socket2::Type::STREAM,
        Some(socket2::Protocol::TCP),
    )?;
    // As the standard library's bind does: a restarted server rebinds at once.
    socket.set_reuse_address(true)?;
    socket.bind(&address.into())?;
    socket.listen(i32::try_from(backlog).unwrap_or(i32::MAX))?;
    Ok(socket.into())
}

/// Serves the API on `listener` with the default [`Options`] until `shutdown` completes.
pub async fn run<F>(
    listener: std::net::TcpListener,
    store: Store,
    shutdown: F,
) -> std::io::Result<()>
where
    F: Future<Output = ()> + Send + 'static,
{
    run_with(listener, store, Options::default(), shutdown).await
}

/// Serves the API on `listener` until `shutdown` completes, then stops gracefully ([`Stage`]):
/// `/readyz` answers 503 while it still serves for [`Options::shutdown_drain`] (a load
/// balancer stops sending); then new GraphQL requests are refused with `UNAVAILABLE`,
/// WebSockets are closed with 1001 (going away), the requests in flight finish within
/// [`Options::shutdown_grace`], and the live projector stops with its last checkpoint
/// written.
pub async fn run_with<F>(
    listener: std::net::TcpListener,
    store: Store,
    options: Options,
    shutdown: F,
) -> std::io::Result<()>
where
    F: Future<Output = ()> + Send + 'static,
{
    let live = Arc::new(Live::spawn(store.clone()));
    let clock_store = store.clone();
    // Told to stop, the server drains (readiness fails), then closes (new requests refused,
    // WebSockets closed with 1001 for their clients to reconnect elsewhere).
    let (set_stage, stage) = tokio::sync::watch::channel(Stage::Serving);
    let metrics: Arc<metrics::Metrics> = Arc::default();
    let state = ApiState {
        store,
        live: Arc::clone(&live),
        hub: Arc::new(ws::Hub::new(
            Arc::clone(&metrics),
            options.live_frames_per_view,
        )),
        metrics,
        limiter: Arc::new(metrics::RateLimiter::new(options.rate_limit, options.burst)),
        auth_failures: Arc::new(metrics::AuthBackoff::new(options.auth_failures_per_minute)),
        max_mutations: options.max_mutations,
        anonymous_introspection: options.anonymous_introspection,
        persisted: Arc::default(),
        trusted_proxies: Arc::new(options.trusted_proxies.clone()),
        tokens: Arc::default(),
        league_codes: Arc::default(),
        heavy_reads: Arc::new(tokio::sync::Semaphore::new(1)),
        stage,
        clock: options.clock.clone(),
    };
    let schema = schema::build(Some(state.clone()));
    let workers = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .saturating_mul(WORKERS_PER_CORE)
        .min(MAX_WORKERS);
    let server = HttpServer::new(move || {
        App::new()
            .wrap_fn(|req, srv| {
                use actix_web::dev::Service as _;
                use tracing::Instrument as _;
                let sent = req
                    .headers()
                    .get(request_id::HEADER)
                    .and_then(|v| v.to_str().ok());
                let id = request_id::of(sent);
                let span = tracing::info_span!(
                    "request",
                    request_id = %id,
                    method = %req.method(),
                    path = %req.path(),
                );
                let response = srv.call(req);
                request_id::scope(id, async move {
                    let mut response = response.instrument(span).await?;
                    if let Ok(value) =
                        actix_web::http::header::HeaderValue::from_str(&id.to_string())
                    {
                        response.headers_mut().insert(
                            actix_web::http::header::HeaderName::from_static(request_id::HEADER),
                            value,
                        );
                    }
                    Ok(response)
                })
            })
            .app_data(web::Data::new(state.clone()))
            .app_data(web::Data::new(schema.clone()))
            .configure(http::routes)
    })
    .workers(workers)
    .disable_signals()
    .shutdown_timeout(options.shutdown_grace.as_secs().max(1))
    .listen(listener)?
    .run();
    let handle = server.handle();
    // The tournament clock runs while the server does.
    let (clock_stop, clock_stopped) = tokio::sync::oneshot::channel::<()>();
    let clock = tokio::spawn(league_app::clock::run(
        clock_store,
        Arc::clone(&live),
        options.clock.clone(),
        async {
            let _ = clock_stopped.await;
        },
    ));
    let drain = options.shutdown_drain;
    tokio::spawn(async move {
        shutdown.await;
        let _ = set_stage.send(Stage::Draining);
        tokio::time::sleep(drain).await;
        let _ = set_stage.send(Stage::Closing);
        handle.stop(true).await;
    });
    let served = server.await;
    let _ = clock_stop.send(());
    let _ = clock.await;
    // Stop the projector with a last checkpoint, whoever still holds the state (a
    // WebSocket session the workers have not dropped yet).
    if let Err(e) = live.finish().await {
        tracing::error!("stopping the live projector: {e}");
    }
    served
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests")]

    use std::net::TcpStream;
    use std::time::Duration;

    use super::*;

    /// Nobody accepts, so every connection waits in the backlog: 600 at once all connect at
    /// once (with the standard library's `bind`, the 130th waited out its SYN retries).
    #[test]
    fn a_reconnect_storm_waits_in_the_backlog() {
        let listener = listen("127.0.0.1", 0, 1_024).unwrap();
        let address = listener.local_addr().unwrap();
        let mut connected = Vec::new();
        for _ in 0..600 {
            match TcpStream::connect_timeout(&address, Duration::from_millis(500)) {
                Ok(stream) => connected.push(stream),
                Err(_) => break,
            }
        }
        assert_eq!(connected.len(), 600);
    }
}
