//! The vocabulary of the log: what a caller appends and what a reader gets back.

use std::fmt;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::error::StoreError;

/// Largest payload accepted for one event: 1 MiB of JSON. Larger facts belong in a blob
/// store with their hash in the event.
pub const MAX_PAYLOAD_BYTES: usize = 1024 * 1024;
/// Largest number of events in one append. The PostgreSQL position packs the index of an
/// event within its transaction into 16 bits (see `lib.rs`), so this must stay below 65,536.
pub const MAX_BATCH_EVENTS: usize = 10_000;
/// Longest stream id, event type, actor, correlation, causation or idempotency key, in bytes.
pub const MAX_NAME_BYTES: usize = 256;

/// A SHA-256 digest.
pub type Hash = [u8; 32];

/// An event's id: a UUID that names the event wherever it travels (the store, the
/// `eventLog` subscription, an export), so a consumer reading through two instances, or an
/// export and the live feed, recognises an event it already has.
///
/// An event appended since event ids exist has a UUIDv7 chosen when it was appended,
/// stored with it and covered by its hash (`league-event-v2`). An event appended before
/// keeps its bytes: its id is derived from its stored hash ([`EventId::derived`]), so it is
/// the same on every read, in every copy of the log.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct EventId(pub uuid::Uuid);

impl EventId {
    /// A new id for an event being appended now: a UUIDv7 (time-ordered, so the index of
    /// ids grows at its end).
    pub fn new_v7() -> Self {
        Self(uuid::Uuid::now_v7())
    }

    /// The id of an event stored without one: the first 16 bytes of its hash as a UUIDv8
    /// (RFC 9562): the version nibble (the high four bits of byte 6) set to 8 and the
    /// variant (the high two bits of byte 8) to `10`. A derived id can never equal a
    /// chosen one (those are version 7).
    pub fn derived(hash: &Hash) -> Self {
        let mut bytes = [0u8; 16];
        bytes.copy_from_slice(&hash[..16]);
        Self(uuid::Builder::from_custom_bytes(bytes).into_uuid())
    }

    /// The id from its 16 stored bytes.
    pub fn from_bytes(bytes: [u8; 16]) -> Self {
        Self(uuid::Uuid::from_bytes(bytes))
    }

    /// The 16 bytes stored and hashed.
    pub fn as_bytes(&self) -> &[u8; 16] {
        self.0.as_bytes()
    }
}

impl fmt::Display for EventId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.hyphenated().fmt(f)
    }
}

/// Microseconds since the Unix epoch, UTC. Stored as a signed 64-bit integer on both
/// backends so that it hashes to the same bytes everywhere.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(i64);

impl Timestamp {
    /// A timestamp from microseconds since the Unix epoch.
    pub const fn from_micros(micros: i64) -> Self {
        Self(micros)
    }

    /// Microseconds since the Unix epoch.
    pub const fn as_micros(self) -> i64 {
        self.0
    }

    /// The moment as people read it: `2026-11-26 17:02:03 UTC` (to the second).
    pub fn utc(self) -> String {
        let seconds = self.0.div_euclid(1_000_000);
        let (days, in_day) = (seconds.div_euclid(86_400), seconds.rem_euclid(86_400));
        // Howard Hinnant's `civil_from_days`: the proleptic Gregorian date of a day count.
        let z = days + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z.rem_euclid(146_097);
        let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let day = doy - (153 * mp + 2) / 5 + 1;
        let month = if mp < 10 { mp + 3 } else { mp - 9 };
        let year = yoe + era * 400 + i64::from(month <= 2);
        format!(
            "{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02} UTC",
            in_day / 3_600,
            in_day % 3_600 / 60,
            in_day % 60
        )
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}us", self.0)
    }
}

/// Where `recorded_at` comes from when the caller does not say. Injected into the store so
/// that tests are deterministic.
pub trait Clock: Send + Sync + 'static {
    /// The current time.
    fn now(&self) -> Timestamp;
}

/// The operating system's clock.
#[derive(Clone, Copy, Debug, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Timestamp {
        let micros = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| i64::try_from(d.as_micros()).unwrap_or(i64::MAX))
            .unwrap_or(0);
        Timestamp(micros)
    }
}

/// What the caller expects the stream's current version to be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExpectedVersion {
    /// Append whatever the stream's version is (retried internally on a race).
    Any,
    /// The stream must have no events yet.
    NoStream,
    /// The stream's last event must have exactly this version (versions start at 1;
    /// `Exact(0)` is the same as `NoStream`).
    Exact(u64),
}

impl fmt::Display for ExpectedVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Any => f.write_str("any"),
            Self::NoStream => f.write_str("no stream"),
            Self::Exact(v) => write!(f, "version {v}"),
        }
    }
}

/// Who did it and why: the envelope fields a caller may set.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Metadata {
    /// The authenticated principal that caused the event.
    pub actor: Option<String>,
    /// Ties together every event caused by one request.
    pub correlation_id: Option<String>,
    /// The command or event that directly caused this one.
    pub causation_id: Option<String>,
    /// When it happened; taken from the store's clock when `None`.
    pub recorded_at: Option<Timestamp>,
}

/// One event to append: an opaque JSON payload with its type and schema version.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewEvent {
    /// The event's type, e.g. `HandStarted`. The store does not interpret it.
    pub event_type: String,
    /// The payload's schema version (starts at 1); readers upcast old versions.
    pub schema_version: u32,
    /// The exact JSON bytes to store and hash. Never re-serialised by the store.
    pub payload: Vec<u8>,
    /// Envelope metadata.
    pub metadata: Metadata,
}

impl NewEvent {
    /// An event with schema version 1 and no metadata.
    pub fn new(event_type: impl Into<String>, payload: impl Into<Vec<u8>>) -> Self {
        Self {
            event_type: event_type.into(),
            schema_version: 1,
            payload: payload.into(),
            metadata: Metadata::default(),
        }
    }

    /// Sets the metadata.
    #[must_use]
    pub fn with_metadata(mut self, metadata: Metadata) -> Self {
        self.metadata = metadata;
        self
    }

    /// Sets the schema version.
    #[must_use]
    pub fn with_schema_version(mut self, schema_version: u32) -> Self {
        self.schema_version = schema_version;
        self
    }
}

/// An event as stored: the envelope, the exact payload bytes and the chain hashes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordedEvent {
    /// Global position: unique and strictly increasing in the global order, not contiguous.
    pub position: u64,
    /// The id stored with the event; `None` for an event appended before event ids, whose
    /// id is derived from its hash. [`RecordedEvent::id`] gives the id either way.
    pub stored_id: Option<EventId>,
    /// The stream this event belongs to.
    pub stream_id: String,
    /// 1 for the stream's first event, then +1 per event.
    pub stream_version: u64,
    /// The event's type.
    pub event_type: String,
    /// The payload's schema version.
    pub schema_version: u32,
    /// The exact JSON bytes that were hashed.
    pub payload: Vec<u8>,
    /// Who did it.
    pub actor: Option<String>,
    /// Request correlation.
    pub correlation_id: Option<String>,
    /// Direct cause.
    pub causation_id: Option<String>,
    /// The idempotency key of the append that wrote it, if any.
    pub idempotency_key: Option<String>,
    /// When it was recorded.
    pub recorded_at: Timestamp,
    /// Hash of the previous event of the same stream (all zeros for version 1).
    pub prev_hash: Hash,
    /// This event's hash (see `docs/event-store.md`).
    pub hash: Hash,
}

impl RecordedEvent {
    /// The event's id: the one stored with it, or the one derived from its hash.
    pub fn id(&self) -> EventId {
        self.stored_id
            .unwrap_or_else(|| EventId::derived(&self.hash))
    }

    /// The fields its hash covers, as stored (`hash::event_hash` of them is its hash when
    /// nothing was edited).
    pub fn hash_fields(&self) -> crate::hash::EventFields<'_> {
        crate::hash::EventFields {
            event_id: self.stored_id.as_ref(),
            stream_id: &self.stream_id,
            stream_version: self.stream_version,
            event_type: &self.event_type,
            schema_version: self.schema_version,
            actor: self.actor.as_deref(),
            correlation_id: self.correlation_id.as_deref(),
            causation_id: self.causation_id.as_deref(),
            idempotency_key: self.idempotency_key.as_deref(),
            recorded_at: self.recorded_at,
            payload: &self.payload,
            prev_hash: &self.prev_hash,
        }
    }
}

/// What an append wrote (or, for a repeated idempotency key, had written).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Appended {
    /// Position of the first event of the batch.
    pub first_position: u64,
    /// Position of the last event of the batch.
    pub last_position: u64,
    /// Stream version of the first event of the batch.
    pub first_version: u64,
    /// Stream version of the last event of the batch: the version to expect next time.
    pub last_version: u64,
    /// True when this call appended nothing because the idempotency key had been used with
    /// the same events; the positions are those of the original append.
    pub deduplicated: bool,
}

impl Appended {
    /// The positions of the batch in order (a batch's positions are consecutive integers).
    pub fn positions(&self) -> impl Iterator<Item = u64> + use<> {
        self.first_position..=self.last_position
    }
}

/// Validates a stream id, event type or other short name.
pub(crate) fn check_name(what: &'static str, value: &str) -> Result<(), StoreError> {
    if value.is_empty() || value.len() > MAX_NAME_BYTES || value.chars().any(char::is_control) {
        return Err(StoreError::InvalidName {
            what,
            value: value.chars().take(64).collect(),
        });
    }
    Ok(())
}

#[cfg(test)]
mod utc_tests {
    use super::Timestamp;

    #[test]
    fn moments_read_as_dates() {
        for (seconds, text) in [
            (0, "1970-01-01 00:00:00 UTC"),
            (951_782_400, "2000-02-29 00:00:00 UTC"),
            (1_795_712_523, "2026-11-26 17:02:03 UTC"),
            (-86_400, "1969-12-31 00:00:00 UTC"),
        ] {
            assert_eq!(Timestamp::from_micros(seconds * 1_000_000).utc(), text);
        }
    }
}
