-- Backfill jobs of lead rules: a rule run over the stored events of a range
-- of event time (pipeline/leads/backfill.ts). One row per job, a new version
-- at each step (queued, running with its progress and the cursor it resumes
-- from after a restart, succeeded, failed). The number leaves room for the
-- migrations of the same release before it.

CREATE TABLE IF NOT EXISTS lead_rule_backfills
(
    org_id          LowCardinality(String),
    id              UUID,
    rule_id         UUID,
    rule_name       String,
    -- manual (the API or `cairn rules backfill`), or enable (a rule imported or enabled with backfill on)
    trigger         LowCardinality(String),
    requested_by    String,
    status          LowCardinality(String),
    range_start     DateTime64(3, 'UTC'),
    range_end       DateTime64(3, 'UTC'),
    queued_at       DateTime64(3, 'UTC'),
    started_at      Nullable(DateTime64(3, 'UTC')),
    finished_at     Nullable(DateTime64(3, 'UTC')),
    -- stored events the rule's pattern selects in the range (null until counted), and how many were evaluated
    events_total    Nullable(UInt64),
    events_done     UInt64,
    matched         UInt64,
    raised          UInt64,
    already_raised  UInt64,
    -- the last event written past: its event time (ms) and artifact id; a resumed job continues after it
    cursor_time     Nullable(Int64),
    cursor_id       String,
    error           String,
    updated_at      DateTime64(3, 'UTC'),
    version         UInt64
)
ENGINE = ReplacingMergeTree(version)
ORDER BY (org_id, id)
TTL toDateTime(queued_at) + toIntervalDay(90);
