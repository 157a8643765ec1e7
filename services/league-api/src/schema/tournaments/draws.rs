//! The draws the server makes: seats, buttons, late seats, redraws and chip races.
//!
//! Every draw's seed is 256 bits from the operating system. When a tournament is scheduled
//! (and at each draw, for the next one) the server draws a seed, keeps it in the store
//! (`draw_secrets`, read by nothing but this module) and puts only its SHA-256 in the
//! event: the schedule, or the draw's own event as `next_commitment`. The draw's event
//! reveals the seed, and the engine refuses a seed that does not match the commitment, so
//! an auditor re-derives every draw from the log, and nobody (the host included) could
//! choose a seed after the players were known. No venue app holds a secret.

use league_engine::deck::{Commitment, Seed};

use crate::error::{ApiError, ApiResult, code};
use crate::schema::ApiState;

/// A fresh 256-bit seed from the operating system (a draw's, or a dealt hand's deck).
pub(crate) fn fresh_seed() -> ApiResult<Seed> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(ApiError::internal)?;
    Ok(Seed::from_bytes(bytes))
}

/// Keeps `seed` for a draw of `stream`, under its commitment.
pub(crate) async fn keep(state: &ApiState, stream: &str, seed: &Seed) -> ApiResult<()> {
    state
        .store
        .put_draw_secret(&seed.commitment().to_string(), stream, &seed.to_string())
        .await
        .map_err(ApiError::internal)
}

/// Draws the seed of `stream`'s next draw, keeps it, and returns its commitment.
pub(crate) async fn commit(state: &ApiState, stream: &str) -> ApiResult<Commitment> {
    let seed = fresh_seed()?;
    keep(state, stream, &seed).await?;
    Ok(seed.commitment())
}

/// The seed the server committed to for `stream`'s next draw (`committed`, as the
/// tournament's state has it).
pub(crate) async fn held(
    state: &ApiState,
    stream: &str,
    committed: Option<Commitment>,
) -> ApiResult<Seed> {
    let not_held = || {
        ApiError::client(
            code::SEED_NOT_HELD,
            "the server holds no seed for this tournament's next draw (it was committed to \
             by a client before the server made the draws); finish it with the release that \
             scheduled it",
        )
    };
    let committed = committed.ok_or_else(not_held)?;
    let (owner, seed) = state
        .store
        .draw_secret(&committed.to_string())
        .await
        .map_err(ApiError::internal)?
        .ok_or_else(not_held)?;
    let seed: Seed = seed.parse().map_err(ApiError::internal)?;
    if owner != stream || !committed.verifies(&seed) {
        return Err(ApiError::internal(format!(
            "the draw secret under {committed} does not belong to {stream}"
        )));
    }
    Ok(seed)
}
