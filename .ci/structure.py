#!/usr/bin/env python3
"""Structure rules of issue 14, checked on every CI run:

1. No import cycle between the library's files: each file (module) of src/
   is a node, each `crate::…` or `super::…` path that names another module
   an edge (a parent's `pub use` of its children is not counted: that is the
   module tree, not an import). Tests inside `#[cfg(test)] mod tests` are
   left out.
2. Only src/cli.rs, src/commands/ and src/main.rs name clap (code, not
   comments).
3. Layers (issue 34): each top-level module of src/ sits on a floor of
   LAYERS; a module imports only modules on its own floor or below, never
   one above (retrieval never stands on generation). A new top-level module
   must be given a floor here.

`python3 .ci/structure.py --self-test` proves rule 3 fails on a backward
import (a copy of src/ where retrieve imports generate) and passes on the
copy without it.

4. `cli` and `commands` are the binary's (declared in main.rs, not lib.rs):
   the library is crate-private by default and offers the binary only what
   it makes `pub`.

Prints what breaks a rule and exits 1; prints a summary and exits 0 otherwise.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

SRC = os.environ.get(
    "GLOSSA_STRUCTURE_SRC",
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"),
)

# Floors, lowest first. A module may import its own floor and those below.
LAYERS = [
    ["error", "limits", "fsutil", "exit", "stats", "runs", "demo", "phrase", "language", "otel"],
    ["glossary", "dataset", "score", "interchange", "target_match", "invariants"],
    ["retrieve", "compiled"],
    ["lint", "eval", "sweep"],
    ["gate", "generate"],
    ["run_dir", "batch", "qa"],
    ["diff"],
    ["report", "telemetry"],
    ["serve"],
    ["cli", "commands"],
]
FLOOR = {name: i for i, names in enumerate(LAYERS) for name in names}
# The top floor is the binary's (declared in main.rs): the library reaches
# none of it, and it reaches the library only through `pub` items.
BINARY = ("cli", "commands")


def modules():
    found = {}
    for root, _, names in os.walk(SRC):
        for name in names:
            if not name.endswith(".rs"):
                continue
            path = os.path.join(root, name)
            parts = os.path.relpath(path, SRC)[:-3].split(os.sep)
            if parts[-1] == "mod":
                parts = parts[:-1]
            if parts in (["lib"], ["main"]):
                continue
            found[tuple(parts)] = path
    return found


def code_of(path):
    text = open(path, encoding="utf-8").read()
    text = re.sub(r"#\[cfg\(test\)\]\s*mod tests\s*\{.*", "", text, flags=re.S)
    return "\n".join(re.sub(r"//.*", "", line) for line in text.splitlines())


def imports(module, path, files):
    def resolve(segments):
        for k in range(len(segments), 0, -1):
            if tuple(segments[:k]) in files:
                return tuple(segments[:k])
        return None

    code = code_of(path)
    if module[0] in BINARY:
        # The binary names the library by its crate name.
        code = re.sub(r"\bglossa::", "crate::", code)
    out = set()
    for ref in re.findall(r"(?:crate|super)(?:::(?:super|[A-Za-z_]\w*))+", code):
        segments = ref.split("::")
        if segments[0] == "crate":
            base, rest = [], segments[1:]
        else:
            ups = segments.count("super")
            base, rest = list(module)[: len(module) - ups], segments[ups:]
        target = resolve(base + rest)
        if target and target != module and target[: len(module)] != module:
            out.add(target)
    for group in re.findall(r"crate::\{([^}]*)\}", code):
        for item in group.split(","):
            target = resolve(item.strip().split("::"))
            if target and target != module:
                out.add(target)
    return out


def cycles(graph):
    sys.setrecursionlimit(100000)
    index, low, stack, on, found, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(group)

    for v in graph:
        if v not in index:
            visit(v)
    return found


def main():
    files = modules()
    graph = {m: imports(m, p, files) for m, p in files.items()}
    bad = False
    for group in cycles(graph):
        bad = True
        print("import cycle:", " -> ".join("::".join(m) for m in sorted(group)))
    for module in sorted(graph):
        if module[0] not in FLOOR:
            bad = True
            print(f"{module[0]}: a top-level module with no floor in LAYERS (.ci/structure.py)")
            continue
        for target in sorted(graph[module]):
            if target[0] in FLOOR and FLOOR[target[0]] > FLOOR[module[0]]:
                bad = True
                print(
                    f"backward import: {'::'.join(module)} (floor {FLOOR[module[0]]}) imports "
                    f"{'::'.join(target)} (floor {FLOOR[target[0]]}); lower floors never import upper ones"
                )
    lib = open(os.path.join(SRC, "lib.rs"), encoding="utf-8").read()
    for name in BINARY:
        if re.search(rf"^\s*(pub(\([^)]*\))?\s+)?mod {name}\b", lib, flags=re.M):
            bad = True
            print(f"src/lib.rs declares `{name}`: the command line belongs to the binary (main.rs)")
    for module, path in sorted(files.items()):
        if module[0] in BINARY:
            continue
        if re.search(r"\bclap(_\w+)?::|\buse clap\b", code_of(path)):
            bad = True
            print(f"{os.path.relpath(path, os.path.dirname(SRC))}: names clap outside cli.rs and commands/")
    if bad:
        sys.exit(1)
    edges = sum(len(v) for v in graph.values())
    print(
        f"structure: {len(files)} modules, {edges} imports, no cycle, no backward import "
        f"across {len(LAYERS)} floors; clap only in cli.rs and commands/"
    )


def self_test():
    """Rule 3 must fail on a backward import and pass without it."""
    with tempfile.TemporaryDirectory() as tmp:
        copy = os.path.join(tmp, "src")
        shutil.copytree(SRC, copy)
        env = dict(os.environ, GLOSSA_STRUCTURE_SRC=copy)
        run = lambda: subprocess.run(
            [sys.executable, os.path.abspath(__file__)], env=env, capture_output=True, text=True
        )
        clean = run()
        if clean.returncode != 0:
            sys.exit(f"self-test: the unchanged copy fails:\n{clean.stdout}")
        victim = os.path.join(copy, "retrieve", "exact.rs")
        with open(victim, encoding="utf-8") as f:
            code = f.read()
        with open(victim, "w", encoding="utf-8") as f:
            # At the top: the check ignores what follows a test module.
            f.write("use crate::generate::check::Verdict;\n" + code)
        broken = run()
        if broken.returncode == 0 or "backward import: retrieve::exact" not in broken.stdout:
            sys.exit(f"self-test: a backward import was not caught:\n{broken.stdout}")
    print("structure self-test: a backward import (retrieve -> generate) fails rule 3")


if "--self-test" in sys.argv:
    self_test()
else:
    main()
