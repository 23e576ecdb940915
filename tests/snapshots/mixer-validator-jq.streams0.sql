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
                        LIST_TRANSFORM(
                          [
                            LIST_TRANSFORM(
                              [COALESCE(key_0_types[1], 'NULL')],
                              LAMBDA _v0 : CASE
                                WHEN _v0 = 'NULL'
                                THEN 'null'
                                WHEN _v0 = 'BOOLEAN'
                                THEN 'boolean'
                                WHEN _v0 = 'VARCHAR'
                                THEN 'string'
                                WHEN _v0 = 'ARRAY'
                                THEN 'array'
                                WHEN _v0 = 'OBJECT'
                                THEN 'object'
                                WHEN _v0 IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                                THEN 'number'
                              END
                            )[1]
                          ],
                          LAMBDA _v1 : _v1 = 'array'
                        )[1]
                      ],
                      LAMBDA _v5 : LIST_TRANSFORM(
                        [
                          LIST_TRANSFORM(
                            [
                              LIST_TRANSFORM(
                                [COALESCE(key_0, CAST('null' AS JSON))],
                                LAMBDA _v2 : LIST_TRANSFORM(
                                  [COALESCE(key_0_types[1], 'NULL')],
                                  LAMBDA _v3 : CAST(CASE
                                    WHEN _v3 IN ('NULL')
                                    THEN 0
                                    WHEN _v3 IN ('ARRAY')
                                    THEN JSON_ARRAY_LENGTH(_v2)
                                    WHEN _v3 IN ('OBJECT')
                                    THEN LEN(JSON_KEYS(_v2))
                                    WHEN _v3 IN ('VARCHAR')
                                    THEN LENGTH(JSON_EXTRACT_STRING(_v2, '$'))
                                    WHEN _v3 IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                                    THEN ABS(TRY_CAST(_v2 AS DOUBLE))
                                  END AS DOUBLE)
                                )[1]
                              )[1]
                            ],
                            LAMBDA _v4 : 0.0 < _v4
                          )[1]
                        ],
                        LAMBDA _v6 : CASE WHEN _v5 IS NULL THEN NULL WHEN NOT _v5 THEN FALSE ELSE _v6 END
                      )[1]
                    )[1]
                  ],
                  LAMBDA _v9 : LIST_TRANSFORM(
                    [
                      LIST_TRANSFORM(
                        [
                          CASE
                            WHEN COALESCE((
                              NOT key_0_types[1] IN ('ARRAY', 'NULL')
                            ), FALSE)
                            THEN CAST(NULL AS JSON)
                            ELSE COALESCE(key_0_values[1], CAST('null' AS JSON))
                          END
                        ],
                        LAMBDA _v7 : LIST_TRANSFORM(
                          [CAST('null' AS JSON)],
                          LAMBDA _v8 : NOT (
                            CASE
                              WHEN _v7 IS NULL
                              THEN NULL
                              ELSE CASE
                                WHEN _v8 IS NULL
                                THEN NULL
                                ELSE COALESCE(
                                  (
                                    CASE
                                      WHEN (
                                        JSON_TYPE(_v7) IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                                      )
                                      AND (
                                        JSON_TYPE(_v8) IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                                      )
                                      THEN TRY_CAST(_v7 AS DOUBLE) = TRY_CAST(_v8 AS DOUBLE)
                                      ELSE CAST(_v7 AS TEXT) = CAST(_v8 AS TEXT)
                                    END
                                  ),
                                  FALSE
                                )
                              END
                            END
                          )
                        )[1]
                      )[1]
                    ],
                    LAMBDA _v10 : CASE WHEN _v9 IS NULL THEN NULL WHEN NOT _v9 THEN FALSE ELSE _v10 END
                  )[1]
                )[1]
              ],
              LAMBDA _v13 : LIST_TRANSFORM(
                [
                  LIST_TRANSFORM(
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
                    LAMBDA _v11 : LIST_TRANSFORM(
                      [CAST('null' AS JSON)],
                      LAMBDA _v12 : NOT (
                        CASE
                          WHEN _v11 IS NULL
                          THEN NULL
                          ELSE CASE
                            WHEN _v12 IS NULL
                            THEN NULL
                            ELSE COALESCE(
                              (
                                CASE
                                  WHEN (
                                    JSON_TYPE(_v11) IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                                  )
                                  AND (
                                    JSON_TYPE(_v12) IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                                  )
                                  THEN TRY_CAST(_v11 AS DOUBLE) = TRY_CAST(_v12 AS DOUBLE)
                                  ELSE CAST(_v11 AS TEXT) = CAST(_v12 AS TEXT)
                                END
                              ),
                              FALSE
                            )
                          END
                        END
                      )
                    )[1]
                  )[1]
                ],
                LAMBDA _v14 : CASE WHEN _v13 IS NULL THEN NULL WHEN NOT _v13 THEN FALSE ELSE _v14 END
              )[1]
            )[1]
          ],
          LAMBDA _v16 : CASE
            WHEN _v16 IS NULL
            THEN NULL
            WHEN _v16
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
              LAMBDA _v15 : CASE
                WHEN _v15 IS NULL
                THEN NULL
                ELSE CASE
                  WHEN JSON_TYPE(_v15) IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                  THEN TRY_CAST(_v15 AS DOUBLE) < 0.8
                  ELSE CASE
                    WHEN JSON_TYPE(_v15) = 'NULL'
                    THEN 0
                    WHEN JSON_TYPE(_v15) = 'BOOLEAN'
                    THEN CASE WHEN CAST(_v15 AS TEXT) = 'true' THEN 2 ELSE 1 END
                    WHEN JSON_TYPE(_v15) = 'VARCHAR'
                    THEN 4
                    WHEN JSON_TYPE(_v15) = 'ARRAY'
                    THEN 5
                    WHEN JSON_TYPE(_v15) = 'OBJECT'
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
                        LIST_TRANSFORM(
                          [
                            LIST_TRANSFORM(
                              [COALESCE(key_1_types[1], 'NULL')],
                              LAMBDA _v17 : CASE
                                WHEN _v17 = 'NULL'
                                THEN 'null'
                                WHEN _v17 = 'BOOLEAN'
                                THEN 'boolean'
                                WHEN _v17 = 'VARCHAR'
                                THEN 'string'
                                WHEN _v17 = 'ARRAY'
                                THEN 'array'
                                WHEN _v17 = 'OBJECT'
                                THEN 'object'
                                WHEN _v17 IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                                THEN 'number'
                              END
                            )[1]
                          ],
                          LAMBDA _v18 : _v18 = 'array'
                        )[1]
                      ],
                      LAMBDA _v22 : LIST_TRANSFORM(
                        [
                          LIST_TRANSFORM(
                            [
                              LIST_TRANSFORM(
                                [COALESCE(key_1, CAST('null' AS JSON))],
                                LAMBDA _v19 : LIST_TRANSFORM(
                                  [COALESCE(key_1_types[1], 'NULL')],
                                  LAMBDA _v20 : CAST(CASE
                                    WHEN _v20 IN ('NULL')
                                    THEN 0
                                    WHEN _v20 IN ('ARRAY')
                                    THEN JSON_ARRAY_LENGTH(_v19)
                                    WHEN _v20 IN ('OBJECT')
                                    THEN LEN(JSON_KEYS(_v19))
                                    WHEN _v20 IN ('VARCHAR')
                                    THEN LENGTH(JSON_EXTRACT_STRING(_v19, '$'))
                                    WHEN _v20 IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                                    THEN ABS(TRY_CAST(_v19 AS DOUBLE))
                                  END AS DOUBLE)
                                )[1]
                              )[1]
                            ],
                            LAMBDA _v21 : 0.0 < _v21
                          )[1]
                        ],
                        LAMBDA _v23 : CASE WHEN _v22 IS NULL THEN NULL WHEN NOT _v22 THEN FALSE ELSE _v23 END
                      )[1]
                    )[1]
                  ],
                  LAMBDA _v26 : LIST_TRANSFORM(
                    [
                      LIST_TRANSFORM(
                        [
                          CASE
                            WHEN COALESCE((
                              NOT key_1_types[1] IN ('ARRAY', 'NULL')
                            ), FALSE)
                            THEN CAST(NULL AS JSON)
                            ELSE COALESCE(key_1_values[1], CAST('null' AS JSON))
                          END
                        ],
                        LAMBDA _v24 : LIST_TRANSFORM(
                          [CAST('null' AS JSON)],
                          LAMBDA _v25 : NOT (
                            CASE
                              WHEN _v24 IS NULL
                              THEN NULL
                              ELSE CASE
                                WHEN _v25 IS NULL
                                THEN NULL
                                ELSE COALESCE(
                                  (
                                    CASE
                                      WHEN (
                                        JSON_TYPE(_v24) IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                                      )
                                      AND (
                                        JSON_TYPE(_v25) IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                                      )
                                      THEN TRY_CAST(_v24 AS DOUBLE) = TRY_CAST(_v25 AS DOUBLE)
                                      ELSE CAST(_v24 AS TEXT) = CAST(_v25 AS TEXT)
                                    END
                                  ),
                                  FALSE
                                )
                              END
                            END
                          )
                        )[1]
                      )[1]
                    ],
                    LAMBDA _v27 : CASE WHEN _v26 IS NULL THEN NULL WHEN NOT _v26 THEN FALSE ELSE _v27 END
                  )[1]
                )[1]
              ],
              LAMBDA _v30 : LIST_TRANSFORM(
                [
                  LIST_TRANSFORM(
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
                    LAMBDA _v28 : LIST_TRANSFORM(
                      [CAST('null' AS JSON)],
                      LAMBDA _v29 : NOT (
                        CASE
                          WHEN _v28 IS NULL
                          THEN NULL
                          ELSE CASE
                            WHEN _v29 IS NULL
                            THEN NULL
                            ELSE COALESCE(
                              (
                                CASE
                                  WHEN (
                                    JSON_TYPE(_v28) IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                                  )
                                  AND (
                                    JSON_TYPE(_v29) IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                                  )
                                  THEN TRY_CAST(_v28 AS DOUBLE) = TRY_CAST(_v29 AS DOUBLE)
                                  ELSE CAST(_v28 AS TEXT) = CAST(_v29 AS TEXT)
                                END
                              ),
                              FALSE
                            )
                          END
                        END
                      )
                    )[1]
                  )[1]
                ],
                LAMBDA _v31 : CASE WHEN _v30 IS NULL THEN NULL WHEN NOT _v30 THEN FALSE ELSE _v31 END
              )[1]
            )[1]
          ],
          LAMBDA _v33 : CASE
            WHEN _v33 IS NULL
            THEN NULL
            WHEN _v33
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
              LAMBDA _v32 : CASE
                WHEN _v32 IS NULL
                THEN NULL
                ELSE CASE
                  WHEN JSON_TYPE(_v32) IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                  THEN TRY_CAST(_v32 AS DOUBLE) < 0.8
                  ELSE CASE
                    WHEN JSON_TYPE(_v32) = 'NULL'
                    THEN 0
                    WHEN JSON_TYPE(_v32) = 'BOOLEAN'
                    THEN CASE WHEN CAST(_v32 AS TEXT) = 'true' THEN 2 ELSE 1 END
                    WHEN JSON_TYPE(_v32) = 'VARCHAR'
                    THEN 4
                    WHEN JSON_TYPE(_v32) = 'ARRAY'
                    THEN 5
                    WHEN JSON_TYPE(_v32) = 'OBJECT'
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
                        LIST_TRANSFORM(
                          [
                            LIST_TRANSFORM(
                              [COALESCE(key_2_types[1], 'NULL')],
                              LAMBDA _v34 : CASE
                                WHEN _v34 = 'NULL'
                                THEN 'null'
                                WHEN _v34 = 'BOOLEAN'
                                THEN 'boolean'
                                WHEN _v34 = 'VARCHAR'
                                THEN 'string'
                                WHEN _v34 = 'ARRAY'
                                THEN 'array'
                                WHEN _v34 = 'OBJECT'
                                THEN 'object'
                                WHEN _v34 IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                                THEN 'number'
                              END
                            )[1]
                          ],
                          LAMBDA _v35 : _v35 = 'array'
                        )[1]
                      ],
                      LAMBDA _v39 : LIST_TRANSFORM(
                        [
                          LIST_TRANSFORM(
                            [
                              LIST_TRANSFORM(
                                [COALESCE(key_2, CAST('null' AS JSON))],
                                LAMBDA _v36 : LIST_TRANSFORM(
                                  [COALESCE(key_2_types[1], 'NULL')],
                                  LAMBDA _v37 : CAST(CASE
                                    WHEN _v37 IN ('NULL')
                                    THEN 0
                                    WHEN _v37 IN ('ARRAY')
                                    THEN JSON_ARRAY_LENGTH(_v36)
                                    WHEN _v37 IN ('OBJECT')
                                    THEN LEN(JSON_KEYS(_v36))
                                    WHEN _v37 IN ('VARCHAR')
                                    THEN LENGTH(JSON_EXTRACT_STRING(_v36, '$'))
                                    WHEN _v37 IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                                    THEN ABS(TRY_CAST(_v36 AS DOUBLE))
                                  END AS DOUBLE)
                                )[1]
                              )[1]
                            ],
                            LAMBDA _v38 : 0.0 < _v38
                          )[1]
                        ],
                        LAMBDA _v40 : CASE WHEN _v39 IS NULL THEN NULL WHEN NOT _v39 THEN FALSE ELSE _v40 END
                      )[1]
                    )[1]
                  ],
                  LAMBDA _v43 : LIST_TRANSFORM(
                    [
                      LIST_TRANSFORM(
                        [
                          CASE
                            WHEN COALESCE((
                              NOT key_2_types[1] IN ('ARRAY', 'NULL')
                            ), FALSE)
                            THEN CAST(NULL AS JSON)
                            ELSE COALESCE(key_2_values[1], CAST('null' AS JSON))
                          END
                        ],
                        LAMBDA _v41 : LIST_TRANSFORM(
                          [CAST('null' AS JSON)],
                          LAMBDA _v42 : NOT (
                            CASE
                              WHEN _v41 IS NULL
                              THEN NULL
                              ELSE CASE
                                WHEN _v42 IS NULL
                                THEN NULL
                                ELSE COALESCE(
                                  (
                                    CASE
                                      WHEN (
                                        JSON_TYPE(_v41) IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                                      )
                                      AND (
                                        JSON_TYPE(_v42) IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                                      )
                                      THEN TRY_CAST(_v41 AS DOUBLE) = TRY_CAST(_v42 AS DOUBLE)
                                      ELSE CAST(_v41 AS TEXT) = CAST(_v42 AS TEXT)
                                    END
                                  ),
                                  FALSE
                                )
                              END
                            END
                          )
                        )[1]
                      )[1]
                    ],
                    LAMBDA _v44 : CASE WHEN _v43 IS NULL THEN NULL WHEN NOT _v43 THEN FALSE ELSE _v44 END
                  )[1]
                )[1]
              ],
              LAMBDA _v47 : LIST_TRANSFORM(
                [
                  LIST_TRANSFORM(
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
                    LAMBDA _v45 : LIST_TRANSFORM(
                      [CAST('null' AS JSON)],
                      LAMBDA _v46 : NOT (
                        CASE
                          WHEN _v45 IS NULL
                          THEN NULL
                          ELSE CASE
                            WHEN _v46 IS NULL
                            THEN NULL
                            ELSE COALESCE(
                              (
                                CASE
                                  WHEN (
                                    JSON_TYPE(_v45) IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                                  )
                                  AND (
                                    JSON_TYPE(_v46) IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                                  )
                                  THEN TRY_CAST(_v45 AS DOUBLE) = TRY_CAST(_v46 AS DOUBLE)
                                  ELSE CAST(_v45 AS TEXT) = CAST(_v46 AS TEXT)
                                END
                              ),
                              FALSE
                            )
                          END
                        END
                      )
                    )[1]
                  )[1]
                ],
                LAMBDA _v48 : CASE WHEN _v47 IS NULL THEN NULL WHEN NOT _v47 THEN FALSE ELSE _v48 END
              )[1]
            )[1]
          ],
          LAMBDA _v50 : CASE
            WHEN _v50 IS NULL
            THEN NULL
            WHEN _v50
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
              LAMBDA _v49 : CASE
                WHEN _v49 IS NULL
                THEN NULL
                ELSE CASE
                  WHEN JSON_TYPE(_v49) IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                  THEN TRY_CAST(_v49 AS DOUBLE) < 100.0
                  ELSE CASE
                    WHEN JSON_TYPE(_v49) = 'NULL'
                    THEN 0
                    WHEN JSON_TYPE(_v49) = 'BOOLEAN'
                    THEN CASE WHEN CAST(_v49 AS TEXT) = 'true' THEN 2 ELSE 1 END
                    WHEN JSON_TYPE(_v49) = 'VARCHAR'
                    THEN 4
                    WHEN JSON_TYPE(_v49) = 'ARRAY'
                    THEN 5
                    WHEN JSON_TYPE(_v49) = 'OBJECT'
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
                        LIST_TRANSFORM(
                          [
                            LIST_TRANSFORM(
                              [COALESCE(key_3_types[1], 'NULL')],
                              LAMBDA _v51 : CASE
                                WHEN _v51 = 'NULL'
                                THEN 'null'
                                WHEN _v51 = 'BOOLEAN'
                                THEN 'boolean'
                                WHEN _v51 = 'VARCHAR'
                                THEN 'string'
                                WHEN _v51 = 'ARRAY'
                                THEN 'array'
                                WHEN _v51 = 'OBJECT'
                                THEN 'object'
                                WHEN _v51 IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                                THEN 'number'
                              END
                            )[1]
                          ],
                          LAMBDA _v52 : _v52 = 'array'
                        )[1]
                      ],
                      LAMBDA _v56 : LIST_TRANSFORM(
                        [
                          LIST_TRANSFORM(
                            [
                              LIST_TRANSFORM(
                                [COALESCE(key_3, CAST('null' AS JSON))],
                                LAMBDA _v53 : LIST_TRANSFORM(
                                  [COALESCE(key_3_types[1], 'NULL')],
                                  LAMBDA _v54 : CAST(CASE
                                    WHEN _v54 IN ('NULL')
                                    THEN 0
                                    WHEN _v54 IN ('ARRAY')
                                    THEN JSON_ARRAY_LENGTH(_v53)
                                    WHEN _v54 IN ('OBJECT')
                                    THEN LEN(JSON_KEYS(_v53))
                                    WHEN _v54 IN ('VARCHAR')
                                    THEN LENGTH(JSON_EXTRACT_STRING(_v53, '$'))
                                    WHEN _v54 IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                                    THEN ABS(TRY_CAST(_v53 AS DOUBLE))
                                  END AS DOUBLE)
                                )[1]
                              )[1]
                            ],
                            LAMBDA _v55 : 0.0 < _v55
                          )[1]
                        ],
                        LAMBDA _v57 : CASE WHEN _v56 IS NULL THEN NULL WHEN NOT _v56 THEN FALSE ELSE _v57 END
                      )[1]
                    )[1]
                  ],
                  LAMBDA _v60 : LIST_TRANSFORM(
                    [
                      LIST_TRANSFORM(
                        [
                          CASE
                            WHEN COALESCE((
                              NOT key_3_types[1] IN ('ARRAY', 'NULL')
                            ), FALSE)
                            THEN CAST(NULL AS JSON)
                            ELSE COALESCE(key_3_values[1], CAST('null' AS JSON))
                          END
                        ],
                        LAMBDA _v58 : LIST_TRANSFORM(
                          [CAST('null' AS JSON)],
                          LAMBDA _v59 : NOT (
                            CASE
                              WHEN _v58 IS NULL
                              THEN NULL
                              ELSE CASE
                                WHEN _v59 IS NULL
                                THEN NULL
                                ELSE COALESCE(
                                  (
                                    CASE
                                      WHEN (
                                        JSON_TYPE(_v58) IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                                      )
                                      AND (
                                        JSON_TYPE(_v59) IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                                      )
                                      THEN TRY_CAST(_v58 AS DOUBLE) = TRY_CAST(_v59 AS DOUBLE)
                                      ELSE CAST(_v58 AS TEXT) = CAST(_v59 AS TEXT)
                                    END
                                  ),
                                  FALSE
                                )
                              END
                            END
                          )
                        )[1]
                      )[1]
                    ],
                    LAMBDA _v61 : CASE WHEN _v60 IS NULL THEN NULL WHEN NOT _v60 THEN FALSE ELSE _v61 END
                  )[1]
                )[1]
              ],
              LAMBDA _v64 : LIST_TRANSFORM(
                [
                  LIST_TRANSFORM(
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
                    LAMBDA _v62 : LIST_TRANSFORM(
                      [CAST('null' AS JSON)],
                      LAMBDA _v63 : NOT (
                        CASE
                          WHEN _v62 IS NULL
                          THEN NULL
                          ELSE CASE
                            WHEN _v63 IS NULL
                            THEN NULL
                            ELSE COALESCE(
                              (
                                CASE
                                  WHEN (
                                    JSON_TYPE(_v62) IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                                  )
                                  AND (
                                    JSON_TYPE(_v63) IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                                  )
                                  THEN TRY_CAST(_v62 AS DOUBLE) = TRY_CAST(_v63 AS DOUBLE)
                                  ELSE CAST(_v62 AS TEXT) = CAST(_v63 AS TEXT)
                                END
                              ),
                              FALSE
                            )
                          END
                        END
                      )
                    )[1]
                  )[1]
                ],
                LAMBDA _v65 : CASE WHEN _v64 IS NULL THEN NULL WHEN NOT _v64 THEN FALSE ELSE _v65 END
              )[1]
            )[1]
          ],
          LAMBDA _v67 : CASE
            WHEN _v67 IS NULL
            THEN NULL
            WHEN _v67
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
              LAMBDA _v66 : CASE
                WHEN _v66 IS NULL
                THEN NULL
                ELSE CASE
                  WHEN JSON_TYPE(_v66) IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                  THEN 0.5 < TRY_CAST(_v66 AS DOUBLE)
                  ELSE CASE
                    WHEN JSON_TYPE(_v66) = 'NULL'
                    THEN 0
                    WHEN JSON_TYPE(_v66) = 'BOOLEAN'
                    THEN CASE WHEN CAST(_v66 AS TEXT) = 'true' THEN 2 ELSE 1 END
                    WHEN JSON_TYPE(_v66) = 'VARCHAR'
                    THEN 4
                    WHEN JSON_TYPE(_v66) = 'ARRAY'
                    THEN 5
                    WHEN JSON_TYPE(_v66) = 'OBJECT'
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
                        LIST_TRANSFORM(
                          [
                            LIST_TRANSFORM(
                              [COALESCE(key_4_types[1], 'NULL')],
                              LAMBDA _v68 : CASE
                                WHEN _v68 = 'NULL'
                                THEN 'null'
                                WHEN _v68 = 'BOOLEAN'
                                THEN 'boolean'
                                WHEN _v68 = 'VARCHAR'
                                THEN 'string'
                                WHEN _v68 = 'ARRAY'
                                THEN 'array'
                                WHEN _v68 = 'OBJECT'
                                THEN 'object'
                                WHEN _v68 IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                                THEN 'number'
                              END
                            )[1]
                          ],
                          LAMBDA _v69 : _v69 = 'array'
                        )[1]
                      ],
                      LAMBDA _v73 : LIST_TRANSFORM(
                        [
                          LIST_TRANSFORM(
                            [
                              LIST_TRANSFORM(
                                [COALESCE(key_4, CAST('null' AS JSON))],
                                LAMBDA _v70 : LIST_TRANSFORM(
                                  [COALESCE(key_4_types[1], 'NULL')],
                                  LAMBDA _v71 : CAST(CASE
                                    WHEN _v71 IN ('NULL')
                                    THEN 0
                                    WHEN _v71 IN ('ARRAY')
                                    THEN JSON_ARRAY_LENGTH(_v70)
                                    WHEN _v71 IN ('OBJECT')
                                    THEN LEN(JSON_KEYS(_v70))
                                    WHEN _v71 IN ('VARCHAR')
                                    THEN LENGTH(JSON_EXTRACT_STRING(_v70, '$'))
                                    WHEN _v71 IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                                    THEN ABS(TRY_CAST(_v70 AS DOUBLE))
                                  END AS DOUBLE)
                                )[1]
                              )[1]
                            ],
                            LAMBDA _v72 : 0.0 < _v72
                          )[1]
                        ],
                        LAMBDA _v74 : CASE WHEN _v73 IS NULL THEN NULL WHEN NOT _v73 THEN FALSE ELSE _v74 END
                      )[1]
                    )[1]
                  ],
                  LAMBDA _v77 : LIST_TRANSFORM(
                    [
                      LIST_TRANSFORM(
                        [
                          CASE
                            WHEN COALESCE((
                              NOT key_4_types[1] IN ('ARRAY', 'NULL')
                            ), FALSE)
                            THEN CAST(NULL AS JSON)
                            ELSE COALESCE(key_4_values[1], CAST('null' AS JSON))
                          END
                        ],
                        LAMBDA _v75 : LIST_TRANSFORM(
                          [CAST('null' AS JSON)],
                          LAMBDA _v76 : NOT (
                            CASE
                              WHEN _v75 IS NULL
                              THEN NULL
                              ELSE CASE
                                WHEN _v76 IS NULL
                                THEN NULL
                                ELSE COALESCE(
                                  (
                                    CASE
                                      WHEN (
                                        JSON_TYPE(_v75) IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                                      )
                                      AND (
                                        JSON_TYPE(_v76) IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                                      )
                                      THEN TRY_CAST(_v75 AS DOUBLE) = TRY_CAST(_v76 AS DOUBLE)
                                      ELSE CAST(_v75 AS TEXT) = CAST(_v76 AS TEXT)
                                    END
                                  ),
                                  FALSE
                                )
                              END
                            END
                          )
                        )[1]
                      )[1]
                    ],
                    LAMBDA _v78 : CASE WHEN _v77 IS NULL THEN NULL WHEN NOT _v77 THEN FALSE ELSE _v78 END
                  )[1]
                )[1]
              ],
              LAMBDA _v81 : LIST_TRANSFORM(
                [
                  LIST_TRANSFORM(
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
                    LAMBDA _v79 : LIST_TRANSFORM(
                      [CAST('null' AS JSON)],
                      LAMBDA _v80 : NOT (
                        CASE
                          WHEN _v79 IS NULL
                          THEN NULL
                          ELSE CASE
                            WHEN _v80 IS NULL
                            THEN NULL
                            ELSE COALESCE(
                              (
                                CASE
                                  WHEN (
                                    JSON_TYPE(_v79) IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                                  )
                                  AND (
                                    JSON_TYPE(_v80) IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                                  )
                                  THEN TRY_CAST(_v79 AS DOUBLE) = TRY_CAST(_v80 AS DOUBLE)
                                  ELSE CAST(_v79 AS TEXT) = CAST(_v80 AS TEXT)
                                END
                              ),
                              FALSE
                            )
                          END
                        END
                      )
                    )[1]
                  )[1]
                ],
                LAMBDA _v82 : CASE WHEN _v81 IS NULL THEN NULL WHEN NOT _v81 THEN FALSE ELSE _v82 END
              )[1]
            )[1]
          ],
          LAMBDA _v84 : CASE
            WHEN _v84 IS NULL
            THEN NULL
            WHEN _v84
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
              LAMBDA _v83 : CASE
                WHEN _v83 IS NULL
                THEN NULL
                ELSE CASE
                  WHEN JSON_TYPE(_v83) IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                  THEN TRY_CAST(_v83 AS DOUBLE) < 50.0
                  ELSE CASE
                    WHEN JSON_TYPE(_v83) = 'NULL'
                    THEN 0
                    WHEN JSON_TYPE(_v83) = 'BOOLEAN'
                    THEN CASE WHEN CAST(_v83 AS TEXT) = 'true' THEN 2 ELSE 1 END
                    WHEN JSON_TYPE(_v83) = 'VARCHAR'
                    THEN 4
                    WHEN JSON_TYPE(_v83) = 'ARRAY'
                    THEN 5
                    WHEN JSON_TYPE(_v83) = 'OBJECT'
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
                        LIST_TRANSFORM(
                          [
                            LIST_TRANSFORM(
                              [COALESCE(key_5_types[1], 'NULL')],
                              LAMBDA _v85 : CASE
                                WHEN _v85 = 'NULL'
                                THEN 'null'
                                WHEN _v85 = 'BOOLEAN'
                                THEN 'boolean'
                                WHEN _v85 = 'VARCHAR'
                                THEN 'string'
                                WHEN _v85 = 'ARRAY'
                                THEN 'array'
                                WHEN _v85 = 'OBJECT'
                                THEN 'object'
                                WHEN _v85 IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                                THEN 'number'
                              END
                            )[1]
                          ],
                          LAMBDA _v86 : _v86 = 'array'
                        )[1]
                      ],
                      LAMBDA _v90 : LIST_TRANSFORM(
                        [
                          LIST_TRANSFORM(
                            [
                              LIST_TRANSFORM(
                                [COALESCE(key_5, CAST('null' AS JSON))],
                                LAMBDA _v87 : LIST_TRANSFORM(
                                  [COALESCE(key_5_types[1], 'NULL')],
                                  LAMBDA _v88 : CAST(CASE
                                    WHEN _v88 IN ('NULL')
                                    THEN 0
                                    WHEN _v88 IN ('ARRAY')
                                    THEN JSON_ARRAY_LENGTH(_v87)
                                    WHEN _v88 IN ('OBJECT')
                                    THEN LEN(JSON_KEYS(_v87))
                                    WHEN _v88 IN ('VARCHAR')
                                    THEN LENGTH(JSON_EXTRACT_STRING(_v87, '$'))
                                    WHEN _v88 IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                                    THEN ABS(TRY_CAST(_v87 AS DOUBLE))
                                  END AS DOUBLE)
                                )[1]
                              )[1]
                            ],
                            LAMBDA _v89 : 0.0 < _v89
                          )[1]
                        ],
                        LAMBDA _v91 : CASE WHEN _v90 IS NULL THEN NULL WHEN NOT _v90 THEN FALSE ELSE _v91 END
                      )[1]
                    )[1]
                  ],
                  LAMBDA _v94 : LIST_TRANSFORM(
                    [
                      LIST_TRANSFORM(
                        [
                          CASE
                            WHEN COALESCE((
                              NOT key_5_types[1] IN ('ARRAY', 'NULL')
                            ), FALSE)
                            THEN CAST(NULL AS JSON)
                            ELSE COALESCE(key_5_values[1], CAST('null' AS JSON))
                          END
                        ],
                        LAMBDA _v92 : LIST_TRANSFORM(
                          [CAST('null' AS JSON)],
                          LAMBDA _v93 : NOT (
                            CASE
                              WHEN _v92 IS NULL
                              THEN NULL
                              ELSE CASE
                                WHEN _v93 IS NULL
                                THEN NULL
                                ELSE COALESCE(
                                  (
                                    CASE
                                      WHEN (
                                        JSON_TYPE(_v92) IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                                      )
                                      AND (
                                        JSON_TYPE(_v93) IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                                      )
                                      THEN TRY_CAST(_v92 AS DOUBLE) = TRY_CAST(_v93 AS DOUBLE)
                                      ELSE CAST(_v92 AS TEXT) = CAST(_v93 AS TEXT)
                                    END
                                  ),
                                  FALSE
                                )
                              END
                            END
                          )
                        )[1]
                      )[1]
                    ],
                    LAMBDA _v95 : CASE WHEN _v94 IS NULL THEN NULL WHEN NOT _v94 THEN FALSE ELSE _v95 END
                  )[1]
                )[1]
              ],
              LAMBDA _v98 : LIST_TRANSFORM(
                [
                  LIST_TRANSFORM(
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
                    LAMBDA _v96 : LIST_TRANSFORM(
                      [CAST('null' AS JSON)],
                      LAMBDA _v97 : NOT (
                        CASE
                          WHEN _v96 IS NULL
                          THEN NULL
                          ELSE CASE
                            WHEN _v97 IS NULL
                            THEN NULL
                            ELSE COALESCE(
                              (
                                CASE
                                  WHEN (
                                    JSON_TYPE(_v96) IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                                  )
                                  AND (
                                    JSON_TYPE(_v97) IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                                  )
                                  THEN TRY_CAST(_v96 AS DOUBLE) = TRY_CAST(_v97 AS DOUBLE)
                                  ELSE CAST(_v96 AS TEXT) = CAST(_v97 AS TEXT)
                                END
                              ),
                              FALSE
                            )
                          END
                        END
                      )
                    )[1]
                  )[1]
                ],
                LAMBDA _v99 : CASE WHEN _v98 IS NULL THEN NULL WHEN NOT _v98 THEN FALSE ELSE _v99 END
              )[1]
            )[1]
          ],
          LAMBDA _v101 : CASE
            WHEN _v101 IS NULL
            THEN NULL
            WHEN _v101
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
              LAMBDA _v100 : CASE
                WHEN _v100 IS NULL
                THEN NULL
                ELSE CASE
                  WHEN JSON_TYPE(_v100) IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                  THEN 0.1 < TRY_CAST(_v100 AS DOUBLE)
                  ELSE CASE
                    WHEN JSON_TYPE(_v100) = 'NULL'
                    THEN 0
                    WHEN JSON_TYPE(_v100) = 'BOOLEAN'
                    THEN CASE WHEN CAST(_v100 AS TEXT) = 'true' THEN 2 ELSE 1 END
                    WHEN JSON_TYPE(_v100) = 'VARCHAR'
                    THEN 4
                    WHEN JSON_TYPE(_v100) = 'ARRAY'
                    THEN 5
                    WHEN JSON_TYPE(_v100) = 'OBJECT'
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
                        LIST_TRANSFORM(
                          [
                            LIST_TRANSFORM(
                              [COALESCE(key_6_types[1], 'NULL')],
                              LAMBDA _v102 : CASE
                                WHEN _v102 = 'NULL'
                                THEN 'null'
                                WHEN _v102 = 'BOOLEAN'
                                THEN 'boolean'
                                WHEN _v102 = 'VARCHAR'
                                THEN 'string'
                                WHEN _v102 = 'ARRAY'
                                THEN 'array'
                                WHEN _v102 = 'OBJECT'
                                THEN 'object'
                                WHEN _v102 IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                                THEN 'number'
                              END
                            )[1]
                          ],
                          LAMBDA _v103 : _v103 = 'array'
                        )[1]
                      ],
                      LAMBDA _v107 : LIST_TRANSFORM(
                        [
                          LIST_TRANSFORM(
                            [
                              LIST_TRANSFORM(
                                [COALESCE(key_6, CAST('null' AS JSON))],
                                LAMBDA _v104 : LIST_TRANSFORM(
                                  [COALESCE(key_6_types[1], 'NULL')],
                                  LAMBDA _v105 : CAST(CASE
                                    WHEN _v105 IN ('NULL')
                                    THEN 0
                                    WHEN _v105 IN ('ARRAY')
                                    THEN JSON_ARRAY_LENGTH(_v104)
                                    WHEN _v105 IN ('OBJECT')
                                    THEN LEN(JSON_KEYS(_v104))
                                    WHEN _v105 IN ('VARCHAR')
                                    THEN LENGTH(JSON_EXTRACT_STRING(_v104, '$'))
                                    WHEN _v105 IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                                    THEN ABS(TRY_CAST(_v104 AS DOUBLE))
                                  END AS DOUBLE)
                                )[1]
                              )[1]
                            ],
                            LAMBDA _v106 : 0.0 < _v106
                          )[1]
                        ],
                        LAMBDA _v108 : CASE WHEN _v107 IS NULL THEN NULL WHEN NOT _v107 THEN FALSE ELSE _v108 END
                      )[1]
                    )[1]
                  ],
                  LAMBDA _v111 : LIST_TRANSFORM(
                    [
                      LIST_TRANSFORM(
                        [
                          CASE
                            WHEN COALESCE((
                              NOT key_6_types[1] IN ('ARRAY', 'NULL')
                            ), FALSE)
                            THEN CAST(NULL AS JSON)
                            ELSE COALESCE(key_6_values[1], CAST('null' AS JSON))
                          END
                        ],
                        LAMBDA _v109 : LIST_TRANSFORM(
                          [CAST('null' AS JSON)],
                          LAMBDA _v110 : NOT (
                            CASE
                              WHEN _v109 IS NULL
                              THEN NULL
                              ELSE CASE
                                WHEN _v110 IS NULL
                                THEN NULL
                                ELSE COALESCE(
                                  (
                                    CASE
                                      WHEN (
                                        JSON_TYPE(_v109) IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                                      )
                                      AND (
                                        JSON_TYPE(_v110) IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                                      )
                                      THEN TRY_CAST(_v109 AS DOUBLE) = TRY_CAST(_v110 AS DOUBLE)
                                      ELSE CAST(_v109 AS TEXT) = CAST(_v110 AS TEXT)
                                    END
                                  ),
                                  FALSE
                                )
                              END
                            END
                          )
                        )[1]
                      )[1]
                    ],
                    LAMBDA _v112 : CASE WHEN _v111 IS NULL THEN NULL WHEN NOT _v111 THEN FALSE ELSE _v112 END
                  )[1]
                )[1]
              ],
              LAMBDA _v115 : LIST_TRANSFORM(
                [
                  LIST_TRANSFORM(
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
                    LAMBDA _v113 : LIST_TRANSFORM(
                      [CAST('null' AS JSON)],
                      LAMBDA _v114 : NOT (
                        CASE
                          WHEN _v113 IS NULL
                          THEN NULL
                          ELSE CASE
                            WHEN _v114 IS NULL
                            THEN NULL
                            ELSE COALESCE(
                              (
                                CASE
                                  WHEN (
                                    JSON_TYPE(_v113) IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                                  )
                                  AND (
                                    JSON_TYPE(_v114) IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                                  )
                                  THEN TRY_CAST(_v113 AS DOUBLE) = TRY_CAST(_v114 AS DOUBLE)
                                  ELSE CAST(_v113 AS TEXT) = CAST(_v114 AS TEXT)
                                END
                              ),
                              FALSE
                            )
                          END
                        END
                      )
                    )[1]
                  )[1]
                ],
                LAMBDA _v116 : CASE WHEN _v115 IS NULL THEN NULL WHEN NOT _v115 THEN FALSE ELSE _v116 END
              )[1]
            )[1]
          ],
          LAMBDA _v118 : CASE
            WHEN _v118 IS NULL
            THEN NULL
            WHEN _v118
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
              LAMBDA _v117 : NOT (
                CASE
                  WHEN _v117 IS NULL
                  THEN NULL
                  ELSE CASE
                    WHEN JSON_TYPE(_v117) IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                    THEN TRY_CAST(_v117 AS DOUBLE) < 1.0
                    ELSE CASE
                      WHEN JSON_TYPE(_v117) = 'NULL'
                      THEN 0
                      WHEN JSON_TYPE(_v117) = 'BOOLEAN'
                      THEN CASE WHEN CAST(_v117 AS TEXT) = 'true' THEN 2 ELSE 1 END
                      WHEN JSON_TYPE(_v117) = 'VARCHAR'
                      THEN 4
                      WHEN JSON_TYPE(_v117) = 'ARRAY'
                      THEN 5
                      WHEN JSON_TYPE(_v117) = 'OBJECT'
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
                        LIST_TRANSFORM(
                          [
                            LIST_TRANSFORM(
                              [COALESCE(key_7_types[1], 'NULL')],
                              LAMBDA _v119 : CASE
                                WHEN _v119 = 'NULL'
                                THEN 'null'
                                WHEN _v119 = 'BOOLEAN'
                                THEN 'boolean'
                                WHEN _v119 = 'VARCHAR'
                                THEN 'string'
                                WHEN _v119 = 'ARRAY'
                                THEN 'array'
                                WHEN _v119 = 'OBJECT'
                                THEN 'object'
                                WHEN _v119 IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                                THEN 'number'
                              END
                            )[1]
                          ],
                          LAMBDA _v120 : _v120 = 'array'
                        )[1]
                      ],
                      LAMBDA _v124 : LIST_TRANSFORM(
                        [
                          LIST_TRANSFORM(
                            [
                              LIST_TRANSFORM(
                                [COALESCE(key_7, CAST('null' AS JSON))],
                                LAMBDA _v121 : LIST_TRANSFORM(
                                  [COALESCE(key_7_types[1], 'NULL')],
                                  LAMBDA _v122 : CAST(CASE
                                    WHEN _v122 IN ('NULL')
                                    THEN 0
                                    WHEN _v122 IN ('ARRAY')
                                    THEN JSON_ARRAY_LENGTH(_v121)
                                    WHEN _v122 IN ('OBJECT')
                                    THEN LEN(JSON_KEYS(_v121))
                                    WHEN _v122 IN ('VARCHAR')
                                    THEN LENGTH(JSON_EXTRACT_STRING(_v121, '$'))
                                    WHEN _v122 IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                                    THEN ABS(TRY_CAST(_v121 AS DOUBLE))
                                  END AS DOUBLE)
                                )[1]
                              )[1]
                            ],
                            LAMBDA _v123 : 0.0 < _v123
                          )[1]
                        ],
                        LAMBDA _v125 : CASE WHEN _v124 IS NULL THEN NULL WHEN NOT _v124 THEN FALSE ELSE _v125 END
                      )[1]
                    )[1]
                  ],
                  LAMBDA _v128 : LIST_TRANSFORM(
                    [
                      LIST_TRANSFORM(
                        [
                          CASE
                            WHEN COALESCE((
                              NOT key_7_types[1] IN ('ARRAY', 'NULL')
                            ), FALSE)
                            THEN CAST(NULL AS JSON)
                            ELSE COALESCE(key_7_values[1], CAST('null' AS JSON))
                          END
                        ],
                        LAMBDA _v126 : LIST_TRANSFORM(
                          [CAST('null' AS JSON)],
                          LAMBDA _v127 : NOT (
                            CASE
                              WHEN _v126 IS NULL
                              THEN NULL
                              ELSE CASE
                                WHEN _v127 IS NULL
                                THEN NULL
                                ELSE COALESCE(
                                  (
                                    CASE
                                      WHEN (
                                        JSON_TYPE(_v126) IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                                      )
                                      AND (
                                        JSON_TYPE(_v127) IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                                      )
                                      THEN TRY_CAST(_v126 AS DOUBLE) = TRY_CAST(_v127 AS DOUBLE)
                                      ELSE CAST(_v126 AS TEXT) = CAST(_v127 AS TEXT)
                                    END
                                  ),
                                  FALSE
                                )
                              END
                            END
                          )
                        )[1]
                      )[1]
                    ],
                    LAMBDA _v129 : CASE WHEN _v128 IS NULL THEN NULL WHEN NOT _v128 THEN FALSE ELSE _v129 END
                  )[1]
                )[1]
              ],
              LAMBDA _v132 : LIST_TRANSFORM(
                [
                  LIST_TRANSFORM(
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
                    LAMBDA _v130 : LIST_TRANSFORM(
                      [CAST('null' AS JSON)],
                      LAMBDA _v131 : NOT (
                        CASE
                          WHEN _v130 IS NULL
                          THEN NULL
                          ELSE CASE
                            WHEN _v131 IS NULL
                            THEN NULL
                            ELSE COALESCE(
                              (
                                CASE
                                  WHEN (
                                    JSON_TYPE(_v130) IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                                  )
                                  AND (
                                    JSON_TYPE(_v131) IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                                  )
                                  THEN TRY_CAST(_v130 AS DOUBLE) = TRY_CAST(_v131 AS DOUBLE)
                                  ELSE CAST(_v130 AS TEXT) = CAST(_v131 AS TEXT)
                                END
                              ),
                              FALSE
                            )
                          END
                        END
                      )
                    )[1]
                  )[1]
                ],
                LAMBDA _v133 : CASE WHEN _v132 IS NULL THEN NULL WHEN NOT _v132 THEN FALSE ELSE _v133 END
              )[1]
            )[1]
          ],
          LAMBDA _v135 : CASE
            WHEN _v135 IS NULL
            THEN NULL
            WHEN _v135
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
              LAMBDA _v134 : CASE
                WHEN _v134 IS NULL
                THEN NULL
                ELSE CASE
                  WHEN JSON_TYPE(_v134) IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                  THEN 0.5 < TRY_CAST(_v134 AS DOUBLE)
                  ELSE CASE
                    WHEN JSON_TYPE(_v134) = 'NULL'
                    THEN 0
                    WHEN JSON_TYPE(_v134) = 'BOOLEAN'
                    THEN CASE WHEN CAST(_v134 AS TEXT) = 'true' THEN 2 ELSE 1 END
                    WHEN JSON_TYPE(_v134) = 'VARCHAR'
                    THEN 4
                    WHEN JSON_TYPE(_v134) = 'ARRAY'
                    THEN 5
                    WHEN JSON_TYPE(_v134) = 'OBJECT'
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
                        LIST_TRANSFORM(
                          [
                            LIST_TRANSFORM(
                              [COALESCE(key_8_types[1], 'NULL')],
                              LAMBDA _v136 : CASE
                                WHEN _v136 = 'NULL'
                                THEN 'null'
                                WHEN _v136 = 'BOOLEAN'
                                THEN 'boolean'
                                WHEN _v136 = 'VARCHAR'
                                THEN 'string'
                                WHEN _v136 = 'ARRAY'
                                THEN 'array'
                                WHEN _v136 = 'OBJECT'
                                THEN 'object'
                                WHEN _v136 IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                                THEN 'number'
                              END
                            )[1]
                          ],
                          LAMBDA _v137 : _v137 = 'array'
                        )[1]
                      ],
                      LAMBDA _v141 : LIST_TRANSFORM(
                        [
                          LIST_TRANSFORM(
                            [
                              LIST_TRANSFORM(
                                [COALESCE(key_8, CAST('null' AS JSON))],
                                LAMBDA _v138 : LIST_TRANSFORM(
                                  [COALESCE(key_8_types[1], 'NULL')],
                                  LAMBDA _v139 : CAST(CASE
                                    WHEN _v139 IN ('NULL')
                                    THEN 0
                                    WHEN _v139 IN ('ARRAY')
                                    THEN JSON_ARRAY_LENGTH(_v138)
                                    WHEN _v139 IN ('OBJECT')
                                    THEN LEN(JSON_KEYS(_v138))
                                    WHEN _v139 IN ('VARCHAR')
                                    THEN LENGTH(JSON_EXTRACT_STRING(_v138, '$'))
                                    WHEN _v139 IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                                    THEN ABS(TRY_CAST(_v138 AS DOUBLE))
                                  END AS DOUBLE)
                                )[1]
                              )[1]
                            ],
                            LAMBDA _v140 : 0.0 < _v140
                          )[1]
                        ],
                        LAMBDA _v142 : CASE WHEN _v141 IS NULL THEN NULL WHEN NOT _v141 THEN FALSE ELSE _v142 END
                      )[1]
                    )[1]
                  ],
                  LAMBDA _v145 : LIST_TRANSFORM(
                    [
                      LIST_TRANSFORM(
                        [
                          CASE
                            WHEN COALESCE((
                              NOT key_8_types[1] IN ('ARRAY', 'NULL')
                            ), FALSE)
                            THEN CAST(NULL AS JSON)
                            ELSE COALESCE(key_8_values[1], CAST('null' AS JSON))
                          END
                        ],
                        LAMBDA _v143 : LIST_TRANSFORM(
                          [CAST('null' AS JSON)],
                          LAMBDA _v144 : NOT (
                            CASE
                              WHEN _v143 IS NULL
                              THEN NULL
                              ELSE CASE
                                WHEN _v144 IS NULL
                                THEN NULL
                                ELSE COALESCE(
                                  (
                                    CASE
                                      WHEN (
                                        JSON_TYPE(_v143) IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                                      )
                                      AND (
                                        JSON_TYPE(_v144) IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                                      )
                                      THEN TRY_CAST(_v143 AS DOUBLE) = TRY_CAST(_v144 AS DOUBLE)
                                      ELSE CAST(_v143 AS TEXT) = CAST(_v144 AS TEXT)
                                    END
                                  ),
                                  FALSE
                                )
                              END
                            END
                          )
                        )[1]
                      )[1]
                    ],
                    LAMBDA _v146 : CASE WHEN _v145 IS NULL THEN NULL WHEN NOT _v145 THEN FALSE ELSE _v146 END
                  )[1]
                )[1]
              ],
              LAMBDA _v149 : LIST_TRANSFORM(
                [
                  LIST_TRANSFORM(
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
                    LAMBDA _v147 : LIST_TRANSFORM(
                      [CAST('null' AS JSON)],
                      LAMBDA _v148 : NOT (
                        CASE
                          WHEN _v147 IS NULL
                          THEN NULL
                          ELSE CASE
                            WHEN _v148 IS NULL
                            THEN NULL
                            ELSE COALESCE(
                              (
                                CASE
                                  WHEN (
                                    JSON_TYPE(_v147) IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                                  )
                                  AND (
                                    JSON_TYPE(_v148) IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                                  )
                                  THEN TRY_CAST(_v147 AS DOUBLE) = TRY_CAST(_v148 AS DOUBLE)
                                  ELSE CAST(_v147 AS TEXT) = CAST(_v148 AS TEXT)
                                END
                              ),
                              FALSE
                            )
                          END
                        END
                      )
                    )[1]
                  )[1]
                ],
                LAMBDA _v150 : CASE WHEN _v149 IS NULL THEN NULL WHEN NOT _v149 THEN FALSE ELSE _v150 END
              )[1]
            )[1]
          ],
          LAMBDA _v152 : CASE
            WHEN _v152 IS NULL
            THEN NULL
            WHEN _v152
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
              LAMBDA _v151 : CASE
                WHEN _v151 IS NULL
                THEN NULL
                ELSE CASE
                  WHEN JSON_TYPE(_v151) IN ('UBIGINT', 'BIGINT', 'DOUBLE', 'HUGEINT', 'UHUGEINT')
                  THEN 0.3 < TRY_CAST(_v151 AS DOUBLE)
                  ELSE CASE
                    WHEN JSON_TYPE(_v151) = 'NULL'
                    THEN 0
                    WHEN JSON_TYPE(_v151) = 'BOOLEAN'
                    THEN CASE WHEN CAST(_v151 AS TEXT) = 'true' THEN 2 ELSE 1 END
                    WHEN JSON_TYPE(_v151) = 'VARCHAR'
                    THEN 4
                    WHEN JSON_TYPE(_v151) = 'ARRAY'
                    THEN 5
                    WHEN JSON_TYPE(_v151) = 'OBJECT'
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
