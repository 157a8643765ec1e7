//! Request ids: every HTTP request, and every operation on a WebSocket, has a UUID. A
//! request keeps a valid `X-Request-Id` its client or load balancer sent (any UUID but the
//! nil one); otherwise it gets a new UUIDv7 (time-ordered). The id is returned in the
//! `X-Request-Id` response header and in every error's `extensions.requestId`, recorded in
//! the request's tracing span, and stored as the correlation id of every event the request
//! appends, so an error a venue app reports leads to the server's log lines and to the
//! events in the log.
//!
//! While a request's handler runs, its id is the task's [`current`] one (a tokio task
//! local set by the middleware in [`crate::run_with`], and per operation on a WebSocket).

use std::fmt;
use std::future::Future;

use uuid::Uuid;

/// The header a request id comes in and goes out in.
pub const HEADER: &str = "x-request-id";

/// A request's (or a WebSocket operation's) id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RequestId(Uuid);

impl RequestId {
    /// A new id: a UUIDv7.
    pub fn new_v7() -> Self {
        Self(Uuid::now_v7())
    }

    /// The UUID.
    pub fn uuid(self) -> Uuid {
        self.0
    }
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.hyphenated().fmt(f)
    }
}

tokio::task_local! {
    static CURRENT: RequestId;
}

/// The id a request keeps: the UUID it was sent with (`sent`, the header's value), or a
/// new UUIDv7 when none or no valid one was sent.
pub fn of(sent: Option<&str>) -> RequestId {
    sent.map(str::trim)
        .and_then(|s| Uuid::try_parse(s).ok())
        .filter(|id| !id.is_nil())
        .map_or_else(RequestId::new_v7, RequestId)
}

/// The id of the request being handled, if any.
pub fn current() -> Option<RequestId> {
    CURRENT.try_with(|id| *id).ok()
}

/// Runs `work` as the request `id`.
pub async fn scope<F: Future>(id: RequestId, work: F) -> F::Output {
    CURRENT.scope(id, work).await
}

/// Runs `work` (a poll) as the request `id`.
pub fn sync_scope<R>(id: RequestId, work: impl FnOnce() -> R) -> R {
    CURRENT.sync_scope(id, work)
}

/// Adds the current request's id to `error`'s extensions (`requestId`).
pub fn mark(error: &mut async_graphql::ServerError) {
    if let Some(id) = current() {
        error
            .extensions
            .get_or_insert_with(Default::default)
            .set("requestId", id.to_string());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sent_uuid_is_kept_and_anything_else_replaced_by_a_v7() {
        let sent = "0190b6c4-7d2a-7cde-8f00-123456789abc";
        assert_eq!(of(Some(sent)).to_string(), sent);
        assert_eq!(of(Some(&format!(" {sent} "))).to_string(), sent);
        for bad in [
            None,
            Some(""),
            Some("abc"),
            Some("00000000-0000-0000-0000-000000000000"),
            Some("0190b6c4-7d2a-7cde-8f00-123456789abcd"),
        ] {
            let id = of(bad);
            assert_eq!(id.uuid().get_version_num(), 7, "{bad:?}");
            assert_ne!(Some(id.to_string().as_str()), bad);
        }
        assert_ne!(of(None), of(None));
    }
}
