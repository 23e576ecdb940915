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
    key_1_1,
    key_2_2,
    key_3_3,
    key_4_4,
    key_5_5,
    key_6_6,
    key_7_7,
    key_8_8,
    CASE
      WHEN COALESCE(
        COALESCE(
          TRY_CAST(CAST(key_0_0 AS TEXT) AS DOUBLE) < 0.8,
          CASE
            WHEN NOT key_0_0 IS NULL
            THEN CAST(key_0_0 AS TEXT) IN ('true', 'false')
            WHEN NOT (
              JSON_TYPE(key_0, '$[0]') IN ('ARRAY', 'NULL')
            )
            THEN NULL
            ELSE FALSE
          END
        ),
        ERROR(
          'streams[0].filter.exclude[0]: evaluating jq `(.attributes.cc_tiny_subset_analysis_october__cld2_en_paragraph_with_doc_score_v2__doc_en | if type == "array" and length > 0 and .[0] != null and .[0][2] != null then .[0][2] < 0.8 else false end)` failed on the document at row ' || CAST(row AS TEXT)
        )
      )
      THEN FALSE
      WHEN COALESCE(
        COALESCE(
          TRY_CAST(CAST(key_1_1 AS TEXT) AS DOUBLE) < 0.8,
          CASE
            WHEN NOT key_1_1 IS NULL
            THEN CAST(key_1_1 AS TEXT) IN ('true', 'false')
            WHEN NOT (
              JSON_TYPE(key_1, '$[0]') IN ('ARRAY', 'NULL')
            )
            THEN NULL
            ELSE FALSE
          END
        ),
        ERROR(
          'streams[0].filter.exclude[1]: evaluating jq `(.attributes.cc_tiny_subset_analysis_october__ft_lang_id_en_paragraph_with_doc_score_v2__doc_en | if type == "array" and length > 0 and .[0] != null and .[0][2] != null then .[0][2] < 0.8 else false end)` failed on the document at row ' || CAST(row AS TEXT)
        )
      )
      THEN FALSE
      WHEN COALESCE(
        COALESCE(
          TRY_CAST(CAST(key_2_2 AS TEXT) AS DOUBLE) < 100.0,
          CASE
            WHEN NOT key_2_2 IS NULL
            THEN CAST(key_2_2 AS TEXT) IN ('true', 'false')
            WHEN NOT (
              JSON_TYPE(key_2, '$[0]') IN ('ARRAY', 'NULL')
            )
            THEN NULL
            ELSE FALSE
          END
        ),
        ERROR(
          'streams[0].filter.exclude[2]: evaluating jq `(.attributes.cc_tiny_subset_analysis_october__char_length_with_paragraphs_v1__document | if type == "array" and length > 0 and .[0] != null and .[0][2] != null then .[0][2] < 100 else false end)` failed on the document at row ' || CAST(row AS TEXT)
        )
      )
      THEN FALSE
      WHEN COALESCE(
        COALESCE(
          TRY_CAST(CAST(key_3_3 AS TEXT) AS DOUBLE) > 0.5,
          CASE
            WHEN NOT key_3_3 IS NULL
            THEN NOT (
              CAST(key_3_3 AS TEXT) IN ('true', 'false', 'null')
            )
            WHEN NOT (
              JSON_TYPE(key_3, '$[0]') IN ('ARRAY', 'NULL')
            )
            THEN NULL
            ELSE FALSE
          END
        ),
        ERROR(
          'streams[0].filter.exclude[3]: evaluating jq `(.attributes.cc_tiny_subset_analysis_october__jigsaw_nsfw_document_v1____label__nsfw | if type == "array" and length > 0 and .[0] != null and .[0][2] != null then .[0][2] > 0.5 else false end)` failed on the document at row ' || CAST(row AS TEXT)
        )
      )
      THEN FALSE
      WHEN COALESCE(
        COALESCE(
          TRY_CAST(CAST(key_4_4 AS TEXT) AS DOUBLE) < 50.0,
          CASE
            WHEN NOT key_4_4 IS NULL
            THEN CAST(key_4_4 AS TEXT) IN ('true', 'false')
            WHEN NOT (
              JSON_TYPE(key_4, '$[0]') IN ('ARRAY', 'NULL')
            )
            THEN NULL
            ELSE FALSE
          END
        ),
        ERROR(
          'streams[0].filter.exclude[4]: evaluating jq `(.attributes.cc_tiny_subset_analysis_october__gopher_v2__word_count | if type == "array" and length > 0 and .[0] != null and .[0][2] != null then .[0][2] < 50 else false end)` failed on the document at row ' || CAST(row AS TEXT)
        )
      )
      THEN FALSE
      WHEN COALESCE(
        COALESCE(
          TRY_CAST(CAST(key_5_5 AS TEXT) AS DOUBLE) > 0.1,
          CASE
            WHEN NOT key_5_5 IS NULL
            THEN NOT (
              CAST(key_5_5 AS TEXT) IN ('true', 'false', 'null')
            )
            WHEN NOT (
              JSON_TYPE(key_5, '$[0]') IN ('ARRAY', 'NULL')
            )
            THEN NULL
            ELSE FALSE
          END
        ),
        ERROR(
          'streams[0].filter.exclude[5]: evaluating jq `(.attributes.cc_tiny_subset_analysis_october__gopher_v2__symbol_to_word_ratio | if type == "array" and length > 0 and .[0] != null and .[0][2] != null then .[0][2] > 0.1 else false end)` failed on the document at row ' || CAST(row AS TEXT)
        )
      )
      THEN FALSE
      WHEN COALESCE(
        COALESCE(
          TRY_CAST(CAST(key_6_6 AS TEXT) AS DOUBLE) >= 1.0,
          CASE
            WHEN NOT key_6_6 IS NULL
            THEN NOT (
              CAST(key_6_6 AS TEXT) IN ('true', 'false', 'null')
            )
            WHEN NOT (
              JSON_TYPE(key_6, '$[0]') IN ('ARRAY', 'NULL')
            )
            THEN NULL
            ELSE FALSE
          END
        ),
        ERROR(
          'streams[0].filter.exclude[6]: evaluating jq `(.attributes.bff_duplicate_paragraph_spans_new | if type == "array" and length > 0 and .[0] != null and .[0][2] != null then .[0][2] >= 1.0 else false end)` failed on the document at row ' || CAST(row AS TEXT)
        )
      )
      THEN FALSE
      WHEN COALESCE(
        COALESCE(
          TRY_CAST(CAST(key_7_7 AS TEXT) AS DOUBLE) > 0.5,
          CASE
            WHEN NOT key_7_7 IS NULL
            THEN NOT (
              CAST(key_7_7 AS TEXT) IN ('true', 'false', 'null')
            )
            WHEN NOT (
              JSON_TYPE(key_7, '$[0]') IN ('ARRAY', 'NULL')
            )
            THEN NULL
            ELSE FALSE
          END
        ),
        ERROR(
          'streams[0].filter.exclude[7]: evaluating jq `(.attributes.cc_tiny_subset_analysis_october__c4_v2__line_bullets | if type == "array" and length > 0 and .[0] != null and .[0][2] != null then .[0][2] > 0.5 else false end)` failed on the document at row ' || CAST(row AS TEXT)
        )
      )
      THEN FALSE
      WHEN COALESCE(
        COALESCE(
          TRY_CAST(CAST(key_8_8 AS TEXT) AS DOUBLE) > 0.3,
          CASE
            WHEN NOT key_8_8 IS NULL
            THEN NOT (
              CAST(key_8_8 AS TEXT) IN ('true', 'false', 'null')
            )
            WHEN NOT (
              JSON_TYPE(key_8, '$[0]') IN ('ARRAY', 'NULL')
            )
            THEN NULL
            ELSE FALSE
          END
        ),
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
      COALESCE(attr_1_values[3], attr_0_values[3], doc_values[3]) AS key_1,
      COALESCE(attr_1_values[5], attr_0_values[5], doc_values[5]) AS key_2,
      COALESCE(attr_1_values[7], attr_0_values[7], doc_values[7]) AS key_3,
      COALESCE(attr_1_values[9], attr_0_values[9], doc_values[9]) AS key_4,
      COALESCE(attr_1_values[11], attr_0_values[11], doc_values[11]) AS key_5,
      COALESCE(attr_1_values[13], attr_0_values[13], doc_values[13]) AS key_6,
      COALESCE(attr_1_values[15], attr_0_values[15], doc_values[15]) AS key_7,
      COALESCE(attr_1_values[17], attr_0_values[17], doc_values[17]) AS key_8,
      COALESCE(attr_1_values[19], attr_0_values[19], doc_values[19]) AS key_9,
      COALESCE(attr_1_values[20], attr_0_values[20], doc_values[20]) AS key_10,
      COALESCE(attr_1_values[21], attr_0_values[21], doc_values[21]) AS key_11,
      CASE
        WHEN NOT attr_1_values[1] IS NULL
        THEN attr_1_values[2]
        WHEN NOT attr_0_values[1] IS NULL
        THEN attr_0_values[2]
        ELSE doc_values[2]
      END AS key_0_0,
      CASE
        WHEN NOT attr_1_values[3] IS NULL
        THEN attr_1_values[4]
        WHEN NOT attr_0_values[3] IS NULL
        THEN attr_0_values[4]
        ELSE doc_values[4]
      END AS key_1_1,
      CASE
        WHEN NOT attr_1_values[5] IS NULL
        THEN attr_1_values[6]
        WHEN NOT attr_0_values[5] IS NULL
        THEN attr_0_values[6]
        ELSE doc_values[6]
      END AS key_2_2,
      CASE
        WHEN NOT attr_1_values[7] IS NULL
        THEN attr_1_values[8]
        WHEN NOT attr_0_values[7] IS NULL
        THEN attr_0_values[8]
        ELSE doc_values[8]
      END AS key_3_3,
      CASE
        WHEN NOT attr_1_values[9] IS NULL
        THEN attr_1_values[10]
        WHEN NOT attr_0_values[9] IS NULL
        THEN attr_0_values[10]
        ELSE doc_values[10]
      END AS key_4_4,
      CASE
        WHEN NOT attr_1_values[11] IS NULL
        THEN attr_1_values[12]
        WHEN NOT attr_0_values[11] IS NULL
        THEN attr_0_values[12]
        ELSE doc_values[12]
      END AS key_5_5,
      CASE
        WHEN NOT attr_1_values[13] IS NULL
        THEN attr_1_values[14]
        WHEN NOT attr_0_values[13] IS NULL
        THEN attr_0_values[14]
        ELSE doc_values[14]
      END AS key_6_6,
      CASE
        WHEN NOT attr_1_values[15] IS NULL
        THEN attr_1_values[16]
        WHEN NOT attr_0_values[15] IS NULL
        THEN attr_0_values[16]
        ELSE doc_values[16]
      END AS key_7_7,
      CASE
        WHEN NOT attr_1_values[17] IS NULL
        THEN attr_1_values[18]
        WHEN NOT attr_0_values[17] IS NULL
        THEN attr_0_values[18]
        ELSE doc_values[18]
      END AS key_8_8
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
              '$."attributes"."cc_tiny_subset_analysis_october__ft_lang_id_en_paragraph_with_doc_score_v2__doc_en"',
              '$."attributes"."cc_tiny_subset_analysis_october__ft_lang_id_en_paragraph_with_doc_score_v2__doc_en"[0][2]',
              '$."attributes"."cc_tiny_subset_analysis_october__char_length_with_paragraphs_v1__document"',
              '$."attributes"."cc_tiny_subset_analysis_october__char_length_with_paragraphs_v1__document"[0][2]',
              '$."attributes"."cc_tiny_subset_analysis_october__jigsaw_nsfw_document_v1____label__nsfw"',
              '$."attributes"."cc_tiny_subset_analysis_october__jigsaw_nsfw_document_v1____label__nsfw"[0][2]',
              '$."attributes"."cc_tiny_subset_analysis_october__gopher_v2__word_count"',
              '$."attributes"."cc_tiny_subset_analysis_october__gopher_v2__word_count"[0][2]',
              '$."attributes"."cc_tiny_subset_analysis_october__gopher_v2__symbol_to_word_ratio"',
              '$."attributes"."cc_tiny_subset_analysis_october__gopher_v2__symbol_to_word_ratio"[0][2]',
              '$."attributes"."bff_duplicate_paragraph_spans_new"',
              '$."attributes"."bff_duplicate_paragraph_spans_new"[0][2]',
              '$."attributes"."cc_tiny_subset_analysis_october__c4_v2__line_bullets"',
              '$."attributes"."cc_tiny_subset_analysis_october__c4_v2__line_bullets"[0][2]',
              '$."attributes"."cc_tiny_subset_analysis_october__c4_v2__phrase_repeat"',
              '$."attributes"."cc_tiny_subset_analysis_october__c4_v2__phrase_repeat"[0][2]',
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
            '$."attributes"."cc_tiny_subset_analysis_october__ft_lang_id_en_paragraph_with_doc_score_v2__doc_en"',
            '$."attributes"."cc_tiny_subset_analysis_october__ft_lang_id_en_paragraph_with_doc_score_v2__doc_en"[0][2]',
            '$."attributes"."cc_tiny_subset_analysis_october__char_length_with_paragraphs_v1__document"',
            '$."attributes"."cc_tiny_subset_analysis_october__char_length_with_paragraphs_v1__document"[0][2]',
            '$."attributes"."cc_tiny_subset_analysis_october__jigsaw_nsfw_document_v1____label__nsfw"',
            '$."attributes"."cc_tiny_subset_analysis_october__jigsaw_nsfw_document_v1____label__nsfw"[0][2]',
            '$."attributes"."cc_tiny_subset_analysis_october__gopher_v2__word_count"',
            '$."attributes"."cc_tiny_subset_analysis_october__gopher_v2__word_count"[0][2]',
            '$."attributes"."cc_tiny_subset_analysis_october__gopher_v2__symbol_to_word_ratio"',
            '$."attributes"."cc_tiny_subset_analysis_october__gopher_v2__symbol_to_word_ratio"[0][2]',
            '$."attributes"."bff_duplicate_paragraph_spans_new"',
            '$."attributes"."bff_duplicate_paragraph_spans_new"[0][2]',
            '$."attributes"."cc_tiny_subset_analysis_october__c4_v2__line_bullets"',
            '$."attributes"."cc_tiny_subset_analysis_october__c4_v2__line_bullets"[0][2]',
            '$."attributes"."cc_tiny_subset_analysis_october__c4_v2__phrase_repeat"',
            '$."attributes"."cc_tiny_subset_analysis_october__c4_v2__phrase_repeat"[0][2]',
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
            '$."attributes"."cc_tiny_subset_analysis_october__ft_lang_id_en_paragraph_with_doc_score_v2__doc_en"',
            '$."attributes"."cc_tiny_subset_analysis_october__ft_lang_id_en_paragraph_with_doc_score_v2__doc_en"[0][2]',
            '$."attributes"."cc_tiny_subset_analysis_october__char_length_with_paragraphs_v1__document"',
            '$."attributes"."cc_tiny_subset_analysis_october__char_length_with_paragraphs_v1__document"[0][2]',
            '$."attributes"."cc_tiny_subset_analysis_october__jigsaw_nsfw_document_v1____label__nsfw"',
            '$."attributes"."cc_tiny_subset_analysis_october__jigsaw_nsfw_document_v1____label__nsfw"[0][2]',
            '$."attributes"."cc_tiny_subset_analysis_october__gopher_v2__word_count"',
            '$."attributes"."cc_tiny_subset_analysis_october__gopher_v2__word_count"[0][2]',
            '$."attributes"."cc_tiny_subset_analysis_october__gopher_v2__symbol_to_word_ratio"',
            '$."attributes"."cc_tiny_subset_analysis_october__gopher_v2__symbol_to_word_ratio"[0][2]',
            '$."attributes"."bff_duplicate_paragraph_spans_new"',
            '$."attributes"."bff_duplicate_paragraph_spans_new"[0][2]',
            '$."attributes"."cc_tiny_subset_analysis_october__c4_v2__line_bullets"',
            '$."attributes"."cc_tiny_subset_analysis_october__c4_v2__line_bullets"[0][2]',
            '$."attributes"."cc_tiny_subset_analysis_october__c4_v2__phrase_repeat"',
            '$."attributes"."cc_tiny_subset_analysis_october__c4_v2__phrase_repeat"[0][2]',
            '$."attributes"."cc_tiny_subset_analysis_october__pii_regex_with_counts_fast_v2__EMAIL_ADDRESS"',
            '$."attributes"."cc_tiny_subset_analysis_october__pii_regex_with_counts_fast_v2__PHONE_NUMBER"',
            '$."attributes"."cc_tiny_subset_analysis_october__pii_regex_with_counts_fast_v2__IP_ADDRESS"'
          ]
        ) AS attr_1_values
      FROM batch
    ) AS extracted
  ) AS merged
) AS decided
