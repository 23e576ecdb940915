-- Exact dedup, a group of consecutive input files (dolma_sql.deduper.exact_finish): their part of the
-- lineage table, one row per duplicate key -> the document holding its first occurrence, in the order
-- dolma checks keys (input file, then line, then key in the line), so that every run writes the same rows.
-- Files are their numbers here (the caller names them per batch): the sort carries no paths.
--   duplicates  (file, ord, doc, first_file, first_doc): the group's duplicate keys
--   ids         (file, doc, id): the id of every document they name
SELECT i.id AS duplicate_id, d.file AS duplicate_file, d.doc + 1 AS duplicate_line,
       k.id AS kept_id, d.first_file AS kept_file, d.first_doc + 1 AS kept_line
FROM duplicates AS d
JOIN ids AS i ON i.file = d.file AND i.doc = d.doc
JOIN ids AS k ON k.file = d.first_file AND k.doc = d.first_doc
ORDER BY d.file, d.ord
