"""``farl``: train, evaluate and play the n-tuple FARL agents, and reproduce the paper's Table 1.

::

    farl train tictactoe --algo td-farl --preset paper --eval-vs maxn10 --eval-every 1000
    farl train --resume runs/tictactoe-td-farl-seed0-20260101-120000      # after Ctrl-C or a crash
    farl eval runs/.../agent.npz --vs maxn10 --start-states start+1ply
    farl play connect_four --agent runs/.../agent.npz --seat 1
    farl reproduce table1 --rows tictactoe,nim,nim3p --budget quick --runs 3
    farl info

``farl train`` has one flag per field of
:class:`~farl_agents.learners.LearnerConfig` (``--alpha``, ``--alpha-final``,
``--lam`` ...), made from the dataclass and its field docstrings, so the
help and the saved ``run.json`` cannot drift apart. Settings are applied in
this order, later ones winning: ``--preset`` (else the class defaults),
``--config FILE`` (TOML or JSON: the fields, optionally a ``game_params``
table; a run's ``run.json`` works too), ``--algo``, the field flags,
``--set key=value``.

Mistakes in what was typed (unknown game, option or opponent, bad config
file, missing or foreign agent file, unwritable folder) end with a one-line
message and exit code 2; ``--debug`` shows the traceback instead. A run
stopped with Ctrl-C exits with 130 after writing a checkpoint.

Other packages can add commands: ``farl_agents.baselines.cli.register(subparsers)``
is called when that module exists; each command it adds sets
``func(args) -> int`` with ``set_defaults``.
"""
from __future__ import annotations

import argparse
import ast
import datetime
import inspect
import json
import shlex
import sys
import textwrap
import typing
from pathlib import Path

import numpy as np

import farl_envs
from farl_agents.learners import LearnerConfig, NTupleAgent, paper_game_params, preset_names
from farl_agents.learners import config as config_module

ALGOS = {"td-farl": ("td", True), "td": ("td", False), "sarsa-farl": ("sarsa", True), "sarsa": ("sarsa", False),
         "q-farl": ("q", True), "q": ("q", False)}
"""CLI name -> (LearnerConfig.algo, LearnerConfig.farl); "no FARL" switches both parts of final adaptation off."""
FIELD_CHOICES = {"alpha_schedule": config_module.SCHEDULES, "epsilon_schedule": config_module.SCHEDULES,
                 "trace_mode": config_module.TRACE_MODES, "tcl": config_module.TCL_MODES,
                 "ntuples": config_module.NTUPLE_KINDS}
NOT_FLAGS = ("algo", "farl")
"""Fields set through ``--algo`` rather than a flag of their own (``--set`` reaches them too)."""
OPPONENT_HELP = {
    "random": "uniformly random legal moves (all games)",
    "maxn<depth>": "Max-N search, perfect within the depth (games without chance: TicTacToe, Nim, Nim3P, ...)",
    "mcts<iterations>": "UCT Monte-Carlo tree search (all games)",
    "bench": "van der Ree & Wiering's positional Othello benchmark player (Othello)",
    "heur": "Othello heuristic player (Othello)",
    "edax<depth>": "the Edax engine at a depth (Othello; needs the edax binary)",
    "bouton": "perfect two-player Nim by Bouton's nim-sum (Nim)",
    "ab": "perfect Connect Four (alpha-beta solver), random among equally good moves",
    "ab-dl": "perfect Connect Four that delays losses as long as possible",
}


class CliError(Exception):
    """A mistake in what was typed: printed as one line, exit code 2."""


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Shows a default only where there is one worth showing."""

    def _get_help_string(self, action):
        if action.default in (None, False, argparse.SUPPRESS) or "default" in (action.help or ""):
            return action.help
        return super()._get_help_string(action)


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors (raised as :class:`CliError`, printed by :func:`main`)."""

    def error(self, message):
        raise CliError(f"{message}; see `{self.prog} --help`")


# ------------------------------------------------------------ LearnerConfig flags
def config_field_docs(cls=LearnerConfig) -> dict:
    """The docstring under each dataclass field, read from the source (``{field: text}``)."""
    body = ast.parse(textwrap.dedent(inspect.getsource(cls))).body[0].body
    docs = {}
    for a, b in zip(body, body[1:]):
        if (isinstance(a, ast.AnnAssign) and isinstance(a.target, ast.Name) and isinstance(b, ast.Expr)
                and isinstance(b.value, ast.Constant) and isinstance(b.value.value, str)):
            docs[a.target.id] = " ".join(b.value.value.replace("``", "").split())
    return docs


FIELD_TYPES = typing.get_type_hints(LearnerConfig)
FIELD_DEFAULTS = {f.name: f.default for f in LearnerConfig.__dataclass_fields__.values()}


def _bool(text: str) -> bool:
    low = str(text).strip().lower()
    if low in ("1", "true", "yes", "on"):
        return True
    if low in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"expected true or false, got {text!r}")


def coerce_field(name: str, value):
    """``value`` (text from the command line, or a TOML/JSON value) as the type of field ``name``."""
    if name not in FIELD_TYPES:
        raise CliError(f"unknown learner option {name!r}; the options are LearnerConfig's fields "
                       f"(see `farl train --help`)")
    t = FIELD_TYPES[name]
    text = isinstance(value, str)
    try:
        if t is bool:
            if text:
                return _bool(value)
            if not isinstance(value, bool):
                raise ValueError(f"expected true or false, got {value!r}")
            return value
        if t is int:
            if isinstance(value, bool) or not (text or isinstance(value, int)):
                raise ValueError(f"expected an integer, got {value!r}")
            return int(value)
        if t is float or t == (float | None):
            if value is None or (text and value.strip().lower() in ("none", "null")):
                if t is float:
                    raise ValueError("a number is needed")
                return None
            if isinstance(value, bool):
                raise ValueError(f"expected a number, got {value!r}")
            return float(value)
        if t is str:
            if not text:
                raise ValueError(f"expected text, got {value!r}")
            choices = FIELD_CHOICES.get(name)
            if choices and value not in choices:
                raise ValueError(f"expected one of {', '.join(choices)}, got {value!r}")
            return value
        if t is tuple:
            cells = json.loads(value) if text else value
            if not isinstance(cells, (list, tuple)) or not all(isinstance(c, (list, tuple)) for c in cells):
                raise ValueError("expected a list of lists of cells, e.g. [[0,1,2],[3,4,5]]")
            return tuple(tuple(int(x) for x in c) for c in cells)
    except (ValueError, TypeError) as exc:
        raise CliError(f"bad value for {name}: {exc}") from None
    raise CliError(f"cannot set {name} from the command line")  # pragma: no cover - every field type is handled


def _flag_type(name: str):
    def parse(text):
        try:
            return coerce_field(name, text)
        except CliError as exc:
            raise argparse.ArgumentTypeError(str(exc).removeprefix(f"bad value for {name}: ")) from None

    parse.__name__ = str(FIELD_TYPES[name]).replace("<class '", "").replace("'>", "")
    return parse


def add_config_flags(parser: argparse.ArgumentParser) -> None:
    """One flag per LearnerConfig field (except ``algo``/``farl``), help from the field's docstring."""
    group = parser.add_argument_group(
        "learner settings", "LearnerConfig's fields; unset ones come from --preset / --config (else the "
                            "class default shown)")
    docs = config_field_docs()
    for name, t in FIELD_TYPES.items():
        if name in NOT_FLAGS:
            continue
        flag = "--" + name.replace("_", "-")
        default = FIELD_DEFAULTS[name]
        helptext = (docs.get(name, "") + f" [default {default!r}]").replace("%", "%%")
        if t is bool:
            group.add_argument(flag, action=argparse.BooleanOptionalAction, default=argparse.SUPPRESS, help=helptext)
        else:
            metavar = {int: "N", float: "X", tuple: "JSON"}.get(t, "X|none" if t == (float | None) else "NAME")
            group.add_argument(flag, type=_flag_type(name), default=argparse.SUPPRESS, metavar=metavar,
                               choices=FIELD_CHOICES.get(name), help=helptext)


def _key_values(items, what: str) -> list[tuple[str, str]]:
    pairs = []
    for item in items or ():
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise CliError(f"{what} takes key=value, got {item!r}")
        pairs.append((key.strip().replace("-", "_"), value.strip()))
    return pairs


def _param_value(text: str):
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    try:
        return int(text)
    except ValueError:
        return text


def read_config_file(path) -> tuple[dict, dict]:
    """``(learner fields, game params)`` from a TOML or JSON file (or a run's ``run.json``)."""
    path = Path(path)
    if not path.is_file():
        raise CliError(f"config file {path} not found")
    try:
        if path.suffix == ".toml":
            import tomllib
            data = tomllib.loads(path.read_text())
        elif path.suffix == ".json":
            data = json.loads(path.read_text())
        else:
            raise CliError(f"config file {path} must end in .toml or .json")
    except (ValueError, UnicodeDecodeError) as exc:  # TOMLDecodeError and JSONDecodeError are ValueErrors
        raise CliError(f"{path} is not valid {path.suffix[1:].upper()}: {exc}") from None
    if not isinstance(data, dict):
        raise CliError(f"{path} must hold a table of LearnerConfig fields")
    if isinstance(data.get("config"), dict):  # a run.json
        fields, params = dict(data["config"]), data.get("game_params", {})
    else:
        fields = dict(data)
        params = fields.pop("game_params", None) or fields.pop("params", None) or {}
    if not isinstance(params, dict):
        raise CliError(f"{path}: game_params must be a table of game parameters")
    unknown = sorted(set(fields) - set(FIELD_TYPES))
    if unknown:
        raise CliError(f"{path}: unknown learner option(s) {', '.join(unknown)}; the options are "
                       f"LearnerConfig's fields (see `farl train --help`)")
    try:
        return {k: coerce_field(k, v) for k, v in fields.items()}, dict(params)
    except CliError as exc:
        raise CliError(f"{path}: {exc}") from None


def game_name(name: str) -> str:
    """The short name of a game (``tictactoe_v0`` -> ``tictactoe``), or a CliError listing the games."""
    key = name[:-3] if name.endswith("_v0") else name
    if key + "_v0" not in farl_envs.list_games():
        raise CliError(f"unknown game {name!r}; the games are {', '.join(g[:-3] for g in farl_envs.list_games())}")
    return key


def game_with_params(name: str, params: dict):
    """The GameSpec of ``name`` with ``params``, with a clear message for unknown or bad parameters."""
    key = game_name(name)
    known = farl_envs.game_spec(key).params
    unknown = sorted(set(params) - set(known))
    if unknown:
        have = ", ".join(f"{k} (default {v})" for k, v in known.items()) or "none"
        raise CliError(f"{key} has no parameter {', '.join(unknown)}; its parameters: {have}")
    try:
        return farl_envs.game_spec(key, **params)
    except (ValueError, TypeError) as exc:
        raise CliError(f"bad parameters for {key}: {exc}") from None


def build_config(args, game: str) -> tuple[LearnerConfig, dict]:
    """The learner settings and game parameters that ``farl train``'s arguments describe."""
    algo, farl = ALGOS[args.algo or "td-farl"]
    seed002 = [n for n in preset_names() if n + "_v0" not in farl_envs.list_games()]
    try:
        if args.preset is None:
            base = LearnerConfig(algo=algo, farl=farl, farl_terminal=farl)
            params = {}
        elif args.preset == "paper":
            base = LearnerConfig.paper(game, algo=algo, farl=farl)
            params = paper_game_params(game)
        elif args.preset in seed002:
            if game != "connect_four":
                raise CliError(f"preset {args.preset!r} is a seed-002 Connect Four row, not for {game}")
            base = LearnerConfig.paper(args.preset, algo=algo, farl=farl)
            params = paper_game_params(args.preset)
        else:
            raise CliError(f"unknown preset {args.preset!r}; use paper or a seed-002 row: {', '.join(seed002)}")
    except ValueError as exc:
        raise CliError(str(exc)) from None
    overrides = {}
    if args.config:
        fields, file_params = read_config_file(args.config)
        overrides.update(fields)
        params.update(file_params)
    if args.algo is not None:
        overrides.update(algo=algo, farl=farl)
    for name in FIELD_TYPES:
        if name not in NOT_FLAGS and hasattr(args, name):
            overrides[name] = getattr(args, name)
    for key, value in _key_values(args.set, "--set"):
        overrides[key] = coerce_field(key, value)
    for key, value in _key_values(args.param, "--param"):
        params[key] = _param_value(value)
    try:
        config = LearnerConfig.from_dict({**base.to_dict(), **overrides})
    except (ValueError, TypeError) as exc:
        raise CliError(f"bad learner settings: {exc}") from None
    return config, dict(game_with_params(game, params).params)


def _algo_name(config: LearnerConfig) -> str:
    return f"{config.algo}{'-farl' if config.farl else ''}"


def _split(values) -> list[str]:
    out = []
    for v in values or ():
        out += [x.strip() for x in v.split(",") if x.strip()]
    return out


def _command(argv) -> str:
    return "farl " + shlex.join(argv)


# ------------------------------------------------------------------ train
def _add_train(sub) -> None:
    p = sub.add_parser(
        "train", help="train an n-tuple agent (resumable; learning curve, checkpoints)",
        description="Train an n-tuple FARL learner by self-play. The run folder gets agent.npz, curve.csv, "
                    "curve.png, run.json and checkpoints; Ctrl-C writes a checkpoint and "
                    "`farl train --resume DIR` continues exactly where it stopped.",
        epilog="Precedence: --preset < --config < --algo < field flags < --set. "
               "Example: farl train tictactoe --preset paper --eval-vs maxn10 --eval-every 1000",
        formatter_class=HelpFormatter)
    p.add_argument("game", nargs="?", help="the game (farl info lists them), e.g. tictactoe or connect_four")
    p.add_argument("--algo", choices=list(ALGOS), help="the learner; the -farl variants use final adaptation "
                                                       "(default td-farl). Other learner families (farl info "
                                                       "lists them, e.g. nemesh) have their own `farl train "
                                                       "GAME --algo NAME --help`")
    p.add_argument("--preset", help="start from the paper's settings for the game ('paper', seed 000 A.6) or a "
                                    "seed-002 Connect Four row (tdl-et, tcl-rr, ...)")
    p.add_argument("--param", action="append", metavar="KEY=VALUE",
                   help="a game parameter, e.g. --param cols=8 (repeatable; --preset paper starts from Table 1's)")
    p.add_argument("--config", metavar="FILE", help="learner settings from a .toml or .json file")
    p.add_argument("--set", action="append", metavar="KEY=VALUE", help="set any LearnerConfig field (repeatable)")
    p.add_argument("--out", metavar="DIR", help="the run folder (default runs/<game>-<algo>-seed<seed>-<time>)")
    p.add_argument("--resume", metavar="DIR", help="continue the run in DIR from its last checkpoint "
                                                   "(its settings are fixed in DIR/run.json)")
    g = p.add_argument_group("evaluation during training (curve points)")
    g.add_argument("--eval-every", type=int, metavar="K", help="episodes between curve points "
                                                                "(default: a twentieth of the run)")
    g.add_argument("--eval-vs", action="append", metavar="OPP",
                   help="opponent(s) to evaluate against at each curve point (comma list or repeated; "
                        "one-player games are evaluated alone with any value)")
    g.add_argument("--eval-games", type=int, metavar="G", help="games per seat and opponent per evaluation "
                                                               "(default: the harness's for the start set)")
    g.add_argument("--eval-starts", default="table1", metavar="SET",
                   help="start positions: table1 (the game's Table 1 set), initial, all-1ply, start+1ply, "
                        "othello-4ply, random:K")
    g.add_argument("--eval-seed", type=int, default=0, metavar="S",
                   help="seed of the evaluations (the agent's random streams are never used)")
    g.add_argument("--eval-jobs", type=int, default=1, metavar="J", help="worker processes for each evaluation")
    r = p.add_argument_group("running")
    r.add_argument("--stop-after", type=int, metavar="N",
                   help="stop (with a checkpoint) once N episodes are done; continue later with --resume")
    r.add_argument("--checkpoint-minutes", type=float, default=5.0, metavar="M",
                   help="checkpoint at least this often (and at every evaluation)")
    r.add_argument("--quiet", action="store_true", help="no progress bar")
    add_config_flags(p)
    p.set_defaults(func=cmd_train, command="train")


def _spec_from_args(args):
    from farl_agents.experiments.run import ALONE, RunSpec
    from farl_agents.opponents import make_opponent

    if not args.game:
        raise CliError("name the game to train (e.g. farl train tictactoe), or continue a run with --resume DIR")
    game = game_name(args.game)
    config, params = build_config(args, game)
    spec_game = farl_envs.game_spec(game, **params)
    eval_vs = _split(args.eval_vs)
    if spec_game.n_players == 1:
        eval_vs = [ALONE] if (eval_vs or args.eval_every) else []
    for o in eval_vs if spec_game.n_players > 1 else ():
        try:
            make_opponent(o, spec_game)
        except (ValueError, RuntimeError) as exc:
            raise CliError(f"--eval-vs {o}: {exc}") from None
    if args.eval_every is not None and args.eval_every < 1:
        raise CliError("--eval-every must be >= 1")
    if args.eval_games is not None and args.eval_games < 1:
        raise CliError("--eval-games must be >= 1")
    from farl_agents.experiments.run import start_states
    try:
        start_states(spec_game, args.eval_starts)
        return RunSpec(game, params, config, eval_vs=tuple(eval_vs), eval_every=args.eval_every or 0,
                       eval_games=args.eval_games, eval_starts=args.eval_starts, eval_seed=args.eval_seed)
    except ValueError as exc:
        raise CliError(str(exc)) from None


def cmd_train(args) -> int:
    from farl_agents.experiments.run import Run, summary_line

    if args.eval_jobs < 1:
        raise CliError("--eval-jobs must be >= 1")
    if args.resume:
        given = [f"--{n.replace('_', '-')}" for n in FIELD_TYPES if n not in NOT_FLAGS and hasattr(args, n)]
        given += [flag for flag, v in (("GAME", args.game), ("--algo", args.algo), ("--preset", args.preset),
                                       ("--param", args.param), ("--config", args.config), ("--set", args.set),
                                       ("--out", args.out), ("--eval-every", args.eval_every),
                                       ("--eval-vs", args.eval_vs), ("--eval-games", args.eval_games)) if v]
        if given:
            raise CliError(f"--resume continues the run stored in {args.resume}; drop {', '.join(given)} "
                           f"(the settings are fixed in its run.json)")
        run = Run.open(args.resume)
        print(f"resuming {run.folder} at episode {run.episodes_done:,} of {run.spec.config.episodes:,}")
    else:
        spec = _spec_from_args(args)
        stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
        out = args.out or f"runs/{spec.game}-{_algo_name(spec.config)}-seed{spec.config.seed}-{stamp}"
        run = Run.create(out, spec, command=_command(args.argv))
        params = "".join(f" {k}={v}" for k, v in spec.game_params.items())
        print(f"training {spec.game}{params} {_algo_name(spec.config)} for "
              f"{spec.config.episodes:,} episodes into {run.folder}")
    status = run.train(stop_after=args.stop_after, progress=not args.quiet,
                       checkpoint_minutes=args.checkpoint_minutes, eval_jobs=args.eval_jobs)
    print(f"{status}: {summary_line(run)}")
    if status == "done":
        f = run.folder
        print(f"agent {f / 'agent.npz'}, curve {f / 'curve.csv'} and {f / 'curve.png'}, settings {f / 'run.json'}")
        return 0
    print(f"checkpoint written; continue with: farl train --resume {shlex.quote(str(run.folder))}")
    if status == "interrupted":
        import signal
        return 143 if run.interrupt_signal == signal.SIGTERM else 130
    return 0


# ------------------------------------------------------------------ eval
def _is_agent_path(text: str) -> bool:
    return text.endswith(".npz") or "/" in text or Path(text).is_file()


def load_agent(path: str, game: str | None = None):
    """An agent from its file, with one-line messages for missing or foreign files."""
    from farl_agents.learners.agent_io import AgentFileError

    try:
        return NTupleAgent.load(path, game=game)
    except FileNotFoundError:
        raise CliError(f"no agent file at {path}: give the agent.npz of a `farl train` run") from None
    except AgentFileError as exc:
        raise CliError(f"{exc}; give the agent.npz of a `farl train` run") from None


def load_player(text: str, game=None):
    """``(player, game spec)`` for an agent file or an opponent name (then ``game`` is needed).

    An agent file must play ``game`` (same name and parameters) when one is given.
    """
    from farl_agents.opponents import make_opponent

    if _is_agent_path(text):
        from farl_agents.families import family_for_file

        family = family_for_file(text)
        if family is not None:
            return family.load_player(text, game)
        agent = load_agent(text, None if game is None else game.name)
        if game is not None and agent.game.params != game.params:
            raise CliError(f"{text} plays {agent.game.name} {agent.game.params}, not {game.params}")
        return agent, agent.game
    if game is None:
        raise CliError(f"{text!r} is an opponent name: say which game with --game (or give an agent file)")
    try:
        return make_opponent(text, game), game
    except (ValueError, RuntimeError) as exc:
        raise CliError(f"{text!r} is neither an agent file nor a usable opponent: {exc}") from None


def main_player(text: str, game_arg: str | None, param_args) -> tuple:
    """``(player, game)`` for the first player named on the command line.

    An agent file brings its own game and parameters (``--game``/``--param``
    may only confirm them); an opponent name needs ``game_arg`` (the game's
    default parameters, changed by ``--param``).
    """
    params = dict((k, _param_value(v)) for k, v in _key_values(param_args, "--param"))
    if _is_agent_path(text):
        from farl_agents.families import family_for_file

        family = family_for_file(text)
        if family is not None:  # another learner family's agent file brings its own game
            player, spec = family.load_player(text, None)
            if game_arg and game_name(game_arg) != spec.name:
                raise CliError(f"{text} plays {spec.name}, not {game_name(game_arg)}")
            return player, spec
        agent = load_agent(text, game_name(game_arg) if game_arg else None)
        if params:
            want = game_with_params(agent.game.name, {**agent.game.params, **params}).params
            if want != agent.game.params:
                raise CliError(f"{text} plays {agent.game.name} with {agent.game.params}, not {want}; "
                               f"drop --param")
        return agent, agent.game
    if not game_arg:
        raise CliError(f"{text!r} is an opponent name: say which game with --game (or give an agent file)")
    return load_player(text, game_with_params(game_arg, params))


def _add_eval(sub) -> None:
    p = sub.add_parser(
        "eval", help="evaluate an agent (or an opponent) against opponents in every seat",
        description="Play AGENT_OR_OPP against each --vs opponent in every seat (the Table 1 harness) and print "
                    "the win rate (two players) or mean score ± standard error, with a per-seat table.",
        formatter_class=HelpFormatter)
    p.add_argument("player", metavar="AGENT_OR_OPP", help="an agent file (agent.npz) or an opponent name")
    p.add_argument("--vs", action="append", metavar="OPP", help="opponent name(s) or agent file(s); comma list "
                                                                "or repeated (not needed for 2048)")
    p.add_argument("--game", help="the game (needed when AGENT_OR_OPP is an opponent name)")
    p.add_argument("--param", action="append", metavar="KEY=VALUE",
                   help="game parameter when AGENT_OR_OPP is an opponent name (an agent file brings its own)")
    p.add_argument("--games", type=int, metavar="N", help="games per seat and opponent (default: one per start "
                                                          "position, 100 from the initial position)")
    p.add_argument("--start-states", default="initial", metavar="SET",
                   help="initial, all-1ply, start+1ply, othello-4ply, othello-4ply-distinct, random:K or table1")
    p.add_argument("--seats", metavar="LIST", help="seats the evaluated player takes, e.g. 0 or 0,1 (default all)")
    p.add_argument("--protocol", choices=["c4-seed002"], help="a fixed evaluation protocol (seed 002's Connect "
                                                             "Four test)")
    p.add_argument("--jobs", type=int, default=1, help="worker processes (same results as 1)")
    p.add_argument("--seed", type=int, default=0, help="seed of the evaluation")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=cmd_eval, command="eval")


def cmd_eval(args) -> int:
    from farl_agents.evaluate import evaluate
    from farl_agents.experiments.run import start_states

    player, game = main_player(args.player, args.game, args.param)
    opponents = [load_player(v, game)[0] for v in _split(args.vs)]
    if game.n_players > 1 and not opponents and args.protocol is None:
        raise CliError(f"{game.id} has {game.n_players} players: name the opponent(s) with --vs "
                       f"(`farl info` lists them) or give agent files")
    if args.games is not None and args.games < 1:
        raise CliError("--games must be >= 1")
    seats = None
    if args.seats:
        try:
            seats = [int(x) for x in args.seats.split(",")]
        except ValueError:
            raise CliError(f"--seats takes seat numbers like 0,1, got {args.seats!r}") from None
    try:
        res = evaluate(game, player, opponents or None, n_games=args.games,
                       start_states=start_states(game, args.start_states), seed=args.seed, jobs=args.jobs,
                       seats=seats, protocol=args.protocol, keep_games=False)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    if args.json:
        print(json.dumps(res.to_dict(), indent=1))
    else:
        print(res.table())
        print(f"({res.seconds:.1f} s)")
    return 0


# ------------------------------------------------------------------ play
def _add_play(sub) -> None:
    p = sub.add_parser(
        "play", help="play a game in the terminal against an agent or opponent",
        description="Play in the terminal. Type a move by its name (shown with the legal moves), 'undo' to take "
                    "back your last move and the replies, 'new' to start again, 'quit' to leave.",
        formatter_class=HelpFormatter)
    p.add_argument("game", help="the game, e.g. tictactoe, connect_four, othello")
    p.add_argument("--agent", default="random", metavar="PATH|OPP",
                   help="who plays the other seats: an agent file (it brings its game parameters) or an "
                        "opponent name (e.g. mcts1000, maxn10)")
    p.add_argument("--seat", type=int, default=0, help="your seat (0 moves first)")
    p.add_argument("--param", action="append", metavar="KEY=VALUE", help="game parameter, e.g. cols=8")
    p.add_argument("--seed", type=int, default=0, help="seed of the opponent's and the game's random choices")
    p.set_defaults(func=cmd_play, command="play")


def cmd_play(args) -> int:
    opponent, game = main_player(args.agent, args.game, args.param)
    if not 0 <= args.seat < game.n_players:
        raise CliError(f"--seat must be in 0..{game.n_players - 1} for {game.id}")
    return play_session(game, opponent, args.seat, sys.stdin, sys.stdout, seed=args.seed)


PLAY_HELP = ("type a move by its name (e.g. {example}) or number (0-based action index); 'undo' takes back your "
             "last move and the replies; 'new' starts again; 'quit' leaves")


def play_session(game, opponent, seat: int, inp, out, seed: int = 0) -> int:
    """A person in ``seat`` plays ``game`` against ``opponent`` (all other seats) through text streams."""
    from farl_envs.core.rng import make_rng
    from farl_envs.core.spec import TERMINAL, TO_MOVE

    rng = make_rng(seed)
    names = [n.lower() for n in (game.action_names or [str(a) for a in range(game.n_actions)])]
    mask = np.zeros(game.n_actions, dtype=np.int8)
    rew = np.zeros(game.n_players)

    def say(text=""):
        print(text, file=out, flush=True)

    def ask(prompt):
        print(prompt, end="", file=out, flush=True)
        line = inp.readline()
        if not line:
            say()
            return None
        return line.strip()

    def show(s):
        say()
        say(game.render_text(game.p, s))

    def step(s, total, a):
        game.afterstate(game.p, s, int(a), s, rew)
        total += rew
        if game.has_chance and not s[TERMINAL]:
            game.chance(game.p, s, rng)

    def legal(s):
        game.legal_actions(game.p, s, mask)
        return [int(a) for a in np.flatnonzero(mask)]

    if game.n_players == 1:
        who = "alone"
    else:
        order = "you move first" if seat == 0 else f"player_{seat - 1} moves before you"
        who = f"as player_{seat} ({order}) against {opponent.name}"
    say(f"{game.id}: you play {who}. {PLAY_HELP.format(example=names[0])}.")
    s = game.initial_state(game.p, rng)
    total = np.zeros(game.n_players)
    history = []
    redraw = True
    while True:
        if s[TERMINAL]:
            if redraw:
                show(s)
                say(_result_text(game, total, seat))
            redraw = True
            line = ask("game over: 'new', 'undo' or 'quit'> ")
            if line is None or line.lower() in ("quit", "q", "exit"):
                return 0
            if line.lower() in ("undo", "u") and history:
                s, total = history.pop()
                say("took back your last move")
            elif line.lower() == "new":
                s, total, history = game.initial_state(game.p, rng), np.zeros(game.n_players), []
            else:
                say("the game is over: type 'new', 'undo' or 'quit'")
                redraw = False
            continue
        mover = int(s[TO_MOVE])
        moves = legal(s)
        if mover != seat and game.n_players > 1:
            a = int(opponent.act(game, s.copy(), rng))
            step(s, total, a)
            say(f"{opponent.name} (player_{mover}) plays {names[a]}")
            continue
        if redraw:
            show(s)
        redraw = True
        line = ask(f"your move (player_{seat}); legal: {' '.join(names[a] for a in moves)}> ")
        if line is None:
            return 0
        cmd = line.lower()
        if cmd in ("quit", "q", "exit"):
            return 0
        if cmd in ("undo", "u"):
            if history:
                s, total = history.pop()
                say("took back your last move")
            else:
                say("nothing to undo yet")
                redraw = False
            continue
        if cmd == "new":
            s, total, history = game.initial_state(game.p, rng), np.zeros(game.n_players), []
            continue
        if cmd in ("help", "h", "?", ""):
            say(PLAY_HELP.format(example=names[moves[0]]))
            redraw = False
            continue
        a = names.index(cmd) if cmd in names else (int(cmd) if cmd.isdigit() and int(cmd) < game.n_actions else None)
        if a is None or a not in moves:
            why = "not a move of this game" if a is None else "not legal here"
            say(f"{line!r} is {why}; legal: {' '.join(names[m] for m in moves)} (or undo, new, quit, help)")
            redraw = False
            continue
        history.append((s.copy(), total.copy()))
        step(s, total, a)
        say(f"you play {names[a]}")


def _result_text(game, total, seat) -> str:
    if game.n_players == 1:
        return f"final score {total[0]:,.0f}"
    mine = total[seat]
    if game.n_players == 2:
        return "you win" if mine > 0 else ("you lose" if mine < 0 else "draw")
    scores = ", ".join(f"player_{i} {x:g}" for i, x in enumerate(total))
    return f"final rewards: {scores} (you: {mine:g})"


# ------------------------------------------------------------------ reproduce
def _add_reproduce(sub) -> None:
    import os

    from farl_agents.experiments.table1 import BUDGETS, ROWS

    p = sub.add_parser(
        "reproduce", help="reproduce the paper's Table 1 (FARL vs no-FARL), resumable and cached",
        description="Train FARL and no-FARL agents with the paper's settings for each row over several seeds, "
                    "evaluate them as the paper's Table 1 does and write OUT/table1.md (budget quick: "
                    "table1_quick.md) plus one learning-curve PNG per row. Finished runs are cached, unfinished "
                    "ones resume: rerun the same command after an interruption.",
        formatter_class=HelpFormatter)
    p.add_argument("what", choices=["table1"], help="what to reproduce")
    p.add_argument("--rows", default=",".join(ROWS), help="comma list of rows (or all)")
    p.add_argument("--runs", type=int, default=10, help="training runs (seeds) per cell")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="parallel runs")
    p.add_argument("--budget", choices=BUDGETS, default="paper",
                   help="paper: the paper's episodes and evaluation sizes; quick: minutes; smoke: seconds (tests)")
    p.add_argument("--out", default="docs/results", help="output folder")
    p.add_argument("--backend", choices=["local", "ray"], default="local",
                   help="local worker processes or Ray tasks (pip install 'farl[ray]')")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--table-only", action="store_true",
                   help="train nothing: write the table and the curves from the runs already in OUT")
    p.add_argument("--readme", metavar="PATH", default=None,
                   help="also rewrite the table block of PATH (between its <!-- table1:BUDGET start/end --> "
                        "markers) with the short form of the table")
    p.set_defaults(func=cmd_reproduce, command="reproduce")


def cmd_reproduce(args) -> int:
    from farl_agents.experiments import table1

    try:
        rows = table1.parse_rows(args.rows)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    if args.runs < 1 or args.jobs < 1:
        raise CliError("--runs and --jobs must be >= 1")
    if args.readme is not None and not Path(args.readme).is_file():
        raise CliError(f"--readme {args.readme}: no such file")
    if args.table_only:
        if not Path(args.out).is_dir():
            raise CliError(f"--out {args.out}: no such folder (nothing to tabulate)")
        table1.tabulate(Path(args.out), args.budget, rows, _command(args.argv))
        code = 0
    else:
        code = table1.reproduce(rows, runs=args.runs, jobs=args.jobs, budget=args.budget, out=args.out,
                                backend=args.backend, command=_command(args.argv), progress=not args.quiet)
    if args.readme is not None:
        try:
            print(f"updated {table1.update_readme(Path(args.readme), Path(args.out), args.budget, rows)}")
        except ValueError as exc:
            raise CliError(str(exc)) from None
    return code


# ------------------------------------------------------------------ info
def _add_info(sub) -> None:
    p = sub.add_parser("info", help="list the games with their parameters, the opponents, presets and algorithms",
                       description="List what farl offers.")
    p.set_defaults(func=cmd_info, command="info")


def cmd_info(args) -> int:
    print("games (farl train GAME --param KEY=VALUE):")
    for gid in farl_envs.list_games():
        key = gid[:-3]
        g = farl_envs.game_spec(key)
        params = " ".join(f"{k}={v}" for k, v in g.params.items()) or "(no parameters)"
        table1 = paper_game_params(key)
        t1 = " ".join(f"{k}={v}" for k, v in table1.items() if g.params.get(k) != v)
        print(f"  {key:13s} {g.n_players} player{'s' if g.n_players > 1 else ' '}, {g.n_actions:3d} actions; "
              f"{params}{'   Table 1: ' + t1 if t1 else ''}")
    print("\nopponents (--vs, --eval-vs, play --agent; or an agent file):")
    for name, text in OPPONENT_HELP.items():
        print(f"  {name:17s} {text}")
    seed002 = [n for n in preset_names() if n + "_v0" not in farl_envs.list_games()]
    print("\npresets (--preset):")
    print("  paper             seed 000 Appendix A.6 settings of the game (Table 1), with its Table 1 parameters")
    print(f"  {' '.join(seed002)}\n                    seed 002 Table I rows (Connect Four)")
    print("\nalgorithms (--algo):")
    for name, (algo, farl) in ALGOS.items():
        print(f"  {name:11s} LearnerConfig(algo={algo!r}, farl={farl})")
    from farl_agents.families import families
    for family in families():
        info = getattr(family, "INFO", {})
        for name in getattr(family, "ALGOS", ()):
            print(f"  {name:11s} {info.get(name, family.__name__)}")
    print("\nTable 1 rows (farl reproduce table1 --rows):")
    from farl_agents.experiments.table1 import ROWS
    for row in ROWS.values():
        print(f"  {row.key:10s} {row.title} vs {', '.join(o.label for o in row.opponents)}")
    return 0


# ------------------------------------------------------------------ c4-book
C4_BOOK_MODULES = ("farl_agents.opponents.connect_four", "farl_agents.opponents.c4_book")


def _add_c4_book(sub) -> None:
    p = sub.add_parser("c4-book", help="build or verify the Connect Four solver's opening book",
                       description="Runs build_book / verify_book of the Connect Four solver "
                                   "(farl_agents.opponents.c4_book). Options a function does not take are ignored.",
                       formatter_class=HelpFormatter)
    p.add_argument("action", choices=["build", "verify"])
    p.add_argument("--path", help="the book file (default: the solver's packaged book)")
    p.add_argument("--max-ply", type=int, default=4, help="build: book nodes up to this ply")
    p.add_argument("--time-budget", type=float, metavar="SECONDS", help="build: start no new ply after this")
    p.add_argument("--sample", type=int, default=20, help="verify: entries to re-solve without the book")
    p.add_argument("--min-ply", type=int, default=0, help="verify: skip entries before this ply (slow to solve)")
    p.add_argument("--seed", type=int, default=0, help="verify: seed of the sample")
    p.set_defaults(func=cmd_c4_book, command="c4-book")


def _book_function(name: str):
    import importlib

    for module in C4_BOOK_MODULES:
        try:
            fn = getattr(importlib.import_module(module), name, None)
        except ImportError:
            continue
        if callable(fn):
            return fn
    return None


def cmd_c4_book(args) -> int:
    fn = _book_function(f"{args.action}_book")
    if fn is None:
        raise CliError(f"this farl's Connect Four solver has no {args.action}_book() "
                       f"(looked in {', '.join(C4_BOOK_MODULES)}); there is no opening book to {args.action}")
    wanted = {"path": args.path, "max_ply": args.max_ply, "time_budget": args.time_budget, "sample": args.sample,
              "min_ply": args.min_ply, "seed": args.seed}
    accepted = inspect.signature(fn).parameters
    kwargs = {k: v for k, v in wanted.items() if k in accepted and v is not None}
    try:
        result = fn(**kwargs)
    except FileNotFoundError as exc:
        raise CliError(f"no opening book at {exc.filename or args.path}: build one with `farl c4-book build`") \
            from None
    if isinstance(result, dict) and "mismatches" in result:
        bad = result["mismatches"]
        print(f"checked {result.get('checked', '?')} book entries: "
              f"{'all exact' if not bad else f'{len(bad)} wrong: {bad}'}")
        return 1 if bad else 0
    if result is not None:
        print(result)
    return 0


# ------------------------------------------------------------------ main
def build_parser() -> Parser:
    parser = Parser(prog="farl", description="n-tuple FARL agents: train, evaluate, play, reproduce Table 1.",
                    epilog="`farl COMMAND --help` explains a command. --debug (anywhere) shows tracebacks.")
    parser.add_argument("--version", action="version", version=f"farl {farl_envs.__version__}")
    parser.add_argument("--debug", action="store_true", help="show the traceback of errors")
    sub = parser.add_subparsers(title="commands", metavar="COMMAND")
    _add_train(sub)
    _add_eval(sub)
    _add_play(sub)
    _add_reproduce(sub)
    _add_info(sub)
    _add_c4_book(sub)
    _add_plugins(sub)
    return parser


def _add_plugins(sub) -> None:
    """Commands added by ``register(subparsers)`` of the plug-in modules (:data:`farl_agents.families.PLUGINS`).

    A missing module is normal; a broken one costs its own commands only (with a warning).
    """
    from farl_agents.families import PLUGINS, load_module

    for name in PLUGINS:
        module = load_module(name)
        register = getattr(module, "register", None)
        if callable(register):
            register(sub)


def _train_family(argv: list[str]):
    """The learner family (:mod:`farl_agents.families`) that trains ``--algo`` in ``argv``, if any."""
    from farl_agents.families import algo_in_argv, family_algos, resumed_algo

    algo = algo_in_argv(argv) or resumed_algo(argv)
    if algo is None or algo in ALGOS:
        return None
    return family_algos().get(algo)


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text


def main(argv=None) -> int:
    """Run the ``farl`` command line; returns the exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in argv
    argv = [a for a in argv if a != "--debug"]
    try:
        if argv and argv[0] == "train":
            family = _train_family(argv[1:])
            if family is not None:
                return int(family.train_main(argv[1:]) or 0)
        parser = build_parser()
        args, extra = parser.parse_known_args(argv)
        if extra:
            where = f"farl {args.command}" if hasattr(args, "command") else "farl"
            raise CliError(f"unrecognized arguments: {' '.join(extra)}; see `{where} --help`")
        args.argv = argv
        if not hasattr(args, "func"):
            parser.print_help()
            return 2
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        if debug:
            raise
        print("farl: interrupted", file=sys.stderr)
        return 130
    except (CliError, ValueError, OSError, RuntimeError) as exc:
        if debug:
            raise
        from farl_agents.experiments.run import RunError
        hint = "" if isinstance(exc, (CliError, RunError)) else " (--debug shows the traceback)"
        print(f"farl: error: {_one_line(exc)}{hint}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
