-- Sync jobs of threat feed subscriptions: one row per job, a new version at
-- each step (queued, running with progress, succeeded or failed). `cursor`
-- is where the feed's next run resumes (TAXII added_after, the newest MISP
-- event timestamp), written after each page's indicators are stored.

CREATE TABLE IF NOT EXISTS threatfeed_jobs
(
    org_id            LowCardinality(String),
    id                UUID,
    subscription_id   UUID,
    subscription_name String,
    trigger           LowCardinality(String),
    status            LowCardinality(String),
    queued_at         DateTime64(3, 'UTC'),
    started_at        Nullable(DateTime64(3, 'UTC')),
    finished_at       Nullable(DateTime64(3, 'UTC')),
    fetched           UInt32,
    added             UInt32,
    updated           UInt32,
    expired           UInt32,
    removed           UInt32,
    rejected          UInt32,
    retro_sightings   UInt32,
    error             String,
    cursor            String,
    updated_at        DateTime64(3, 'UTC'),
    version           UInt64
)
ENGINE = ReplacingMergeTree(version)
ORDER BY (org_id, id)
TTL toDateTime(queued_at) + toIntervalDay(90);
