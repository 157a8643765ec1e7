-- The seeds of the draws the server makes (seats, buttons, late seats, redraws, chip
-- races). Each seed is drawn from the operating system, committed to (its SHA-256) in an
-- event before the draw, and revealed in the event of the draw: until then only this table
-- holds it. Only the API reads it, when it makes the draw. Hex text, 64 characters each.
CREATE TABLE draw_secrets (
    commitment TEXT    NOT NULL PRIMARY KEY,
    stream_id  TEXT    NOT NULL,
    seed       TEXT    NOT NULL,
    -- Microseconds since the Unix epoch, UTC.
    created_at BIGINT  NOT NULL
);
