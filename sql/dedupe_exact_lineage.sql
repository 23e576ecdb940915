-- Exact dedup, step 4 of 4: the lineage table, one row per duplicate key -> the document holding its
-- first occurrence, in the order dolma checks keys (input file, then line, then key in the line),
-- so that every run writes the same bytes.
--   :target  the local file to write (the commit protocol then puts it at its final place)
COPY (
    SELECT dd.id AS duplicate_id, df.path AS duplicate_file, d.doc + 1 AS duplicate_line,
           kd.id AS kept_id, kf.path AS kept_file, d.first_doc + 1 AS kept_line
    FROM duplicates AS d
    JOIN file_list AS df ON df.file = d.file
    JOIN file_list AS kf ON kf.file = d.first_file
    JOIN docs AS dd ON dd.file = d.file AND dd.doc = d.doc
    JOIN docs AS kd ON kd.file = d.first_file AND kd.doc = d.first_doc
    ORDER BY d.file, d.ord
) TO :target (FORMAT parquet)
