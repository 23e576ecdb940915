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
    key_0_values,
    key_1_values,
    CASE
      WHEN NOT (
        CASE
          WHEN COALESCE((
            TRY_CAST(CAST(key_0_values[1] AS TEXT) AS DOUBLE) < 0.5
          ), FALSE)
          THEN TRUE
          ELSE FALSE
        END
      )
      THEN FALSE
      WHEN COALESCE((
        0.5 < TRY_CAST(CAST(key_1_values[1] AS TEXT) AS DOUBLE)
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
      COALESCE(attr_0_values[2], doc_values[2]) AS key_1,
      JSON_EXTRACT(COALESCE(attr_0_values[1], doc_values[1]), ['$[0][2]']) AS key_0_values,
      JSON_EXTRACT(COALESCE(attr_0_values[2], doc_values[2]), ['$[0][2]']) AS key_1_values
    FROM (
      SELECT
        row,
        JSON_EXTRACT(
          doc,
          ['$."attributes"."sample__random_number_v1__random"', '$."attributes"."dummy"']
        ) AS doc_values,
        JSON_EXTRACT(
          attr_0,
          ['$."attributes"."sample__random_number_v1__random"', '$."attributes"."dummy"']
        ) AS attr_0_values
      FROM batch
    ) AS extracted
  ) AS merged
) AS decided
