"""Saving and reading back the baselines' Stable-Baselines3 models — as data, never as code.

Agent files are data, never code: nothing farl loads may run code, so farl
never calls Stable-Baselines3's ``load``. SB3 keeps the class of the policy,
the spaces and the schedules in its zip's ``data`` entry as cloudpickle
(``":serialized:"`` values), and unpickling those runs whatever a crafted file
puts there. farl reads a baseline file this way instead:

1. the zip's member names must be SB3's (``data``, ``policy.pth``,
   ``policy.optimizer.pth``, ``pytorch_variables.pth``, the version and
   system-info notes) plus farl's ``farl.json``; anything else is refused;
2. ``farl.json`` (plain JSON, written by :func:`save_baseline`) names the
   algorithm, the game and its parameters, the hyperparameters and the step
   counters; the model is **rebuilt from those settings** with farl's own
   classes (:func:`~farl_agents.baselines.models.make_model`);
3. the weights (and, to resume, the optimizer's state) are read with
   ``torch.load(..., weights_only=True)``, which accepts tensors and plain
   containers and refuses any other object; each member's declared size is
   checked against what the rebuilt network needs before it is read, and
   the tensors must match the network's names and shapes exactly.

``data``'s ``":serialized:"`` values are never decoded. Files written by
farl before ``farl.json`` existed still load: the algorithm is read off the
weights' names (``q_net`` → DQN, ``action_net`` → MaskablePPO), the game
must be given (a run folder's ``run.json`` says it), and the step counters
are read from ``data``'s plain numbers. Every refusal is one
:class:`~farl_agents.learners.agent_io.AgentFileError` line naming the file.

Importing this module does not import torch; reading and writing do.
"""
from __future__ import annotations

import io
import json
import os
import stat
import zipfile
from pathlib import Path

from farl_agents.learners.agent_io import AgentFileError

SETTINGS = "farl.json"
"""The member of a baseline zip with farl's settings (plain JSON)."""
FORMAT = "farl-sb3"
VERSION = 1

WEIGHTS = "policy.pth"
OPTIMIZER = "policy.optimizer.pth"
SB3_NOTES = {"_stable_baselines3_version": 1 << 10, "system_info.txt": 1 << 16}
"""SB3's text members and the most bytes each may declare (never read by farl)."""
MEMBERS = {SETTINGS, "data", WEIGHTS, OPTIMIZER, "pytorch_variables.pth", *SB3_NOTES}

MAX_SETTINGS_BYTES = 1 << 16
MAX_DATA_BYTES = 16 << 20
"""SB3's ``data`` holds base64 cloudpickle of spaces, last observations and episode buffers: small, but not tiny."""
MAX_LEGACY_WEIGHTS_BYTES = 64 << 20
"""Files without ``farl.json``: the weights must be read before the network is known, under this bound."""
PICKLE_SLACK = 1 << 20
"""Bytes a ``torch.save`` file may hold beyond its tensors' own (names, pickle framing, zip records)."""

COUNTERS = ("num_timesteps", "_n_updates", "_episode_num", "_n_calls", "farl_episodes")
"""The step and episode counters kept across a resume (plain integers in ``farl.json``)."""


# ------------------------------------------------------------------ writing
def save_baseline(model, target, game, algo: str, hyperparams: dict | None = None) -> None:
    """Write ``model`` as SB3's zip plus ``farl.json`` to ``target`` (a path or a binary file object).

    The zip is SB3's own layout (SB3's ``load`` still opens it, for those who
    trust the file); ``farl.json`` holds what :func:`load_baseline` needs to
    rebuild the model without unpickling: ``algo``, the game and its
    parameters, the effective hyperparameters (``HYPERPARAMS[algo]`` updated
    by ``hyperparams``) and the counters. Raises ``ValueError`` when a
    hyperparameter is not plain JSON (a class in ``policy_kwargs``, say): such
    a model could not be rebuilt from data.
    """
    from farl_agents.baselines.models import HYPERPARAMS, check_algo

    algo = check_algo(algo)
    settings = {"format": FORMAT, "version": VERSION, "algo": algo, "game": game.name,
                "game_params": dict(game.params), "hyperparams": {**HYPERPARAMS[algo], **(hyperparams or {})},
                "counters": {name: int(getattr(model, name, 0)) for name in COUNTERS}}
    try:
        text = json.dumps(settings, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"the {algo} settings are not plain JSON ({exc}); farl saves only models it can rebuild "
                         f"from data") from None
    buf = io.BytesIO()
    model.save(buf, include=["farl_episodes"])
    with zipfile.ZipFile(buf, "a", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(SETTINGS, text)
    if isinstance(target, (str, os.PathLike)):
        from farl_agents.atomic import atomic_file

        with atomic_file(Path(target), "wb") as fh:
            fh.write(buf.getvalue())
    else:
        target.write(buf.getvalue())


# ------------------------------------------------------------------ reading
def baseline_path(path) -> Path:
    """The model file ``path`` names: the file, or ``model.zip`` / ``agent.zip`` of a run folder."""
    p = Path(path)
    if p.is_dir():
        for name in ("model.zip", "agent.zip"):
            if (p / name).exists():
                return p / name
        raise AgentFileError(f"{path}: no model.zip or agent.zip in this folder")
    return p


class BaselineFile:
    """An opened baseline zip whose members were checked by name and declared size; nothing decoded yet.

    Use as a context manager. :attr:`settings` is ``farl.json`` (``None`` for
    files written before it existed).
    """

    def __init__(self, path):
        self.path = baseline_path(path)
        try:
            mode = os.stat(self.path).st_mode
        except OSError as exc:
            raise AgentFileError(f"{path}: no saved model here ({exc.strerror})") from None
        if not stat.S_ISREG(mode):
            raise AgentFileError(f"{self.path}: not a regular file")
        try:
            self.zip = zipfile.ZipFile(self.path)
        except (zipfile.BadZipFile, OSError, ValueError) as exc:
            raise AgentFileError(f"{self.path} is not a Stable-Baselines3 model file ({exc})") from None
        try:
            self.members = self._check_members()
            self.settings = self._read_settings()
        except BaseException:
            self.zip.close()
            raise

    def __enter__(self) -> "BaselineFile":
        return self

    def __exit__(self, *exc) -> None:
        self.zip.close()

    def fail(self, why: str) -> AgentFileError:
        return AgentFileError(f"{self.path}: {why}")

    def _check_members(self) -> dict:
        infos = self.zip.infolist()
        names = [i.filename for i in infos]
        unknown = sorted(set(names) - MEMBERS)
        if unknown:
            raise self.fail(f"member {unknown[0]!r} is not part of a Stable-Baselines3 model; farl refuses files "
                            f"with other members (agent files are data, never code)")
        if len(set(names)) != len(names):
            raise self.fail("a member name appears twice")
        if WEIGHTS not in names:
            raise self.fail(f"no {WEIGHTS} (not a Stable-Baselines3 model file)")
        members = {i.filename: i for i in infos}
        for name, most in {SETTINGS: MAX_SETTINGS_BYTES, "data": MAX_DATA_BYTES, **SB3_NOTES}.items():
            if name in members and members[name].file_size > most:
                raise self.fail(f"member {name} declares {members[name].file_size:,} bytes, more than {most:,}")
        return members

    def _read_text(self, name: str) -> str:
        try:
            return self.zip.read(name).decode("utf-8")
        except Exception as exc:  # a damaged stream: zlib.error, BadZipFile (CRC), EOFError, UnicodeDecodeError
            raise self.fail(f"member {name} is damaged ({type(exc).__name__}: {exc})") from None

    def _read_json(self, name: str) -> dict:
        try:
            value = json.loads(self._read_text(name))
        except (ValueError, RecursionError) as exc:
            raise self.fail(f"member {name} is not JSON ({type(exc).__name__})") from None
        if not isinstance(value, dict):
            raise self.fail(f"member {name} is not a JSON object")
        return value

    def _read_settings(self) -> dict | None:
        if SETTINGS not in self.members:
            return None
        s = self._read_json(SETTINGS)
        if s.get("format") != FORMAT:
            raise self.fail(f"{SETTINGS} has format {s.get('format')!r}, expected {FORMAT!r}")
        if s.get("version") != VERSION:
            raise self.fail(f"{SETTINGS} has version {s.get('version')!r}; this farl reads {VERSION}")
        for key, kind in (("algo", str), ("game", str), ("game_params", dict), ("hyperparams", dict),
                          ("counters", dict)):
            if not isinstance(s.get(key), kind):
                raise self.fail(f"{SETTINGS}: {key!r} must be a JSON {'string' if kind is str else 'object'}")
        return s

    def counters(self) -> dict:
        """The step counters: ``farl.json``'s, or for older files the plain integers of SB3's ``data``."""
        if self.settings is not None:
            source = self.settings["counters"]
        elif "data" in self.members:
            source = self._read_json("data")
        else:
            source = {}
        out = {}
        for name in COUNTERS:
            value = source.get(name, 0)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise self.fail(f"counter {name!r} must be an integer >= 0, got {value!r}")
            out[name] = value
        return out

    def tensors(self, name: str, most: int) -> dict:
        """Member ``name`` read with ``torch.load(weights_only=True)``: tensors and plain containers only."""
        import pickle

        import torch

        info = self.members.get(name)
        if info is None:
            raise self.fail(f"no {name}")
        if info.file_size > most:
            raise self.fail(f"member {name} declares {info.file_size:,} bytes; the network needs at most {most:,}")
        try:
            raw = self.zip.read(name)
        except Exception as exc:  # a damaged stream: zlib.error, BadZipFile (CRC), EOFError
            raise self.fail(f"member {name} is damaged ({type(exc).__name__}: {exc})") from None
        try:
            value = torch.load(io.BytesIO(raw), map_location="cpu", weights_only=True)
        except pickle.UnpicklingError as exc:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else "objects other than tensors"
            raise self.fail(f"member {name} holds more than tensors and would need unpickling, which farl never "
                            f"does (agent files are data, never code): {first}") from None
        except Exception as exc:
            raise self.fail(f"member {name} is not a tensor file ({type(exc).__name__}: "
                            f"{str(exc).strip().splitlines()[0] if str(exc).strip() else ''})") from None
        if not isinstance(value, dict):
            raise self.fail(f"member {name} holds a {type(value).__name__}, expected a dict of tensors")
        return value


def _state_bytes(state: dict) -> int:
    import torch

    total = 0
    stack = [state]
    while stack:
        item = stack.pop()
        if isinstance(item, torch.Tensor):
            total += item.numel() * item.element_size()
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
    return total


def _algo_of_weights(weights: dict) -> str | None:
    if any(str(k).startswith("q_net.") for k in weights):
        return "dqn"
    if any(str(k).startswith("action_net.") for k in weights):
        return "maskable-ppo"
    return None


def _load_weights(f: BaselineFile, model, weights: dict | None = None) -> None:
    import torch

    policy = model.policy
    expected = policy.state_dict()
    if weights is None:
        weights = f.tensors(WEIGHTS, _state_bytes(expected) + PICKLE_SLACK)
    if set(weights) != set(expected):
        missing, extra = sorted(set(expected) - set(weights)), sorted(set(weights) - set(expected))
        raise f.fail(f"{WEIGHTS} does not fit the {type(model).__name__} network farl builds for these settings "
                     f"(missing {missing[:3]}, unexpected {extra[:3]})")
    for key, want in expected.items():
        got = weights[key]
        if not isinstance(got, torch.Tensor) or got.shape != want.shape or got.dtype != want.dtype:
            what = (f"{tuple(got.shape)}/{got.dtype}" if isinstance(got, torch.Tensor) else type(got).__name__)
            raise f.fail(f"{WEIGHTS}: {key} is {what}, the network needs {tuple(want.shape)}/{want.dtype}")
        if got.is_floating_point() and not bool(torch.isfinite(got).all()):
            raise f.fail(f"{WEIGHTS}: {key} holds values that are not finite")
    policy.load_state_dict(weights, strict=True)


def _load_optimizer(f: BaselineFile, model) -> None:
    optimizer = model.policy.optimizer
    if OPTIMIZER not in f.members:
        return  # weights only: the optimizer starts afresh
    params = sum(p.numel() * p.element_size() for g in optimizer.param_groups for p in g["params"])
    state = f.tensors(OPTIMIZER, 3 * params + PICKLE_SLACK)  # Adam: two moments per weight, plus steps
    try:
        optimizer.load_state_dict(state)
    except Exception as exc:
        raise f.fail(f"{OPTIMIZER} does not fit the optimizer ({type(exc).__name__}: {exc})") from None


def _set_counters(f: BaselineFile, model) -> None:
    for name, value in f.counters().items():
        setattr(model, name, value)


def restore_baseline(model, path, game, algo: str) -> None:
    """Load a saved run's weights, optimizer state and counters into ``model``, built from the run's settings.

    ``model`` comes from the run's own settings (game, algorithm, envs and
    opponents): this is resuming. The file's ``farl.json``, where present,
    must name the same game, parameters and algorithm.
    """
    with BaselineFile(path) as f:
        if f.settings is not None:
            s = f.settings
            if (s["algo"], s["game"], s["game_params"]) != (algo, game.name, dict(game.params)):
                raise f.fail(f"the file holds {s['algo']} on {s['game']} {s['game_params']}, the run is {algo} "
                             f"on {game.name} {dict(game.params)}")
        _load_weights(f, model)
        _load_optimizer(f, model)
        _set_counters(f, model)


def load_baseline(path, game=None):
    """The model saved at ``path``: :func:`read_baseline` without the game."""
    return read_baseline(path, game)[0]


def read_baseline(path, game=None):
    """``(model, game spec)`` saved at ``path``: MaskablePPO or farl's :class:`~farl_agents.baselines.dqn.MaskedDQN`.

    ``path`` is a ``.zip`` or a folder holding ``model.zip`` / ``agent.zip``.
    ``game`` (a name or a :class:`~farl_envs.core.spec.GameSpec`) is needed
    only for files without ``farl.json``; when both are there they must
    agree. The model is rebuilt from the file's settings and given its
    weights, never unpickled (see the module docstring); it sits on one
    wrapped env with a random opponent, ready to play or to train further.
    Raises :class:`~farl_agents.learners.agent_io.AgentFileError` (a
    ``ValueError``) with one line naming the file for anything else.
    """
    import farl_envs
    from farl_agents.baselines.models import ALGOS, make_model

    if isinstance(game, str):
        game = farl_envs.game_spec(game)
    with BaselineFile(path) as f:
        weights = None
        if f.settings is not None:
            s = f.settings
            algo = s["algo"]
            if algo not in ALGOS:
                raise f.fail(f"{SETTINGS}: unknown algorithm {algo!r} (farl saves {', '.join(ALGOS)})")
            try:
                saved_game = farl_envs.game_spec(s["game"], **s["game_params"])
            except (ValueError, TypeError, KeyError) as exc:
                raise f.fail(f"{SETTINGS}: game {s['game']!r} {s['game_params']}: {exc}") from None
            if game is not None and (game.name, dict(game.params)) != (saved_game.name, dict(saved_game.params)):
                raise f.fail(f"the model plays {saved_game.name} {dict(saved_game.params)}, not {game.name} "
                             f"{dict(game.params)}")
            game, hyperparams = saved_game, s["hyperparams"]
        else:
            if game is None:
                raise f.fail("a model saved without farl.json does not say which game it plays; give its run "
                             "folder (with run.json) or the game")
            weights = f.tensors(WEIGHTS, MAX_LEGACY_WEIGHTS_BYTES)
            algo = _algo_of_weights(weights)
            if algo is None:
                raise f.fail("not a MaskablePPO or farl MaskedDQN model (no action_net or q_net weights)")
            hyperparams = None
        try:
            model = make_model(game, algo, [None], hyperparams=hyperparams)  # one env, a random opponent
        except (ValueError, TypeError) as exc:
            raise f.fail(f"{SETTINGS}: the settings do not build a model ({exc})") from None
        _load_weights(f, model, weights)
        _set_counters(f, model)
    return model, game
