-- MinHash clusters, the lineage table: one row per removed document, in document order, with the kept
-- document of its cluster and the estimated Jaccard similarity of their signatures.
--   :hashes     the number of minimums in a signature
--   file_list   a registered table (file, local, path, offset, new)
SELECT (r.id::JSON) ->> '$' AS duplicate_id, rf.path AS duplicate_file, r.line AS duplicate_line,
       (k.id::JSON) ->> '$' AS kept_id, kf.path AS kept_file, k.line AS kept_line,
       m.cluster_id, m.cluster_size,
       len(list_filter(list_zip(r.signature, k.signature), lambda x: x[1] = x[2])) / :hashes AS similarity
FROM members AS m
JOIN members AS km ON km.cluster_id = m.cluster_id AND NOT km.removed
JOIN nodes AS r ON r.g = m.g
JOIN nodes AS k ON k.g = km.g
JOIN file_list AS rf ON rf.file = r.file
JOIN file_list AS kf ON kf.file = k.file
WHERE m.removed
ORDER BY m.g
