-- Full-text search tests lower(raw) against the text index on the same
-- expression. With the index on raw and a lower() preprocessor (002), the
-- lower-casing happens only where ClickHouse answers from the index: a
-- condition it evaluates row by row (under OR, in a projection, on a part
-- without the index) compared against unlowered text and missed "Failed" for
-- "failed". An index on the expression gives the same answer either way.
ALTER TABLE artifacts DROP INDEX IF EXISTS raw_text;
ALTER TABLE artifacts ADD INDEX IF NOT EXISTS raw_lower_text lower(raw) TYPE text(tokenizer = splitByNonAlpha);
ALTER TABLE artifacts MATERIALIZE INDEX raw_lower_text;
