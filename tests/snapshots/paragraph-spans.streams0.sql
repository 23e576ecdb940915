SELECT
  row,
  keep,
  CASE WHEN keep THEN CAST(key_0 AS TEXT) END AS span_0
FROM (
  SELECT
    row,
    doc_values,
    attr_0_values,
    key_0,
    TRUE AS keep
  FROM (
    SELECT
      row,
      doc_values,
      attr_0_values,
      COALESCE(attr_0_values[1], doc_values[1]) AS key_0
    FROM (
      SELECT
        row,
        CASE
          WHEN (
            NOT CONTAINS(doc, '"attributes"')
          ) AND (
            NOT CONTAINS(doc, '\u')
          )
          THEN CAST(NULL AS JSON[])
          ELSE JSON_EXTRACT(doc, ['$."attributes"."bff_duplicate_paragraph_spans"'])
        END AS doc_values,
        JSON_EXTRACT(attr_0, ['$."attributes"."bff_duplicate_paragraph_spans"']) AS attr_0_values
      FROM batch
    ) AS extracted
  ) AS merged
) AS decided
