#!/usr/bin/env python3
"""Counts how the workspace's rooms are laid out, so the figures in issues and notes can
be repeated by anyone (scripts/count-rooms.sh calls this):

- non-test lines per crate (a file's `#[cfg(test)]` module and everything below it left
  out; files that are tests as a whole, `tests.rs`, `*_tests.rs`, `tests/`, `benches/`,
  `examples/`, left out),
- import circles inside each crate: the module graph built from `use` and path
  references (`crate::a::b`, `super::x`, `self::x`, a child module's name), never from
  `mod` declarations alone nor `pub use` re-exports; a circle is a strongly connected component of 2+ modules,
- the `Verdict` types (enum or struct) across the workspace,
- untyped JSON in non-test code: `serde_json::Value` mentions, `json!` uses and string
  lookups (`.get("..")`, `.pointer("..")`), per crate.

Plain Python 3, no packages. `--root DIR` counts another checkout (or an extracted
older tree), `--json` prints the figures as JSON.
"""

import argparse
import json
import os
import re
import sys

CRATE_DIRS = ("crates", "src-tauri")
TEST_FILE = re.compile(r"(^|/)(tests|benches|examples)/|(^|/)tests\.rs$|_tests\.rs$")


def crates(root):
    """(name, src dir) of every crate: crates/* and src-tauri."""
    out = []
    base = os.path.join(root, "crates")
    for name in sorted(os.listdir(base)) if os.path.isdir(base) else []:
        src = os.path.join(base, name, "src")
        if os.path.isdir(src):
            out.append((name, src))
    tauri = os.path.join(root, "src-tauri", "src")
    if os.path.isdir(tauri):
        out.append(("src-tauri", tauri))
    return out


def non_test_text(path):
    """The file's lines above its first top-level `#[cfg(test)]` item."""
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    for i, line in enumerate(lines):
        if line.startswith("#[cfg(test)]"):
            return lines[:i]
    return lines


def module_files(src):
    """{module path tuple: file} for the crate's source files that are not tests."""
    mods = {}
    for dirpath, _, files in os.walk(src):
        for f in files:
            if not f.endswith(".rs"):
                continue
            full = os.path.join(dirpath, f)
            rel = os.path.relpath(full, src).replace(os.sep, "/")
            if TEST_FILE.search(rel):
                continue
            parts = rel[:-3].split("/")
            if parts[-1] in ("mod", "lib", "main"):
                parts = parts[:-1]
            if rel.startswith("bin/"):
                continue  # each binary is a crate of its own
            mods[tuple(parts)] = full
    return mods


USE_STMT = re.compile(r"\buse\s+([^;]+);", re.S)
PRIVATE_OR_PUB_USE = re.compile(r"(\bpub(?:\([^)]*\))?\s+)?\buse\s+([^;]+);", re.S)
PATH_REF = re.compile(r"\b(crate|super|self)((?:::[A-Za-z_][A-Za-z0-9_]*)+)")


def expand_use(tree):
    """`a::{b, c::{d, e}}` -> [a::b, a::c::d, a::c::e] (without `as` renames)."""
    tree = re.sub(r"\s+as\s+[A-Za-z_][A-Za-z0-9_]*", "", tree)
    tree = re.sub(r"\s+", "", tree)

    def split_top(s):
        depth, cur, out = 0, "", []
        for ch in s:
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
            if ch == "," and depth == 0:
                out.append(cur)
                cur = ""
            else:
                cur += ch
        if cur:
            out.append(cur)
        return out

    def walk(prefix, s):
        i = s.find("{")
        if i < 0:
            return [prefix + s]
        head, body = s[:i], s[i + 1 : s.rfind("}")]
        out = []
        for part in split_top(body):
            out.extend(walk(prefix + head, part))
        return out

    return walk("", tree)


def resolve(mods, segments):
    """The longest module prefix of `segments` (absolute) that is a file of the crate."""
    for n in range(len(segments), -1, -1):
        if tuple(segments[:n]) in mods:
            return tuple(segments[:n])
    return None


def edges_of(mods, here, text):
    """Modules `here` refers to: its private `use` statements and its `crate::` /
    `super::` / `self::` paths. A `pub use` is left out: it re-exports a module's items
    from its parent (the way `mod.rs` presents its room), it is not a dependency; so is a
    `mod` declaration."""
    targets = set()
    children = {m[len(here)] for m in mods if len(m) > len(here) and m[: len(here)] == here}

    def absolute(path):
        segs = [s for s in path.split("::") if s]
        if not segs:
            return None
        base = list(here)
        if segs[0] == "crate":
            return segs[1:]
        if segs[0] in ("super", "self"):
            while segs and segs[0] in ("super", "self"):
                if segs[0] == "super":
                    base = base[:-1]
                segs = segs[1:]
            return base + segs
        if segs[0] in children:
            return base + segs  # `use child::Item;` names a child module
        return None

    def add(segments):
        target = resolve(mods, segments)
        # The crate root is lib.rs's list of rooms and re-exports, not a room itself.
        if target not in (None, (), here):
            targets.add(target)

    for m in PRIVATE_OR_PUB_USE.finditer(text):
        if m.group(1):
            continue
        for p in expand_use(m.group(2)):
            segs = absolute(p)
            if segs is not None:
                add(segs)
    code = USE_STMT.sub("", text)
    for m in PATH_REF.finditer(code):
        segs = absolute(m.group(1) + m.group(2))
        if segs is not None:
            add(segs)
    return targets


def strip_comments(lines):
    text = "\n".join(lines)
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return "\n".join(re.sub(r"//.*$", "", l) for l in text.split("\n"))


def circles(mods, texts):
    graph = {m: edges_of(mods, m, texts[m]) for m in mods}
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]
    sys.setrecursionlimit(10000)

    def strong(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            strong(v)
    return out


def file_of(src, path):
    return os.path.relpath(path, src).replace(os.sep, "/")


def count(root):
    report = {"crates": {}, "circles": [], "verdicts": [], "json": {}}
    for name, src in crates(root):
        mods = module_files(src)
        texts = {m: strip_comments(non_test_text(f)) for m, f in mods.items()}
        lines = sum(len(non_test_text(f)) for f in mods.values())
        report["crates"][name] = lines
        for comp in circles(mods, texts):
            report["circles"].append({"crate": name, "files": [file_of(src, mods[m]) for m in comp]})
        values = jsons = lookups = 0
        for m, f in mods.items():
            t = texts[m]
            rel = file_of(src, f)
            for v in re.finditer(r"\b(?:pub(?:\([^)]*\))?\s+)?(enum|struct)\s+Verdict\b", t):
                report["verdicts"].append(f"{name}/src/{rel}")
            imports_value = re.search(r"use\s+serde_json::(?:\{[^}]*\bValue\b[^}]*\}|Value\b)", t) is not None
            values += len(re.findall(r"serde_json::Value\b", t))
            if imports_value:
                values += len(re.findall(r"(?<![:A-Za-z0-9_])Value\b", USE_STMT.sub("", t)))
            jsons += len(re.findall(r"\bjson!\s*[\(\[\{]", t))
            lookups += len(re.findall(r"\.(?:get|pointer)\(\s*\"", t))
        report["json"][name] = {"value": values, "json_macro": jsons, "string_lookups": lookups}
    return report


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    r = count(args.root)
    if args.json:
        print(json.dumps(r, indent=2, ensure_ascii=False))
        return
    print("non-test lines per crate")
    for name, n in sorted(r["crates"].items(), key=lambda kv: -kv[1]):
        print(f"  {name:<12} {n:>7,}")
    print(f"  {'total':<12} {sum(r['crates'].values()):>7,}")
    print(f"\nimport circles inside crates: {len(r['circles'])}")
    for c in r["circles"]:
        print(f"  {c['crate']}: " + " <-> ".join(c["files"]))
    print(f"\nVerdict types: {len(r['verdicts'])}")
    for v in r["verdicts"]:
        print(f"  {v}")
    print("\nuntyped JSON in non-test code (serde_json::Value mentions, json! uses, string lookups)")
    for name, j in r["json"].items():
        if any(j.values()):
            print(f"  {name:<12} Value {j['value']:>4}   json! {j['json_macro']:>4}   .get(\"..\")/.pointer {j['string_lookups']:>4}")


if __name__ == "__main__":
    main()
