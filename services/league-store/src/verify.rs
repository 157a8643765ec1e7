//! The auditor's side: `verify` walks the log and reports the first position where a
//! stream's chain or the Merkle tree breaks; proofs of inclusion and consistency.

use std::collections::HashMap;
use std::fmt;

use ed25519_dalek::VerifyingKey;

use crate::error::StoreError;
use crate::hash::{ZERO_HASH, event_hash, to_hex};
use crate::merkle::{self, Frontier, leaf_hash};
use crate::store::{Db, Store, postgres, sqlite, to_i64};
use crate::types::{Hash, RecordedEvent};

/// What is wrong at the reported position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BreakKind {
    /// The stored hash is not the hash of the stored envelope, payload and previous hash:
    /// the row was edited.
    HashMismatch,
    /// The event's previous hash is not the hash of its stream's previous event.
    ChainMismatch {
        /// The stream.
        stream_id: String,
    },
    /// The stream's versions do not follow on (an event was deleted, or the global order
    /// puts a stream's events out of version order).
    VersionGap {
        /// The stream.
        stream_id: String,
        /// The version that should come next.
        expected: u64,
        /// The version found.
        found: u64,
    },
    /// The sealed tree has an event at this position; the log no longer does.
    MissingEvent,
    /// The event lies in the sealed range of positions but is not in the tree there.
    NotInTree,
    /// The event's leaf hash differs from the sealed leaf at its place in the tree.
    LeafMismatch,
    /// A `seals` row does not continue the tree, or its root is not the root of its leaves.
    SealCorrupt {
        /// The row.
        seal_id: i64,
    },
    /// A signed tree head's root is not the root of the sealed leaves, or its signature does
    /// not verify under the league's key.
    TreeHeadMismatch {
        /// The head's tree size.
        tree_size: u64,
    },
}

/// The first break found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Break {
    /// The global position where the log stops being what was written.
    pub position: u64,
    /// What is wrong there.
    pub kind: BreakKind,
}

impl fmt::Display for Break {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "position {}: ", self.position)?;
        match &self.kind {
            BreakKind::HashMismatch => f.write_str("the event's hash does not match its contents"),
            BreakKind::ChainMismatch { stream_id } => {
                write!(f, "the chain of stream {stream_id:?} is broken")
            }
            BreakKind::VersionGap {
                stream_id,
                expected,
                found,
            } => write!(
                f,
                "stream {stream_id:?} jumps from version {expected} to {found}"
            ),
            BreakKind::MissingEvent => f.write_str("a sealed event is missing"),
            BreakKind::NotInTree => f.write_str("an event that the sealed tree does not have"),
            BreakKind::LeafMismatch => f.write_str("the event differs from the sealed leaf"),
            BreakKind::SealCorrupt { seal_id } => write!(f, "seal {seal_id} is corrupt"),
            BreakKind::TreeHeadMismatch { tree_size } => {
                write!(f, "the signed tree head of size {tree_size} does not match")
            }
        }
    }
}

/// What `verify` checked and the first break, if any.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VerifyReport {
    /// Events whose hash and chain were checked.
    pub events_checked: u64,
    /// Of those, how many of each event type.
    pub events_by_type: std::collections::BTreeMap<String, u64>,
    /// Leaves in the sealed tree.
    pub tree_size: u64,
    /// Root of the sealed tree.
    pub root: Option<Hash>,
    /// Signed tree heads whose root and signature were checked.
    pub tree_heads_checked: u64,
    /// True if no trusted key was given, so signatures were only checked against the key
    /// stored with them (which proves nothing against someone who can write the database).
    pub signatures_self_checked: bool,
    /// Leaves covered by the largest tree head whose signature and root verified.
    pub signed_size: u64,
    /// Events checked that no verified tree head covers (the end of the log).
    pub uncovered: Option<Uncovered>,
    /// The first break, by position.
    pub first_break: Option<Break>,
}

impl VerifyReport {
    /// True when the league's key was given and part of the log checked is covered by no
    /// tree head signed with it.
    pub fn not_covered(&self) -> bool {
        !self.signatures_self_checked && self.uncovered.is_some()
    }
}

/// The end of the log that no verified signed tree head covers: whoever can write the
/// database could have rewritten or removed it without a trace in the log itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Uncovered {
    /// Its first event's position.
    pub from: u64,
    /// When that event was recorded.
    pub recorded_at: crate::types::Timestamp,
    /// How many events it holds.
    pub events: u64,
}

impl fmt::Display for VerifyReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "events checked:     {}", self.events_checked)?;
        if !self.events_by_type.is_empty() {
            let kinds: Vec<String> = self
                .events_by_type
                .iter()
                .map(|(kind, n)| format!("{kind} {n}"))
                .collect();
            writeln!(f, "  by type:          {}", kinds.join(", "))?;
        }
        writeln!(f, "sealed tree size:   {}", self.tree_size)?;
        if let Some(root) = &self.root {
            writeln!(f, "sealed tree root:   {}", to_hex(root))?;
        }
        write!(f, "tree heads checked: {}", self.tree_heads_checked)?;
        if self.signatures_self_checked && self.tree_heads_checked > 0 {
            write!(f, " (against their own key: pass --public-key to trust)")?;
        }
        writeln!(f)?;
        writeln!(f, "signed tree size:   {}", self.signed_size)?;
        if let Some(u) = &self.uncovered {
            writeln!(
                f,
                "not signed:         {} events from position {}",
                u.events, u.from
            )?;
        }
        match (&self.first_break, &self.uncovered) {
            (Some(b), _) => write!(f, "BROKEN at {b}"),
            (None, Some(u)) if !self.signatures_self_checked => write!(
                f,
                "NOT COVERED: {} events from position {} are covered by no signed tree head",
                u.events, u.from
            ),
            (None, _) => write!(f, "OK: no break"),
        }
    }
}

/// An inclusion proof for one event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InclusionProof {
    /// The event's position.
    pub position: u64,
    /// Its index in the tree.
    pub leaf_index: u64,
    /// The tree size the proof is for.
    pub tree_size: u64,
    /// `SHA-256(0x00 || event hash)`.
    pub leaf_hash: Hash,
    /// RFC 6962 audit path.
    pub path: Vec<Hash>,
}

impl InclusionProof {
    /// Checks the proof against a root (e.g. from a signed tree head).
    pub fn verify(&self, root: &Hash) -> bool {
        merkle::verify_inclusion(
            &self.leaf_hash,
            self.leaf_index,
            self.tree_size,
            &self.path,
            root,
        )
    }
}

fn earliest(a: Option<Break>, b: Option<Break>) -> Option<Break> {
    match (a, b) {
        (Some(a), Some(b)) => Some(if b.position < a.position { b } else { a }),
        (a, b) => a.or(b),
    }
}

/// The league's public keys over the life of its log: each key signs the tree heads from
/// a tree size on, until the next key's (a key rotated at a restart of the server with a
/// new `--signing-key`).
#[derive(Clone, Debug)]
pub struct TrustedKeys {
    /// By first tree size, increasing; the first from 0.
    keys: Vec<(u64, VerifyingKey)>,
}

impl TrustedKeys {
    /// One key for the whole log.
    pub fn one(key: VerifyingKey) -> TrustedKeys {
        TrustedKeys {
            keys: vec![(0, key)],
        }
    }

    /// Keys each with the first tree size it signs: one must start at 0, and no two at the
    /// same size.
    pub fn new(mut keys: Vec<(u64, VerifyingKey)>) -> Result<TrustedKeys, String> {
        keys.sort_by_key(|(from, _)| *from);
        if keys.first().is_none_or(|(from, _)| *from != 0) {
            return Err("one public key must cover the log from tree size 0".into());
        }
        if keys.windows(2).any(|w| w[0].0 == w[1].0) {
            return Err("two public keys start at the same tree size".into());
        }
        Ok(TrustedKeys { keys })
    }

    /// The key that signs the head of a tree of `size` leaves.
    pub fn for_size(&self, size: u64) -> &VerifyingKey {
        let i = self.keys.partition_point(|(from, _)| *from <= size);
        &self.keys[i.saturating_sub(1)].1
    }
}

impl Store {
    /// Walks the events with positions in `[from, to]` and the sealed tree, and reports the
    /// first position where a stream's chain or the tree breaks. Signed tree heads are
    /// checked against `trusted_key` (the league's public key) when given.
    pub async fn verify(
        &self,
        from: u64,
        to: u64,
        trusted_key: Option<&VerifyingKey>,
    ) -> Result<VerifyReport, StoreError> {
        let keys = trusted_key.map(|k| TrustedKeys::one(*k));
        self.verify_with_keys(from, to, keys.as_ref()).await
    }

    /// [`Store::verify`], each signed tree head checked against the key `trusted` has for
    /// its tree size (a league that rotated its key).
    pub async fn verify_with_keys(
        &self,
        from: u64,
        to: u64,
        trusted_key: Option<&TrustedKeys>,
    ) -> Result<VerifyReport, StoreError> {
        self.verify_with_progress(from, to, trusted_key, &mut |_, _| {})
            .await
    }

    /// [`Store::verify_with_keys`], calling `progress(position, events checked)` after each
    /// page of the walk (a progress bar).
    pub async fn verify_with_progress(
        &self,
        from: u64,
        to: u64,
        trusted_key: Option<&TrustedKeys>,
        progress: &mut (dyn FnMut(u64, u64) + Send),
    ) -> Result<VerifyReport, StoreError> {
        let sealed = self.sealed_leaves().await?;
        // A head of size 0 covers nothing and is never signed: it is checked with the heads
        // beyond the tree, after the others.
        let (empty, heads): (Vec<_>, Vec<_>) = self
            .tree_heads()
            .await?
            .into_iter()
            .partition(|h| h.tree_size == 0);
        let mut report = VerifyReport {
            tree_size: u64::try_from(sealed.leaves.len()).unwrap_or(u64::MAX),
            root: Some(merkle::root(&sealed.leaves)),
            signatures_self_checked: trusted_key.is_none(),
            ..VerifyReport::default()
        };
        let position_of = |leaf: usize| -> u64 {
            sealed
                .positions
                .get(leaf)
                .or(sealed.positions.last())
                .copied()
                .unwrap_or(0)
        };

        // 1. The tree as sealed: contiguous seals, each root the root of its leaves, each
        //    signed head the root at its size, signed by the league.
        let mut tree_break = sealed.broken_seal.map(|seal_id| Break {
            position: sealed.positions.last().map_or(0, |p| p + 1),
            kind: BreakKind::SealCorrupt { seal_id },
        });
        let mut frontier = Frontier::new();
        let mut seal_ends = sealed.seal_roots.iter().peekable();
        let mut head_iter = heads.iter().peekable();
        let mut seal_start = 0usize;
        for (i, leaf) in sealed.leaves.iter().enumerate() {
            frontier.push(*leaf);
            let size = i + 1;
            if let Some((end, root, seal_id)) = seal_ends.peek()
                && *end == size
            {
                if frontier.root() != *root && tree_break.is_none() {
                    tree_break = Some(Break {
                        position: position_of(seal_start),
                        kind: BreakKind::SealCorrupt { seal_id: *seal_id },
                    });
                }
                seal_start = size;
                seal_ends.next();
            }
            while let Some(head) = head_iter.peek() {
                if usize::try_from(head.tree_size).ok() != Some(size) {
                    break;
                }
                report.tree_heads_checked += 1;
                let key = match trusted_key {
                    Some(keys) => Some(*keys.for_size(head.tree_size)),
                    None => VerifyingKey::from_bytes(&head.public_key).ok(),
                };
                let signed = key.is_some_and(|k| head.verify(&k));
                if signed && head.root == frontier.root() {
                    report.signed_size = report.signed_size.max(head.tree_size);
                }
                if (!signed || head.root != frontier.root()) && tree_break.is_none() {
                    tree_break = Some(Break {
                        position: position_of(i),
                        kind: BreakKind::TreeHeadMismatch {
                            tree_size: head.tree_size,
                        },
                    });
                }
                head_iter.next();
            }
        }
        // Heads beyond the sealed tree (or of size 0) cannot be right.
        for head in head_iter.chain(empty.iter()) {
            report.tree_heads_checked += 1;
            if tree_break.is_none() {
                tree_break = Some(Break {
                    position: position_of(sealed.leaves.len()),
                    kind: BreakKind::TreeHeadMismatch {
                        tree_size: head.tree_size,
                    },
                });
            }
        }
        let tree_break = tree_break.filter(|b| b.position >= from && b.position <= to);

        // 2. Every event in range: its own hash, its stream's chain, its place in the tree.
        let mut walk_break = None;
        let mut leaf = sealed.positions.partition_point(|p| *p < from);
        let last_sealed = sealed.positions.last().copied();
        let mut chains: HashMap<String, (u64, Hash)> = HashMap::new();
        // The last position a verified signed head covers.
        let signed_through = usize::try_from(report.signed_size)
            .ok()
            .and_then(|n| n.checked_sub(1))
            .and_then(|i| sealed.positions.get(i).copied());
        let mut next = from;
        'walk: loop {
            let page = self.read_range(next, to, 5_000).await?;
            let Some(last) = page.last() else { break };
            next = last.position.saturating_add(1);
            for e in &page {
                report.events_checked += 1;
                match report.events_by_type.get_mut(e.event_type.as_str()) {
                    Some(n) => *n += 1,
                    None => {
                        report.events_by_type.insert(e.event_type.clone(), 1);
                    }
                }
                if signed_through.is_none_or(|p| e.position > p) {
                    let u = report.uncovered.get_or_insert(Uncovered {
                        from: e.position,
                        recorded_at: e.recorded_at,
                        events: 0,
                    });
                    u.events += 1;
                }
                if let Some(b) = self
                    .check_event(e, &sealed, &mut leaf, last_sealed, &mut chains)
                    .await?
                {
                    walk_break = Some(b);
                    break 'walk;
                }
            }
            progress(last.position, report.events_checked);
            if next > to {
                break;
            }
        }
        if walk_break.is_none()
            && let Some(p) = sealed.positions.get(leaf)
            && *p <= to
        {
            walk_break = Some(Break {
                position: *p,
                kind: BreakKind::MissingEvent,
            });
        }
        report.first_break = earliest(tree_break, walk_break);
        Ok(report)
    }

    async fn check_event(
        &self,
        e: &RecordedEvent,
        sealed: &crate::sealer::SealedLog,
        leaf: &mut usize,
        last_sealed: Option<u64>,
        chains: &mut HashMap<String, (u64, Hash)>,
    ) -> Result<Option<Break>, StoreError> {
        let at = |kind| {
            Ok(Some(Break {
                position: e.position,
                kind,
            }))
        };
        // Place in the tree.
        if let Some(p) = sealed.positions.get(*leaf)
            && *p < e.position
        {
            return Ok(Some(Break {
                position: *p,
                kind: BreakKind::MissingEvent,
            }));
        }
        if sealed.positions.get(*leaf) == Some(&e.position) {
            if sealed.leaves.get(*leaf) != Some(&leaf_hash(&e.hash)) {
                return at(BreakKind::LeafMismatch);
            }
            *leaf += 1;
        } else if last_sealed.is_some_and(|l| e.position <= l) {
            return at(BreakKind::NotInTree);
        }
        // Its own hash.
        let recomputed = event_hash(&e.hash_fields());
        if recomputed != e.hash {
            return at(BreakKind::HashMismatch);
        }
        // Its stream's chain.
        let previous = match chains.get(&e.stream_id) {
            Some(p) => Some(*p),
            None if e.stream_version == 1 => None,
            None => {
                // The stream's earlier events lie before the range: fetch the predecessor.
                match self.event_at(&e.stream_id, e.stream_version - 1).await? {
                    Some(p) if p.position < e.position => Some((p.stream_version, p.hash)),
                    Some(_) | None => {
                        return at(BreakKind::VersionGap {
                            stream_id: e.stream_id.clone(),
                            expected: 1,
                            found: e.stream_version,
                        });
                    }
                }
            }
        };
        let (expected_version, expected_prev) =
            previous.map_or((1, ZERO_HASH), |(v, h)| (v + 1, h));
        if e.stream_version != expected_version {
            return at(BreakKind::VersionGap {
                stream_id: e.stream_id.clone(),
                expected: expected_version,
                found: e.stream_version,
            });
        }
        if e.prev_hash != expected_prev {
            return at(BreakKind::ChainMismatch {
                stream_id: e.stream_id.clone(),
            });
        }
        match chains.get_mut(e.stream_id.as_str()) {
            Some(head) => *head = (e.stream_version, e.hash),
            None => {
                chains.insert(e.stream_id.clone(), (e.stream_version, e.hash));
            }
        }
        Ok(None)
    }

    /// Events with positions in `[from, to]`, ignoring the commit horizon (an auditor wants
    /// everything stored).
    pub(crate) async fn read_range(
        &self,
        from: u64,
        to: u64,
        limit: i64,
    ) -> Result<Vec<RecordedEvent>, StoreError> {
        // An SQLite file whose events have ids reads in place (`store::sqlite::direct`); on
        // SQLite every stored event is below the commit horizon, so `read_events` is the
        // range.
        if let (Db::Sqlite(_), Some(direct), true) =
            (&self.inner.db, &self.inner.direct, self.inner.event_ids)
        {
            let limit = usize::try_from(limit).unwrap_or(usize::MAX);
            let mut page = direct.read_events(from, limit).await?;
            page.retain(|e| e.position <= to);
            return Ok(page);
        }
        let (from, to) = (to_i64(from), to_i64(to));
        match &self.inner.db {
            Db::Postgres(pool) => {
                postgres::read_range(pool, from, to, limit, self.inner.event_ids).await
            }
            Db::Sqlite(pool) => {
                sqlite::read_range(pool, from, to, limit, self.inner.event_ids).await
            }
        }
    }

    /// The event of `stream_id` at `version`, if there is one.
    pub async fn event_at(
        &self,
        stream_id: &str,
        version: u64,
    ) -> Result<Option<RecordedEvent>, StoreError> {
        let version = to_i64(version);
        match &self.inner.db {
            Db::Postgres(pool) => {
                postgres::event_at(pool, stream_id, version, self.inner.event_ids).await
            }
            Db::Sqlite(pool) => {
                sqlite::event_at(pool, stream_id, version, self.inner.event_ids).await
            }
        }
    }

    /// Proves that the event at `position` is leaf `i` of the tree of `tree_size` leaves.
    pub async fn inclusion_proof(
        &self,
        position: u64,
        tree_size: u64,
    ) -> Result<InclusionProof, StoreError> {
        let sealed = self.sealed_leaves().await?;
        let size = usize::try_from(tree_size).unwrap_or(usize::MAX);
        if size > sealed.leaves.len() {
            return Err(StoreError::NoSuchTree(format!(
                "size {tree_size} is beyond the sealed tree"
            )));
        }
        let index = sealed.positions[..size]
            .binary_search(&position)
            .map_err(|_| {
                StoreError::NoSuchTree(format!(
                    "position {position} is not in the tree of size {tree_size}"
                ))
            })?;
        let path = merkle::inclusion_proof(&sealed.leaves[..size], index)
            .ok_or_else(|| StoreError::NoSuchTree(format!("leaf {index}")))?;
        Ok(InclusionProof {
            position,
            leaf_index: u64::try_from(index).unwrap_or(u64::MAX),
            tree_size,
            leaf_hash: sealed.leaves[index],
            path,
        })
    }

    /// Proves that the tree of `old_size` leaves is a prefix of the tree of `new_size`.
    pub async fn consistency_proof(
        &self,
        old_size: u64,
        new_size: u64,
    ) -> Result<Vec<Hash>, StoreError> {
        let sealed = self.sealed_leaves().await?;
        let new = usize::try_from(new_size).unwrap_or(usize::MAX);
        let old = usize::try_from(old_size).unwrap_or(usize::MAX);
        if new > sealed.leaves.len() || old > new {
            return Err(StoreError::NoSuchTree(format!("{old_size} -> {new_size}")));
        }
        if old == new {
            return Ok(Vec::new());
        }
        merkle::consistency_proof(&sealed.leaves[..new], old)
            .ok_or_else(|| StoreError::NoSuchTree(format!("{old_size} -> {new_size}")))
    }

    /// Root of the sealed tree of `tree_size` leaves.
    pub async fn tree_root(&self, tree_size: u64) -> Result<Hash, StoreError> {
        let sealed = self.sealed_leaves().await?;
        let size = usize::try_from(tree_size).unwrap_or(usize::MAX);
        sealed
            .leaves
            .get(..size)
            .map(merkle::root)
            .ok_or_else(|| StoreError::NoSuchTree(format!("size {tree_size}")))
    }
}
