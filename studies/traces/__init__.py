"""Thill, Bagheri, Koch & Konen 2014's eligibility traces on Connect Four (Table I, Fig. 6).

Command: ``farl reproduce traces --out docs/results`` (``--variants``, ``--runs``, ``--budget paper|long|quick|
smoke``); probes: ``python -m studies.traces.traces --growth`` / ``--openings``.
Page: ``docs/results/eligibility_traces.md``. Modules: ``traces_rows`` (variants, budgets, success files),
``traces`` (the runner), ``traces_report`` (the page).
"""
