"""``farl serve``: a local web app to play every game in the browser (needs the ``web`` extra).

Which ``Host`` names the server answers to (anything else gets 403, so a web
page whose own name is made to resolve to this machine, DNS rebinding, cannot
use it; see :mod:`farl_agents.serve.app`):

* always ``127.0.0.1``, ``localhost`` and ``[::1]``, with any port;
* the ``--host`` address itself when it names one address (``--host
  192.168.1.7`` adds ``192.168.1.7``);
* every ``--allow-host NAME`` (repeatable): the names other machines use to
  reach a server bound to all interfaces (``--host 0.0.0.0`` or ``::``), which
  adds no name by itself, since the wildcard address is nobody's ``Host``.

The default (``--host 127.0.0.1``, no ``--allow-host``) is this machine only.
"""
from __future__ import annotations

import socket
import sys
from pathlib import Path

from farl_agents.cli.common import CliError, HelpFormatter

LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")
WILDCARD_HOSTS = ("0.0.0.0", "::", "")
"""Addresses that mean "every interface": they name no host a browser could ask for."""


def add_parser(sub) -> None:
    p = sub.add_parser(
        "serve", help="play the games in the browser (local web app; pip install 'farl-rl[web]')",
        description="Serve a web page to play every game against reference opponents, agent files and run "
                    "folders found under DIR, and to look at the runs' learning curves. Only files inside DIR "
                    "are read. Requests from other web sites' pages are refused, and so is any Host header but "
                    "127.0.0.1, localhost, [::1], the --host address and the --allow-host names.",
        formatter_class=HelpFormatter)
    p.add_argument("dir", nargs="?", default=".", metavar="DIR",
                   help="the folder whose agent files and run folders the page may use")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on; anything but 127.0.0.1 lets other machines play (and load the "
                        "agents under DIR); a single address is also accepted as a Host name, 0.0.0.0 and :: are "
                        "not (name the machine with --allow-host)")
    p.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                   help="also answer requests whose Host is NAME (the name or address other machines use for this "
                        "one); repeat for several")
    p.add_argument("--port", type=int, default=0, help="port to listen on; 0 picks a free one (the address is printed)")
    p.add_argument("--time-limit", type=float, default=30.0,
                   help="seconds a request waits for an agent's move before answering 'still thinking'")
    p.set_defaults(func=run_command, command="serve")


def free_port(host: str) -> int:
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def allowed_hosts(host: str, extra: list[str]) -> list[str]:
    """The Host names the server answers to besides the loopback ones (see the module docstring)."""
    names = [h.strip() for h in extra]
    if host not in WILDCARD_HOSTS and host not in LOCAL_HOSTS:
        names.append(host)
    return names


def run_command(args) -> int:
    try:
        import uvicorn

        from farl_agents.serve import create_app
        from farl_agents.serve.app import host_name
    except ImportError as exc:
        raise CliError(f"farl serve needs the web extra ({exc.name} is missing): pip install 'farl-rl[web]'") from None
    root = Path(args.dir)
    if not root.is_dir():
        raise CliError(f"{args.dir} is not a folder: give the folder to serve")
    if not 0 <= args.port <= 65535:
        raise CliError(f"--port must be in 0..65535, got {args.port}")
    if not args.time_limit > 0:
        raise CliError(f"--time-limit must be > 0 seconds, got {args.time_limit}")
    for name in args.allow_host:
        if host_name(name.strip()) is None and host_name(f"[{name.strip()}]") is None:
            raise CliError(f"--allow-host {name!r} is not a host name or address (give it without scheme or port)")
    names = allowed_hosts(args.host, args.allow_host)
    if args.host not in LOCAL_HOSTS:
        print(f"farl: warning: listening on {args.host or '*'}: other machines can reach this server and use the "
              f"agent files under {root.resolve()}; there is no login", file=sys.stderr)
        if not names:
            print("farl: note: other machines' requests are refused until you name this machine with "
                  "--allow-host NAME (its address or host name as they type it)", file=sys.stderr)
    port = args.port or free_port(args.host)
    address = {"0.0.0.0": "127.0.0.1", "::": "::1", "": "127.0.0.1"}.get(args.host, args.host)  # a Host it answers
    shown = f"[{address}]" if ":" in address else address
    print(f"farl serve: http://{shown}:{port}/  (serving {root.resolve()}; Ctrl-C stops)", flush=True)
    uvicorn.run(create_app(root, args.time_limit, allowed_hosts=names), host=args.host, port=port,
                log_level="warning", proxy_headers=False)
    return 0
