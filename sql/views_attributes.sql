-- attributes: one row per document, one column per attribute key. Each attribute set is one
-- ordered scan over its files (views_attributes_set.sql), joined to the documents by position
-- (file by file, line by line, as dolma lays them out). Every row checks that the ids agree,
-- so a misaligned attribute file fails the query naming both files and both ids instead of
-- labelling documents with another document's attributes. The engine appends one column per
-- key and one POSITIONAL JOIN per set to the inner SELECT ("joined"); "row" is computed after the
-- join because a window does not keep the scan order the positional join relies on.
-- Every list of files ends with views_end.jsonl (:end_file), one line: an attribute set with more
-- lines than the documents, or fewer, disagrees with the documents at that line (its file is not
-- views_end.jsonl on both sides). So the rows DuckDB pads past the shorter side are never needed to
-- tell, and are left out: it also pads them when a query stops reading early (a LIMIT), where they
-- mean nothing.
--   :files     list of absolute document paths, then :end_file
--   :end_file  the path of views_end.jsonl
--   :aligned   true when every set's id equals the document's id, and its file is :end_file exactly when the document's is
--   :mismatch  text naming the first set that disagrees (views_attributes_mismatch.sql)
--   :maximum_object_size  the longest line the reader accepts (views_object_limit.sql)
CREATE OR REPLACE VIEW attributes AS
SELECT
    id,
    file,
    position - min(position) OVER (PARTITION BY file) + 1 AS "row",
    * EXCLUDE (id, file, position)
FROM (
    SELECT d.id, d.file, d.position
    FROM (
        SELECT id, filename AS file, ordinality AS position
        FROM read_ndjson(
            :files, columns = {'id': 'VARCHAR'}, filename = true, format = 'newline_delimited', records = true,
            maximum_object_size = :maximum_object_size
        ) WITH ORDINALITY
    ) AS d
    WHERE CASE
        WHEN d.position IS NULL THEN false
        WHEN :aligned THEN d.file <> :end_file
        ELSE error('dolma-sql: misaligned attributes: ' || :mismatch)
    END
) AS joined
