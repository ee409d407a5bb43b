"""Text filters a pipeline runs on text rftc knows: `echo "$CUDA_VISIBLE_DEVICES" | tr ',' '\\n' | wc -l`,
`awk -F, '{print NF}'`, `cut -d/ -f2`, `sed 's/[.-]/_/g'`. Each computes what the program prints for the forms
scripts use (GNU coreutils, sed and awk); any other form or option is not computed (None), and the pipeline's
output stays unknown, as for any other program.
"""

from __future__ import annotations

import re

_CLASSES = {"upper": "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "lower": "abcdefghijklmnopqrstuvwxyz", "digit": "0123456789",
            "space": " \t\n\r\f\v", "blank": " \t"}
_CLASSES["alpha"] = _CLASSES["upper"] + _CLASSES["lower"]
_CLASSES["alnum"] = _CLASSES["alpha"] + _CLASSES["digit"]
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\"}


def run(argv: list[str], text: str) -> str | None:
    """What ``argv`` prints reading ``text``; None when rftc does not compute this program or form."""
    name = argv[0].rsplit("/", 1)[-1] if argv else ""
    handler = {"tr": _tr, "wc": _wc, "cut": _cut, "head": _head, "tail": _tail, "awk": _awk, "sed": _sed}.get(name)
    if handler is None:
        return None
    try:
        return handler(argv[1:], text)
    except (ValueError, IndexError, re.error):
        return None


def _tr_set(spec: str) -> str | None:
    out, i = [], 0
    while i < len(spec):
        m = re.match(r"\[:(\w+):\]", spec[i:])
        if m:
            if m.group(1) not in _CLASSES:
                return None
            out.append(_CLASSES[m.group(1)])
            i += m.end()
            continue
        c = spec[i]
        if c == "\\" and i + 1 < len(spec):
            c, i = _ESCAPES.get(spec[i + 1], spec[i + 1]), i + 1
        if i + 2 < len(spec) and spec[i + 1] == "-":
            out.append("".join(chr(x) for x in range(ord(c), ord(spec[i + 2]) + 1)))
            i += 3
            continue
        out.append(c)
        i += 1
    return "".join(out)


def _tr(args: list[str], text: str) -> str | None:
    flags = ""
    while args and re.fullmatch(r"-[cdsC]+", args[0]):
        flags, args = flags + args[0][1:], args[1:]
    sets = [_tr_set(a) for a in args]
    if not sets or None in sets or len(sets) > 2:
        return None
    first = sets[0]
    if flags == "s" and len(sets) == 1:  # squeeze only
        return re.sub(f"([{re.escape(first)}])\\1+", r"\1", text)
    if "d" in flags and len(sets) == 1:
        keep = "c" in flags or "C" in flags
        return "".join(ch for ch in text if (ch in first) == keep)
    if len(sets) != 2 or flags.strip("s") or not sets[1]:
        return None
    second = sets[1] + sets[1][-1] * max(0, len(first) - len(sets[1]))  # SET2 is padded with its last character
    table = {ord(a): b for a, b in zip(first, second)}
    out = text.translate(table)
    if "s" in flags:
        out = re.sub(f"([{re.escape(sets[1])}])\\1+", r"\1", out)
    return out


def _wc(args: list[str], text: str) -> str | None:
    counts = {"-l": text.count("\n"), "-c": len(text.encode()), "-m": len(text), "-w": len(text.split())}
    if len(args) != 1 or args[0] not in counts:
        return None  # several counts print in columns; a file name is not stdin
    return f"{counts[args[0]]}\n"


def _lines(text: str) -> list[str]:
    return text.split("\n")[:-1] if text.endswith("\n") else text.split("\n")


def _ranges(spec: str) -> list[tuple[int, int]]:
    out = []
    for part in spec.split(","):
        low, dash, high = part.partition("-")
        out.append((int(low) if low else 1, (int(high) if high else 1 << 30) if dash else int(low)))
    return out


def _cut(args: list[str], text: str) -> str | None:
    opts: dict[str, str] = {}
    while args:
        m = re.fullmatch(r"-([dfc])(.*)", args[0])
        if m is None:
            return None
        value = m.group(2) if m.group(2) else (args[1] if len(args) > 1 else None)
        if value is None:
            return None
        opts[m.group(1)], args = value, args[1 if m.group(2) else 2:]
    out = []
    for line in _lines(text):
        if "c" in opts:
            out.append("".join(ch for i, ch in enumerate(line, 1) if any(a <= i <= b for a, b in _ranges(opts["c"]))))
            continue
        if "f" not in opts:
            return None
        sep = opts.get("d", "\t")
        if sep not in line:
            out.append(line)  # a line without the delimiter prints whole
            continue
        parts = line.split(sep)
        out.append(sep.join(p for i, p in enumerate(parts, 1) if any(a <= i <= b for a, b in _ranges(opts["f"]))))
    return "".join(line + "\n" for line in out)


def _count(args: list[str]) -> str | None:
    if not args:
        return "10"
    if len(args) == 2 and args[0] == "-n":
        return args[1]
    m = re.fullmatch(r"-n?(\+?\d+)", args[0]) if len(args) == 1 else None
    return m.group(1) if m else None


def _head(args: list[str], text: str) -> str | None:
    if len(args) == 2 and args[0] == "-c" and args[1].isdigit():
        return text.encode()[:int(args[1])].decode(errors="ignore")
    n = _count(args)
    if n is None or n.startswith("+"):
        return None
    return "".join(line + "\n" for line in _lines(text)[:int(n)])


def _tail(args: list[str], text: str) -> str | None:
    n = _count(args)
    if n is None:
        return None
    lines = _lines(text)
    kept = lines[int(n) - 1:] if n.startswith("+") else lines[len(lines) - int(n):] if int(n) else []
    return "".join(line + "\n" for line in kept)


def _awk(args: list[str], text: str) -> str | None:
    """`awk [-F SEP] '{print $N, NF, ...}'`: one print of fields or NF per line."""
    sep = None
    if args and args[0].startswith("-F"):
        sep, args = (args[0][2:], args[1:]) if len(args[0]) > 2 else (args[1], args[2:])
    m = re.fullmatch(r"\s*\{\s*print\s+(.*?)\s*;?\s*\}\s*", args[0]) if len(args) == 1 else None
    if m is None or (sep is not None and len(sep) != 1 and sep != "\\t"):
        return None
    items = [x.strip() for x in m.group(1).split(",")]
    if not all(re.fullmatch(r"NF|\$(\d+|NF)", x) for x in items):
        return None
    sep = "\t" if sep == "\\t" else sep
    out = []
    for line in _lines(text):
        fields = line.split() if sep in (None, " ") else line.split(sep)
        values = []
        for x in items:
            if x == "NF":
                values.append(str(len(fields)))
            else:
                k = len(fields) if x == "$NF" else int(x[1:])
                values.append(line if k == 0 else fields[k - 1] if k <= len(fields) else "")
        out.append(" ".join(values))
    return "".join(line + "\n" for line in out)


def _bre(pattern: str, extended: bool) -> str:
    """A sed regular expression as Python's: in a basic one `\\(`, `\\)`, `\\{`, `\\}`, `\\+`, `\\?`, `\\|` are the
    operators and the bare characters are literal."""
    if extended:
        return pattern
    out, i = [], 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\" and i + 1 < len(pattern):
            nxt = pattern[i + 1]
            out.append(nxt if nxt in "(){}+?|" else c + nxt)
            i += 2
            continue
        out.append("\\" + c if c in "(){}+?|" else c)
        i += 1
    return "".join(out)


def _sed(args: list[str], text: str) -> str | None:
    """`sed [-E|-r] 's/RE/REPLACEMENT/[g]'` (several with -e, or joined by `;`)."""
    extended = False
    scripts: list[str] = []
    while args:
        if args[0] in ("-E", "-r"):
            extended, args = True, args[1:]
        elif args[0] == "-e" and len(args) > 1:
            scripts, args = scripts + [args[1]], args[2:]
        elif not scripts and not args[0].startswith("-") and len(args) == 1:
            scripts, args = [args[0]], []
        else:
            return None
    commands = []
    for script in scripts:
        for part in script.split(";"):
            m = re.fullmatch(r"\s*s(.)(.*?)(?<!\\)\1(.*?)(?<!\\)\1([gI]*)\s*", part, re.S)
            if m is None:
                return None
            flags = re.I if "I" in m.group(4) else 0
            repl = re.sub(r"\\(\d)", r"\\g<\1>", m.group(3).replace("\\&", "\0")).replace("&", r"\g<0>")
            commands.append((re.compile(_bre(m.group(2), extended), flags), repl.replace("\0", "&"),
                             0 if "g" in m.group(4) else 1))
    out = []
    for line in _lines(text):
        for regex, repl, count in commands:
            line = regex.sub(repl, line, count=count)
        out.append(line)
    return "".join(line + "\n" for line in out)

