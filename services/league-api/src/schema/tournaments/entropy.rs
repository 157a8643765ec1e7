//! Entropy a host or player adds to the server's draws.
//!
//! The server commits to each draw's seed before anyone can add entropy, so it cannot choose
//! a seed that suits the entropy; whoever adds entropy sees only the commitment, so they
//! cannot choose entropy that suits the seed. The entropy is recorded as its SHA-256
//! (`EntropyAdded`), pooled until the next draw (start, late entry, redraw, chip race), and
//! that draw's command names the pool it mixed in (`EntropyMixed`) just before the draw's
//! own event: the draw is made from `sha256(seed || "entropy" || pool)`, which an auditor
//! recomputes from the two events.

use async_graphql::{Context, ID, Object};
use league_engine::deck::Seed;
use league_engine::tournament::play::TournamentCommand;
use sha2::Digest as _;

use super::mutation::{send, with_tournament};
use crate::error::{ApiError, ApiResult};
use crate::schema::payloads::{command_input, payload};
use crate::schema::{principal, state};

/// The most bytes of entropy one `addEntropy` takes.
const MAX_ENTROPY_BYTES: usize = 1_024;

command_input! {
    /// The input of `addEntropy`.
    AddEntropyInput {
        /// The tournament's id, as scheduled.
        tournament_id: ID,
        /// Anything unpredictable, 1 to 1,024 bytes: random bytes from the device in hex,
        /// dice rolls, a shuffled phrase. Only its SHA-256 is recorded.
        entropy: String,
    }
}

payload! {
    /// What `addEntropy` did, and the tournament it changed.
    AddEntropyPayload: tournament
}

#[derive(Default)]
pub struct EntropyMutation;

#[Object]
impl EntropyMutation {
    /// Adds entropy to the tournament's next draw (the seats and buttons at `start`, a late
    /// entry's seat, a `redraw`, a chip race): the venue's staff, or a player registered in
    /// the tournament. Entropy added since the last draw is pooled and mixed into the seed
    /// the server committed to before any of it was given; the draw's events name the pool
    /// (`EntropyMixed`), so an auditor re-derives the draw.
    async fn add_entropy(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the command names and carries.")] input: AddEntropyInput,
    ) -> ApiResult<AddEntropyPayload> {
        let AddEntropyInput {
            tournament_id,
            entropy,
            idempotency_key,
        } = input;
        let tournament_id = tournament_id.0;
        if entropy.is_empty() || entropy.len() > MAX_ENTROPY_BYTES {
            return Err(ApiError::bad_field(
                "entropy",
                format!("entropy: 1 to {MAX_ENTROPY_BYTES} bytes"),
            ));
        }
        let state = state(ctx)?;
        let caller = principal(ctx);
        let (venue, registered) = with_tournament(state, &tournament_id, |t| {
            let venue = t.schedule().map(|s| s.venue.clone()).unwrap_or_default();
            let registered = match &caller {
                crate::auth::Principal::Player { player, .. } => t.player(player).is_some(),
                _ => false,
            };
            (venue, registered)
        })
        .await?;
        if !registered {
            caller.require_venue(&venue, &state.live.read())?;
        }
        let entropy = Seed::from_bytes(sha2::Sha256::digest(entropy.as_bytes()).into());
        let command = TournamentCommand::AddEntropy { entropy };
        send(ctx, state, &caller, tournament_id, command, idempotency_key).await
    }
}
