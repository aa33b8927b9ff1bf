-- Wider merges for the two tables every artifact is written to. Parts
-- arrive several times a second (each store batch, each analysed chunk), and
-- with the default base of 5 the merges rewrote each row so often that they
-- cost about as much CPU as the inserts (17 µs an artifact at 25,000/s on
-- 2 cores). With 10 a merge waits for more parts of a like size, so a row is
-- rewritten fewer times: the merge threads used a quarter less CPU in
-- bench/ingest.ts, and a partition holds a few more parts between merges.
-- The graph tables keep the default: their merges fold sightings that reads
-- would otherwise aggregate.
ALTER TABLE artifacts MODIFY SETTING merge_selector_base = 10;
ALTER TABLE events MODIFY SETTING merge_selector_base = 10;
