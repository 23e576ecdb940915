-- Exact dedup over every key fingerprint of a run (dolma_sql.dedupe._run_exact).
-- Inputs: the per-file tables written by extract_file under {work} (keys with fp0, fp1, doc and docs with id),
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
SELECT fp0, fp1, min(g) AS first_g, arg_min(doc, g) AS first_doc
FROM keys
GROUP BY fp0, fp1
HAVING count(*) > 1;

CREATE TABLE duplicates AS
SELECT k.file, k.ord, k.doc, f.first_g >> 40 AS first_file, f.first_doc
FROM keys k JOIN firsts f USING (fp0, fp1)
WHERE k.g <> f.first_g;

CREATE TABLE docs AS
SELECT regexp_extract(filename, '(\d+)\.docs\.parquet$', 1)::BIGINT AS file, file_row_number AS doc, (id::JSON) ->> '$' AS id
FROM read_parquet('{work}/*.docs.parquet', filename = true, file_row_number = true);

-- lineage: one row per duplicate key -> the document holding its first occurrence (unordered: sort when reading)
COPY (
    SELECT dd.id AS duplicate_id, df.path AS duplicate_file, d.doc + 1 AS duplicate_line,
           kd.id AS kept_id, kf.path AS kept_file, d.first_doc + 1 AS kept_line
    FROM duplicates d
    JOIN file_list df ON df.file = d.file
    JOIN file_list kf ON kf.file = d.first_file
    JOIN docs dd ON dd.file = d.file AND dd.doc = d.doc
    JOIN docs kd ON kd.file = d.first_file AND kd.doc = d.first_doc
) TO '{lineage}.tmp' (FORMAT parquet);
