-- Exact dedup, one hash partition, step 2 of 4: every key that is not the first occurrence of its
-- fingerprint, with the file and document of that first occurrence. The hash aggregation spills to
-- the temp directory when it does not fit in memory.
CREATE TABLE duplicates AS
WITH firsts AS (
    SELECT fp0, fp1, min(g) AS first_g, arg_min(doc, g) AS first_doc
    FROM keys
    GROUP BY fp0, fp1
    HAVING count(*) > 1
)
SELECT k.g >> 40 AS file, k.g & ((1::BIGINT << 40) - 1) AS ord, k.doc, f.first_g >> 40 AS first_file, f.first_doc
FROM keys AS k
JOIN firsts AS f USING (fp0, fp1)
WHERE k.g <> f.first_g
