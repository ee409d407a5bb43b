"""The config a fork's main composes without Hydra, read from its source with ast (the module is never imported or
run): argparse arguments, OmegaConf.load of files named by constants, __file__ and os.path / pathlib, or an
argparse argument, OmegaConf.merge / merge_with in order, and OmegaConf.from_dotlist / from_cli over the launch's
remaining words, up to the config given to the trainer (run_ppo, RayPPOTrainer, a `...Trainer` class).

The module's straight-line code is followed from its top level, through `if __name__ == "__main__":` and calls of
its own functions. The launch's words are bound to the arguments by Python's own argparse, built from the
add_argument calls' literal arguments. What the code decides at run time (a value set in a conditional or a loop,
a call rftc does not know, a config changed in place) stops the reading at that line: the config is not composed.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import io
import os
from dataclasses import dataclass
from pathlib import Path

from rftc.shell.invocation import Arg
from rftc.verl.primary.hydra_main import callee, imports, is_trainer

_MAX_DEPTH = 8  # nested calls of the module's own functions followed


@dataclass(frozen=True)
class Load:
    """OmegaConf.load of a file: its path and where it is named (a launch word, or the source line)."""

    path: str  # as opened (relative: from the launch's working directory)
    word: Arg | None  # the launch's word that gives the path
    line: int  # the line of the load call


@dataclass(frozen=True)
class Dotlist:
    """OmegaConf.from_dotlist / from_cli over launch words: `a.b=value` items."""

    words: tuple[Arg, ...]
    line: int


@dataclass(frozen=True)
class Plan:
    """What the module composes: its loads and dotlists in merge order, and the trainer call it is given to."""

    steps: tuple
    trainer_line: int


class Unfollowed(Exception):
    """The source decides something only its run knows: ``line`` and what."""

    def __init__(self, line: int, why: str):
        super().__init__(why)
        self.line, self.why = line, why


@dataclass(frozen=True)
class _Unknown:
    line: int
    why: str


@dataclass(frozen=True)
class _Path:  # a pathlib.Path
    path: str
    word: Arg | None = None  # the launch's word it is built from, if one


@dataclass
class _Parser:
    calls: list  # the add_argument calls: (args, kwargs)
    options: dict


@dataclass(frozen=True)
class _Config:
    steps: tuple


class _Namespace:
    def __init__(self, values: dict):
        self.values = values


class _Return(Exception):
    def __init__(self, value):
        self.value = value


class _ArgparseExit(Exception):
    pass


class _Parsing(argparse.ArgumentParser):
    def error(self, message):
        raise _ArgparseExit(message)


def read(tree: ast.Module, file: Path, words: list[Arg], cwd: Path) -> Plan:
    """The composition the module at ``file`` runs on the launch's ``words`` in the directory ``cwd``; Unfollowed
    where it cannot be read."""
    run = _Run(tree, file, words, cwd)
    try:
        run.block(tree.body, run.module_env, 0)
    except _Return:
        pass
    if run.sink is None:
        line = next((n.lineno for n in ast.walk(tree) if isinstance(n, ast.Call)
                     and is_trainer(callee(n.func, run.origins)[1])), 1)
        raise Unfollowed(line, "the trainer call is not reached by the module's straight-line code from "
                               "`if __name__ == \"__main__\":`")
    line, config = run.sink
    if isinstance(config, _Unknown):
        raise Unfollowed(config.line, config.why)
    if not isinstance(config, _Config):
        raise Unfollowed(line, "the trainer is not given a config the module composes with OmegaConf")
    return Plan(config.steps, line)


class _Run:
    def __init__(self, tree: ast.Module, file: Path, words: list[Arg], cwd: Path):
        self.tree, self.file, self.words, self.cwd = tree, file, words, cwd
        self.origins = imports(tree)
        self.functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
        self.sink = None  # (line, the config value) of the first trainer call reached
        self.module_env = {"__file__": str(file), "__name__": "__main__"}  # the module's globals

    # statements
    def block(self, body: list, env: dict, depth: int) -> None:
        for stmt in body:
            self.statement(stmt, env, depth)

    def statement(self, stmt: ast.stmt, env: dict, depth: int) -> None:
        if isinstance(stmt, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef,
                             ast.Pass, ast.Assert, ast.Global, ast.Nonlocal)):
            return
        if isinstance(stmt, ast.Assign):
            value = self.expr(stmt.value, env, depth)
            for target in stmt.targets:
                self.assign(target, value, env, stmt.lineno)
        elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            self.assign(stmt.target, self.expr(stmt.value, env, depth), env, stmt.lineno)
        elif isinstance(stmt, ast.AugAssign):
            self.assign(stmt.target, _Unknown(stmt.lineno, "a value changed in place"), env, stmt.lineno)
        elif isinstance(stmt, ast.Expr):
            self.expr(stmt.value, env, depth)
        elif isinstance(stmt, ast.Return):
            raise _Return(self.expr(stmt.value, env, depth) if stmt.value is not None else None)
        elif isinstance(stmt, ast.If) and _is_main_guard(stmt.test):
            self.block(stmt.body, env, depth)
        elif isinstance(stmt, (ast.With, ast.Try)):
            self.block(stmt.body, env, depth)  # the path the module takes when nothing fails
        else:
            what = {ast.If: "a conditional", ast.For: "a loop", ast.While: "a loop"}.get(type(stmt), "a statement")
            for name in _touched(stmt):
                env[name] = _Unknown(stmt.lineno, f"`{name}` is set in {what} (line {stmt.lineno})")
            if any(isinstance(n, ast.Call) and is_trainer(callee(n.func, self.origins)[1])
                   for n in ast.walk(stmt)) and self.sink is None:
                self.sink = (stmt.lineno, _Unknown(stmt.lineno, f"the trainer is called inside {what}"))

    def assign(self, target: ast.expr, value, env: dict, line: int) -> None:
        if isinstance(target, ast.Name):
            env[target.id] = value
        elif isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, (tuple, list)) \
                and len(value) == len(target.elts):
            for t, v in zip(target.elts, value):
                self.assign(t, v, env, line)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for t in target.elts:
                self.assign(t, _Unknown(line, "a value unpacked from something rftc does not follow"), env, line)
        else:  # `cfg.trainer.x = ...`, `args.config = ...`: the object changes in place
            root = target
            while isinstance(root, (ast.Attribute, ast.Subscript)):
                root = root.value
            if isinstance(root, ast.Name):
                env[root.id] = _Unknown(line, f"`{ast.unparse(target)}` is set in the source (line {line})")

    # expressions
    def expr(self, node: ast.expr, env: dict, depth: int):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            if node.id in env:
                return env[node.id]
            if self.origins.get(node.id) == "sys.argv":
                return self.argv(line)
            return _Unknown(line, f"`{node.id}` has no value rftc can read (line {line})")
        if isinstance(node, (ast.List, ast.Tuple)):
            return [self.expr(e, env, depth) for e in node.elts]
        if isinstance(node, ast.JoinedStr):
            parts = [self.expr(v.value if isinstance(v, ast.FormattedValue) else v, env, depth) for v in node.values]
            return _carry("".join(_text(p) for p in parts), parts) if all(_is_text(p) for p in parts) else \
                _unknown_of(parts, line, "an f-string")
        if isinstance(node, (ast.Subscript, ast.Attribute)) and self.imported(node, env):
            return _Unknown(line, f"`{ast.unparse(node)}`, a value only the module's run knows")
        if isinstance(node, ast.Subscript):
            base, index = self.expr(node.value, env, depth), node.slice
            if isinstance(base, list) and isinstance(index, ast.Slice):
                bounds = [self.expr(b, env, depth) if b is not None else None
                          for b in (index.lower, index.upper, index.step)]
                if all(b is None or type(b) is int for b in bounds):
                    return base[slice(*bounds)]
            elif isinstance(base, list):
                at = self.expr(index, env, depth)
                if type(at) is int and -len(base) <= at < len(base):
                    return base[at]
            return _unknown_of([base], line, f"`{ast.unparse(node)}`")
        if isinstance(node, ast.BinOp):
            left, right = self.expr(node.left, env, depth), self.expr(node.right, env, depth)
            if isinstance(node.op, ast.Div) and isinstance(left, _Path) and _is_text(right):
                return _carry(os.path.join(left.path, _text(right)), [left, right], path=True)
            if isinstance(node.op, ast.Add) and _is_text(left) and _is_text(right) \
                    and not isinstance(left, _Path) and not isinstance(right, _Path):
                return _carry(_text(left) + _text(right), [left, right])
            if isinstance(node.op, ast.Add) and isinstance(left, list) and isinstance(right, list):
                return left + right
            return _unknown_of([left, right], line, f"`{ast.unparse(node)}`")
        if isinstance(node, ast.Attribute):
            if node.attr == "argv" and isinstance(node.value, ast.Name) and self.origins.get(node.value.id) == "sys":
                return self.argv(line)
            base = self.expr(node.value, env, depth)
            if isinstance(base, _Namespace):
                return base.values.get(node.attr, _Unknown(line, f"argparse gives no `{node.attr}` (line {line})"))
            if isinstance(base, _Path) and node.attr == "parent":
                return _Path(os.path.dirname(base.path), base.word)
            return _unknown_of([base], line, f"`{ast.unparse(node)}`")
        if isinstance(node, ast.Call):
            return self.call(node, env, depth)
        return _Unknown(line, f"`{ast.unparse(node)}`, a value only the module's run knows")

    def imported(self, node: ast.expr, env: dict) -> bool:
        """Whether an attribute or item chain starts at an imported name (`os.environ[...]`, `sys.argv`)."""
        while isinstance(node, (ast.Attribute, ast.Subscript)):
            if isinstance(node, ast.Attribute) and node.attr == "argv" and isinstance(node.value, ast.Name) \
                    and self.origins.get(node.value.id) == "sys":
                return False  # sys.argv: the launch's words
            node = node.value
        return isinstance(node, ast.Name) and node.id not in env and self.origins.get(node.id, "sys.argv") != "sys.argv"

    def call(self, node: ast.Call, env: dict, depth: int):
        line = node.lineno
        dotted, name = callee(node.func, self.origins)
        args = [self.expr(a, env, depth) for a in node.args if not isinstance(a, ast.Starred)]
        kwargs = {k.arg: self.expr(k.value, env, depth) for k in node.keywords if k.arg}
        if is_trainer(name) and name not in self.functions:
            config = args[0] if args else kwargs.get("config")
            if self.sink is None:
                self.sink = (line, config)
            return _Unknown(line, f"what {name} returns")
        if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
            return _Unknown(line, f"the call `{ast.unparse(node)}` unpacks arguments (line {line})")
        receiver = self.expr(node.func.value, env, depth) if isinstance(node.func, ast.Attribute) \
            and dotted is None else None
        if isinstance(receiver, _Unknown):
            return receiver
        if dotted == "omegaconf.OmegaConf.update" and node.args and isinstance(node.args[0], ast.Name):
            env[node.args[0].id] = _Unknown(line, f"the config is changed in place by OmegaConf.update (line {line})")
            return None
        if isinstance(receiver, _Parser):
            return self.parser_call(receiver, name, node, args, kwargs, env)
        if isinstance(receiver, _Config) and name in ("merge_with", "merge_with_dotlist"):
            added = self.omegaconf("from_dotlist" if name == "merge_with_dotlist" else "merge", args, line)
            target = node.func.value
            self.assign(target, added if isinstance(added, _Unknown) else _Config(receiver.steps + added.steps),
                        env, line)
            return None
        if isinstance(receiver, _Path) and name in ("resolve", "absolute", "expanduser"):
            path = os.path.expanduser(receiver.path) if name == "expanduser" else \
                os.path.normpath(os.path.join(self.cwd, receiver.path))
            return _Path(path, receiver.word)
        if isinstance(node.func, ast.Name) and node.func.id in self.functions and dotted is None:
            return self.function(self.functions[node.func.id], args, kwargs, env, depth, line)
        if dotted is not None:
            return self.library(dotted, args, kwargs, line)
        if isinstance(node.func, ast.Name) and node.func.id == "str" and len(args) == 1 and _is_text(args[0]):
            return _carry(_text(args[0]), args)
        if isinstance(node.func, ast.Name) and node.func.id == "print":
            return None
        if isinstance(node.func, ast.Attribute) and name in _MUTATORS:
            self._spoil(node, env, f"`{ast.unparse(node)}` changes a value rftc does not follow (line {line})")
            return None
        return _Unknown(line, f"the call `{ast.unparse(node)}` (line {line})")

    def library(self, dotted: str, args: list, kwargs: dict, line: int):
        bad = next((a for a in [*args, *kwargs.values()] if isinstance(a, _Unknown)), None)
        if dotted in ("os.path.join", "os.path.dirname", "os.path.abspath", "os.path.realpath", "os.path.normpath",
                      "os.path.expanduser", "os.fspath"):
            if bad is not None or not args or not all(_is_text(a) for a in args):
                return bad or _Unknown(line, f"a path `{dotted}` builds from values rftc cannot read (line {line})")
            def absolute(path: str) -> str:  # from the launch's working directory, not rftc's
                return os.path.normpath(os.path.join(self.cwd, path))

            fn = {"os.path.abspath": absolute, "os.path.realpath": absolute,
                  "os.fspath": str}.get(dotted) or getattr(os.path, dotted.rsplit(".", 1)[1])
            return _carry(fn(*[_text(a) for a in args]), args)
        if dotted == "os.getcwd":
            return str(self.cwd)
        if dotted == "pathlib.Path":
            if bad is not None or not all(_is_text(a) for a in args):
                return bad or _Unknown(line, f"a path built from values rftc cannot read (line {line})")
            return _carry(os.path.join(*[_text(a) for a in args]) if args else ".", args, path=True)
        if dotted == "argparse.ArgumentParser":
            return _Parser([], {k: v for k, v in kwargs.items() if k in ("allow_abbrev", "add_help", "prog")})
        if dotted.startswith("omegaconf.OmegaConf."):
            return self.omegaconf(dotted.rsplit(".", 1)[1], args, line)
        return _Unknown(line, f"`{dotted}(...)`, which rftc does not follow (line {line})")

    def omegaconf(self, method: str, args: list, line: int):
        bad = next((a for a in args if isinstance(a, _Unknown)), None)
        if bad is not None:
            return bad
        if method == "load" and len(args) == 1 and _is_text(args[0]):
            return _Config((Load(_text(args[0]), _word_of(args[0]), line),))
        if method == "merge" and all(isinstance(a, _Config) for a in args):
            return _Config(tuple(s for a in args for s in a.steps))
        if method in ("from_dotlist", "from_cli"):
            if method == "from_cli" and not args:
                return _Config((Dotlist(tuple(self.words), line),))  # sys.argv[1:]: every word of the launch
            if len(args) == 1 and isinstance(args[0], list) and all(isinstance(w, _Word) for w in args[0]):
                return _Config((Dotlist(tuple(w.arg for w in args[0]), line),))
        if method == "create" and (not args or args[0] in ({}, None)):
            return _Config(())
        return _Unknown(line, f"OmegaConf.{method} on values rftc cannot read (line {line})")

    def function(self, fn: ast.FunctionDef, args: list, kwargs: dict, env: dict, depth: int, line: int):
        if depth >= _MAX_DEPTH:
            return _Unknown(line, f"calls nested deeper than {_MAX_DEPTH} (line {line})")
        params = [a.arg for a in fn.args.args]
        defaults = dict(zip(params[len(params) - len(fn.args.defaults):], fn.args.defaults))
        local = dict(self.module_env)
        for i, p in enumerate(params):
            if i < len(args):
                local[p] = args[i]
            elif p in kwargs:
                local[p] = kwargs[p]
            elif p in defaults:
                local[p] = self.expr(defaults[p], self.module_env, depth)
        try:
            self.block(fn.body, local, depth + 1)
        except _Return as ret:
            return ret.value
        return None

    def parser_call(self, parser: _Parser, name: str, node: ast.Call, args: list, kwargs: dict, env: dict):
        line = node.lineno
        if name == "add_argument":
            if not all(isinstance(a, str) for a in args):
                return self._spoil(node, env, f"an argument whose name rftc cannot read (line {line})")
            kw = {}
            for k, v in kwargs.items():
                if k == "type":
                    v = {"str": str, "int": int, "float": float}.get(ast.unparse(
                        next(x.value for x in node.keywords if x.arg == "type")))
                    if v is None:
                        return self._spoil(node, env, f"an argument of a type rftc does not follow (line {line})")
                elif isinstance(v, (_Unknown, _Path, _Parser, _Config, _Namespace, _Word)):
                    return self._spoil(node, env, f"an argument setting rftc cannot read (line {line})")
                kw[k] = v
            parser.calls.append((tuple(args), kw))
            return None
        if name in ("parse_args", "parse_known_args") and not args and not kwargs:
            return self.parse(parser, name == "parse_known_args", line)
        if name in ("set_defaults", "add_argument_group", "add_mutually_exclusive_group", "add_subparsers"):
            return self._spoil(node, env, f"`{ast.unparse(node.func)}`, which rftc does not follow (line {line})")
        return None  # print_help, description and the like change nothing parsed

    def _spoil(self, node: ast.Call, env: dict, why: str):
        root = node.func.value
        while isinstance(root, (ast.Attribute, ast.Subscript)):
            root = root.value
        if isinstance(root, ast.Name):
            env[root.id] = _Unknown(node.lineno, why)
        return None

    def parse(self, parser: _Parser, known: bool, line: int):
        """The launch's words parsed by argparse itself, built from the literal add_argument calls."""
        changed = self.argv_changed()
        if changed:
            raise Unfollowed(changed, "the module changes sys.argv, which argparse reads")
        real = _Parsing(**parser.options)
        try:
            for args, kwargs in parser.calls:
                real.add_argument(*args, **kwargs)
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                texts = [w.text for w in self.words]
                parsed = real.parse_known_args(texts) if known else (real.parse_args(texts), None)
        except _ArgparseExit as exc:
            raise Unfollowed(line, f"argparse refuses the launch's words: {exc}") from None
        except (SystemExit, TypeError, ValueError, argparse.ArgumentError) as exc:
            raise Unfollowed(line, f"the argparse parser cannot be built or exits: {exc}") from None
        namespace, rest = parsed
        values = {k: self.words_of(v) for k, v in vars(namespace).items()}
        return (_Namespace(values), self.words_of(rest)) if known else _Namespace(values)

    def argv_changed(self) -> int:
        """The line where the module writes sys.argv (assigns it or an item, calls a list method on it); 0: never."""
        for n in ast.walk(self.tree):
            target = n.func.value if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) \
                and n.func.attr in _MUTATORS else n if isinstance(getattr(n, "ctx", None), ast.Store) else None
            while isinstance(target, ast.Subscript):
                target = target.value
            if isinstance(target, ast.Attribute) and target.attr == "argv" and isinstance(target.value, ast.Name) \
                    and self.origins.get(target.value.id) == "sys":
                return n.lineno
        return 0

    def argv(self, line: int):
        """sys.argv: the module's path, then the launch's words (unless the module changes it)."""
        changed = self.argv_changed()
        if changed:
            return _Unknown(changed, "the module changes sys.argv")
        return [str(self.file), *(_Word(w) for w in self.words)]

    def words_of(self, value):
        """argparse's strings as the launch's words they come from (`--opt=value`: the word that holds it)."""
        if isinstance(value, list):
            return [self.words_of(v) for v in value]
        if isinstance(value, str):
            word = next((w for w in self.words if w.text == value), None) or next(
                (w for w in self.words if w.text.startswith("-") and w.text.endswith("=" + value)), None)
            if word is not None:
                return _Word(Arg(value, word.span, word.via, word.symbolic))
        return value


@dataclass(frozen=True)
class _Word:  # a string argparse took from a launch word
    arg: Arg


def _text(value) -> str:
    return value.path if isinstance(value, _Path) else value.arg.text if isinstance(value, _Word) else value


def _is_text(value) -> bool:
    return isinstance(value, (str, _Path, _Word))


def _word_of(value) -> Arg | None:
    return value.arg if isinstance(value, _Word) else value.word if isinstance(value, _Path) else None


def _carry(text: str, inputs: list, path: bool = False):
    """A string (or path) built from ``inputs``: where one launch word is among them, it keeps that word's place
    (messages and provenance point at the word)."""
    words = [w for w in map(_word_of, inputs) if w is not None]
    word = words[0] if len(words) == 1 else None
    if path:
        return _Path(text, word)
    return _Word(Arg(text, word.span, word.via, word.symbolic)) if word is not None else text


def _unknown_of(values: list, line: int, what: str) -> _Unknown:
    return next((v for v in values if isinstance(v, _Unknown)), None) or _Unknown(
        line, f"{what}, which rftc does not follow (line {line})")


def _is_main_guard(test: ast.expr) -> bool:
    return isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id == "__name__" \
        and len(test.comparators) == 1 and isinstance(test.comparators[0], ast.Constant) \
        and test.comparators[0].value == "__main__"


# methods that change the object they are called on (a config, a parser, a list of words)
_MUTATORS = frozenset({"merge_with", "merge_with_dotlist", "add_argument", "set_defaults", "add_argument_group",
                       "add_mutually_exclusive_group", "add_subparsers", "update", "append", "extend", "insert",
                       "pop", "remove", "clear", "setdefault"})


def _touched(stmt: ast.stmt) -> set[str]:
    """The names a block binds or changes (`cfg.merge_with(...)`, `parser.add_argument`, `OmegaConf.update(cfg,
    ...)`, `cfg.a.b = 1`); a block that only reads (prints, checks a path and exits) changes nothing."""
    out = set()
    for n in ast.walk(stmt):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            out.add(n.id)
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _MUTATORS:
            root = n.args[0] if n.func.attr == "update" and isinstance(n.func.value, ast.Name) \
                and n.func.value.id == "OmegaConf" and n.args else n.func.value
            while isinstance(root, ast.Attribute):
                root = root.value
            if isinstance(root, ast.Name):
                out.add(root.id)
        elif isinstance(n, (ast.Attribute, ast.Subscript)) and isinstance(n.ctx, ast.Store):
            root = n.value
            while isinstance(root, (ast.Attribute, ast.Subscript)):
                root = root.value
            if isinstance(root, ast.Name):
                out.add(root.id)
    return out
