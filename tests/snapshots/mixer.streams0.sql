SELECT
  row,
  keep
FROM (
  SELECT
    row,
    doc_values,
    attr_0_values,
    attr_1_values,
    key_0,
    key_1,
    key_0_0,
    CASE
      WHEN NOT (
        CASE
          WHEN COALESCE(
            CASE
              WHEN JSON_TYPE(doc_values[1]) = 'ARRAY'
              THEN LEN(
                LIST_FILTER(
                  JSON_EXTRACT(doc_values[1], '$[*]'),
                  LAMBDA _v0 : COALESCE(
                    (
                      TRY_CAST(CAST(JSON_EXTRACT(_v0, '$."length"') AS TEXT) AS DOUBLE) < 10000.0
                    ),
                    FALSE
                  )
                )
              ) > 0
              WHEN NOT JSON_TYPE(doc_values[1]) IS NULL
              THEN COALESCE((
                TRY_CAST(CAST(doc_values[2] AS TEXT) AS DOUBLE) < 10000.0
              ), FALSE)
              ELSE FALSE
            END,
            FALSE
          )
          THEN TRUE
          ELSE FALSE
        END
      )
      THEN FALSE
      WHEN COALESCE(
        CASE
          WHEN JSON_TYPE(doc_values[1]) = 'ARRAY'
          THEN LEN(
            LIST_FILTER(
              JSON_EXTRACT(doc_values[1], '$[*]'),
              LAMBDA _v1 : COALESCE(
                (
                  TRY_CAST(CAST(JSON_EXTRACT(_v1, '$."length"') AS TEXT) AS DOUBLE) < 500.0
                ),
                FALSE
              )
            )
          ) > 0
          WHEN NOT JSON_TYPE(doc_values[1]) IS NULL
          THEN COALESCE((
            TRY_CAST(CAST(doc_values[2] AS TEXT) AS DOUBLE) < 500.0
          ), FALSE)
          ELSE FALSE
        END,
        FALSE
      )
      THEN FALSE
      WHEN COALESCE((
        CAST(key_0_0 AS TEXT) = 'true'
      ), FALSE)
      THEN FALSE
      WHEN COALESCE((
        0.8 < TRY_CAST(CAST(key_1 AS TEXT) AS DOUBLE)
      ), FALSE)
      THEN FALSE
      ELSE TRUE
    END AS keep
  FROM (
    SELECT
      row,
      doc_values,
      attr_0_values,
      attr_1_values,
      COALESCE(attr_1_values[1], attr_0_values[1], doc_values[3]) AS key_0,
      COALESCE(attr_1_values[3], attr_0_values[3], doc_values[5]) AS key_1,
      CASE
        WHEN NOT attr_1_values[1] IS NULL
        THEN attr_1_values[2]
        WHEN NOT attr_0_values[1] IS NULL
        THEN attr_0_values[2]
        ELSE doc_values[4]
      END AS key_0_0
    FROM (
      SELECT
        row,
        JSON_EXTRACT(
          doc,
          [
            '$."metadata"',
            '$."metadata"."length"',
            '$."attributes"."pii"',
            '$."attributes"."pii"."too_much_pii"',
            '$."attributes"."toxicity"'
          ]
        ) AS doc_values,
        JSON_EXTRACT(
          attr_0,
          [
            '$."attributes"."pii"',
            '$."attributes"."pii"."too_much_pii"',
            '$."attributes"."toxicity"'
          ]
        ) AS attr_0_values,
        JSON_EXTRACT(
          attr_1,
          [
            '$."attributes"."pii"',
            '$."attributes"."pii"."too_much_pii"',
            '$."attributes"."toxicity"'
          ]
        ) AS attr_1_values
      FROM batch
    ) AS extracted
  ) AS merged
) AS decided
