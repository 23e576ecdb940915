-- Why one attribute set disagrees with the documents at this position (NULL when it agrees: :aligned).
CASE
    WHEN :aligned THEN NULL
    ELSE printf(
        'document %d of the corpus (%s) has id %s but the attribute line at that position (%s) has id %s',
        :position, :doc_file, coalesce(:doc_id, '(none)'),
        coalesce(:set_file, 'past the end of the attribute files'), coalesce(:set_id, '(none)')
    )
END
