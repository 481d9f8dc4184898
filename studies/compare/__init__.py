"""TD-FARL against Stable-Baselines3's MaskablePPO and masked DQN at equal environment steps and equal wall-clock
(``compare``), judged by farl's evaluation harness; resumable per learner and seed.

Command: ``farl compare GAME --budget-steps S --budget-minutes M`` from the checkout (needs the ``baselines``
extra; output in ``runs/compare-GAME`` unless ``--out``/``--out-md`` say otherwise).
Pages: ``docs/results/compare_<game>.md``.
"""
