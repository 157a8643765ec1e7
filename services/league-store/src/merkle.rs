//! RFC 6962 / RFC 9162 Merkle trees: hashing, an incremental frontier for the sealer, and
//! inclusion and consistency proofs with the verification algorithms an auditor runs.
//!
//! Leaves are event hashes: `leaf = SHA-256(0x00 || event_hash)`,
//! `node = SHA-256(0x01 || left || right)`, the empty tree's root is `SHA-256("")`.
//! Pure functions over slices of leaf hashes; no IO.

use sha2::{Digest, Sha256};

use crate::types::Hash;

/// `SHA-256(0x00 || event_hash)`.
pub fn leaf_hash(event_hash: &Hash) -> Hash {
    let mut h = Sha256::new();
    h.update([0u8]);
    h.update(event_hash);
    h.finalize().into()
}

/// `SHA-256(0x01 || left || right)`.
pub fn node_hash(left: &Hash, right: &Hash) -> Hash {
    let mut h = Sha256::new();
    h.update([1u8]);
    h.update(left);
    h.update(right);
    h.finalize().into()
}

/// Root of the empty tree: `SHA-256("")`.
pub fn empty_root() -> Hash {
    Sha256::digest([]).into()
}

/// The largest power of two strictly less than `n` (`n >= 2`).
fn split(n: usize) -> usize {
    let mut k = 1;
    while k << 1 < n {
        k <<= 1;
    }
    k
}

/// RFC 6962 `MTH` over leaf hashes (already `leaf_hash`ed).
pub fn root(leaves: &[Hash]) -> Hash {
    match leaves {
        [] => empty_root(),
        [one] => *one,
        _ => {
            let k = split(leaves.len());
            node_hash(&root(&leaves[..k]), &root(&leaves[k..]))
        }
    }
}

/// RFC 6962 `PATH(m, D[n])`: the audit path of leaf `index` in the tree of `leaves`.
/// `None` if `index` is out of range.
pub fn inclusion_proof(leaves: &[Hash], index: usize) -> Option<Vec<Hash>> {
    if index >= leaves.len() {
        return None;
    }
    let mut path = Vec::new();
    path_into(leaves, index, &mut path);
    Some(path)
}

fn path_into(leaves: &[Hash], m: usize, out: &mut Vec<Hash>) {
    if leaves.len() <= 1 {
        return;
    }
    let k = split(leaves.len());
    if m < k {
        path_into(&leaves[..k], m, out);
        out.push(root(&leaves[k..]));
    } else {
        path_into(&leaves[k..], m - k, out);
        out.push(root(&leaves[..k]));
    }
}

/// RFC 6962 `PROOF(m, D[n])`: proves that the tree of the first `old_size` leaves is a prefix
/// of the tree of all `leaves`. `None` unless `0 < old_size <= leaves.len()`.
pub fn consistency_proof(leaves: &[Hash], old_size: usize) -> Option<Vec<Hash>> {
    if old_size == 0 || old_size > leaves.len() {
        return None;
    }
    let mut out = Vec::new();
    subproof(old_size, leaves, true, &mut out);
    Some(out)
}

fn subproof(m: usize, leaves: &[Hash], complete: bool, out: &mut Vec<Hash>) {
    let n = leaves.len();
    if m == n {
        if !complete {
            out.push(root(leaves));
        }
        return;
    }
    let k = split(n);
    if m <= k {
        subproof(m, &leaves[..k], complete, out);
        out.push(root(&leaves[k..]));
    } else {
        subproof(m - k, &leaves[k..], false, out);
        out.push(root(&leaves[..k]));
    }
}

/// RFC 9162 §2.1.3.2: does `proof` show that `leaf` (a leaf hash) is at `index` in the tree
/// of `tree_size` leaves with root `root`?
pub fn verify_inclusion(
    leaf: &Hash,
    index: u64,
    tree_size: u64,
    proof: &[Hash],
    root: &Hash,
) -> bool {
    if index >= tree_size {
        return false;
    }
    let (mut fnode, mut snode) = (index, tree_size - 1);
    let mut r = *leaf;
    for p in proof {
        if snode == 0 {
            return false;
        }
        if fnode & 1 == 1 || fnode == snode {
            r = node_hash(p, &r);
            while fnode & 1 == 0 && fnode != 0 {
                fnode >>= 1;
                snode >>= 1;
            }
        } else {
            r = node_hash(&r, p);
        }
        fnode >>= 1;
        snode >>= 1;
    }
    snode == 0 && r == *root
}

/// RFC 9162 §2.1.4.2: does `proof` show that the tree of `old_size` leaves with root
/// `old_root` is a prefix of the tree of `new_size` leaves with root `new_root`?
pub fn verify_consistency(
    old_size: u64,
    new_size: u64,
    old_root: &Hash,
    new_root: &Hash,
    proof: &[Hash],
) -> bool {
    if old_size > new_size {
        return false;
    }
    if old_size == new_size {
        return proof.is_empty() && old_root == new_root;
    }
    if old_size == 0 {
        // Every tree extends the empty tree; there is nothing to prove.
        return proof.is_empty() && *old_root == empty_root();
    }
    let mut path: Vec<Hash> = Vec::with_capacity(proof.len() + 1);
    if old_size.is_power_of_two() {
        path.push(*old_root);
    }
    path.extend_from_slice(proof);
    let Some((first, rest)) = path.split_first() else {
        return false;
    };
    let (mut fnode, mut snode) = (old_size - 1, new_size - 1);
    while fnode & 1 == 1 {
        fnode >>= 1;
        snode >>= 1;
    }
    let (mut fr, mut sr) = (*first, *first);
    for c in rest {
        if snode == 0 {
            return false;
        }
        if fnode & 1 == 1 || fnode == snode {
            fr = node_hash(c, &fr);
            sr = node_hash(c, &sr);
            while fnode & 1 == 0 && fnode != 0 {
                fnode >>= 1;
                snode >>= 1;
            }
        } else {
            sr = node_hash(&sr, c);
        }
        fnode >>= 1;
        snode >>= 1;
    }
    fr == *old_root && sr == *new_root && snode == 0
}

/// The right edge of an append-only tree: the roots of its perfect subtrees, largest first.
/// Enough to append leaves and compute the root without the earlier leaves.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Frontier {
    size: u64,
    /// Roots of perfect subtrees whose sizes are the set bits of `size`, high bit first.
    nodes: Vec<Hash>,
}

impl Frontier {
    /// The empty tree.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of leaves.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// Appends a leaf hash.
    pub fn push(&mut self, leaf: Hash) {
        let mut h = leaf;
        // Every trailing one bit of `size` is a perfect subtree that the new leaf completes.
        let mut s = self.size;
        while s & 1 == 1 {
            if let Some(left) = self.nodes.pop() {
                h = node_hash(&left, &h);
            }
            s >>= 1;
        }
        self.nodes.push(h);
        self.size += 1;
    }

    /// The tree's root (RFC 6962 `MTH`).
    pub fn root(&self) -> Hash {
        let mut it = self.nodes.iter().rev();
        let Some(last) = it.next() else {
            return empty_root();
        };
        it.fold(*last, |acc, left| node_hash(left, &acc))
    }

    /// Serialises the subtree roots (32 bytes each, largest subtree first).
    pub fn to_bytes(&self) -> Vec<u8> {
        self.nodes.concat()
    }

    /// Rebuilds a frontier from its size and `to_bytes`; `None` if they disagree.
    pub fn from_bytes(size: u64, bytes: &[u8]) -> Option<Self> {
        if !bytes.len().is_multiple_of(32)
            || u64::try_from(bytes.len() / 32).ok()? != u64::from(size.count_ones())
        {
            return None;
        }
        let nodes = bytes
            .chunks_exact(32)
            .map(|c| <Hash>::try_from(c).ok())
            .collect::<Option<Vec<_>>>()?;
        Some(Self { size, nodes })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leaves(n: usize) -> Vec<Hash> {
        (0..n)
            .map(|i| leaf_hash(&Sha256::digest(i.to_be_bytes()).into()))
            .collect()
    }

    /// The textbook definition, written independently of `root`: hash pairs level by level,
    /// promoting an odd last node (which is what RFC 6962's split produces).
    fn naive_root(leaves: &[Hash]) -> Hash {
        if leaves.is_empty() {
            return empty_root();
        }
        let mut level = leaves.to_vec();
        while level.len() > 1 {
            level = level
                .chunks(2)
                .map(|p| {
                    if p.len() == 2 {
                        node_hash(&p[0], &p[1])
                    } else {
                        p[0]
                    }
                })
                .collect();
        }
        level[0]
    }

    #[test]
    fn the_frontier_and_the_recursive_root_agree_with_a_naive_recomputation() {
        let all = leaves(300);
        let mut f = Frontier::new();
        assert_eq!(f.root(), naive_root(&[]));
        for n in 1..=all.len() {
            f.push(all[n - 1]);
            let naive = naive_root(&all[..n]);
            assert_eq!(root(&all[..n]), naive, "size {n}");
            assert_eq!(f.root(), naive, "size {n}");
            let g = Frontier::from_bytes(f.size(), &f.to_bytes()).unwrap();
            assert_eq!(g, f);
        }
    }

    #[test]
    fn every_inclusion_proof_verifies_and_a_wrong_one_does_not() {
        let all = leaves(70);
        for n in 1..=all.len() {
            let r = naive_root(&all[..n]);
            for i in 0..n {
                let p = inclusion_proof(&all[..n], i).unwrap();
                let (i64_, n64) = (u64::try_from(i).unwrap(), u64::try_from(n).unwrap());
                assert!(verify_inclusion(&all[i], i64_, n64, &p, &r), "n={n} i={i}");
                let wrong_leaf = all[(i + 1) % all.len()];
                assert!(
                    !verify_inclusion(&wrong_leaf, i64_, n64, &p, &r)
                        || n == 1 && wrong_leaf == all[i]
                );
                if n > 1 {
                    assert!(
                        !verify_inclusion(&all[i], (i64_ + 1) % n64, n64, &p, &r),
                        "n={n} i={i}"
                    );
                    let mut bad = p.clone();
                    bad[0][0] ^= 1;
                    assert!(!verify_inclusion(&all[i], i64_, n64, &bad, &r));
                }
                let mut longer = p.clone();
                longer.push(all[0]);
                assert!(
                    !verify_inclusion(&all[i], i64_, n64, &longer, &r),
                    "n={n} i={i}"
                );
            }
            assert!(inclusion_proof(&all[..n], n).is_none());
        }
    }

    #[test]
    fn every_consistency_proof_verifies_and_a_wrong_one_does_not() {
        let all = leaves(70);
        for n in 1..=all.len() {
            let rn = naive_root(&all[..n]);
            for m in 1..=n {
                let rm = naive_root(&all[..m]);
                let p = consistency_proof(&all[..n], m).unwrap();
                let (m64, n64) = (u64::try_from(m).unwrap(), u64::try_from(n).unwrap());
                assert!(verify_consistency(m64, n64, &rm, &rn, &p), "m={m} n={n}");
                if m < n {
                    let mut bad_old = rm;
                    bad_old[5] ^= 0x40;
                    assert!(
                        !verify_consistency(m64, n64, &bad_old, &rn, &p),
                        "m={m} n={n}"
                    );
                    let mut bad_new = rn;
                    bad_new[5] ^= 0x40;
                    assert!(
                        !verify_consistency(m64, n64, &rm, &bad_new, &p),
                        "m={m} n={n}"
                    );
                    if !p.is_empty() {
                        let mut bad = p.clone();
                        let last = bad.len() - 1;
                        bad[last][0] ^= 1;
                        assert!(!verify_consistency(m64, n64, &rm, &rn, &bad), "m={m} n={n}");
                    }
                }
            }
            assert!(consistency_proof(&all[..n], 0).is_none());
            assert!(consistency_proof(&all[..n], n + 1).is_none());
        }
    }

    #[test]
    fn a_larger_tree_still_agrees() {
        let all = leaves(1025);
        let r = naive_root(&all);
        for i in [0, 1, 511, 512, 513, 1023, 1024] {
            let p = inclusion_proof(&all, i).unwrap();
            assert!(verify_inclusion(
                &all[i],
                u64::try_from(i).unwrap(),
                1025,
                &p,
                &r
            ));
        }
        for m in [1, 2, 3, 512, 513, 1000, 1024] {
            let p = consistency_proof(&all, m).unwrap();
            assert!(verify_consistency(
                u64::try_from(m).unwrap(),
                1025,
                &naive_root(&all[..m]),
                &r,
                &p
            ));
        }
    }
}
