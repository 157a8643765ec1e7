//! The HTTP surface: health, readiness, GraphiQL, GraphQL over POST, subscriptions over
//! WebSocket (`graphql-transport-ws`, and the older `graphql-ws`).

use std::panic::AssertUnwindSafe;

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, guard, web};
use futures_util::FutureExt as _;

use crate::auth::Principal;
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
        .route("/graphql", web::get().to(crate::graphiql::page))
        .route("/graphiql/{file}", web::get().to(crate::graphiql::asset))
        .route("/graphql", web::post().to(graphql));
}

async fn healthz() -> HttpResponse {
    HttpResponse::Ok().content_type("text/plain").body("ok")
}

/// Ready when the database answers and the live projector has folded the whole log.
async fn readyz(state: web::Data<ApiState>) -> HttpResponse {
    let unready = |reason: String| {
        HttpResponse::ServiceUnavailable()
            .json(serde_json::json!({"ready": false, "reason": reason}))
    };
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
    let folded = *state.live.position.borrow();
    match (last, folded) {
        (None, _) => HttpResponse::Ok().json(serde_json::json!({"ready": true})),
        (Some(last), Some(folded)) if folded >= last => {
            HttpResponse::Ok().json(serde_json::json!({"ready": true, "position": folded}))
        }
        (Some(last), folded) => unready(format!("projections at {folded:?}, the log at {last}")),
    }
}

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

/// The rate limit's key for a caller: their token, else their address.
fn limit_key(req: &HttpRequest, principal: &Principal) -> String {
    match principal.token_id() {
        Some(token) => token.to_owned(),
        None => format!(
            "addr:{}",
            req.peer_addr()
                .map(|a| a.ip().to_string())
                .unwrap_or_default()
        ),
    }
}

/// `429 Too Many Requests` when the caller's bucket is empty.
fn over_limit(state: &ApiState, req: &HttpRequest, principal: &Principal) -> Option<HttpResponse> {
    let wait = state
        .limiter
        .check(&limit_key(req, principal), std::time::Instant::now())
        .err()?;
    state.metrics.rate_limited();
    let mut response = error_response(
        StatusCode::TOO_MANY_REQUESTS,
        ApiError::client(
            crate::error::code::RATE_LIMITED,
            format!(
                "more than {} requests a second; retry in {} ms",
                state.limiter.per_second(),
                wait.as_millis()
            ),
        ),
    );
    let seconds = wait.as_secs().max(1).to_string();
    if let Ok(value) = actix_web::http::header::HeaderValue::from_str(&seconds) {
        response
            .headers_mut()
            .insert(actix_web::http::header::RETRY_AFTER, value);
    }
    Some(response)
}

/// A response carrying only `e`.
pub(crate) fn error_body(e: ApiError) -> async_graphql::Response {
    let error = async_graphql::Error::from(e);
    let mut error = error.into_server_error(async_graphql::Pos::default());
    // Not about a place in the query.
    error.locations.clear();
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

fn authorization(req: &HttpRequest) -> Option<String> {
    req.headers()
        .get(actix_web::http::header::AUTHORIZATION)
        .and_then(|h| h.to_str().ok())
        .map(str::to_owned)
}

async fn graphql(
    req: HttpRequest,
    body: web::Bytes,
    schema: web::Data<ApiSchema>,
    state: web::Data<ApiState>,
) -> HttpResponse {
    let started = std::time::Instant::now();
    let principal = match state
        .tokens
        .authenticate(&state.store, authorization(&req).as_deref())
        .await
    {
        Ok(p) => p,
        Err(e) => return error_response(StatusCode::UNAUTHORIZED, e),
    };
    if let Some(refused) = over_limit(&state, &req, &principal) {
        return refused;
    }
    let request: async_graphql::Request = match serde_json::from_slice(&body) {
        Ok(r) => r,
        Err(e) => {
            return error_response(
                StatusCode::BAD_REQUEST,
                ApiError::bad_input(format!("not a GraphQL request: {e}")),
            );
        }
    };
    // By the operation's keyword (a document with several operations counts as a query).
    let kind = if request.query.trim_start().starts_with("mutation") {
        Kind::Mutation
    } else {
        Kind::Query
    };
    let request = request.data(principal);
    // No panic reaches a client: it becomes an internal error with a correlation id.
    match AssertUnwindSafe(schema.execute(request))
        .catch_unwind()
        .await
    {
        Ok(response) => {
            state
                .metrics
                .request(kind, response.errors.is_empty(), started.elapsed());
            HttpResponse::Ok().json(response)
        }
        Err(panic) => {
            state.metrics.request(kind, false, started.elapsed());
            let cause = panic_cause(&panic);
            error_response(
                StatusCode::INTERNAL_SERVER_ERROR,
                ApiError::internal(format!("panic: {cause}")),
            )
        }
    }
}

async fn subscriptions(
    req: HttpRequest,
    payload: web::Payload,
    schema: web::Data<ApiSchema>,
    state: web::Data<ApiState>,
) -> actix_web::Result<HttpResponse> {
    let header = authorization(&req);
    let started = std::time::Instant::now();
    let principal = match state
        .tokens
        .authenticate(&state.store, header.as_deref())
        .await
    {
        Ok(p) => p,
        Err(e) => {
            state
                .metrics
                .request(Kind::Subscription, false, started.elapsed());
            return Ok(error_response(StatusCode::UNAUTHORIZED, e));
        }
    };
    if let Some(refused) = over_limit(&state, &req, &principal) {
        return Ok(refused);
    }
    state
        .metrics
        .request(Kind::Subscription, true, started.elapsed());
    crate::ws::start(
        &req,
        payload,
        ApiSchema::clone(&schema),
        ApiState::clone(&state),
        principal,
    )
}
