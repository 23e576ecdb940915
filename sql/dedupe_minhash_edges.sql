-- MinHash clusters (dolma_sql.deduper.minhash_clusters), step 1: the candidate edges of every band, each once.
--   :edges  the bands' edge tables (local paths)
CREATE TABLE edges AS SELECT DISTINCT src, dst FROM read_parquet(:edges)
