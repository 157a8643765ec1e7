//! The shape every mutation shares: one `input` argument, declared with
//! `command_input!` (its fields and the idempotency key), and one
//! payload type of its own, declared with `payload!`: what the command
//! appended (stream, events, positions, version, whether it was a retry) and the object it
//! changed as the caller may see it now, a tournament (with its tables) or a league.
//!
//! A payload type per mutation lets a mutation's answer grow without changing any other's;
//! the fields they share are declared once, here.

use async_graphql::Context;
use league_events::StreamKind;
use league_projections::views::tournament_view;

pub(crate) use super::leagues::types::LeagueOut;
use super::tournaments::query::table_now;
pub(crate) use super::tournaments::query::{Adjusted, adjusted};
pub(crate) use super::tournaments::types::{TableOut, TournamentOut};
use super::{CommandResult, principal, state};
use crate::error::ApiResult;

/// The answer of a command that created the object `id`.
pub(crate) fn created<P: From<CommandResult>>(
    result: crate::error::ApiResult<CommandResult>,
    id: String,
) -> crate::error::ApiResult<P> {
    result.map(|mut r| {
        // A retry answers what its first call created (set from the log), not the id this
        // call would have used.
        r.created.get_or_insert(id);
        P::from(r)
    })
}

/// Declares a mutation's input object: the fields given, then the idempotency key every
/// command takes.
macro_rules! command_input {
    ($(#[$doc:meta])* $name:ident { $($(#[$fdoc:meta])* $field:ident: $ty:ty),* $(,)? }) => {
        $(#[$doc])*
        #[derive(async_graphql::InputObject, Debug)]
        pub struct $name {
            $($(#[$fdoc])* pub $field: $ty,)*
            /// A key of the client's choosing (at most 256 bytes): the same command sent
            /// again with it returns the first answer and appends nothing; reused for another
            /// command it is refused (`IDEMPOTENCY_KEY_REUSED`).
            pub idempotency_key: Option<String>,
        }
    };
}

/// Declares a mutation's payload type: `tournament` for a command to a tournament (the
/// tournament and its tables as they stand), `act` for a seat's action (also what the house
/// rules made of a bet), `league` for a command to a league.
macro_rules! payload {
    ($(#[$doc:meta])* $name:ident: tournament) => {
        $crate::schema::payloads::payload!(@tournament $(#[$doc])* $name {});
    };
    ($(#[$doc:meta])* $name:ident: act) => {
        $crate::schema::payloads::payload!(@tournament $(#[$doc])* $name {
            /// For a bet or raise the house rules changed: an undersized bet or raise brought
            /// up to the minimum (QueenSix NLHE 12, the half rule, bet-and-a-half), or a raise
            /// treated as a call. Null when the action stood as declared.
            async fn adjusted(
                &self,
                ctx: &async_graphql::Context<'_>,
            ) -> $crate::error::ApiResult<Option<$crate::schema::payloads::Adjusted>> {
                $crate::schema::payloads::adjusted(ctx, &self.0).await
            }
        });
    };
    ($(#[$doc:meta])* $name:ident: tournament creates) => {
        $crate::schema::payloads::payload!(@tournament $(#[$doc])* $name {
            /// The id of what the command created: the one given, or the UUIDv7 the server
            /// generated when none was (a retry with the same idempotency key names the
            /// same).
            async fn created_id(&self) -> Option<async_graphql::ID> {
                self.0.created.clone().map(async_graphql::ID)
            }
        });
    };
    ($(#[$doc:meta])* $name:ident: league creates) => {
        $crate::schema::payloads::payload!(@league $(#[$doc])* $name {
            /// The id of what the command created: the one given, or the UUIDv7 the server
            /// generated when none was (a retry with the same idempotency key names the
            /// same).
            async fn created_id(&self) -> Option<async_graphql::ID> {
                self.0.created.clone().map(async_graphql::ID)
            }
        });
    };
    ($(#[$doc:meta])* $name:ident: cash creates) => {
        $crate::schema::payloads::payload!(@cash $(#[$doc])* $name {
            /// The id of what the command created: the one given, or the UUIDv7 the server
            /// generated when none was (a retry with the same idempotency key names the
            /// same).
            async fn created_id(&self) -> Option<async_graphql::ID> {
                self.0.created.clone().map(async_graphql::ID)
            }
        });
    };
    ($(#[$doc:meta])* $name:ident: cash) => {
        $crate::schema::payloads::payload!(@cash $(#[$doc])* $name {});
    };
    (@cash $(#[$doc:meta])* $name:ident { $($extra:tt)* }) => {
        $crate::schema::payloads::payload!(@common $(#[$doc])* $name {
            /// The cash table as the caller may see it after the command (or a later
            /// version): whose turn it is and what they may do, without another request.
            async fn cash_table(
                &self,
                ctx: &async_graphql::Context<'_>,
            ) -> $crate::error::ApiResult<Option<$crate::schema::cash::types::CashTableOut>> {
                $crate::schema::payloads::cash_now(ctx, &self.0)
            }

            $($extra)*
        });
    };
    ($(#[$doc:meta])* $name:ident: league) => {
        $crate::schema::payloads::payload!(@league $(#[$doc])* $name {});
    };
    (@league $(#[$doc:meta])* $name:ident { $($extra:tt)* }) => {
        $crate::schema::payloads::payload!(@common $(#[$doc])* $name {
            /// The league as it stands after the command (or a later version).
            async fn league(
                &self,
                ctx: &async_graphql::Context<'_>,
            ) -> $crate::error::ApiResult<Option<$crate::schema::payloads::LeagueOut>> {
                $crate::schema::payloads::league_now(ctx, &self.0)
            }

            $($extra)*
        });
    };
    (@tournament $(#[$doc:meta])* $name:ident { $($extra:tt)* }) => {
        $crate::schema::payloads::payload!(@common $(#[$doc])* $name {
            /// The tournament's table `table` as the caller may see it now (the version the
            /// command produced, or a later one), so a venue app learns who acts next without
            /// another request. Null for a table the tournament does not have.
            async fn table(
                &self,
                ctx: &async_graphql::Context<'_>,
                #[graphql(desc = "The table's number, from 1.")] table: u32,
            ) -> $crate::error::ApiResult<Option<$crate::schema::payloads::TableOut>> {
                $crate::schema::payloads::table_after(ctx, &self.0, table).await
            }

            /// The tournament as it stands after the command (or a later version): the
            /// changed object, with its clock, prizes and what is pending.
            async fn tournament(
                &self,
                ctx: &async_graphql::Context<'_>,
            ) -> $crate::error::ApiResult<Option<$crate::schema::payloads::TournamentOut>> {
                $crate::schema::payloads::tournament_now(ctx, &self.0).await
            }

            $($extra)*
        });
    };
    (@common $(#[$doc:meta])* $name:ident { $($extra:tt)* }) => {
        $(#[$doc])*
        #[derive(Debug)]
        pub struct $name(pub(crate) $crate::schema::CommandResult);

        impl From<$crate::schema::CommandResult> for $name {
            fn from(result: $crate::schema::CommandResult) -> Self {
                Self(result)
            }
        }

        $(#[$doc])*
        #[async_graphql::Object]
        impl $name {
            /// The stream the command went to (`tournament:<id>`, `league:<id>` or `cash:<id>`).
            async fn stream(&self) -> &str {
                &self.0.stream
            }

            /// Events appended (0: the command changed nothing).
            async fn events(&self) -> u64 {
                self.0.events
            }

            /// Global position of the first event appended.
            async fn first_position(&self) -> Option<$crate::schema::Position> {
                self.0.first_position
            }

            /// Global position of the last event appended.
            async fn last_position(&self) -> Option<$crate::schema::Position> {
                self.0.last_position
            }

            /// The stream's version after the command.
            async fn version(&self) -> Option<u64> {
                self.0.version
            }

            /// True when this is a retry with an idempotency key already used: nothing was
            /// appended now, and this is what the first call appended.
            async fn deduplicated(&self) -> bool {
                self.0.deduplicated
            }

            $($extra)*
        }
    };
}

pub(crate) use {command_input, payload};

/// The tournament a command went to, as it stands now.
pub async fn tournament_now(
    ctx: &Context<'_>,
    result: &CommandResult,
) -> ApiResult<Option<TournamentOut>> {
    if StreamKind::of(&result.stream) != Some(StreamKind::Tournament) {
        return Ok(None);
    }
    Ok(
        crate::schema::on_tournament(state(ctx)?, &result.stream, |t, _| {
            t.schedule()
                .is_some()
                .then(|| TournamentOut(tournament_view(&result.stream, t)))
        })
        .await?
        .flatten(),
    )
}

/// Table `table` of the tournament a command went to, as the caller may see it now.
pub async fn table_after(
    ctx: &Context<'_>,
    result: &CommandResult,
    table: u32,
) -> ApiResult<Option<TableOut>> {
    if StreamKind::of(&result.stream) != Some(StreamKind::Tournament) {
        return Ok(None);
    }
    table_now(state(ctx)?, &result.stream, table, &principal(ctx)).await
}

/// The cash table a command went to, as the caller may see it now.
pub fn cash_now(
    ctx: &Context<'_>,
    result: &CommandResult,
) -> ApiResult<Option<super::cash::types::CashTableOut>> {
    let Some(id) = StreamKind::Cash.id_of(&result.stream) else {
        return Ok(None);
    };
    let p = state(ctx)?.live.read();
    Ok(super::cash::table_out(&p, id, &principal(ctx)))
}

/// The league a command went to, as it stands now.
pub fn league_now(ctx: &Context<'_>, result: &CommandResult) -> ApiResult<Option<LeagueOut>> {
    let Some(id) = StreamKind::League.id_of(&result.stream) else {
        return Ok(None);
    };
    let p = state(ctx)?.live.read();
    Ok(super::leagues::query::league_out(&p, id))
}
