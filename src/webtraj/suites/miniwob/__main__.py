"""`python -m webtraj.suites.miniwob serve --port N` (used by MiniWoBServer) and
`python -m webtraj.suites.miniwob check` (tries every task page once in Chromium and writes
the result that `webtraj sites list` shows)."""

from __future__ import annotations

import argparse


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m webtraj.suites.miniwob")
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=None)
    serve.add_argument("--fd", type=int, default=None,
                       help="serve on this listening socket (bound by the parent)")
    serve.add_argument("--parent-pid", type=int, default=None,
                       help="die with this process (the run that started the server)")
    check = sub.add_parser("check")
    check.add_argument("--out", default=None, help="where to write the result (JSON)")
    args = parser.parse_args()
    if args.command == "serve":
        from webtraj.runtime.children import die_with_parent
        from webtraj.suites.miniwob.server import serve as run

        if args.parent_pid is not None:
            die_with_parent(args.parent_pid)

        run(args.host, args.port, fd=args.fd)
    else:
        from webtraj.suites.miniwob.check import main as run_check

        run_check(args.out)


if __name__ == "__main__":
    main()
