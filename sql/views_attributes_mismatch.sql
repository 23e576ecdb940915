-- Why one attribute set disagrees with the documents at this position (NULL when it agrees). Past
-- the last document the positional join gives NULL document columns: that case has its own text,
-- since printf of a NULL argument is NULL, and error(NULL) raises nothing.
CASE
    WHEN :doc_id IS NOT DISTINCT FROM :set_id THEN NULL
    WHEN :position IS NULL THEN printf(
        'the attribute files have more lines than the documents: the line past the last document (%s) has id %s',
        coalesce(:set_file, '?'), coalesce(:set_id, '(none)')
    )
    ELSE printf(
        'document %d of the corpus (%s) has id %s but the attribute line at that position (%s) has id %s',
        :position, :doc_file, coalesce(:doc_id, '(none)'),
        coalesce(:set_file, 'past the end of the attribute files'), coalesce(:set_id, '(none)')
    )
END
