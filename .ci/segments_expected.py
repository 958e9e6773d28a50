#!/usr/bin/env python3
"""The segments of translation files as translate-toolkit reads them, for
tests/it/segments_real.rs: an independent reader to hold glossa's
src/interchange/segments against.

    python3 .ci/segments_expected.py FILE OUT.jsonl   (run with the venv's python)

Writes one {"source", "target"} line per segment, in file order, keeping
and skipping units by the rules of docs/formats.md ("Translations to
check"), asked of translate-toolkit's own parsers (translate.storage):

- PO: not the header, not obsolete, not fuzzy, translated; a plural gives
  one segment per non-empty msgstr[n], msgid for n = 0, msgid_plural after.
- XLIFF: translatable (translate != "no"), not approved="no", not the PO
  header po2xliff writes (restype x-gettext-domain-header), a target whose
  state is not new/needs-translation and that is not blank.
- TMX: each unit's source and target (po2tmx writes two languages).
"""
import json
import sys

from translate.storage import factory


def po_pairs(store):
    for unit in store.units:
        if unit.isheader() or unit.isobsolete() or unit.isfuzzy() or not unit.istranslated():
            continue
        if unit.hasplural():
            sources = unit.source.strings
            for n, target in enumerate(unit.target.strings):
                if target:
                    yield sources[0] if n == 0 else sources[-1], target
        elif unit.target:
            yield unit.source, unit.target


def xliff_pairs(store):
    for unit in store.unit_iter():
        element = unit.xmlelement
        if not unit.istranslatable() or element.get("approved") == "no":
            continue
        if element.get("restype") == "x-gettext-domain-header":
            continue
        if unit.hasplural():
            # translate-toolkit's PO-flavoured XLIFF joins a plural group's
            # trans-units into one unit; glossa reads them one by one.
            sources = unit.source.strings
            for n, target in enumerate(unit.target.strings):
                if target.strip():
                    yield sources[min(n, len(sources) - 1)], target
            continue
        target_node = unit.getlanguageNode(lang=None, index=1)
        if target_node is None or target_node.get("state") in ("new", "needs-translation"):
            continue
        source, target = str(unit.source), str(unit.target)
        if target.strip():
            yield source, target


def tmx_pairs(store):
    for unit in store.units:
        if unit.source is not None and unit.target and unit.target.strip():
            yield str(unit.source), str(unit.target)


def main():
    path, out = sys.argv[1], sys.argv[2]
    store = factory.getobject(path)
    kind = type(store).__name__
    if path.endswith((".po", ".pot")):
        pairs = po_pairs(store)
    elif path.endswith((".xlf", ".xliff")):
        pairs = xliff_pairs(store)
    elif path.endswith(".tmx"):
        pairs = tmx_pairs(store)
    else:
        sys.exit(f"{path}: not .po, .xlf or .tmx")
    count = 0
    with open(out, "w", encoding="utf-8") as f:
        for source, target in pairs:
            f.write(json.dumps({"source": str(source), "target": str(target)}, ensure_ascii=False) + "\n")
            count += 1
    print(f"{path}: {count} segments ({kind})", file=sys.stderr)


if __name__ == "__main__":
    main()
