//! The sealer: folds the global order, behind the commit horizon, into the Merkle tree and
//! writes signed tree heads; on PostgreSQL it also announces each new head with one NOTIFY.
//!
//! One sealer at a time: on PostgreSQL every round runs under a transaction-scoped advisory
//! lock (and the background task holds a session-scoped one on its own connection, so only
//! the leader polls); on SQLite a round runs under `BEGIN IMMEDIATE`. The round reads the
//! tree's state from the last `seals` row, so a new leader continues where the old one
//! stopped, and the unique `first_leaf` makes a double seal impossible even if a lock were
//! lost.

use std::time::Duration;

use ed25519_dalek::{Signature, Signer as _, SigningKey, Verifier as _, VerifyingKey};
use tokio::task::JoinHandle;

use crate::error::StoreError;
use crate::hash::tree_head_message;
use crate::merkle::{Frontier, leaf_hash};
use crate::store::{Db, Store, postgres, sqlite, to_hash, to_i64, to_u64};
use crate::types::{Hash, Timestamp};

/// How the sealer behaves.
#[derive(Clone, Debug)]
pub struct SealerConfig {
    /// The league's key; without one, the tree is built but no heads are signed.
    pub signing_key: Option<SigningKey>,
    /// Sign a new tree head once this many leaves were added since the last one...
    pub sign_every_events: u64,
    /// ...or once this much time has passed since the last one (if the tree grew).
    pub sign_every: Duration,
    /// How often the background sealer looks for unsealed events without a wake-up.
    pub poll_interval: Duration,
    /// Most leaves added in one round (one `seals` row).
    pub max_leaves_per_round: usize,
    /// Each tree head this sealer signs is also sent here once its round has committed
    /// (`league serve --publish-tree-heads` writes them outside the database).
    pub publish: Option<tokio::sync::mpsc::UnboundedSender<TreeHead>>,
}

impl Default for SealerConfig {
    fn default() -> Self {
        Self {
            signing_key: None,
            sign_every_events: 10_000,
            sign_every: Duration::from_secs(10),
            poll_interval: Duration::from_millis(100),
            max_leaves_per_round: 10_000,
            publish: None,
        }
    }
}

/// A signed tree head: the league's signature over the root of the first `tree_size` leaves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TreeHead {
    /// Number of leaves.
    pub tree_size: u64,
    /// RFC 6962 root of those leaves.
    pub root: Hash,
    /// When it was signed.
    pub signed_at: Timestamp,
    /// The Ed25519 public key that signed it.
    pub public_key: [u8; 32],
    /// Ed25519 signature over `hash::tree_head_message(tree_size, signed_at, root)`.
    pub signature: [u8; 64],
}

impl TreeHead {
    fn sign(key: &SigningKey, tree_size: u64, root: Hash, signed_at: Timestamp) -> Self {
        let signature = key.sign(&tree_head_message(tree_size, signed_at, &root));
        Self {
            tree_size,
            root,
            signed_at,
            public_key: key.verifying_key().to_bytes(),
            signature: signature.to_bytes(),
        }
    }

    /// Whether `key` signed this head. (Checking against the key stored in the row proves
    /// nothing: an attacker who rewrites the log can sign with a key of their own.)
    pub fn verify(&self, key: &VerifyingKey) -> bool {
        let signature = Signature::from_bytes(&self.signature);
        key.to_bytes() == self.public_key
            && key
                .verify(
                    &tree_head_message(self.tree_size, self.signed_at, &self.root),
                    &signature,
                )
                .is_ok()
    }
}

/// What one sealing round did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SealOutcome {
    /// False if another sealer holds the lock (PostgreSQL); nothing was done.
    pub leader: bool,
    /// Leaves added by this round.
    pub leaves_added: u64,
    /// Size of the tree afterwards.
    pub tree_size: u64,
    /// Root of the tree afterwards.
    pub root: Hash,
    /// The tree head signed by this round, if one was due.
    pub tree_head: Option<TreeHead>,
}

/// `tree_heads` columns: size, root, signed at, public key, signature.
pub(crate) type HeadRow = (i64, Vec<u8>, i64, Vec<u8>, Vec<u8>);
/// `seals` columns: id, first leaf, leaf count, positions, leaf hashes, root.
pub(crate) type SealRow = (i64, i64, i64, Vec<u8>, Vec<u8>, Vec<u8>);
/// The last `seals` row: id, first leaf, leaf count, last position, frontier.
pub(crate) type LastSeal = (i64, i64, i64, i64, Vec<u8>);
/// The last `tree_heads` row: size, signed at.
pub(crate) type LastHead = (i64, i64);

/// The tree as the last seal left it.
struct SealState {
    next_seal_id: i64,
    frontier: Frontier,
    last_position: i64,
    last_head: Option<(u64, Timestamp)>,
}

/// What a round will write: one `seals` row.
pub(crate) struct SealWrite {
    pub(crate) seal_id: i64,
    pub(crate) first_leaf: i64,
    pub(crate) leaf_count: i64,
    pub(crate) last_position: i64,
    pub(crate) positions: Vec<u8>,
    pub(crate) leaf_hashes: Vec<u8>,
    pub(crate) root: Vec<u8>,
    pub(crate) frontier: Vec<u8>,
    pub(crate) sealed_at: i64,
}

/// One sealing round's decisions. A backend's round (`store::postgres::seals`,
/// `store::sqlite::seals`) runs them inside its transaction: from the last seal and tree
/// head it read, [`Round::start`] says after which position to read the events' hashes;
/// from those, [`Round::fold`] says what to write (the seal row, and [`Round::head`], the
/// tree head if one is due).
pub(crate) struct Round<'a> {
    config: &'a SealerConfig,
    now: Timestamp,
    state: Option<SealState>,
    added: u64,
    head: Option<TreeHead>,
}

impl<'a> Round<'a> {
    fn new(config: &'a SealerConfig, now: Timestamp) -> Self {
        Self {
            config,
            now,
            state: None,
            added: 0,
            head: None,
        }
    }

    /// Takes the tree as the last seal left it; returns the position after which the round
    /// reads.
    pub(crate) fn start(
        &mut self,
        last_seal: Option<LastSeal>,
        last_head: Option<LastHead>,
    ) -> Result<i64, StoreError> {
        let state = parse_state(last_seal, last_head)?;
        let after = state.last_position;
        self.state = Some(state);
        Ok(after)
    }

    /// The most `(position, event hash)` rows the round reads.
    pub(crate) fn max_leaves(&self) -> i64 {
        i64::try_from(self.config.max_leaves_per_round).unwrap_or(i64::MAX)
    }

    /// Folds the `(position, event hash)` rows read into the tree; returns the seal row to
    /// write, if any rows were read.
    pub(crate) fn fold(
        &mut self,
        rows: &[(i64, Vec<u8>)],
    ) -> Result<Option<SealWrite>, StoreError> {
        let state = self.state.as_mut().ok_or_else(|| {
            StoreError::Corrupt("a sealing round folded before it started".into())
        })?;
        self.added = u64::try_from(rows.len()).unwrap_or(u64::MAX);
        let write = fold(state, rows, self.now)?;
        self.head = head_due(state, self.config, self.now);
        Ok(write)
    }

    /// The tree head to write with the seal row, if one is due.
    pub(crate) fn head(&self) -> Option<&TreeHead> {
        self.head.as_ref()
    }

    /// What the round did; `leader` is false if another sealer held the lock.
    fn outcome(self, leader: bool) -> SealOutcome {
        if let (true, Some(head), Some(publish)) = (leader, &self.head, &self.config.publish) {
            // A closed receiver means nobody publishes any more; the head is in the database.
            let _ = publish.send(head.clone());
        }
        match self.state {
            Some(state) if leader => SealOutcome {
                leader: true,
                leaves_added: self.added,
                tree_size: state.frontier.size(),
                root: state.frontier.root(),
                tree_head: self.head,
            },
            _ => SealOutcome {
                leader: false,
                leaves_added: 0,
                tree_size: 0,
                root: crate::merkle::empty_root(),
                tree_head: None,
            },
        }
    }
}

fn parse_state(
    last_seal: Option<LastSeal>,
    last_head: Option<LastHead>,
) -> Result<SealState, StoreError> {
    let (next_seal_id, frontier, last_position) = match last_seal {
        None => (1, Frontier::new(), 0),
        Some((seal_id, first_leaf, leaf_count, last_position, frontier)) => {
            let size = to_u64("tree size", first_leaf)? + to_u64("leaf count", leaf_count)?;
            let frontier = Frontier::from_bytes(size, &frontier)
                .ok_or_else(|| StoreError::Corrupt(format!("frontier of seal {seal_id}")))?;
            (seal_id + 1, frontier, last_position)
        }
    };
    let last_head = match last_head {
        None => None,
        Some((size, at)) => Some((to_u64("tree size", size)?, Timestamp::from_micros(at))),
    };
    Ok(SealState {
        next_seal_id,
        frontier,
        last_position,
        last_head,
    })
}

/// Folds new `(position, event hash)` rows into the tree.
fn fold(
    state: &mut SealState,
    rows: &[(i64, Vec<u8>)],
    now: Timestamp,
) -> Result<Option<SealWrite>, StoreError> {
    let Some(&(last_position, _)) = rows.last() else {
        return Ok(None);
    };
    let first_leaf = to_i64(state.frontier.size());
    let mut positions = Vec::with_capacity(rows.len() * 8);
    let mut leaf_hashes = Vec::with_capacity(rows.len() * 32);
    for (position, hash) in rows {
        let leaf = leaf_hash(&to_hash("event hash", hash)?);
        state.frontier.push(leaf);
        positions.extend_from_slice(&position.to_be_bytes());
        leaf_hashes.extend_from_slice(&leaf);
    }
    let write = SealWrite {
        seal_id: state.next_seal_id,
        first_leaf,
        leaf_count: i64::try_from(rows.len()).unwrap_or(i64::MAX),
        last_position,
        positions,
        leaf_hashes,
        root: state.frontier.root().to_vec(),
        frontier: state.frontier.to_bytes(),
        sealed_at: now.as_micros(),
    };
    state.last_position = last_position;
    Ok(Some(write))
}

fn head_due(state: &SealState, config: &SealerConfig, now: Timestamp) -> Option<TreeHead> {
    let key = config.signing_key.as_ref()?;
    let size = state.frontier.size();
    let due = match state.last_head {
        None => size > 0,
        Some((last_size, last_at)) => {
            let waited =
                u64::try_from(now.as_micros().saturating_sub(last_at.as_micros())).unwrap_or(0);
            size > last_size
                && (size - last_size >= config.sign_every_events
                    || u128::from(waited) >= config.sign_every.as_micros())
        }
    };
    due.then(|| TreeHead::sign(key, size, state.frontier.root(), now))
}

/// Stops the background sealer when dropped.
#[derive(Debug)]
pub struct SealerHandle {
    task: JoinHandle<()>,
}

impl SealerHandle {
    /// Stops the sealer (a round in progress is rolled back by the database).
    pub fn stop(self) {
        self.task.abort();
    }
}

impl Drop for SealerHandle {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Store {
    /// Runs one sealing round now. On PostgreSQL, returns `leader: false` without doing
    /// anything if another sealer (in any process) is mid-round or leading.
    pub async fn seal_once(&self, config: &SealerConfig) -> Result<SealOutcome, StoreError> {
        let mut round = Round::new(config, self.inner.clock.now());
        let leader = match &self.inner.db {
            Db::Postgres(pool) => postgres::seals::seal_once(pool, &mut round).await?,
            Db::Sqlite(pool) => sqlite::seals::seal_once(self, pool, &mut round).await?,
        };
        let outcome = round.outcome(leader);
        if outcome.leaves_added > 0 {
            self.wake_subscribers();
        }
        Ok(outcome)
    }

    /// Seals until nothing below the commit horizon is left unsealed.
    pub async fn seal_all(&self, config: &SealerConfig) -> Result<SealOutcome, StoreError> {
        loop {
            let outcome = self.seal_once(config).await?;
            if !outcome.leader || outcome.leaves_added == 0 {
                return Ok(outcome);
            }
        }
    }

    /// Starts the background sealer. On PostgreSQL it first becomes the leader by taking a
    /// session advisory lock on a connection of its own (released if the connection or the
    /// process dies: `store::postgres::seals::Leader`); until then it waits, so many
    /// instances can all start one.
    pub fn spawn_sealer(&self, config: SealerConfig) -> SealerHandle {
        let store = self.clone();
        SealerHandle {
            task: tokio::spawn(async move { store.sealer_loop(config).await }),
        }
    }

    async fn sealer_loop(self, config: SealerConfig) {
        let mut wake = self.inner.wake.subscribe();
        loop {
            match &self.inner.db {
                Db::Postgres(pool) => {
                    if let Some(mut leader) = postgres::seals::Leader::elect(pool).await {
                        self.lead(&mut leader, &config, &mut wake).await;
                        leader.step_down().await;
                    }
                    tokio::time::sleep(config.poll_interval.saturating_mul(5)).await;
                }
                Db::Sqlite(_) => {
                    let more = match self.seal_once(&config).await {
                        Ok(o) => {
                            o.leaves_added
                                >= u64::try_from(config.max_leaves_per_round).unwrap_or(u64::MAX)
                        }
                        Err(_) => false,
                    };
                    if !more {
                        wait(&mut wake, config.poll_interval).await;
                    }
                }
            }
        }
    }

    /// Rounds on the leader's connection until one fails.
    async fn lead(
        &self,
        leader: &mut postgres::seals::Leader,
        config: &SealerConfig,
        wake: &mut tokio::sync::watch::Receiver<u64>,
    ) {
        loop {
            wake.borrow_and_update();
            let mut round = Round::new(config, self.inner.clock.now());
            match leader.seal(&mut round).await.map(|l| round.outcome(l)) {
                Ok(o) => {
                    if o.leaves_added > 0 {
                        self.wake_subscribers();
                    }
                    if o.leaves_added
                        < u64::try_from(config.max_leaves_per_round).unwrap_or(u64::MAX)
                    {
                        wait(wake, config.poll_interval).await;
                    }
                }
                Err(_) => return,
            }
        }
    }

    /// Every signed tree head, smallest first.
    pub async fn tree_heads(&self) -> Result<Vec<TreeHead>, StoreError> {
        let rows = match &self.inner.db {
            Db::Postgres(pool) => postgres::seals::tree_heads(pool).await?,
            Db::Sqlite(pool) => sqlite::seals::tree_heads(pool).await?,
        };
        rows.into_iter()
            .map(|(size, root, at, key, sig)| {
                Ok(TreeHead {
                    tree_size: to_u64("tree size", size)?,
                    root: to_hash("root", &root)?,
                    signed_at: Timestamp::from_micros(at),
                    public_key: <[u8; 32]>::try_from(key.as_slice())
                        .map_err(|_| StoreError::Corrupt("public key length".into()))?,
                    signature: <[u8; 64]>::try_from(sig.as_slice())
                        .map_err(|_| StoreError::Corrupt("signature length".into()))?,
                })
            })
            .collect()
    }

    /// The sealed leaves in tree order: `(position, leaf hash)` for leaf 0, 1, ...
    /// Also checks that the seals are contiguous; reports the first seal that is not.
    pub async fn sealed_leaves(&self) -> Result<SealedLog, StoreError> {
        let rows = match &self.inner.db {
            Db::Postgres(pool) => postgres::seals::seals(pool).await?,
            Db::Sqlite(pool) => sqlite::seals::seals(pool).await?,
        };
        let mut log = SealedLog::default();
        for (seal_id, first_leaf, leaf_count, positions, leaves, root) in rows {
            let count = usize::try_from(leaf_count).unwrap_or(0);
            let intact = usize::try_from(first_leaf).ok() == Some(log.leaves.len())
                && count >= 1
                && positions.len() == count * 8
                && leaves.len() == count * 32;
            if !intact {
                log.broken_seal = Some(seal_id);
                break;
            }
            for (p, l) in positions.chunks_exact(8).zip(leaves.chunks_exact(32)) {
                let p = i64::from_be_bytes(<[u8; 8]>::try_from(p).unwrap_or_default());
                log.positions.push(to_u64("position", p)?);
                log.leaves.push(to_hash("leaf", l)?);
            }
            log.seal_roots
                .push((log.leaves.len(), to_hash("root", &root)?, seal_id));
        }
        Ok(log)
    }
}

/// The sealed part of the log as the `seals` table records it.
#[derive(Clone, Debug, Default)]
pub struct SealedLog {
    /// Position of each leaf.
    pub positions: Vec<u64>,
    /// Leaf hashes (`SHA-256(0x00 || event hash)`).
    pub leaves: Vec<Hash>,
    /// `(tree size, root, seal id)` recorded at the end of each seal.
    pub seal_roots: Vec<(usize, Hash, i64)>,
    /// The first seal row that does not continue the previous one, if any.
    pub broken_seal: Option<i64>,
}

async fn wait(wake: &mut tokio::sync::watch::Receiver<u64>, poll: Duration) {
    tokio::select! {
        changed = wake.changed() => {
            if changed.is_err() {
                tokio::time::sleep(poll).await;
            }
        }
        () = tokio::time::sleep(poll) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tree_head_verifies_only_under_its_own_key_and_contents() {
        let key = SigningKey::from_bytes(&[7; 32]);
        let other = SigningKey::from_bytes(&[8; 32]);
        let head = TreeHead::sign(&key, 5, [3; 32], Timestamp::from_micros(42));
        assert!(head.verify(&key.verifying_key()));
        assert!(!head.verify(&other.verifying_key()));
        let mut bent = head.clone();
        bent.tree_size = 6;
        assert!(!bent.verify(&key.verifying_key()));
        let mut bent = head;
        bent.root[0] ^= 1;
        assert!(!bent.verify(&key.verifying_key()));
    }
}
