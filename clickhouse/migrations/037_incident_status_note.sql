-- A note an analyst may give with a status change (why it was closed, what
-- was done), kept in the incident's status history beside who and when; the
-- read view shows it too.
ALTER TABLE incident_status_changes ADD COLUMN IF NOT EXISTS note String DEFAULT '';

CREATE OR REPLACE VIEW v_incident_status_changes AS
SELECT
    org_id,
    incident_id,
    from_status,
    transform(from_status, [1, 2, 3, 4, 5], ['New', 'Investigating', 'Resolved', 'Closed', 'Disrupted'], 'Unknown') AS from_status_name,
    to_status,
    transform(to_status, [1, 2, 3, 4, 5], ['New', 'Investigating', 'Resolved', 'Closed', 'Disrupted'], 'Unknown') AS to_status_name,
    multiIf(to_status IN (3, 5), 'true_positive', to_status = 4, 'false_positive', NULL) AS classification,
    changed_by,
    changed_at,
    note
FROM incident_status_changes;
