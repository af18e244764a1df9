"""Every string a built-in redaction rule's regex can match holds one of the rule's keywords.

A rule's regex runs only on lines where one of its keywords occurs, so a keyword list that misses
a form the regex accepts (`SharedAccessKey =` when the keyword is `sharedaccesskey=`) silently
lets that form through. Random strings generated from each regex find such gaps.
"""
import os
import random
import sys
import tomllib

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from benchlib import regexgen  # noqa: E402

RULES_DIR = os.path.join(ROOT, "src", "redact", "rules")


def rules():
    for name in sorted(os.listdir(RULES_DIR)):
        if name.endswith(".toml"):
            with open(os.path.join(RULES_DIR, name), "rb") as f:
                for rule in tomllib.load(f)["rule"]:
                    yield pytest.param(rule, id=rule["id"])


@pytest.mark.parametrize("rule", list(rules()))
def test_every_match_holds_a_keyword(rule):
    rnd = random.Random(rule["id"])
    keywords = [k.lower() for k in rule["keywords"]]
    for _ in range(300):
        text, _groups = regexgen.generate(rule["regex"], rnd)
        assert any(k in text.lower() for k in keywords), (
            f"{rule['id']}: {text!r} matches the regex but holds none of {keywords}"
        )
