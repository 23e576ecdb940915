-- Exact dedup, one hash partition, step 2 of 4: every key that is not the first occurrence of its
-- fingerprint, with the file and document of that first occurrence. The hash aggregation spills to
-- the temp directory when it does not fit in memory. Its one state per fingerprint, besides the count,
-- is the first key's position and document packed in one number, g << 32 | doc (a document's number
-- fits 32 bits): the smallest is the first occurrence, and its document comes with it.
CREATE TABLE duplicates AS
WITH firsts AS (
    SELECT fp0, fp1, min((g::HUGEINT << 32) + doc) AS first
    FROM keys
    GROUP BY fp0, fp1
    HAVING count(*) > 1
)
SELECT k.g >> 40 AS file, k.g & ((1::BIGINT << 40) - 1) AS ord, k.doc,
       (f.first >> 72)::BIGINT AS first_file, (f.first & 4294967295)::UINTEGER AS first_doc
FROM keys AS k
JOIN firsts AS f USING (fp0, fp1)
WHERE k.g <> (f.first >> 32)::BIGINT
