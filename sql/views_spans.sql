-- spans: the long form of span attributes, one row per [start, end, score] triple, read from
-- the attribute files alone in one scan (no document is parsed). "file" and "row" locate the
-- document (attribute files are line-aligned with their document files). Values that are not
-- span lists (plain numbers, objects) and empty span lists contribute no rows.
--   :files     list of every attribute file of every set
--   :columns   {'id': 'VARCHAR', 'attributes': MAP(VARCHAR, DOUBLE[][])} when every sampled
--              value is a span list (fast), else MAP(VARCHAR, JSON)
--   :spans     e.value as DOUBLE[][] (NULL when it is not a span list)
--   :file_map  VALUES (attribute_file, file) giving each attribute file's document file
CREATE OR REPLACE VIEW spans AS
SELECT
    s.id,
    m.file,
    s."row",
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
            FROM read_ndjson(:files, columns = :columns, filename = true, format = 'newline_delimited', records = true) WITH ORDINALITY
        )
    )
) AS s
JOIN :file_map ON s.filename = m.attribute_file
