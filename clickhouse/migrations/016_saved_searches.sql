-- Saved searches (docs/saved-searches.md): a named query of the query
-- language with its filters (`source`, `start`/`end` or a relative `range`,
-- as JSON), who made it and whether others in the organization see it.
-- `created_by` is a user id, or the subject of an operator token, which is
-- not a UUID: hence String.

CREATE TABLE IF NOT EXISTS saved_searches
(
    org_id     LowCardinality(String),
    id         UUID,
    name       String,
    query      String,
    filters    String,
    created_by String,
    shared     Bool,
    created_at DateTime64(3, 'UTC'),
    updated_at DateTime64(3, 'UTC'),
    version    UInt64,
    is_deleted UInt8
)
ENGINE = ReplacingMergeTree(version, is_deleted)
ORDER BY (org_id, id);
