-- Read models: documents folded from the global log by a projection set, with the position
-- they reflect. Written by the live projector at its checkpoints; `league rebuild --check`
-- rebuilds them from position 0 and compares.
CREATE TABLE read_models (
    projection TEXT NOT NULL,
    kind TEXT NOT NULL,
    key TEXT NOT NULL,
    doc BYTEA NOT NULL,
    PRIMARY KEY (projection, kind, key)
);
CREATE TABLE projection_checkpoints (
    projection TEXT PRIMARY KEY,
    position BIGINT NOT NULL
);
