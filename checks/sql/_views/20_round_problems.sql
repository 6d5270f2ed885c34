-- round_problems: every round not evaluated or with a problem (replay's problems, a list
-- with one element a problem, and problem_kinds). A judged round without a problem is not
-- in it.
SELECT * FROM rounds
WHERE evaluated IS NOT TRUE OR len(problems) > 0 OR len(problem_kinds) > 0
