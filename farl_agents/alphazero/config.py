"""AlphaZeroConfig: the settings of an AlphaZero run (saved in ``run.json``; every field a ``farl train`` flag)."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from farl_agents.alphazero.network import KINDS
from farl_agents.config_flags import check_field_types, settings_from_dict


@dataclass(frozen=True)
class AlphaZeroConfig:
    """The settings of an AlphaZero self-play run."""

    minutes: float = 10.0
    """Budget: training minutes (self-play and network updates; evaluations and compiling excluded)."""
    games: int = 128
    """Self-play games played at once (the batch of envs and of search trees; one network call per
    simulation step evaluates a leaf of each)."""
    simulations: int = 32
    """PUCT simulations per self-play move."""
    c_puct: float = 1.25
    """PUCT exploration constant on the [-1, 1] value scale."""
    dirichlet_alpha: float = 0.0
    """Dirichlet root noise concentration (0: 10 / number of actions, within [0.03, 1])."""
    noise_weight: float = 0.25
    """Weight of the Dirichlet noise in the root priors of self-play (0: none)."""
    temperature_plies: int = -1
    """Plies of each self-play game whose move is drawn in proportion to the root visits (temperature 1);
    greedy (most visited) after them (-1: a quarter of the game's longest length, at most 30)."""
    replay_size: int = 50_000
    """Positions kept in the replay buffer (the newest)."""
    batch_size: int = 256
    """Positions per network update."""
    replay_ratio: float = 4.0
    """Training positions drawn per new self-play position (sets the updates per self-play step)."""
    learning_rate: float = 1e-3
    """Adam's step size."""
    weight_decay: float = 1e-4
    """L2 penalty (Adam's weight decay)."""
    symmetries: bool = True
    """Augment training positions with a random one of the game's declared symmetries (where the
    observation follows the board, see farl_agents.alphazero.symmetry)."""
    network: str = "auto"
    """auto (residual CNN for rows x cols x planes observations, else MLP), resnet or mlp."""
    filters: int = 32
    """Channels of the residual CNN."""
    blocks: int = 2
    """Residual blocks of the CNN."""
    hidden: int = 64
    """Hidden units of the value head (and of the MLP's layers)."""
    play_simulations: int = 100
    """PUCT simulations per move of the trained agent in farl eval / farl play and at curve points (0: the
    policy's most probable move)."""
    seed: int = 0
    """Seed of the network's initialisation, the noise, the move draws and the replay sampling."""
    cpu_clock: bool = False
    """Count the budget in CPU seconds of this process instead of wall-clock seconds: runs that share a busy
    machine then get the same computation (torch runs on one thread, so the two agree on an idle machine)."""

    def __post_init__(self):
        check_field_types(self)
        if not 0 < self.minutes <= 1e6:
            raise ValueError("minutes must be > 0")
        for name in ("games", "simulations", "replay_size", "batch_size", "filters", "hidden"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1")
        if self.games > 65_536:
            raise ValueError("games must be <= 65536")
        if self.simulations > 100_000 or not 0 <= self.play_simulations <= 100_000:
            raise ValueError("simulations and play_simulations must be <= 100000 (play_simulations >= 0)")
        if self.blocks < 0 or self.temperature_plies < -1:
            raise ValueError("blocks must be >= 0 and temperature_plies >= -1")
        for name in ("c_puct", "dirichlet_alpha", "replay_ratio", "learning_rate", "weight_decay"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be >= 0")
        if not 0 <= self.noise_weight <= 1:
            raise ValueError("noise_weight must be in [0, 1]")
        if self.network not in KINDS:
            raise ValueError(f"network must be one of {', '.join(KINDS)}, got {self.network!r}")

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> "AlphaZeroConfig":
        return settings_from_dict(cls, d, "alphazero options")

    def alpha(self, game) -> float:
        """The Dirichlet concentration on ``game``."""
        return self.dirichlet_alpha or min(1.0, max(0.03, 10.0 / game.n_actions))

    def sampled_plies(self, game) -> int:
        """Plies drawn with temperature 1 on ``game``."""
        if self.temperature_plies >= 0:
            return self.temperature_plies
        return int(min(30, max(1, game.max_plies // 4)))
