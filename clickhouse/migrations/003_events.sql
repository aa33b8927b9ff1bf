-- Parsed events: the ECS fields of each artifact, for field:value search.
-- Every field holds an array of strings (most have one), so multi-valued
-- fields such as dns.resolved_ip match any of their values.
CREATE TABLE IF NOT EXISTS events
(
    artifact_id UUID,
    org_id      LowCardinality(String),
    source      LowCardinality(String),
    -- the artifact's timestamp, so field searches line up with artifact search
    timestamp   DateTime64(3, 'UTC'),
    -- @timestamp as the log line says, when it says
    event_time  Nullable(DateTime64(3, 'UTC')),
    parser      LowCardinality(String),
    fields      Map(LowCardinality(String), Array(String)),
    created_at  DateTime64(3, 'UTC'),
    INDEX artifact_bloom artifact_id TYPE bloom_filter(0.001) GRANULARITY 1
)
ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMMDD(created_at)
ORDER BY (org_id, timestamp, artifact_id)
TTL toDateTime(created_at) + toIntervalDay(90)
SETTINGS ttl_only_drop_parts = 1;
