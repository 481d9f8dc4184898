"""``farl info``: the games with their parameters, the opponents, the pretrained agents (with their cards), the
learner families with their flags."""
from __future__ import annotations

import farl_envs
from farl_agents import families
from farl_agents.cli.pretrained import read_cards, size_text, strength_text
from farl_agents.learners import paper_game_params
from farl_agents.pretrained import zoo

OPPONENT_HELP = {
    "random": "uniformly random legal moves (all games)",
    "maxn<depth>": "Max-N search (expectimax-N over chance events), perfect within the depth; leaf heuristics for "
                   "Sim, Yavalath, Chinese Checkers, EWN (all games)",
    "paranoid<depth>": "Paranoid alpha-beta (Sturtevant & Korf 2000): the mover against the coalition of the "
                       "others (all games)",
    "mcts<iterations>": "UCT Monte-Carlo tree search (all games)",
    "bench": "van der Ree & Wiering's positional Othello benchmark player (Othello)",
    "heur": "Othello heuristic player (Othello)",
    "edax<depth>": "the Edax engine at a depth (Othello; needs the edax binary)",
    "grhino<level>": "the GRhino engine over GTP, levels 1-5 (Othello; Debian package grhino)",
    "mohex<simulations>": "MoHex 2.0 over GTP (Hex up to 13x13, no swap; build it: docs/engines.md)",
    "bouton": "perfect two-player Nim by Bouton's nim-sum (Nim)",
    "ab": "perfect Connect Four (alpha-beta solver), random among equally good moves",
    "ab-dl": "perfect Connect Four that delays losses as long as possible",
    "pretrained": "the TD-FARL agent shipped with farl for the game (listed below)",
    "<inner>+mcts<N>": "a search around an agent (pretrained, agent:PATH or a run folder): PUCT with its values; "
                       "also +maxn<D>, +paranoid<D>, +expectimax<D> (docs/search_wrappers.md)",
}


def add_parser(sub) -> None:
    p = sub.add_parser("info", help="list the games, opponents, learner families (with their flags) and Table 1 rows",
                       description="List what farl offers.")
    p.set_defaults(func=run_command, command="info")


def run_command(args) -> int:
    print("games (farl train GAME --param KEY=VALUE):")
    keys = [gid[:-3] for gid in farl_envs.list_games()]
    width = max(map(len, keys))
    for key in keys:
        g = farl_envs.game_spec(key)
        params = " ".join(f"{k}={v}" for k, v in g.params.items()) or "(no parameters)"
        table1 = paper_game_params(key)
        t1 = " ".join(f"{k}={v}" for k, v in table1.items() if g.params.get(k) != v)
        print(f"  {key:{width}s} {g.n_players} player{'s' if g.n_players > 1 else ' '}, {g.n_actions:3d} actions; "
              f"{params}{'   Table 1: ' + t1 if t1 else ''}")
    print("\nopponents (--vs, --eval-vs, play --agent; or an agent file or run folder):")
    for name, text in OPPONENT_HELP.items():
        print(f"  {name:19s} {text}")
    print("\npretrained agents (play --agent pretrained, --vs pretrained; cards: farl pretrained list):")
    cards = read_cards(zoo.FOLDER)
    if not cards:
        print("  none yet (`farl pretrained build GAME` makes one)")
    for c in cards:
        print(f"  {c['game']:{width}s} {c['episodes']:,} episodes, {size_text(c['size_bytes'])}; built with "
              f"{c['command']} (farl {c['farl_version']}, {c['built'][:10]})")
        for line in c["strength"]:
            print(f"  {'':{width}s}   {strength_text(line)}")
    print("\nlearner families (farl train GAME --algo ALGO; `farl train --algo ALGO --help` for all flags):")
    for fam in families.FAMILIES:
        hooks = fam.hooks()
        print(f"  {fam.name:8s} --algo {' | '.join(fam.algos)}")
        print(f"           {fam.info}")
        print(f"           budget and curve in {hooks.Trainer.unit}; presets: {', '.join(hooks.presets()) or 'none'}")
        flags = " ".join("--" + n.replace("_", "-") for n in hooks.FLAGS.flag_fields)
        print(f"           settings: {flags}")
    from farl_agents import checkout as studies
    if not studies.available():  # an installed wheel: the Table 1 study is in the source checkout only
        print("\nTable 1 rows: farl reproduce runs the studies of a source checkout; this installed farl has none")
        return 0
    print("\nTable 1 rows (farl reproduce table1 --rows):")
    for row in studies.import_study("table1.table1_rows", "info").ROWS.values():
        print(f"  {row.key:10s} {row.title} vs {', '.join(o.label for o in row.opponents)}")
    return 0
