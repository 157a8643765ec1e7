-- The seals in log order by their last position, as on PostgreSQL (where read_all's large
-- pages use it to find a position's leaf; see migrations/postgres/0004). Seals cover the
-- log in order, so their last positions strictly increase (not a unique index, so that a
-- log whose seals were tampered with still opens and verifies).
CREATE INDEX seals_last_position ON seals (last_position);
