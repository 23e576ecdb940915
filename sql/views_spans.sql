-- spans: the long form of span attributes, one row per [start, end, score] triple, read from
-- the attribute files alone in one scan (no document is parsed). "file" and "row" locate the
-- document (attribute files are line-aligned with their document files); "set" names the
-- attribute set, so two sets writing the same key stay apart. Values that are not span lists
-- (plain numbers, objects) and empty span lists contribute no rows.
--   :files     list of every attribute file of every set
--   :columns   {'id': 'VARCHAR', 'attributes': MAP(VARCHAR, DOUBLE[][])} when every sampled
--              value is a span list (fast), else MAP(VARCHAR, JSON)
--   :spans     e.value as DOUBLE[][] (NULL when it is not a span list)
--   :file_map  VALUES (attribute_file, file, set) giving each attribute file's document file and set
--   :maximum_object_size  the longest line the reader accepts (views_object_limit.sql)
CREATE OR REPLACE VIEW spans AS
SELECT
    s.id,
    m.file,
    s."row",
    m."set",
    s.attribute,
    s.span[1]::BIGINT AS "start",
    s.span[2]::BIGINT AS "end",
    s.span[3] AS score
FROM (
    SELECT id, filename, "row", e.key AS attribute, unnest(:spans) AS span
    FROM (
        SELECT id, filename, "row", unnest(map_entries(attributes)) AS e
        FROM (
            SELECT id, filename, attributes, ordinality - min(ordinality) OVER (PARTITION BY filename) + 1 AS "row"
            FROM read_ndjson(
                :files, columns = :columns, filename = true, format = 'newline_delimited', records = true,
                maximum_object_size = :maximum_object_size
            ) WITH ORDINALITY
        )
    )
) AS s
JOIN :file_map ON s.filename = m.attribute_file
