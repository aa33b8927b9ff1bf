-- Lead rules: mutable, so every change inserts a new version of the row and
-- reads use FINAL. A delete is a row with is_deleted = 1.
CREATE TABLE IF NOT EXISTS lead_rules
(
    id          UUID,
    org_id      LowCardinality(String),
    name        String,
    description String,
    enabled     Bool,
    -- JSON text of the rule's conditions (source, pattern, threshold, window, group_by)
    conditions  String,
    severity    LowCardinality(String),
    created_at  DateTime64(3, 'UTC'),
    updated_at  DateTime64(3, 'UTC'),
    version     UInt64,
    is_deleted  UInt8
)
ENGINE = ReplacingMergeTree(version, is_deleted)
ORDER BY (org_id, id);
