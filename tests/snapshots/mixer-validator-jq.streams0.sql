SELECT
  row,
  keep,
  CASE WHEN keep THEN CAST(key_9 AS TEXT) END AS span_0,
  CASE WHEN keep THEN CAST(key_10 AS TEXT) END AS span_1,
  CASE WHEN keep THEN CAST(key_11 AS TEXT) END AS span_2
FROM (
  SELECT
    row,
    doc_values,
    attr_0_values,
    attr_1_values,
    key_0,
    key_1,
    key_2,
    key_3,
    key_4,
    key_5,
    key_6,
    key_7,
    key_8,
    key_9,
    key_10,
    key_11,
    key_0_values,
    key_0_types,
    key_1_values,
    key_1_types,
    key_2_values,
    key_2_types,
    key_3_values,
    key_3_types,
    key_4_values,
    key_4_types,
    key_5_values,
    key_5_types,
    key_6_values,
    key_6_types,
    key_7_values,
    key_7_types,
    key_8_values,
    key_8_types,
    CASE
      WHEN COALESCE(
        LIST_TRANSFORM(
          [
            LIST_TRANSFORM(
              [
                LIST_TRANSFORM(
                  [
                    LIST_TRANSFORM(
                      [
                        CASE
                          WHEN COALESCE(key_0_types[1], 'NULL') = 'NULL'
                          THEN 'null'
                          WHEN COALESCE(key_0_types[1], 'NULL') = 'BOOLEAN'
                          THEN 'boolean'
                          WHEN COALESCE(key_0_types[1], 'NULL') = 'VARCHAR'
                          THEN 'string'
                          WHEN COALESCE(key_0_types[1], 'NULL') = 'ARRAY'
                          THEN 'array'
                          WHEN COALESCE(key_0_types[1], 'NULL') = 'OBJECT'
                          THEN 'object'
                          WHEN COALESCE(key_0_types[1], 'NULL') IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                          THEN 'number'
                        END = 'array'
                      ],
                      LAMBDA _v3 : CASE
                        WHEN _v3 IS NULL
                        THEN NULL
                        WHEN NOT _v3
                        THEN FALSE
                        ELSE 0.0 < CAST(CASE
                          WHEN COALESCE(key_0_types[1], 'NULL') IN ('NULL')
                          THEN 0
                          WHEN COALESCE(key_0_types[1], 'NULL') IN ('ARRAY')
                          THEN JSON_ARRAY_LENGTH(COALESCE(key_0, CAST('null' AS JSON)))
                          WHEN COALESCE(key_0_types[1], 'NULL') IN ('OBJECT')
                          THEN LEN(JSON_KEYS(COALESCE(key_0, CAST('null' AS JSON))))
                          WHEN COALESCE(key_0_types[1], 'NULL') IN ('VARCHAR')
                          THEN LENGTH(JSON_EXTRACT_STRING(COALESCE(key_0, CAST('null' AS JSON)), '$'))
                          WHEN COALESCE(key_0_types[1], 'NULL') IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                          THEN ABS(TRY_CAST(COALESCE(key_0, CAST('null' AS JSON)) AS DOUBLE))
                        END AS DOUBLE)
                      END
                    )[1]
                  ],
                  LAMBDA _v5 : CASE
                    WHEN _v5 IS NULL
                    THEN NULL
                    WHEN NOT _v5
                    THEN FALSE
                    ELSE NOT (
                      CAST(CASE
                        WHEN COALESCE((
                          NOT key_0_types[1] IN ('ARRAY', 'NULL')
                        ), FALSE)
                        THEN CAST(NULL AS JSON)
                        ELSE COALESCE(key_0_values[2], CAST('null' AS JSON))
                      END AS TEXT) = 'null'
                    )
                  END
                )[1]
              ],
              LAMBDA _v7 : CASE
                WHEN _v7 IS NULL
                THEN NULL
                WHEN NOT _v7
                THEN FALSE
                ELSE NOT (
                  CAST(CASE
                    WHEN (
                      COALESCE((
                        NOT key_0_types[1] IN ('ARRAY', 'NULL')
                      ), FALSE)
                    )
                    OR (
                      COALESCE((
                        NOT key_0_types[2] IN ('ARRAY', 'NULL')
                      ), FALSE)
                    )
                    THEN CAST(NULL AS JSON)
                    ELSE COALESCE(key_0_values[1], CAST('null' AS JSON))
                  END AS TEXT) = 'null'
                )
              END
            )[1]
          ],
          LAMBDA _v8 : CASE
            WHEN _v8 IS NULL
            THEN NULL
            WHEN _v8
            THEN LIST_TRANSFORM(
              [
                CASE
                  WHEN (
                    COALESCE((
                      NOT key_0_types[1] IN ('ARRAY', 'NULL')
                    ), FALSE)
                  )
                  OR (
                    COALESCE((
                      NOT key_0_types[2] IN ('ARRAY', 'NULL')
                    ), FALSE)
                  )
                  THEN CAST(NULL AS JSON)
                  ELSE COALESCE(key_0_values[1], CAST('null' AS JSON))
                END
              ],
              LAMBDA _v0 : CASE
                WHEN _v0 IS NULL
                THEN NULL
                ELSE CASE
                  WHEN JSON_TYPE(_v0) IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                  THEN TRY_CAST(_v0 AS DOUBLE) < 0.8
                  ELSE CASE
                    WHEN JSON_TYPE(_v0) = 'NULL'
                    THEN 0
                    WHEN JSON_TYPE(_v0) = 'BOOLEAN'
                    THEN CASE WHEN CAST(_v0 AS TEXT) = 'true' THEN 2 ELSE 1 END
                    WHEN JSON_TYPE(_v0) = 'VARCHAR'
                    THEN 4
                    WHEN JSON_TYPE(_v0) = 'ARRAY'
                    THEN 5
                    WHEN JSON_TYPE(_v0) = 'OBJECT'
                    THEN 6
                    ELSE 3
                  END < 3
                END
              END
            )[1]
            ELSE FALSE
          END
        )[1],
        ERROR(
          'streams[0].filter.exclude[0]: evaluating jq `(.attributes.cc_tiny_subset_analysis_october__cld2_en_paragraph_with_doc_score_v2__doc_en | if type == "array" and length > 0 and .[0] != null and .[0][2] != null then .[0][2] < 0.8 else false end)` failed on the document at row ' || CAST(row AS TEXT)
        )
      )
      THEN FALSE
      WHEN COALESCE(
        LIST_TRANSFORM(
          [
            LIST_TRANSFORM(
              [
                LIST_TRANSFORM(
                  [
                    LIST_TRANSFORM(
                      [
                        CASE
                          WHEN COALESCE(key_1_types[1], 'NULL') = 'NULL'
                          THEN 'null'
                          WHEN COALESCE(key_1_types[1], 'NULL') = 'BOOLEAN'
                          THEN 'boolean'
                          WHEN COALESCE(key_1_types[1], 'NULL') = 'VARCHAR'
                          THEN 'string'
                          WHEN COALESCE(key_1_types[1], 'NULL') = 'ARRAY'
                          THEN 'array'
                          WHEN COALESCE(key_1_types[1], 'NULL') = 'OBJECT'
                          THEN 'object'
                          WHEN COALESCE(key_1_types[1], 'NULL') IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                          THEN 'number'
                        END = 'array'
                      ],
                      LAMBDA _v12 : CASE
                        WHEN _v12 IS NULL
                        THEN NULL
                        WHEN NOT _v12
                        THEN FALSE
                        ELSE 0.0 < CAST(CASE
                          WHEN COALESCE(key_1_types[1], 'NULL') IN ('NULL')
                          THEN 0
                          WHEN COALESCE(key_1_types[1], 'NULL') IN ('ARRAY')
                          THEN JSON_ARRAY_LENGTH(COALESCE(key_1, CAST('null' AS JSON)))
                          WHEN COALESCE(key_1_types[1], 'NULL') IN ('OBJECT')
                          THEN LEN(JSON_KEYS(COALESCE(key_1, CAST('null' AS JSON))))
                          WHEN COALESCE(key_1_types[1], 'NULL') IN ('VARCHAR')
                          THEN LENGTH(JSON_EXTRACT_STRING(COALESCE(key_1, CAST('null' AS JSON)), '$'))
                          WHEN COALESCE(key_1_types[1], 'NULL') IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                          THEN ABS(TRY_CAST(COALESCE(key_1, CAST('null' AS JSON)) AS DOUBLE))
                        END AS DOUBLE)
                      END
                    )[1]
                  ],
                  LAMBDA _v14 : CASE
                    WHEN _v14 IS NULL
                    THEN NULL
                    WHEN NOT _v14
                    THEN FALSE
                    ELSE NOT (
                      CAST(CASE
                        WHEN COALESCE((
                          NOT key_1_types[1] IN ('ARRAY', 'NULL')
                        ), FALSE)
                        THEN CAST(NULL AS JSON)
                        ELSE COALESCE(key_1_values[2], CAST('null' AS JSON))
                      END AS TEXT) = 'null'
                    )
                  END
                )[1]
              ],
              LAMBDA _v16 : CASE
                WHEN _v16 IS NULL
                THEN NULL
                WHEN NOT _v16
                THEN FALSE
                ELSE NOT (
                  CAST(CASE
                    WHEN (
                      COALESCE((
                        NOT key_1_types[1] IN ('ARRAY', 'NULL')
                      ), FALSE)
                    )
                    OR (
                      COALESCE((
                        NOT key_1_types[2] IN ('ARRAY', 'NULL')
                      ), FALSE)
                    )
                    THEN CAST(NULL AS JSON)
                    ELSE COALESCE(key_1_values[1], CAST('null' AS JSON))
                  END AS TEXT) = 'null'
                )
              END
            )[1]
          ],
          LAMBDA _v17 : CASE
            WHEN _v17 IS NULL
            THEN NULL
            WHEN _v17
            THEN LIST_TRANSFORM(
              [
                CASE
                  WHEN (
                    COALESCE((
                      NOT key_1_types[1] IN ('ARRAY', 'NULL')
                    ), FALSE)
                  )
                  OR (
                    COALESCE((
                      NOT key_1_types[2] IN ('ARRAY', 'NULL')
                    ), FALSE)
                  )
                  THEN CAST(NULL AS JSON)
                  ELSE COALESCE(key_1_values[1], CAST('null' AS JSON))
                END
              ],
              LAMBDA _v9 : CASE
                WHEN _v9 IS NULL
                THEN NULL
                ELSE CASE
                  WHEN JSON_TYPE(_v9) IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                  THEN TRY_CAST(_v9 AS DOUBLE) < 0.8
                  ELSE CASE
                    WHEN JSON_TYPE(_v9) = 'NULL'
                    THEN 0
                    WHEN JSON_TYPE(_v9) = 'BOOLEAN'
                    THEN CASE WHEN CAST(_v9 AS TEXT) = 'true' THEN 2 ELSE 1 END
                    WHEN JSON_TYPE(_v9) = 'VARCHAR'
                    THEN 4
                    WHEN JSON_TYPE(_v9) = 'ARRAY'
                    THEN 5
                    WHEN JSON_TYPE(_v9) = 'OBJECT'
                    THEN 6
                    ELSE 3
                  END < 3
                END
              END
            )[1]
            ELSE FALSE
          END
        )[1],
        ERROR(
          'streams[0].filter.exclude[1]: evaluating jq `(.attributes.cc_tiny_subset_analysis_october__ft_lang_id_en_paragraph_with_doc_score_v2__doc_en | if type == "array" and length > 0 and .[0] != null and .[0][2] != null then .[0][2] < 0.8 else false end)` failed on the document at row ' || CAST(row AS TEXT)
        )
      )
      THEN FALSE
      WHEN COALESCE(
        LIST_TRANSFORM(
          [
            LIST_TRANSFORM(
              [
                LIST_TRANSFORM(
                  [
                    LIST_TRANSFORM(
                      [
                        CASE
                          WHEN COALESCE(key_2_types[1], 'NULL') = 'NULL'
                          THEN 'null'
                          WHEN COALESCE(key_2_types[1], 'NULL') = 'BOOLEAN'
                          THEN 'boolean'
                          WHEN COALESCE(key_2_types[1], 'NULL') = 'VARCHAR'
                          THEN 'string'
                          WHEN COALESCE(key_2_types[1], 'NULL') = 'ARRAY'
                          THEN 'array'
                          WHEN COALESCE(key_2_types[1], 'NULL') = 'OBJECT'
                          THEN 'object'
                          WHEN COALESCE(key_2_types[1], 'NULL') IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                          THEN 'number'
                        END = 'array'
                      ],
                      LAMBDA _v21 : CASE
                        WHEN _v21 IS NULL
                        THEN NULL
                        WHEN NOT _v21
                        THEN FALSE
                        ELSE 0.0 < CAST(CASE
                          WHEN COALESCE(key_2_types[1], 'NULL') IN ('NULL')
                          THEN 0
                          WHEN COALESCE(key_2_types[1], 'NULL') IN ('ARRAY')
                          THEN JSON_ARRAY_LENGTH(COALESCE(key_2, CAST('null' AS JSON)))
                          WHEN COALESCE(key_2_types[1], 'NULL') IN ('OBJECT')
                          THEN LEN(JSON_KEYS(COALESCE(key_2, CAST('null' AS JSON))))
                          WHEN COALESCE(key_2_types[1], 'NULL') IN ('VARCHAR')
                          THEN LENGTH(JSON_EXTRACT_STRING(COALESCE(key_2, CAST('null' AS JSON)), '$'))
                          WHEN COALESCE(key_2_types[1], 'NULL') IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                          THEN ABS(TRY_CAST(COALESCE(key_2, CAST('null' AS JSON)) AS DOUBLE))
                        END AS DOUBLE)
                      END
                    )[1]
                  ],
                  LAMBDA _v23 : CASE
                    WHEN _v23 IS NULL
                    THEN NULL
                    WHEN NOT _v23
                    THEN FALSE
                    ELSE NOT (
                      CAST(CASE
                        WHEN COALESCE((
                          NOT key_2_types[1] IN ('ARRAY', 'NULL')
                        ), FALSE)
                        THEN CAST(NULL AS JSON)
                        ELSE COALESCE(key_2_values[2], CAST('null' AS JSON))
                      END AS TEXT) = 'null'
                    )
                  END
                )[1]
              ],
              LAMBDA _v25 : CASE
                WHEN _v25 IS NULL
                THEN NULL
                WHEN NOT _v25
                THEN FALSE
                ELSE NOT (
                  CAST(CASE
                    WHEN (
                      COALESCE((
                        NOT key_2_types[1] IN ('ARRAY', 'NULL')
                      ), FALSE)
                    )
                    OR (
                      COALESCE((
                        NOT key_2_types[2] IN ('ARRAY', 'NULL')
                      ), FALSE)
                    )
                    THEN CAST(NULL AS JSON)
                    ELSE COALESCE(key_2_values[1], CAST('null' AS JSON))
                  END AS TEXT) = 'null'
                )
              END
            )[1]
          ],
          LAMBDA _v26 : CASE
            WHEN _v26 IS NULL
            THEN NULL
            WHEN _v26
            THEN LIST_TRANSFORM(
              [
                CASE
                  WHEN (
                    COALESCE((
                      NOT key_2_types[1] IN ('ARRAY', 'NULL')
                    ), FALSE)
                  )
                  OR (
                    COALESCE((
                      NOT key_2_types[2] IN ('ARRAY', 'NULL')
                    ), FALSE)
                  )
                  THEN CAST(NULL AS JSON)
                  ELSE COALESCE(key_2_values[1], CAST('null' AS JSON))
                END
              ],
              LAMBDA _v18 : CASE
                WHEN _v18 IS NULL
                THEN NULL
                ELSE CASE
                  WHEN JSON_TYPE(_v18) IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                  THEN TRY_CAST(_v18 AS DOUBLE) < 100.0
                  ELSE CASE
                    WHEN JSON_TYPE(_v18) = 'NULL'
                    THEN 0
                    WHEN JSON_TYPE(_v18) = 'BOOLEAN'
                    THEN CASE WHEN CAST(_v18 AS TEXT) = 'true' THEN 2 ELSE 1 END
                    WHEN JSON_TYPE(_v18) = 'VARCHAR'
                    THEN 4
                    WHEN JSON_TYPE(_v18) = 'ARRAY'
                    THEN 5
                    WHEN JSON_TYPE(_v18) = 'OBJECT'
                    THEN 6
                    ELSE 3
                  END < 3
                END
              END
            )[1]
            ELSE FALSE
          END
        )[1],
        ERROR(
          'streams[0].filter.exclude[2]: evaluating jq `(.attributes.cc_tiny_subset_analysis_october__char_length_with_paragraphs_v1__document | if type == "array" and length > 0 and .[0] != null and .[0][2] != null then .[0][2] < 100 else false end)` failed on the document at row ' || CAST(row AS TEXT)
        )
      )
      THEN FALSE
      WHEN COALESCE(
        LIST_TRANSFORM(
          [
            LIST_TRANSFORM(
              [
                LIST_TRANSFORM(
                  [
                    LIST_TRANSFORM(
                      [
                        CASE
                          WHEN COALESCE(key_3_types[1], 'NULL') = 'NULL'
                          THEN 'null'
                          WHEN COALESCE(key_3_types[1], 'NULL') = 'BOOLEAN'
                          THEN 'boolean'
                          WHEN COALESCE(key_3_types[1], 'NULL') = 'VARCHAR'
                          THEN 'string'
                          WHEN COALESCE(key_3_types[1], 'NULL') = 'ARRAY'
                          THEN 'array'
                          WHEN COALESCE(key_3_types[1], 'NULL') = 'OBJECT'
                          THEN 'object'
                          WHEN COALESCE(key_3_types[1], 'NULL') IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                          THEN 'number'
                        END = 'array'
                      ],
                      LAMBDA _v30 : CASE
                        WHEN _v30 IS NULL
                        THEN NULL
                        WHEN NOT _v30
                        THEN FALSE
                        ELSE 0.0 < CAST(CASE
                          WHEN COALESCE(key_3_types[1], 'NULL') IN ('NULL')
                          THEN 0
                          WHEN COALESCE(key_3_types[1], 'NULL') IN ('ARRAY')
                          THEN JSON_ARRAY_LENGTH(COALESCE(key_3, CAST('null' AS JSON)))
                          WHEN COALESCE(key_3_types[1], 'NULL') IN ('OBJECT')
                          THEN LEN(JSON_KEYS(COALESCE(key_3, CAST('null' AS JSON))))
                          WHEN COALESCE(key_3_types[1], 'NULL') IN ('VARCHAR')
                          THEN LENGTH(JSON_EXTRACT_STRING(COALESCE(key_3, CAST('null' AS JSON)), '$'))
                          WHEN COALESCE(key_3_types[1], 'NULL') IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                          THEN ABS(TRY_CAST(COALESCE(key_3, CAST('null' AS JSON)) AS DOUBLE))
                        END AS DOUBLE)
                      END
                    )[1]
                  ],
                  LAMBDA _v32 : CASE
                    WHEN _v32 IS NULL
                    THEN NULL
                    WHEN NOT _v32
                    THEN FALSE
                    ELSE NOT (
                      CAST(CASE
                        WHEN COALESCE((
                          NOT key_3_types[1] IN ('ARRAY', 'NULL')
                        ), FALSE)
                        THEN CAST(NULL AS JSON)
                        ELSE COALESCE(key_3_values[2], CAST('null' AS JSON))
                      END AS TEXT) = 'null'
                    )
                  END
                )[1]
              ],
              LAMBDA _v34 : CASE
                WHEN _v34 IS NULL
                THEN NULL
                WHEN NOT _v34
                THEN FALSE
                ELSE NOT (
                  CAST(CASE
                    WHEN (
                      COALESCE((
                        NOT key_3_types[1] IN ('ARRAY', 'NULL')
                      ), FALSE)
                    )
                    OR (
                      COALESCE((
                        NOT key_3_types[2] IN ('ARRAY', 'NULL')
                      ), FALSE)
                    )
                    THEN CAST(NULL AS JSON)
                    ELSE COALESCE(key_3_values[1], CAST('null' AS JSON))
                  END AS TEXT) = 'null'
                )
              END
            )[1]
          ],
          LAMBDA _v35 : CASE
            WHEN _v35 IS NULL
            THEN NULL
            WHEN _v35
            THEN LIST_TRANSFORM(
              [
                CASE
                  WHEN (
                    COALESCE((
                      NOT key_3_types[1] IN ('ARRAY', 'NULL')
                    ), FALSE)
                  )
                  OR (
                    COALESCE((
                      NOT key_3_types[2] IN ('ARRAY', 'NULL')
                    ), FALSE)
                  )
                  THEN CAST(NULL AS JSON)
                  ELSE COALESCE(key_3_values[1], CAST('null' AS JSON))
                END
              ],
              LAMBDA _v27 : CASE
                WHEN _v27 IS NULL
                THEN NULL
                ELSE CASE
                  WHEN JSON_TYPE(_v27) IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                  THEN 0.5 < TRY_CAST(_v27 AS DOUBLE)
                  ELSE CASE
                    WHEN JSON_TYPE(_v27) = 'NULL'
                    THEN 0
                    WHEN JSON_TYPE(_v27) = 'BOOLEAN'
                    THEN CASE WHEN CAST(_v27 AS TEXT) = 'true' THEN 2 ELSE 1 END
                    WHEN JSON_TYPE(_v27) = 'VARCHAR'
                    THEN 4
                    WHEN JSON_TYPE(_v27) = 'ARRAY'
                    THEN 5
                    WHEN JSON_TYPE(_v27) = 'OBJECT'
                    THEN 6
                    ELSE 3
                  END > 3
                END
              END
            )[1]
            ELSE FALSE
          END
        )[1],
        ERROR(
          'streams[0].filter.exclude[3]: evaluating jq `(.attributes.cc_tiny_subset_analysis_october__jigsaw_nsfw_document_v1____label__nsfw | if type == "array" and length > 0 and .[0] != null and .[0][2] != null then .[0][2] > 0.5 else false end)` failed on the document at row ' || CAST(row AS TEXT)
        )
      )
      THEN FALSE
      WHEN COALESCE(
        LIST_TRANSFORM(
          [
            LIST_TRANSFORM(
              [
                LIST_TRANSFORM(
                  [
                    LIST_TRANSFORM(
                      [
                        CASE
                          WHEN COALESCE(key_4_types[1], 'NULL') = 'NULL'
                          THEN 'null'
                          WHEN COALESCE(key_4_types[1], 'NULL') = 'BOOLEAN'
                          THEN 'boolean'
                          WHEN COALESCE(key_4_types[1], 'NULL') = 'VARCHAR'
                          THEN 'string'
                          WHEN COALESCE(key_4_types[1], 'NULL') = 'ARRAY'
                          THEN 'array'
                          WHEN COALESCE(key_4_types[1], 'NULL') = 'OBJECT'
                          THEN 'object'
                          WHEN COALESCE(key_4_types[1], 'NULL') IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                          THEN 'number'
                        END = 'array'
                      ],
                      LAMBDA _v39 : CASE
                        WHEN _v39 IS NULL
                        THEN NULL
                        WHEN NOT _v39
                        THEN FALSE
                        ELSE 0.0 < CAST(CASE
                          WHEN COALESCE(key_4_types[1], 'NULL') IN ('NULL')
                          THEN 0
                          WHEN COALESCE(key_4_types[1], 'NULL') IN ('ARRAY')
                          THEN JSON_ARRAY_LENGTH(COALESCE(key_4, CAST('null' AS JSON)))
                          WHEN COALESCE(key_4_types[1], 'NULL') IN ('OBJECT')
                          THEN LEN(JSON_KEYS(COALESCE(key_4, CAST('null' AS JSON))))
                          WHEN COALESCE(key_4_types[1], 'NULL') IN ('VARCHAR')
                          THEN LENGTH(JSON_EXTRACT_STRING(COALESCE(key_4, CAST('null' AS JSON)), '$'))
                          WHEN COALESCE(key_4_types[1], 'NULL') IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                          THEN ABS(TRY_CAST(COALESCE(key_4, CAST('null' AS JSON)) AS DOUBLE))
                        END AS DOUBLE)
                      END
                    )[1]
                  ],
                  LAMBDA _v41 : CASE
                    WHEN _v41 IS NULL
                    THEN NULL
                    WHEN NOT _v41
                    THEN FALSE
                    ELSE NOT (
                      CAST(CASE
                        WHEN COALESCE((
                          NOT key_4_types[1] IN ('ARRAY', 'NULL')
                        ), FALSE)
                        THEN CAST(NULL AS JSON)
                        ELSE COALESCE(key_4_values[2], CAST('null' AS JSON))
                      END AS TEXT) = 'null'
                    )
                  END
                )[1]
              ],
              LAMBDA _v43 : CASE
                WHEN _v43 IS NULL
                THEN NULL
                WHEN NOT _v43
                THEN FALSE
                ELSE NOT (
                  CAST(CASE
                    WHEN (
                      COALESCE((
                        NOT key_4_types[1] IN ('ARRAY', 'NULL')
                      ), FALSE)
                    )
                    OR (
                      COALESCE((
                        NOT key_4_types[2] IN ('ARRAY', 'NULL')
                      ), FALSE)
                    )
                    THEN CAST(NULL AS JSON)
                    ELSE COALESCE(key_4_values[1], CAST('null' AS JSON))
                  END AS TEXT) = 'null'
                )
              END
            )[1]
          ],
          LAMBDA _v44 : CASE
            WHEN _v44 IS NULL
            THEN NULL
            WHEN _v44
            THEN LIST_TRANSFORM(
              [
                CASE
                  WHEN (
                    COALESCE((
                      NOT key_4_types[1] IN ('ARRAY', 'NULL')
                    ), FALSE)
                  )
                  OR (
                    COALESCE((
                      NOT key_4_types[2] IN ('ARRAY', 'NULL')
                    ), FALSE)
                  )
                  THEN CAST(NULL AS JSON)
                  ELSE COALESCE(key_4_values[1], CAST('null' AS JSON))
                END
              ],
              LAMBDA _v36 : CASE
                WHEN _v36 IS NULL
                THEN NULL
                ELSE CASE
                  WHEN JSON_TYPE(_v36) IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                  THEN TRY_CAST(_v36 AS DOUBLE) < 50.0
                  ELSE CASE
                    WHEN JSON_TYPE(_v36) = 'NULL'
                    THEN 0
                    WHEN JSON_TYPE(_v36) = 'BOOLEAN'
                    THEN CASE WHEN CAST(_v36 AS TEXT) = 'true' THEN 2 ELSE 1 END
                    WHEN JSON_TYPE(_v36) = 'VARCHAR'
                    THEN 4
                    WHEN JSON_TYPE(_v36) = 'ARRAY'
                    THEN 5
                    WHEN JSON_TYPE(_v36) = 'OBJECT'
                    THEN 6
                    ELSE 3
                  END < 3
                END
              END
            )[1]
            ELSE FALSE
          END
        )[1],
        ERROR(
          'streams[0].filter.exclude[4]: evaluating jq `(.attributes.cc_tiny_subset_analysis_october__gopher_v2__word_count | if type == "array" and length > 0 and .[0] != null and .[0][2] != null then .[0][2] < 50 else false end)` failed on the document at row ' || CAST(row AS TEXT)
        )
      )
      THEN FALSE
      WHEN COALESCE(
        LIST_TRANSFORM(
          [
            LIST_TRANSFORM(
              [
                LIST_TRANSFORM(
                  [
                    LIST_TRANSFORM(
                      [
                        CASE
                          WHEN COALESCE(key_5_types[1], 'NULL') = 'NULL'
                          THEN 'null'
                          WHEN COALESCE(key_5_types[1], 'NULL') = 'BOOLEAN'
                          THEN 'boolean'
                          WHEN COALESCE(key_5_types[1], 'NULL') = 'VARCHAR'
                          THEN 'string'
                          WHEN COALESCE(key_5_types[1], 'NULL') = 'ARRAY'
                          THEN 'array'
                          WHEN COALESCE(key_5_types[1], 'NULL') = 'OBJECT'
                          THEN 'object'
                          WHEN COALESCE(key_5_types[1], 'NULL') IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                          THEN 'number'
                        END = 'array'
                      ],
                      LAMBDA _v48 : CASE
                        WHEN _v48 IS NULL
                        THEN NULL
                        WHEN NOT _v48
                        THEN FALSE
                        ELSE 0.0 < CAST(CASE
                          WHEN COALESCE(key_5_types[1], 'NULL') IN ('NULL')
                          THEN 0
                          WHEN COALESCE(key_5_types[1], 'NULL') IN ('ARRAY')
                          THEN JSON_ARRAY_LENGTH(COALESCE(key_5, CAST('null' AS JSON)))
                          WHEN COALESCE(key_5_types[1], 'NULL') IN ('OBJECT')
                          THEN LEN(JSON_KEYS(COALESCE(key_5, CAST('null' AS JSON))))
                          WHEN COALESCE(key_5_types[1], 'NULL') IN ('VARCHAR')
                          THEN LENGTH(JSON_EXTRACT_STRING(COALESCE(key_5, CAST('null' AS JSON)), '$'))
                          WHEN COALESCE(key_5_types[1], 'NULL') IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                          THEN ABS(TRY_CAST(COALESCE(key_5, CAST('null' AS JSON)) AS DOUBLE))
                        END AS DOUBLE)
                      END
                    )[1]
                  ],
                  LAMBDA _v50 : CASE
                    WHEN _v50 IS NULL
                    THEN NULL
                    WHEN NOT _v50
                    THEN FALSE
                    ELSE NOT (
                      CAST(CASE
                        WHEN COALESCE((
                          NOT key_5_types[1] IN ('ARRAY', 'NULL')
                        ), FALSE)
                        THEN CAST(NULL AS JSON)
                        ELSE COALESCE(key_5_values[2], CAST('null' AS JSON))
                      END AS TEXT) = 'null'
                    )
                  END
                )[1]
              ],
              LAMBDA _v52 : CASE
                WHEN _v52 IS NULL
                THEN NULL
                WHEN NOT _v52
                THEN FALSE
                ELSE NOT (
                  CAST(CASE
                    WHEN (
                      COALESCE((
                        NOT key_5_types[1] IN ('ARRAY', 'NULL')
                      ), FALSE)
                    )
                    OR (
                      COALESCE((
                        NOT key_5_types[2] IN ('ARRAY', 'NULL')
                      ), FALSE)
                    )
                    THEN CAST(NULL AS JSON)
                    ELSE COALESCE(key_5_values[1], CAST('null' AS JSON))
                  END AS TEXT) = 'null'
                )
              END
            )[1]
          ],
          LAMBDA _v53 : CASE
            WHEN _v53 IS NULL
            THEN NULL
            WHEN _v53
            THEN LIST_TRANSFORM(
              [
                CASE
                  WHEN (
                    COALESCE((
                      NOT key_5_types[1] IN ('ARRAY', 'NULL')
                    ), FALSE)
                  )
                  OR (
                    COALESCE((
                      NOT key_5_types[2] IN ('ARRAY', 'NULL')
                    ), FALSE)
                  )
                  THEN CAST(NULL AS JSON)
                  ELSE COALESCE(key_5_values[1], CAST('null' AS JSON))
                END
              ],
              LAMBDA _v45 : CASE
                WHEN _v45 IS NULL
                THEN NULL
                ELSE CASE
                  WHEN JSON_TYPE(_v45) IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                  THEN 0.1 < TRY_CAST(_v45 AS DOUBLE)
                  ELSE CASE
                    WHEN JSON_TYPE(_v45) = 'NULL'
                    THEN 0
                    WHEN JSON_TYPE(_v45) = 'BOOLEAN'
                    THEN CASE WHEN CAST(_v45 AS TEXT) = 'true' THEN 2 ELSE 1 END
                    WHEN JSON_TYPE(_v45) = 'VARCHAR'
                    THEN 4
                    WHEN JSON_TYPE(_v45) = 'ARRAY'
                    THEN 5
                    WHEN JSON_TYPE(_v45) = 'OBJECT'
                    THEN 6
                    ELSE 3
                  END > 3
                END
              END
            )[1]
            ELSE FALSE
          END
        )[1],
        ERROR(
          'streams[0].filter.exclude[5]: evaluating jq `(.attributes.cc_tiny_subset_analysis_october__gopher_v2__symbol_to_word_ratio | if type == "array" and length > 0 and .[0] != null and .[0][2] != null then .[0][2] > 0.1 else false end)` failed on the document at row ' || CAST(row AS TEXT)
        )
      )
      THEN FALSE
      WHEN COALESCE(
        LIST_TRANSFORM(
          [
            LIST_TRANSFORM(
              [
                LIST_TRANSFORM(
                  [
                    LIST_TRANSFORM(
                      [
                        CASE
                          WHEN COALESCE(key_6_types[1], 'NULL') = 'NULL'
                          THEN 'null'
                          WHEN COALESCE(key_6_types[1], 'NULL') = 'BOOLEAN'
                          THEN 'boolean'
                          WHEN COALESCE(key_6_types[1], 'NULL') = 'VARCHAR'
                          THEN 'string'
                          WHEN COALESCE(key_6_types[1], 'NULL') = 'ARRAY'
                          THEN 'array'
                          WHEN COALESCE(key_6_types[1], 'NULL') = 'OBJECT'
                          THEN 'object'
                          WHEN COALESCE(key_6_types[1], 'NULL') IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                          THEN 'number'
                        END = 'array'
                      ],
                      LAMBDA _v57 : CASE
                        WHEN _v57 IS NULL
                        THEN NULL
                        WHEN NOT _v57
                        THEN FALSE
                        ELSE 0.0 < CAST(CASE
                          WHEN COALESCE(key_6_types[1], 'NULL') IN ('NULL')
                          THEN 0
                          WHEN COALESCE(key_6_types[1], 'NULL') IN ('ARRAY')
                          THEN JSON_ARRAY_LENGTH(COALESCE(key_6, CAST('null' AS JSON)))
                          WHEN COALESCE(key_6_types[1], 'NULL') IN ('OBJECT')
                          THEN LEN(JSON_KEYS(COALESCE(key_6, CAST('null' AS JSON))))
                          WHEN COALESCE(key_6_types[1], 'NULL') IN ('VARCHAR')
                          THEN LENGTH(JSON_EXTRACT_STRING(COALESCE(key_6, CAST('null' AS JSON)), '$'))
                          WHEN COALESCE(key_6_types[1], 'NULL') IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                          THEN ABS(TRY_CAST(COALESCE(key_6, CAST('null' AS JSON)) AS DOUBLE))
                        END AS DOUBLE)
                      END
                    )[1]
                  ],
                  LAMBDA _v59 : CASE
                    WHEN _v59 IS NULL
                    THEN NULL
                    WHEN NOT _v59
                    THEN FALSE
                    ELSE NOT (
                      CAST(CASE
                        WHEN COALESCE((
                          NOT key_6_types[1] IN ('ARRAY', 'NULL')
                        ), FALSE)
                        THEN CAST(NULL AS JSON)
                        ELSE COALESCE(key_6_values[2], CAST('null' AS JSON))
                      END AS TEXT) = 'null'
                    )
                  END
                )[1]
              ],
              LAMBDA _v61 : CASE
                WHEN _v61 IS NULL
                THEN NULL
                WHEN NOT _v61
                THEN FALSE
                ELSE NOT (
                  CAST(CASE
                    WHEN (
                      COALESCE((
                        NOT key_6_types[1] IN ('ARRAY', 'NULL')
                      ), FALSE)
                    )
                    OR (
                      COALESCE((
                        NOT key_6_types[2] IN ('ARRAY', 'NULL')
                      ), FALSE)
                    )
                    THEN CAST(NULL AS JSON)
                    ELSE COALESCE(key_6_values[1], CAST('null' AS JSON))
                  END AS TEXT) = 'null'
                )
              END
            )[1]
          ],
          LAMBDA _v62 : CASE
            WHEN _v62 IS NULL
            THEN NULL
            WHEN _v62
            THEN LIST_TRANSFORM(
              [
                CASE
                  WHEN (
                    COALESCE((
                      NOT key_6_types[1] IN ('ARRAY', 'NULL')
                    ), FALSE)
                  )
                  OR (
                    COALESCE((
                      NOT key_6_types[2] IN ('ARRAY', 'NULL')
                    ), FALSE)
                  )
                  THEN CAST(NULL AS JSON)
                  ELSE COALESCE(key_6_values[1], CAST('null' AS JSON))
                END
              ],
              LAMBDA _v54 : NOT (
                CASE
                  WHEN _v54 IS NULL
                  THEN NULL
                  ELSE CASE
                    WHEN JSON_TYPE(_v54) IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                    THEN TRY_CAST(_v54 AS DOUBLE) < 1.0
                    ELSE CASE
                      WHEN JSON_TYPE(_v54) = 'NULL'
                      THEN 0
                      WHEN JSON_TYPE(_v54) = 'BOOLEAN'
                      THEN CASE WHEN CAST(_v54 AS TEXT) = 'true' THEN 2 ELSE 1 END
                      WHEN JSON_TYPE(_v54) = 'VARCHAR'
                      THEN 4
                      WHEN JSON_TYPE(_v54) = 'ARRAY'
                      THEN 5
                      WHEN JSON_TYPE(_v54) = 'OBJECT'
                      THEN 6
                      ELSE 3
                    END < 3
                  END
                END
              )
            )[1]
            ELSE FALSE
          END
        )[1],
        ERROR(
          'streams[0].filter.exclude[6]: evaluating jq `(.attributes.bff_duplicate_paragraph_spans_new | if type == "array" and length > 0 and .[0] != null and .[0][2] != null then .[0][2] >= 1.0 else false end)` failed on the document at row ' || CAST(row AS TEXT)
        )
      )
      THEN FALSE
      WHEN COALESCE(
        LIST_TRANSFORM(
          [
            LIST_TRANSFORM(
              [
                LIST_TRANSFORM(
                  [
                    LIST_TRANSFORM(
                      [
                        CASE
                          WHEN COALESCE(key_7_types[1], 'NULL') = 'NULL'
                          THEN 'null'
                          WHEN COALESCE(key_7_types[1], 'NULL') = 'BOOLEAN'
                          THEN 'boolean'
                          WHEN COALESCE(key_7_types[1], 'NULL') = 'VARCHAR'
                          THEN 'string'
                          WHEN COALESCE(key_7_types[1], 'NULL') = 'ARRAY'
                          THEN 'array'
                          WHEN COALESCE(key_7_types[1], 'NULL') = 'OBJECT'
                          THEN 'object'
                          WHEN COALESCE(key_7_types[1], 'NULL') IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                          THEN 'number'
                        END = 'array'
                      ],
                      LAMBDA _v66 : CASE
                        WHEN _v66 IS NULL
                        THEN NULL
                        WHEN NOT _v66
                        THEN FALSE
                        ELSE 0.0 < CAST(CASE
                          WHEN COALESCE(key_7_types[1], 'NULL') IN ('NULL')
                          THEN 0
                          WHEN COALESCE(key_7_types[1], 'NULL') IN ('ARRAY')
                          THEN JSON_ARRAY_LENGTH(COALESCE(key_7, CAST('null' AS JSON)))
                          WHEN COALESCE(key_7_types[1], 'NULL') IN ('OBJECT')
                          THEN LEN(JSON_KEYS(COALESCE(key_7, CAST('null' AS JSON))))
                          WHEN COALESCE(key_7_types[1], 'NULL') IN ('VARCHAR')
                          THEN LENGTH(JSON_EXTRACT_STRING(COALESCE(key_7, CAST('null' AS JSON)), '$'))
                          WHEN COALESCE(key_7_types[1], 'NULL') IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                          THEN ABS(TRY_CAST(COALESCE(key_7, CAST('null' AS JSON)) AS DOUBLE))
                        END AS DOUBLE)
                      END
                    )[1]
                  ],
                  LAMBDA _v68 : CASE
                    WHEN _v68 IS NULL
                    THEN NULL
                    WHEN NOT _v68
                    THEN FALSE
                    ELSE NOT (
                      CAST(CASE
                        WHEN COALESCE((
                          NOT key_7_types[1] IN ('ARRAY', 'NULL')
                        ), FALSE)
                        THEN CAST(NULL AS JSON)
                        ELSE COALESCE(key_7_values[2], CAST('null' AS JSON))
                      END AS TEXT) = 'null'
                    )
                  END
                )[1]
              ],
              LAMBDA _v70 : CASE
                WHEN _v70 IS NULL
                THEN NULL
                WHEN NOT _v70
                THEN FALSE
                ELSE NOT (
                  CAST(CASE
                    WHEN (
                      COALESCE((
                        NOT key_7_types[1] IN ('ARRAY', 'NULL')
                      ), FALSE)
                    )
                    OR (
                      COALESCE((
                        NOT key_7_types[2] IN ('ARRAY', 'NULL')
                      ), FALSE)
                    )
                    THEN CAST(NULL AS JSON)
                    ELSE COALESCE(key_7_values[1], CAST('null' AS JSON))
                  END AS TEXT) = 'null'
                )
              END
            )[1]
          ],
          LAMBDA _v71 : CASE
            WHEN _v71 IS NULL
            THEN NULL
            WHEN _v71
            THEN LIST_TRANSFORM(
              [
                CASE
                  WHEN (
                    COALESCE((
                      NOT key_7_types[1] IN ('ARRAY', 'NULL')
                    ), FALSE)
                  )
                  OR (
                    COALESCE((
                      NOT key_7_types[2] IN ('ARRAY', 'NULL')
                    ), FALSE)
                  )
                  THEN CAST(NULL AS JSON)
                  ELSE COALESCE(key_7_values[1], CAST('null' AS JSON))
                END
              ],
              LAMBDA _v63 : CASE
                WHEN _v63 IS NULL
                THEN NULL
                ELSE CASE
                  WHEN JSON_TYPE(_v63) IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                  THEN 0.5 < TRY_CAST(_v63 AS DOUBLE)
                  ELSE CASE
                    WHEN JSON_TYPE(_v63) = 'NULL'
                    THEN 0
                    WHEN JSON_TYPE(_v63) = 'BOOLEAN'
                    THEN CASE WHEN CAST(_v63 AS TEXT) = 'true' THEN 2 ELSE 1 END
                    WHEN JSON_TYPE(_v63) = 'VARCHAR'
                    THEN 4
                    WHEN JSON_TYPE(_v63) = 'ARRAY'
                    THEN 5
                    WHEN JSON_TYPE(_v63) = 'OBJECT'
                    THEN 6
                    ELSE 3
                  END > 3
                END
              END
            )[1]
            ELSE FALSE
          END
        )[1],
        ERROR(
          'streams[0].filter.exclude[7]: evaluating jq `(.attributes.cc_tiny_subset_analysis_october__c4_v2__line_bullets | if type == "array" and length > 0 and .[0] != null and .[0][2] != null then .[0][2] > 0.5 else false end)` failed on the document at row ' || CAST(row AS TEXT)
        )
      )
      THEN FALSE
      WHEN COALESCE(
        LIST_TRANSFORM(
          [
            LIST_TRANSFORM(
              [
                LIST_TRANSFORM(
                  [
                    LIST_TRANSFORM(
                      [
                        CASE
                          WHEN COALESCE(key_8_types[1], 'NULL') = 'NULL'
                          THEN 'null'
                          WHEN COALESCE(key_8_types[1], 'NULL') = 'BOOLEAN'
                          THEN 'boolean'
                          WHEN COALESCE(key_8_types[1], 'NULL') = 'VARCHAR'
                          THEN 'string'
                          WHEN COALESCE(key_8_types[1], 'NULL') = 'ARRAY'
                          THEN 'array'
                          WHEN COALESCE(key_8_types[1], 'NULL') = 'OBJECT'
                          THEN 'object'
                          WHEN COALESCE(key_8_types[1], 'NULL') IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                          THEN 'number'
                        END = 'array'
                      ],
                      LAMBDA _v75 : CASE
                        WHEN _v75 IS NULL
                        THEN NULL
                        WHEN NOT _v75
                        THEN FALSE
                        ELSE 0.0 < CAST(CASE
                          WHEN COALESCE(key_8_types[1], 'NULL') IN ('NULL')
                          THEN 0
                          WHEN COALESCE(key_8_types[1], 'NULL') IN ('ARRAY')
                          THEN JSON_ARRAY_LENGTH(COALESCE(key_8, CAST('null' AS JSON)))
                          WHEN COALESCE(key_8_types[1], 'NULL') IN ('OBJECT')
                          THEN LEN(JSON_KEYS(COALESCE(key_8, CAST('null' AS JSON))))
                          WHEN COALESCE(key_8_types[1], 'NULL') IN ('VARCHAR')
                          THEN LENGTH(JSON_EXTRACT_STRING(COALESCE(key_8, CAST('null' AS JSON)), '$'))
                          WHEN COALESCE(key_8_types[1], 'NULL') IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                          THEN ABS(TRY_CAST(COALESCE(key_8, CAST('null' AS JSON)) AS DOUBLE))
                        END AS DOUBLE)
                      END
                    )[1]
                  ],
                  LAMBDA _v77 : CASE
                    WHEN _v77 IS NULL
                    THEN NULL
                    WHEN NOT _v77
                    THEN FALSE
                    ELSE NOT (
                      CAST(CASE
                        WHEN COALESCE((
                          NOT key_8_types[1] IN ('ARRAY', 'NULL')
                        ), FALSE)
                        THEN CAST(NULL AS JSON)
                        ELSE COALESCE(key_8_values[2], CAST('null' AS JSON))
                      END AS TEXT) = 'null'
                    )
                  END
                )[1]
              ],
              LAMBDA _v79 : CASE
                WHEN _v79 IS NULL
                THEN NULL
                WHEN NOT _v79
                THEN FALSE
                ELSE NOT (
                  CAST(CASE
                    WHEN (
                      COALESCE((
                        NOT key_8_types[1] IN ('ARRAY', 'NULL')
                      ), FALSE)
                    )
                    OR (
                      COALESCE((
                        NOT key_8_types[2] IN ('ARRAY', 'NULL')
                      ), FALSE)
                    )
                    THEN CAST(NULL AS JSON)
                    ELSE COALESCE(key_8_values[1], CAST('null' AS JSON))
                  END AS TEXT) = 'null'
                )
              END
            )[1]
          ],
          LAMBDA _v80 : CASE
            WHEN _v80 IS NULL
            THEN NULL
            WHEN _v80
            THEN LIST_TRANSFORM(
              [
                CASE
                  WHEN (
                    COALESCE((
                      NOT key_8_types[1] IN ('ARRAY', 'NULL')
                    ), FALSE)
                  )
                  OR (
                    COALESCE((
                      NOT key_8_types[2] IN ('ARRAY', 'NULL')
                    ), FALSE)
                  )
                  THEN CAST(NULL AS JSON)
                  ELSE COALESCE(key_8_values[1], CAST('null' AS JSON))
                END
              ],
              LAMBDA _v72 : CASE
                WHEN _v72 IS NULL
                THEN NULL
                ELSE CASE
                  WHEN JSON_TYPE(_v72) IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                  THEN 0.3 < TRY_CAST(_v72 AS DOUBLE)
                  ELSE CASE
                    WHEN JSON_TYPE(_v72) = 'NULL'
                    THEN 0
                    WHEN JSON_TYPE(_v72) = 'BOOLEAN'
                    THEN CASE WHEN CAST(_v72 AS TEXT) = 'true' THEN 2 ELSE 1 END
                    WHEN JSON_TYPE(_v72) = 'VARCHAR'
                    THEN 4
                    WHEN JSON_TYPE(_v72) = 'ARRAY'
                    THEN 5
                    WHEN JSON_TYPE(_v72) = 'OBJECT'
                    THEN 6
                    ELSE 3
                  END > 3
                END
              END
            )[1]
            ELSE FALSE
          END
        )[1],
        ERROR(
          'streams[0].filter.exclude[8]: evaluating jq `(.attributes.cc_tiny_subset_analysis_october__c4_v2__phrase_repeat | if type == "array" and length > 0 and .[0] != null and .[0][2] != null then .[0][2] > 0.3 else false end)` failed on the document at row ' || CAST(row AS TEXT)
        )
      )
      THEN FALSE
      ELSE TRUE
    END AS keep
  FROM (
    SELECT
      row,
      doc_values,
      attr_0_values,
      attr_1_values,
      COALESCE(attr_1_values[1], attr_0_values[1], doc_values[1]) AS key_0,
      COALESCE(attr_1_values[2], attr_0_values[2], doc_values[2]) AS key_1,
      COALESCE(attr_1_values[3], attr_0_values[3], doc_values[3]) AS key_2,
      COALESCE(attr_1_values[4], attr_0_values[4], doc_values[4]) AS key_3,
      COALESCE(attr_1_values[5], attr_0_values[5], doc_values[5]) AS key_4,
      COALESCE(attr_1_values[6], attr_0_values[6], doc_values[6]) AS key_5,
      COALESCE(attr_1_values[7], attr_0_values[7], doc_values[7]) AS key_6,
      COALESCE(attr_1_values[8], attr_0_values[8], doc_values[8]) AS key_7,
      COALESCE(attr_1_values[9], attr_0_values[9], doc_values[9]) AS key_8,
      COALESCE(attr_1_values[10], attr_0_values[10], doc_values[10]) AS key_9,
      COALESCE(attr_1_values[11], attr_0_values[11], doc_values[11]) AS key_10,
      COALESCE(attr_1_values[12], attr_0_values[12], doc_values[12]) AS key_11,
      JSON_EXTRACT(COALESCE(attr_1_values[1], attr_0_values[1], doc_values[1]), ['$[0][2]', '$[0]']) AS key_0_values,
      JSON_TYPE(COALESCE(attr_1_values[1], attr_0_values[1], doc_values[1]), ['$', '$[0]']) AS key_0_types,
      JSON_EXTRACT(COALESCE(attr_1_values[2], attr_0_values[2], doc_values[2]), ['$[0][2]', '$[0]']) AS key_1_values,
      JSON_TYPE(COALESCE(attr_1_values[2], attr_0_values[2], doc_values[2]), ['$', '$[0]']) AS key_1_types,
      JSON_EXTRACT(COALESCE(attr_1_values[3], attr_0_values[3], doc_values[3]), ['$[0][2]', '$[0]']) AS key_2_values,
      JSON_TYPE(COALESCE(attr_1_values[3], attr_0_values[3], doc_values[3]), ['$', '$[0]']) AS key_2_types,
      JSON_EXTRACT(COALESCE(attr_1_values[4], attr_0_values[4], doc_values[4]), ['$[0][2]', '$[0]']) AS key_3_values,
      JSON_TYPE(COALESCE(attr_1_values[4], attr_0_values[4], doc_values[4]), ['$', '$[0]']) AS key_3_types,
      JSON_EXTRACT(COALESCE(attr_1_values[5], attr_0_values[5], doc_values[5]), ['$[0][2]', '$[0]']) AS key_4_values,
      JSON_TYPE(COALESCE(attr_1_values[5], attr_0_values[5], doc_values[5]), ['$', '$[0]']) AS key_4_types,
      JSON_EXTRACT(COALESCE(attr_1_values[6], attr_0_values[6], doc_values[6]), ['$[0][2]', '$[0]']) AS key_5_values,
      JSON_TYPE(COALESCE(attr_1_values[6], attr_0_values[6], doc_values[6]), ['$', '$[0]']) AS key_5_types,
      JSON_EXTRACT(COALESCE(attr_1_values[7], attr_0_values[7], doc_values[7]), ['$[0][2]', '$[0]']) AS key_6_values,
      JSON_TYPE(COALESCE(attr_1_values[7], attr_0_values[7], doc_values[7]), ['$', '$[0]']) AS key_6_types,
      JSON_EXTRACT(COALESCE(attr_1_values[8], attr_0_values[8], doc_values[8]), ['$[0][2]', '$[0]']) AS key_7_values,
      JSON_TYPE(COALESCE(attr_1_values[8], attr_0_values[8], doc_values[8]), ['$', '$[0]']) AS key_7_types,
      JSON_EXTRACT(COALESCE(attr_1_values[9], attr_0_values[9], doc_values[9]), ['$[0][2]', '$[0]']) AS key_8_values,
      JSON_TYPE(COALESCE(attr_1_values[9], attr_0_values[9], doc_values[9]), ['$', '$[0]']) AS key_8_types
    FROM (
      SELECT
        row,
        JSON_EXTRACT(
          doc,
          [
            '$."attributes"."cc_tiny_subset_analysis_october__cld2_en_paragraph_with_doc_score_v2__doc_en"',
            '$."attributes"."cc_tiny_subset_analysis_october__ft_lang_id_en_paragraph_with_doc_score_v2__doc_en"',
            '$."attributes"."cc_tiny_subset_analysis_october__char_length_with_paragraphs_v1__document"',
            '$."attributes"."cc_tiny_subset_analysis_october__jigsaw_nsfw_document_v1____label__nsfw"',
            '$."attributes"."cc_tiny_subset_analysis_october__gopher_v2__word_count"',
            '$."attributes"."cc_tiny_subset_analysis_october__gopher_v2__symbol_to_word_ratio"',
            '$."attributes"."bff_duplicate_paragraph_spans_new"',
            '$."attributes"."cc_tiny_subset_analysis_october__c4_v2__line_bullets"',
            '$."attributes"."cc_tiny_subset_analysis_october__c4_v2__phrase_repeat"',
            '$."attributes"."cc_tiny_subset_analysis_october__pii_regex_with_counts_fast_v2__EMAIL_ADDRESS"',
            '$."attributes"."cc_tiny_subset_analysis_october__pii_regex_with_counts_fast_v2__PHONE_NUMBER"',
            '$."attributes"."cc_tiny_subset_analysis_october__pii_regex_with_counts_fast_v2__IP_ADDRESS"'
          ]
        ) AS doc_values,
        JSON_EXTRACT(
          attr_0,
          [
            '$."attributes"."cc_tiny_subset_analysis_october__cld2_en_paragraph_with_doc_score_v2__doc_en"',
            '$."attributes"."cc_tiny_subset_analysis_october__ft_lang_id_en_paragraph_with_doc_score_v2__doc_en"',
            '$."attributes"."cc_tiny_subset_analysis_october__char_length_with_paragraphs_v1__document"',
            '$."attributes"."cc_tiny_subset_analysis_october__jigsaw_nsfw_document_v1____label__nsfw"',
            '$."attributes"."cc_tiny_subset_analysis_october__gopher_v2__word_count"',
            '$."attributes"."cc_tiny_subset_analysis_october__gopher_v2__symbol_to_word_ratio"',
            '$."attributes"."bff_duplicate_paragraph_spans_new"',
            '$."attributes"."cc_tiny_subset_analysis_october__c4_v2__line_bullets"',
            '$."attributes"."cc_tiny_subset_analysis_october__c4_v2__phrase_repeat"',
            '$."attributes"."cc_tiny_subset_analysis_october__pii_regex_with_counts_fast_v2__EMAIL_ADDRESS"',
            '$."attributes"."cc_tiny_subset_analysis_october__pii_regex_with_counts_fast_v2__PHONE_NUMBER"',
            '$."attributes"."cc_tiny_subset_analysis_october__pii_regex_with_counts_fast_v2__IP_ADDRESS"'
          ]
        ) AS attr_0_values,
        JSON_EXTRACT(
          attr_1,
          [
            '$."attributes"."cc_tiny_subset_analysis_october__cld2_en_paragraph_with_doc_score_v2__doc_en"',
            '$."attributes"."cc_tiny_subset_analysis_october__ft_lang_id_en_paragraph_with_doc_score_v2__doc_en"',
            '$."attributes"."cc_tiny_subset_analysis_october__char_length_with_paragraphs_v1__document"',
            '$."attributes"."cc_tiny_subset_analysis_october__jigsaw_nsfw_document_v1____label__nsfw"',
            '$."attributes"."cc_tiny_subset_analysis_october__gopher_v2__word_count"',
            '$."attributes"."cc_tiny_subset_analysis_october__gopher_v2__symbol_to_word_ratio"',
            '$."attributes"."bff_duplicate_paragraph_spans_new"',
            '$."attributes"."cc_tiny_subset_analysis_october__c4_v2__line_bullets"',
            '$."attributes"."cc_tiny_subset_analysis_october__c4_v2__phrase_repeat"',
            '$."attributes"."cc_tiny_subset_analysis_october__pii_regex_with_counts_fast_v2__EMAIL_ADDRESS"',
            '$."attributes"."cc_tiny_subset_analysis_october__pii_regex_with_counts_fast_v2__PHONE_NUMBER"',
            '$."attributes"."cc_tiny_subset_analysis_october__pii_regex_with_counts_fast_v2__IP_ADDRESS"'
          ]
        ) AS attr_1_values
      FROM batch
    ) AS extracted
  ) AS merged
) AS decided
