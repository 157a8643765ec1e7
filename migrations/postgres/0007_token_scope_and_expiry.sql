-- A token's league (an admin or auditor token may be limited to one league; null: every
-- league) and its expiry (microseconds since the Unix epoch, UTC). Tokens created before
-- tokens expired get the role's default lifetime from the moment of this upgrade (admin 30
-- days, auditor 90, host 180, player 365), so no device is cut off by the upgrade itself.
ALTER TABLE tokens ADD COLUMN league TEXT;
ALTER TABLE tokens ADD COLUMN expires_at BIGINT;
UPDATE tokens SET expires_at = CAST(extract(epoch FROM now()) AS BIGINT) * 1000000
    + 86400000000 * CASE role WHEN 'admin' THEN 30 WHEN 'auditor' THEN 90
                              WHEN 'host' THEN 180 ELSE 365 END;
