"""Variables as bash has them: scalars and arrays in the global scope and in function frames, assignment, export,
and where a variable's value comes from when the script does not set it (see rftc.shell.evaluate)."""

from __future__ import annotations

import os
import re
from dataclasses import replace

from rftc.diagnostics.model import Span
from rftc.shell.arith import ArithError, ArithUnknown, parse_int
from rftc.shell.state import MAX_INDEX, MAX_VALUE, Var
from rftc.shell.syntax import ArrayAssignment, Assignment
from rftc.shell.values import Field, Seg, Unknown, anchored, text_of

_NAME = re.compile(r"[A-Za-z_]\w*")


class Variables:
    """The variables of one evaluator ``ev`` (in ``ev.st``)."""

    def __init__(self, ev):
        self.ev = ev

    # ------------------------------------------------------------------ reading
    def get(self, name: str) -> Var | None:
        st = self.ev.st
        for frame in reversed(st.frames):
            if name in frame:
                return frame[name]
        return st.vars.get(name)

    def lookup(self, name: str, span: Span):
        """(the assignments the value went through, its pieces), or None when the variable is not set and its value
        not known."""
        ev = self.ev
        st, g = ev.st, ev.g
        v = self.get(name)
        if v is not None:
            if v.items is not None:
                return ((), v.items[0]) if v.items and v.items[0] is not None else None
            return ((v.span,) if v.span else (), v.segs) if v.segs is not None else None
        if name.isdigit():
            i = int(name)
            if i == 0 and st.zero is not None:
                return (), st.zero
            if i == 0:
                return (), [Seg.at(g.script_path, span)]
            return ((), st.positional[i - 1].segs) if i <= len(st.positional) else None
        if name == "#":
            if st.args_unknown is not None:
                return None
            return (), [Seg.at(str(len(st.positional)), span)]
        if name == "?":
            return (), [Seg.at(str(ev.status), span)]
        if name == "PWD":
            return (), self.cwd_segs(span)
        if name == "BASH_SOURCE":
            return (), [Seg.at(g.script_path, span)]
        value = g.env.get(name)
        if value is None and g.use_env:
            value = os.environ.get(name)
        if value is not None:
            return (), [Seg.at(value, span)]
        if name in g.slurm:  # what sbatch sets from the script's own directives
            setting = g.slurm[name]
            g.add("RFTC122", f"${name} is {setting.value}: the script is a Slurm batch job, and sbatch sets it "
                  f"from `{setting.directive}`", setting.span,
                  hint=f"submitted with other options, pass --env {name}=value")
            return (setting.span,), [Seg.at(setting.value, span)]
        if name in g.local_names:
            return (), []  # a script variable read before it is set: empty, as bash has it
        return None

    def unknown_name(self, name: str) -> str:
        """The name an unknown variable is reported by: the script's Nth argument counts `shift`s."""
        st = self.ev.st
        if name.isdigit() and name != "0" and st.args_unknown is not None:
            return str(int(name) + st.args_unknown)
        return name

    def from_environment(self, name: str) -> bool:
        """Whether an unset variable may be set where the script runs: an environment variable, or one of the
        script's arguments when they are not given."""
        if name.isdigit():
            return name != "0" and self.ev.st.args_unknown is not None
        return name not in ("@", "*", "#", "?", "$", "!", "-") and not self.ev.unset_mode

    def separator(self) -> str:
        """What "$*" and "${a[*]}" put between the elements: the first character of IFS (a blank where IFS is
        unset or not known, nothing where it is empty)."""
        ifs = self.get("IFS")
        if ifs is None or ifs.segs is None or any(s.unknowns for s in ifs.segs):
            return " "
        return text_of(ifs.segs)[:1]

    def names_with_prefix(self, prefix: str) -> list[str]:
        st = self.ev.st
        names = set(st.vars) | {n for f in st.frames for n in f}
        return sorted(n for n in names if n.startswith(prefix))

    def is_array(self, name: str) -> bool:
        v = self.get(name)
        return v is not None and v.items is not None

    def lookup_array(self, name: str, span: Span):
        v = self.get(name)
        if v is not None and v.items is not None:  # elements carry their own assignment in via
            return (), [e for e in v.items if e is not None]
        val = self.lookup(name, span)
        if val is None:
            return None
        return val[0], [val[1]]

    def index_value(self, idx: str) -> int | None:
        t = idx.strip().lstrip("$").strip("{}")
        n = parse_int(t)
        if n is not None:
            return n
        if _NAME.fullmatch(t):
            try:
                return self.ev.arith.int_var(t, None)
            except (ArithUnknown, ArithError):
                return None
        return None

    def int_text(self, text: str) -> int | None:
        return self.index_value(text) if text.strip() else 0

    def cwd_segs(self, span: Span) -> list[Seg]:
        ev = self.ev
        if ev.st.cwd is not None:
            return ev.st.cwd
        if ev.unset_mode:
            return []
        return [Seg.at("${oc.env:PWD}", span, unknowns=(Unknown("var", "PWD", span),))]

    def exported(self) -> dict[str, str]:
        out = {}
        st = self.ev.st
        for scope in [st.vars] + st.frames:
            for k, v in scope.items():
                if v.exported:
                    out[k] = text_of(v.segs if v.segs is not None else (v.items[0] if v.items else []))
        return out

    # ------------------------------------------------------------------ assignment
    def scope_of(self, name: str) -> dict:
        st = self.ev.st
        for frame in reversed(st.frames):
            if name in frame:
                return frame
        return st.vars

    def _bounded(self, name: str, segs: list, span: Span) -> list:
        """A value that grows without bound (a = $a$a in a loop) is cut off: unknown, with RFTC114."""
        if len(segs) > 4000 or sum(len(s.text) for s in segs) > MAX_VALUE:
            self.ev.g.add("RFTC114", f"the value of ${name} grows beyond {MAX_VALUE} characters; not evaluated "
                          "further", span)
            return [Seg.at(f"${{oc.env:{name}}}", span, unknowns=(Unknown("var", name, span),))]
        return segs

    def assign_segs(self, name: str, segs: list, span: Span, *, local: bool = False, append: bool = False,
                    exported: bool | None = None) -> None:
        st = self.ev.st
        old = self.get(name)
        if not append:
            st.taints.pop(name, None)  # the new value carries what it was computed from
        if append and old is not None and old.segs is not None:
            segs = self._bounded(name, old.segs + segs, span)
            append = False
        segs = self._bounded(name, segs, span)
        scope = st.frames[-1] if (local and st.frames) else self.scope_of(name)
        if append and old is not None:
            if old.items is not None:
                items = old.items[:-1] + [old.items[-1] + segs] if old.items else [segs]
                scope[name] = Var(None, items, span, old.exported)
                return
            segs = (old.segs or []) + segs
        keep = old.exported if old is not None else False
        scope[name] = Var(segs, None, span, keep if exported is None else exported)

    def assign_items(self, name: str, items: list, span: Span, *, local=False, append=False,
                     exported: bool | None = None) -> None:
        st = self.ev.st
        old = self.get(name)
        if not append:
            st.taints.pop(name, None)
        scope = st.frames[-1] if (local and st.frames) else self.scope_of(name)
        if append and old is not None:
            base = old.items if old.items is not None else ([old.segs] if old.segs is not None else [])
            items = base + items
        keep = old.exported if old is not None else False
        scope[name] = Var(None, items, span, keep if exported is None else exported)

    def assign(self, node: Assignment | ArrayAssignment, *, local: bool = False,
               exported: bool | None = None) -> None:
        words = self.ev.words
        span = node.span
        if isinstance(node, ArrayAssignment):
            items = []  # each element remembers the assignment that wrote it (a+= keeps the older ones)
            for w in node.items:
                for f in words.fields(w):
                    segs = anchored(f.segs, f.span) if f.word_span else f.segs
                    items.append([replace(s, via=(span,) + s.via) for s in segs])
            self.assign_items(node.name, items, span, local=local, append=node.append, exported=exported)
            return
        segs = words.value(node.value)
        if node.index is not None:
            segs = [replace(s, via=(span,) + s.via) for s in segs]
            i = self.index_value(node.index)
            v = self.get(node.name)
            items = list(v.items) if v is not None and v.items is not None else (
                [v.segs] if v is not None and v.segs is not None else [])
            if i is not None and i > MAX_INDEX:
                self.ev.g.add("RFTC114", f"${{{node.name}[{i}]}}: an array index above {MAX_INDEX} is not evaluated; "
                              "the element stays unset", span)
            elif i is not None and i >= 0:
                while len(items) <= i:
                    items.append(None)  # a hole of a sparse array
                items[i] = (items[i] + segs) if (node.append and items[i] is not None) else segs
                self.assign_items(node.name, items, span, local=local, exported=exported)
            return
        self.assign_segs(node.name, segs, span, local=local, append=node.append, exported=exported)

    def declare(self, field: Field, flags: str, *, export: bool, local: bool) -> None:
        """A name given to export / local / declare without a value (`export NAME`, `local -a NAME`)."""
        st = self.ev.st
        t = field.text
        if export or "x" in flags:
            v = self.get(t)
            if v is not None:
                self.scope_of(t)[t] = replace(v, exported=True)
            else:
                val = self.lookup(t, field.span)
                if val is not None:  # from the caller's environment
                    st.vars[t] = Var(val[1], None, None, True)
        elif local:
            st.frames[-1][t] = Var([], None, field.span) if "a" not in flags else Var(None, [], field.span)
        elif "a" in flags and self.get(t) is None:  # the script's array: empty, or the caller's value as element 0
            val = None if t in self.ev.g.local_names else self.lookup(t, field.span)
            st.vars[t] = Var(None, [] if val is None else [val[1]], field.span)
