"""The commands that choose between branches (if, case, && and ||) and ``[[ ]]``, and how their conditions are
decided: on known values as bash would, per literal where a value is a choice among a few (rftc.shell.notes), and
otherwise by running every branch (rftc.shell.explore)."""

from __future__ import annotations

import itertools
from typing import Callable

from rftc.diagnostics.model import Span
from rftc.shell.conditions import cond_value, cond_words
from rftc.shell.explore import Decision, Uncertain
from rftc.shell.notes import Choice, Default
from rftc.shell.patterns import matches
from rftc.shell.syntax import AndOr, Case, CommandList, DBracket, If, Word
from rftc.shell.values import Seg, notes_of, text_of

_MAX_COMBINATIONS = 16  # values tried for the choices in one condition


class Branches:
    """Conditions and the commands that choose, for one evaluator ``ev``."""

    def __init__(self, ev):
        self.ev = ev

    # ------------------------------------------------------------------ conditions
    def note_uncertain(self, knobs, span: Span, command: str = "", fixes=None, soft: bool = False) -> None:
        """Note, for the condition being decided (if any), something it read that rftc cannot decide."""
        if self.ev.uncertain is not None:
            self.ev.uncertain.append(Uncertain(tuple(knobs), span, command, fixes, soft))

    def condition(self, lst: CommandList) -> tuple[bool, list, list]:
        """Run a condition list: whether it succeeded (as bash would with unknown values unset and commands
        succeeding), what it read that rftc cannot decide, and the defaults it was decided by."""
        ev = self.ev
        saved, ev.uncertain = ev.uncertain, []
        try:
            status = ev.commands.run_list(lst)
        finally:
            unc, ev.uncertain = ev.uncertain, saved
        return status == 0, [u for u in unc if not u.soft], [u for u in unc if u.soft]

    def decide(self, words: list[list[Seg]], unset_texts: Callable, test: Callable, span: Span) -> bool:
        """A test on expanded words (``test(texts) -> bool``), noting what it depends on: unknown values (decided
        on ``unset_texts()``, as bash would with them unset), choices (decided per literal), script defaults."""
        hard = list(dict.fromkeys(u for w in words for s in w for u in s.unknowns))
        if hard:
            self.note_uncertain(hard, span)
            return test(unset_texts())
        texts = [text_of(w) for w in words]
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

    def decision(self, span: Span, hard: list, soft: list, pick=None, fixes=None) -> Decision:
        knobs = list(dict.fromkeys(k for u in hard + soft for k in u.knobs))
        commands = list(dict.fromkeys(u.command for u in hard if u.command))
        return Decision(span, self.ev.source_text(span), knobs, commands, pick, fixes or {})

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

    # ------------------------------------------------------------------ && and ||
    def run_and_or(self, node: AndOr) -> int:
        return self._chain(node, 0, 0)

    def _chain(self, node: AndOr, k: int, status: int) -> int:
        """Run the and-or list ``node`` from its pipeline k on (``status``: the one before it)."""
        ev = self.ev
        pipelines, operators = node.pipelines, node.operators
        while k < len(pipelines):
            if k and (operators[k - 1] == "&&") != (status == 0):
                k += 1
                continue
            if k == len(pipelines) - 1:
                return ev.commands.run_pipeline(pipelines[k])
            saved, ev.uncertain = ev.uncertain, []
            try:
                status = ev.commands.run_pipeline(pipelines[k])
            finally:
                unc, ev.uncertain = ev.uncertain, saved
            hard = [u for u in unc if not u.soft]
            if unc:
                op = operators[k]
                succeeds, fails = f"the `{op}` side", "the side that skips it"
                nxt = k + 1
                labels = (succeeds, fails) if op == "&&" else (fails, succeeds)

                def pick(other, pipeline=pipelines[k]):
                    other.uncertain = []
                    st = other.commands.run_pipeline(pipeline)
                    return None if [u for u in other.uncertain if not u.soft] else labels[0 if st == 0 else 1]

                decision = self.decision(pipelines[k].span, hard, [u for u in unc if u.soft], pick)
                branches = [(labels[0], lambda other: other.branches._chain(node, nxt, 0)),
                            (labels[1], lambda other: other.branches._chain(node, nxt, 1))]
                taken = 0 if status == 0 else 1
                if hard:
                    return ev.explorer.explore(decision, branches, first=_preferred(hard, taken), fallback=taken)
                return ev.explorer.by_default(decision, branches, taken)
            k += 1
        return status

    # ------------------------------------------------------------------ if
    def run_if(self, node: If) -> int:
        ev = self.ev
        arms = [(node.condition, node.then, "the `then` branch")]
        arms += [(e.condition, e.body, f"the `elif` branch of line {e.span.line}") for e in node.elifs]
        labels = [a[2] for a in arms] + ["the `else` branch" if node.otherwise is not None else "the empty `else`"]
        bodies = [a[1] for a in arms] + [node.otherwise]
        paths, fallback, span, hard, soft, fixes = self._if_paths(arms, labels)
        if not hard and not soft:
            return ev.commands.run_list(bodies[paths[0]]) if bodies[paths[0]] is not None else 0

        def pick(other):
            found = other.branches._if_paths(arms, labels)
            return labels[found[0][0]] if not found[3] and len(found[0]) == 1 else None

        decision = self.decision(span, hard, soft, pick, fixes)
        every = range(len(labels)) if not hard else paths
        branches = [(labels[k], lambda other, b=bodies[k]: other.commands.run_list(b) if b is not None else 0)
                    for k in every]
        if hard:
            taken = paths.index(fallback)
            return ev.explorer.explore(decision, branches, first=_preferred(hard, taken), fallback=taken)
        return ev.explorer.by_default(decision, branches, paths[0])

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
                span = cond.span
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
    def run_case(self, node: Case) -> int:
        ev = self.ev
        word = node.word
        arms = []
        for item in node.items:
            label = "the `" + "|".join(ev.source_text(p.span) for p in item.patterns) + ")` case"
            arms.append(([ev.words.text(p)[0] for p in item.patterns], item.body, label))
        labels = [a[2] for a in arms] + ["no case (none matches)"]
        bodies = [a[1] for a in arms] + [None]
        paths, fallback, hard, soft, fixes = self._case_paths(word, arms)
        if not hard and not soft and len(paths) == 1:
            return ev.commands.run_list(bodies[paths[0]]) if bodies[paths[0]] is not None else 0

        def pick(other):
            found = other.branches._case_paths(word, arms)
            return labels[found[0][0]] if len(found[0]) == 1 and not found[2] else None

        decision = self.decision(word.span, hard, soft, pick, {labels[k]: v for k, v in fixes.items()})
        decision.text = f"case {decision.text}"
        every = range(len(labels)) if soft and not hard and len(paths) == 1 else paths
        branches = [(labels[k], lambda other, b=bodies[k]: other.commands.run_list(b) if b is not None else 0)
                    for k in every]
        if len(paths) > 1:
            return ev.explorer.explore(decision, branches, fallback=paths.index(fallback))
        return ev.explorer.by_default(decision, branches, paths[0])

    def _case_paths(self, word: Word, arms):
        """The items of a case that may run, as _if_paths (the last index stands for no item)."""
        words = self.ev.words
        segs = words.segs(word)

        def first_match(text):
            return next((k for k, (pats, _, _) in enumerate(arms) if any(matches(text, p) for p in pats)),
                        len(arms))

        span = word.span
        hard = list(dict.fromkeys(u for s in segs for u in s.unknowns))
        if hard:  # any item up to one that takes every value, or none
            every = next((k for k, (pats, _, _) in enumerate(arms) if "*" in pats), None)
            paths = list(range(len(arms) if every is None else every + 1)) + ([len(arms)] if every is None else [])
            fallback = first_match(text_of(words.segs(word, unset=True)))
            return paths, fallback, [Uncertain(tuple(hard), span)], [], {}
        cases = self.choice_cases([segs])
        if cases:
            by_path: dict[int, list] = {}
            for picked, (text,) in cases:
                by_path.setdefault(first_match(text), []).append(picked)
            paths = sorted(by_path)
            choices = list(dict.fromkeys(c for picks in by_path.values() for p in picks for c in p))
            unc = [Uncertain(tuple(choices), span)] if len(paths) > 1 else []
            return paths, first_match(text_of(segs)), unc, [], {k: _agreed(v) for k, v in by_path.items()}
        taken = first_match(text_of(segs))
        defaults = [n for n in notes_of(segs) if isinstance(n, Default)]
        return [taken], taken, [], [Uncertain(tuple(dict.fromkeys(defaults)), span, soft=True)] if defaults else [], {}

    # ------------------------------------------------------------------ [[ ]]
    def run_dbracket(self, node: DBracket) -> int:
        ev = self.ev
        expr = node.expr
        if expr is None:
            return 1
        words = list(cond_words(expr))

        def test(texts):
            return cond_value(expr, iter(texts), ev, node.span)

        segs = [ev.words.segs(w) for w in words]
        ok = self.decide(segs, lambda: [text_of(ev.words.segs(w, unset=True)) for w in words], test, node.span)
        return 0 if ok else 1


def _preferred(hard: list, taken: int) -> int:
    """The branch to go on from among equally viable ones: where the condition reads nothing but commands' results,
    the one ``taken`` when they succeed, however the test is written (`if ! cmd; then A; fi` as
    `if cmd; then :; else A; fi`); else the first in source order."""
    return taken if all(u.command and not u.knobs for u in hard) else 0


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


def _pick_text(seg: Seg, picked: dict) -> str:
    for n in seg.notes:
        if n in picked and seg.text in n.options:
            return picked[n]
    return seg.text
