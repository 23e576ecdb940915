-- Exact dedup, one hash partition, step 3 of 4: the id of every document that holds a duplicate key or
-- the first occurrence of one, read again from the hashes tables (the keys kept only numbers).
--   :files       the partition's hashes tables, as in step 1
--   hashes_list  as in step 1
CREATE TABLE ids AS
WITH wanted AS (
    SELECT file, doc FROM duplicates
    UNION
    SELECT first_file, first_doc FROM duplicates
)
SELECT DISTINCT f.file, k.doc, k.id
FROM read_parquet(:files, filename = true) AS k
JOIN hashes_list AS f ON k.filename = f.hashes_path
SEMI JOIN wanted AS w ON w.file = f.file AND w.doc = k.doc
