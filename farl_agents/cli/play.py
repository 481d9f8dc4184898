"""``farl play``: a person against an agent or opponent, in the terminal."""
from __future__ import annotations

import sys

import numpy as np

from farl_agents.cli.common import CliError, HelpFormatter
from farl_agents.cli.players import is_path, main_player


def add_parser(sub) -> None:
    p = sub.add_parser(
        "play", help="play a game in the terminal against an agent or opponent",
        description="Play in the terminal. Type a move by its name (shown with the legal moves), 'undo' to take "
                    "back your last move and the replies, 'new' to start again, 'quit' to leave.",
        formatter_class=HelpFormatter)
    p.add_argument("game", metavar="GAME|RUN|AGENT",
                   help="the game (e.g. tictactoe, connect_four, othello), or a run folder or agent file to play "
                        "against (it brings its game)")
    p.add_argument("--agent", default="random", metavar="PATH|OPP",
                   help="who plays the other seats: an agent file (it brings its game parameters), 'pretrained' "
                        "(the agent shipped for the game: `farl pretrained list`) or an opponent name (e.g. "
                        "mcts1000, maxn10)")
    p.add_argument("--seat", type=int, default=0, help="your seat (0 moves first)")
    p.add_argument("--param", action="append", metavar="KEY=VALUE", help="game parameter, e.g. cols=8")
    p.add_argument("--seed", type=int, default=0, help="seed of the opponent's and the game's random choices")
    p.set_defaults(func=run_command, command="play")


def run_command(args) -> int:
    if is_path(args.game):  # farl play RUN: the run's agent is the opponent
        if args.agent != "random":
            raise CliError(f"{args.game} is the agent to play against; drop --agent {args.agent}")
        opponent, game = main_player(args.game, None, args.param)
    else:
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
        if game.hidden_information and not s[TERMINAL]:  # the person's own cards only (Kuhn poker), as farl serve
            from farl_agents.serve.views import private
            say(private(game, s, (seat,))["text"])
        else:
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
