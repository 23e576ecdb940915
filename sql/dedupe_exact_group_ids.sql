-- Exact dedup, a group of consecutive input files (dolma_sql.deduper.exact_finish): the ids of the
-- documents its duplicate keys name, from the partitions' duplicates tables, which carry them.
--   duplicates  a registered table (file, ord, doc, first_file, first_doc, id, first_id)
CREATE TABLE ids AS
SELECT file, doc, id FROM duplicates
UNION
SELECT first_file, first_doc, first_id FROM duplicates
