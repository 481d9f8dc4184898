"""Learning-data selection (Cohen-Solal 2020, Alg. 3-5) and experience replay (Alg. 6).

After a game of self-play, the pairs (s, y) to learn are:

``tree``      every state of the final search tree that is a non-leaf or
              terminal, with its minimax value v(s) in that tree (tree
              bootstrapping, Alg. 3);
``root``      the states of the game's sequence, each with its value v(s) in
              the tree at the time it was the root (root bootstrapping, Alg. 4);
``terminal``  the states of the game's sequence, each with the terminal
              value f_t of the game's last state (Alg. 5, AlphaZero-style).

:class:`ReplayBuffer` is Alg. 6: the new pairs are appended to a memory of
at most μ (``memory_size``) pairs, dropping the oldest; while the memory
holds at most ``min_sample`` pairs all of them are returned, afterwards a
random sample of max(``min_sample``, σ·|M|) of them (σ = ``sampling_rate``).
The seed's threshold symbol is lost; this reading never returns fewer pairs
than before the memory filled up.
"""
from __future__ import annotations

import numpy as np

LEARNINGS = ("tree", "root", "terminal")


class ReplayBuffer:
    """Alg. 6's memory M as a ring buffer of (board, target) pairs."""

    def __init__(self, n_cells: int, memory_size: int = 200_000, sampling_rate: float = 0.25,
                 min_sample: int = 20_000):
        if memory_size < 1 or not 0 < sampling_rate <= 1 or min_sample < 1:
            raise ValueError("memory_size and min_sample must be >= 1 and sampling_rate in (0, 1]")
        self.memory_size = int(memory_size)
        self.sampling_rate = float(sampling_rate)
        self.min_sample = int(min_sample)
        self.boards = np.zeros((self.memory_size, n_cells), dtype=np.int8)
        self.targets = np.zeros(self.memory_size)
        self.count = 0
        self.pos = 0

    def add(self, boards: np.ndarray, targets: np.ndarray) -> None:
        boards, targets = boards[-self.memory_size:], targets[-self.memory_size:]
        n = len(targets)
        idx = (self.pos + np.arange(n)) % self.memory_size
        self.boards[idx] = boards
        self.targets[idx] = targets
        self.pos = int((self.pos + n) % self.memory_size)
        self.count = min(self.count + n, self.memory_size)

    def sample(self, rng: np.random.Generator):
        """The pairs of one learning phase (all, or a random sample; see the module docstring)."""
        if self.count <= self.min_sample:
            k = np.arange(self.count)
        else:
            size = min(self.count, max(self.min_sample, int(np.ceil(self.sampling_rate * self.count))))
            k = rng.choice(self.count, size=size, replace=False)
        return self.boards[k].astype(np.int32), self.targets[k]

    def experience_replay(self, boards, targets, rng):
        """Alg. 6: add the new pairs, return the pairs to learn."""
        self.add(boards, targets)
        return self.sample(rng)

    def state_arrays(self) -> dict:
        n = self.count
        order = (self.pos - n + np.arange(n)) % self.memory_size  # oldest first
        return {"replay_boards": self.boards[order], "replay_targets": self.targets[order]}

    def load_arrays(self, boards: np.ndarray, targets: np.ndarray) -> None:
        if boards.ndim != 2 or boards.shape[1] != self.boards.shape[1] or len(targets) != len(boards):
            raise ValueError("replay memory arrays have the wrong shape")
        self.count, self.pos = 0, 0
        self.add(boards, targets)


def game_data(learning: str, tree_boards, tree_values, path_boards, path_values, final_value):
    """The (boards, targets) of one game for ``learning`` (Alg. 3-5)."""
    if learning == "tree":
        return tree_boards, tree_values
    if learning == "root":
        return path_boards, path_values
    if learning == "terminal":
        return path_boards, np.full(len(path_boards), float(final_value))
    raise ValueError(f"unknown learning {learning!r}; choose one of {', '.join(LEARNINGS)}")
