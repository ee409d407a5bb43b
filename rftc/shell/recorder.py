"""Recording the launches a script makes (rftc.shell.launches recognises them): each becomes an Invocation with the
environment, working directory and for-loop variables it runs with, and the values rftc could not know or had to
choose that reach it are reported there (RFTC106-109, RFTC115, RFTC116, RFTC123, RFTC124)."""

from __future__ import annotations

import os
import re

from rftc.diagnostics.model import Span
from rftc.shell import launches
from rftc.shell.explore import ordinal
from rftc.shell.notes import Arguments, Choice, Split, Taint
from rftc.shell.values import Field, Unknown, text_of


class Recorder:
    """Records launches for one evaluator ``ev`` into the analysis's list (``ev.g.invocations``)."""

    def __init__(self, ev):
        self.ev = ev

    def add(self, parts: dict, span: Span, dropped: list[Field] = ()) -> None:
        """A launch rftc.shell.launches.recognize found (its ``parts``) in the command at ``span``; ``dropped`` are
        words of the command that bash makes nothing of (an expansion to nothing, a value the caller gives
        unquoted), reported with what they carry."""
        ev = self.ev
        g = ev.g
        if g.quiet:
            return
        cwd = text_of(ev.st.cwd) if ev.st.cwd is not None else None
        code = g.code.get(ev.file)
        if code is not None:  # eval / bash -c: where the words were written
            parts = dict(parts, args=[ev.files.traced(f) for f in parts["args"]])
            if parts.get("span_start") is not None:
                span = ev.files.traced(parts["span_start"]).span
        else:
            span = launches.command_span(parts, span)
        # a launch in a file the script sources or runs (`bash train.sh "$@"`) is the script's own: what it
        # launches when it runs, with the words it passes; its span names the file and line it is written at
        inv = launches.build(parts, index=len(g.invocations), span=span, cwd=cwd, script=g.name,
                             exported=ev.vars.exported())
        inv.run_from = g.callers[0] if g.callers and span.file != g.name else None
        inv.loop = {name: text_of(v.segs) for name in ev.loops
                    if (v := ev.vars.get(name)) is not None and v.segs is not None}
        target = parts.get("target_unknown")
        if target is not None:
            g.add("RFTC115", f"the launched program comes from {target.written}, {_unknown_why(target)}; the launch "
                  "cannot be classified", ev.files.written_at(target), hint=_unknown_hint(target))
        if not parts["args"] and inv.kind != "other":  # a launch of a Hydra app rftc knows
            given = next((n for f in dropped for n in f.notes if isinstance(n, Arguments)), None)
            if given is not None:
                self.report_arguments(given)
        reported: set = set()
        for n in parts["span_start"].notes if parts.get("span_start") is not None else ():
            reported.add(n)  # the program itself (`$PYTHON -m ...`)
            self.report_choice(n, parts["span_start"].span)
        for f in dropped:
            f = ev.files.traced(f) if code is not None else f
            for n in f.notes:
                if n not in reported:
                    reported.add(n)
                    if isinstance(n, Split):
                        self.report_split(f)
                    else:
                        self.report_choice(n, f.span)
        for f in parts["args"]:
            for u in f.unknowns:
                if (u.kind, u.name) not in reported:  # once per launch and name, where it first appears
                    reported.add((u.kind, u.name))
                    self.report_unknown(u)
            for n in f.notes:
                if n not in reported:
                    reported.add(n)
                    self.report_choice(n, f.span)
        g.invocations.append(inv)

    def unknown_program(self, field: Field, span: Span) -> None:
        """A command whose program comes from a variable rftc does not know (RFTC115)."""
        self.ev.g.add("RFTC115", f"the command comes from {field.written}, {_unknown_why(field)}; what it runs is "
                      "unknown", self.ev.files.written_at(field, span), hint=_unknown_hint(field))

    def report_arguments(self, note: Arguments) -> None:
        """RFTC124: a launch whose only arguments are the script's own, which rftc is not given."""
        script = os.path.basename(self.ev.g.name)
        self.ev.g.add("RFTC124", f"every argument of this launch comes from `\"$@\"`, the arguments `{script}` is "
                      "run with, which rftc is not given: the launch is read without them, as the script runs with "
                      "none, and what its config lacks is reported as such", note.span,
                      hint=f"pass the overrides the script is run with after `--` (rftc convert {script} -- "
                      "key=value ...)")

    def report_split(self, field: Field) -> None:
        """RFTC123: a word left out of a launch because it is only a value the caller gives, unquoted."""
        for u in dict.fromkeys(field.unknowns):
            if u.name.isdigit():
                what = f"`{u.written}` is the script's {ordinal(int(u.name))} argument (not given to rftc)"
                hint = "pass the script's arguments after `--` (rftc convert SCRIPT -- ARG1 ARG2 ...)"
            else:
                what = f"{u.written} is not set in the script"
                hint = f"pass --env {u.name}='...' to compile the words it holds, or quote it to pass one word"
            line = "" if u.span.line == field.span.line and u.span.file == field.span.file else \
                f" (used at {u.span.file}:{u.span.line})"
            self.ev.g.add("RFTC123", f"{what}{line} and reaches the launch unquoted: bash splits its value into "
                          "words, none when it is unset or empty; rftc leaves it out", field.span, hint=hint)

    def report_choice(self, note, span: Span) -> None:
        """RFTC109 where a value rftc chose for something only the running machine decides reaches a launch."""
        g = self.ev.g
        if isinstance(note, Taint):
            g.add("RFTC109", note.message, span, hint="pass the --env shown to compile the other branch")
        elif isinstance(note, Choice):
            others = ", ".join(f"--env {note.knob}={o}" for o in note.options[1:])
            g.add("RFTC109", f"`{note.source}` prints one of {', '.join(note.options)} depending on the machine that "
                  f"runs it; rftc took {note.options[0]}, the first written; {others} takes another", span,
                  hint=f"pass --env {note.knob}=VALUE to decide it")

    def report_unknown(self, u: Unknown) -> None:
        g = self.ev.g
        if u.kind == "var" and (u.name.isdigit() or u.name == "#"):  # the script's own arguments
            what = (f"${u.name} is the script's {ordinal(int(u.name))} argument" if u.name.isdigit()
                    else "$# is the number of the script's arguments")
            g.add("RFTC106", f"{what}, which rftc is not given",
                  u.span, hint="pass the script's arguments after `--` (rftc convert SCRIPT -- ARG1 ARG2 ...)")
        elif u.kind == "var":
            g.add("RFTC106", f"${u.name} is not set in the script; kept as ${{oc.env:{u.name}}}", u.span,
                  hint=f"pass --env {u.name}=value to fix it at compile time")
        elif u.kind == "dyn":
            g.add("RFTC107", f"`{u.detail}` is only known at run time; kept as {u.name}", u.span)
        elif u.kind == "cmd":
            g.add("RFTC108", f"`{u.detail}` is not evaluated (rftc runs nothing); kept as ${{oc.env:{u.name}}}",
                  u.span, hint=f"pass --env {u.name}=value, or write the value into the script")
        elif u.kind == "alt":
            assumed = "set and not empty" if ":+" in u.detail else "set"
            g.add("RFTC116", f"`{u.detail}`: ${u.name} is not set in the script and the same value keeps it as "
                  f"${{oc.env:{u.name}}}, so the alternative is used as if it were {assumed} (bash leaves it out "
                  "otherwise)", u.span,
                  hint=f"pass --env {u.name}=value (--env {u.name}= for empty) to decide it at compile time")
        elif u.kind == "length":
            g.add("RFTC108", f"`{u.detail}` is a length only known at run time; kept as ${{oc.env:{u.name}}}",
                  u.span, hint=f"pass --env {u.name}=value, or set the variable")
        elif u.kind == "arith":
            g.add("RFTC108", f"arithmetic {u.detail} is not evaluated; kept as ${{oc.env:{u.name}}}", u.span,
                  hint=f"pass --env {u.name}=value, or write the value into the script")


def _unknown_why(field: Field) -> str:
    if all(u.kind == "var" for u in field.unknowns):
        return "which is not set"
    return "which is only known when the script runs"


def _unknown_hint(field: Field) -> str:
    """How to give rftc a word it cannot know: the script's arguments, or --env for each value it stands for."""
    if any(u.kind == "var" and (u.name.isdigit() or u.name in ("#", "@", "*")) for u in field.unknowns):
        return "pass the script's arguments after `--` (rftc convert SCRIPT -- ARG1 ARG2 ...)"
    knobs = [m.group(1) if (m := re.search(r"oc\.env:(\w+)", u.name)) else u.name for u in field.unknowns]
    return "set it in the script, or pass " + ", ".join(f"--env {k}=..." for k in dict.fromkeys(knobs)) + \
        " with the value it stands for"
