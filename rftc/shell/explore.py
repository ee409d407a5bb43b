"""Conditions rftc cannot decide: every branch is evaluated, none is guessed (the commands that choose are in
rftc.shell.branches).

A condition is undecidable when it depends on what only the machine that runs the script knows: a variable the
script never sets, a file, a command's result or output, the script's arguments. Each branch then runs in a copy
of the state (``explore``):

- a branch that ends in a failing ``exit`` / ``return`` is a guard (`[ -z "$MODEL" ] && exit 1`): it is assumed
  not taken, and an info diagnostic (RFTC117) names the condition and what decides it;
- launches made in any branch are the script's launches; where other branches are viable too, each notes the
  condition it sits under (RFTC118, ``Invocation.conditions``), and only those of the branch taken are primary;
- the script goes on from the first viable branch in source order (of a condition that reads nothing but
  commands' results, the one they take when they succeed, however the test is written), where one after which the
  script goes on comes before one that skips the rest of a loop iteration or function (`continue`, `return`:
  "nothing to do for this one"), and that before one that ends the script (`exit 0`); a variable that other
  viable branches set differently carries a Taint note, reported where it reaches a launch with the ``--env K=V``
  that picks another branch (RFTC109);
- the output of a command substitution whose branches print different literals is a Choice among them
  (`python3 -c 'import torch_npu' && echo npu || echo gpu`); a ``case`` or test on it is decided per literal.

A value that is a default the script writes (``${X:-d}`` with X unset) decides conditions as usual; only when
that default leads into a guard are the other branches explored (the guard asks the caller to set X).
Exploration is bounded (MAX_BRANCHES evaluations of a branch per analysis); past it, conditions are decided as
bash would decide them with the unknown values unset and commands succeeding (RFTC119).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Callable

from rftc.diagnostics.model import Span
from rftc.shell.notes import Choice, Default, Taint
from rftc.shell.state import MAX_BRANCHES, Break, Continue, Exit, Return, State, Var
from rftc.shell.values import Seg, Unknown, defaulted, env_knob, text_of


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
    """Runs every branch of a condition rftc cannot decide, for one evaluator ``ev`` (see the module docstring):
    ``explore`` and ``by_default`` take the branches as (label, run(evaluator) -> status)."""

    def __init__(self, ev):
        self.ev = ev

    def by_default(self, decision: Decision, branches: list, taken: int) -> int:
        """A condition decided by a default the script writes: its branch runs, unless it is a guard; then the
        variable must come from the environment, and every branch is explored."""
        ev = self.ev
        label, run = branches[taken]
        probe = self._run_branch(label, run, taken, ev.st.fork(), decision)
        if not probe.guard or len(branches) == 1:
            return probe.resume(ev, probe.capture or [])
        # the default stops the script: the variable is the caller's to set, and its value unknown from here
        release(ev.st, {k.var for k in decision.knobs if isinstance(k, Default)}, decision.span)
        return self.explore(decision, branches, first=taken, fallback=taken, done={taken: probe})

    def explore(self, decision: Decision, branches: list[tuple[str, Callable]], *, first: int = 0,
                fallback: int = 0, done: dict | None = None) -> int:
        """Run each (label, run(ev)) branch in a copy of the state and go on with the first viable one. ``first``
        names a branch to prefer among equals (the one a script default decides); ``fallback`` the one bash takes
        with unknown values unset and commands succeeding, which is taken alone past the bound."""
        ev = self.ev
        g = ev.g
        if g.branches + len(branches) > MAX_BRANCHES:
            if g.branches <= MAX_BRANCHES:
                g.branches = MAX_BRANCHES + 1  # said once
                g.add("RFTC119", f"more than {MAX_BRANCHES} branches of conditions rftc cannot decide: from here on, "
                      "each is decided as bash would with unknown values unset and commands succeeding",
                      decision.span, hint="pass --env NAME=value for the values the conditions read")
            only = self._run_branch(*branches[fallback], fallback, ev.st.fork(), decision)
            return only.resume(ev, only.capture or [])
        g.branches += len(branches)
        before = ev.st.fork()  # for the witness search: the state the condition was decided in
        done = done or {}
        outcomes = [done.get(i) or self._run_branch(label, run, i, ev.st.fork(), decision)
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
                ev.branches.note_uncertain(list(decision.knobs), decision.span)  # the caller's own condition, if any
        output = self._choice_output(decision, chosen, viable) if ev.capture is not None else []
        return chosen.resume(ev, output)

    def _run_branch(self, label: str, run: Callable, index: int, state: State, decision: Decision) -> "Outcome":
        g = self.ev.g
        for choice, option in decision.fixes.get(label, {}).items():
            fix_choice(state, choice, option)
        sub = self.ev.child(state, capture=[] if self.ev.capture is not None else None)
        start, exit_span = len(g.invocations), g.exit_span
        g.exit_span = None
        signal = None
        try:
            status = run(sub)
        except (Exit, Return, Break, Continue) as sig:
            signal, status = sig, sub.status
        outcome = Outcome(label, index, sub.st, status, signal, sub.capture, sub.capture_unknown,
                          g.invocations[start:], g.exit_span)
        g.exit_span = exit_span
        return outcome

    def _report_guard(self, decision: Decision, guard: Outcome, before: State) -> None:
        ev = self.ev
        if decision.span in ev.g.guards:
            return  # once per condition (a loop meets it again)
        ev.g.guards.add(decision.span)
        what = "exit" if isinstance(guard.signal, Exit) else "return"
        where = f" at line {guard.exit_span.line}" if guard.exit_span is not None and what == "exit" else ""
        names = decision.env_names()
        arguments = any(getattr(k, "kind", "") == "var" and (k.name.isdigit() or k.name == "#") for k in decision.knobs)
        hint = ("pass the script's arguments after `--` (rftc convert SCRIPT -- ARG1 ARG2 ...)" if arguments
                else f"pass --env {names[0]}=... to decide it at compile time" if names
                else "nothing rftc is given decides it; it is checked where the script runs")
        ev.g.add("RFTC117", f"`{decision.text}` depends on {decision.depends_on()}: when {guard.label} runs, the "
                 f"script stops with `{what} {guard.status}`{where}; rftc assumes this guard passes and reads on",
                 decision.span, hint=hint)

    def _note_launches(self, decision: Decision, outcomes: list[Outcome], chosen: Outcome) -> None:
        for o in outcomes:
            for inv in o.launches:
                inv.conditions.insert(0, f"{o.label} of `{decision.text}` (line {decision.span.line})")
                if o is not chosen:
                    inv.primary = False
                if inv.primary:
                    self.ev.g.add("RFTC118", f"this launch runs only when {o.label} of `{decision.text}` (line "
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
        where = text_of(chosen.state.cwd or ())
        moved = next((o for o in others if text_of(o.state.cwd or ()) != where), None)
        if moved is not None and chosen.state.cwd:  # the working directory, which $PWD and $(pwd) read
            taint = Taint("PWD", decision.span, f"the working directory {head} ({where}); {how(moved)}, it is "
                          f"{text_of(moved.state.cwd or ()) or 'where the script starts'}")
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
        g = self.ev.g
        for knob, values in self._trial_values(decision):
            for value in values:
                trial = before.fork()
                assume(trial, knob, value)
                sub = self.ev.child(trial, capture=None)
                g.quiet += 1
                exit_span = g.exit_span
                try:
                    taken = decision.pick(sub)
                except (Exit, Return, Break, Continue, RecursionError):
                    taken = None
                finally:
                    g.quiet -= 1
                    g.exit_span = exit_span
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
            text = text_of(o.capture)
            if text not in outputs:
                outputs.append(text)
        if len(outputs) < 2:
            return list(chosen.capture)
        command = decision.commands[0] if decision.commands else "cmd"
        command = command.rsplit("/", 1)[-1]
        choice = Choice(tuple(outputs), env_knob("RFTC_SUBST", command), decision.span, decision.text)
        return [Seg.at(text_of(chosen.capture), decision.span, notes=(choice,))]


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


def _value(state: State, name: str) -> str | tuple[str, ...] | None:
    """A variable's text, an array's elements (a tuple), or None when it is unset."""
    v = state.vars.get(name)
    if v is None:
        return None
    if v.items is not None:
        return tuple(text_of(e) for e in v.items if e is not None)
    return text_of(v.segs or ())


def _shown(value: str | tuple[str, ...] | None) -> str:
    if isinstance(value, tuple):
        return "=(" + " ".join(map(_quote, value)) + ")"
    return " unset" if value is None else f"={_quote(value)}"


def _quote(value: str) -> str:
    return value if value and re.fullmatch(r"[\w.,:/+@%\-]+", value) else repr(value)
