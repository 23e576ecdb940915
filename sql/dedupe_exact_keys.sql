-- Exact dedup, step 1 of 4 (dolma_sql.deduper.exact_run): every key fingerprint of the run in one table.
--   :files     the keys tables (Parquet) that extraction wrote, one per input file
--   file_list  a registered table (file, path, keys_path, docs_path): each input file's position and tables
-- A key's global order g is (file, row in file), so "first occurrence" is the first in input-file
-- order, then line order, then key order, as dolma checks them.
CREATE TABLE keys AS
SELECT f.file, k.file_row_number AS ord, (f.file << 40) + k.file_row_number AS g, k.fp0, k.fp1, k.doc
FROM read_parquet(:files, filename = true, file_row_number = true) AS k
JOIN file_list AS f ON k.filename = f.keys_path
