-- API bearer tokens. Only the SHA-256 of a token is kept: the token itself is printed once
-- when it is created. A revoked token stays listed (with when) so an audit can tell who held it.
CREATE TABLE tokens (
    id         TEXT    NOT NULL PRIMARY KEY,
    hash       BLOB    NOT NULL UNIQUE,
    role       TEXT    NOT NULL,
    venue      TEXT,
    player     TEXT,
    -- Microseconds since the Unix epoch, UTC.
    created_at INTEGER NOT NULL,
    revoked_at INTEGER
);
