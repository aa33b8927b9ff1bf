-- The indicator library. One row per (indicator, feed): what that feed says
-- of the indicator (a claim). Indicators from several feeds share the
-- indicator_id (UUIDv5 of org, type and value) and merge when read. Each
-- feed writes only its own rows, so two feeds syncing at once never race.
-- A revoked or withdrawn claim is deleted (is_deleted). `expires_at` is
-- valid_until, or asserted_at plus the feed's default lifetime; the score
-- decays from asserted_at to expires_at (threatintel/decay.ts).
-- `matchable` is false for STIX patterns cairn does not match at ingest;
-- `note` says why.

CREATE TABLE IF NOT EXISTS threatfeed_indicators
(
    org_id          LowCardinality(String),
    indicator_id    UUID,
    subscription_id UUID,
    type            LowCardinality(String),
    value           String,
    matchable       Bool,
    note            String,
    source_ref      String,
    confidence      UInt8,
    labels          Array(String),
    valid_from      DateTime64(3, 'UTC'),
    valid_until     Nullable(DateTime64(3, 'UTC')),
    asserted_at     DateTime64(3, 'UTC'),
    expires_at      DateTime64(3, 'UTC'),
    decay_speed     Float64,
    score_threshold UInt8,
    content_hash    String,
    first_seen_at   DateTime64(3, 'UTC'),
    updated_at      DateTime64(3, 'UTC'),
    version         UInt64,
    is_deleted      UInt8
)
ENGINE = ReplacingMergeTree(version, is_deleted)
ORDER BY (org_id, indicator_id, subscription_id);

-- Where an indicator was seen in our data: one row per (indicator, artifact),
-- at ingest or by a retro-hunt over stored events (retrospective).
CREATE TABLE IF NOT EXISTS threatfeed_sightings
(
    org_id         LowCardinality(String),
    indicator_id   UUID,
    artifact_id    UUID,
    seen_at        DateTime64(3, 'UTC'),
    field          LowCardinality(String),
    observation_id UUID,
    retrospective  Bool,
    version        UInt64
)
ENGINE = ReplacingMergeTree(version)
ORDER BY (org_id, indicator_id, artifact_id)
TTL toDateTime(seen_at) + toIntervalDay(365);
