-- MinHash clusters, step 3 (with a threshold): only the candidate pairs whose estimated Jaccard similarity
-- (the fraction of equal minimums of the two full signatures) reaches the threshold stay edges.
--   :hashes     the number of minimums in a signature
--   :threshold  dedupe.minhash.threshold
CREATE TABLE verified AS
SELECT e.src, e.dst
FROM edges AS e
JOIN nodes AS a ON a.g = e.src
JOIN nodes AS b ON b.g = e.dst
WHERE len(list_filter(list_zip(a.signature, b.signature), lambda x: x[1] = x[2])) >= :threshold * :hashes
