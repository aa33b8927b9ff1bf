-- Artifacts as sensors sent them. The store stage checks ids before it
-- inserts, so a replayed message is not stored twice; ReplacingMergeTree is
-- the safety net for the rare race (a rebalance handing a batch to two
-- workers), merging such duplicates away.
-- Retention: rows leave CAIRN_ARTIFACT_RETENTION_DAYS after they arrived
-- (created_at, not the event time, so back-filled old logs are kept too);
-- the TTL here is the default and is rewritten at start from the setting.
CREATE TABLE IF NOT EXISTS artifacts
(
    id         UUID,
    org_id     LowCardinality(String),
    source     LowCardinality(String),
    raw        String,
    timestamp  DateTime64(3, 'UTC'),
    -- JSON object text
    metadata   String,
    created_at DateTime64(3, 'UTC'),
    -- Full-text search over raw: lower-cased tokens of ASCII letters and digits.
    INDEX raw_text raw TYPE text(tokenizer = splitByNonAlpha, preprocessor = lower(raw)),
    -- Finding artifacts by id: the store stage's replay check, links from observations.
    INDEX id_bloom id TYPE bloom_filter(0.001) GRANULARITY 1
)
ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMMDD(created_at)
ORDER BY (org_id, timestamp, id)
TTL toDateTime(created_at) + toIntervalDay(90)
SETTINGS ttl_only_drop_parts = 1;
