-- Threat intelligence feed subscriptions (docs/threat-intel.md): what to
-- fetch (kind, url, kind-specific settings JSON with its secrets sealed under
-- CAIRN_MASTER_KEY), how often, and the defaults its indicators get
-- (confidence, lifetime, and the decay model's speed and threshold).

CREATE TABLE IF NOT EXISTS threatfeed_subscriptions
(
    org_id                LowCardinality(String),
    id                    UUID,
    name                  String,
    kind                  LowCardinality(String),
    url                   String,
    settings              String,
    enabled               Bool,
    poll_interval_seconds UInt32,
    confidence            UInt8,
    lifetime_seconds      UInt32,
    decay_speed           Float64,
    score_threshold       UInt8,
    created_at            DateTime64(3, 'UTC'),
    updated_at            DateTime64(3, 'UTC'),
    version               UInt64,
    is_deleted            UInt8
)
ENGINE = ReplacingMergeTree(version, is_deleted)
ORDER BY (org_id, id);
