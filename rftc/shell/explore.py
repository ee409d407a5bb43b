"""Conditions rftc cannot decide: every branch is evaluated, none is guessed. A mixin of
:class:`rftc.shell.evaluate.Evaluator`.

A condition is undecidable when it depends on what only the machine that runs the script knows: a variable the
script never sets, a file, a command's result or output, the script's arguments. Each branch then runs in a copy
of the state (``explore``):

- a branch that ends in a failing ``exit`` / ``return`` is a guard (`[ -z "$MODEL" ] && exit 1`): it is assumed
  not taken, and an info diagnostic (RFTC117) names the condition and what decides it;
- launches made in any branch are the script's launches; where other branches are viable too, each notes the
  condition it sits under (RFTC118, ``Invocation.conditions``), and only those of the branch taken are primary;
- the script goes on from the first viable branch in source order, where one after which the script goes on comes
  before one that skips the rest of a loop iteration or function (`continue`, `return`: "nothing to do for this
  one"), and that before one that ends the script (`exit 0`); a variable that other viable branches set
  differently carries a Taint note, reported where it reaches a launch with the ``--env K=V`` that picks another
  branch (RFTC109);
- the output of a command substitution whose branches print different literals is a Choice among them
  (`python3 -c 'import torch_npu' && echo npu || echo gpu`); a ``case`` or test on it is decided per literal.

A value that is a default the script writes (``${X:-d}`` with X unset) decides conditions as usual; only when
that default leads into a guard are the other branches explored (the guard asks the caller to set X).
Exploration is bounded (MAX_BRANCHES evaluations of a branch per analysis); past it, conditions are decided as
bash would decide them with the unknown values unset and commands succeeding (RFTC119).
"""

from __future__ import annotations

import fnmatch
import itertools
import re
from dataclasses import dataclass, field, replace
from typing import Callable

from rftc.diagnostics.model import Span
from rftc.shell.conditions import test_words
from rftc.shell.expand import node_span
from rftc.shell.notes import Choice, Default, Taint
from rftc.shell.state import MAX_BRANCHES, Break, Continue, Exit, Return, State, Var
from rftc.shell.values import Seg, Unknown, defaulted, env_knob, notes_of

_MAX_COMBINATIONS = 16  # values tried for the choices in one condition


@dataclass(frozen=True)
class Uncertain:
    """What a condition read that rftc cannot decide (or, ``soft``, decided by a default the script writes)."""

    knobs: tuple  # Unknowns, Choices, Defaults
    span: Span
    command: str = ""  # a command whose result the condition is
    fixes: tuple | None = None  # ({Choice: option} implied when it holds, ... when it does not)
    soft: bool = False


@dataclass
class Decision:
    """An undecidable condition: what it is, where, and what it depends on."""

    span: Span
    text: str  # its source text
    knobs: list = field(default_factory=list)  # Unknowns, Choices and Defaults it read
    commands: list = field(default_factory=list)  # commands whose result it depends on
    pick: Callable | None = None  # pick(ev) -> label of the branch taken in ev's state, None when undecidable
    fixes: dict = field(default_factory=dict)  # branch label -> {Choice: option} the branch implies

    def depends_on(self) -> str:
        names, outputs, files = {}, {}, {}  # (dicts keep the first of each, in order)
        for k in self.knobs:
            if isinstance(k, Choice):
                outputs[f"the output of `{k.source}`"] = None
            elif isinstance(k, Default):
                names[f"${k.var} (not set in the script; its default is used)"] = None
            elif k.kind == "var":
                names[_describe_var(k.name)] = None
            elif k.kind == "file":
                files[f"`{k.detail}`"] = None
            else:
                outputs[f"the output of `{k.detail}`"] = None
        parts = list(names)[:4] + list(outputs)[:2]
        if files:
            parts.append("whether " + ", ".join(list(files)[:3]) + " exists where the script runs")
        if self.commands:
            parts.append("the result of " + ", ".join(f"`{c}`" for c in self.commands[:3]))
        return ", ".join(parts) or "values only known at run time"

    def env_names(self) -> list[str]:
        out = []
        for k in self.knobs:
            name = k.knob if isinstance(k, Choice) else k.var if isinstance(k, Default) else \
                k.name if k.kind in ("var", "cmd", "dyn") else None
            if name and name not in out and name != "#":
                out.append(name)
        return out


def _describe_var(name: str) -> str:
    if name == "#":
        return "the number of the script's arguments ($#)"
    if name.isdigit():
        return f"${name} (the script's {ordinal(int(name))} argument)"
    return f"${name} (not set in the script)"


def ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


@dataclass
class Outcome:
    """How one branch ended."""

    label: str
    index: int  # its place in source order
    state: State
    status: int
    signal: BaseException | None  # Exit / Return / Break / Continue, or None when it fell through
    capture: list | None
    capture_unknown: list
    launches: list  # the launches made in it
    exit_span: Span | None

    @property
    def guard(self) -> bool:
        return isinstance(self.signal, (Exit, Return)) and self.status != 0

    @property
    def rank(self) -> int:
        """Viable branches first: one after which the script goes on (it falls through, or `break`s out of a wait
        loop), then one that skips the rest of a loop iteration or function (`continue`, `return`), then one that
        ends the script (`exit 0`: there is nothing left to do)."""
        if self.guard:
            return 3
        return 0 if self.signal is None or isinstance(self.signal, Break) else \
            2 if isinstance(self.signal, Exit) else 1

    def resume(self, ev, output: list) -> int:
        """Go on in ``ev`` as this branch left things."""
        ev.st, ev.status = self.state, self.status
        if ev.capture is not None:
            ev.capture.extend(output)
        ev.capture_unknown += self.capture_unknown
        if self.exit_span is not None and ev.g.exit_span is None:
            ev.g.exit_span = self.exit_span
        if self.signal is not None:
            raise self.signal
        return self.status


class Explorer:
    """Branch exploration for the Evaluator (see the module docstring): conditions, and the commands they
    choose between (if, case, && and ||)."""

    # ------------------------------------------------------------------ conditions
    def note_uncertain(self, knobs, span: Span, command: str = "", fixes=None, soft: bool = False) -> None:
        if self.uncertain is not None:
            self.uncertain.append(Uncertain(tuple(knobs), span, command, fixes, soft))

    def condition(self, lst) -> tuple[bool, list, list]:
        """Run a condition list: whether it succeeded (as bash would with unknown values unset and commands
        succeeding), what it read that rftc cannot decide, and the defaults it was decided by."""
        saved, testing = self.uncertain, self.testing
        self.uncertain, self.testing = [], True
        try:
            status = self.run_list(lst)
        finally:
            unc, self.uncertain, self.testing = self.uncertain, saved, testing
        return status == 0, [u for u in unc if not u.soft], [u for u in unc if u.soft]

    def decide(self, words: list[list[Seg]], unset_texts: Callable, test: Callable, span: Span) -> bool:
        """A test on expanded words (``test(texts) -> bool``), noting what it depends on: unknown values (decided
        on ``unset_texts()``, as bash would with them unset), choices (decided per literal), script defaults."""
        hard = list(dict.fromkeys(u for w in words for s in w for u in s.unknowns))
        if hard:
            self.note_uncertain(hard, span)
            return test(unset_texts())
        texts = ["".join(s.text for s in w) for w in words]
        cases = self.choice_cases(words)
        if cases:
            results = [(picked, test(t)) for picked, t in cases]
            if len({r for _, r in results}) > 1:
                fixes = (_agreed([p for p, r in results if r]), _agreed([p for p, r in results if not r]))
                self.note_uncertain(list(dict.fromkeys(c for p, _ in results for c in p)), span, fixes=fixes)
            return test(texts)
        defaults = [n for w in words for n in notes_of(w) if isinstance(n, Default)]
        if defaults:
            self.note_uncertain(list(dict.fromkeys(defaults)), span, soft=True)
        return test(texts)

    def _decision(self, span: Span, hard: list, soft: list, pick=None, fixes=None) -> Decision:
        knobs = list(dict.fromkeys(k for u in hard + soft for k in u.knobs))
        commands = list(dict.fromkeys(u.command for u in hard if u.command))
        return Decision(span, self.source_text(span), knobs, commands, pick, fixes or {})

    # ------------------------------------------------------------------ && and ||
    def run_and_or(self, node) -> int:
        if node.data == "pipeline":
            return self.run_pipeline(node)
        return self._chain(node.children, 0, 0)

    def _chain(self, ch: list, i: int, status: int) -> int:
        """Run the and-or list ``ch`` from its pipeline ``ch[i]`` on (``status``: the one before it)."""
        while i < len(ch):
            if i and (ch[i - 1].type == "AND_IF") != (status == 0):
                i += 2
                continue
            if i + 2 >= len(ch):
                return self.run_pipeline(ch[i])
            saved, testing = self.uncertain, self.testing
            self.uncertain, self.testing = [], True
            try:
                status = self.run_pipeline(ch[i])
            finally:
                unc, self.uncertain, self.testing = self.uncertain, saved, testing
            hard = [u for u in unc if not u.soft]
            if unc:
                span = node_span(self.file, ch[i])
                succeeds, fails = f"the `{'&&' if ch[i + 1].type == 'AND_IF' else '||'}` side", "the side that skips it"
                nxt = i + 2
                labels = (succeeds, fails) if ch[i + 1].type == "AND_IF" else (fails, succeeds)

                def pick(ev, node=ch[i]):
                    ev.uncertain, ev.testing = [], True
                    st = ev.run_pipeline(node)
                    return None if [u for u in ev.uncertain if not u.soft] else labels[0 if st == 0 else 1]

                decision = self._decision(span, hard, [u for u in unc if u.soft], pick)
                branches = [(labels[0], lambda ev: ev._chain(ch, nxt, 0)),
                            (labels[1], lambda ev: ev._chain(ch, nxt, 1))]
                taken = 0 if status == 0 else 1
                if hard:
                    return self.explore(decision, branches, fallback=taken)
                return self.by_default(decision, branches, taken)
            i += 2
        return status

    # ------------------------------------------------------------------ if
    def run_if(self, node, trees) -> int:
        arms = [(trees[0], trees[1], "the `then` branch")]
        else_body = None
        for t in trees[2:]:
            sub = [c for c in t.children if not hasattr(c, "type")]
            if t.data == "elif_part":
                arms.append((sub[0], sub[1], f"the `elif` branch of line {node_span(self.file, t).line}"))
            else:
                else_body = sub[0]
        labels = [a[2] for a in arms] + ["the `else` branch" if else_body is not None else "the empty `else`"]
        bodies = [a[1] for a in arms] + [else_body]
        paths, fallback, span, hard, soft, fixes = self._if_paths(arms, labels)
        if not hard and not soft:
            return self.run_list(bodies[paths[0]]) if bodies[paths[0]] is not None else 0

        def pick(ev):
            found = ev._if_paths(arms, labels)
            return labels[found[0][0]] if not found[3] and len(found[0]) == 1 else None

        decision = self._decision(span, hard, soft, pick, fixes)
        every = range(len(labels)) if not hard else paths
        branches = [(labels[k], lambda ev, b=bodies[k]: ev.run_list(b) if b is not None else 0) for k in every]
        if hard:
            return self.explore(decision, branches, fallback=paths.index(fallback))
        return self.by_default(decision, branches, paths[0])

    def _if_paths(self, arms, labels):
        """The branches of an if that may run: (their indices, the one bash takes with unknown values unset, the
        span of the first condition rftc cannot decide, what they read, the defaults, the choices each implies)."""
        paths: list[int] = []
        hard: list = []
        soft: list = []
        fixes: dict = {}
        otherwise: dict = {}  # choices implied by the conditions before not holding
        fallback = span = None
        for k, (cond, _, label) in enumerate(arms):
            ok, unc, sft = self.condition(cond)
            soft += sft
            if span is None and (unc or sft):
                span = node_span(self.file, cond)
            if unc:
                paths.append(k)
                implied = [u.fixes for u in unc]
                if all(implied):
                    fixes[label] = {**otherwise, **_merged(f[0] for f in implied)}
                    otherwise = {**otherwise, **_merged(f[1] for f in implied)}
                hard += unc
                if ok and fallback is None:
                    fallback = k
                continue
            if ok:
                paths.append(k)
                fixes.setdefault(label, dict(otherwise))
                break
        else:
            paths.append(len(arms))
            fixes[labels[-1]] = dict(otherwise)
        return paths, paths[-1] if fallback is None else fallback, span, hard, soft, fixes

    # ------------------------------------------------------------------ case
    def run_case(self, node, trees) -> int:
        word, items = trees[0], trees[1:]
        arms = []
        for item in items:
            parts = [c for c in item.children if not hasattr(c, "type")]
            pats = [p for p in parts if p.data == "word"]
            body = next((p for p in parts if p.data == "list"), None)
            label = "the `" + "|".join(self.source_text(node_span(self.file, p)) for p in pats) + ")` case"
            arms.append(([self.exp.text(p)[0] for p in pats], body, label))
        labels = [a[2] for a in arms] + ["no case (none matches)"]
        bodies = [a[1] for a in arms] + [None]
        paths, fallback, hard, soft, fixes = self._case_paths(word, arms)
        if not hard and not soft and len(paths) == 1:
            return self.run_list(bodies[paths[0]]) if bodies[paths[0]] is not None else 0

        def pick(ev):
            found = ev._case_paths(word, arms)
            return labels[found[0][0]] if len(found[0]) == 1 and not found[2] else None

        span = node_span(self.file, word)
        decision = self._decision(span, hard, soft, pick, {labels[k]: v for k, v in fixes.items()})
        decision.text = f"case {decision.text}"
        every = range(len(labels)) if soft and not hard and len(paths) == 1 else paths
        branches = [(labels[k], lambda ev, b=bodies[k]: ev.run_list(b) if b is not None else 0) for k in every]
        if len(paths) > 1:
            return self.explore(decision, branches, fallback=paths.index(fallback))
        return self.by_default(decision, branches, paths[0])

    def _case_paths(self, word, arms):
        """The items of a case that may run, as _if_paths (the last index stands for no item)."""
        segs = self.exp.segs(word)

        def first_match(text):
            return next((k for k, (pats, _, _) in enumerate(arms) if any(fnmatch.fnmatchcase(text, p) for p in pats)),
                        len(arms))

        span = node_span(self.file, word)
        hard = list(dict.fromkeys(u for s in segs for u in s.unknowns))
        if hard:  # any item up to one that takes every value, or none
            every = next((k for k, (pats, _, _) in enumerate(arms) if "*" in pats), None)
            paths = list(range(len(arms) if every is None else every + 1)) + ([len(arms)] if every is None else [])
            fallback = first_match("".join(s.text for s in self.exp.segs(word, unset=True)))
            return paths, fallback, [Uncertain(tuple(hard), span)], [], {}
        cases = self.choice_cases([segs])
        if cases:
            by_path: dict[int, list] = {}
            for picked, (text,) in cases:
                by_path.setdefault(first_match(text), []).append(picked)
            paths = sorted(by_path)
            choices = list(dict.fromkeys(c for picks in by_path.values() for p in picks for c in p))
            unc = [Uncertain(tuple(choices), span)] if len(paths) > 1 else []
            return paths, first_match("".join(s.text for s in segs)), unc, [], \
                {k: _agreed(v) for k, v in by_path.items()}
        taken = first_match("".join(s.text for s in segs))
        defaults = [n for n in notes_of(segs) if isinstance(n, Default)]
        return [taken], taken, [], [Uncertain(tuple(dict.fromkeys(defaults)), span, soft=True)] if defaults else [], {}

    # ------------------------------------------------------------------ [[ ]]
    def run_dbracket(self, node) -> int:
        expr = next((c for c in node.children if not hasattr(c, "type")), None)
        if expr is None:
            return 1
        words = list(_cond_words(expr))
        span = node_span(self.file, node)

        def test(texts):
            it = iter(texts)
            return _cond_value(expr, it, self, span)

        segs = [self.exp.segs(w) for w in words]
        ok = self.decide(segs, lambda: ["".join(s.text for s in self.exp.segs(w, unset=True)) for w in words],
                         test, span)
        return 0 if ok else 1

    def by_default(self, decision: Decision, branches: list, taken: int) -> int:
        """A condition decided by a default the script writes: its branch runs, unless it is a guard; then the
        variable must come from the environment, and every branch is explored."""
        label, run = branches[taken]
        probe = self._run_branch(label, run, taken, self.st.fork(), decision)
        if not probe.guard or len(branches) == 1:
            return probe.resume(self, probe.capture or [])
        # the default stops the script: the variable is the caller's to set, and its value unknown from here
        release(self.st, {k.var for k in decision.knobs if isinstance(k, Default)}, decision.span)
        return self.explore(decision, branches, first=taken, fallback=taken, done={taken: probe})

    def explore(self, decision: Decision, branches: list[tuple[str, Callable]], *, first: int = 0,
                fallback: int = 0, done: dict | None = None) -> int:
        """Run each (label, run(ev)) branch in a copy of the state and go on with the first viable one. ``first``
        names a branch to prefer among equals (the one a script default decides); ``fallback`` the one bash takes
        with unknown values unset and commands succeeding, which is taken alone past the bound."""
        g = self.g
        if g.branches + len(branches) > MAX_BRANCHES:
            if g.branches <= MAX_BRANCHES:
                g.branches = MAX_BRANCHES + 1  # said once
                g.add("RFTC119", f"more than {MAX_BRANCHES} branches of conditions rftc cannot decide: from here on, "
                      "each is decided as bash would with unknown values unset and commands succeeding",
                      decision.span, hint="pass --env NAME=value for the values the conditions read")
            only = self._run_branch(*branches[fallback], fallback, self.st.fork(), decision)
            return only.resume(self, only.capture or [])
        g.branches += len(branches)
        before = self.st.fork()  # for the witness search: the state the condition was decided in
        done = done or {}
        outcomes = [done.get(i) or self._run_branch(label, run, i, self.st.fork(), decision)
                    for i, (label, run) in enumerate(branches)]
        chosen = min(outcomes, key=lambda o: (o.rank, o.index != first, o.index))
        viable = [o for o in outcomes if not o.guard]
        for o in outcomes:
            if o.guard and o is not chosen:
                self._report_guard(decision, o, before)
        if len(viable) > 1:
            self._note_launches(decision, outcomes, chosen)
            self._taint(decision, chosen, viable, before)
            if len({o.status for o in viable}) > 1 or any(type(o.signal) is not type(chosen.signal) for o in viable):
                self.note_uncertain(list(decision.knobs), decision.span)  # the caller's own condition, if any
        output = self._choice_output(decision, chosen, viable) if self.capture is not None else []
        return chosen.resume(self, output)

    def _run_branch(self, label: str, run: Callable, index: int, state: State, decision: Decision) -> "Outcome":
        g = self.g
        for choice, option in decision.fixes.get(label, {}).items():
            fix_choice(state, choice, option)
        ev = self.child(state, capture=[] if self.capture is not None else None)
        start, exit_span = len(g.invocations), g.exit_span
        g.exit_span = None
        signal = None
        try:
            status = run(ev)
        except (Exit, Return, Break, Continue) as sig:
            signal, status = sig, ev.status
        outcome = Outcome(label, index, ev.st, status, signal, ev.capture, ev.capture_unknown,
                          g.invocations[start:], g.exit_span)
        g.exit_span = exit_span
        return outcome

    def _report_guard(self, decision: Decision, guard: Outcome, before: State) -> None:
        if decision.span in self.g.guards:
            return  # once per condition (a loop meets it again)
        self.g.guards.add(decision.span)
        what = "exit" if isinstance(guard.signal, Exit) else "return"
        where = f" at line {guard.exit_span.line}" if guard.exit_span is not None and what == "exit" else ""
        names = decision.env_names()
        arguments = any(getattr(k, "kind", "") == "var" and (k.name.isdigit() or k.name == "#") for k in decision.knobs)
        hint = ("pass the script's arguments after `--` (rftc convert SCRIPT -- ARG1 ARG2 ...)" if arguments
                else f"pass --env {names[0]}=... to decide it at compile time" if names
                else "nothing rftc is given decides it; it is checked where the script runs")
        self.g.add("RFTC117", f"`{decision.text}` depends on {decision.depends_on()}: when {guard.label} runs, the "
                   f"script stops with `{what} {guard.status}`{where}; rftc assumes this guard passes and reads on",
                   decision.span, hint=hint)

    def _note_launches(self, decision: Decision, outcomes: list[Outcome], chosen: Outcome) -> None:
        for o in outcomes:
            for inv in o.launches:
                inv.conditions.insert(0, f"{o.label} of `{decision.text}` (line {decision.span.line})")
                if o is not chosen:
                    inv.primary = False
                if inv.primary:
                    self.g.add("RFTC118", f"this launch runs only when {o.label} of `{decision.text}` (line "
                               f"{decision.span.line}) runs, which depends on {decision.depends_on()}", inv.span,
                               hint="rftc compiles it as the script's launch; other branches launch differently "
                               "or not at all (see --list)")

    def _taint(self, decision: Decision, chosen: Outcome, viable: list[Outcome], before: State) -> None:
        """Variables the other viable branches leave with another value, and the working directory, carry a Taint
        in the chosen state."""
        others = [o for o in viable if o is not chosen and o.signal is None]
        if chosen.signal is not None or not others:
            return
        ways: dict[str, str] = {}  # branch label -> how to take it

        def how(o: Outcome) -> str:
            if o.label not in ways:
                witness = self._witness(decision, before, o.label)
                ways[o.label] = f"{witness} takes {o.label}" if witness else f"where {o.label} runs"
            return ways[o.label]

        head = (f"depends on `{decision.text}` (line {decision.span.line}), which depends on "
                f"{decision.depends_on()}: rftc took {chosen.label}")
        where = _text(chosen.state.cwd)
        moved = next((o for o in others if _text(o.state.cwd) != where), None)
        if moved is not None and chosen.state.cwd:  # the working directory, which $PWD and $(pwd) read
            taint = Taint("PWD", decision.span, f"the working directory {head} ({where}); {how(moved)}, it is "
                          f"{_text(moved.state.cwd) or 'where the script starts'}")
            chosen.state.cwd = [replace(s, notes=s.notes + (taint,)) for s in chosen.state.cwd]
        read = {k.name for k in decision.knobs if getattr(k, "kind", "") == "var"}
        for name in _changed(before, [chosen] + others):
            mine = _value(chosen.state, name)
            theirs = next(((o, _value(o.state, name)) for o in others if _value(o.state, name) != mine), None)
            if theirs is not None and name in read and theirs[1] in (None, f"${{oc.env:{name}}}"):
                # `[ -z "$X" ] && X=d`: a default for what the environment does not set, as ${X:-d}
                v = chosen.state.vars.get(name)
                if v is not None and v.segs is not None:
                    chosen.state.vars[name] = replace(v, segs=defaulted(name, v.segs, decision.span, True))
            elif theirs is not None:
                taint = Taint(name, decision.span, f"${name} {head} ({name}{_shown(mine)}); {how(theirs[0])}, "
                              f"with {name}{_shown(theirs[1])}")
                chosen.state.taints[name] = chosen.state.taints.get(name, ()) + (taint,)

    def _witness(self, decision: Decision, before: State, label: str) -> str | None:
        """An `--env K=V` under which the condition takes the branch ``label``, found by deciding it again."""
        if decision.pick is None:
            return None
        for knob, values in self._trial_values(decision):
            for value in values:
                trial = before.fork()
                assume(trial, knob, value)
                ev = self.child(trial, capture=None)
                self.g.quiet += 1
                exit_span = self.g.exit_span
                try:
                    taken = decision.pick(ev)
                except (Exit, Return, Break, Continue, RecursionError):
                    taken = None
                finally:
                    self.g.quiet -= 1
                    self.g.exit_span = exit_span
                if taken == label:
                    return f"--env {knob}={_quote(value)}"
        return None

    def _trial_values(self, decision: Decision):
        text = re.sub(r"\$\{?[\w#@*?]+\}?", " ", decision.text)  # the words written, not the variables read
        literals = [w for w in re.findall(r"[\w.\-/+]+", text) if not w.startswith("-")]
        for k in decision.knobs:
            if isinstance(k, Choice):
                yield k.knob, k.options
            else:
                name = k.var if isinstance(k, Default) else k.name if k.kind in ("var", "cmd", "dyn") else None
                if name and not name.isdigit() and name != "#":
                    yield name, list(dict.fromkeys(literals + ["", "1"]))

    def _choice_output(self, decision: Decision, chosen: Outcome, viable: list[Outcome]) -> list[Seg]:
        """What a command substitution prints: the chosen branch's output, or a Choice among the literals the
        viable branches print."""
        outputs = []
        for o in viable:
            if o.capture_unknown or any(s.unknowns for s in o.capture):
                return list(chosen.capture)
            text = "".join(s.text for s in o.capture)
            if text not in outputs:
                outputs.append(text)
        if len(outputs) < 2:
            return list(chosen.capture)
        command = decision.commands[0] if decision.commands else "cmd"
        command = command.rsplit("/", 1)[-1]
        choice = Choice(tuple(outputs), env_knob("RFTC_SUBST", command), decision.span, decision.text)
        text = "".join(s.text for s in chosen.capture)
        span = decision.span
        return [Seg(text, span.file, span.line, span.col, span.last_line, span.end_col or span.col,
                    notes=(choice,))]

    # ------------------------------------------------------------------ choices in conditions
    def choice_cases(self, segs_list: list[list[Seg]]):
        """The values a condition's words can take when they hold choices: [({Choice: option}, [texts])], or
        None when they hold none (or too many to try)."""
        choices = [n for segs in segs_list for n in notes_of(segs) if isinstance(n, Choice)]
        choices = list(dict.fromkeys(choices))
        if not choices:
            return None
        combos = list(itertools.product(*(c.options for c in choices)))
        if len(combos) > _MAX_COMBINATIONS:
            return None
        out = []
        for combo in combos:
            picked = dict(zip(choices, combo))
            texts = ["".join(_pick_text(s, picked) for s in segs) for segs in segs_list]
            out.append((picked, texts))
        return out


def _agreed(picks: list[dict]) -> dict:
    """The choice values every one of ``picks`` agrees on."""
    if not picks:
        return {}
    return {c: o for c, o in picks[0].items() if all(p.get(c) == o for p in picks)}


def _merged(fixes) -> dict:
    out: dict = {}
    for f in fixes:
        out.update(f)
    return out


def _cond_words(node):
    """The words of a [[ ]] expression, in order."""
    for c in node.children:
        if hasattr(c, "type"):
            continue
        if c.data == "word":
            yield c
        else:
            yield from _cond_words(c)


def _cond_value(node, texts, ev, span) -> bool:
    """A [[ ]] expression on the words' texts (taken in order from the iterator ``texts``)."""
    kids = [c for c in node.children if not hasattr(c, "type")]
    if node.data == "cond_words":
        args = [next(texts) if not hasattr(c, "type") else c.value.strip() for c in node.children]
        return test_words(args, ev, extended=True, span=span)
    if node.data == "cond_negate":
        return not _cond_value(kids[0], texts, ev, span)
    if node.data in ("cond_and", "cond_or"):
        left = _cond_value(kids[0], texts, ev, span)
        right = _cond_value(kids[1], texts, ev, span)  # both read: the texts are consumed in order
        return (left and right) if node.data == "cond_and" else (left or right)
    return _cond_value(kids[0], texts, ev, span)  # ( ... )


def _pick_text(seg: Seg, picked: dict) -> str:
    for n in seg.notes:
        if n in picked and seg.text in n.options:
            return picked[n]
    return seg.text


def fix_choice(state: State, choice: Choice, option: str) -> None:
    """In a branch a condition took for one value of a choice, every variable holding the choice holds that value."""
    def fixed(segs):
        if segs is None or not any(choice in s.notes for s in segs):
            return segs
        return [replace(s, text=option, notes=tuple(n for n in s.notes if n != choice)) if choice in s.notes
                and s.text in choice.options else s for s in segs]

    for scope in [state.vars] + state.frames:
        for name, v in list(scope.items()):
            segs, items = fixed(v.segs), [fixed(e) for e in v.items] if v.items is not None else None
            if segs is not v.segs or (items is not None and any(a is not b for a, b in zip(items, v.items))):
                scope[name] = replace(v, segs=segs, items=items)


def release(state: State, names: set[str], span: Span) -> None:
    """Variables that hold the script's default for an environment variable in ``names`` hold what the
    environment gives instead: unknown, ``${oc.env:NAME}``."""
    for scope in [state.vars] + state.frames:
        for name, v in list(scope.items()):
            if v.segs is None or not any(n.var in names for s in v.segs for n in s.notes if isinstance(n, Default)):
                continue
            segs, done = [], set()
            for s in v.segs:
                var = next((n.var for n in s.notes if isinstance(n, Default) and n.var in names), None)
                if var is None:
                    segs.append(s)
                elif var not in done:  # the default's pieces: one unknown in their place
                    done.add(var)
                    segs.append(replace(s, text=f"${{oc.env:{var}}}", unknowns=(Unknown("var", var, span),),
                                        notes=tuple(n for n in s.notes if not isinstance(n, Default)), exact=False))
            scope[name] = replace(v, segs=segs)


def assume(state: State, knob: str, value: str) -> None:
    """Set what ``--env knob=value`` would set, in a state a condition is decided again in."""
    for scope in [state.vars] + state.frames:
        for name, v in list(scope.items()):
            for segs in ([v.segs] if v.segs is not None else []) + (v.items or []):
                if segs and any(_sets(n, knob) for s in segs for n in s.notes):
                    scope[name] = Var([Seg(value, "", 1, 1, 1, 1)], None, v.span, v.exported)
    if knob not in state.vars:
        state.vars[knob] = Var([Seg(value, "", 1, 1, 1, 1)], None, None, True)


def _sets(note, knob: str) -> bool:
    return (isinstance(note, Choice) and note.knob == knob) or (isinstance(note, Default) and note.var == knob)


def _changed(before: State, outcomes: list[Outcome]) -> list[str]:
    names: list[str] = []
    for o in outcomes:
        for name, v in o.state.vars.items():
            if before.vars.get(name) is not v and name not in names:
                names.append(name)
        names += [n for n in before.vars if n not in o.state.vars and n not in names]
    return names


def _value(state: State, name: str) -> str | None:
    v = state.vars.get(name)
    if v is None:
        return None
    if v.items is not None:
        return " ".join("".join(s.text for s in e) for e in v.items if e is not None)
    return "".join(s.text for s in v.segs or [])


def _text(segs) -> str:
    return "".join(s.text for s in segs or [])


def _shown(value: str | None) -> str:
    return " unset" if value is None else f"={_quote(value)}"


def _quote(value: str) -> str:
    return value if value and re.fullmatch(r"[\w.,:/+@%\-]+", value) else repr(value)
