-- Exact dedup, one hash partition (dolma_sql.deduper.exact_aggregate), step 1 of 4: the partition's key
-- fingerprints from every input file, each with its document.
--   :files       the partition's hashes tables (Parquet) that extraction wrote, one per input file
--   hashes_list  a registered table (file, hashes_path): each input file's position and hashes table
-- A key's global order g is (file, row in the file's keys), so "first occurrence" is the first in
-- input-file order, then line order, then key order, as dolma checks them. A view, not a table: step 2
-- scans the hashes tables twice rather than hold every key in DuckDB's memory beside its hash table.
CREATE VIEW keys AS
SELECT (f.file << 40) + k.ord AS g, k.fp0, k.fp1, k.doc::UINTEGER AS doc
FROM read_parquet(:files, filename = true) AS k
JOIN hashes_list AS f ON k.filename = f.hashes_path
