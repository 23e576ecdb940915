-- MinHash clusters, the lineage table: one row per removed document, in document order, with the kept
-- document of its cluster and the estimated Jaccard similarity of their signatures.
-- Run with DuckDB's join reordering off (dolma_sql.deduper.minhash_clusters): each join's right side is its
-- hash table, so only the kept documents' signatures (one a cluster) are held while the removed ones stream.
--   :hashes     the number of minimums in a signature
--   file_list   a registered table (file, local, path, offset, new)
WITH kept AS (
    SELECT km.cluster_id, k.id, k.file, k.line, k.signature
    FROM nodes AS k JOIN members AS km ON k.g = km.g AND NOT km.removed
)
SELECT (r.id::JSON) ->> '$' AS duplicate_id, rf.path AS duplicate_file, r.line AS duplicate_line,
       (k.id::JSON) ->> '$' AS kept_id, kf.path AS kept_file, k.line AS kept_line,
       m.cluster_id, m.cluster_size,
       len(list_filter(list_zip(r.signature, k.signature), lambda x: x[1] = x[2])) / :hashes AS similarity
FROM nodes AS r
JOIN members AS m ON r.g = m.g AND m.removed
JOIN kept AS k ON k.cluster_id = m.cluster_id
JOIN file_list AS rf ON rf.file = r.file
JOIN file_list AS kf ON kf.file = k.file
ORDER BY m.g
