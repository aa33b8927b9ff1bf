-- Equality on the promoted fields that hold many distinct values (addresses,
-- users, hosts, domains) looks the value up in a bloom filter of each
-- granule's lower-cased values, so `source.ip:203.0.113.9` reads the few
-- granules that may hold it instead of the whole column. The expression is
-- the one clickhouse/tables/events.ts writes for such a test.
ALTER TABLE events
    ADD INDEX IF NOT EXISTS f_source_ip_lookup arrayMap(v -> lower(v), f_source_ip) TYPE bloom_filter(0.01) GRANULARITY 1,
    ADD INDEX IF NOT EXISTS f_destination_ip_lookup arrayMap(v -> lower(v), f_destination_ip) TYPE bloom_filter(0.01) GRANULARITY 1,
    ADD INDEX IF NOT EXISTS f_user_name_lookup arrayMap(v -> lower(v), f_user_name) TYPE bloom_filter(0.01) GRANULARITY 1,
    ADD INDEX IF NOT EXISTS f_host_hostname_lookup arrayMap(v -> lower(v), f_host_hostname) TYPE bloom_filter(0.01) GRANULARITY 1,
    ADD INDEX IF NOT EXISTS f_url_domain_lookup arrayMap(v -> lower(v), f_url_domain) TYPE bloom_filter(0.01) GRANULARITY 1,
    ADD INDEX IF NOT EXISTS f_dns_question_name_lookup arrayMap(v -> lower(v), f_dns_question_name) TYPE bloom_filter(0.01) GRANULARITY 1;
ALTER TABLE events MATERIALIZE INDEX f_source_ip_lookup;
ALTER TABLE events MATERIALIZE INDEX f_destination_ip_lookup;
ALTER TABLE events MATERIALIZE INDEX f_user_name_lookup;
ALTER TABLE events MATERIALIZE INDEX f_host_hostname_lookup;
ALTER TABLE events MATERIALIZE INDEX f_url_domain_lookup;
ALTER TABLE events MATERIALIZE INDEX f_dns_question_name_lookup;
