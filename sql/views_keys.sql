-- The attribute keys of one attribute set, in order of first appearance, and what their values
-- look like, to type the attributes view's columns: span lists, plain numbers, or other JSON.
-- Reads the registered table key_sample (position, line): some of the set's sampled attribute lines
-- (the caller merges what each part of the sample gives).
SELECT
    e.key AS key,
    min(position) AS first_position,
    bool_and(try_cast(e.value AS DOUBLE[][]) IS NOT NULL) AS is_spans,
    bool_and(json_type(e.value) IN ('DOUBLE', 'UBIGINT', 'BIGINT')) AS is_number
FROM (
    SELECT position, unnest(map_entries(from_json(line, '{"attributes": "MAP(VARCHAR, JSON)"}').attributes)) AS e
    FROM key_sample
)
WHERE json_type(e.value) <> 'NULL'
GROUP BY e.key
ORDER BY min(position), e.key;
