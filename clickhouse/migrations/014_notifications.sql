-- Notifications (docs/notifications.md): channels (settings JSON with its
-- secrets sealed under CAIRN_MASTER_KEY), rules, and the delivery history.
-- A history row's id is derived from (event, rule, channel), so the notifier
-- recognises an event it already handled when the bus delivers it again.

CREATE TABLE IF NOT EXISTS notification_channels
(
    org_id     LowCardinality(String),
    id         UUID,
    name       String,
    type       LowCardinality(String),
    settings   String,
    enabled    Bool,
    created_at DateTime64(3, 'UTC'),
    updated_at DateTime64(3, 'UTC'),
    version    UInt64,
    is_deleted UInt8
)
ENGINE = ReplacingMergeTree(version, is_deleted)
ORDER BY (org_id, id);

CREATE TABLE IF NOT EXISTS notification_rules
(
    org_id           LowCardinality(String),
    id               UUID,
    name             String,
    description      String,
    event_types      Array(LowCardinality(String)),
    channel_ids      Array(UUID),
    cooldown_minutes UInt32,
    enabled          Bool,
    created_at       DateTime64(3, 'UTC'),
    updated_at       DateTime64(3, 'UTC'),
    version          UInt64,
    is_deleted       UInt8
)
ENGINE = ReplacingMergeTree(version, is_deleted)
ORDER BY (org_id, id);

CREATE TABLE IF NOT EXISTS notification_history
(
    org_id       LowCardinality(String),
    id           UUID,
    at           DateTime64(3, 'UTC'),
    event_id     String,
    event_type   LowCardinality(String),
    rule_id      String,
    rule_name    String,
    channel_id   UUID,
    channel_name String,
    channel_type LowCardinality(String),
    status       LowCardinality(String),
    message      String,
    attempts     UInt8,
    version      UInt64
)
ENGINE = ReplacingMergeTree(version)
ORDER BY (org_id, id)
TTL toDateTime(at) + toIntervalDay(365);
