-- The releases of the league service that have appended to this log, each with when it
-- first did. A build refuses to append to a log that a newer release has appended to: the
-- newer release may have written event versions the older one cannot read back.
CREATE TABLE releases (
    release TEXT PRIMARY KEY,
    major BIGINT NOT NULL,
    minor BIGINT NOT NULL,
    patch BIGINT NOT NULL,
    first_appended_at BIGINT NOT NULL
);
