-- Equality on every field, promoted or not, is looked up in the text index
-- of (field, lower-cased value) pairs (010), which lists the rows holding a
-- pair. The six bloom filters of 009 answered the same tests for six
-- promoted fields, granule by granule, and cost about 4 µs of engine CPU on
-- every events row inserted, a quarter of the row's insert
-- (bench/README.md, eleventh pass).
ALTER TABLE events
    DROP INDEX IF EXISTS f_source_ip_lookup,
    DROP INDEX IF EXISTS f_destination_ip_lookup,
    DROP INDEX IF EXISTS f_user_name_lookup,
    DROP INDEX IF EXISTS f_host_hostname_lookup,
    DROP INDEX IF EXISTS f_url_domain_lookup,
    DROP INDEX IF EXISTS f_dns_question_name_lookup;
