-- The attribute keys of one attribute file, in order of first appearance, and what their values
-- look like, to type the attributes view's columns: span lists, plain numbers, or other JSON.
--   :file  string literal of the attribute file
SELECT
    e.key AS key,
    bool_and(try_cast(e.value AS DOUBLE[][]) IS NOT NULL) AS is_spans,
    bool_and(json_type(e.value) IN ('DOUBLE', 'UBIGINT', 'BIGINT')) AS is_number
FROM (
    SELECT ordinality AS position, unnest(map_entries(attributes)) AS e
    FROM read_ndjson(:file, columns = {'attributes': 'MAP(VARCHAR, JSON)'}, format = 'newline_delimited', records = true) WITH ORDINALITY
)
WHERE json_type(e.value) <> 'NULL'
GROUP BY e.key
ORDER BY min(position), e.key;
