//! What an auditor checks the log with over GraphQL: the signed tree heads, RFC 6962
//! inclusion and consistency proofs, and `verify` (the hash chains, the Merkle tree, the
//! signed heads, and every hand decided again by the engine).
//!
//! Proofs and `verify` read the whole sealed tree (40 bytes an event), so one runs at a
//! time on an instance; another asked meanwhile is refused with `UNAVAILABLE`.

use async_graphql::{Context, Enum, Object, SimpleObject};
use league_store::hash::{from_hex, to_hex};
use league_store::{BreakKind, StoreError, TreeHead, TrustedKeys, VerifyingKey, merkle};

use super::scalars::{Micros, TreeSize};
use super::{Position, principal, state};
use crate::error::{ApiError, ApiResult, code};

/// One proof or verification at a time on an instance (`ApiState::heavy_reads`).
fn one_at_a_time(state: &super::ApiState) -> ApiResult<tokio::sync::SemaphorePermit<'_>> {
    state.heavy_reads.try_acquire().map_err(|_| {
        ApiError::client(
            code::UNAVAILABLE,
            "another proof or verification is running on this instance: try again when it ends",
        )
    })
}

/// A tree head the league signed: its Ed25519 signature over the root of the log's first
/// `treeSize` events. Save `json` outside the server; `league audit verify --tree-head FILE`
/// later checks the log still holds what it covers.
#[derive(SimpleObject, Clone, Debug)]
pub struct SignedTreeHead {
    /// How many events, in log order, the tree holds.
    pub tree_size: TreeSize,
    /// Hex RFC 6962 root of those events (`docs/event-store.md`).
    pub root: String,
    /// When it was signed (microseconds since the Unix epoch).
    pub signed_at: Micros,
    /// The same moment, `YYYY-MM-DD HH:MM:SS` UTC.
    pub signed_at_utc: String,
    /// Hex Ed25519 public key that signed it: compare it with the league's published key.
    pub public_key: String,
    /// Hex Ed25519 signature over the tree-head message (`docs/event-store.md`).
    pub signature: String,
    /// The head as one line of JSON, as `league audit tree-head` prints it and
    /// `league audit verify --tree-head` reads it.
    pub json: String,
}

impl From<&TreeHead> for SignedTreeHead {
    fn from(h: &TreeHead) -> Self {
        SignedTreeHead {
            tree_size: TreeSize(h.tree_size),
            root: to_hex(&h.root),
            signed_at: Micros(h.signed_at.as_micros()),
            signed_at_utc: h.signed_at.utc(),
            public_key: to_hex(&h.public_key),
            signature: to_hex(&h.signature),
            json: h.to_json(),
        }
    }
}

/// Proof that an event is in the tree of `treeSize` events (RFC 6962 §2.1.1): hash
/// `leafHash` with each step of `auditPath` as RFC 9162 §2.1.3.2 says, and compare with
/// `root` and with the signed head of that size.
#[derive(SimpleObject, Clone, Debug)]
pub struct InclusionProof {
    /// The event's position in the log.
    pub position: Position,
    /// Its index among the tree's leaves (from 0).
    pub leaf_index: u64,
    /// The tree the proof is for.
    pub tree_size: TreeSize,
    /// Hex hash of the event (its `hash` in `events`).
    pub event_hash: String,
    /// Hex `SHA-256(0x00 || event hash)`.
    pub leaf_hash: String,
    /// Hex hashes, from the leaf's sibling up.
    pub audit_path: Vec<String>,
    /// Hex root of the tree of `treeSize` events.
    pub root: String,
}

/// Proof that the tree of `oldSize` events is the start of the tree of `newSize` (RFC 6962
/// §2.1.2), verified as RFC 9162 §2.1.4.2 says: the log only grew between the two heads.
#[derive(SimpleObject, Clone, Debug)]
pub struct ConsistencyProof {
    /// The older tree's size.
    pub old_size: TreeSize,
    /// The newer tree's size.
    pub new_size: TreeSize,
    /// Hex root of the older tree.
    pub old_root: String,
    /// Hex root of the newer tree.
    pub new_root: String,
    /// Hex hashes of the proof (empty when the sizes are equal).
    pub proof: Vec<String>,
}

/// What is wrong where the log breaks.
#[derive(Enum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogBreakKind {
    /// A stored hash is not the hash of its event: a row was edited.
    HashMismatch,
    /// An event's previous hash is not its stream's previous event's hash.
    ChainMismatch,
    /// A stream's versions do not follow on: an event deleted or moved.
    VersionGap,
    /// A sealed event is missing from the log.
    MissingEvent,
    /// An event the sealed tree does not have where it lies.
    NotInTree,
    /// An event differs from the sealed leaf at its place.
    LeafMismatch,
    /// A seal does not continue the tree, or its root is not its leaves' root.
    SealCorrupt,
    /// A signed head's root or signature does not check.
    TreeHeadMismatch,
}

/// The first place the stored log stops being what was written.
#[derive(SimpleObject, Clone, Debug)]
pub struct LogBreak {
    /// Its position.
    pub position: Position,
    /// What is wrong.
    pub kind: LogBreakKind,
    /// The stream, when the break is in a stream's chain.
    pub stream_id: Option<String>,
    /// The same, in words.
    pub message: String,
}

/// A hand or an outcome the engine decides otherwise than the log records.
#[derive(SimpleObject, Clone, Debug)]
pub struct Difference {
    /// The position of the first event that differs.
    pub position: Position,
    /// Its stream (`tournament:<id>` or `league:<id>`).
    pub stream_id: String,
    /// What differs (the hand, the finish, the payouts, the deal, a league result), what
    /// the log holds and what the engine decides.
    pub message: String,
}

/// The draws and outcomes `verify` decided again.
#[derive(SimpleObject, Clone, Copy, Debug)]
pub struct OutcomesRederived {
    /// Seat and button draws, at the start and at each redraw, from their revealed seeds.
    pub draws: u64,
    /// Late entrants' seats, from their revealed seeds.
    pub late_seats: u64,
    /// Colour-ups, with their chip races from their revealed seeds.
    pub colour_ups: u64,
    /// Finishes: every place and prize, from the eliminations, payouts and any deal.
    pub finishes: u64,
    /// Payouts a host set, against the prize pool.
    pub payouts: u64,
    /// Deals, from the stacks and the prizes.
    pub deals: u64,
    /// League results recorded or amended: every finish's points under every version.
    pub league_results: u64,
    /// Re-scorings: a new formula version's points for every result of its season.
    pub rescorings: u64,
}

/// What `verify` checked and found.
#[derive(SimpleObject, Clone, Debug)]
pub struct LogVerification {
    /// True when nothing is broken and every hand and outcome checked re-derives as
    /// recorded.
    pub ok: bool,
    /// Events whose hash and stream chain were checked.
    pub events_checked: u64,
    /// Events in the sealed Merkle tree.
    pub tree_size: TreeSize,
    /// Hex root of the sealed tree.
    pub root: Option<String>,
    /// Signed tree heads whose root and signature were checked.
    pub tree_heads_checked: u64,
    /// True when the heads were checked against `publicKey`; false when against the key
    /// stored in each head, which proves nothing against someone who can write the
    /// database.
    pub against_league_key: bool,
    /// Events covered by the largest head whose signature and root check.
    pub signed_size: TreeSize,
    /// Events checked that no checked head covers (the end of the log), from this position.
    pub not_signed_from: Option<Position>,
    /// How many.
    pub not_signed_events: u64,
    /// The first break, or null.
    pub first_break: Option<LogBreak>,
    /// Hands decided again by the engine (only when the log has no break).
    pub hands_rederived: u64,
    /// Of those, hands dealt from a seed committed to before the deal.
    pub hands_seeded: u64,
    /// Outcomes decided again (only when the log has no break).
    pub outcomes_rederived: Option<OutcomesRederived>,
    /// Hands and outcomes that differ, in streams the caller reads.
    pub differences: Vec<Difference>,
    /// Hands and outcomes that differ in streams of other leagues (an auditor of one
    /// league).
    pub differences_elsewhere: u64,
}

fn kind_of(kind: &BreakKind) -> (LogBreakKind, Option<String>) {
    match kind {
        BreakKind::HashMismatch => (LogBreakKind::HashMismatch, None),
        BreakKind::ChainMismatch { stream_id } => {
            (LogBreakKind::ChainMismatch, Some(stream_id.clone()))
        }
        BreakKind::VersionGap { stream_id, .. } => {
            (LogBreakKind::VersionGap, Some(stream_id.clone()))
        }
        BreakKind::MissingEvent => (LogBreakKind::MissingEvent, None),
        BreakKind::NotInTree => (LogBreakKind::NotInTree, None),
        BreakKind::LeafMismatch => (LogBreakKind::LeafMismatch, None),
        BreakKind::SealCorrupt { .. } => (LogBreakKind::SealCorrupt, None),
        BreakKind::TreeHeadMismatch { .. } => (LogBreakKind::TreeHeadMismatch, None),
    }
}

/// A tree size that is not in the sealed tree is the caller's mistake.
fn tree_error(e: StoreError) -> ApiError {
    match e {
        StoreError::NoSuchTree(what) => {
            ApiError::not_found(format!("no such tree or leaf in the sealed log: {what}"))
        }
        e => e.into(),
    }
}

fn hex_list(hashes: &[[u8; 32]]) -> Vec<String> {
    hashes.iter().map(|h| to_hex(h)).collect()
}

#[derive(Default)]
pub struct ProofQuery;

#[Object]
impl ProofQuery {
    /// A signed tree head, for auditors: the one of `treeSize` events, or the latest. Null
    /// when the league signs none (the server runs without `--signing-key`) or none has
    /// that size.
    async fn tree_head(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "The head of exactly this many events (default: the latest).")]
        tree_size: Option<TreeSize>,
    ) -> ApiResult<Option<SignedTreeHead>> {
        let state = state(ctx)?;
        principal(ctx).require_auditor()?;
        let heads = state.store.tree_heads().await?;
        let head = match tree_size {
            Some(n) => heads.iter().find(|h| h.tree_size == n.0),
            None => heads.last(),
        };
        Ok(head.map(SignedTreeHead::from))
    }

    /// Proof that the event at `position` is in the tree of `treeSize` events (default: the
    /// latest signed head's size, or the whole sealed tree when none is signed).
    async fn inclusion_proof(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "The event's position in the log.")] position: Position,
        #[graphql(desc = "The tree's size (default: the latest signed head's).")] tree_size: Option<
            TreeSize,
        >,
    ) -> ApiResult<InclusionProof> {
        let state = state(ctx)?;
        principal(ctx).require_auditor()?;
        let _one = one_at_a_time(state)?;
        let size = match tree_size {
            Some(n) => n.0,
            None => default_size(state).await?,
        };
        let proof = state
            .store
            .inclusion_proof(position.0, size)
            .await
            .map_err(tree_error)?;
        let root = state.store.tree_root(size).await.map_err(tree_error)?;
        let event = state.store.read_all(position.0, 1).await?;
        let event = event
            .first()
            .filter(|e| e.position == position.0)
            .ok_or_else(|| ApiError::not_found(format!("no event at position {}", position.0)))?;
        if merkle::leaf_hash(&event.hash) != proof.leaf_hash {
            return Err(ApiError::client(
                code::CONFLICT,
                format!(
                    "the event at position {} is not the one the tree sealed there: run verify",
                    position.0
                ),
            ));
        }
        let event_hash = to_hex(&event.hash);
        Ok(InclusionProof {
            position,
            leaf_index: proof.leaf_index,
            tree_size: TreeSize(size),
            event_hash,
            leaf_hash: to_hex(&proof.leaf_hash),
            audit_path: hex_list(&proof.path),
            root: to_hex(&root),
        })
    }

    /// Proof that the tree of `oldSize` events is the start of the tree of `newSize`
    /// (default: the latest signed head's size): an auditor holding an old head checks the
    /// log only grew since.
    async fn consistency_proof(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "The older tree's size (an old head's).")] old_size: TreeSize,
        #[graphql(desc = "The newer tree's size (default: the latest signed head's).")]
        new_size: Option<TreeSize>,
    ) -> ApiResult<ConsistencyProof> {
        let state = state(ctx)?;
        principal(ctx).require_auditor()?;
        let _one = one_at_a_time(state)?;
        if old_size.0 == 0 {
            return Err(ApiError::bad_input("oldSize must be at least 1"));
        }
        let new = match new_size {
            Some(n) if n.0 < old_size.0 => {
                return Err(ApiError::bad_input("oldSize must not be above newSize"));
            }
            Some(n) => n.0,
            None => default_size(state).await?,
        };
        if old_size.0 > new {
            return Err(ApiError::not_found(format!(
                "the log's latest tree holds {new} events, fewer than oldSize"
            )));
        }
        let proof = state
            .store
            .consistency_proof(old_size.0, new)
            .await
            .map_err(tree_error)?;
        let old_root = state
            .store
            .tree_root(old_size.0)
            .await
            .map_err(tree_error)?;
        let new_root = state.store.tree_root(new).await.map_err(tree_error)?;
        Ok(ConsistencyProof {
            old_size,
            new_size: TreeSize(new),
            old_root: to_hex(&old_root),
            new_root: to_hex(&new_root),
            proof: hex_list(&proof),
        })
    }

    /// Verifies the log from `from` to `to` (positions, inclusive; default all of it), as
    /// `league audit verify` does: every event's hash and stream chain, the sealed tree and
    /// the signed heads (against `publicKey` when given), then, if nothing is broken, every
    /// hand started in the range decided again by the engine. For auditors; one at a time
    /// on an instance. A whole season takes seconds.
    async fn verify(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "First position to check (default 0).")] from: Option<Position>,
        #[graphql(desc = "Last position to check (default: the end of the log).")] to: Option<
            Position,
        >,
        #[graphql(desc = "The league's Ed25519 public key (hex) to check signed heads against.")]
        public_key: Option<String>,
    ) -> ApiResult<LogVerification> {
        let state = state(ctx)?;
        let caller = principal(ctx);
        caller.require_auditor()?;
        let keys = public_key
            .as_deref()
            .map(|hex| {
                let bytes: [u8; 32] = from_hex(hex.trim())
                    .and_then(|b| b.try_into().ok())
                    .ok_or_else(|| {
                        ApiError::bad_input("publicKey must be 64 hex digits (32 bytes)")
                    })?;
                VerifyingKey::from_bytes(&bytes)
                    .map(TrustedKeys::one)
                    .map_err(|_| ApiError::bad_input("publicKey is not an Ed25519 public key"))
            })
            .transpose()?;
        let (from, to) = (from.map_or(0, |p| p.0), to.map_or(u64::MAX, |p| p.0));
        if from > to {
            return Err(ApiError::bad_input("from is after to"));
        }
        let _one = one_at_a_time(state)?;
        let (report, hands) =
            league_app::audit::verify(&state.store, from, to, keys.as_ref(), &mut |_, _| {})
                .await
                .map_err(ApiError::internal)?;
        let mut differences = Vec::new();
        let mut differences_elsewhere = 0;
        if let Some(h) = &hands {
            let projector = state.live.read();
            for d in &h.failures {
                if caller.reads_stream(&d.stream, &projector) {
                    differences.push(Difference {
                        position: Position(d.position),
                        stream_id: d.stream.clone(),
                        message: d.to_string(),
                    });
                } else {
                    differences_elsewhere += 1;
                }
            }
        }
        let first_break = report.first_break.as_ref().map(|b| {
            let (kind, stream_id) = kind_of(&b.kind);
            LogBreak {
                position: Position(b.position),
                kind,
                stream_id,
                message: b.to_string(),
            }
        });
        Ok(LogVerification {
            ok: first_break.is_none() && differences.is_empty() && differences_elsewhere == 0,
            events_checked: report.events_checked,
            tree_size: TreeSize(report.tree_size),
            root: report.root.as_ref().map(|r| to_hex(r)),
            tree_heads_checked: report.tree_heads_checked,
            against_league_key: !report.signatures_self_checked,
            signed_size: TreeSize(report.signed_size),
            not_signed_from: report.uncovered.map(|u| Position(u.from)),
            not_signed_events: report.uncovered.map_or(0, |u| u.events),
            first_break,
            hands_rederived: hands.as_ref().map_or(0, |h| h.hands),
            hands_seeded: hands.as_ref().map_or(0, |h| h.seeded),
            outcomes_rederived: hands.as_ref().map(|h| OutcomesRederived {
                draws: h.outcomes.draws,
                late_seats: h.outcomes.late_seats,
                colour_ups: h.outcomes.colour_ups,
                finishes: h.outcomes.finishes,
                payouts: h.outcomes.payouts,
                deals: h.outcomes.deals,
                league_results: h.outcomes.results,
                rescorings: h.outcomes.rescorings,
            }),
            differences,
            differences_elsewhere,
        })
    }
}

/// The latest signed head's size, or the sealed tree's when no head is signed.
async fn default_size(state: &super::ApiState) -> ApiResult<u64> {
    match state.store.tree_heads().await?.last() {
        Some(h) => Ok(h.tree_size),
        None => {
            Ok(u64::try_from(state.store.sealed_leaves().await?.leaves.len()).unwrap_or(u64::MAX))
        }
    }
}
