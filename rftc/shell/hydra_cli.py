"""A Hydra app's command line read by Hydra's own parser (hydra._internal.utils.get_args_parser, which @hydra.main
runs with parse_args): unknown options are its error ("unrecognized arguments"), unique prefixes of its options are
those options (argparse's allow_abbrev: `--config-nam=x` is `--config-name=x`), a positional word after an option
is left over as argparse leaves it, and `--cfg`, `--help`, `--info`, ... print instead of running the job
(hydra._internal.utils._run_hydra). The parser is hydra-core's, imported only for a command line with an option:
one of positional words alone is the list of overrides it would parse.
"""

from __future__ import annotations

import contextlib
import io
from dataclasses import dataclass, replace
from functools import lru_cache

from rftc.shell.invocation import Arg

# What Hydra's run does instead of the job, by the option that asks it (checked in _run_hydra's order)
_PRINTS = {
    "help": "prints the application's help (its composed config) and exits",
    "hydra_help": "prints Hydra's help and exits",
    "version": "prints Hydra's version and exits",
    "cfg": "prints the {} config composed with the overrides and exits",
    "shell_completion": "installs or uninstalls the shell completion of the app and exits",
    "info": "prints Hydra's information ({}) and exits",
}
_CFG = {"job": "job's", "hydra": "hydra", "all": "job's and hydra"}


@dataclass(frozen=True)
class Parsed:
    overrides: list[Arg]
    config_path: Arg | None  # --config-path, else --config-dir (``config_dir`` then)
    config_name: Arg | None
    config_dir: bool
    refusal: tuple[str, Arg | None] | None = None  # Hydra's error, and the word it names
    prints: tuple[str, Arg] | None = None  # what Hydra prints instead of running, and the option asking it


class _Stop(Exception):
    """The parser's error (``message``) or exit (--version)."""


def split(args: list[Arg]) -> Parsed:
    """The overrides and config options of a Hydra app's arguments, as Hydra's parser reads them."""
    if not any(a.text.startswith("-") for a in args):
        return Parsed(list(args), None, None, False)
    parser = _parser()
    texts = [a.text for a in args]
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            ns, extra = parser.parse_known_args(texts)
    except _Stop as stop:
        if str(stop) == "version":
            return Parsed([], None, None, False, prints=(_PRINTS["version"], _named(args, "--version")))
        return Parsed([], None, None, False, refusal=(f"error: {stop}", _culprit(args, str(stop))))
    if extra:
        first = next(a for a in args if a.text == extra[0])
        return Parsed([], None, None, False, refusal=(f"error: unrecognized arguments: {' '.join(extra)}", first))
    values, flags = _flag_values(parser, args, ns)
    overrides = _in_order(values, ns.overrides)
    path, name, directory = flags.get("config_path"), flags.get("config_name"), flags.get("config_dir")
    use_dir = directory is not None and (path is None or args.index(directory[1]) > args.index(path[1]))
    config_path = directory if use_dir else path
    parsed = Parsed(overrides, config_path[0] if config_path else None, name[0] if name else None, use_dir)
    return _what_runs(parsed, ns, args)


@lru_cache(maxsize=1)
def _parser():
    from hydra._internal.utils import get_args_parser

    parser = get_args_parser()

    def error(message):
        raise _Stop(message)

    def leave(status=0, message=None):
        raise _Stop("version")

    parser.error, parser.exit = error, leave
    return parser


def _flag_values(parser, args: list[Arg], ns) -> tuple[list[Arg], dict]:
    """The positional words (those that are not an option's value) and, per config option the parser set, the Arg
    holding its value and the option's own word (the last one written wins, as in argparse)."""
    strings = {dest: [s for a in parser._actions if a.dest == dest for s in a.option_strings]
               for dest in ("config_path", "config_name", "config_dir", "cfg", "package", "info",
                            "experimental_rerun")}

    def dest_of(word: str) -> str | None:
        exact = [d for d, opts in strings.items() if word in opts]
        if exact:
            return exact[0]
        found = {d for d, opts in strings.items() for o in opts if o.startswith("--") and o.startswith(word)}
        return found.pop() if len(found) == 1 and word.startswith("--") else None

    positional, flags, j = [], {}, 0
    while j < len(args):
        a = args[j]
        if not a.text.startswith("-"):
            positional.append(a)
            j += 1
            continue
        word, eq, value = a.text.partition("=")
        dest = dest_of(word)
        if dest is not None and eq:
            flags[dest] = (Arg(value, a.span, a.via, a.symbolic), a)
        elif dest is not None and j + 1 < len(args) and (dest != "info" or args[j + 1].text == ns.info):
            flags[dest] = (args[j + 1], a)
            j += 1
        j += 1
    return positional, flags


def _in_order(words: list[Arg], texts: list[str]) -> list[Arg]:
    """The Args of the override texts the parser kept, in order."""
    out, k = [], 0
    for w in words:
        if k < len(texts) and w.text == texts[k]:
            out.append(w)
            k += 1
    return out


def _what_runs(parsed: Parsed, ns, args: list[Arg]) -> Parsed:
    """_run_hydra: help first, then --resolve's use, Hydra's help, one command at most; a job runs with --run,
    --multirun or none of the commands. --experimental-rerun runs the job on a config saved by an earlier run."""
    if ns.experimental_rerun is not None:
        return replace(parsed, refusal=("--experimental-rerun runs the job on the config an earlier run pickled "
                                        f"({ns.experimental_rerun}), not on the overrides", _named(args, "--exp")))
    if ns.help:
        return replace(parsed, prints=(_PRINTS["help"], _named(args, "--help", "-h")))
    if ns.resolve and ns.cfg is None:
        return replace(parsed, refusal=("The --resolve flag can only be used in conjunction with --cfg or --help",
                                        _named(args, "--res")))
    if ns.hydra_help:
        return replace(parsed, prints=(_PRINTS["hydra_help"], _named(args, "--hydra")))
    commands = [c for c, on in (("run", ns.run), ("cfg", ns.cfg is not None), ("multirun", ns.multirun),
                                ("shell_completion", ns.shell_completion), ("info", ns.info is not None)) if on]
    if len(commands) > 1:
        return replace(parsed, refusal=("Only one of --run, --multirun, --cfg, --info and --shell_completion can be "
                                        "specified", None))
    if commands == ["cfg"]:
        return replace(parsed, prints=(_PRINTS["cfg"].format(_CFG[ns.cfg]), _named(args, "--cfg", "-c")))
    if commands == ["info"]:
        return replace(parsed, prints=(_PRINTS["info"].format(ns.info), _named(args, "--info", "-i")))
    if commands == ["shell_completion"]:
        return replace(parsed, prints=(_PRINTS["shell_completion"], _named(args, "--shell", "-sc")))
    return parsed


def _named(args: list[Arg], *starts: str) -> Arg | None:
    """The last word written as one of the options (a long one by any prefix argparse takes)."""
    for a in reversed(args):
        word = a.text.partition("=")[0]
        if any(word == s or (s.startswith("--") and len(word) > 2 and (s.startswith(word) or word.startswith(s)))
               for s in starts):
            return a
    return None


def _culprit(args: list[Arg], message: str) -> Arg | None:
    """The word an argparse error names (`argument --cfg/-c: invalid choice: 'x'`, `ambiguous option: --c`)."""
    return next((a for a in reversed(args) if a.text.startswith("-") and a.text.partition("=")[0] in message), None)
