-- A span attribute as a list of {start, end, score}, from its [[start, end, score], ...] form.
list_transform(:spans, lambda s: {'start': s[1]::BIGINT, 'end': s[2]::BIGINT, 'score': s[3]})
