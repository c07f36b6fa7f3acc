#!/usr/bin/env python3
"""Tests syntaxes/tile.tmLanguage.json against the repository's kernels.

A TextMate tokenizer of the subset the grammar uses (single-line `match`
rules, `captures`, `include`s of the repository; each step takes the
leftmost match, the first rule on a tie), on Python's `re`, which the
grammar's patterns are kept to. Checks that every example tokenizes with
no `invalid.illegal` scope, that sample tokens get their scopes, that a
stray character does get one, and that the grammar's builtins are the
front end's list (lib/Frontend/Language.cpp).

usage: test_grammar.py REPO   (prints a summary; exit 1 on a failure)
"""

import json
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1])
grammar = json.loads((pathlib.Path(__file__).parent.parent / "syntaxes" /
                      "tile.tmLanguage.json").read_text())
failures = []


def flatten(rules):
    """The match rules of `rules`, includes resolved, in order."""
    out = []
    for rule in rules:
        if "include" in rule:
            target = grammar["repository"][rule["include"].lstrip("#")]
            out += flatten(target.get("patterns", [target]))
        elif "patterns" in rule:
            out += flatten(rule["patterns"])
        else:
            out.append((re.compile(rule["match"]), rule.get("name"),
                        rule.get("captures", {})))
    return out


RULES = flatten(grammar["patterns"])


def tokenize(line):
    """[(text, scope)] of one line."""
    tokens, pos = [], 0
    while pos < len(line):
        best = None
        for regex, name, captures in RULES:
            m = regex.search(line, pos)
            if m and m.end() > m.start() and (best is None or m.start() < best[0].start()):
                best = (m, name, captures)
        if best is None:
            break
        m, name, captures = best
        if captures:
            for group, capture in sorted(captures.items(), key=lambda c: int(c[0])):
                if m.group(int(group)):
                    tokens.append((m.group(int(group)), capture["name"]))
        else:
            tokens.append((m.group(0), name))
        pos = m.end()
    return tokens


def check(condition, message):
    if not condition:
        failures.append(message)


files = sorted(root.glob("examples/*.tile"))
lines = count = invalid = 0
for path in files:
    for number, line in enumerate(path.read_text().split("\n"), 1):
        lines += 1
        for text, scope in tokenize(line):
            count += 1
            if scope and scope.startswith("invalid"):
                invalid += 1
                failures.append("%s:%d: %r is %s" % (path, number, text, scope))

samples = {
    "@launch(256)": [("@", "punctuation.definition.annotation.tile"),
                     ("launch", "entity.name.function.attribute.tile")],
    "kernel squares(X: tensor<f32>[16, K]) {": [
        ("kernel", "storage.type.kernel.tile"),
        ("squares", "entity.name.function.kernel.tile"),
        ("tensor", "storage.type.tile"), ("f32", "support.type.dtype.tile"),
        ("16", "constant.numeric.tile"), ("K", "variable.other.tile")],
    "var s = rowsum(acc) * 1.5e-3 // sum": [
        ("var", "storage.type.declaration.tile"),
        ("rowsum", "support.function.builtin.tile"),
        ("1.5e-3", "constant.numeric.tile"),
        ("// sum", "comment.line.double-slash.tile")],
    "for i in range(ctx.block.x, N) {": [
        ("for", "keyword.control.tile"), ("ctx", "variable.language.ctx.tile"),
        ("block", "variable.other.property.tile"), ("x", "variable.other.property.tile")],
    "X[i :+ 16] = a": [(":+", "keyword.operator.tile")],
    "var q = (p >> 3) & 0xF ^ ~m": [(">>", "keyword.operator.tile"),
                                   ("0xF", "constant.numeric.tile"),
                                   ("~", "keyword.operator.tile")],
    "var $x = 1": [("$", "invalid.illegal.tile")],
}
for line, expected in samples.items():
    tokens = tokenize(line)
    for token in expected:
        check(token in tokens, "%r: no %r in %r" % (line, token, tokens))

language = (root / "lib" / "Frontend" / "Language.cpp").read_text()
names = {n for k, n in re.findall(r'\{Kind::(\w+),\s*"([\w.]+)"', language)
         if k in ("Function", "Statement", "StageAccessor")}
builtin = grammar["repository"]["builtin"]["match"]
in_grammar = set(re.search(r"\\b\((.*?)\)\\b", builtin).group(1).split("|"))
check(names == in_grammar, "builtins differ from Language.cpp: %s" %
      sorted(names ^ in_grammar))

for failure in failures:
    print("FAIL:", failure)
print("%d files, %d lines, %d tokens, %d invalid, %d builtins, %d failures" % (
    len(files), lines, count, invalid, len(in_grammar), len(failures)))
sys.exit(1 if failures else 0)
