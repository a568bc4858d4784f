"""The command-line options a judge's OpenAI-compatible endpoint needs (a sweep file has [[endpoints]]).

Here, in the parser's package, so that building the parser (`--version`, `--help`) never loads the
judges or the checker; `mustmaybe.judges.judge_endpoints` reads the options back.
"""

from __future__ import annotations

import argparse


def add_judge_options(p: argparse.ArgumentParser) -> None:
    """The options an OpenAI-compatible judge endpoint needs on the command line (a sweep has [[endpoints]])."""
    p.add_argument("--structured-output", choices=["json_schema", "json_object_schema", "prompt"],
                   default="json_schema", help="how a judge's OpenAI-compatible endpoint is asked for JSON "
                   "(llama.cpp's server: json_object_schema)")
    p.add_argument("--api-key-env", default=None,
                   help="NAME of the environment variable holding the judge endpoint's API key (never the key)")
