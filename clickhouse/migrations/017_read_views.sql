-- Read views for reporting jobs (docs/reporting.md). Their names and columns
-- are a promise: reports, dashboards and scripts outside cairn read them, so a
-- column is never renamed, retyped or dropped; a change is a new column (a
-- later migration with CREATE OR REPLACE VIEW) and docs/reporting.md says in
-- which migration each column was added. The tables behind them stay free to
-- change.
--
-- Each view answers the current state the API answers: ReplacingMergeTree
-- tables are read with FINAL and without their deleted rows, aggregating
-- tables are folded by id. Plain views only (no storage, nothing to keep in
-- sync): every read runs the SELECT below, on chdb and on a server alike.
--
-- Joins are written so that a reader's join_use_nulls setting does not change
-- a column's meaning: a missing right side is tested with ifNull().

-- Artifacts as sensors sent them. Like the API, no FINAL: the store stage
-- stores an artifact once, and FINAL over the largest table would cost every
-- report for a duplicate that only a rebalance race can write.
CREATE VIEW IF NOT EXISTS v_artifacts AS
SELECT
    id,
    org_id,
    source,
    timestamp,
    created_at,
    raw,
    metadata
FROM artifacts;

-- Parsed events: the ECS fields reports filter and group on most, as columns
-- (read from the columns migration 008 fills at insert, not from the map);
-- every other field in `fields`. Single-valued ECS fields are scalars, NULL
-- when the event has none; event.category is an array in ECS and stays one.
CREATE VIEW IF NOT EXISTS v_events AS
SELECT
    artifact_id,
    org_id,
    source,
    timestamp,
    event_time,
    parser,
    f_event_category AS event_category,
    nullIf(f_event_action[1], '') AS event_action,
    nullIf(f_event_outcome[1], '') AS event_outcome,
    nullIf(f_event_dataset[1], '') AS event_dataset,
    nullIf(f_source_ip[1], '') AS source_ip,
    toUInt16OrNull(f_source_port[1]) AS source_port,
    nullIf(f_destination_ip[1], '') AS destination_ip,
    toUInt16OrNull(f_destination_port[1]) AS destination_port,
    nullIf(f_network_transport[1], '') AS network_transport,
    nullIf(f_user_name[1], '') AS user_name,
    nullIf(f_host_hostname[1], '') AS host_hostname,
    nullIf(f_process_name[1], '') AS process_name,
    nullIf(f_service_name[1], '') AS service_name,
    fields,
    created_at
FROM events;

-- Nodes, one row each: the sightings folded as the API folds them (first seen
-- the earliest, last seen the latest), the distinct edges touching the node,
-- and an analyst's flag overrides. Automatic flags and framework indices are
-- computed from configuration (CAIRN_INTERNAL_NETWORKS, ...) when the API
-- reads, so the database cannot hold them: NULL overrides mean "automatic".
-- Grouping by the whole sort key (the id derives from org, type and value)
-- lets a filter on org_id, type or value reach the table.
CREATE VIEW IF NOT EXISTS v_nodes AS
SELECT
    n.id AS id,
    n.org_id AS org_id,
    n.type AS type,
    n.value AS value,
    toDateTime64(n.seen_first, 3, 'UTC') AS first_seen,
    toDateTime64(n.seen_last, 3, 'UTC') AS last_seen,
    toUInt64(ifNull(e.edges, 0)) AS edge_count,
    o.managed AS managed_override,
    o.internal AS internal_override,
    o.trusted AS trusted_override,
    o.infrastructure AS infrastructure_override
FROM
(
    SELECT org_id, type, value, id, min(first_seen) AS seen_first, max(last_seen) AS seen_last
    FROM nodes
    GROUP BY org_id, type, value, id
) AS n
LEFT JOIN
(
    SELECT org_id, node, count() AS edges
    FROM (SELECT org_id, id, arrayJoin([source_id, target_id]) AS node FROM edges GROUP BY org_id, id, node)
    GROUP BY org_id, node
) AS e ON e.org_id = n.org_id AND e.node = n.id
LEFT JOIN
(
    SELECT org_id, node_id, managed, internal, trusted, infrastructure
    FROM node_flag_overrides FINAL
) AS o ON o.org_id = n.org_id AND o.node_id = n.id;

-- Edges, one row each: first and last seen, and the distinct artifacts that
-- showed the relationship (the API's artifact_count and weight).
CREATE VIEW IF NOT EXISTS v_edges AS
SELECT
    id,
    org_id,
    type,
    source_id,
    target_id,
    toDateTime64(seen_first, 3, 'UTC') AS first_seen,
    toDateTime64(seen_last, 3, 'UTC') AS last_seen,
    artifacts_seen AS artifact_count
FROM
(
    SELECT org_id, type, source_id, target_id, id,
           min(first_seen) AS seen_first, max(last_seen) AS seen_last, uniqCombined64Merge(artifacts) AS artifacts_seen
    FROM edges
    GROUP BY org_id, type, source_id, target_id, id
);

-- Observations as they stand; deleted ones are gone.
CREATE VIEW IF NOT EXISTS v_observations AS
SELECT
    id,
    org_id,
    type,
    description,
    severity,
    rule_id,
    tags,
    node_ids,
    artifact_ids,
    created_by,
    created_at,
    updated_at
FROM observations FINAL
WHERE is_deleted = 0;

-- Leads, with the incident each joined (NULL while it has joined none).
CREATE VIEW IF NOT EXISTS v_leads AS
SELECT
    l.id AS id,
    l.org_id AS org_id,
    l.rule_id AS rule_id,
    l.rule_name AS rule_name,
    l.observation_id AS observation_id,
    l.type AS type,
    l.severity AS severity,
    l.group_by AS group_by,
    l.group_value AS group_value,
    l.window_start AS window_start,
    l.event_count AS event_count,
    l.node_ids AS node_ids,
    l.artifact_ids AS artifact_ids,
    l.first_seen AS first_seen,
    l.last_seen AS last_seen,
    l.created_at AS created_at,
    nullIf(il.incident_id, toUUID('00000000-0000-0000-0000-000000000000')) AS incident_id
FROM
(
    SELECT org_id, id, rule_id, rule_name, observation_id, type, severity, group_by, group_value, window_start,
           event_count, node_ids, artifact_ids, first_seen, last_seen, created_at
    FROM leads FINAL
) AS l
LEFT JOIN
(
    SELECT org_id, lead_id, incident_id FROM incident_leads FINAL
) AS il ON il.org_id = l.org_id AND il.lead_id = l.id;

-- Incidents with their status (SPEC 3): 1 New until an analyst sets one, its
-- name, and the classification it gives: true_positive for 3 Resolved and
-- 5 Disrupted, false_positive for 4 Closed, NULL otherwise (as the API).
CREATE VIEW IF NOT EXISTS v_incidents AS
SELECT
    id,
    org_id,
    title,
    severity,
    current_status AS status,
    transform(current_status, [1, 2, 3, 4, 5], ['New', 'Investigating', 'Resolved', 'Closed', 'Disrupted'], 'Unknown') AS status_name,
    multiIf(current_status IN (3, 5), 'true_positive', current_status = 4, 'false_positive', NULL) AS classification,
    artifact_count,
    node_count,
    node_ids,
    observation_ids,
    first_seen,
    last_seen,
    created_at,
    updated_at,
    status_changed_at,
    status_changed_by
FROM
(
    SELECT
        i.id AS id,
        i.org_id AS org_id,
        i.title AS title,
        i.severity AS severity,
        toUInt8(greatest(ifNull(s.status, 0), 1)) AS current_status,
        i.artifact_count AS artifact_count,
        i.node_count AS node_count,
        i.node_ids AS node_ids,
        i.observation_ids AS observation_ids,
        i.first_seen AS first_seen,
        i.last_seen AS last_seen,
        i.created_at AS created_at,
        greatest(i.updated_at, ifNull(s.changed_at, i.updated_at)) AS updated_at,
        if(ifNull(s.status, 0) = 0, NULL, s.changed_at) AS status_changed_at,
        if(ifNull(s.status, 0) = 0, NULL, s.changed_by) AS status_changed_by
    FROM
    (
        SELECT org_id, id, title, severity, artifact_count, node_count, node_ids, observation_ids,
               first_seen, last_seen, created_at, updated_at
        FROM incidents FINAL
    ) AS i
    LEFT JOIN
    (
        SELECT org_id, incident_id, status, changed_by, changed_at FROM incident_status FINAL
    ) AS s ON s.org_id = i.org_id AND s.incident_id = i.id
);

-- Every status change, with the names and the classification it gave.
CREATE VIEW IF NOT EXISTS v_incident_status_changes AS
SELECT
    org_id,
    incident_id,
    from_status,
    transform(from_status, [1, 2, 3, 4, 5], ['New', 'Investigating', 'Resolved', 'Closed', 'Disrupted'], 'Unknown') AS from_status_name,
    to_status,
    transform(to_status, [1, 2, 3, 4, 5], ['New', 'Investigating', 'Resolved', 'Closed', 'Disrupted'], 'Unknown') AS to_status_name,
    multiIf(to_status IN (3, 5), 'true_positive', to_status = 4, 'false_positive', NULL) AS classification,
    changed_by,
    changed_at
FROM incident_status_changes;

-- Lead rules as they stand; deleted ones are gone. `conditions` and `origin`
-- are JSON text (JSONExtractString(conditions, 'pattern'), ...).
CREATE VIEW IF NOT EXISTS v_lead_rules AS
SELECT
    id,
    org_id,
    name,
    description,
    enabled,
    severity,
    conditions,
    tags,
    origin,
    created_at,
    updated_at
FROM lead_rules FINAL
WHERE is_deleted = 0;
