-- Exact dedup, step 3 of 4: the id of every document (row in its file), for the lineage table.
--   :files  the docs tables (Parquet) that extraction wrote; ids are JSON text there
CREATE TABLE docs AS
SELECT f.file, d.file_row_number AS doc, (d.id::JSON) ->> '$' AS id
FROM read_parquet(:files, filename = true, file_row_number = true) AS d
JOIN file_list AS f ON d.filename = f.docs_path
