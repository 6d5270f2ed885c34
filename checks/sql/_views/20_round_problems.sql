-- round_problems: every round not evaluated or with a problem (replay's problems and
-- problem_kinds). A judged round without a problem is not in it.
SELECT * FROM rounds
WHERE evaluated IS NOT TRUE OR problems IS NOT NULL OR len(problem_kinds) > 0
