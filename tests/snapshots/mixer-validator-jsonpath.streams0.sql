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
    key_1_values,
    key_2_values,
    key_3_values,
    key_4_values,
    key_5_values,
    key_6_values,
    key_7_values,
    key_8_values,
    CASE
      WHEN COALESCE((
        TRY_CAST(CAST(key_0_values[1] AS TEXT) AS DOUBLE) < 0.8
      ), FALSE)
      THEN FALSE
      WHEN COALESCE((
        TRY_CAST(CAST(key_1_values[1] AS TEXT) AS DOUBLE) < 0.8
      ), FALSE)
      THEN FALSE
      WHEN COALESCE((
        TRY_CAST(CAST(key_2_values[1] AS TEXT) AS DOUBLE) < 100.0
      ), FALSE)
      THEN FALSE
      WHEN COALESCE(
        (
          (
            1.0 < TRY_CAST(CAST(key_3_values[1] AS TEXT) AS DOUBLE)
          )
          OR (
            (
              CAST(key_3_values[1] AS TEXT) >= '-' AND CAST(key_3_values[1] AS TEXT) < ':'
            )
            AND (
              TRY_CAST(CAST(key_3_values[1] AS TEXT) AS DOUBLE) = 1.0
            )
          )
        ),
        FALSE
      )
      THEN FALSE
      WHEN COALESCE((
        0.5 < TRY_CAST(CAST(key_4_values[1] AS TEXT) AS DOUBLE)
      ), FALSE)
      THEN FALSE
      WHEN COALESCE((
        TRY_CAST(CAST(key_5_values[1] AS TEXT) AS DOUBLE) < 50.0
      ), FALSE)
      THEN FALSE
      WHEN COALESCE((
        0.1 < TRY_CAST(CAST(key_6_values[1] AS TEXT) AS DOUBLE)
      ), FALSE)
      THEN FALSE
      WHEN COALESCE((
        0.5 < TRY_CAST(CAST(key_7_values[1] AS TEXT) AS DOUBLE)
      ), FALSE)
      THEN FALSE
      WHEN COALESCE((
        0.3 < TRY_CAST(CAST(key_8_values[1] AS TEXT) AS DOUBLE)
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
      JSON_EXTRACT(COALESCE(attr_1_values[1], attr_0_values[1], doc_values[1]), ['$[0][2]']) AS key_0_values,
      JSON_EXTRACT(COALESCE(attr_1_values[2], attr_0_values[2], doc_values[2]), ['$[0][2]']) AS key_1_values,
      JSON_EXTRACT(COALESCE(attr_1_values[3], attr_0_values[3], doc_values[3]), ['$[0][2]']) AS key_2_values,
      JSON_EXTRACT(COALESCE(attr_1_values[4], attr_0_values[4], doc_values[4]), ['$[0][2]']) AS key_3_values,
      JSON_EXTRACT(COALESCE(attr_1_values[5], attr_0_values[5], doc_values[5]), ['$[0][2]']) AS key_4_values,
      JSON_EXTRACT(COALESCE(attr_1_values[6], attr_0_values[6], doc_values[6]), ['$[0][2]']) AS key_5_values,
      JSON_EXTRACT(COALESCE(attr_1_values[7], attr_0_values[7], doc_values[7]), ['$[0][2]']) AS key_6_values,
      JSON_EXTRACT(COALESCE(attr_1_values[8], attr_0_values[8], doc_values[8]), ['$[0][2]']) AS key_7_values,
      JSON_EXTRACT(COALESCE(attr_1_values[9], attr_0_values[9], doc_values[9]), ['$[0][2]']) AS key_8_values
    FROM (
      SELECT
        row,
        JSON_EXTRACT(
          doc,
          [
            '$."attributes"."cc_tiny_subset_analysis_october__cld2_en_paragraph_with_doc_score_v2__doc_en"',
            '$."attributes"."cc_tiny_subset_analysis_october__ft_lang_id_en_paragraph_with_doc_score_v2__doc_en"',
            '$."attributes"."cc_tiny_subset_analysis_october__char_length_with_paragraphs_v1__document"',
            '$."attributes"."bff_duplicate_paragraph_spans_new"',
            '$."attributes"."cc_tiny_subset_analysis_october__jigsaw_nsfw_document_v1____label__nsfw"',
            '$."attributes"."cc_tiny_subset_analysis_october__gopher_v2__word_count"',
            '$."attributes"."cc_tiny_subset_analysis_october__gopher_v2__symbol_to_word_ratio"',
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
            '$."attributes"."bff_duplicate_paragraph_spans_new"',
            '$."attributes"."cc_tiny_subset_analysis_october__jigsaw_nsfw_document_v1____label__nsfw"',
            '$."attributes"."cc_tiny_subset_analysis_october__gopher_v2__word_count"',
            '$."attributes"."cc_tiny_subset_analysis_october__gopher_v2__symbol_to_word_ratio"',
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
            '$."attributes"."bff_duplicate_paragraph_spans_new"',
            '$."attributes"."cc_tiny_subset_analysis_october__jigsaw_nsfw_document_v1____label__nsfw"',
            '$."attributes"."cc_tiny_subset_analysis_october__gopher_v2__word_count"',
            '$."attributes"."cc_tiny_subset_analysis_october__gopher_v2__symbol_to_word_ratio"',
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
