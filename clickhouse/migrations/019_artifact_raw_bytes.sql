-- The size of each raw line, kept beside it so the cost report sums a small
-- column instead of reading every line (docs/reports.md). Parts written
-- before this migration compute it from raw when read.
ALTER TABLE artifacts ADD COLUMN IF NOT EXISTS raw_bytes UInt32 MATERIALIZED length(raw);
