"""What a value carries besides its text when the text is a choice rftc made for something only the running
machine decides (see rftc.shell.explore). Notes ride on the pieces of a value (``Seg.notes``) through
assignments and expansions, and are reported where they reach a launch."""

from __future__ import annotations

from dataclasses import dataclass

from rftc.diagnostics.model import Span


@dataclass(frozen=True)
class Choice:
    """The output of a command substitution that is one of a few literals (`cmd && echo a || echo b`): the text
    is the first of them until a condition on the value picks one."""

    options: tuple[str, ...]  # every output, in the order the substitution's branches are written
    knob: str  # the --env name that sets the value (the variable whose default it is, or RFTC_SUBST_<CMD>)
    span: Span  # the command substitution
    source: str  # its text


@dataclass(frozen=True)
class Taint:
    """A value that depends on which branch of an undecidable condition runs (the first viable one was taken)."""

    var: str  # the variable whose value differs between the branches
    span: Span  # the condition
    message: str  # what was taken and what picks another branch


@dataclass(frozen=True)
class Default:
    """The default of ``${VAR:-default}``, used because VAR is not set: the environment the script runs in may."""

    var: str


@dataclass(frozen=True)
class Split:
    """A word that is only an unquoted value the caller gives (`$EXTRA`, `$1`): bash splits the value into any
    number of words, none when it is unset or empty. A launch leaves it out and says so (RFTC123)."""

    span: Span  # the word


@dataclass(frozen=True)
class Arguments:
    """`"$@"` where the script's arguments are not given: whatever its caller passes, read as none (the launch as
    the script writes it). A launch that has no other argument says so (RFTC124)."""

    span: Span  # the expansion
