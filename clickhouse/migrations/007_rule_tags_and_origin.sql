-- Tags (ATT&CK techniques, ...) on lead rules, carried onto the observations
-- their firings write; and where an imported rule came from (a Sigma rule's
-- id, author, references and log source, kept for attribution and export).
ALTER TABLE lead_rules ADD COLUMN IF NOT EXISTS tags Array(String);
ALTER TABLE lead_rules ADD COLUMN IF NOT EXISTS origin String DEFAULT '';
ALTER TABLE observations ADD COLUMN IF NOT EXISTS tags Array(String);
