-- Exact dedup, a group of consecutive input files (dolma_sql.deduper.exact_finish): their part of the
-- lineage table, one row per duplicate key -> the document holding its first occurrence, in the order
-- dolma checks keys (input file, then line, then key in the line), so that every run writes the same rows.
--   duplicates  (file, ord, doc, first_file, first_doc): the group's duplicate keys
--   ids         (file, doc, id): the id of every document they name
--   file_list   a registered table (file, path): every input file's position and path
SELECT i.id AS duplicate_id, df.path AS duplicate_file, d.doc + 1 AS duplicate_line,
       k.id AS kept_id, kf.path AS kept_file, d.first_doc + 1 AS kept_line
FROM duplicates AS d
JOIN ids AS i ON i.file = d.file AND i.doc = d.doc
JOIN ids AS k ON k.file = d.first_file AND k.doc = d.first_doc
JOIN file_list AS df ON df.file = d.file
JOIN file_list AS kf ON kf.file = d.first_file
ORDER BY d.file, d.ord
