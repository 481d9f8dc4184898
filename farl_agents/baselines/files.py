"""Reading back the models that :func:`~farl_agents.baselines.train.train_baseline` saved.

It sits apart from both its users — :class:`~farl_agents.baselines.players.SB3Player`
(which accepts a path) and the training module (which writes the files) — so
that the players never need to import the training code. Importing this module
does not import torch; :func:`load_baseline` does.
"""
from __future__ import annotations

import zipfile
from pathlib import Path


def load_baseline(path):
    """Load a model saved by :func:`~farl_agents.baselines.train.train_baseline`: its ``model.zip``, or the run folder.

    The class is read from the ``data`` entry of SB3's zip: the farl
    :class:`~farl_agents.baselines.dqn.MaskedDQN` or sb3-contrib's MaskablePPO.
    Anything else raises ``ValueError``.
    """
    p = Path(path)
    if p.is_dir():
        p = p / "model.zip"
    if not p.exists():
        raise ValueError(f"no saved model at {path}")
    try:
        with zipfile.ZipFile(p) as z:
            data = z.read("data").decode()
    except (zipfile.BadZipFile, KeyError) as exc:
        raise ValueError(f"{path} is not a Stable-Baselines3 model file: {exc}") from exc
    if "MaskedDQNPolicy" in data:
        from farl_agents.baselines.dqn import MaskedDQN
        return MaskedDQN.load(p, device="cpu")
    if "Maskable" in data:
        from sb3_contrib import MaskablePPO
        return MaskablePPO.load(p, device="cpu")
    raise ValueError(f"{path}: not a MaskablePPO or farl MaskedDQN model")
