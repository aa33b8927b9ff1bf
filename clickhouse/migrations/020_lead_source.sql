-- The source (sensor) of a lead's first event, so reports attribute leads to
-- sources without looking their artifacts up (docs/reports.md).
ALTER TABLE leads ADD COLUMN IF NOT EXISTS source LowCardinality(String) DEFAULT '';
