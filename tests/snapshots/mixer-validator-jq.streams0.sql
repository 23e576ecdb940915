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
    key_0_0,
    key_0_1,
    key_1_2,
    key_1_3,
    key_2_4,
    key_2_5,
    key_3_6,
    key_3_7,
    key_4_8,
    key_4_9,
    key_5_10,
    key_5_11,
    key_6_12,
    key_6_13,
    key_7_14,
    key_7_15,
    key_8_16,
    key_8_17,
    CASE
      WHEN COALESCE(
        LIST_TRANSFORM(
          [
            (
              (
                STARTS_WITH(CAST(COALESCE(key_0, CAST('null' AS JSON)) AS TEXT), '[')
                AND (
                  CAST(COALESCE(key_0, CAST('null' AS JSON)) AS TEXT) <> '[]'
                )
              )
              AND (
                NOT (
                  CAST(COALESCE(key_0_1, CAST('null' AS JSON)) AS TEXT) = 'null'
                )
              )
            )
            AND (
              CASE
                WHEN CASE
                  WHEN NOT key_0_0 IS NULL
                  THEN FALSE
                  ELSE COALESCE(
                    (
                      NOT (
                        STARTS_WITH(CAST(key_0_1 AS TEXT), '[') OR (
                          CAST(key_0_1 AS TEXT) = 'null'
                        )
                      )
                    ),
                    FALSE
                  )
                END
                THEN NULL
                ELSE NOT (
                  CAST(COALESCE(key_0_0, CAST('null' AS JSON)) AS TEXT) = 'null'
                )
              END
            )
          ],
          LAMBDA _v1 : CASE
            WHEN _v1 IS NULL
            THEN NULL
            WHEN _v1
            THEN COALESCE(
              TRY_CAST(CAST(COALESCE(key_0_0, CAST('null' AS JSON)) AS TEXT) AS DOUBLE) < 0.8,
              CASE
                WHEN CAST(COALESCE(key_0_0, CAST('null' AS JSON)) AS TEXT) = 'null'
                THEN 0
                WHEN CAST(COALESCE(key_0_0, CAST('null' AS JSON)) AS TEXT) = 'false'
                THEN 1
                WHEN CAST(COALESCE(key_0_0, CAST('null' AS JSON)) AS TEXT) = 'true'
                THEN 2
                WHEN STARTS_WITH(CAST(COALESCE(key_0_0, CAST('null' AS JSON)) AS TEXT), '"')
                THEN 4
                WHEN STARTS_WITH(CAST(COALESCE(key_0_0, CAST('null' AS JSON)) AS TEXT), '[')
                THEN 5
                WHEN STARTS_WITH(CAST(COALESCE(key_0_0, CAST('null' AS JSON)) AS TEXT), '{')
                THEN 6
                ELSE 3
              END < 3
            )
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
            (
              (
                STARTS_WITH(CAST(COALESCE(key_1, CAST('null' AS JSON)) AS TEXT), '[')
                AND (
                  CAST(COALESCE(key_1, CAST('null' AS JSON)) AS TEXT) <> '[]'
                )
              )
              AND (
                NOT (
                  CAST(COALESCE(key_1_3, CAST('null' AS JSON)) AS TEXT) = 'null'
                )
              )
            )
            AND (
              CASE
                WHEN CASE
                  WHEN NOT key_1_2 IS NULL
                  THEN FALSE
                  ELSE COALESCE(
                    (
                      NOT (
                        STARTS_WITH(CAST(key_1_3 AS TEXT), '[') OR (
                          CAST(key_1_3 AS TEXT) = 'null'
                        )
                      )
                    ),
                    FALSE
                  )
                END
                THEN NULL
                ELSE NOT (
                  CAST(COALESCE(key_1_2, CAST('null' AS JSON)) AS TEXT) = 'null'
                )
              END
            )
          ],
          LAMBDA _v3 : CASE
            WHEN _v3 IS NULL
            THEN NULL
            WHEN _v3
            THEN COALESCE(
              TRY_CAST(CAST(COALESCE(key_1_2, CAST('null' AS JSON)) AS TEXT) AS DOUBLE) < 0.8,
              CASE
                WHEN CAST(COALESCE(key_1_2, CAST('null' AS JSON)) AS TEXT) = 'null'
                THEN 0
                WHEN CAST(COALESCE(key_1_2, CAST('null' AS JSON)) AS TEXT) = 'false'
                THEN 1
                WHEN CAST(COALESCE(key_1_2, CAST('null' AS JSON)) AS TEXT) = 'true'
                THEN 2
                WHEN STARTS_WITH(CAST(COALESCE(key_1_2, CAST('null' AS JSON)) AS TEXT), '"')
                THEN 4
                WHEN STARTS_WITH(CAST(COALESCE(key_1_2, CAST('null' AS JSON)) AS TEXT), '[')
                THEN 5
                WHEN STARTS_WITH(CAST(COALESCE(key_1_2, CAST('null' AS JSON)) AS TEXT), '{')
                THEN 6
                ELSE 3
              END < 3
            )
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
            (
              (
                STARTS_WITH(CAST(COALESCE(key_2, CAST('null' AS JSON)) AS TEXT), '[')
                AND (
                  CAST(COALESCE(key_2, CAST('null' AS JSON)) AS TEXT) <> '[]'
                )
              )
              AND (
                NOT (
                  CAST(COALESCE(key_2_5, CAST('null' AS JSON)) AS TEXT) = 'null'
                )
              )
            )
            AND (
              CASE
                WHEN CASE
                  WHEN NOT key_2_4 IS NULL
                  THEN FALSE
                  ELSE COALESCE(
                    (
                      NOT (
                        STARTS_WITH(CAST(key_2_5 AS TEXT), '[') OR (
                          CAST(key_2_5 AS TEXT) = 'null'
                        )
                      )
                    ),
                    FALSE
                  )
                END
                THEN NULL
                ELSE NOT (
                  CAST(COALESCE(key_2_4, CAST('null' AS JSON)) AS TEXT) = 'null'
                )
              END
            )
          ],
          LAMBDA _v5 : CASE
            WHEN _v5 IS NULL
            THEN NULL
            WHEN _v5
            THEN COALESCE(
              TRY_CAST(CAST(COALESCE(key_2_4, CAST('null' AS JSON)) AS TEXT) AS DOUBLE) < 100.0,
              CASE
                WHEN CAST(COALESCE(key_2_4, CAST('null' AS JSON)) AS TEXT) = 'null'
                THEN 0
                WHEN CAST(COALESCE(key_2_4, CAST('null' AS JSON)) AS TEXT) = 'false'
                THEN 1
                WHEN CAST(COALESCE(key_2_4, CAST('null' AS JSON)) AS TEXT) = 'true'
                THEN 2
                WHEN STARTS_WITH(CAST(COALESCE(key_2_4, CAST('null' AS JSON)) AS TEXT), '"')
                THEN 4
                WHEN STARTS_WITH(CAST(COALESCE(key_2_4, CAST('null' AS JSON)) AS TEXT), '[')
                THEN 5
                WHEN STARTS_WITH(CAST(COALESCE(key_2_4, CAST('null' AS JSON)) AS TEXT), '{')
                THEN 6
                ELSE 3
              END < 3
            )
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
            (
              (
                STARTS_WITH(CAST(COALESCE(key_3, CAST('null' AS JSON)) AS TEXT), '[')
                AND (
                  CAST(COALESCE(key_3, CAST('null' AS JSON)) AS TEXT) <> '[]'
                )
              )
              AND (
                NOT (
                  CAST(COALESCE(key_3_7, CAST('null' AS JSON)) AS TEXT) = 'null'
                )
              )
            )
            AND (
              CASE
                WHEN CASE
                  WHEN NOT key_3_6 IS NULL
                  THEN FALSE
                  ELSE COALESCE(
                    (
                      NOT (
                        STARTS_WITH(CAST(key_3_7 AS TEXT), '[') OR (
                          CAST(key_3_7 AS TEXT) = 'null'
                        )
                      )
                    ),
                    FALSE
                  )
                END
                THEN NULL
                ELSE NOT (
                  CAST(COALESCE(key_3_6, CAST('null' AS JSON)) AS TEXT) = 'null'
                )
              END
            )
          ],
          LAMBDA _v7 : CASE
            WHEN _v7 IS NULL
            THEN NULL
            WHEN _v7
            THEN COALESCE(
              0.5 < TRY_CAST(CAST(COALESCE(key_3_6, CAST('null' AS JSON)) AS TEXT) AS DOUBLE),
              CASE
                WHEN CAST(COALESCE(key_3_6, CAST('null' AS JSON)) AS TEXT) = 'null'
                THEN 0
                WHEN CAST(COALESCE(key_3_6, CAST('null' AS JSON)) AS TEXT) = 'false'
                THEN 1
                WHEN CAST(COALESCE(key_3_6, CAST('null' AS JSON)) AS TEXT) = 'true'
                THEN 2
                WHEN STARTS_WITH(CAST(COALESCE(key_3_6, CAST('null' AS JSON)) AS TEXT), '"')
                THEN 4
                WHEN STARTS_WITH(CAST(COALESCE(key_3_6, CAST('null' AS JSON)) AS TEXT), '[')
                THEN 5
                WHEN STARTS_WITH(CAST(COALESCE(key_3_6, CAST('null' AS JSON)) AS TEXT), '{')
                THEN 6
                ELSE 3
              END > 3
            )
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
            (
              (
                STARTS_WITH(CAST(COALESCE(key_4, CAST('null' AS JSON)) AS TEXT), '[')
                AND (
                  CAST(COALESCE(key_4, CAST('null' AS JSON)) AS TEXT) <> '[]'
                )
              )
              AND (
                NOT (
                  CAST(COALESCE(key_4_9, CAST('null' AS JSON)) AS TEXT) = 'null'
                )
              )
            )
            AND (
              CASE
                WHEN CASE
                  WHEN NOT key_4_8 IS NULL
                  THEN FALSE
                  ELSE COALESCE(
                    (
                      NOT (
                        STARTS_WITH(CAST(key_4_9 AS TEXT), '[') OR (
                          CAST(key_4_9 AS TEXT) = 'null'
                        )
                      )
                    ),
                    FALSE
                  )
                END
                THEN NULL
                ELSE NOT (
                  CAST(COALESCE(key_4_8, CAST('null' AS JSON)) AS TEXT) = 'null'
                )
              END
            )
          ],
          LAMBDA _v9 : CASE
            WHEN _v9 IS NULL
            THEN NULL
            WHEN _v9
            THEN COALESCE(
              TRY_CAST(CAST(COALESCE(key_4_8, CAST('null' AS JSON)) AS TEXT) AS DOUBLE) < 50.0,
              CASE
                WHEN CAST(COALESCE(key_4_8, CAST('null' AS JSON)) AS TEXT) = 'null'
                THEN 0
                WHEN CAST(COALESCE(key_4_8, CAST('null' AS JSON)) AS TEXT) = 'false'
                THEN 1
                WHEN CAST(COALESCE(key_4_8, CAST('null' AS JSON)) AS TEXT) = 'true'
                THEN 2
                WHEN STARTS_WITH(CAST(COALESCE(key_4_8, CAST('null' AS JSON)) AS TEXT), '"')
                THEN 4
                WHEN STARTS_WITH(CAST(COALESCE(key_4_8, CAST('null' AS JSON)) AS TEXT), '[')
                THEN 5
                WHEN STARTS_WITH(CAST(COALESCE(key_4_8, CAST('null' AS JSON)) AS TEXT), '{')
                THEN 6
                ELSE 3
              END < 3
            )
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
            (
              (
                STARTS_WITH(CAST(COALESCE(key_5, CAST('null' AS JSON)) AS TEXT), '[')
                AND (
                  CAST(COALESCE(key_5, CAST('null' AS JSON)) AS TEXT) <> '[]'
                )
              )
              AND (
                NOT (
                  CAST(COALESCE(key_5_11, CAST('null' AS JSON)) AS TEXT) = 'null'
                )
              )
            )
            AND (
              CASE
                WHEN CASE
                  WHEN NOT key_5_10 IS NULL
                  THEN FALSE
                  ELSE COALESCE(
                    (
                      NOT (
                        STARTS_WITH(CAST(key_5_11 AS TEXT), '[') OR (
                          CAST(key_5_11 AS TEXT) = 'null'
                        )
                      )
                    ),
                    FALSE
                  )
                END
                THEN NULL
                ELSE NOT (
                  CAST(COALESCE(key_5_10, CAST('null' AS JSON)) AS TEXT) = 'null'
                )
              END
            )
          ],
          LAMBDA _v11 : CASE
            WHEN _v11 IS NULL
            THEN NULL
            WHEN _v11
            THEN COALESCE(
              0.1 < TRY_CAST(CAST(COALESCE(key_5_10, CAST('null' AS JSON)) AS TEXT) AS DOUBLE),
              CASE
                WHEN CAST(COALESCE(key_5_10, CAST('null' AS JSON)) AS TEXT) = 'null'
                THEN 0
                WHEN CAST(COALESCE(key_5_10, CAST('null' AS JSON)) AS TEXT) = 'false'
                THEN 1
                WHEN CAST(COALESCE(key_5_10, CAST('null' AS JSON)) AS TEXT) = 'true'
                THEN 2
                WHEN STARTS_WITH(CAST(COALESCE(key_5_10, CAST('null' AS JSON)) AS TEXT), '"')
                THEN 4
                WHEN STARTS_WITH(CAST(COALESCE(key_5_10, CAST('null' AS JSON)) AS TEXT), '[')
                THEN 5
                WHEN STARTS_WITH(CAST(COALESCE(key_5_10, CAST('null' AS JSON)) AS TEXT), '{')
                THEN 6
                ELSE 3
              END > 3
            )
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
            (
              (
                STARTS_WITH(CAST(COALESCE(key_6, CAST('null' AS JSON)) AS TEXT), '[')
                AND (
                  CAST(COALESCE(key_6, CAST('null' AS JSON)) AS TEXT) <> '[]'
                )
              )
              AND (
                NOT (
                  CAST(COALESCE(key_6_13, CAST('null' AS JSON)) AS TEXT) = 'null'
                )
              )
            )
            AND (
              CASE
                WHEN CASE
                  WHEN NOT key_6_12 IS NULL
                  THEN FALSE
                  ELSE COALESCE(
                    (
                      NOT (
                        STARTS_WITH(CAST(key_6_13 AS TEXT), '[') OR (
                          CAST(key_6_13 AS TEXT) = 'null'
                        )
                      )
                    ),
                    FALSE
                  )
                END
                THEN NULL
                ELSE NOT (
                  CAST(COALESCE(key_6_12, CAST('null' AS JSON)) AS TEXT) = 'null'
                )
              END
            )
          ],
          LAMBDA _v13 : CASE
            WHEN _v13 IS NULL
            THEN NULL
            WHEN _v13
            THEN NOT (
              COALESCE(
                TRY_CAST(CAST(COALESCE(key_6_12, CAST('null' AS JSON)) AS TEXT) AS DOUBLE) < 1.0,
                CASE
                  WHEN CAST(COALESCE(key_6_12, CAST('null' AS JSON)) AS TEXT) = 'null'
                  THEN 0
                  WHEN CAST(COALESCE(key_6_12, CAST('null' AS JSON)) AS TEXT) = 'false'
                  THEN 1
                  WHEN CAST(COALESCE(key_6_12, CAST('null' AS JSON)) AS TEXT) = 'true'
                  THEN 2
                  WHEN STARTS_WITH(CAST(COALESCE(key_6_12, CAST('null' AS JSON)) AS TEXT), '"')
                  THEN 4
                  WHEN STARTS_WITH(CAST(COALESCE(key_6_12, CAST('null' AS JSON)) AS TEXT), '[')
                  THEN 5
                  WHEN STARTS_WITH(CAST(COALESCE(key_6_12, CAST('null' AS JSON)) AS TEXT), '{')
                  THEN 6
                  ELSE 3
                END < 3
              )
            )
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
            (
              (
                STARTS_WITH(CAST(COALESCE(key_7, CAST('null' AS JSON)) AS TEXT), '[')
                AND (
                  CAST(COALESCE(key_7, CAST('null' AS JSON)) AS TEXT) <> '[]'
                )
              )
              AND (
                NOT (
                  CAST(COALESCE(key_7_15, CAST('null' AS JSON)) AS TEXT) = 'null'
                )
              )
            )
            AND (
              CASE
                WHEN CASE
                  WHEN NOT key_7_14 IS NULL
                  THEN FALSE
                  ELSE COALESCE(
                    (
                      NOT (
                        STARTS_WITH(CAST(key_7_15 AS TEXT), '[') OR (
                          CAST(key_7_15 AS TEXT) = 'null'
                        )
                      )
                    ),
                    FALSE
                  )
                END
                THEN NULL
                ELSE NOT (
                  CAST(COALESCE(key_7_14, CAST('null' AS JSON)) AS TEXT) = 'null'
                )
              END
            )
          ],
          LAMBDA _v15 : CASE
            WHEN _v15 IS NULL
            THEN NULL
            WHEN _v15
            THEN COALESCE(
              0.5 < TRY_CAST(CAST(COALESCE(key_7_14, CAST('null' AS JSON)) AS TEXT) AS DOUBLE),
              CASE
                WHEN CAST(COALESCE(key_7_14, CAST('null' AS JSON)) AS TEXT) = 'null'
                THEN 0
                WHEN CAST(COALESCE(key_7_14, CAST('null' AS JSON)) AS TEXT) = 'false'
                THEN 1
                WHEN CAST(COALESCE(key_7_14, CAST('null' AS JSON)) AS TEXT) = 'true'
                THEN 2
                WHEN STARTS_WITH(CAST(COALESCE(key_7_14, CAST('null' AS JSON)) AS TEXT), '"')
                THEN 4
                WHEN STARTS_WITH(CAST(COALESCE(key_7_14, CAST('null' AS JSON)) AS TEXT), '[')
                THEN 5
                WHEN STARTS_WITH(CAST(COALESCE(key_7_14, CAST('null' AS JSON)) AS TEXT), '{')
                THEN 6
                ELSE 3
              END > 3
            )
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
            (
              (
                STARTS_WITH(CAST(COALESCE(key_8, CAST('null' AS JSON)) AS TEXT), '[')
                AND (
                  CAST(COALESCE(key_8, CAST('null' AS JSON)) AS TEXT) <> '[]'
                )
              )
              AND (
                NOT (
                  CAST(COALESCE(key_8_17, CAST('null' AS JSON)) AS TEXT) = 'null'
                )
              )
            )
            AND (
              CASE
                WHEN CASE
                  WHEN NOT key_8_16 IS NULL
                  THEN FALSE
                  ELSE COALESCE(
                    (
                      NOT (
                        STARTS_WITH(CAST(key_8_17 AS TEXT), '[') OR (
                          CAST(key_8_17 AS TEXT) = 'null'
                        )
                      )
                    ),
                    FALSE
                  )
                END
                THEN NULL
                ELSE NOT (
                  CAST(COALESCE(key_8_16, CAST('null' AS JSON)) AS TEXT) = 'null'
                )
              END
            )
          ],
          LAMBDA _v17 : CASE
            WHEN _v17 IS NULL
            THEN NULL
            WHEN _v17
            THEN COALESCE(
              0.3 < TRY_CAST(CAST(COALESCE(key_8_16, CAST('null' AS JSON)) AS TEXT) AS DOUBLE),
              CASE
                WHEN CAST(COALESCE(key_8_16, CAST('null' AS JSON)) AS TEXT) = 'null'
                THEN 0
                WHEN CAST(COALESCE(key_8_16, CAST('null' AS JSON)) AS TEXT) = 'false'
                THEN 1
                WHEN CAST(COALESCE(key_8_16, CAST('null' AS JSON)) AS TEXT) = 'true'
                THEN 2
                WHEN STARTS_WITH(CAST(COALESCE(key_8_16, CAST('null' AS JSON)) AS TEXT), '"')
                THEN 4
                WHEN STARTS_WITH(CAST(COALESCE(key_8_16, CAST('null' AS JSON)) AS TEXT), '[')
                THEN 5
                WHEN STARTS_WITH(CAST(COALESCE(key_8_16, CAST('null' AS JSON)) AS TEXT), '{')
                THEN 6
                ELSE 3
              END > 3
            )
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
      COALESCE(attr_1_values[4], attr_0_values[4], doc_values[4]) AS key_1,
      COALESCE(attr_1_values[7], attr_0_values[7], doc_values[7]) AS key_2,
      COALESCE(attr_1_values[10], attr_0_values[10], doc_values[10]) AS key_3,
      COALESCE(attr_1_values[13], attr_0_values[13], doc_values[13]) AS key_4,
      COALESCE(attr_1_values[16], attr_0_values[16], doc_values[16]) AS key_5,
      COALESCE(attr_1_values[19], attr_0_values[19], doc_values[19]) AS key_6,
      COALESCE(attr_1_values[22], attr_0_values[22], doc_values[22]) AS key_7,
      COALESCE(attr_1_values[25], attr_0_values[25], doc_values[25]) AS key_8,
      COALESCE(attr_1_values[28], attr_0_values[28], doc_values[28]) AS key_9,
      COALESCE(attr_1_values[29], attr_0_values[29], doc_values[29]) AS key_10,
      COALESCE(attr_1_values[30], attr_0_values[30], doc_values[30]) AS key_11,
      CASE
        WHEN NOT attr_1_values[1] IS NULL
        THEN attr_1_values[2]
        WHEN NOT attr_0_values[1] IS NULL
        THEN attr_0_values[2]
        ELSE doc_values[2]
      END AS key_0_0,
      CASE
        WHEN NOT attr_1_values[1] IS NULL
        THEN attr_1_values[3]
        WHEN NOT attr_0_values[1] IS NULL
        THEN attr_0_values[3]
        ELSE doc_values[3]
      END AS key_0_1,
      CASE
        WHEN NOT attr_1_values[4] IS NULL
        THEN attr_1_values[5]
        WHEN NOT attr_0_values[4] IS NULL
        THEN attr_0_values[5]
        ELSE doc_values[5]
      END AS key_1_2,
      CASE
        WHEN NOT attr_1_values[4] IS NULL
        THEN attr_1_values[6]
        WHEN NOT attr_0_values[4] IS NULL
        THEN attr_0_values[6]
        ELSE doc_values[6]
      END AS key_1_3,
      CASE
        WHEN NOT attr_1_values[7] IS NULL
        THEN attr_1_values[8]
        WHEN NOT attr_0_values[7] IS NULL
        THEN attr_0_values[8]
        ELSE doc_values[8]
      END AS key_2_4,
      CASE
        WHEN NOT attr_1_values[7] IS NULL
        THEN attr_1_values[9]
        WHEN NOT attr_0_values[7] IS NULL
        THEN attr_0_values[9]
        ELSE doc_values[9]
      END AS key_2_5,
      CASE
        WHEN NOT attr_1_values[10] IS NULL
        THEN attr_1_values[11]
        WHEN NOT attr_0_values[10] IS NULL
        THEN attr_0_values[11]
        ELSE doc_values[11]
      END AS key_3_6,
      CASE
        WHEN NOT attr_1_values[10] IS NULL
        THEN attr_1_values[12]
        WHEN NOT attr_0_values[10] IS NULL
        THEN attr_0_values[12]
        ELSE doc_values[12]
      END AS key_3_7,
      CASE
        WHEN NOT attr_1_values[13] IS NULL
        THEN attr_1_values[14]
        WHEN NOT attr_0_values[13] IS NULL
        THEN attr_0_values[14]
        ELSE doc_values[14]
      END AS key_4_8,
      CASE
        WHEN NOT attr_1_values[13] IS NULL
        THEN attr_1_values[15]
        WHEN NOT attr_0_values[13] IS NULL
        THEN attr_0_values[15]
        ELSE doc_values[15]
      END AS key_4_9,
      CASE
        WHEN NOT attr_1_values[16] IS NULL
        THEN attr_1_values[17]
        WHEN NOT attr_0_values[16] IS NULL
        THEN attr_0_values[17]
        ELSE doc_values[17]
      END AS key_5_10,
      CASE
        WHEN NOT attr_1_values[16] IS NULL
        THEN attr_1_values[18]
        WHEN NOT attr_0_values[16] IS NULL
        THEN attr_0_values[18]
        ELSE doc_values[18]
      END AS key_5_11,
      CASE
        WHEN NOT attr_1_values[19] IS NULL
        THEN attr_1_values[20]
        WHEN NOT attr_0_values[19] IS NULL
        THEN attr_0_values[20]
        ELSE doc_values[20]
      END AS key_6_12,
      CASE
        WHEN NOT attr_1_values[19] IS NULL
        THEN attr_1_values[21]
        WHEN NOT attr_0_values[19] IS NULL
        THEN attr_0_values[21]
        ELSE doc_values[21]
      END AS key_6_13,
      CASE
        WHEN NOT attr_1_values[22] IS NULL
        THEN attr_1_values[23]
        WHEN NOT attr_0_values[22] IS NULL
        THEN attr_0_values[23]
        ELSE doc_values[23]
      END AS key_7_14,
      CASE
        WHEN NOT attr_1_values[22] IS NULL
        THEN attr_1_values[24]
        WHEN NOT attr_0_values[22] IS NULL
        THEN attr_0_values[24]
        ELSE doc_values[24]
      END AS key_7_15,
      CASE
        WHEN NOT attr_1_values[25] IS NULL
        THEN attr_1_values[26]
        WHEN NOT attr_0_values[25] IS NULL
        THEN attr_0_values[26]
        ELSE doc_values[26]
      END AS key_8_16,
      CASE
        WHEN NOT attr_1_values[25] IS NULL
        THEN attr_1_values[27]
        WHEN NOT attr_0_values[25] IS NULL
        THEN attr_0_values[27]
        ELSE doc_values[27]
      END AS key_8_17
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
              '$."attributes"."cc_tiny_subset_analysis_october__cld2_en_paragraph_with_doc_score_v2__doc_en"',
              '$."attributes"."cc_tiny_subset_analysis_october__cld2_en_paragraph_with_doc_score_v2__doc_en"[0][2]',
              '$."attributes"."cc_tiny_subset_analysis_october__cld2_en_paragraph_with_doc_score_v2__doc_en"[0]',
              '$."attributes"."cc_tiny_subset_analysis_october__ft_lang_id_en_paragraph_with_doc_score_v2__doc_en"',
              '$."attributes"."cc_tiny_subset_analysis_october__ft_lang_id_en_paragraph_with_doc_score_v2__doc_en"[0][2]',
              '$."attributes"."cc_tiny_subset_analysis_october__ft_lang_id_en_paragraph_with_doc_score_v2__doc_en"[0]',
              '$."attributes"."cc_tiny_subset_analysis_october__char_length_with_paragraphs_v1__document"',
              '$."attributes"."cc_tiny_subset_analysis_october__char_length_with_paragraphs_v1__document"[0][2]',
              '$."attributes"."cc_tiny_subset_analysis_october__char_length_with_paragraphs_v1__document"[0]',
              '$."attributes"."cc_tiny_subset_analysis_october__jigsaw_nsfw_document_v1____label__nsfw"',
              '$."attributes"."cc_tiny_subset_analysis_october__jigsaw_nsfw_document_v1____label__nsfw"[0][2]',
              '$."attributes"."cc_tiny_subset_analysis_october__jigsaw_nsfw_document_v1____label__nsfw"[0]',
              '$."attributes"."cc_tiny_subset_analysis_october__gopher_v2__word_count"',
              '$."attributes"."cc_tiny_subset_analysis_october__gopher_v2__word_count"[0][2]',
              '$."attributes"."cc_tiny_subset_analysis_october__gopher_v2__word_count"[0]',
              '$."attributes"."cc_tiny_subset_analysis_october__gopher_v2__symbol_to_word_ratio"',
              '$."attributes"."cc_tiny_subset_analysis_october__gopher_v2__symbol_to_word_ratio"[0][2]',
              '$."attributes"."cc_tiny_subset_analysis_october__gopher_v2__symbol_to_word_ratio"[0]',
              '$."attributes"."bff_duplicate_paragraph_spans_new"',
              '$."attributes"."bff_duplicate_paragraph_spans_new"[0][2]',
              '$."attributes"."bff_duplicate_paragraph_spans_new"[0]',
              '$."attributes"."cc_tiny_subset_analysis_october__c4_v2__line_bullets"',
              '$."attributes"."cc_tiny_subset_analysis_october__c4_v2__line_bullets"[0][2]',
              '$."attributes"."cc_tiny_subset_analysis_october__c4_v2__line_bullets"[0]',
              '$."attributes"."cc_tiny_subset_analysis_october__c4_v2__phrase_repeat"',
              '$."attributes"."cc_tiny_subset_analysis_october__c4_v2__phrase_repeat"[0][2]',
              '$."attributes"."cc_tiny_subset_analysis_october__c4_v2__phrase_repeat"[0]',
              '$."attributes"."cc_tiny_subset_analysis_october__pii_regex_with_counts_fast_v2__EMAIL_ADDRESS"',
              '$."attributes"."cc_tiny_subset_analysis_october__pii_regex_with_counts_fast_v2__PHONE_NUMBER"',
              '$."attributes"."cc_tiny_subset_analysis_october__pii_regex_with_counts_fast_v2__IP_ADDRESS"'
            ]
          )
        END AS doc_values,
        JSON_EXTRACT(
          attr_0,
          [
            '$."attributes"."cc_tiny_subset_analysis_october__cld2_en_paragraph_with_doc_score_v2__doc_en"',
            '$."attributes"."cc_tiny_subset_analysis_october__cld2_en_paragraph_with_doc_score_v2__doc_en"[0][2]',
            '$."attributes"."cc_tiny_subset_analysis_october__cld2_en_paragraph_with_doc_score_v2__doc_en"[0]',
            '$."attributes"."cc_tiny_subset_analysis_october__ft_lang_id_en_paragraph_with_doc_score_v2__doc_en"',
            '$."attributes"."cc_tiny_subset_analysis_october__ft_lang_id_en_paragraph_with_doc_score_v2__doc_en"[0][2]',
            '$."attributes"."cc_tiny_subset_analysis_october__ft_lang_id_en_paragraph_with_doc_score_v2__doc_en"[0]',
            '$."attributes"."cc_tiny_subset_analysis_october__char_length_with_paragraphs_v1__document"',
            '$."attributes"."cc_tiny_subset_analysis_october__char_length_with_paragraphs_v1__document"[0][2]',
            '$."attributes"."cc_tiny_subset_analysis_october__char_length_with_paragraphs_v1__document"[0]',
            '$."attributes"."cc_tiny_subset_analysis_october__jigsaw_nsfw_document_v1____label__nsfw"',
            '$."attributes"."cc_tiny_subset_analysis_october__jigsaw_nsfw_document_v1____label__nsfw"[0][2]',
            '$."attributes"."cc_tiny_subset_analysis_october__jigsaw_nsfw_document_v1____label__nsfw"[0]',
            '$."attributes"."cc_tiny_subset_analysis_october__gopher_v2__word_count"',
            '$."attributes"."cc_tiny_subset_analysis_october__gopher_v2__word_count"[0][2]',
            '$."attributes"."cc_tiny_subset_analysis_october__gopher_v2__word_count"[0]',
            '$."attributes"."cc_tiny_subset_analysis_october__gopher_v2__symbol_to_word_ratio"',
            '$."attributes"."cc_tiny_subset_analysis_october__gopher_v2__symbol_to_word_ratio"[0][2]',
            '$."attributes"."cc_tiny_subset_analysis_october__gopher_v2__symbol_to_word_ratio"[0]',
            '$."attributes"."bff_duplicate_paragraph_spans_new"',
            '$."attributes"."bff_duplicate_paragraph_spans_new"[0][2]',
            '$."attributes"."bff_duplicate_paragraph_spans_new"[0]',
            '$."attributes"."cc_tiny_subset_analysis_october__c4_v2__line_bullets"',
            '$."attributes"."cc_tiny_subset_analysis_october__c4_v2__line_bullets"[0][2]',
            '$."attributes"."cc_tiny_subset_analysis_october__c4_v2__line_bullets"[0]',
            '$."attributes"."cc_tiny_subset_analysis_october__c4_v2__phrase_repeat"',
            '$."attributes"."cc_tiny_subset_analysis_october__c4_v2__phrase_repeat"[0][2]',
            '$."attributes"."cc_tiny_subset_analysis_october__c4_v2__phrase_repeat"[0]',
            '$."attributes"."cc_tiny_subset_analysis_october__pii_regex_with_counts_fast_v2__EMAIL_ADDRESS"',
            '$."attributes"."cc_tiny_subset_analysis_october__pii_regex_with_counts_fast_v2__PHONE_NUMBER"',
            '$."attributes"."cc_tiny_subset_analysis_october__pii_regex_with_counts_fast_v2__IP_ADDRESS"'
          ]
        ) AS attr_0_values,
        JSON_EXTRACT(
          attr_1,
          [
            '$."attributes"."cc_tiny_subset_analysis_october__cld2_en_paragraph_with_doc_score_v2__doc_en"',
            '$."attributes"."cc_tiny_subset_analysis_october__cld2_en_paragraph_with_doc_score_v2__doc_en"[0][2]',
            '$."attributes"."cc_tiny_subset_analysis_october__cld2_en_paragraph_with_doc_score_v2__doc_en"[0]',
            '$."attributes"."cc_tiny_subset_analysis_october__ft_lang_id_en_paragraph_with_doc_score_v2__doc_en"',
            '$."attributes"."cc_tiny_subset_analysis_october__ft_lang_id_en_paragraph_with_doc_score_v2__doc_en"[0][2]',
            '$."attributes"."cc_tiny_subset_analysis_october__ft_lang_id_en_paragraph_with_doc_score_v2__doc_en"[0]',
            '$."attributes"."cc_tiny_subset_analysis_october__char_length_with_paragraphs_v1__document"',
            '$."attributes"."cc_tiny_subset_analysis_october__char_length_with_paragraphs_v1__document"[0][2]',
            '$."attributes"."cc_tiny_subset_analysis_october__char_length_with_paragraphs_v1__document"[0]',
            '$."attributes"."cc_tiny_subset_analysis_october__jigsaw_nsfw_document_v1____label__nsfw"',
            '$."attributes"."cc_tiny_subset_analysis_october__jigsaw_nsfw_document_v1____label__nsfw"[0][2]',
            '$."attributes"."cc_tiny_subset_analysis_october__jigsaw_nsfw_document_v1____label__nsfw"[0]',
            '$."attributes"."cc_tiny_subset_analysis_october__gopher_v2__word_count"',
            '$."attributes"."cc_tiny_subset_analysis_october__gopher_v2__word_count"[0][2]',
            '$."attributes"."cc_tiny_subset_analysis_october__gopher_v2__word_count"[0]',
            '$."attributes"."cc_tiny_subset_analysis_october__gopher_v2__symbol_to_word_ratio"',
            '$."attributes"."cc_tiny_subset_analysis_october__gopher_v2__symbol_to_word_ratio"[0][2]',
            '$."attributes"."cc_tiny_subset_analysis_october__gopher_v2__symbol_to_word_ratio"[0]',
            '$."attributes"."bff_duplicate_paragraph_spans_new"',
            '$."attributes"."bff_duplicate_paragraph_spans_new"[0][2]',
            '$."attributes"."bff_duplicate_paragraph_spans_new"[0]',
            '$."attributes"."cc_tiny_subset_analysis_october__c4_v2__line_bullets"',
            '$."attributes"."cc_tiny_subset_analysis_october__c4_v2__line_bullets"[0][2]',
            '$."attributes"."cc_tiny_subset_analysis_october__c4_v2__line_bullets"[0]',
            '$."attributes"."cc_tiny_subset_analysis_october__c4_v2__phrase_repeat"',
            '$."attributes"."cc_tiny_subset_analysis_october__c4_v2__phrase_repeat"[0][2]',
            '$."attributes"."cc_tiny_subset_analysis_october__c4_v2__phrase_repeat"[0]',
            '$."attributes"."cc_tiny_subset_analysis_october__pii_regex_with_counts_fast_v2__EMAIL_ADDRESS"',
            '$."attributes"."cc_tiny_subset_analysis_october__pii_regex_with_counts_fast_v2__PHONE_NUMBER"',
            '$."attributes"."cc_tiny_subset_analysis_october__pii_regex_with_counts_fast_v2__IP_ADDRESS"'
          ]
        ) AS attr_1_values
      FROM batch
    ) AS extracted
  ) AS merged
) AS decided
