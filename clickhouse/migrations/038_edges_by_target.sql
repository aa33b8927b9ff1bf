-- Edges in the order of their target too. The table's order (org, type,
-- source, ...) finds the edges from a node in a few granules, but the edges
-- to a node lie all over it: a neighbourhood read (GET /v1/graph/
-- neighbourhood, docs/graph.md) that reached a busy node read every granule
-- of every column to fold a few thousand rows (bench/graph-time.ts: 55-70 ms
-- a level for one busy node at 1M edges, 8-20 ms with this projection).
-- Queries read the edges touching nodes as two parts, by source from the
-- table and by target from this projection.
--
-- An AggregatingMergeTree's merges fold rows, so the projection is rebuilt
-- from each merged part ('rebuild'); without the setting ClickHouse refuses
-- a projection on a table whose merges change rows.
ALTER TABLE edges MODIFY SETTING deduplicate_merge_projection_mode = 'rebuild';
ALTER TABLE edges ADD PROJECTION IF NOT EXISTS by_target (SELECT * ORDER BY org_id, target_id);
ALTER TABLE edges MATERIALIZE PROJECTION by_target;
