-- Exact dedup, one hash partition, step 3 of 4: the id of every document that holds a duplicate key or
-- the first occurrence of one, from the input files' ids tables (one row per document).
--   :files   the ids tables (Parquet) that extraction wrote, one per input file
--   ids_list a registered table (file, ids_path): each input file's position and ids table
CREATE TABLE ids AS
WITH wanted AS (
    SELECT file, doc FROM duplicates
    UNION
    SELECT first_file, first_doc FROM duplicates
)
SELECT f.file, k.doc, k.id
FROM read_parquet(:files, filename = true) AS k
JOIN ids_list AS f ON k.filename = f.ids_path
SEMI JOIN wanted AS w ON w.file = f.file AND w.doc = k.doc
