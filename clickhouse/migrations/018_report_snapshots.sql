-- Report snapshots (docs/reports.md): a report as it was when taken, kept
-- whole (JSON and its CSV rows), so it still answers after the data it was
-- computed from has aged out.
CREATE TABLE IF NOT EXISTS report_snapshots
(
    org_id       LowCardinality(String),
    id           UUID,
    type         LowCardinality(String),
    period_start DateTime64(3, 'UTC'),
    period_end   DateTime64(3, 'UTC'),
    parameters   String,
    report       String,
    rows         String,
    trigger      LowCardinality(String),
    created_by   String,
    created_at   DateTime64(3, 'UTC')
)
ENGINE = MergeTree
ORDER BY (org_id, created_at, id);
