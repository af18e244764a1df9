"""Random strings that a regular expression matches, with where each group landed.

The redaction benchmark measures the built-in rules on secrets generated from another scanner's
published patterns (gitleaks' default rule set): the patterns were written by other people, so
the examples are not shaped by our rules. Libraries that do this (rstr, exrex) exist on PyPI, but
the benchmark runs on the system Python without a virtualenv, and walking the standard library's
own regex parse tree takes a few dozen lines.
"""
import re
import string

try:
    from re import _parser as sre_parse, _constants as C  # Python 3.11+
except ImportError:  # pragma: no cover
    import sre_parse, sre_constants as C  # type: ignore

PRINTABLE = [c for c in string.printable if c not in "\r\n\t\x0b\x0c"]
CATEGORY = {
    C.CATEGORY_DIGIT: string.digits,
    C.CATEGORY_WORD: string.ascii_letters + string.digits + "_",
    C.CATEGORY_SPACE: " ",
    C.CATEGORY_NOT_DIGIT: string.ascii_letters,
    C.CATEGORY_NOT_WORD: " -.:/=",
    C.CATEGORY_NOT_SPACE: string.ascii_letters + string.digits,
}


def _class(items):
    chars, negate = set(), False
    for op, av in items:
        if op is C.NEGATE:
            negate = True
        elif op is C.LITERAL:
            chars.add(chr(av))
        elif op is C.RANGE:
            chars.update(chr(c) for c in range(av[0], av[1] + 1) if c < 128)
        elif op is C.CATEGORY:
            chars.update(CATEGORY.get(av, ""))
    if negate:
        return [c for c in PRINTABLE if c not in chars]
    return sorted(chars) or [" "]


def _gen(parsed, rnd, out, groups):
    for op, av in parsed:
        if op is C.LITERAL:
            out.append(chr(av))
        elif op is C.NOT_LITERAL:
            out.append(rnd.choice([c for c in PRINTABLE if ord(c) != av]))
        elif op is C.ANY:
            out.append(rnd.choice(string.ascii_letters + string.digits))
        elif op is C.IN:
            out.append(rnd.choice(_class(av)))
        elif op in (C.MAX_REPEAT, C.MIN_REPEAT, getattr(C, "POSSESSIVE_REPEAT", None)):
            lo, hi, sub = av
            if hi is C.MAXREPEAT or hi > lo + 8:
                # Open or wide ranges: a secret body needs its minimum and a little more;
                # padding such as `[\w.-]{0,50}` stays short, as people write it.
                hi = lo + (8 if lo >= 8 else 3)
            for _ in range(rnd.randint(lo, hi)):
                _gen(sub, rnd, out, groups)
        elif op is C.SUBPATTERN:
            gid, _add, _del, sub = av
            start = sum(map(len, out))
            _gen(sub, rnd, out, groups)
            if gid is not None:
                groups[gid] = (start, sum(map(len, out)))
        elif op is C.BRANCH:
            _gen(rnd.choice(av[1]), rnd, out, groups)
        elif op is C.AT or op in (C.ASSERT, C.ASSERT_NOT):
            pass
        elif op is C.GROUPREF:
            s, e = groups.get(av, (0, 0))
            out.append("".join(out)[s:e])
        else:  # pragma: no cover - an opcode gitleaks does not use
            raise ValueError(f"cannot generate {op}")


def go_to_python(pattern):
    """gitleaks writes Go (RE2) syntax; what matters for generating differs only in flags."""
    p = pattern.replace(r"\z", r"\Z").replace("[[:alnum:]]", "[A-Za-z0-9]").replace("[:alnum:]", "A-Za-z0-9")
    p = re.sub(r"\(\?i\)", "", p)
    p = p.replace("(?-i:", "(?:").replace("(?i:", "(?:").replace("(?s:", "(?:").replace("(?m)", "")
    return p


def generate(pattern, rnd):
    """(text, {group: (start, end)}) for one random string that `pattern` matches."""
    parsed = sre_parse.parse(go_to_python(pattern))
    out, groups = [], {}
    _gen(parsed, rnd, out, groups)
    return "".join(out), groups
