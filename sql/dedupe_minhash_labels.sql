-- MinHash clusters, connected components by min-label propagation: each document takes the smallest label
-- among its own and its neighbours', then the label of its label (pointer jumping, so a long chain
-- converges in few rounds). Repeated until no label changes; a component's label is its smallest document.
--   labels  (v, l): the labels of the previous round (first: every document its own number)
CREATE TABLE next_labels AS
WITH proposals AS (
    SELECT v, l FROM labels
    UNION ALL SELECT e.dst AS v, x.l FROM edges AS e JOIN labels AS x ON x.v = e.src
    UNION ALL SELECT e.src AS v, x.l FROM edges AS e JOIN labels AS x ON x.v = e.dst
),
smallest AS (SELECT v, min(l) AS l FROM proposals GROUP BY v)
SELECT s.v, least(s.l, coalesce(p.l, s.l)) AS l FROM smallest AS s LEFT JOIN smallest AS p ON p.v = s.l
