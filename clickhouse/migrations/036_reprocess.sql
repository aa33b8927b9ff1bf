-- Re-parsing stored artifacts (docs/reprocess.md).
--
-- A re-parsed event replaces its stored row in place, by a lightweight
-- UPDATE: the engine writes a patch part holding only the changed rows'
-- columns, and every read applies it, so from the moment the UPDATE returns
-- each artifact still has one events row, with the new fields; there is no
-- moment at which an old and a new row are both there to be counted. The
-- engine finds the row a patch belongs to by its block number and offset,
-- which parts written from now on keep as columns (parts written before
-- work too: a part's name gives them). The cost, measured in
-- bench/README.md: two small columns on every events row inserted.
ALTER TABLE events MODIFY SETTING enable_block_number_column = 1, enable_block_offset_column = 1;

-- One row per job, a new version at each step. The job's work is split into
-- slices of the artifacts table's key range (org_id, timestamp, id), one
-- partition (day of arrival) after another, sent on the bus as they are
-- planned; `slices_planned` and the plan cursor say how far planning got, so
-- a planner that restarts resumes there. `partition_slices` holds the number
-- of slices of each partition planned whole: once they are all done, the
-- partition's patches are folded.
CREATE TABLE IF NOT EXISTS reprocess_jobs
(
    org_id           LowCardinality(String),
    id               UUID,
    status           LowCardinality(String),
    range_start      DateTime64(3, 'UTC'),
    range_end        DateTime64(3, 'UTC'),
    -- '' for every source
    source           String,
    created_by       String,
    created_at       DateTime64(3, 'UTC'),
    started_at       Nullable(DateTime64(3, 'UTC')),
    finished_at      Nullable(DateTime64(3, 'UTC')),
    -- counted when the job was created, for its progress
    artifacts_total  UInt64,
    slices_planned   UInt32,
    -- all slices are planned: slices_planned is their number
    planned          Bool,
    plan_cursor_partition String,
    plan_cursor_time Nullable(DateTime64(3, 'UTC')),
    plan_cursor_id   Nullable(UUID),
    partition_slices Map(String, UInt32),
    error            String,
    updated_at       DateTime64(3, 'UTC'),
    version          UInt64
)
ENGINE = ReplacingMergeTree(version)
ORDER BY (org_id, id)
TTL toDateTime(created_at) + toIntervalDay(90);

-- What each slice of a job did: written as `applying` with its counts before
-- its writes, `done` after them (or `failed`). A slice handled again after a
-- crash keeps the counts of its first pass, when nothing had been changed.
-- `partition` is the artifacts partition it read, `partitions` the events
-- partitions its changes wrote patches to; `member` names the stage instance
-- that did it (host/pid/instance).
CREATE TABLE IF NOT EXISTS reprocess_slices
(
    org_id     LowCardinality(String),
    job_id     UUID,
    slice      UInt32,
    partition  String,
    status     LowCardinality(String),
    artifacts  UInt32,
    unchanged  UInt32,
    changed    UInt32,
    added      UInt32,
    removed    UInt32,
    unparsed   UInt32,
    unsettled  UInt32,
    partitions Array(String),
    member     String,
    error      String,
    updated_at DateTime64(3, 'UTC'),
    version    UInt64
)
ENGINE = ReplacingMergeTree(version)
ORDER BY (org_id, job_id, slice)
TTL toDateTime(updated_at) + toIntervalDay(90);
