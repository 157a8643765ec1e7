//! Several instances on one database, answering as one would.
//!
//! - **Commands see the log as the store holds it.** Before a mutation is authorised and
//!   decided, this instance's projector catches up with every event the store holds
//!   (another instance may have appended them a moment ago); the decision itself is then
//!   checked against the stream's head (`league_app::commands::execute`).
//! - **Reads see what the caller wrote elsewhere.** Every HTTP answer says, in the
//!   `League-Position` header, how far this instance had folded the log when it answered
//!   (after a mutation, at least the position it appended). A client that sends that
//!   position back as `League-Min-Position` (or as `minPosition` in a request's
//!   `extensions`, which is how a subscription over WebSocket asks) is answered once the
//!   instance it reaches has folded that far: at once when it has, after a bounded wait
//!   otherwise, or with `NOT_CAUGHT_UP` when the wait runs out. A position past the log's
//!   end is `BAD_INPUT` (`field`: `minPosition`).

use std::sync::Arc;
use std::time::Duration;

use async_graphql::extensions::{
    Extension, ExtensionContext, ExtensionFactory, NextPrepareRequest, NextResolve, ResolveInfo,
};
use async_graphql::{Request, ServerError, ServerResult, Value};

use crate::error::ApiError;
use crate::schema::ApiState;

/// The request header with the least log position an answer must reflect.
pub const MIN_POSITION_HEADER: &str = "league-min-position";
/// The response header with the position this instance had folded when it answered.
pub const POSITION_HEADER: &str = "league-position";
/// The same least position in a request's `extensions`.
pub const MIN_POSITION: &str = "minPosition";

/// How long a request waits for this instance to fold the position it needs. Instances
/// on one database trail each other by milliseconds; a wait this long means this one is
/// stuck or far behind, and the client does better to try again (on another instance).
pub const CATCH_UP_WAIT: Duration = Duration::from_secs(5);

/// The extension: `Schema::build(..).extension(Consistency)`.
pub struct Consistency;

impl ExtensionFactory for Consistency {
    fn create(&self) -> Arc<dyn Extension> {
        Arc::new(Consistency)
    }
}

/// A least position as a client sent it: a whole number, or its decimal text (a header's
/// value, or a `Position` as the schema writes it).
fn min_position(value: &Value) -> Result<u64, ApiError> {
    let parsed = match value {
        Value::Number(n) => n.as_u64(),
        Value::String(s) => s.parse().ok(),
        _ => None,
    };
    parsed.ok_or_else(|| {
        ApiError::bad_field(
            MIN_POSITION,
            "minPosition is a log position: a whole number of 0 or more",
        )
    })
}

/// An error of the request as a whole: no place in the document.
fn server_error(e: ApiError) -> ServerError {
    let mut e = async_graphql::Error::from(e).into_server_error(async_graphql::Pos::default());
    e.locations.clear();
    e
}

#[async_graphql::async_trait::async_trait]
impl Extension for Consistency {
    async fn prepare_request(
        &self,
        ctx: &ExtensionContext<'_>,
        mut request: Request,
        next: NextPrepareRequest<'_>,
    ) -> ServerResult<Request> {
        // Nothing is answered from a projector still loading after a start.
        if let Ok(state) = ctx.data::<ApiState>() {
            state
                .live
                .loaded(CATCH_UP_WAIT)
                .await
                .map_err(|e| server_error(e.into()))?;
        }
        if let Some(value) = request.extensions.remove(MIN_POSITION)
            && let Ok(state) = ctx.data::<ApiState>()
        {
            let position = min_position(&value).map_err(server_error)?;
            state
                .live
                .catch_up_to(&state.store, position, CATCH_UP_WAIT)
                .await
                .map_err(|e| server_error(e.into()))?;
        }
        next.run(ctx, request).await
    }

    async fn resolve(
        &self,
        ctx: &ExtensionContext<'_>,
        info: ResolveInfo<'_>,
        next: NextResolve<'_>,
    ) -> ServerResult<Option<Value>> {
        if info.parent_type == "Mutation"
            && let Ok(state) = ctx.data::<ApiState>()
        {
            let at = info.field.name.pos;
            state
                .live
                .catch_up(&state.store, CATCH_UP_WAIT)
                .await
                .map_err(|e| async_graphql::Error::from(ApiError::from(e)).into_server_error(at))?;
        }
        next.run(ctx, info).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_least_position_is_a_whole_number_or_its_text() {
        assert_eq!(min_position(&Value::from(7u64)).unwrap(), 7);
        assert_eq!(min_position(&Value::from("42")).unwrap(), 42);
        for bad in [
            Value::from(-1),
            Value::from(1.5),
            Value::from("x"),
            Value::from(""),
            Value::Null,
            Value::from(true),
        ] {
            let e = min_position(&bad).unwrap_err();
            assert_eq!(e.code(), crate::error::code::BAD_INPUT, "{bad:?}");
        }
    }
}
