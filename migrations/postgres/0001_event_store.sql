-- The event store (league-store). See services/league-store/src/lib.rs for the invariants
-- and services/league-store/HASHING.md for the byte encodings of the hashes.

-- One row per event. `position` is (xid8 of the appending transaction << 16) | index within
-- the append: unique, strictly increasing in commit-horizon order, not contiguous.
CREATE TABLE events (
    position        BIGINT  NOT NULL PRIMARY KEY,
    stream_id       TEXT    NOT NULL,
    stream_version  BIGINT  NOT NULL CHECK (stream_version >= 1),
    event_type      TEXT    NOT NULL,
    schema_version  INTEGER NOT NULL CHECK (schema_version >= 1),
    -- The exact JSON bytes that were hashed (jsonb would rewrite them).
    payload         BYTEA   NOT NULL,
    actor           TEXT,
    correlation_id  TEXT,
    causation_id    TEXT,
    idempotency_key TEXT,
    -- Microseconds since the Unix epoch, UTC.
    recorded_at     BIGINT  NOT NULL,
    prev_hash       BYTEA   NOT NULL,
    hash            BYTEA   NOT NULL,
    -- Optimistic concurrency: two appends of the same version of a stream cannot both commit.
    CONSTRAINT events_stream_version_key UNIQUE (stream_id, stream_version)
);

-- One row per append that carried an idempotency key.
CREATE TABLE idempotency (
    key            TEXT    NOT NULL PRIMARY KEY,
    stream_id      TEXT    NOT NULL,
    fingerprint    BYTEA   NOT NULL,
    first_position BIGINT  NOT NULL,
    event_count    INTEGER NOT NULL,
    first_version  BIGINT  NOT NULL
);

-- One row per sealing round: the leaves it added to the Merkle tree, in order.
CREATE TABLE seals (
    seal_id       BIGINT NOT NULL PRIMARY KEY,
    first_leaf    BIGINT NOT NULL UNIQUE,
    leaf_count    BIGINT NOT NULL CHECK (leaf_count >= 1),
    last_position BIGINT NOT NULL,
    -- leaf_count big-endian 8-byte positions, then leaf_count 32-byte leaf hashes.
    positions     BYTEA  NOT NULL,
    leaf_hashes   BYTEA  NOT NULL,
    -- Root of the tree of first_leaf + leaf_count leaves, and its right edge.
    root          BYTEA  NOT NULL,
    frontier      BYTEA  NOT NULL,
    sealed_at     BIGINT NOT NULL
);

-- Signed tree heads (Ed25519 over the message in HASHING.md).
CREATE TABLE tree_heads (
    tree_size  BIGINT NOT NULL PRIMARY KEY,
    root       BYTEA  NOT NULL,
    signed_at  BIGINT NOT NULL,
    public_key BYTEA  NOT NULL,
    signature  BYTEA  NOT NULL
);
