"""The builder of the agents shipped in the wheel (``farl_agents/pretrained/GAME.npz`` + ``GAME.json``): the
game's preset run, its strength measured by the harness, the smallest storage that measures as strong.

Command: ``farl pretrained build GAME`` (from the checkout; resumable). Page: the table in ``docs/pretrained.md``
(``farl pretrained list --markdown``). Listing and loading the agents stay in the library
(``farl pretrained list``, ``farl_agents.pretrained.load``).
"""
