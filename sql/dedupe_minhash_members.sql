-- MinHash clusters, the keep policy: in each component (cluster) the kept document is the first by
-- (documents of against indexes first, the keep value in the policy's order with missing values last,
-- document number); every other document of the run is removed. cluster_id: the component's smallest document.
--   :value_order  the keep value's order: 0 (first), value DESC NULLS LAST (highest), value ASC NULLS LAST (lowest)
CREATE TABLE members AS
SELECT n.g, n.file, n.line, n.new, l.l AS cluster_id, count(*) OVER (PARTITION BY l.l) AS cluster_size,
       row_number() OVER (PARTITION BY l.l ORDER BY n.new, :value_order, n.g) > 1 AS removed
FROM nodes AS n JOIN labels AS l ON l.v = n.g
