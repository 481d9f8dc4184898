"""Cohen-Solal 2020's descent family measured: the scaled-down Hex 6x6 / Connect Four experiments
(``experiments``) and the paper's Tables 2-4 on its nine games as resumable cells (``paper_games``: the games and
experiments as data; ``games_runner``: the cells; ``games_report``: the page).

Commands (from the checkout's root): ``python -m studies.descent.experiments --out runs/descent-exp --publish``,
``python -m studies.descent.experiments --stage cells --reps 5 --publish``; without ``--publish`` the pages stay
under ``--out``. Pages: ``docs/results/descent.md``, ``descent_tables.md``, ``descent_games.md``.
"""
