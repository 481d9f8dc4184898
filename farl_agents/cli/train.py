"""``farl train``: train a learner of any family in a resumable run folder.

::

    farl train tictactoe --algo td-farl --preset paper --eval-vs maxn10 --eval-every 1000
    farl train connect_four --algo nemesh --preset quick --out runs/nm
    farl train hex --algo descent --param size=6 --minutes 5 --eval-vs mcts100
    farl train --resume runs/tictactoe-td-farl-seed0-20260101-120000      # after Ctrl-C or a crash

The path of a run, for every family: this module builds the command line
from the family's settings dataclass (:mod:`farl_agents.config_flags`) and a
:class:`~farl_agents.runs.RunSpec`; :class:`~farl_agents.runs.Run` trains the
family's ``Trainer`` (:mod:`farl_agents.families`) in chunks, which run the
compiled self-play loops (e.g. ``farl_agents.learners.td_farl.self_play``).

Settings are applied in this order, later ones winning: ``--preset`` (else
the family's defaults), ``--config FILE`` (TOML or JSON: the fields,
optionally a ``game_params`` table; a run's ``run.json`` works too),
``--algo``, the field flags, ``--set key=value``.
"""
from __future__ import annotations

import datetime
import math
import shlex
import signal
from pathlib import Path

import farl_envs
from farl_agents import families
from farl_agents.cli.common import (
    QUIET_FLAGS,
    CliError,
    HelpFormatter,
    add_quiet_flag,
    command_line,
    game_name,
    game_with_params,
    key_values,
    param_value,
    read_config_file,
    split,
)
from farl_agents.config_flags import FlagError
from farl_agents.runs import ALONE, Run, RunSpec, start_states, summary_line
from farl_agents.runs.legacy import needs_upgrade
from farl_agents.safe_files import read_json

RESUME_FLAGS = ("--resume", *QUIET_FLAGS, "--stop-after", "--checkpoint-minutes", "--eval-jobs",
                "--algo", "--debug")
"""Flags that may go with ``--resume`` (they change how the run goes on, not what it is)."""


def option_in_argv(argv: list[str], flag: str) -> str | None:
    """The value of ``flag`` in an argv (``--flag X`` or ``--flag=X``), if given; read before the parser is
    built, because ``--algo`` and ``--resume`` decide which family's flags it has."""
    for i, arg in enumerate(argv):
        if arg == flag and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith(flag + "="):
            return arg.split("=", 1)[1]
    return None


def family_for_argv(argv: list[str]) -> families.Family:
    """The family a ``farl train`` argv is about: its ``--algo``, the run it resumes, else the n-tuple family."""
    algo = option_in_argv(argv, "--algo")
    if algo is not None:
        try:
            return families.of_algo(algo)
        except ValueError as exc:
            raise CliError(str(exc)) from None
    folder = option_in_argv(argv, "--resume")
    if folder is not None:
        legacy = needs_upgrade(Path(folder))
        if legacy:
            return families.get(legacy)
        try:
            record = read_json(Path(folder) / "run.json")
            return families.get(record.get("family", "ntuple"))
        except (OSError, ValueError, AttributeError):
            pass  # Run.open says what is wrong with the folder
    return families.get("ntuple")


def preset_help(presets: dict) -> str:
    """``"paper: ...; tdl-et, tdl-rr, ...: ..."``: presets that share a description are named together."""
    groups: dict[str, list[str]] = {}
    for name, what in presets.items():
        groups.setdefault(what, []).append(name)
    return "; ".join(f"{', '.join(names)}: {what}" for what, names in groups.items())


def add_parser(sub, family: families.Family) -> None:
    hooks = family.hooks()
    algos = ", ".join(f"{a} ({f.name})" for f in families.FAMILIES for a in f.algos)
    p = sub.add_parser(
        "train", help="train an agent of any learner family (resumable; learning curve, checkpoints)",
        description=f"Train a learner by self-play ({family.info}). The run folder gets agent.npz, curve.csv, "
                    "curve.png, run.json and checkpoints; Ctrl-C writes a checkpoint and "
                    "`farl train --resume DIR` continues where it stopped. The flags below are those of the "
                    f"{family.name} family; `farl train --algo NAME --help` shows another family's.",
        epilog="Precedence: --preset < --config < --algo < field flags < --set. "
               "Example: farl train tictactoe --preset paper --eval-vs maxn10 --eval-every 1000",
        formatter_class=HelpFormatter)
    p.add_argument("game", nargs="?", help="the game (farl info lists them), e.g. tictactoe or connect_four")
    p.add_argument("--algo", choices=families.all_algos(), metavar="ALGO",
                   help=f"the learner: {algos} (default {families.FAMILIES[0].algos[0]})")
    presets = hooks.presets()
    p.add_argument("--preset", choices=list(presets) or None, metavar="NAME",
                   help="start from named settings: " + (preset_help(presets) or "this family has none"))
    p.add_argument("--param", action="append", metavar="KEY=VALUE",
                   help="a game parameter, e.g. --param cols=8 (repeatable; a preset may set Table 1's)")
    p.add_argument("--config", metavar="FILE", help="settings from a .toml or .json file")
    p.add_argument("--set", action="append", metavar="KEY=VALUE", help="set any settings field (repeatable)")
    p.add_argument("--out", metavar="DIR", help="the run folder (default runs/<game>-<algo>-seed<seed>-<time>)")
    p.add_argument("--resume", metavar="DIR", help="continue the run in DIR from its last checkpoint "
                                                   "(its settings are fixed in DIR/run.json)")
    unit = hooks.Trainer.unit
    g = p.add_argument_group("evaluation during training (curve points)")
    g.add_argument("--eval-every", "--eval-every-seconds", dest="eval_every", type=float, metavar="K",
                   help=f"{unit} between curve points (default: a twentieth of the run)")
    g.add_argument("--eval-vs", action="append", metavar="OPP",
                   help="opponent(s) to evaluate against at each curve point (comma list or repeated; "
                        "one-player games are evaluated alone with any value)")
    g.add_argument("--eval-games", type=int, metavar="G", help="games per seat and opponent per evaluation "
                                                               "(default: the harness's for the start set)")
    g.add_argument("--eval-starts", metavar="SET",
                   help="start positions: table1 (the game's Table 1 set; the default), initial, all-1ply, "
                        "start+1ply, othello-4ply, random:K")
    g.add_argument("--eval-seed", type=int, metavar="S",
                   help="seed of the evaluations (the learner's random streams are never used)")
    g.add_argument("--eval-depth", type=int, metavar="D",
                   help="search depth of the evaluated player (families that evaluate through a search: descent)")
    g.add_argument("--eval-jobs", type=int, default=1, metavar="J", help="worker processes for each evaluation")
    r = p.add_argument_group("running")
    r.add_argument("--stop-after", type=float, metavar="N",
                   help=f"stop (with a checkpoint) once N {unit} are done; continue later with --resume")
    r.add_argument("--checkpoint-minutes", type=float, default=5.0, metavar="M",
                   help="checkpoint at least this often (and at every evaluation)")
    add_quiet_flag(r)
    hooks.FLAGS.add_to(p, f"{family.name} settings",
                       f"{hooks.Trainer.config_class.__name__}'s fields; unset ones come from --preset / "
                       f"--config (else the default shown)")
    p.set_defaults(func=run_command, command="train", family=family)


def build_config(args, family: families.Family, game: str) -> tuple[object, dict]:
    """The family's settings and the game parameters that ``farl train``'s arguments describe."""
    hooks = family.hooks()
    flags = hooks.FLAGS
    algo = args.algo or hooks.DEFAULT_ALGO
    try:
        base, params = hooks.base_config(algo, game, args.preset)
        overrides, given = {}, {}  # given: the fields set by name (config file, flags, --set), later ones winning
        if args.config:
            fields, file_params = read_config_file(args.config)
            given.update({k: flags.coerce(k, v) for k, v in fields.items()})
            overrides.update(given)
            params.update(file_params)
        if args.algo is not None:
            overrides.update(hooks.algo_fields(algo))
        typed = flags.given(args)
        for key, value in key_values(args.set, "--set"):
            typed[key] = flags.coerce(key, value)
        overrides.update(typed)
        given.update(typed)
        implied_fields(overrides, given, {**base, **overrides})
        for key, value in key_values(args.param, "--param"):
            params[key] = param_value(value)
        spec_game = game_with_params(game, params)
        config = hooks.Trainer.config_class.from_dict({**base, **overrides})
        config = hooks.finish_config(config, spec_game)
    except FlagError as exc:
        raise CliError(str(exc)) from None
    except (ValueError, TypeError) as exc:
        raise CliError(f"bad {family.name} settings: {exc}") from None
    return config, dict(spec_game.params)


IMPLIED = {"ntuple_cells": ("ntuples", "explicit")}
"""Fields whose value only counts when another field has a given value: ``--ntuple-cells`` lists the cells of
an explicit n-tuple set, which the learner uses only with ``--ntuples explicit``."""


def implied_fields(overrides: dict, given: dict, settings: dict) -> None:
    """Give the fields of :data:`IMPLIED` the value a field set by name (``given``: config file, flags,
    ``--set``) needs, so ``--ntuple-cells`` alone means an explicit set; when the other field was set by
    name to another value too (``--ntuples random-walk --ntuple-cells ...``), a CliError instead of a
    setting silently ignored. ``overrides`` gets the implied values; ``settings`` is what the settings
    are so far."""
    for field, (other, needed) in IMPLIED.items():
        if not given.get(field) or settings.get(other) == needed:
            continue
        if other in given:
            flag, other_flag = "--" + field.replace("_", "-"), "--" + other.replace("_", "-")
            raise CliError(f"{flag} is used only with {other_flag} {needed}, not {other_flag} {given[other]}; "
                           f"drop one of them")
        overrides[other] = needed


def spec_from_args(args) -> RunSpec:
    from farl_agents.opponents import make_opponent

    family = args.family
    hooks = family.hooks()
    if not args.game:
        raise CliError("name the game to train (e.g. farl train tictactoe), or continue a run with --resume DIR")
    game = game_name(args.game)
    config, params = build_config(args, family, game)
    spec_game = farl_envs.game_spec(game, **params)
    plan = dict(hooks.DEFAULT_EVAL)
    for key in ("eval_every", "eval_games", "eval_starts", "eval_seed", "eval_depth"):
        if getattr(args, key) is not None:
            plan[key] = getattr(args, key)
    if args.eval_vs is not None:
        plan["eval_vs"] = tuple(split(args.eval_vs))
    eval_vs = list(plan.get("eval_vs", ()))
    if spec_game.n_players == 1:
        eval_vs = [ALONE] if (eval_vs or args.eval_every) else []
    for o in eval_vs if spec_game.n_players > 1 else ():
        try:
            make_opponent(o, spec_game)
        except (ValueError, RuntimeError) as exc:
            raise CliError(f"--eval-vs {o}: {str(exc).splitlines()[0]}") from None
    every = plan.get("eval_every", 0)
    if not (every >= 0 and math.isfinite(every)):  # negative, NaN or infinite
        raise CliError(f"--eval-every must be a finite number > 0, got {every}")
    if hooks.Trainer.unit == "seconds":
        if every == 0:
            eval_vs = []  # a time budget: --eval-every 0 means no curve
    else:
        if args.eval_every is not None and every == 0 and eval_vs:
            raise CliError("--eval-every must be a number > 0")
        if every != int(every):
            raise CliError(f"--eval-every counts {hooks.Trainer.unit}: give a whole number")
        every = int(every)
    if plan.get("eval_games") is not None and plan["eval_games"] < 1:
        raise CliError("--eval-games must be >= 1")
    if plan.get("eval_depth") is not None and plan["eval_depth"] < 1:
        raise CliError("--eval-depth must be >= 1")
    starts = plan.get("eval_starts", "table1")
    try:
        start_states(spec_game, starts)
        return RunSpec(game, params, config, eval_vs=tuple(eval_vs), eval_every=every,
                       eval_games=plan.get("eval_games"), eval_starts=starts, eval_seed=plan.get("eval_seed", 0),
                       eval_depth=plan.get("eval_depth"), family=family.name)
    except ValueError as exc:
        raise CliError(str(exc)) from None


def default_folder(spec: RunSpec, family: families.Family) -> str:
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    name = family.hooks().algo_name(spec.config)
    seed = getattr(spec.config, "seed", 0)
    return f"runs/{spec.game}-{name}-seed{seed}-{stamp}"


def run_command(args) -> int:
    if args.eval_jobs < 1:
        raise CliError("--eval-jobs must be >= 1")
    if not (math.isfinite(args.checkpoint_minutes) and args.checkpoint_minutes > 0):  # nan <= 0 is false
        raise CliError(f"--checkpoint-minutes must be a finite number > 0, got {args.checkpoint_minutes}")
    if args.stop_after is not None and not (math.isfinite(args.stop_after) and args.stop_after >= 0):
        raise CliError(f"--stop-after must be a finite number >= 0, got {args.stop_after}")
    if getattr(args, "eval_seed", None) is not None and args.eval_seed < 0:
        raise CliError(f"--eval-seed must be an integer >= 0, got {args.eval_seed}")
    if args.out is not None and not args.out.strip():
        raise CliError("--out is empty: name the run folder (or leave --out out for runs/<game>-<algo>-...)")
    if args.resume:
        given = [a.split("=")[0] for a in args.argv[1:] if a.startswith("--") and a.split("=")[0] not in RESUME_FLAGS]
        if args.game:
            given.insert(0, args.game)
        if given:
            raise CliError(f"--resume continues the run stored in {args.resume}; drop {', '.join(given)} "
                           f"(the settings are fixed in its run.json)")
        run = Run.open(args.resume)
        t = run.trainer
        print(f"resuming {run.folder} at {_amount(t.done, t.unit)} of {_amount(t.total, t.unit)}")
    else:
        spec = spec_from_args(args)
        out = args.out or default_folder(spec, args.family)
        run = Run.create(out, spec, command=command_line(args.argv))
        params = "".join(f" {k}={v}" for k, v in spec.game_params.items())
        print(f"training {spec.game}{params} {args.family.hooks().algo_name(spec.config)} for "
              f"{_amount(run.trainer.total, run.trainer.unit)} into {run.folder}")
    status = run.train(stop_after=args.stop_after, progress=not args.quiet,
                       checkpoint_minutes=args.checkpoint_minutes, eval_jobs=args.eval_jobs)
    print(f"{status}: {summary_line(run)}")
    if status == "done":
        f = run.folder
        print(f"agent {run.agent_file}, curve {f / 'curve.csv'} and {f / 'curve.png'}, settings {f / 'run.json'}")
        print(f"next: farl eval {shlex.quote(str(f))} --vs random   |   farl play {shlex.quote(str(f))}")
        return 0
    print(f"checkpoint written; continue with: farl train --resume {shlex.quote(str(run.folder))}")
    if status == "interrupted":
        return 143 if run.interrupt_signal == signal.SIGTERM else 130
    return 0


def _amount(x: float, unit: str) -> str:
    return f"{x:,.1f} {unit}" if unit == "seconds" else f"{int(x):,} {unit}"

