-- Equality on any parsed field, promoted or not, looks the pair up in a text
-- index of every (field, lower-cased value) pair of the event, written
-- "<bytes of the name>:<name>=<value>" so that no name or value can pass for
-- another. The index lists the rows holding a pair, so
-- `dns.question.type:AAAA` reads neither the field map nor any granule
-- without it. `has()` on the same expression (clickhouse/tables/events.ts,
-- FIELD_VALUE_PAIRS) is exact with or without the index.
ALTER TABLE events
    ADD INDEX IF NOT EXISTS field_value_pairs arrayFlatten(arrayMap((k, vs) -> arrayMap(v -> concat(toString(length(k)), ':', k, '=', lower(v)), vs), mapKeys(fields), mapValues(fields))) TYPE text(tokenizer = array);
ALTER TABLE events MATERIALIZE INDEX field_value_pairs;
