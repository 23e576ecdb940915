-- The first row of a batch that cannot be mixed: its document has no string `text`,
-- or an attribute line does not line up with it. The engine ORs one copy of
-- mix_check_attribute.sql per attribute set into :attribute_problem; the row is then
-- decoded in Python to say exactly what is wrong.
SELECT row
FROM (SELECT row, json_extract(doc, ['$.id', '$.text']) AS fields, * EXCLUDE (row) FROM batch)
WHERE json_type(fields[2]) IS DISTINCT FROM 'VARCHAR' OR :attribute_problem
ORDER BY row
LIMIT 1
