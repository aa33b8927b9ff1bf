-- Artifact exporters (docs/exporters.md): forward the artifacts that match a
-- query to a syslog receiver, an HTTP endpoint or a Kafka topic. `settings`
-- is the destination's JSON with its secrets (bearer token, Kafka password)
-- sealed under CAIRN_MASTER_KEY; `source` is empty for every source;
-- `active_since` is when it was created or last enabled: it forwards what
-- reaches cairn from then on.

CREATE TABLE IF NOT EXISTS exporters
(
    org_id                   LowCardinality(String),
    id                       UUID,
    name                     String,
    enabled                  Bool,
    query                    String,
    source                   String,
    type                     LowCardinality(String),
    settings                 String,
    failure_cooldown_minutes UInt32,
    active_since             DateTime64(3, 'UTC'),
    created_at               DateTime64(3, 'UTC'),
    updated_at               DateTime64(3, 'UTC'),
    version                  UInt64,
    is_deleted               UInt8
)
ENGINE = ReplacingMergeTree(version, is_deleted)
ORDER BY (org_id, id);
