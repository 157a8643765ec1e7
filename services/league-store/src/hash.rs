//! The exact byte encodings behind every hash and signature. `docs/event-store.md`
//! describes the same thing for an auditor writing a verifier in another language; keep the
//! two in step (a test pins a golden vector).

use sha2::{Digest, Sha256};

use crate::types::{EventId, Hash, Timestamp};

/// Domain tag at the start of the hash of an event stored without an id (appended before
/// event ids), so an event hash can never be confused with a Merkle node or a tree-head
/// signature.
pub const EVENT_HASH_DOMAIN: &[u8] = b"league-event-v1\0";
/// Domain tag at the start of the hash of an event stored with its id; the id's 16 bytes
/// follow the tag.
pub const EVENT_HASH_DOMAIN_V2: &[u8] = b"league-event-v2\0";
/// Domain tag at the start of every signed tree-head message.
pub const TREE_HEAD_DOMAIN: &[u8] = b"league-tree-head-v1\0";
/// The previous hash of a stream's first event.
pub const ZERO_HASH: Hash = [0; 32];

/// The fields of an event that its hash covers, borrowed.
#[derive(Clone, Copy, Debug)]
pub struct EventFields<'a> {
    /// The id stored with the event (`None` for an event appended before event ids).
    pub event_id: Option<&'a EventId>,
    /// Stream id.
    pub stream_id: &'a str,
    /// Stream version.
    pub stream_version: u64,
    /// Event type.
    pub event_type: &'a str,
    /// Schema version.
    pub schema_version: u32,
    /// Actor.
    pub actor: Option<&'a str>,
    /// Correlation id.
    pub correlation_id: Option<&'a str>,
    /// Causation id.
    pub causation_id: Option<&'a str>,
    /// Idempotency key.
    pub idempotency_key: Option<&'a str>,
    /// Recorded at.
    pub recorded_at: Timestamp,
    /// Exact payload bytes.
    pub payload: &'a [u8],
    /// Hash of the stream's previous event.
    pub prev_hash: &'a Hash,
}

fn put_bytes(h: &mut Sha256, bytes: &[u8]) {
    // Lengths are bounded far below u64::MAX; usize -> u64 cannot fail on any target Rust
    // supports today, and a failure would be a bug worth a loud hash mismatch, not a panic.
    let len = u64::try_from(bytes.len()).unwrap_or(u64::MAX);
    h.update(len.to_be_bytes());
    h.update(bytes);
}

fn put_opt(h: &mut Sha256, value: Option<&str>) {
    match value {
        None => h.update([0u8]),
        Some(s) => {
            h.update([1u8]);
            put_bytes(h, s.as_bytes());
        }
    }
}

/// The event hash: SHA-256 over the domain tag (with the event's id after it, when the
/// event has one stored), the envelope, the exact payload bytes and the previous hash of
/// the stream. The global position is deliberately not covered: it is
/// assigned by the database's commit order, which the writer cannot know on PostgreSQL;
/// the global order is bound by the Merkle tree instead (leaf i = event at log index i).
pub fn event_hash(e: &EventFields<'_>) -> Hash {
    let mut h = Sha256::new();
    match e.event_id {
        None => h.update(EVENT_HASH_DOMAIN),
        Some(id) => {
            h.update(EVENT_HASH_DOMAIN_V2);
            h.update(id.as_bytes());
        }
    }
    put_bytes(&mut h, e.stream_id.as_bytes());
    h.update(e.stream_version.to_be_bytes());
    put_bytes(&mut h, e.event_type.as_bytes());
    h.update(e.schema_version.to_be_bytes());
    put_opt(&mut h, e.actor);
    put_opt(&mut h, e.correlation_id);
    put_opt(&mut h, e.causation_id);
    put_opt(&mut h, e.idempotency_key);
    h.update(e.recorded_at.as_micros().to_be_bytes());
    h.update(e.prev_hash);
    put_bytes(&mut h, e.payload);
    h.finalize().into()
}

/// The message an Ed25519 tree-head signature covers.
pub fn tree_head_message(tree_size: u64, timestamp: Timestamp, root: &Hash) -> Vec<u8> {
    let mut m = Vec::with_capacity(TREE_HEAD_DOMAIN.len() + 8 + 8 + 32);
    m.extend_from_slice(TREE_HEAD_DOMAIN);
    m.extend_from_slice(&tree_size.to_be_bytes());
    m.extend_from_slice(&timestamp.as_micros().to_be_bytes());
    m.extend_from_slice(root);
    m
}

/// Fingerprint of an append for idempotency: the stream and every event's type, schema
/// version and payload bytes. Metadata is left out on purpose: a client retrying a request
/// sends the same events, but its clock has moved.
pub(crate) fn request_fingerprint(stream_id: &str, request: &Hash) -> Hash {
    let mut h = Sha256::new();
    h.update(b"league-request-v1\0");
    put_bytes(&mut h, stream_id.as_bytes());
    h.update(request);
    h.finalize().into()
}

/// The fingerprint an idempotency key records for an append of `events` to `stream_id`.
pub(crate) fn append_fingerprint(stream_id: &str, events: &[crate::types::NewEvent]) -> Hash {
    let mut h = Sha256::new();
    h.update(b"league-append-v1\0");
    put_bytes(&mut h, stream_id.as_bytes());
    h.update(
        u64::try_from(events.len())
            .unwrap_or(u64::MAX)
            .to_be_bytes(),
    );
    for e in events {
        put_bytes(&mut h, e.event_type.as_bytes());
        h.update(e.schema_version.to_be_bytes());
        put_bytes(&mut h, &e.payload);
    }
    h.finalize().into()
}

/// Lower-case hex of bytes.
pub fn to_hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(char::from(DIGITS[usize::from(b >> 4)]));
        s.push(char::from(DIGITS[usize::from(b & 0x0f)]));
    }
    s
}

/// Parses lower- or upper-case hex.
pub fn from_hex(s: &str) -> Option<Vec<u8>> {
    fn nibble(c: u8) -> Option<u8> {
        match c {
            b'0'..=b'9' => Some(c - b'0'),
            b'a'..=b'f' => Some(c - b'a' + 10),
            b'A'..=b'F' => Some(c - b'A' + 10),
            _ => None,
        }
    }
    let s = s.trim().as_bytes();
    if !s.len().is_multiple_of(2) {
        return None;
    }
    s.chunks(2)
        .map(|p| Some((nibble(p[0])? << 4) | nibble(p[1])?))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::merkle::{leaf_hash, node_hash};

    /// The vectors in `docs/event-store.md`, computed there by an independent implementation
    /// of the document (a dozen lines of Python), not by this code.
    #[test]
    fn golden_vectors_match_hashing_md() {
        let h1 = event_hash(&EventFields {
            event_id: None,
            stream_id: "s",
            stream_version: 1,
            event_type: "T",
            schema_version: 1,
            actor: None,
            correlation_id: None,
            causation_id: None,
            idempotency_key: None,
            recorded_at: Timestamp::from_micros(0),
            payload: b"{}",
            prev_hash: &ZERO_HASH,
        });
        assert_eq!(
            to_hex(&h1),
            "a32213637bf174a2bc19cc0ceb430c832f67177c6e8aa7531da1dadf7bd22cb5"
        );
        let h2 = event_hash(&EventFields {
            event_id: None,
            stream_id: "s",
            stream_version: 2,
            event_type: "U",
            schema_version: 3,
            actor: Some("host:7"),
            correlation_id: Some("req-1"),
            causation_id: Some("cmd-9"),
            idempotency_key: Some("k1"),
            recorded_at: Timestamp::from_micros(1_700_000_000_000_000),
            payload: br#"{"n":1}"#,
            prev_hash: &h1,
        });
        assert_eq!(
            to_hex(&h2),
            "4472cae3fb2738a6aa82cfe673fda62d1e49c16e556efd7e2223d162bfdcb34d"
        );
        let root = node_hash(&leaf_hash(&h1), &leaf_hash(&h2));
        assert_eq!(
            to_hex(&root),
            "91a16716abbcc7dbda52139a30ae86d71eb6512f0df85b403cbf09d2856523a5"
        );
        assert_eq!(
            to_hex(&tree_head_message(2, Timestamp::from_micros(5), &root)),
            "6c65616775652d747265652d686561642d763100000000000000000200000000000000059\
             1a16716abbcc7dbda52139a30ae86d71eb6512f0df85b403cbf09d2856523a5"
        );
        assert_eq!(from_hex(&to_hex(&root)).as_deref(), Some(&root[..]));

        // An event stored with its id (`league-event-v2`).
        let id = EventId(uuid::Uuid::parse_str("01937f2c-8d4e-7a3b-9c1d-2e3f4a5b6c7d").unwrap());
        let h3 = event_hash(&EventFields {
            event_id: Some(&id),
            stream_id: "s",
            stream_version: 3,
            event_type: "V",
            schema_version: 1,
            actor: Some("host:7"),
            correlation_id: Some("req-2"),
            causation_id: Some("01937f2c-8d4e-7a3b-9c1d-000000000002"),
            idempotency_key: None,
            recorded_at: Timestamp::from_micros(1_700_000_000_000_001),
            payload: br#"{"n":2}"#,
            prev_hash: &h2,
        });
        assert_eq!(
            to_hex(&h3),
            "2bf5dbfc283a92af1b4c9b945e870d804541afb1bcfa156b8a9013c6fdb16846"
        );
        // The id derived for an event stored without one.
        assert_eq!(
            EventId::derived(&h1).to_string(),
            "a3221363-7bf1-84a2-bc19-cc0ceb430c83"
        );
    }
}
