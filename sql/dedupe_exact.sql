-- Exact dedup over every key fingerprint of a run (dolma_sql.dedupe._run_exact).
-- Inputs: the per-file tables written by extract_file under {work} (keys: fp0, fp1, doc; docs: id),
-- and the registered Arrow table file_list(file, path). A key's global order g is (file, row in file),
-- so "first occurrence" is the first in input-file order, then line order, then key order.
CREATE TABLE keys AS
SELECT regexp_extract(filename, '(\d+)\.keys\.parquet$', 1)::BIGINT AS file,
       file_row_number AS ord,
       (regexp_extract(filename, '(\d+)\.keys\.parquet$', 1)::BIGINT << 40) + file_row_number AS g,
       fp0, fp1, doc
FROM read_parquet('{work}/*.keys.parquet', filename = true, file_row_number = true);

-- hash aggregation (spills to the temp directory when it does not fit in memory)
CREATE TABLE firsts AS
SELECT fp0, fp1, min(g) AS first_g
FROM keys
GROUP BY fp0, fp1
HAVING count(*) > 1;

CREATE TABLE duplicates AS
SELECT k.file, k.ord, k.doc, k.g, f.first_g
FROM keys k JOIN firsts f USING (fp0, fp1)
WHERE k.g <> f.first_g
ORDER BY k.g;

CREATE TABLE docs AS
SELECT regexp_extract(filename, '(\d+)\.docs\.parquet$', 1)::BIGINT AS file, file_row_number AS doc, id
FROM read_parquet('{work}/*.docs.parquet', filename = true, file_row_number = true);

-- lineage: one row per duplicate key -> the document holding its first occurrence
COPY (
    SELECT (dd.id::JSON) ->> '$' AS duplicate_id, df.path AS duplicate_file, d.doc + 1 AS duplicate_line,
           (kd.id::JSON) ->> '$' AS kept_id, kf.path AS kept_file, k.doc + 1 AS kept_line
    FROM duplicates d
    JOIN keys k ON k.g = d.first_g
    JOIN file_list df ON df.file = d.file
    JOIN file_list kf ON kf.file = k.file
    JOIN docs dd ON dd.file = d.file AND dd.doc = d.doc
    JOIN docs kd ON kd.file = k.file AND kd.doc = k.doc
    ORDER BY d.g
) TO '{lineage}.tmp' (FORMAT parquet);
