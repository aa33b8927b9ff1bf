-- Publications: collections of cairn's own indicators served by its TAXII
-- 2.1 server and as STIX bundles. `indicators` is the JSON list of
-- hand-picked ones; with include_true_positives, the addresses and domains of
-- incidents classified true positive join them. The objects of a collection
-- are kept apart (one row per STIX id, its latest version), each with the
-- time it was added, which TAXII's added_after and paging read.

CREATE TABLE IF NOT EXISTS threatfeed_publications
(
    org_id                 LowCardinality(String),
    id                     UUID,
    name                   String,
    description            String,
    include_true_positives Bool,
    indicators             String,
    confidence             UInt8,
    lifetime_seconds       UInt32,
    created_by             String,
    created_at             DateTime64(3, 'UTC'),
    updated_at             DateTime64(3, 'UTC'),
    version                UInt64,
    is_deleted             UInt8
)
ENGINE = ReplacingMergeTree(version, is_deleted)
ORDER BY (org_id, id);

CREATE TABLE IF NOT EXISTS threatfeed_published_objects
(
    org_id         LowCardinality(String),
    publication_id UUID,
    stix_id        String,
    type           LowCardinality(String),
    value          String,
    origin         LowCardinality(String),
    object         String,
    revoked        Bool,
    modified       DateTime64(3, 'UTC'),
    date_added     DateTime64(3, 'UTC'),
    version        UInt64
)
ENGINE = ReplacingMergeTree(version)
ORDER BY (org_id, publication_id, stix_id);
