-- Every event appended from now on stores its id (a UUIDv7, 16 bytes), covered by its hash
-- (`league-event-v2`, docs/event-store.md). Events already in the log keep their bytes and
-- have no stored id: theirs is derived from their hash when read. Adding a nullable column
-- without a default rewrites no row.
ALTER TABLE events ADD COLUMN event_id BYTEA
    CONSTRAINT events_event_id_length CHECK (event_id IS NULL OR length(event_id) = 16);
CREATE UNIQUE INDEX events_event_id_key ON events (event_id);
