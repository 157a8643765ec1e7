//! The HTTP surface: health, readiness, GraphiQL, GraphQL over POST, subscriptions over
//! WebSocket (`graphql-transport-ws`, and the older `graphql-ws`).

use std::panic::AssertUnwindSafe;

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, guard, web};
use async_graphql::parser::types::OperationType;
use futures_util::FutureExt as _;

use crate::auth::Principal;
use crate::consistency::{MIN_POSITION, MIN_POSITION_HEADER, POSITION_HEADER};
use crate::error::{ApiError, correlation_id};
use crate::metrics::Kind;
use crate::schema::{ApiSchema, ApiState};

/// Largest request body accepted, in bytes.
pub const MAX_BODY: usize = 256 * 1024;

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.app_data(web::PayloadConfig::new(MAX_BODY))
        .route("/healthz", web::get().to(healthz))
        .route("/readyz", web::get().to(readyz))
        .route("/metrics", web::get().to(metrics))
        .route(
            "/graphql",
            web::get()
                .guard(guard::Header("upgrade", "websocket"))
                .to(subscriptions),
        )
        .route("/graphql/ws", web::get().to(subscriptions))
        .route("/graphql", web::get().to(graphql_get))
        .route("/graphiql/{file}", web::get().to(crate::graphiql::asset))
        .route("/graphql", web::post().to(graphql))
        .configure(crate::dashboard::routes);
}

async fn healthz() -> HttpResponse {
    HttpResponse::Ok().content_type("text/plain").body("ok")
}

/// Ready when the database answers and the live projector folds the whole log (as it stood
/// when asked) within [`READY_WITHIN`]; not ready once the server is stopping.
async fn readyz(state: web::Data<ApiState>) -> HttpResponse {
    let unready = |reason: String| {
        HttpResponse::ServiceUnavailable()
            .json(serde_json::json!({"ready": false, "reason": reason}))
    };
    if *state.stage.borrow() != crate::Stage::Serving {
        return unready("shutting down".to_owned());
    }
    if let Err(e) = state.store.ping().await {
        let id = correlation_id();
        tracing::warn!(correlation_id = %id, "readyz: database unreachable: {e}");
        return unready(format!("database unreachable (correlation id {id})"));
    }
    let last = match state.store.last_position().await {
        Ok(last) => last,
        Err(e) => {
            let id = correlation_id();
            tracing::warn!(correlation_id = %id, "readyz: {e}");
            return unready(format!("database error (correlation id {id})"));
        }
    };
    // Caught up with the log as it stood a moment ago: instances on one database trail each
    // other by milliseconds, which is no reason to take one out of its balancer.
    let Some(last) = last else {
        return HttpResponse::Ok().json(serde_json::json!({"ready": true}));
    };
    match state
        .live
        .catch_up_to(&state.store, last, READY_WITHIN)
        .await
    {
        Ok(()) => HttpResponse::Ok()
            .json(serde_json::json!({"ready": true, "position": state.live.folded()})),
        Err(_) => unready(format!(
            "projections at {:?}, the log at {last}",
            state.live.folded()
        )),
    }
}

/// How far behind the log an instance may be and still answer ready: it must fold the log
/// as it stood when asked within this time.
const READY_WITHIN: std::time::Duration = std::time::Duration::from_secs(2);

/// Prometheus text: requests, latencies, commands and appended events, subscribers, the
/// rate limit's refusals, and the projection lag.
async fn metrics(state: web::Data<ApiState>) -> HttpResponse {
    let last = match state.store.last_position().await {
        Ok(last) => last,
        Err(e) => {
            let id = correlation_id();
            tracing::warn!(correlation_id = %id, "metrics: reading the log's position: {e}");
            None
        }
    };
    let folded = *state.live.position.borrow();
    HttpResponse::Ok()
        .content_type("text/plain; version=0.0.4; charset=utf-8")
        .body(state.metrics.render(last, folded))
}

/// The client's address: the peer's, or, when the peer is a proxy the operator trusts,
/// the last address in `X-Forwarded-For` that is not itself a trusted proxy.
pub(crate) fn client_addr(req: &HttpRequest, trusted: &[std::net::IpAddr]) -> String {
    let peer = req.peer_addr().map(|a| a.ip());
    if let Some(peer) = peer
        && trusted.contains(&peer)
    {
        let forwarded = req
            .headers()
            .get_all("x-forwarded-for")
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .filter_map(|a| a.trim().parse::<std::net::IpAddr>().ok())
            .collect::<Vec<_>>();
        if let Some(client) = forwarded.iter().rev().find(|a| !trusted.contains(a)) {
            return client.to_string();
        }
    }
    peer.map(|a| a.to_string()).unwrap_or_default()
}

/// The rate limit's key for a caller: their token, else their address.
fn limit_key(state: &ApiState, req: &HttpRequest, principal: &Principal) -> String {
    match principal.token_id() {
        Some(token) => token.to_owned(),
        None => format!("addr:{}", client_addr(req, &state.trusted_proxies)),
    }
}

/// `429 Too Many Requests` when the caller's bucket holds fewer than `requests`.
fn over_limit(
    state: &ApiState,
    req: &HttpRequest,
    principal: &Principal,
    requests: u32,
) -> Option<HttpResponse> {
    let wait = state
        .limiter
        .take(
            &limit_key(state, req, principal),
            requests,
            std::time::Instant::now(),
        )
        .err()?;
    Some(too_many(
        state,
        wait,
        format!(
            "more than {} requests a second (each mutation counts); retry in {} ms",
            state.limiter.per_second(),
            wait.as_millis()
        ),
    ))
}

/// Authenticates the request's `Authorization` header. Failed authentications are counted
/// per client address; once an address has used its allowance, a request from it with a
/// token answers 429 for a wait that doubles with each further failure
/// ([`crate::metrics::AuthBackoff`]), before the token is looked up, unless the token was
/// already checked (PostgreSQL's cache of checked tokens).
async fn authenticate(state: &ApiState, req: &HttpRequest) -> Result<Principal, HttpResponse> {
    let addr = client_addr(req, &state.trusted_proxies);
    let now = std::time::Instant::now();
    let presented = req
        .headers()
        .contains_key(actix_web::http::header::AUTHORIZATION);
    if presented && let Some(wait) = state.auth_failures.blocked(&addr, now) {
        // A token already checked (and not revoked since) is served: one misbehaving device
        // does not lock out the others behind the same address.
        if let Ok(header) = authorization(req)
            && let Some(principal) = state.tokens.cached(&state.store, header.as_deref())
        {
            return Ok(principal);
        }
        return Err(too_many(
            state,
            wait,
            format!(
                "too many failed authentications from this address; retry in {} s",
                wait.as_secs().max(1)
            ),
        ));
    }
    let outcome = match authorization(req) {
        Ok(header) => {
            state
                .tokens
                .authenticate(&state.store, header.as_deref())
                .await
        }
        Err(e) => Err(e),
    };
    outcome.map_err(|e| {
        if e.code() == crate::error::code::UNAUTHENTICATED {
            let _ = state.auth_failures.check(&addr, now);
        }
        error_response(StatusCode::UNAUTHORIZED, e)
    })
}

/// `429` with `Retry-After`.
fn too_many(state: &ApiState, wait: std::time::Duration, message: String) -> HttpResponse {
    state.metrics.rate_limited();
    let mut response = error_response(
        StatusCode::TOO_MANY_REQUESTS,
        ApiError::client(crate::error::code::RATE_LIMITED, message),
    );
    let seconds = wait.as_millis().div_ceil(1000).max(1).to_string();
    if let Ok(value) = actix_web::http::header::HeaderValue::from_str(&seconds) {
        response
            .headers_mut()
            .insert(actix_web::http::header::RETRY_AFTER, value);
    }
    response
}

/// A response carrying only `e`.
pub(crate) fn error_body(e: ApiError) -> async_graphql::Response {
    let error = async_graphql::Error::from(e);
    let mut error = error.into_server_error(async_graphql::Pos::default());
    // Not about a place in the query.
    error.locations.clear();
    crate::request_id::mark(&mut error);
    async_graphql::Response::from_errors(vec![error])
}

fn error_response(status: StatusCode, e: ApiError) -> HttpResponse {
    HttpResponse::build(status).json(error_body(e))
}

/// What a caught panic said.
pub(crate) fn panic_cause(panic: &Box<dyn std::any::Any + Send>) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".to_owned())
}

/// The `Authorization` header's value; a value that is not visible ASCII is refused, not
/// taken for no token.
fn authorization(req: &HttpRequest) -> Result<Option<String>, ApiError> {
    let Some(value) = req.headers().get(actix_web::http::header::AUTHORIZATION) else {
        return Ok(None);
    };
    value.to_str().map(|v| Some(v.to_owned())).map_err(|_| {
        ApiError::client(
            crate::error::code::UNAUTHENTICATED,
            "the Authorization header is not a bearer token (visible ASCII)",
        )
    })
}

/// `POST /graphql`: a GraphQL request as JSON.
async fn graphql(
    req: HttpRequest,
    body: web::Bytes,
    schema: web::Data<ApiSchema>,
    state: web::Data<ApiState>,
) -> HttpResponse {
    let request = serde_json::from_slice::<async_graphql::Request>(&body)
        .map_err(|e| format!("not a GraphQL request: {e}"));
    let answer = Answer::of(&req);
    answer.dress(execute(&req, request, Method::Post, &schema, &state).await)
}

/// `GET /graphql`: GraphiQL for a browser; for any other client a query in the URL
/// (`query`, `operationName`, `variables` and `extensions` as JSON), as GraphQL over HTTP
/// describes it. A mutation is refused with 405: it changes state, so it goes by POST.
async fn graphql_get(
    req: HttpRequest,
    schema: web::Data<ApiSchema>,
    state: web::Data<ApiState>,
) -> HttpResponse {
    let accept = req
        .headers()
        .get(actix_web::http::header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    // A persisted query by GET names its hash in `extensions` and may send no `query`.
    let has_query = req.query_string().split('&').any(|pair| {
        ["query", "extensions"].iter().any(|name| {
            pair.strip_prefix(name)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('='))
        })
    });
    if accept.contains("text/html") || (!has_query && accept.is_empty()) {
        return crate::graphiql::page().await;
    }
    let request = if has_query {
        from_query_string(req.query_string())
    } else {
        Err("a GET request carries its document in the `query` parameter".to_owned())
    };
    let answer = Answer::of(&req);
    answer.dress(execute(&req, request, Method::Get, &schema, &state).await)
}

/// A GraphQL request from a URL's query string: `query`, `operationName`, and `variables`
/// and `extensions` as JSON (async-graphql's own reader looks for `operation_name`).
fn from_query_string(query_string: &str) -> Result<async_graphql::Request, String> {
    #[derive(serde::Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Params {
        #[serde(default)]
        query: String,
        operation_name: Option<String>,
        variables: Option<String>,
        extensions: Option<String>,
    }
    let params = web::Query::<Params>::from_query(query_string)
        .map_err(|e| format!("not a GraphQL request: {e}"))?
        .into_inner();
    let mut request = async_graphql::Request::new(params.query);
    request.operation_name = params.operation_name;
    if let Some(variables) = params.variables {
        request.variables = serde_json::from_str(&variables)
            .map_err(|e| format!("`variables` is not a JSON object: {e}"))?;
    }
    if let Some(extensions) = params.extensions {
        request.extensions = serde_json::from_str(&extensions)
            .map_err(|e| format!("`extensions` is not a JSON object: {e}"))?;
    }
    Ok(request)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Method {
    Get,
    Post,
}

/// The media type a client takes its answer in. `application/graphql-response+json` when
/// its `Accept` names it: then a request the schema refuses before running anything (a
/// document that does not parse or validate) answers 4xx. Otherwise `application/json`, as
/// older clients expect: every GraphQL answer is 200 and its errors say what went wrong.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Answer {
    GraphqlResponse,
    Json,
}

const GRAPHQL_RESPONSE: &str = "application/graphql-response+json; charset=utf-8";

impl Answer {
    fn of(req: &HttpRequest) -> Answer {
        let accepted = req
            .headers()
            .get_all(actix_web::http::header::ACCEPT)
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .any(|media| {
                let mut parts = media.split(';');
                let name = parts.next().unwrap_or("").trim();
                // `q=0` declines it.
                let declined = parts.any(|p| {
                    p.trim()
                        .strip_prefix("q=")
                        .and_then(|q| q.trim().parse::<f32>().ok())
                        .is_some_and(|q| q <= 0.0)
                });
                name.eq_ignore_ascii_case("application/graphql-response+json") && !declined
            });
        if accepted {
            Answer::GraphqlResponse
        } else {
            Answer::Json
        }
    }

    /// `response` in this media type.
    fn dress(self, mut response: HttpResponse) -> HttpResponse {
        if self == Answer::GraphqlResponse {
            let json = response
                .headers()
                .get(actix_web::http::header::CONTENT_TYPE)
                .is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
            if json {
                response.headers_mut().insert(
                    actix_web::http::header::CONTENT_TYPE,
                    actix_web::http::header::HeaderValue::from_static(GRAPHQL_RESPONSE),
                );
            }
        }
        response
    }

    /// The status of a GraphQL answer: 200, or for `graphql-response+json` 400 when the
    /// request was refused before it ran (no data, and no error at a field's path).
    fn status(self, response: &async_graphql::Response) -> StatusCode {
        let refused = !response.errors.is_empty()
            && response.data == async_graphql::Value::Null
            && response.errors.iter().all(|e| e.path.is_empty());
        if self == Answer::GraphqlResponse && refused {
            StatusCode::BAD_REQUEST
        } else {
            StatusCode::OK
        }
    }
}

/// A GraphQL request, over either method: authenticated, admitted ([`crate::document`]),
/// rate limited, then run by the schema.
async fn execute(
    req: &HttpRequest,
    request: Result<async_graphql::Request, String>,
    method: Method,
    schema: &ApiSchema,
    state: &ApiState,
) -> HttpResponse {
    let started = std::time::Instant::now();
    if *state.stage.borrow() == crate::Stage::Closing {
        let mut refused = error_response(
            StatusCode::SERVICE_UNAVAILABLE,
            ApiError::client(
                crate::error::code::UNAVAILABLE,
                "this instance is shutting down: send the request again",
            ),
        );
        refused.headers_mut().insert(
            actix_web::http::header::CONNECTION,
            actix_web::http::header::HeaderValue::from_static("close"),
        );
        return refused;
    }
    let principal = match authenticate(state, req).await {
        Ok(p) => p,
        Err(refused) => return refused,
    };
    let mut request = match request {
        Ok(r) => r,
        Err(why) => {
            // Counted against the caller all the same.
            if let Some(refused) = over_limit(state, req, &principal, 1) {
                return refused;
            }
            return error_response(StatusCode::BAD_REQUEST, ApiError::bad_input(why));
        }
    };
    let introspection = state.anonymous_introspection || principal.token_id().is_some();
    let admitted = match crate::document::admit(&mut request, introspection, &state.persisted) {
        Ok(admitted) => admitted,
        Err(refused) => {
            if let Some(limited) = over_limit(state, req, &principal, 1) {
                return limited;
            }
            let status = match refused.code() {
                crate::error::code::FORBIDDEN => StatusCode::FORBIDDEN,
                // The persisted-query protocol's question: the client sends the text.
                crate::error::code::PERSISTED_QUERY_NOT_FOUND => StatusCode::OK,
                _ => StatusCode::BAD_REQUEST,
            };
            return error_response(status, refused);
        }
    };
    let mutations = admitted.mutations;
    if mutations > state.max_mutations {
        let _ = over_limit(state, req, &principal, 1);
        return error_response(
            StatusCode::BAD_REQUEST,
            ApiError::bad_input(format!(
                "a document may hold at most {} mutations; this one holds {mutations}",
                state.max_mutations
            )),
        );
    }
    if let Some(refused) = over_limit(state, req, &principal, mutations.max(1)) {
        return refused;
    }
    if method == Method::Get
        && let Some(ty @ (OperationType::Mutation | OperationType::Subscription)) =
            admitted.operation
    {
        let what = if ty == OperationType::Mutation {
            "a mutation changes state: send it by POST"
        } else {
            "a subscription runs over WebSocket (`/graphql/ws`)"
        };
        let mut refused = error_response(
            StatusCode::METHOD_NOT_ALLOWED,
            ApiError::client(crate::error::code::METHOD_NOT_ALLOWED, what),
        );
        refused.headers_mut().insert(
            actix_web::http::header::ALLOW,
            actix_web::http::header::HeaderValue::from_static("POST"),
        );
        return refused;
    }
    let kind = if admitted.operation == Some(OperationType::Mutation) {
        Kind::Mutation
    } else {
        Kind::Query
    };
    let answer = Answer::of(req);
    // The least position the answer must reflect, as the header gives it (the request's
    // own `extensions` take precedence): `crate::consistency` waits for it.
    if let Some(value) = req.headers().get(MIN_POSITION_HEADER)
        && !request.extensions.contains_key(MIN_POSITION)
    {
        let value = value.to_str().unwrap_or_default().trim().to_owned();
        request
            .extensions
            .insert(MIN_POSITION.to_owned(), async_graphql::Value::String(value));
    }
    let request = request.data(principal);
    match caught(schema.execute(request)).await {
        Ok(mut response) => {
            response.errors.iter_mut().for_each(crate::request_id::mark);
            state
                .metrics
                .request(kind, response.errors.is_empty(), started.elapsed());
            // Nothing ran because this instance is behind: a retry (on any instance) is safe.
            let behind = response.data == async_graphql::Value::Null
                && !response.errors.is_empty()
                && response.errors.iter().all(|e| {
                    e.extensions.as_ref().and_then(|x| x.get("code"))
                        == Some(&async_graphql::Value::from(
                            crate::error::code::NOT_CAUGHT_UP,
                        ))
                });
            let mut answered = if behind {
                let mut unavailable = HttpResponse::ServiceUnavailable();
                unavailable.insert_header((actix_web::http::header::RETRY_AFTER, "1"));
                unavailable
            } else {
                HttpResponse::build(answer.status(&response))
            };
            // How far this instance had folded the log: at least every position this answer
            // reflects (a mutation waits for its own), for the client to send back.
            if let Some(position) = state.live.folded() {
                answered.insert_header((POSITION_HEADER, position.to_string()));
            }
            answered.json(response)
        }
        Err(internal) => {
            state.metrics.request(kind, false, started.elapsed());
            error_response(StatusCode::INTERNAL_SERVER_ERROR, internal)
        }
    }
}

/// Runs a request's work so that no panic reaches a client: a panic becomes an internal
/// error, whose cause is logged under a correlation id and whose answer carries only that
/// id (`INTERNAL`). The worker goes on serving.
pub(crate) async fn caught<T>(work: impl std::future::Future<Output = T>) -> Result<T, ApiError> {
    AssertUnwindSafe(work)
        .catch_unwind()
        .await
        .map_err(|panic| ApiError::internal(format!("panic: {}", panic_cause(&panic))))
}

async fn subscriptions(
    req: HttpRequest,
    payload: web::Payload,
    schema: web::Data<ApiSchema>,
    state: web::Data<ApiState>,
) -> actix_web::Result<HttpResponse> {
    let started = std::time::Instant::now();
    // A stopping server takes no new WebSocket: the client connects again, elsewhere.
    if *state.stage.borrow() != crate::Stage::Serving {
        let mut refused = error_response(
            StatusCode::SERVICE_UNAVAILABLE,
            ApiError::client(
                crate::error::code::UNAVAILABLE,
                "this instance is shutting down: connect again",
            ),
        );
        refused.headers_mut().insert(
            actix_web::http::header::RETRY_AFTER,
            actix_web::http::header::HeaderValue::from_static("1"),
        );
        return Ok(refused);
    }
    let principal = match authenticate(&state, &req).await {
        Ok(p) => p,
        Err(refused) => {
            state
                .metrics
                .request(Kind::Subscription, false, started.elapsed());
            return Ok(refused);
        }
    };
    if let Some(refused) = over_limit(&state, &req, &principal, 1) {
        return Ok(refused);
    }
    state
        .metrics
        .request(Kind::Subscription, true, started.elapsed());
    let token = authorization(&req).ok().flatten();
    crate::ws::start(
        &req,
        payload,
        ApiSchema::clone(&schema),
        ApiState::clone(&state),
        principal,
        token,
    )
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

    use super::*;

    #[tokio::test]
    async fn a_panic_answers_internal_with_a_correlation_id_and_the_next_request_is_served() {
        let panicking = async {
            if std::hint::black_box(true) {
                panic!("a secret cause");
            }
            1
        };
        let internal = caught(panicking).await.unwrap_err();
        assert_eq!(internal.code(), crate::error::code::INTERNAL);
        let body = serde_json::to_value(error_body(internal)).unwrap();
        let error = &body["errors"][0];
        assert_eq!(error["extensions"]["code"], "INTERNAL", "{body:#}");
        let message = error["message"].as_str().unwrap();
        assert!(message.contains("correlation id"), "{message}");
        assert!(
            !message.contains("secret"),
            "the cause stays in the log: {message}"
        );
        assert!(error["extensions"]["correlationId"].is_string(), "{body:#}");
        // The same worker answers the next request.
        assert_eq!(caught(async { 2 }).await.unwrap(), 2);
    }
}
