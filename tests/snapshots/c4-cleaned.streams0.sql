SELECT
  row,
  keep,
  CASE WHEN keep THEN CAST(key_0 AS TEXT) END AS span_0,
  CASE WHEN keep THEN CAST(key_1 AS TEXT) END AS span_1
FROM (
  SELECT
    row,
    doc_values,
    attr_0_values,
    key_0,
    key_1,
    TRUE AS keep
  FROM (
    SELECT
      row,
      doc_values,
      attr_0_values,
      COALESCE(attr_0_values[1], doc_values[1]) AS key_0,
      COALESCE(attr_0_values[2], doc_values[2]) AS key_1
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
              '$."attributes"."c4_rules__c4_v1__lines_with_no_ending_punctuation"',
              '$."attributes"."c4_rules__c4_v1__lines_with_too_few_words"'
            ]
          )
        END AS doc_values,
        JSON_EXTRACT(
          attr_0,
          [
            '$."attributes"."c4_rules__c4_v1__lines_with_no_ending_punctuation"',
            '$."attributes"."c4_rules__c4_v1__lines_with_too_few_words"'
          ]
        ) AS attr_0_values
      FROM batch
    ) AS extracted
  ) AS merged
) AS decided
