SELECT
  row,
  keep,
  CASE
    WHEN keep
    THEN CAST(CASE
      WHEN COALESCE(
        (
          NOT (
            STARTS_WITH(CAST(key_0 AS TEXT), '{') OR (
              CAST(key_0 AS TEXT) = 'null'
            )
          )
        ),
        FALSE
      )
      THEN CAST(NULL AS JSON)
      ELSE COALESCE(key_0_values[1], CAST('null' AS JSON))
    END AS TEXT)
  END AS span_0,
  CASE
    WHEN keep
    THEN CAST(CASE
      WHEN COALESCE(
        (
          NOT (
            STARTS_WITH(CAST(key_0 AS TEXT), '{') OR (
              CAST(key_0 AS TEXT) = 'null'
            )
          )
        ),
        FALSE
      )
      THEN CAST(NULL AS JSON)
      ELSE COALESCE(key_0_values[2], CAST('null' AS JSON))
    END AS TEXT)
  END AS span_1
FROM (
  SELECT
    row,
    doc_values,
    attr_0_values,
    key_0,
    key_0_values,
    TRUE AS keep
  FROM (
    SELECT
      row,
      doc_values,
      attr_0_values,
      COALESCE(attr_0_values[1], doc_values[1]) AS key_0,
      JSON_EXTRACT(COALESCE(attr_0_values[1], doc_values[1]), ['$."email"', '$."company_name"']) AS key_0_values
    FROM (
      SELECT
        row,
        JSON_EXTRACT(doc, ['$."attributes"."pii"']) AS doc_values,
        JSON_EXTRACT(attr_0, ['$."attributes"."pii"']) AS attr_0_values
      FROM batch
    ) AS extracted
  ) AS merged
) AS decided
