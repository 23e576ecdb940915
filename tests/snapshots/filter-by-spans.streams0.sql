SELECT
  row,
  keep
FROM (
  SELECT
    row,
    doc_values,
    attr_0_values,
    key_0,
    key_1,
    key_0_0,
    key_1_1,
    CASE
      WHEN NOT (
        CASE
          WHEN COALESCE((
            TRY_CAST(CAST(key_0_0 AS TEXT) AS DOUBLE) < 0.5
          ), FALSE)
          THEN TRUE
          ELSE FALSE
        END
      )
      THEN FALSE
      WHEN COALESCE((
        0.5 < TRY_CAST(CAST(key_1_1 AS TEXT) AS DOUBLE)
      ), FALSE)
      THEN FALSE
      ELSE TRUE
    END AS keep
  FROM (
    SELECT
      row,
      doc_values,
      attr_0_values,
      COALESCE(attr_0_values[1], doc_values[1]) AS key_0,
      COALESCE(attr_0_values[3], doc_values[3]) AS key_1,
      CASE WHEN NOT attr_0_values[1] IS NULL THEN attr_0_values[2] ELSE doc_values[2] END AS key_0_0,
      CASE WHEN NOT attr_0_values[3] IS NULL THEN attr_0_values[4] ELSE doc_values[4] END AS key_1_1
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
              '$."attributes"."sample__random_number_v1__random"',
              '$."attributes"."sample__random_number_v1__random"[0][2]',
              '$."attributes"."dummy"',
              '$."attributes"."dummy"[0][2]'
            ]
          )
        END AS doc_values,
        JSON_EXTRACT(
          attr_0,
          [
            '$."attributes"."sample__random_number_v1__random"',
            '$."attributes"."sample__random_number_v1__random"[0][2]',
            '$."attributes"."dummy"',
            '$."attributes"."dummy"[0][2]'
          ]
        ) AS attr_0_values
      FROM batch
    ) AS extracted
  ) AS merged
) AS decided
