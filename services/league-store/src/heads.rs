//! Signed tree heads kept outside the database, and the check of a log against them.
//!
//! Whoever can write the database can delete its `seals` and `tree_heads` rows and the end
//! of the log together, and what is left verifies. A head the league published (`league
//! serve --publish-tree-heads FILE`) or an auditor saved (`league audit tree-head`, the
//! `treeHead` query) survives that: [`Store::check_saved_heads`] recomputes the root of the
//! log's first `tree_size` events, from the events themselves (never from `seals`), and
//! compares it with the saved root.
//!
//! A saved head is one JSON object (`docs/event-store.md`, "Signed tree head"):
//! `{"tree_size":N,"root":HEX,"signed_at":MICROS,"signed_at_utc":TEXT,"public_key":HEX,
//! "signature":HEX}`; a file holds one, a JSON array of them, or one per line.

use std::fmt;

use ed25519_dalek::VerifyingKey;
use serde_json::{Value, json};

use crate::error::StoreError;
use crate::hash::{event_hash, from_hex, to_hex};
use crate::merkle::{Frontier, leaf_hash};
use crate::sealer::TreeHead;
use crate::store::Store;
use crate::types::Timestamp;
use crate::verify::TrustedKeys;

/// Most heads one file may hold (a head a minute for ten years is about five million; a
/// published file is read by an auditor's tools, so it is bounded here too).
pub const MAX_SAVED_HEADS: usize = 10_000_000;

impl TreeHead {
    /// The head as one line of JSON (no newline).
    pub fn to_json(&self) -> String {
        json!({
            "tree_size": self.tree_size,
            "root": to_hex(&self.root),
            "signed_at": self.signed_at.as_micros(),
            "signed_at_utc": self.signed_at.utc(),
            "public_key": to_hex(&self.public_key),
            "signature": to_hex(&self.signature),
        })
        .to_string()
    }

    fn from_value(v: &Value) -> Result<TreeHead, String> {
        let field = |name: &str| v.get(name).ok_or_else(|| format!("no {name:?}"));
        let bytes = |name: &str, len: usize| -> Result<Vec<u8>, String> {
            let text = field(name)?
                .as_str()
                .ok_or_else(|| format!("{name:?} is not a string"))?;
            let b = from_hex(text).ok_or_else(|| format!("{name:?} is not hex"))?;
            if b.len() == len {
                Ok(b)
            } else {
                Err(format!("{name:?} is not {len} bytes"))
            }
        };
        let tree_size = field("tree_size")?
            .as_u64()
            .ok_or("\"tree_size\" is not a whole number")?;
        let signed_at = field("signed_at")?
            .as_i64()
            .ok_or("\"signed_at\" is not a whole number of microseconds")?;
        Ok(TreeHead {
            tree_size,
            root: bytes("root", 32)?.try_into().map_err(|_| "root")?,
            signed_at: Timestamp::from_micros(signed_at),
            public_key: bytes("public_key", 32)?.try_into().map_err(|_| "key")?,
            signature: bytes("signature", 64)?
                .try_into()
                .map_err(|_| "signature")?,
        })
    }
}

/// The heads in `text`: one JSON object, a JSON array of objects, or one object per line
/// (blank lines skipped). Errors name the line (or the array index) that is wrong.
pub fn parse_heads(text: &str) -> Result<Vec<TreeHead>, String> {
    let trimmed = text.trim_start();
    if trimmed.starts_with('[') {
        // serde_json bounds nesting at 128 levels; a head has none.
        let list: Vec<Value> =
            serde_json::from_str(trimmed).map_err(|e| format!("not a JSON array: {e}"))?;
        if list.len() > MAX_SAVED_HEADS {
            return Err(format!("more than {MAX_SAVED_HEADS} heads"));
        }
        return list
            .iter()
            .enumerate()
            .map(|(i, v)| TreeHead::from_value(v).map_err(|e| format!("head {i}: {e}")))
            .collect();
    }
    let mut heads = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        if heads.len() == MAX_SAVED_HEADS {
            return Err(format!("more than {MAX_SAVED_HEADS} heads"));
        }
        let v: Value = serde_json::from_str(line)
            .map_err(|e| format!("line {}: not a JSON object: {e}", i + 1))?;
        heads.push(TreeHead::from_value(&v).map_err(|e| format!("line {}: {e}", i + 1))?);
    }
    if heads.is_empty() {
        return Err("no tree head in it".into());
    }
    Ok(heads)
}

/// What the log says to one saved head.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SavedHeadOutcome {
    /// The log's first `tree_size` events have the saved root: the log still holds exactly
    /// what the head covers.
    Holds,
    /// The signature does not verify under the league's key (or, with no key given, under
    /// the key in the head): the head proves nothing.
    BadSignature,
    /// The log's first `tree_size` events have another root: an event up to `to` was
    /// changed, removed, inserted or moved. `from` is the first position after the largest
    /// saved head that holds (0 if none), so the change lies in `[from, to]`.
    Differs {
        /// First position the change can be at.
        from: u64,
        /// Position of the head's last leaf in the log as it is.
        to: u64,
    },
    /// The log holds fewer events than the head covers: events after `last_position` (or
    /// every event, when `None`) were removed.
    Truncated {
        /// Events the log holds.
        events: u64,
        /// The log's last position.
        last_position: Option<u64>,
    },
}

/// One saved head and what the log says to it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SavedHeadCheck {
    /// The head.
    pub head: TreeHead,
    /// The verdict.
    pub outcome: SavedHeadOutcome,
}

impl SavedHeadCheck {
    /// True unless the log holds what the head covers.
    pub fn failed(&self) -> bool {
        self.outcome != SavedHeadOutcome::Holds
    }
}

impl fmt::Display for SavedHeadCheck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let h = &self.head;
        write!(
            f,
            "the head of {} events signed {}: ",
            h.tree_size,
            h.signed_at.utc()
        )?;
        match &self.outcome {
            SavedHeadOutcome::Holds => f.write_str("the log holds what it covers"),
            SavedHeadOutcome::BadSignature => {
                f.write_str("its signature does not verify under the league's key")
            }
            SavedHeadOutcome::Differs { from, to } => write!(
                f,
                "the log's first {} events have another root: an event between positions {from} and {to} was changed, removed, inserted or moved",
                h.tree_size
            ),
            SavedHeadOutcome::Truncated {
                events,
                last_position: Some(p),
            } => write!(
                f,
                "the log holds only {events} events: the {} after position {p} were removed",
                h.tree_size - events
            ),
            SavedHeadOutcome::Truncated {
                last_position: None,
                ..
            } => f.write_str("the log holds no events: every event it covers was removed"),
        }
    }
}

impl Store {
    /// Checks the log against heads saved outside the database: each signature against
    /// `keys` (the league's keys; `None`: the key in the head, which proves only that the
    /// file is intact), then the root of the log's first `tree_size` events, each event's
    /// hash recomputed from its contents, against the saved root. One pass over the log.
    pub async fn check_saved_heads(
        &self,
        heads: &[TreeHead],
        keys: Option<&TrustedKeys>,
    ) -> Result<Vec<SavedHeadCheck>, StoreError> {
        let mut order: Vec<usize> = (0..heads.len()).collect();
        order.sort_by_key(|i| heads[*i].tree_size);
        let mut outcomes: Vec<Option<SavedHeadOutcome>> = vec![None; heads.len()];
        let signed = |h: &TreeHead| {
            let key = match keys {
                Some(k) => Some(*k.for_size(h.tree_size)),
                None => VerifyingKey::from_bytes(&h.public_key).ok(),
            };
            key.is_some_and(|k| h.verify(&k))
        };
        let mut pending = order.into_iter().peekable();
        // Heads of size 0 cover nothing: only the signature counts.
        let mut frontier = Frontier::new();
        let mut last_position: Option<u64> = None;
        let mut held_through: u64 = 0; // first position after the largest head that holds
        let settle = |i: usize,
                      frontier: &Frontier,
                      last: Option<u64>,
                      held: &mut u64,
                      outcomes: &mut Vec<Option<SavedHeadOutcome>>| {
            let h = &heads[i];
            let outcome = if !signed(h) {
                SavedHeadOutcome::BadSignature
            } else if frontier.root() == h.root {
                if let Some(p) = last {
                    *held = (*held).max(p + 1);
                }
                SavedHeadOutcome::Holds
            } else {
                SavedHeadOutcome::Differs {
                    from: *held,
                    to: last.unwrap_or(0),
                }
            };
            outcomes[i] = Some(outcome);
        };
        while let Some(&i) = pending.peek() {
            if heads[i].tree_size != 0 {
                break;
            }
            settle(i, &frontier, None, &mut held_through, &mut outcomes);
            pending.next();
        }
        let mut next = 0u64;
        'read: while pending.peek().is_some() {
            let page = self.read_range(next, u64::MAX, 5_000).await?;
            let Some(last) = page.last() else { break };
            next = last.position.saturating_add(1);
            for e in &page {
                frontier.push(leaf_hash(&event_hash(&e.hash_fields())));
                last_position = Some(e.position);
                while let Some(&i) = pending.peek() {
                    if heads[i].tree_size != frontier.size() {
                        break;
                    }
                    settle(
                        i,
                        &frontier,
                        last_position,
                        &mut held_through,
                        &mut outcomes,
                    );
                    pending.next();
                }
                if pending.peek().is_none() {
                    break 'read;
                }
            }
        }
        // Heads the log is too short for.
        for i in pending {
            outcomes[i] = Some(if signed(&heads[i]) {
                SavedHeadOutcome::Truncated {
                    events: frontier.size(),
                    last_position,
                }
            } else {
                SavedHeadOutcome::BadSignature
            });
        }
        Ok(heads
            .iter()
            .zip(outcomes)
            .map(|(head, outcome)| SavedHeadCheck {
                head: head.clone(),
                outcome: outcome.unwrap_or(SavedHeadOutcome::BadSignature),
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ed25519_dalek::{Signer as _, SigningKey};

    fn head(size: u64) -> TreeHead {
        let key = SigningKey::from_bytes(&[9; 32]);
        let root = [u8::try_from(size).unwrap(); 32];
        let at = Timestamp::from_micros(1_700_000_000_000_000);
        TreeHead {
            tree_size: size,
            root,
            signed_at: at,
            public_key: key.verifying_key().to_bytes(),
            signature: key
                .sign(&crate::hash::tree_head_message(size, at, &root))
                .to_bytes(),
        }
    }

    #[test]
    fn a_head_reads_back_from_a_line_an_array_and_lines() {
        let (a, b) = (head(3), head(7));
        assert_eq!(parse_heads(&a.to_json()), Ok(vec![a.clone()]));
        let lines = format!("{}\n\n{}\n", a.to_json(), b.to_json());
        assert_eq!(parse_heads(&lines), Ok(vec![a.clone(), b.clone()]));
        let array = format!("[{},{}]", a.to_json(), b.to_json());
        assert_eq!(parse_heads(&array), Ok(vec![a, b]));
    }

    #[test]
    fn a_bad_head_is_refused_with_its_line() {
        let good = head(3).to_json();
        let short = good.replace(&to_hex(&[3; 32]), "0303");
        let err = parse_heads(&format!("{good}\n{short}")).unwrap_err();
        assert!(
            err.starts_with("line 2:") && err.contains("\"root\""),
            "{err}"
        );
        assert!(parse_heads("").is_err());
        assert!(parse_heads("{\"tree_size\": -1}").is_err());
        assert!(parse_heads("[1]").unwrap_err().starts_with("head 0:"));
    }
}
