-- Snapshots: a projection set's state of each stream at its checkpoint (the aggregate, or
-- for a finished tournament only what lists it), so a start-up folds only the log after the
-- checkpoint. Written in the transaction that moves the checkpoint. `format` names the
-- shape of `state`; `digest` is the SHA-256 the projector checks before trusting one. A
-- snapshot that cannot be read is ignored and its stream folded from its events.
CREATE TABLE snapshots (
    projection TEXT NOT NULL,
    stream TEXT NOT NULL,
    version INTEGER NOT NULL,
    format INTEGER NOT NULL,
    state BLOB NOT NULL,
    digest BLOB NOT NULL,
    PRIMARY KEY (projection, stream)
);
