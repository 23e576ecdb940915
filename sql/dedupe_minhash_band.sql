-- MinHash LSH, one band (dolma_sql.deduper.minhash_clusters): the documents sharing the band's bucket with
-- another document become candidates, each as an edge to the first document (smallest number) of its bucket.
-- A bucket counts only if it holds a document of the run (against indexes' documents are only compared).
--   :files      every signature table (local paths), as read_parquet's list
--   :bucket     the band's bucket column (b<band>)
--   :target     the local file to write (the commit protocol then puts it at its final place)
--   file_list   a registered table (local, offset, new): each signature table's first document number
COPY (
    WITH band AS (
        SELECT f.offset + s.line - 1 AS g, s.bucket, f.new
        FROM (SELECT filename, line, shingles, :bucket AS bucket FROM read_parquet(:files, filename = true)) AS s
        JOIN file_list AS f ON s.filename = f.local
        WHERE s.shingles > 0
    ),
    buckets AS (
        SELECT bucket, min(g) AS root FROM band GROUP BY bucket HAVING count(*) > 1 AND bool_or(new)
    )
    SELECT b.g AS src, k.root AS dst FROM band AS b JOIN buckets AS k USING (bucket) WHERE b.g <> k.root ORDER BY src
) TO :target (FORMAT parquet)
