"""``farl serve``: a local web app to play every game in the browser (needs the ``web`` extra)."""
from __future__ import annotations

import socket
import sys
from pathlib import Path

from farl_agents.cli.common import CliError, HelpFormatter

LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")


def add_parser(sub) -> None:
    p = sub.add_parser(
        "serve", help="play the games in the browser (local web app; pip install 'farl[web]')",
        description="Serve a web page to play every game against reference opponents, agent files and run "
                    "folders found under DIR, and to look at the runs' learning curves. Only files inside DIR "
                    "are read.",
        formatter_class=HelpFormatter)
    p.add_argument("dir", nargs="?", default=".", metavar="DIR",
                   help="the folder whose agent files and run folders the page may use")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on; anything but 127.0.0.1 lets other machines play (and load the "
                        "agents under DIR)")
    p.add_argument("--port", type=int, default=0, help="port to listen on; 0 picks a free one (the address is printed)")
    p.add_argument("--time-limit", type=float, default=30.0,
                   help="seconds a request waits for an agent's move before answering 'still thinking'")
    p.set_defaults(func=run_command, command="serve")


def free_port(host: str) -> int:
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def run_command(args) -> int:
    try:
        import uvicorn

        from farl_agents.serve import create_app
    except ImportError as exc:
        raise CliError(f"farl serve needs the web extra ({exc.name} is missing): pip install 'farl[web]'") from None
    root = Path(args.dir)
    if not root.is_dir():
        raise CliError(f"{args.dir} is not a folder: give the folder to serve")
    if not 0 <= args.port <= 65535:
        raise CliError(f"--port must be in 0..65535, got {args.port}")
    if not args.time_limit > 0:
        raise CliError(f"--time-limit must be > 0 seconds, got {args.time_limit}")
    if args.host not in LOCAL_HOSTS:
        print(f"farl: warning: listening on {args.host}: other machines can reach this server and use the agent "
              f"files under {root.resolve()}; there is no login", file=sys.stderr)
    port = args.port or free_port(args.host)
    shown = f"[{args.host}]" if ":" in args.host else args.host
    print(f"farl serve: http://{shown}:{port}/  (serving {root.resolve()}; Ctrl-C stops)", flush=True)
    uvicorn.run(create_app(root, args.time_limit), host=args.host, port=port, log_level="warning")
    return 0
