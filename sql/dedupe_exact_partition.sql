-- Exact dedup, one hash partition, step 4 of 4 (with more than one partition): the partition's duplicate
-- keys with the ids of both documents, ordered by file and key, so that the units that finish a group
-- of files read only the row groups of their files.
--   :target  the local file to write (the commit protocol then puts it at its final place)
COPY (
    SELECT d.file, d.ord, d.doc, d.first_file, d.first_doc, i.id, k.id AS first_id
    FROM duplicates AS d
    JOIN ids AS i ON i.file = d.file AND i.doc = d.doc
    JOIN ids AS k ON k.file = d.first_file AND k.doc = d.first_doc
    ORDER BY d.file, d.ord
) TO :target (FORMAT parquet)
