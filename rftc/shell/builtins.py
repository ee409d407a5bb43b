"""Builtin commands evaluated statically (cd, source, set, shift, unset, exit, test, echo and friends inside
``$(...)``) and the output of command substitutions."""

from __future__ import annotations

import posixpath
import re
from dataclasses import replace

from rftc.diagnostics.collector import Diagnostics

from rftc.diagnostics.model import Span
from rftc.shell.arith import expr, parse_int
from rftc.shell.conditions import test_words
from rftc.shell.notes import Choice
from rftc.shell.state import MAX_CALLS, MAX_DEPTH, Break, Continue, Exit, Return
from rftc.shell.syntax import CommandList, HereDoc, HereString, Redirect, Text
from rftc.shell.values import Field, Seg, Unknown, anchored, cut, env_knob, notes_of, text_of, unknowns_of

_DYNAMIC = {"nvidia-smi": "RFTC_NUM_GPUS", "npu-smi": "RFTC_NUM_NPUS", "nproc": "RFTC_NPROC",
            "hostname": "HOSTNAME"}


_DATE_DEFAULT = "%a %b %d %H:%M:%S %Z %Y"  # date's output with no +FORMAT


def date_format(fields) -> str:
    """The strftime format a `date` command prints with (its +FORMAT argument after quote removal)."""
    return next((a.text[1:] for a in fields[1:] if a.text.startswith("+")), _DATE_DEFAULT)


class Builtins:
    """The builtin commands of one evaluator ``ev``, as methods ``b_<name>`` (see BUILTINS), and the output of
    command substitutions."""

    def __init__(self, ev):
        self.ev = ev

    def find(self, name: str):
        """The builtin ``name`` runs, as ``builtin(fields, span, redirects, words) -> status``; None for others."""
        return getattr(self, "b_" + BUILTINS[name]) if name in BUILTINS else None

    # ------------------------------------------------------------------ command substitution
    def command_output(self, source: str | None, body: CommandList | None, span: Span) -> list[Seg]:
        """The output of $(...) (its ``body``) or `...` (its ``source``, parsed here), trailing newlines removed: the
        pieces the commands print, each where its text was written (`cat <<EOF` prints its body's), or one piece
        for an output only the run knows or that is one of a few literals (a Choice)."""
        ev = self.ev
        g = ev.g
        g.calls += 1
        if ev.depth >= MAX_DEPTH or g.calls > MAX_CALLS:
            g.add("RFTC114", f"command substitution not evaluated: more than {MAX_DEPTH} nested or {MAX_CALLS} in "
                  "all", span)
            return []
        if source is not None:  # backticks: parse the body again
            from rftc.shell.parser import parse

            tree = parse(source, ev.file, Diagnostics()).tree
            body = tree.body if tree is not None else None
        if body is None:
            return []
        out: list = []
        sub = ev.child(ev.st.fork(), capture=out)
        sub.depth, sub.uncertain = ev.depth + 1, None
        try:
            sub.commands.run_list(body)
        except (Exit, Return, Break, Continue):
            pass
        source = re.sub(r"^\$\(|^`|\)$|`$", "", ev.source_text(span)).strip()
        if sub.capture_unknown:
            name, inner, date_format = sub.capture_unknown[0]
            return [self._dynamic(name, source or inner, date_format, span)]
        notes = [_whole(n, out, span, source) if isinstance(n, Choice) else n for n in notes_of(out)]
        choice = next((n for n in notes if isinstance(n, Choice)), None)
        if choice is None:
            return _without_final_newlines(out)
        if choice.knob in g.env:  # --env RFTC_SUBST_<CMD>=... gives the output
            return [Seg.at(g.env[choice.knob], span)]
        via = tuple(dict.fromkeys(v for s in out for v in s.via))
        return [Seg.at(text_of(out).rstrip("\n"), span, unknowns=unknowns_of(out), via=via, notes=tuple(notes))]

    def _dynamic(self, name: str, text: str, date_format: str | None, span: Span) -> Seg:
        ev = self.ev
        if ev.unset_mode:
            return Seg.at("", span)
        if name == "date":
            # One ${now:..} per blank-free run of the format: the placeholder splits into words where the date
            # would, and each word is a whole Hydra interpolation.
            placeholder = re.sub(r"[^ \t\n]+", lambda m: f"${{now:{m.group()}}}", date_format)
            return Seg.at(placeholder, span, unknowns=(Unknown("dyn", placeholder, span, text.strip()),))
        env_name = _DYNAMIC.get(name) or env_knob("RFTC_SUBST", name)
        value = ev.g.env.get(env_name)
        if value is not None:
            return Seg.at(value, span)
        placeholder = f"${{oc.env:{env_name}}}"
        if name in _DYNAMIC:
            return Seg.at(placeholder, span, unknowns=(Unknown("dyn", placeholder, span, text.strip()),))
        return Seg.at(placeholder, span, unknowns=(Unknown("cmd", env_name, span, text.strip()),))

    # ------------------------------------------------------------------ builtins
    def b__noop(self, fields, span, redirects, words) -> int:
        return 0

    def b__false(self, fields, span, redirects, words) -> int:
        return 1

    def b_echo(self, fields, span, redirects, words) -> int:
        ev = self.ev
        args = fields[1:]
        newline = True
        while args and re.fullmatch(r"-[neE]+", args[0].text):
            newline = newline and "n" not in args[0].text
            args = args[1:]
        if not to_devnull(redirects):
            segs: list = []
            for i, a in enumerate(args):
                if i:
                    segs.append(Seg(" ", ev.file, span.line, span.col, span.line, span.col))
                segs += a.segs
            self._print(segs + [Seg("\n", ev.file, 1, 1, 1, 1)] if newline else segs, redirects, span, "echo")
        return 0

    def b_printf(self, fields, span, redirects, words) -> int:
        if len(fields) < 2 or to_devnull(redirects) or to_file(redirects):
            return 0
        fmt = fields[1].text
        args = [a.text for a in fields[2:]]
        parts = re.split(r"(%[sd%])", fmt.replace("\\n", "\n"))
        out, k = [], 0
        for p in parts:
            if p in ("%s", "%d"):
                out.append(args[k] if k < len(args) else "")
                k += 1
            elif p == "%%":
                out.append("%")
            else:
                out.append(p)
        unknowns = tuple(u for a in fields[2:] for u in a.unknowns)
        self.ev.emit([Seg.at("".join(out), span, unknowns=unknowns)], newline=False)
        return 0

    def b_pwd(self, fields, span, redirects, words) -> int:
        ev = self.ev
        if not to_devnull(redirects):
            ev.emit(ev.vars.cwd_segs(span))
        return 0

    def b_dirname(self, fields, span, redirects, words) -> int:
        for a in fields[1:]:
            if a.text.startswith("-"):
                continue
            self.ev.emit([Seg.at(_dirname(a.text), span, unknowns=tuple(a.unknowns), via=a.via, notes=a.notes)])
        return 0

    def b_expr(self, fields, span, redirects, words) -> int:
        """expr's arithmetic, comparisons, `|` and `&` (rftc.shell.arith.expr); its string operators (`:`, match,
        substr, ...) and unknown operands are left to run time."""
        ev = self.ev
        result = None if any(a.symbolic for a in fields[1:]) else expr([a.text for a in fields[1:]])
        if result is None:
            ev.capture_unknown.append(("expr", ev.source_text(span), None))
            return 0
        ev.emit([Seg.at(result, span)])
        return 1 if result in ("", "0") else 0

    def b_seq(self, fields, span, redirects, words) -> int:
        """seq [first [step]] last: integers only; anything else is left to run time."""
        ev = self.ev
        nums = [parse_int(a.text) for a in fields[1:]]
        if not 1 <= len(nums) <= 3 or None in nums or any(a.symbolic for a in fields[1:]):
            ev.capture_unknown.append(("seq", ev.source_text(span), None))
            return 0
        first, step, last = (1, 1, nums[0]) if len(nums) == 1 else (nums[0], 1, nums[1]) if len(nums) == 2 else nums
        if step == 0 or abs(last - first) // abs(step) > 10000:
            ev.capture_unknown.append(("seq", ev.source_text(span), None))
            return 0
        values = range(first, last + (1 if step > 0 else -1), step)
        ev.emit([Seg.at("".join(f"{v}\n" for v in values), span)], newline=False)
        return 0

    def b_basename(self, fields, span, redirects, words) -> int:
        args = [a for a in fields[1:] if not a.text.startswith("-")]
        if args:
            base = args[0].text.rstrip("/").rsplit("/", 1)[-1] or "/"
            if len(args) > 1 and base.endswith(args[1].text) and base != args[1].text:
                base = base[: -len(args[1].text)]
            self.ev.emit([Seg.at(base, span, unknowns=tuple(args[0].unknowns), via=args[0].via, notes=args[0].notes)])
        return 0

    def b_realpath(self, fields, span, redirects, words) -> int:
        ev = self.ev
        if fields[0].text == "readlink" and not any(a.text in ("-f", "-e", "-m") for a in fields[1:]):
            ev.capture_unknown.append(("readlink", ev.source_text(span), None))
            return 0
        for a in fields[1:]:
            if a.text.startswith("-"):
                continue
            ev.emit(self._absolute(a, span))
        return 0

    def _absolute(self, a: Field, span: Span) -> list[Seg]:
        # a path that starts with a variable rftc does not know (`cd "$SLURM_SUBMIT_DIR"`, `$HOME/x`) is taken as
        # the directory that variable names, not as one below the working directory
        ev = self.ev
        rooted = a.text.startswith("/") or (a.segs and a.segs[0].unknowns and a.segs[0].text.startswith("${"))
        if rooted or ev.st.cwd is None or any(s.unknowns for s in ev.st.cwd):
            base = [] if rooted else ev.vars.cwd_segs(span)
        else:
            base = ev.st.cwd
        notes = tuple(dict.fromkeys(a.notes + notes_of(base)))
        if not base:
            return [Seg.at(posixpath.normpath(a.text), span, unknowns=tuple(a.unknowns), via=a.via, notes=notes)]
        base_text = text_of(base)
        text = posixpath.normpath(posixpath.join(base_text, a.text))
        unknowns = tuple(u for s in base for u in s.unknowns) + tuple(a.unknowns)
        return [Seg.at(text, span, unknowns=unknowns, via=a.via, notes=notes)]

    def b_cd(self, fields, span, redirects, words) -> int:
        ev = self.ev
        args = [a for a in fields[1:] if a.text not in ("--", "-P", "-L")]
        if not args:
            val = ev.vars.lookup("HOME", span)
            target = Field(val[1]) if val else Field([Seg.at("${oc.env:HOME}", span,
                                                               unknowns=(Unknown("var", "HOME", span),))])
        else:
            target = args[0]
        if target.text == "-":
            return 0
        ev.st.cwd = self._absolute(target, span)
        return 0

    def b_source(self, fields, span, redirects, words) -> int:
        ev = self.ev
        if len(fields) < 2:
            return 1
        read = ev.files.read_file(fields[1], span, "sourced file")
        if read is None:
            return 1
        path, text, held = read
        ev.st.vars.update(held)
        saved = ev.st.positional, ev.st.args_unknown
        if len(fields) > 2:
            ev.st.positional, ev.st.args_unknown = fields[2:], None
        try:
            ev.files.run_file(path, text, span)
        finally:
            if len(fields) > 2:
                ev.st.positional, ev.st.args_unknown = saved
        return 0

    def b_set(self, fields, span, redirects, words) -> int:
        ev = self.ev
        args = fields[1:]
        if args and args[0].text == "--":
            ev.st.positional = [Field(anchored(a.segs, a.span), a.span) for a in args[1:]]
            ev.st.args_unknown, ev.st.args_more = None, False
        return 0

    def b_shift(self, fields, span, redirects, words) -> int:
        ev = self.ev
        n = parse_int(fields[1].text) if len(fields) > 1 else 1
        if ev.st.args_unknown is not None:  # arguments not given: $1 is now a later one of them
            ev.st.args_unknown += max(n or 0, 0)
            return 0
        if n is not None and n > len(ev.st.positional):
            return 1  # bash leaves them as they are
        ev.st.positional = ev.st.positional[n or 0:]
        return 0

    def b_unset(self, fields, span, redirects, words) -> int:
        ev = self.ev
        funcs = any(a.text == "-f" for a in fields[1:])
        for a in fields[1:]:
            if a.text.startswith("-"):
                continue
            if funcs:
                ev.st.funcs.pop(a.text, None)
            else:
                ev.vars.scope_of(a.text).pop(a.text, None)
        return 0

    def b_exit(self, fields, span, redirects, words) -> int:
        ev = self.ev
        ev.status = parse_int(fields[1].text) or 0 if len(fields) > 1 else ev.status
        if ev.g.exit_span is None:
            ev.g.exit_span = span
        raise Exit()

    def b_return(self, fields, span, redirects, words) -> int:
        ev = self.ev
        ev.status = parse_int(fields[1].text) or 0 if len(fields) > 1 else ev.status
        raise Return()

    def b_break(self, fields, span, redirects, words) -> int:
        raise Break(parse_int(fields[1].text) or 1 if len(fields) > 1 else 1)

    def b_continue(self, fields, span, redirects, words) -> int:
        raise Continue(parse_int(fields[1].text) or 1 if len(fields) > 1 else 1)

    def b_eval(self, fields, span, redirects, words) -> int:
        """bash joins the arguments with blanks and runs the text as commands of this shell."""
        ev = self.ev
        if len(fields) > 1:
            name, text, held = ev.files.code_text(fields[1:], span, "eval")
            ev.st.vars.update(held)
            ev.files.run_file(name, text, span)
        return 0

    def b_read(self, fields, span, redirects, words) -> int:
        """read [-r] [-a ARRAY] [-d DELIM] [NAME...]: a here-string's line, split on IFS as bash splits it; what
        comes from elsewhere (the terminal, a file, a pipe) is read at run time: unknown."""
        ev = self.ev
        options, names = read_options([f.text for f in fields[1:]])
        given = self._input(redirects)
        line = None if given is None or unknowns_of(given) else text_of(given)
        ifs = ev.vars.get("IFS")  # unset: bash splits as with the default
        known_ifs = ifs is None or (ifs.segs is not None and not any(x.unknowns for x in ifs.segs))
        if line is None or not known_ifs or {"n", "N", "u"} & options.keys():  # a count of characters, another fd
            for n in ([options["a"]] if "a" in options else []) + names:
                ev.vars.assign_segs(n, [Seg.at(f"${{oc.env:{n}}}", span, unknowns=(Unknown("var", n, span),))], span)
            ev.branches.note_uncertain([], span, "read")
            return 0
        ifs_text = " \t\n" if ifs is None else "".join(x.text for x in ifs.segs)
        delim = options.get("d", "\n")[:1] or "\0"
        line, found = (line.split(delim, 1)[0], True) if delim in line else (line, False)
        raw = "r" in options
        if "a" in options:
            ev.vars.assign_items(options["a"], [[Seg.at(v, span)] for v in ifs_split(line, ifs_text, raw=raw)], span)
        else:
            values = ifs_split(line, ifs_text, len(names), raw=raw) if names else [
                (ifs_split(line, "", raw=raw) or [""])[0]]
            for n, v in zip(names or ["REPLY"], values + [""] * len(names)):
                ev.vars.assign_segs(n, [Seg.at(v, span)], span)
        return 0 if found else 1

    def _input(self, redirects) -> list[Seg] | None:
        """What a here-string (the word expanded, unsplit, and a newline) or a heredoc gives the command's input;
        None when it reads anything else."""
        for r in redirects:
            if isinstance(r, HereString):
                return self.ev.words.segs(r.word) + [Seg.at("\n", r.span)]
            if isinstance(r, HereDoc):
                return self.ev.words.heredoc(r)
        return None

    def b_cat(self, fields, span, redirects, words) -> int:
        """`cat` of a heredoc or here-string prints their text (`cmd=$(cat <<EOF ... EOF)`); what it reads from
        anywhere else is known only at run time."""
        ev = self.ev
        given = self._input(redirects) if all(f.text == "-" for f in fields[1:]) else None
        if given is None:
            return ev.commands.external(fields, {}, span, redirects)
        if not to_devnull(redirects):
            self._print(given, redirects, span, "cat")
        return 0

    def _print(self, segs: list[Seg], redirects, span: Span, command: str) -> None:
        """What a command prints: into the file its output is redirected to, else where the shell's output goes."""
        if to_file(redirects):
            self.ev.files.write(segs, redirects, span, command)
        else:
            self.ev.emit(segs, newline=False)

    def b_test(self, fields, span, redirects, words) -> int:
        ev = self.ev
        args = fields[1:]
        if fields[0].text == "[":
            if not args or args[-1].text != "]":
                return 2
            args = args[:-1]

        def unset_texts() -> list[str]:  # as bash would with the unknown variables unset
            prev = ev.unset_mode
            ev.unset_mode = True
            try:
                unset_fields: list[Field] = []
                for w in words:
                    unset_fields += ev.words.fields(w)
            finally:
                ev.unset_mode = prev
            texts = [f.text for f in unset_fields[1:]]
            return texts[:-1] if fields[0].text == "[" and texts[-1:] == ["]"] else texts

        ok = ev.branches.decide([a.segs for a in args], unset_texts, lambda texts: test_words(texts, ev, span=span),
                                span)
        return 0 if ok else 1


# command name -> builtin method suffix
BUILTINS = {
    "true": "_noop", ":": "_noop", "false": "_false", "echo": "echo", "printf": "printf", "pwd": "pwd", "cat": "cat",
    "dirname": "dirname", "basename": "basename", "realpath": "realpath", "readlink": "realpath",
    "cd": "cd", "pushd": "cd", "source": "source", ".": "source", "set": "set", "shift": "shift",
    "unset": "unset", "exit": "exit", "return": "return", "break": "break", "continue": "continue",
    "eval": "eval", "trap": "_noop", "read": "read", "[": "test", "test": "test", "wait": "_noop",
    "sleep": "_noop", "seq": "seq", "expr": "expr", "shopt": "_noop", "ulimit": "_noop", "umask": "_noop",
    "popd": "_noop", "hash": "_noop",
}


def _without_final_newlines(out: list[Seg]) -> list[Seg]:
    """Printed pieces without the newlines that end them, which command substitution removes."""
    out = list(out)
    while out and out[-1].text.endswith("\n"):
        last = cut(out[-1], 0, len(out[-1].text.rstrip("\n")))
        out[-1:] = [last] if last.text else []
    return out


def _whole(choice: Choice, out: list, span: Span, source: str) -> Choice:
    """A choice among a substitution's branches, as a choice among the substitution's whole outputs."""
    before = "".join(s.text for s in out[:next(i for i, s in enumerate(out) if choice in s.notes)])
    after = "".join(s.text for s in out[next(i for i, s in enumerate(out) if choice in s.notes) + 1:])
    return replace(choice, options=tuple(dict.fromkeys((before + o + after).rstrip("\n") for o in choice.options)),
                   span=span, source=source)


def read_options(args: list[str]) -> tuple[dict[str, str], list[str]]:
    """`read`'s options (flag -> its value, "" for -r/-s/-e) and the names after them."""
    options: dict[str, str] = {}
    i = 0
    while i < len(args) and args[i].startswith("-") and args[i] not in ("-", "--"):
        opt, i, j = args[i], i + 1, 1
        while j < len(opt):
            flag, j = opt[j], j + 1
            if flag in "adinNptu":  # these take a value: the rest of the word, or the next word
                value = opt[j:] if j < len(opt) else (args[i] if i < len(args) else "")
                i += 0 if j < len(opt) else 1
                options[flag], j = value, len(opt)
            else:
                options[flag] = ""
    if i < len(args) and args[i] == "--":
        i += 1
    return options, args[i:]


def ifs_split(line: str, ifs: str, names: int | None = None, *, raw: bool = True) -> list[str]:
    """The fields `read` splits a line into: IFS blanks around the line are dropped and runs of them delimit, each
    other IFS character delimits once (with the blanks around it); a backslash escapes a character unless ``raw``
    (-r). With ``names`` the last one takes the rest of the line, less one delimiter that only ends it."""
    chars: list[str] = []
    escaped: list[bool] = []
    i = 0
    while i < len(line):
        if not raw and line[i] == "\\":
            if i + 1 < len(line) and line[i + 1] != "\n":
                chars.append(line[i + 1])
                escaped.append(True)
            i += 2  # backslash-newline joins lines; a last backslash is dropped
            continue
        chars.append(line[i])
        escaped.append(False)
        i += 1
    blanks = set(ifs) & set(" \t\n")
    others = set(ifs) - blanks

    def blank(k: int) -> bool:
        return not escaped[k] and chars[k] in blanks

    start, end = 0, len(chars)
    while start < end and blank(start):
        start += 1
    while end > start and blank(end - 1):
        end -= 1

    def delimiter(k: int) -> int | None:
        """Where the delimiter starting at k ends, or None when there is none at k."""
        j = k
        while j < end and blank(j):
            j += 1
        if j < end and not escaped[j] and chars[j] in others:
            j += 1
            while j < end and blank(j):
                j += 1
        return j if j > k else None

    fields: list[str] = []
    pos = k = start
    while k < end:
        if names is not None and len(fields) == names - 1:
            j = k
            while j < end and delimiter(j) is None:
                j += 1
            return fields + ["".join(chars[pos:j if j < end and delimiter(j) == end else end])]
        stop = delimiter(k)
        if stop is None:
            k += 1
            continue
        fields.append("".join(chars[pos:k]))
        pos = k = stop
    if pos < end:
        fields.append("".join(chars[pos:end]))
    return fields


def redirect_targets(redirects) -> list[tuple[str, str]]:
    """(operator, target as written, without what is not plain text) of each redirection `>`, `<`, `2>&1` ..."""
    return [(r.op.strip(), "".join(p.text for p in r.target.parts if isinstance(p, Text)))
            for r in redirects if isinstance(r, Redirect)]


def to_devnull(redirects) -> bool:
    return any(op in (">", ">>", "1>", "&>") and t == "/dev/null" for op, t in redirect_targets(redirects))


WRITES = (">", ">>", "1>", "&>", ">|")  # the redirections of a command's output into a file


def to_file(redirects) -> bool:
    return any(op in WRITES for op, _ in redirect_targets(redirects))


def _dirname(path: str) -> str:
    p = path.rstrip("/")
    if not p:
        return "/" if path.startswith("/") else "."
    if "/" not in p:
        return "."
    d = p.rsplit("/", 1)[0].rstrip("/")
    return d or "/"
