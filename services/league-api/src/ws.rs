//! Subscriptions over WebSocket: `graphql-transport-ws` and the older `graphql-ws`
//! (subscriptions-transport-ws), one task per connection, without actors.
//!
//! # Shared live queries
//!
//! A venue's dashboards, the screens in its bar and the phones of the people watching all
//! ask the same question of the same table. A subscription whose root fields are all views
//! of current state (`table`, `tournament`, `standings`: "the view now, then again on every
//! change") is therefore executed once per distinct (caller, query, operation, variables)
//! by a [`Hub`]: one driver task runs async-graphql's stream and serialises each response
//! once; every subscriber of that key receives those bytes, framed with its own id. A
//! subscriber joining a running query first receives the latest response (the view as of
//! the last change), then later ones in order, conflated: when several responses arrived
//! while the subscriber was still sending an earlier one, it is sent only the newest (each
//! view carries its version, so a client knows what it skipped). A busy server thus sends
//! each screen the table as it is now, at the rate the screen and the server can take,
//! rather than a queue of views already out of date. A query on many screens is also
//! paced: it sends at most [`crate::Options::live_frames_per_view`] frames a second in all
//! (one per subscriber per response), so a response that comes sooner after the last one
//! than its screens allow waits, replaced by any newer one. The driver stops when its last
//! subscriber leaves. Anything else (the auditors'
//! `eventLog`, which yields every event from a position on) runs per subscriber.
//!
//! The caller is part of the key, so a table rendered for one player is never sent to
//! another: responses are shared only between connections authenticated as the same token
//! (or both anonymous).
//!
//! # Protocol
//!
//! As async-graphql's own WebSocket handling did before, with the close codes of the
//! `graphql-transport-ws` specification: a subscription before `connection_init` is
//! answered with close code 4401, a second `connection_init` with 4429, a message that is
//! not valid JSON of the protocol with 4400, a refused token with 4403, a subscription id
//! already running with 4409, and a connection with no `connection_init` after 10 seconds
//! with 4408; a server that is stopping closes every connection with 1001 (going away), for
//! its clients to reconnect to another instance. `complete` (or `stop`) ends a subscription and is acknowledged with
//! `complete`; a subscription's stream ending sends `complete`. A connection runs at most
//! 100 subscriptions at once: one more is answered with an `error` message for its id. Every
//! 5 seconds the server pings and checks the connection's token again (closing with 1008
//! once it is revoked); a client silent for 10 seconds is disconnected.

use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use actix_web::web::Bytes;
use actix_web::{HttpRequest, HttpResponse};
use actix_ws::{AggregatedMessage, AggregatedMessageStream, CloseCode, CloseReason, Session};
use futures_util::stream::BoxStream;
use futures_util::{FutureExt as _, StreamExt as _};
use serde::Deserialize;

use crate::auth::Principal;
use crate::error::ApiError;
use crate::metrics::GaugeGuard;
use crate::schema::{ApiSchema, ApiState};

mod hub;
pub use hub::Hub;
use hub::share_key;

/// The protocols spoken, in the order they are preferred when a client offers both.
pub const PROTOCOLS: [&str; 2] = ["graphql-transport-ws", "graphql-ws"];

/// How often the server pings.
const HEARTBEAT: Duration = Duration::from_secs(5);
/// A client that sent nothing for this long (not even a pong) is disconnected; also the
/// time allowed for `connection_init`.
const CLIENT_TIMEOUT: Duration = Duration::from_secs(10);
/// Subscriptions one connection may run at once; one more is refused with an `error`
/// message for its id.
const MAX_SUBSCRIPTIONS: usize = 100;
/// Largest message accepted from a client (a subscription's query and variables).
const MAX_MESSAGE: usize = crate::http::MAX_BODY;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Protocol {
    /// `graphql-transport-ws` (the `graphql-ws` library's protocol).
    TransportWs,
    /// `graphql-ws` (Apollo's older subscriptions-transport-ws).
    Legacy,
}

impl Protocol {
    fn of(name: &str) -> Option<Protocol> {
        match name {
            "graphql-transport-ws" => Some(Protocol::TransportWs),
            "graphql-ws" => Some(Protocol::Legacy),
            _ => None,
        }
    }

    /// The first protocol the client offers that the server speaks.
    fn offered(req: &HttpRequest) -> Option<Protocol> {
        req.headers()
            .get_all(actix_web::http::header::SEC_WEBSOCKET_PROTOCOL)
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .find_map(|p| Protocol::of(p.trim()))
    }

    /// The type of a message carrying a result.
    fn next(self) -> &'static str {
        match self {
            Protocol::TransportWs => "next",
            Protocol::Legacy => "data",
        }
    }
}

/// A message from the client: the fields both protocols use.
#[derive(Deserialize)]
struct ClientMessage {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    payload: Option<serde_json::Value>,
}

/// Upgrades the request and serves the connection on this worker until it closes. `principal`
/// is who the `Authorization` header (`token`) named (`connection_init` may name another).
pub(crate) fn start(
    req: &HttpRequest,
    payload: actix_web::web::Payload,
    schema: ApiSchema,
    state: ApiState,
    principal: Principal,
    token: Option<String>,
) -> actix_web::Result<HttpResponse> {
    let Some(protocol) = Protocol::offered(req) else {
        return Err(actix_web::error::ErrorBadRequest(
            "no supported Sec-WebSocket-Protocol: offer graphql-transport-ws or graphql-ws",
        ));
    };
    let (response, session, messages) = actix_ws::handle_with_protocols(req, payload, &PROTOCOLS)?;
    let messages = messages
        .max_frame_size(MAX_MESSAGE)
        .aggregate_continuations()
        .max_continuation_size(MAX_MESSAGE);
    let addr = crate::http::client_addr(req, &state.trusted_proxies);
    let connection = Connection {
        protocol,
        schema,
        state,
        principal,
        token,
        addr,
        initialised: false,
        subscriptions: HashMap::new(),
    };
    actix_web::rt::spawn(connection.serve(session, messages));
    Ok(response)
}

/// One running subscription of a connection.
struct Running {
    /// `"id":"..."` as JSON, ready to frame each response.
    id_json: String,
    /// Each response, serialised.
    responses: BoxStream<'static, Bytes>,
    /// Counts the subscription while it runs.
    _open: GaugeGuard,
}

/// What woke the connection.
enum Woken {
    Client(Option<Result<AggregatedMessage, actix_ws::ProtocolError>>),
    /// A subscription's next response, or `None` when it ended.
    Response(String, Option<Bytes>),
    Tick,
    /// The server is stopping.
    Stopping,
}

/// How a connection ends.
struct Close(CloseCode, String);

impl Close {
    fn code(code: u16, why: impl Into<String>) -> Close {
        Close(CloseCode::Other(code), why.into())
    }
}

struct Connection {
    protocol: Protocol,
    schema: ApiSchema,
    state: ApiState,
    principal: Principal,
    /// The token the principal was checked with, checked again at every heartbeat: a
    /// revoked token's connection is closed (1008, policy violation).
    token: Option<String>,
    /// The client's address, as the HTTP requests' (a token refused in `connection_init`
    /// counts against its failed-authentication allowance).
    addr: String,
    initialised: bool,
    subscriptions: HashMap<String, Running>,
}

impl Connection {
    async fn serve(mut self, mut session: Session, mut messages: AggregatedMessageStream) {
        let opened = Instant::now();
        let mut heard = Instant::now();
        let mut heartbeat =
            tokio::time::interval_at(tokio::time::Instant::now() + HEARTBEAT, HEARTBEAT);
        let mut stage = self.state.stage.clone();
        let close = loop {
            let woken = {
                let subscriptions = &mut self.subscriptions;
                let next = futures_util::future::poll_fn(|cx| next_response(subscriptions, cx));
                tokio::select! {
                    message = messages.next() => Woken::Client(message),
                    (id, response) = next => Woken::Response(id, response),
                    _ = heartbeat.tick() => Woken::Tick,
                    _ = stage.wait_for(|s| *s == crate::Stage::Closing) => Woken::Stopping,
                }
            };
            let sent = match woken {
                Woken::Stopping => {
                    break Some(Close(
                        CloseCode::Away,
                        "the server is shutting down: reconnect".to_owned(),
                    ));
                }
                Woken::Client(None) => break None,
                Woken::Client(Some(Err(e))) => {
                    break Some(Close(CloseCode::Protocol, e.to_string()));
                }
                Woken::Client(Some(Ok(message))) => {
                    heard = Instant::now();
                    match message {
                        AggregatedMessage::Text(text) => {
                            match self.on_message(text.as_bytes()).await {
                                Ok(replies) => send_all(&mut session, replies).await,
                                Err(close) => break Some(close),
                            }
                        }
                        AggregatedMessage::Binary(_) => {
                            break Some(Close::code(4400, "binary messages are not GraphQL"));
                        }
                        AggregatedMessage::Ping(bytes) => session.pong(&bytes).await.is_ok(),
                        AggregatedMessage::Pong(_) => true,
                        AggregatedMessage::Close(_) => break None,
                    }
                }
                Woken::Response(id, Some(bytes)) => match self.subscriptions.get(&id) {
                    Some(running) => {
                        let frame = frame(&running.id_json, self.protocol.next(), &bytes);
                        session.text(frame).await.is_ok()
                    }
                    None => true,
                },
                Woken::Response(id, None) => match self.subscriptions.remove(&id) {
                    Some(running) => session.text(complete(&running.id_json)).await.is_ok(),
                    None => true,
                },
                Woken::Tick => {
                    if !self.initialised && opened.elapsed() >= CLIENT_TIMEOUT {
                        break Some(Close::code(4408, "Connection initialisation timeout"));
                    }
                    if heard.elapsed() > CLIENT_TIMEOUT {
                        break None;
                    }
                    if let Some(token) = &self.token
                        && let Err(e) = self
                            .state
                            .tokens
                            .authenticate(&self.state.store, Some(token))
                            .await
                        && e.code() == crate::error::code::UNAUTHENTICATED
                    {
                        break Some(Close(
                            CloseCode::Policy,
                            "the token was revoked or has expired".to_owned(),
                        ));
                    }
                    session.ping(b"").await.is_ok()
                }
            };
            if !sent {
                // The client went away.
                return;
            }
        };
        self.subscriptions.clear();
        let reason = close.map(|Close(code, description)| CloseReason {
            code,
            description: Some(description),
        });
        let _ = session.close(reason).await;
    }

    /// Handles one text message: the replies to send, or why the connection closes.
    async fn on_message(&mut self, text: &[u8]) -> Result<Vec<String>, Close> {
        let message: ClientMessage = serde_json::from_slice(text)
            .map_err(|e| Close::code(4400, format!("invalid message: {e}")))?;
        match message.kind.as_str() {
            "connection_init" => {
                if self.initialised {
                    return match self.protocol {
                        Protocol::TransportWs => {
                            Err(Close::code(4429, "Too many initialisation requests"))
                        }
                        Protocol::Legacy => {
                            Ok(vec![connection_error("Too many initialisation requests")])
                        }
                    };
                }
                let token = message.payload.as_ref().and_then(init_token);
                if let Some(token) = token {
                    let now = Instant::now();
                    if let Some(wait) = self.state.auth_failures.blocked(&self.addr, now) {
                        return Err(Close::code(
                            4403,
                            format!(
                                "Forbidden: too many failed authentications from this address; \
                                 retry in {} s",
                                wait.as_secs().max(1)
                            ),
                        ));
                    }
                    match self
                        .state
                        .tokens
                        .authenticate(&self.state.store, Some(&token))
                        .await
                    {
                        Ok(principal) => {
                            self.principal = principal;
                            self.token = Some(token);
                        }
                        Err(e) => {
                            if e.code() == crate::error::code::UNAUTHENTICATED {
                                let _ = self.state.auth_failures.check(&self.addr, now);
                            }
                            return Err(Close::code(4403, format!("Forbidden: {}", message_of(e))));
                        }
                    }
                }
                self.initialised = true;
                Ok(vec![r#"{"type":"connection_ack"}"#.to_owned()])
            }
            "subscribe" | "start" => {
                if !self.initialised {
                    return Err(Close::code(4401, "Unauthorized"));
                }
                let id = message
                    .id
                    .ok_or_else(|| Close::code(4400, "a subscription needs an id"))?;
                // The operation's own request id: in its errors, its span, and the events
                // a mutation sent over the socket appends.
                let op = crate::request_id::RequestId::new_v7();
                let refuse = |error| crate::request_id::sync_scope(op, || refused(&id, error));
                if self.subscriptions.contains_key(&id) {
                    return Err(Close::code(
                        4409,
                        format!("Subscriber for {id} already exists"),
                    ));
                }
                if self.subscriptions.len() >= MAX_SUBSCRIPTIONS {
                    return Ok(refuse(ApiError::bad_input(format!(
                        "at most {MAX_SUBSCRIPTIONS} subscriptions at once on one connection"
                    ))));
                }
                let mut request: async_graphql::Request =
                    serde_json::from_value(message.payload.unwrap_or_default())
                        .map_err(|e| Close::code(4400, format!("invalid subscription: {e}")))?;
                // As over HTTP: the document's bounds, and each operation, and each mutation
                // in it, is a request to the rate limit; a document holds at most so many
                // mutations.
                let introspection =
                    self.state.anonymous_introspection || self.principal.token_id().is_some();
                let mutations = match crate::document::admit(
                    &mut request,
                    introspection,
                    &self.state.persisted,
                ) {
                    Ok(admitted) => admitted.mutations,
                    Err(refusal) => return Ok(refuse(refusal)),
                };
                let key = match self.principal.token_id() {
                    Some(token) => token.to_owned(),
                    None => format!("addr:{}", self.addr),
                };
                if mutations > self.state.max_mutations {
                    let _ = self.state.limiter.take(&key, 1, Instant::now());
                    return Ok(refuse(ApiError::bad_input(format!(
                        "a document may hold at most {} mutations; this one holds {mutations}",
                        self.state.max_mutations
                    ))));
                }
                if let Err(wait) = self
                    .state
                    .limiter
                    .take(&key, mutations.max(1), Instant::now())
                {
                    return Ok(refuse(ApiError::client(
                        crate::error::code::RATE_LIMITED,
                        format!(
                            "more than {} requests a second (each mutation counts); retry in {} ms",
                            self.state.limiter.per_second(),
                            wait.as_millis()
                        ),
                    )));
                }
                let responses = self.responses(request, op);
                let id_json = serde_json::to_string(&id).unwrap_or_default();
                self.subscriptions.insert(
                    id,
                    Running {
                        id_json,
                        responses,
                        _open: self.state.metrics.subscriber(),
                    },
                );
                Ok(Vec::new())
            }
            "complete" | "stop" => {
                let replies = message
                    .id
                    .and_then(|id| self.subscriptions.remove(&id))
                    .map(|running| complete(&running.id_json));
                Ok(replies.into_iter().collect())
            }
            "ping" => Ok(vec![r#"{"type":"pong"}"#.to_owned()]),
            "pong" => Ok(Vec::new()),
            "connection_terminate" => Err(Close(CloseCode::Normal, "terminated".to_owned())),
            other => Err(Close::code(4400, format!("unknown message type {other:?}"))),
        }
    }

    /// The serialised responses of an operation: shared through the hub when it may be
    /// (a view rendered once for all its subscribers, whose errors then carry no one
    /// operation's id); otherwise run as the operation `op`.
    fn responses(
        &self,
        request: async_graphql::Request,
        op: crate::request_id::RequestId,
    ) -> BoxStream<'static, Bytes> {
        match share_key(&self.principal, &request) {
            Some(key) => self.state.hub.join(key, || {
                execute(&self.schema, request.data(self.principal.clone()))
            }),
            None => Scoped {
                id: op,
                span: tracing::info_span!("operation", request_id = %op),
                inner: execute(&self.schema, request.data(self.principal.clone())),
            }
            .boxed(),
        }
    }
}

/// An operation's responses, each worked out as the operation (its request id current,
/// in its span).
struct Scoped {
    id: crate::request_id::RequestId,
    span: tracing::Span,
    inner: BoxStream<'static, Bytes>,
}

impl futures_util::Stream for Scoped {
    type Item = Bytes;

    fn poll_next(mut self: std::pin::Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Bytes>> {
        let this = &mut *self;
        let _entered = this.span.enter();
        crate::request_id::sync_scope(this.id, || this.inner.poll_next_unpin(cx))
    }
}

async fn send_all(session: &mut Session, replies: Vec<String>) -> bool {
    for reply in replies {
        if session.text(reply).await.is_err() {
            return false;
        }
    }
    true
}

/// The next response of any running subscription, with its id.
fn next_response(
    subscriptions: &mut HashMap<String, Running>,
    cx: &mut Context<'_>,
) -> Poll<(String, Option<Bytes>)> {
    for (id, running) in subscriptions.iter_mut() {
        if let Poll::Ready(response) = running.responses.poll_next_unpin(cx) {
            return Poll::Ready((id.clone(), response));
        }
    }
    Poll::Pending
}

/// The `error` message refusing the operation `id`.
fn refused(id: &str, error: ApiError) -> Vec<String> {
    let id_json = serde_json::to_string(id).unwrap_or_default();
    let error = crate::http::error_body(error);
    let errors = serde_json::to_string(&error.errors).unwrap_or_default();
    vec![frame(&id_json, "error", errors.as_bytes())]
}

/// `{"type":<kind>,"id":<id>,"payload":<payload>}` (the id already JSON).
fn frame(id_json: &str, kind: &str, payload: &[u8]) -> String {
    let payload = std::str::from_utf8(payload).unwrap_or("null");
    let mut out = String::with_capacity(payload.len() + id_json.len() + 32);
    out.push_str(r#"{"type":""#);
    out.push_str(kind);
    out.push_str(r#"","id":"#);
    out.push_str(id_json);
    out.push_str(r#","payload":"#);
    out.push_str(payload);
    out.push('}');
    out
}

fn complete(id_json: &str) -> String {
    format!(r#"{{"type":"complete","id":{id_json}}}"#)
}

fn connection_error(message: &str) -> String {
    serde_json::json!({"type": "connection_error", "payload": {"message": message}}).to_string()
}

/// What a refused token's error says, without internal detail.
fn message_of(e: ApiError) -> String {
    match e {
        ApiError::Client { message, .. } => message,
        ApiError::Internal(_) => "the token could not be checked".to_owned(),
    }
}

/// The token of a `connection_init` payload: `{"Authorization": "Bearer ..."}`,
/// `{"authorization": ...}` or `{"token": ...}`.
fn init_token(payload: &serde_json::Value) -> Option<String> {
    ["Authorization", "authorization", "token"]
        .iter()
        .find_map(|k| payload.get(k).and_then(serde_json::Value::as_str))
        .map(str::to_owned)
}

/// Runs a subscription, serialising each response. A panic in a resolver ends the stream
/// with an internal error (a generic message with a correlation id; the cause is logged).
fn execute(schema: &ApiSchema, request: async_graphql::Request) -> BoxStream<'static, Bytes> {
    let responses = schema.execute_stream(request);
    futures_util::stream::unfold(Some(responses), |responses| async move {
        let mut responses = responses?;
        match AssertUnwindSafe(responses.next()).catch_unwind().await {
            Ok(Some(mut response)) => {
                response.errors.iter_mut().for_each(crate::request_id::mark);
                Some((serialise(&response), Some(responses)))
            }
            Ok(None) => None,
            Err(panic) => {
                let error =
                    ApiError::internal(format!("panic: {}", crate::http::panic_cause(&panic)));
                Some((serialise(&crate::http::error_body(error)), None))
            }
        }
    })
    .boxed()
}

fn serialise(response: &async_graphql::Response) -> Bytes {
    match serde_json::to_vec(response) {
        Ok(bytes) => Bytes::from(bytes),
        Err(e) => {
            let body = crate::http::error_body(ApiError::internal(format!("serialising: {e}")));
            Bytes::from(serde_json::to_vec(&body).unwrap_or_default())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_carry_the_id_and_the_payload_as_they_are() {
        let id = serde_json::to_string("a\"b").unwrap();
        let framed = frame(&id, "next", br#"{"data":{"x":1}}"#);
        let parsed: serde_json::Value = serde_json::from_str(&framed).unwrap();
        assert_eq!(
            parsed,
            serde_json::json!({"type": "next", "id": "a\"b", "payload": {"data": {"x": 1}}})
        );
        let done: serde_json::Value = serde_json::from_str(&complete(&id)).unwrap();
        assert_eq!(done, serde_json::json!({"type": "complete", "id": "a\"b"}));
    }
}
