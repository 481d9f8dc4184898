"""The deep-RL baselines (MaskablePPO, masked DQN; Stable-Baselines3) as a family of ``farl train``.

::

    farl train tictactoe --algo maskable-ppo --timesteps 100000 --eval-vs maxn10 --out runs/ttt-ppo
    farl train --resume runs/ttt-ppo
    farl eval runs/ttt-ppo --vs random

See :mod:`farl_agents.families` for what a family's hooks module provides.
The budget is environment steps (the learner's own moves; opponents reply
inside the Gymnasium wrapper); a chunk is one ``model.learn`` call that
continues the step count; the checkpoint is SB3's ``.zip``. Self-play plays
against a frozen copy of the learner, refreshed every ``snapshot_every``
steps across chunks. SB3's training is not bit-reproducible across a resume
(DQN's replay buffer is not in the checkpoint; PPO restarts its rollout):
a resumed run is a consistent run, not an identical one.

Importing this module does not import torch or SB3; training and loading do,
and say how to install the ``baselines`` extra when it is missing.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

from farl_agents.config_flags import ConfigFlags, check_field_types, settings_from_dict

EXTRA_HINT = 'pip install torch==2.13.0 && pip install "farl-rl[baselines]"'
"""How to install the ``baselines`` extra (said when torch or SB3 is missing; the baselines' commands say it too)."""

ALGOS = ("maskable-ppo", "dqn")
DEFAULT_ALGO = "maskable-ppo"
BUDGET_FLAG = "--timesteps"
DEFAULT_EVAL: dict = {}


@dataclass(frozen=True)
class BaselineConfig:
    """The settings of a baseline training run (saved in ``run.json``)."""

    algo: str = "maskable-ppo"
    """maskable-ppo (sb3-contrib) or dqn (SB3's DQN with masked argmax, exploration and target)."""
    timesteps: int = 100_000
    """Budget: environment steps, the learner's own moves."""
    opponent: str = "self-play"
    """Training opponent: self-play (a frozen copy of the learner), random, or any farl opponent name."""
    snapshot_every: int = 10_000
    """Self-play: steps between copies of the learner into the frozen opponent."""
    n_envs: int | None = None
    """Copies of the env stepped in turn (None: 8 for PPO, 1 for DQN)."""
    seed: int = 0
    """Seed of SB3 (torch, numpy), the envs and the opponents."""

    def __post_init__(self):
        check_field_types(self)  # TypeError / ValueError naming the field (timesteps=1.5, seed=True, ...)
        if self.algo not in ALGOS:
            raise ValueError(f"algo must be one of {', '.join(ALGOS)}, got {self.algo!r}")
        for name in ("timesteps", "snapshot_every"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1")
        if self.n_envs is not None and self.n_envs < 1:
            raise ValueError("n_envs must be >= 1")

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> "BaselineConfig":
        return settings_from_dict(cls, d, "baseline options")


FLAGS = ConfigFlags(BaselineConfig, skip=("algo",), choices={})


def need_sb3() -> None:
    """RuntimeError with the install command when the ``baselines`` extra is missing."""
    try:
        import sb3_contrib  # noqa: F401
        import stable_baselines3  # noqa: F401
        import torch  # noqa: F401
    except ImportError as exc:
        raise RuntimeError(f"this needs the 'baselines' extra ({exc}); install it with: {EXTRA_HINT}") from None


def presets() -> dict:
    return {}


def base_config(algo: str | None, game: str, preset: str | None) -> tuple[dict, dict]:
    if preset is not None:
        raise ValueError("the baselines have no presets; set their options with flags")
    return BaselineConfig(algo=algo or DEFAULT_ALGO).to_dict(), {}


def algo_fields(algo: str) -> dict:
    return {"algo": algo}


def algo_name(config: BaselineConfig) -> str:
    return config.algo


def finish_config(config: BaselineConfig, game) -> BaselineConfig:
    need_sb3()
    return config


def load_player(path, game=None):
    """``(SB3Player, GameSpec)`` of a saved model: its ``farl.json`` names the game; a model saved before
    farl wrote that takes its game from the ``run.json`` beside it (or ``game`` must be given)."""

    import farl_envs
    from farl_agents.safe_files import read_json

    need_sb3()
    from farl_agents.baselines.files import BaselineFile, read_baseline
    from farl_agents.baselines.players import SB3Player

    path = Path(path)
    if game is None:
        with BaselineFile(path) as f:
            knows_game = f.settings is not None
        if not knows_game:
            try:
                info = read_json(path.parent / "run.json")
                game = farl_envs.game_spec(info["game"], **info.get("game_params", {}))
            except (OSError, ValueError, KeyError, TypeError, RecursionError):
                raise ValueError(f"{path}: this SB3 model does not say which game it plays; give its run folder "
                                 f"(with run.json) or --game") from None
    model, game = read_baseline(path, game)
    return SB3Player(model, game), game


class Trainer:
    """An SB3 model in a run (see :class:`farl_agents.runs.trainer.Trainer`)."""

    family = "sb3"
    unit = "steps"
    first_chunk = 2048
    config_class = BaselineConfig

    def __init__(self, spec, model, snapshot):
        import torch

        torch.set_num_threads(1)
        self.spec = spec
        self.agent = model
        self.snapshot = snapshot
        self.agent.farl_episodes = int(getattr(model, "farl_episodes", 0))  # SB3 keeps no episode count
        self._callbacks = self._make_callbacks()

    @classmethod
    def _build(cls, spec):
        import farl_envs
        from farl_agents.baselines.train import build_model

        need_sb3()
        c = spec.config
        game = farl_envs.game_spec(spec.game, **spec.game_params)
        return build_model(game, c.algo, seed=c.seed, opponent=c.opponent, n_envs=c.n_envs)

    @classmethod
    def create(cls, spec) -> "Trainer":
        model, snapshot = cls._build(spec)
        return cls(spec, model, snapshot)

    @classmethod
    def load(cls, spec, files: list[Path]) -> "Trainer":
        import farl_envs
        from farl_agents.baselines.files import restore_baseline

        model, snapshot = cls._build(spec)
        game = farl_envs.game_spec(spec.game, **spec.game_params)
        restore_baseline(model, files[0], game, spec.config.algo)  # rebuilt from settings, never unpickled
        return cls(spec, model, snapshot)

    def _make_callbacks(self):
        from stable_baselines3.common.callbacks import BaseCallback, CallbackList

        trainer = self

        class Episodes(BaseCallback):
            """Counts finished episodes and sums their returns (Monitor's ``episode`` info)."""

            def _on_step(self) -> bool:
                for info in self.locals.get("infos", ()):
                    ep = info.get("episode")
                    if ep is not None:
                        trainer._games += 1
                        trainer.agent.farl_episodes += 1
                        trainer._reward += float(ep["r"])
                return True

        class Snapshots(BaseCallback):
            """Self-play: a copy of the learner every ``snapshot_every`` steps, over all chunks."""

            def _on_training_start(self) -> None:
                if trainer.snapshot.frozen is None:
                    trainer.snapshot.refresh(self.model)

            def _on_step(self) -> bool:
                if self.model.num_timesteps - max(trainer.snapshot.refreshed_at, 0) >= \
                        trainer.spec.config.snapshot_every:
                    trainer.snapshot.refresh(self.model)
                return True

        callbacks = [Episodes()] + ([Snapshots()] if self.snapshot is not None else [])
        return CallbackList(callbacks)

    @property
    def total(self) -> int:
        return self.spec.config.timesteps

    @property
    def done(self) -> int:
        return int(self.agent.num_timesteps)

    @property
    def episodes(self) -> int:
        return int(self.agent.farl_episodes)

    @property
    def name(self) -> str:
        return self.spec.config.algo

    def train_chunk(self, amount) -> tuple[int, float, None]:
        self._games, self._reward = 0, 0.0
        self.agent.learn(total_timesteps=max(1, int(amount)), reset_num_timesteps=False,
                         callback=self._callbacks, progress_bar=False)
        return self._games, self._reward, None

    def save(self, folder: Path, stem: str) -> list[str]:
        from farl_agents.baselines.files import save_baseline

        save_baseline(self.agent, folder / f"{stem}.zip", self.agent_game(), self.spec.config.algo)
        return [f"{stem}.zip"]

    def matches(self, spec) -> bool:
        from farl_agents.baselines.dqn import MaskedDQN

        return isinstance(self.agent, MaskedDQN) == (spec.config.algo == "dqn")

    def player(self, spec):
        from farl_agents.baselines.players import SB3Player

        return SB3Player(self.agent, self.agent_game(), name=spec.config.algo)

    def agent_game(self):
        import farl_envs

        return farl_envs.game_spec(self.spec.game, **self.spec.game_params)
