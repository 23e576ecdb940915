-- One attribute set of the attributes view, in document order.
--   :files    list of the set's attribute files, aligned with the document files
--   :columns  struct {'id': 'VARCHAR', 'attributes': STRUCT(<key> <type>, ...)}
--   :maximum_object_size  the longest line the reader accepts (views_object_limit.sql)
SELECT id, filename, attributes
FROM read_ndjson(
    :files, columns = :columns, filename = true, format = 'newline_delimited', records = true, maximum_object_size = :maximum_object_size
)
