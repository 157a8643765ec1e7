-- Finding a position in the sealed log by leaf: read_all's large pages on PostgreSQL start
-- their second half where the Merkle tree's leaves put it instead of skipping rows
-- (services/league-store/src/pg_copy.rs, `events_statement`).

-- The seals in log order by their last position: the seal that holds a position. Seals
-- cover the log in order, so their last positions strictly increase; not a unique index
-- all the same, so that a log whose seals were tampered with still opens and verifies.
CREATE INDEX seals_last_position ON seals (last_position);

-- The position of the event `skip` events after the first at or after `from_position`, as
-- the sealed leaves record it (`seals.positions`: each seal's leaves' positions, 8 bytes
-- big-endian each, in log order); NULL unless the log is sealed that far, or if the seals
-- do not hold a well-formed answer. The sealed log numbers its events densely (leaf 0, 1,
-- ...), so no index scan has to skip `skip` rows, each a heap fetch where the visibility
-- map is not set. Below the commit horizon positions are final and the sealer seals them
-- in order, so the answer is the skip's; a reader must still check that what it read joins
-- up (a tampered `seals` table gives a wrong answer; `verify` reports it).
-- PL/pgSQL so that its queries are planned once per session, not with every page.
CREATE FUNCTION sealed_position_after(from_position BIGINT, skip BIGINT) RETURNS BIGINT
LANGUAGE plpgsql STABLE STRICT AS $$
DECLARE
    first_position BIGINT;
    seal_first     BIGINT;
    seal_positions BYTEA;
    found_at       INTEGER;
    leaf           BIGINT;
BEGIN
    SELECT position INTO first_position FROM events
        WHERE position >= from_position
          AND position < (pg_snapshot_xmin(pg_current_snapshot())::text::bigint << 16)
        ORDER BY position LIMIT 1;
    IF first_position IS NULL THEN
        RETURN NULL;
    END IF;
    -- `|| ''` decompresses the positions once, here, not in every function that reads them.
    SELECT first_leaf, positions || ''::bytea INTO seal_first, seal_positions FROM seals
        WHERE last_position >= first_position ORDER BY last_position LIMIT 1;
    IF seal_positions IS NULL THEN
        RETURN NULL;
    END IF;
    found_at := position(int8send(first_position) IN seal_positions);
    IF found_at % 8 <> 1 THEN
        RETURN NULL;
    END IF;
    leaf := seal_first + (found_at - 1) / 8 + skip;
    IF leaf - seal_first >= length(seal_positions) / 8 THEN
        SELECT first_leaf, positions INTO seal_first, seal_positions FROM seals
            WHERE first_leaf <= leaf ORDER BY first_leaf DESC LIMIT 1;
        IF leaf - seal_first >= length(seal_positions) / 8 THEN
            RETURN NULL;
        END IF;
    END IF;
    RETURN ('x' || encode(substring(seal_positions FROM ((leaf - seal_first) * 8 + 1)::int FOR 8),
                          'hex'))::bit(64)::bigint;
END
$$;
