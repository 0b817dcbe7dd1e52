"""Every builder of test data, in one place (issue 14): import from the submodule.

- ``content``: a study, questions with full reports (sections, numbered paragraphs, the three
  kinds of citation, optionally hostile text), assignments, claims, relevance work,
  adjudication and authoring slots: what the task pages and the browser tests render.
- ``world``: one blinded study with judgments of each kind for two annotators and judge
  scores (the API and blinding tests), plus its small row builders.
- ``ranked``: medal rankings, human and judge scores, seeded (the report tests).
- ``judged``: a study for the judge runs and a judge pointed at the fake LLM.
- ``planning``: many questions over expertise fields and annotators to plan over.
- ``backup``: rows in every table a backup holds.
- ``deepscholar``: a DeepScholar Table 3 study whose agreements are set by construction.
- ``scholarqa``: imports of the released ScholarQA-CS2 files.
- ``users``: an account with a role.

The demo study itself is production data (``annotation.demo``); the shared fixtures that
load it once per module are in tests/conftest.py.
"""
