-- MinHash clusters, step 3 (with a threshold): only the candidate pairs whose estimated Jaccard similarity
-- (the fraction of equal minimums of the two full signatures) reaches the threshold stay edges. Run with DuckDB's
-- join reordering off, as the lineage query: the signatures of one side of each pair stream past, not held.
--   :hashes     the number of minimums in a signature
--   :threshold  dedupe.minhash.threshold
CREATE TABLE verified AS
SELECT e.src, e.dst
FROM nodes AS a
JOIN edges AS e ON e.src = a.g
JOIN nodes AS b ON b.g = e.dst
WHERE len(list_filter(list_zip(a.signature, b.signature), lambda x: x[1] = x[2])) >= :threshold * :hashes
