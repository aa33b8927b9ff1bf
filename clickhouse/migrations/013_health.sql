-- Operations (docs/operations.md): the history of every service's heartbeat
-- numbers, for GET /v1/health/containers/:name/history (TTL set at start
-- from CAIRN_HEALTH_HISTORY_DAYS), and the health alert rules operators add
-- or tune (the built-in rules live in code; a row with a built-in id tunes it).

CREATE TABLE IF NOT EXISTS service_metrics
(
    at             DateTime64(3, 'UTC'),
    service        LowCardinality(String),
    instance       LowCardinality(String),
    up             UInt8,
    cpu_ratio      Float64,
    memory_bytes   UInt64,
    event_loop_lag Float64,
    lag            Nullable(Int64),
    throughput     Float64
)
ENGINE = MergeTree
ORDER BY (service, at)
TTL toDateTime(at) + toIntervalDay(7);

CREATE TABLE IF NOT EXISTS health_alert_rules
(
    id          UUID,
    name        String,
    metric      LowCardinality(String),
    comparison  LowCardinality(String),
    threshold   Float64,
    for_seconds UInt32,
    severity    LowCardinality(String),
    -- empty: every service the metric applies to
    service     String,
    enabled     Bool,
    created_at  DateTime64(3, 'UTC'),
    updated_at  DateTime64(3, 'UTC'),
    version     UInt64,
    is_deleted  UInt8
)
ENGINE = ReplacingMergeTree(version, is_deleted)
ORDER BY id;
