-- One attribute set's line must carry the document's id and an `attributes` object.
json_extract(:attribute_line, '$.id') IS DISTINCT FROM fields[1]
OR json_type(:attribute_line, '$.attributes') IS DISTINCT FROM 'OBJECT'
