-- A span list in the form the recipe filters' macros take (JSON [[start, end, score], ...]), from
-- an attributes column (a list of {start, end, score}) or from JSON such as a tagger function's
-- output (gopher_v1(text)->'$.word_count'), so sql and shell reuse those macros unchanged.
--   :spans  the macro's argument
CASE
    WHEN json_type(CAST(:spans AS JSON), '$[0]') = 'OBJECT' THEN to_json(list_transform(
        CAST(CAST(:spans AS JSON) AS STRUCT("start" DOUBLE, "end" DOUBLE, score DOUBLE)[]), lambda s: [s."start", s."end", s.score]
    ))
    ELSE CAST(:spans AS JSON)
END
