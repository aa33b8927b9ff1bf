-- Decoders an organization adds at runtime (docs/parsing.md, "Your own
-- decoders"): one row per service, in the decoder catalogue's own form
-- (pipeline/parser/decoders/catalogue.ts ServiceSpec) as JSON text. Mutable
-- like lead rules: every change inserts a new version, reads use FINAL, and
-- a delete is a row with is_deleted = 1. `service` is the spec's service
-- name, kept as a column to find a name already taken.

CREATE TABLE IF NOT EXISTS user_decoders
(
    org_id     LowCardinality(String),
    id         UUID,
    service    String,
    spec       String,
    created_at DateTime64(3, 'UTC'),
    updated_at DateTime64(3, 'UTC'),
    version    UInt64,
    is_deleted UInt8
)
ENGINE = ReplacingMergeTree(version, is_deleted)
ORDER BY (org_id, id);
