-- documents: one row per line of the document files, read lazily by DuckDB's JSON reader:
-- only the columns a query uses are parsed, and a LIMIT stops the scan early. "row" is the
-- 1-based line number in "file"; it is computed only when a query uses it (it needs the
-- whole file, so selecting it turns a streaming scan into a full one).
--   :files    list of absolute document paths
--   :columns  struct of the JSON fields and their types, in column order
--   :maximum_object_size  the longest line the reader accepts (views_object_limit.sql)
CREATE OR REPLACE VIEW documents AS
SELECT
    * EXCLUDE (filename, ordinality),
    filename AS file,
    ordinality - min(ordinality) OVER (PARTITION BY filename) + 1 AS "row"
FROM read_ndjson(
    :files, columns = :columns, filename = true, format = 'newline_delimited', records = true, maximum_object_size = :maximum_object_size
) WITH ORDINALITY
