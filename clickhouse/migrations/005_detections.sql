-- Observations, leads and incidents. Mutable rows are ReplacingMergeTree:
-- a change inserts a newer version, reads use FINAL. Ids made by the rule
-- stage and the correlator are deterministic, so a replay rewrites the same
-- rows instead of adding new ones.

CREATE TABLE IF NOT EXISTS observations
(
    org_id       LowCardinality(String),
    id           UUID,
    type         LowCardinality(String),
    description  String,
    severity     LowCardinality(String),
    node_ids     Array(UUID),
    artifact_ids Array(UUID),
    -- the lead rule that made it, or NULL when an analyst wrote it
    rule_id      Nullable(UUID),
    created_by   String,
    created_at   DateTime64(3, 'UTC'),
    updated_at   DateTime64(3, 'UTC'),
    version      UInt64,
    is_deleted   UInt8
)
ENGINE = ReplacingMergeTree(version, is_deleted)
ORDER BY (org_id, id);

-- One lead per rule firing: (rule, group, window) with a threshold, (rule, artifact) without.
CREATE TABLE IF NOT EXISTS leads
(
    org_id         LowCardinality(String),
    id             UUID,
    rule_id        UUID,
    rule_name      String,
    observation_id UUID,
    type           LowCardinality(String),
    severity       LowCardinality(String),
    group_by       String,
    group_value    String,
    window_start   Nullable(DateTime64(3, 'UTC')),
    event_count    UInt32,
    node_ids       Array(UUID),
    artifact_ids   Array(UUID),
    first_seen     DateTime64(3, 'UTC'),
    last_seen      DateTime64(3, 'UTC'),
    created_at     DateTime64(3, 'UTC'),
    version        UInt64
)
ENGINE = ReplacingMergeTree(version)
ORDER BY (org_id, id);

-- Which incident each lead joined, with what the correlator needs of the lead.
CREATE TABLE IF NOT EXISTS incident_leads
(
    org_id         LowCardinality(String),
    lead_id        UUID,
    incident_id    UUID,
    rule_name      String,
    observation_id UUID,
    severity       LowCardinality(String),
    node_ids       Array(UUID),
    artifact_ids   Array(UUID),
    first_seen     DateTime64(3, 'UTC'),
    last_seen      DateTime64(3, 'UTC'),
    version        UInt64
)
ENGINE = ReplacingMergeTree(version)
ORDER BY (org_id, lead_id);

-- What the correlator knows of an incident; its status lives apart, so that
-- the correlator folding in a lead never overwrites an analyst's status change.
CREATE TABLE IF NOT EXISTS incidents
(
    org_id          LowCardinality(String),
    id              UUID,
    title           String,
    severity        LowCardinality(String),
    artifact_count  UInt32,
    node_count      UInt32,
    node_ids        Array(UUID),
    observation_ids Array(UUID),
    first_seen      DateTime64(3, 'UTC'),
    last_seen       DateTime64(3, 'UTC'),
    created_at      DateTime64(3, 'UTC'),
    updated_at      DateTime64(3, 'UTC'),
    version         UInt64
)
ENGINE = ReplacingMergeTree(version)
ORDER BY (org_id, id);

CREATE TABLE IF NOT EXISTS incident_status
(
    org_id      LowCardinality(String),
    incident_id UUID,
    status      UInt8,
    changed_by  String,
    changed_at  DateTime64(3, 'UTC'),
    version     UInt64
)
ENGINE = ReplacingMergeTree(version)
ORDER BY (org_id, incident_id);

-- Every status change: who moved which incident from what to what, and when.
CREATE TABLE IF NOT EXISTS incident_status_changes
(
    org_id      LowCardinality(String),
    incident_id UUID,
    from_status UInt8,
    to_status   UInt8,
    changed_by  String,
    changed_at  DateTime64(3, 'UTC')
)
ENGINE = MergeTree
ORDER BY (org_id, incident_id, changed_at);
