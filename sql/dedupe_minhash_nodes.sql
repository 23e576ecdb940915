-- MinHash clusters, step 2: every document an edge touches, with what the keep policy and the lineage need.
--   :files      every signature table (local paths)
--   file_list   a registered table (file, local, path, offset, new)
CREATE TABLE nodes AS
WITH touched AS (SELECT src AS g FROM edges UNION SELECT dst FROM edges)
SELECT f.offset + s.line - 1 AS g, f.file, s.line, s.id, s.value, s.signature, f.new
FROM read_parquet(:files, filename = true) AS s
JOIN file_list AS f ON s.filename = f.local
SEMI JOIN touched AS t ON t.g = f.offset + s.line - 1
