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
    key_0_types,
    key_0_values,
    key_1_types,
    key_1_values,
    key_2_types,
    key_2_values,
    key_3_types,
    key_3_values,
    key_4_types,
    key_4_values,
    key_5_types,
    key_5_values,
    key_6_types,
    key_6_values,
    key_7_types,
    key_7_values,
    key_8_types,
    key_8_values,
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
                      LAMBDA _v2 : CASE
                        WHEN _v2 IS NULL
                        THEN NULL
                        WHEN NOT _v2
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
                  LAMBDA _v4 : CASE
                    WHEN _v4 IS NULL
                    THEN NULL
                    WHEN NOT _v4
                    THEN FALSE
                    ELSE NOT (
                      CAST(CASE
                        WHEN COALESCE((
                          NOT key_0_types[1] IN ('ARRAY', 'NULL')
                        ), FALSE)
                        THEN CAST(NULL AS JSON)
                        ELSE COALESCE(key_0_values[1], CAST('null' AS JSON))
                      END AS TEXT) = 'null'
                    )
                  END
                )[1]
              ],
              LAMBDA _v6 : CASE
                WHEN _v6 IS NULL
                THEN NULL
                WHEN NOT _v6
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
                    ELSE COALESCE(key_0_values[2], CAST('null' AS JSON))
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
                  ELSE COALESCE(key_0_values[2], CAST('null' AS JSON))
                END
              ],
              LAMBDA _v7 : CASE
                WHEN _v7 IS NULL
                THEN NULL
                ELSE CASE
                  WHEN JSON_TYPE(_v7) IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                  THEN TRY_CAST(_v7 AS DOUBLE) < 0.8
                  ELSE CASE
                    WHEN JSON_TYPE(_v7) = 'NULL'
                    THEN 0
                    WHEN JSON_TYPE(_v7) = 'BOOLEAN'
                    THEN CASE WHEN CAST(_v7 AS TEXT) = 'true' THEN 2 ELSE 1 END
                    WHEN JSON_TYPE(_v7) = 'VARCHAR'
                    THEN 4
                    WHEN JSON_TYPE(_v7) = 'ARRAY'
                    THEN 5
                    WHEN JSON_TYPE(_v7) = 'OBJECT'
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
                      LAMBDA _v11 : CASE
                        WHEN _v11 IS NULL
                        THEN NULL
                        WHEN NOT _v11
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
                  LAMBDA _v13 : CASE
                    WHEN _v13 IS NULL
                    THEN NULL
                    WHEN NOT _v13
                    THEN FALSE
                    ELSE NOT (
                      CAST(CASE
                        WHEN COALESCE((
                          NOT key_1_types[1] IN ('ARRAY', 'NULL')
                        ), FALSE)
                        THEN CAST(NULL AS JSON)
                        ELSE COALESCE(key_1_values[1], CAST('null' AS JSON))
                      END AS TEXT) = 'null'
                    )
                  END
                )[1]
              ],
              LAMBDA _v15 : CASE
                WHEN _v15 IS NULL
                THEN NULL
                WHEN NOT _v15
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
                    ELSE COALESCE(key_1_values[2], CAST('null' AS JSON))
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
                  ELSE COALESCE(key_1_values[2], CAST('null' AS JSON))
                END
              ],
              LAMBDA _v16 : CASE
                WHEN _v16 IS NULL
                THEN NULL
                ELSE CASE
                  WHEN JSON_TYPE(_v16) IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                  THEN TRY_CAST(_v16 AS DOUBLE) < 0.8
                  ELSE CASE
                    WHEN JSON_TYPE(_v16) = 'NULL'
                    THEN 0
                    WHEN JSON_TYPE(_v16) = 'BOOLEAN'
                    THEN CASE WHEN CAST(_v16 AS TEXT) = 'true' THEN 2 ELSE 1 END
                    WHEN JSON_TYPE(_v16) = 'VARCHAR'
                    THEN 4
                    WHEN JSON_TYPE(_v16) = 'ARRAY'
                    THEN 5
                    WHEN JSON_TYPE(_v16) = 'OBJECT'
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
                      LAMBDA _v20 : CASE
                        WHEN _v20 IS NULL
                        THEN NULL
                        WHEN NOT _v20
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
                  LAMBDA _v22 : CASE
                    WHEN _v22 IS NULL
                    THEN NULL
                    WHEN NOT _v22
                    THEN FALSE
                    ELSE NOT (
                      CAST(CASE
                        WHEN COALESCE((
                          NOT key_2_types[1] IN ('ARRAY', 'NULL')
                        ), FALSE)
                        THEN CAST(NULL AS JSON)
                        ELSE COALESCE(key_2_values[1], CAST('null' AS JSON))
                      END AS TEXT) = 'null'
                    )
                  END
                )[1]
              ],
              LAMBDA _v24 : CASE
                WHEN _v24 IS NULL
                THEN NULL
                WHEN NOT _v24
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
                    ELSE COALESCE(key_2_values[2], CAST('null' AS JSON))
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
                  ELSE COALESCE(key_2_values[2], CAST('null' AS JSON))
                END
              ],
              LAMBDA _v25 : CASE
                WHEN _v25 IS NULL
                THEN NULL
                ELSE CASE
                  WHEN JSON_TYPE(_v25) IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                  THEN TRY_CAST(_v25 AS DOUBLE) < 100.0
                  ELSE CASE
                    WHEN JSON_TYPE(_v25) = 'NULL'
                    THEN 0
                    WHEN JSON_TYPE(_v25) = 'BOOLEAN'
                    THEN CASE WHEN CAST(_v25 AS TEXT) = 'true' THEN 2 ELSE 1 END
                    WHEN JSON_TYPE(_v25) = 'VARCHAR'
                    THEN 4
                    WHEN JSON_TYPE(_v25) = 'ARRAY'
                    THEN 5
                    WHEN JSON_TYPE(_v25) = 'OBJECT'
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
                      LAMBDA _v29 : CASE
                        WHEN _v29 IS NULL
                        THEN NULL
                        WHEN NOT _v29
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
                  LAMBDA _v31 : CASE
                    WHEN _v31 IS NULL
                    THEN NULL
                    WHEN NOT _v31
                    THEN FALSE
                    ELSE NOT (
                      CAST(CASE
                        WHEN COALESCE((
                          NOT key_3_types[1] IN ('ARRAY', 'NULL')
                        ), FALSE)
                        THEN CAST(NULL AS JSON)
                        ELSE COALESCE(key_3_values[1], CAST('null' AS JSON))
                      END AS TEXT) = 'null'
                    )
                  END
                )[1]
              ],
              LAMBDA _v33 : CASE
                WHEN _v33 IS NULL
                THEN NULL
                WHEN NOT _v33
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
                    ELSE COALESCE(key_3_values[2], CAST('null' AS JSON))
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
                  ELSE COALESCE(key_3_values[2], CAST('null' AS JSON))
                END
              ],
              LAMBDA _v34 : CASE
                WHEN _v34 IS NULL
                THEN NULL
                ELSE CASE
                  WHEN JSON_TYPE(_v34) IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                  THEN 0.5 < TRY_CAST(_v34 AS DOUBLE)
                  ELSE CASE
                    WHEN JSON_TYPE(_v34) = 'NULL'
                    THEN 0
                    WHEN JSON_TYPE(_v34) = 'BOOLEAN'
                    THEN CASE WHEN CAST(_v34 AS TEXT) = 'true' THEN 2 ELSE 1 END
                    WHEN JSON_TYPE(_v34) = 'VARCHAR'
                    THEN 4
                    WHEN JSON_TYPE(_v34) = 'ARRAY'
                    THEN 5
                    WHEN JSON_TYPE(_v34) = 'OBJECT'
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
                      LAMBDA _v38 : CASE
                        WHEN _v38 IS NULL
                        THEN NULL
                        WHEN NOT _v38
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
                  LAMBDA _v40 : CASE
                    WHEN _v40 IS NULL
                    THEN NULL
                    WHEN NOT _v40
                    THEN FALSE
                    ELSE NOT (
                      CAST(CASE
                        WHEN COALESCE((
                          NOT key_4_types[1] IN ('ARRAY', 'NULL')
                        ), FALSE)
                        THEN CAST(NULL AS JSON)
                        ELSE COALESCE(key_4_values[1], CAST('null' AS JSON))
                      END AS TEXT) = 'null'
                    )
                  END
                )[1]
              ],
              LAMBDA _v42 : CASE
                WHEN _v42 IS NULL
                THEN NULL
                WHEN NOT _v42
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
                    ELSE COALESCE(key_4_values[2], CAST('null' AS JSON))
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
                  ELSE COALESCE(key_4_values[2], CAST('null' AS JSON))
                END
              ],
              LAMBDA _v43 : CASE
                WHEN _v43 IS NULL
                THEN NULL
                ELSE CASE
                  WHEN JSON_TYPE(_v43) IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                  THEN TRY_CAST(_v43 AS DOUBLE) < 50.0
                  ELSE CASE
                    WHEN JSON_TYPE(_v43) = 'NULL'
                    THEN 0
                    WHEN JSON_TYPE(_v43) = 'BOOLEAN'
                    THEN CASE WHEN CAST(_v43 AS TEXT) = 'true' THEN 2 ELSE 1 END
                    WHEN JSON_TYPE(_v43) = 'VARCHAR'
                    THEN 4
                    WHEN JSON_TYPE(_v43) = 'ARRAY'
                    THEN 5
                    WHEN JSON_TYPE(_v43) = 'OBJECT'
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
                      LAMBDA _v47 : CASE
                        WHEN _v47 IS NULL
                        THEN NULL
                        WHEN NOT _v47
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
                  LAMBDA _v49 : CASE
                    WHEN _v49 IS NULL
                    THEN NULL
                    WHEN NOT _v49
                    THEN FALSE
                    ELSE NOT (
                      CAST(CASE
                        WHEN COALESCE((
                          NOT key_5_types[1] IN ('ARRAY', 'NULL')
                        ), FALSE)
                        THEN CAST(NULL AS JSON)
                        ELSE COALESCE(key_5_values[1], CAST('null' AS JSON))
                      END AS TEXT) = 'null'
                    )
                  END
                )[1]
              ],
              LAMBDA _v51 : CASE
                WHEN _v51 IS NULL
                THEN NULL
                WHEN NOT _v51
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
                    ELSE COALESCE(key_5_values[2], CAST('null' AS JSON))
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
                  ELSE COALESCE(key_5_values[2], CAST('null' AS JSON))
                END
              ],
              LAMBDA _v52 : CASE
                WHEN _v52 IS NULL
                THEN NULL
                ELSE CASE
                  WHEN JSON_TYPE(_v52) IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                  THEN 0.1 < TRY_CAST(_v52 AS DOUBLE)
                  ELSE CASE
                    WHEN JSON_TYPE(_v52) = 'NULL'
                    THEN 0
                    WHEN JSON_TYPE(_v52) = 'BOOLEAN'
                    THEN CASE WHEN CAST(_v52 AS TEXT) = 'true' THEN 2 ELSE 1 END
                    WHEN JSON_TYPE(_v52) = 'VARCHAR'
                    THEN 4
                    WHEN JSON_TYPE(_v52) = 'ARRAY'
                    THEN 5
                    WHEN JSON_TYPE(_v52) = 'OBJECT'
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
                      LAMBDA _v56 : CASE
                        WHEN _v56 IS NULL
                        THEN NULL
                        WHEN NOT _v56
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
                  LAMBDA _v58 : CASE
                    WHEN _v58 IS NULL
                    THEN NULL
                    WHEN NOT _v58
                    THEN FALSE
                    ELSE NOT (
                      CAST(CASE
                        WHEN COALESCE((
                          NOT key_6_types[1] IN ('ARRAY', 'NULL')
                        ), FALSE)
                        THEN CAST(NULL AS JSON)
                        ELSE COALESCE(key_6_values[1], CAST('null' AS JSON))
                      END AS TEXT) = 'null'
                    )
                  END
                )[1]
              ],
              LAMBDA _v60 : CASE
                WHEN _v60 IS NULL
                THEN NULL
                WHEN NOT _v60
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
                    ELSE COALESCE(key_6_values[2], CAST('null' AS JSON))
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
                  ELSE COALESCE(key_6_values[2], CAST('null' AS JSON))
                END
              ],
              LAMBDA _v61 : NOT (
                CASE
                  WHEN _v61 IS NULL
                  THEN NULL
                  ELSE CASE
                    WHEN JSON_TYPE(_v61) IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                    THEN TRY_CAST(_v61 AS DOUBLE) < 1.0
                    ELSE CASE
                      WHEN JSON_TYPE(_v61) = 'NULL'
                      THEN 0
                      WHEN JSON_TYPE(_v61) = 'BOOLEAN'
                      THEN CASE WHEN CAST(_v61 AS TEXT) = 'true' THEN 2 ELSE 1 END
                      WHEN JSON_TYPE(_v61) = 'VARCHAR'
                      THEN 4
                      WHEN JSON_TYPE(_v61) = 'ARRAY'
                      THEN 5
                      WHEN JSON_TYPE(_v61) = 'OBJECT'
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
                      LAMBDA _v65 : CASE
                        WHEN _v65 IS NULL
                        THEN NULL
                        WHEN NOT _v65
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
                  LAMBDA _v67 : CASE
                    WHEN _v67 IS NULL
                    THEN NULL
                    WHEN NOT _v67
                    THEN FALSE
                    ELSE NOT (
                      CAST(CASE
                        WHEN COALESCE((
                          NOT key_7_types[1] IN ('ARRAY', 'NULL')
                        ), FALSE)
                        THEN CAST(NULL AS JSON)
                        ELSE COALESCE(key_7_values[1], CAST('null' AS JSON))
                      END AS TEXT) = 'null'
                    )
                  END
                )[1]
              ],
              LAMBDA _v69 : CASE
                WHEN _v69 IS NULL
                THEN NULL
                WHEN NOT _v69
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
                    ELSE COALESCE(key_7_values[2], CAST('null' AS JSON))
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
                  ELSE COALESCE(key_7_values[2], CAST('null' AS JSON))
                END
              ],
              LAMBDA _v70 : CASE
                WHEN _v70 IS NULL
                THEN NULL
                ELSE CASE
                  WHEN JSON_TYPE(_v70) IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                  THEN 0.5 < TRY_CAST(_v70 AS DOUBLE)
                  ELSE CASE
                    WHEN JSON_TYPE(_v70) = 'NULL'
                    THEN 0
                    WHEN JSON_TYPE(_v70) = 'BOOLEAN'
                    THEN CASE WHEN CAST(_v70 AS TEXT) = 'true' THEN 2 ELSE 1 END
                    WHEN JSON_TYPE(_v70) = 'VARCHAR'
                    THEN 4
                    WHEN JSON_TYPE(_v70) = 'ARRAY'
                    THEN 5
                    WHEN JSON_TYPE(_v70) = 'OBJECT'
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
                      LAMBDA _v74 : CASE
                        WHEN _v74 IS NULL
                        THEN NULL
                        WHEN NOT _v74
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
                  LAMBDA _v76 : CASE
                    WHEN _v76 IS NULL
                    THEN NULL
                    WHEN NOT _v76
                    THEN FALSE
                    ELSE NOT (
                      CAST(CASE
                        WHEN COALESCE((
                          NOT key_8_types[1] IN ('ARRAY', 'NULL')
                        ), FALSE)
                        THEN CAST(NULL AS JSON)
                        ELSE COALESCE(key_8_values[1], CAST('null' AS JSON))
                      END AS TEXT) = 'null'
                    )
                  END
                )[1]
              ],
              LAMBDA _v78 : CASE
                WHEN _v78 IS NULL
                THEN NULL
                WHEN NOT _v78
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
                    ELSE COALESCE(key_8_values[2], CAST('null' AS JSON))
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
                  ELSE COALESCE(key_8_values[2], CAST('null' AS JSON))
                END
              ],
              LAMBDA _v79 : CASE
                WHEN _v79 IS NULL
                THEN NULL
                ELSE CASE
                  WHEN JSON_TYPE(_v79) IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                  THEN 0.3 < TRY_CAST(_v79 AS DOUBLE)
                  ELSE CASE
                    WHEN JSON_TYPE(_v79) = 'NULL'
                    THEN 0
                    WHEN JSON_TYPE(_v79) = 'BOOLEAN'
                    THEN CASE WHEN CAST(_v79 AS TEXT) = 'true' THEN 2 ELSE 1 END
                    WHEN JSON_TYPE(_v79) = 'VARCHAR'
                    THEN 4
                    WHEN JSON_TYPE(_v79) = 'ARRAY'
                    THEN 5
                    WHEN JSON_TYPE(_v79) = 'OBJECT'
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
      JSON_TYPE(COALESCE(attr_1_values[1], attr_0_values[1], doc_values[1]), ['$', '$[0]']) AS key_0_types,
      JSON_EXTRACT(COALESCE(attr_1_values[1], attr_0_values[1], doc_values[1]), ['$[0]', '$[0][2]']) AS key_0_values,
      JSON_TYPE(COALESCE(attr_1_values[2], attr_0_values[2], doc_values[2]), ['$', '$[0]']) AS key_1_types,
      JSON_EXTRACT(COALESCE(attr_1_values[2], attr_0_values[2], doc_values[2]), ['$[0]', '$[0][2]']) AS key_1_values,
      JSON_TYPE(COALESCE(attr_1_values[3], attr_0_values[3], doc_values[3]), ['$', '$[0]']) AS key_2_types,
      JSON_EXTRACT(COALESCE(attr_1_values[3], attr_0_values[3], doc_values[3]), ['$[0]', '$[0][2]']) AS key_2_values,
      JSON_TYPE(COALESCE(attr_1_values[4], attr_0_values[4], doc_values[4]), ['$', '$[0]']) AS key_3_types,
      JSON_EXTRACT(COALESCE(attr_1_values[4], attr_0_values[4], doc_values[4]), ['$[0]', '$[0][2]']) AS key_3_values,
      JSON_TYPE(COALESCE(attr_1_values[5], attr_0_values[5], doc_values[5]), ['$', '$[0]']) AS key_4_types,
      JSON_EXTRACT(COALESCE(attr_1_values[5], attr_0_values[5], doc_values[5]), ['$[0]', '$[0][2]']) AS key_4_values,
      JSON_TYPE(COALESCE(attr_1_values[6], attr_0_values[6], doc_values[6]), ['$', '$[0]']) AS key_5_types,
      JSON_EXTRACT(COALESCE(attr_1_values[6], attr_0_values[6], doc_values[6]), ['$[0]', '$[0][2]']) AS key_5_values,
      JSON_TYPE(COALESCE(attr_1_values[7], attr_0_values[7], doc_values[7]), ['$', '$[0]']) AS key_6_types,
      JSON_EXTRACT(COALESCE(attr_1_values[7], attr_0_values[7], doc_values[7]), ['$[0]', '$[0][2]']) AS key_6_values,
      JSON_TYPE(COALESCE(attr_1_values[8], attr_0_values[8], doc_values[8]), ['$', '$[0]']) AS key_7_types,
      JSON_EXTRACT(COALESCE(attr_1_values[8], attr_0_values[8], doc_values[8]), ['$[0]', '$[0][2]']) AS key_7_values,
      JSON_TYPE(COALESCE(attr_1_values[9], attr_0_values[9], doc_values[9]), ['$', '$[0]']) AS key_8_types,
      JSON_EXTRACT(COALESCE(attr_1_values[9], attr_0_values[9], doc_values[9]), ['$[0]', '$[0][2]']) AS key_8_values
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
