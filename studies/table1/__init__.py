"""Konen & Bagheri 2020's Table 1 (FARL vs no-FARL), its N-player and per-ply groups, and two side studies.

Command: ``farl reproduce table1 --out docs/results`` (``--rows``, ``--runs``, ``--budget``; rerun to resume).
Pages: ``docs/results/table1.md``, ``table1_quick.md``, ``table1_nplayer*.md``, ``table1_ply.md``.
Modules: ``table1_rows`` (the rows: data), ``table1`` (the runner, on :func:`farl_agents.backend.run_tasks`),
``table1_report`` (the pages and plots), ``final_rewards`` (how often a final reward reaches a seat only through
FARL), ``farl_parts`` (FARL's part 1 or part 2 alone on an N-player row).
"""
