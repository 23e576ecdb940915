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
      ELSE COALESCE(key_0_0, CAST('null' AS JSON))
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
      ELSE COALESCE(key_0_1, CAST('null' AS JSON))
    END AS TEXT)
  END AS span_1
FROM (
  SELECT
    row,
    doc_values,
    attr_0_values,
    key_0,
    key_0_0,
    key_0_1,
    TRUE AS keep
  FROM (
    SELECT
      row,
      doc_values,
      attr_0_values,
      COALESCE(attr_0_values[1], doc_values[1]) AS key_0,
      CASE WHEN NOT attr_0_values[1] IS NULL THEN attr_0_values[2] ELSE doc_values[2] END AS key_0_0,
      CASE WHEN NOT attr_0_values[1] IS NULL THEN attr_0_values[3] ELSE doc_values[3] END AS key_0_1
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
          ELSE JSON_EXTRACT(
            doc,
            [
              '$."attributes"."pii"',
              '$."attributes"."pii"."email"',
              '$."attributes"."pii"."company_name"'
            ]
          )
        END AS doc_values,
        JSON_EXTRACT(
          attr_0,
          [
            '$."attributes"."pii"',
            '$."attributes"."pii"."email"',
            '$."attributes"."pii"."company_name"'
          ]
        ) AS attr_0_values
      FROM batch
    ) AS extracted
  ) AS merged
) AS decided
