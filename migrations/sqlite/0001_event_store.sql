-- The event store (league-store). See services/league-store/src/lib.rs for the invariants
-- and services/league-store/HASHING.md for the byte encodings of the hashes.

-- One row per event. `position` is assigned densely under the single-writer lock
-- (BEGIN IMMEDIATE), so commit order and position order are the same.
CREATE TABLE events (
    position        INTEGER NOT NULL PRIMARY KEY,
    stream_id       TEXT    NOT NULL,
    stream_version  INTEGER NOT NULL CHECK (stream_version >= 1),
    event_type      TEXT    NOT NULL,
    schema_version  INTEGER NOT NULL CHECK (schema_version >= 1),
    -- The exact JSON bytes that were hashed.
    payload         BLOB    NOT NULL,
    actor           TEXT,
    correlation_id  TEXT,
    causation_id    TEXT,
    idempotency_key TEXT,
    -- Microseconds since the Unix epoch, UTC.
    recorded_at     INTEGER NOT NULL,
    prev_hash       BLOB    NOT NULL,
    hash            BLOB    NOT NULL,
    CONSTRAINT events_stream_version_key UNIQUE (stream_id, stream_version)
);

CREATE TABLE idempotency (
    key            TEXT    NOT NULL PRIMARY KEY,
    stream_id      TEXT    NOT NULL,
    fingerprint    BLOB    NOT NULL,
    first_position INTEGER NOT NULL,
    event_count    INTEGER NOT NULL,
    first_version  INTEGER NOT NULL
);

CREATE TABLE seals (
    seal_id       INTEGER NOT NULL PRIMARY KEY,
    first_leaf    INTEGER NOT NULL UNIQUE,
    leaf_count    INTEGER NOT NULL CHECK (leaf_count >= 1),
    last_position INTEGER NOT NULL,
    positions     BLOB    NOT NULL,
    leaf_hashes   BLOB    NOT NULL,
    root          BLOB    NOT NULL,
    frontier      BLOB    NOT NULL,
    sealed_at     INTEGER NOT NULL
);

CREATE TABLE tree_heads (
    tree_size  INTEGER NOT NULL PRIMARY KEY,
    root       BLOB    NOT NULL,
    signed_at  INTEGER NOT NULL,
    public_key BLOB    NOT NULL,
    signature  BLOB    NOT NULL
);
