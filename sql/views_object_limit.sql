-- The longest JSON line the views' readers accept: DuckDB's default of 16 MiB until a query meets
-- a longer document and the engine raises it (SET VARIABLE :variable). The reader reserves twice
-- this much per thread and per file scan, so it is raised only for a corpus that needs it.
CAST(coalesce(getvariable(:variable), 16777216) AS UINTEGER)
