-- The knowledge graph. Node and edge ids are UUIDv5 of (org, type, value) and
-- (org, type, source, target), so replays and parallel workers write the same
-- rows and the aggregating engines fold them together.

-- One row per node and sighting batch; first/last seen fold by min/max.
CREATE TABLE IF NOT EXISTS nodes
(
    org_id     LowCardinality(String),
    type       LowCardinality(String),
    value      String,
    id         UUID,
    first_seen SimpleAggregateFunction(min, DateTime64(3, 'UTC')),
    last_seen  SimpleAggregateFunction(max, DateTime64(3, 'UTC')),
    INDEX id_bloom id TYPE bloom_filter(0.001) GRANULARITY 1
)
ENGINE = AggregatingMergeTree
ORDER BY (org_id, type, value, id);

-- Sightings arrive here, one per (edge, artifact), and flow into `edges`.
CREATE TABLE IF NOT EXISTS edge_sightings
(
    org_id      LowCardinality(String),
    id          UUID,
    type        LowCardinality(String),
    source_id   UUID,
    target_id   UUID,
    artifact_id UUID,
    seen_at     DateTime64(3, 'UTC')
)
ENGINE = Null;

-- artifact_count counts distinct artifacts, so a replayed sighting changes
-- nothing: uniqCombined64 is exact up to about 10,000 artifacts per edge and
-- within about 1% above, in bounded memory.
CREATE TABLE IF NOT EXISTS edges
(
    org_id     LowCardinality(String),
    type       LowCardinality(String),
    id         UUID,
    source_id  UUID,
    target_id  UUID,
    first_seen SimpleAggregateFunction(min, DateTime64(3, 'UTC')),
    last_seen  SimpleAggregateFunction(max, DateTime64(3, 'UTC')),
    artifacts  AggregateFunction(uniqCombined64, UUID),
    INDEX source_bloom source_id TYPE bloom_filter(0.001) GRANULARITY 1,
    INDEX target_bloom target_id TYPE bloom_filter(0.001) GRANULARITY 1,
    INDEX id_bloom id TYPE bloom_filter(0.001) GRANULARITY 1
)
ENGINE = AggregatingMergeTree
ORDER BY (org_id, type, source_id, target_id, id);

CREATE MATERIALIZED VIEW IF NOT EXISTS edges_from_sightings TO edges AS
SELECT org_id, type, id, source_id, target_id,
       min(seen_at) AS first_seen, max(seen_at) AS last_seen,
       uniqCombined64State(artifact_id) AS artifacts
FROM edge_sightings
GROUP BY org_id, type, id, source_id, target_id;

-- Flags an analyst set by hand; NULL means "automatic" (from configuration).
CREATE TABLE IF NOT EXISTS node_flag_overrides
(
    org_id         LowCardinality(String),
    node_id        UUID,
    managed        Nullable(Bool),
    internal       Nullable(Bool),
    trusted        Nullable(Bool),
    infrastructure Nullable(Bool),
    updated_by     String,
    updated_at     DateTime64(3, 'UTC'),
    version        UInt64
)
ENGINE = ReplacingMergeTree(version)
ORDER BY (org_id, node_id);
