-- A span attribute as a list of {start, end, score}, from its [[start, end, score], ...] form.
-- A row without the key (taggers write no key when they find nothing) has no spans: [], not NULL.
coalesce(list_transform(:spans, lambda s: {'start': s[1]::BIGINT, 'end': s[2]::BIGINT, 'score': s[3]}), [])
