#!/usr/bin/env python3
"""Check what `glossa batch` sent to the mock batch service, and what the
mock answered, against the official OpenAI SDK's types (openai.types):
the upload form against FileCreateParams, each batch create body against
BatchCreateParams (no field it lacks, every required one, each literal
allowed), each File and Batch object the mock sent against FileObject and
Batch (validated, with no field the SDK does not know). Run by
tests/it/batch_remote.rs with .ci/openai_types.sh's python:

    python .ci/openai_types.py EXCHANGE.json

EXCHANGE.json: {"uploads": [[{"name", "filename", "value"}]], "creates":
[body], "replies": [["file"|"batch", object]]}. Prints each problem and
exits 1; prints a summary and exits 0 otherwise.
"""
import json
import sys
import typing

import openai
from openai.types import Batch, BatchCreateParams, FileCreateParams, FileObject

problems = []


def literals(annotation):
    """The values a (Required[...]) Literal allows, or None."""
    while typing.get_origin(annotation) in (typing.Required, typing.NotRequired):
        annotation = typing.get_args(annotation)[0]
    if typing.get_origin(annotation) is typing.Literal:
        return set(typing.get_args(annotation))
    if typing.get_origin(annotation) is typing.Union:
        found = set()
        for arg in typing.get_args(annotation):
            found |= literals(arg) or set()
        return found or None
    return None


def check_params(what, params, given):
    hints = typing.get_type_hints(params, include_extras=True)
    extra = set(given) - set(hints)
    if extra:
        problems.append(f"{what}: fields {sorted(extra)} are not in {params.__name__}")
    missing = set(params.__required_keys__) - set(given)
    if missing:
        problems.append(f"{what}: required fields {sorted(missing)} of {params.__name__} are missing")
    for key, value in given.items():
        allowed = literals(hints.get(key)) if key in hints else None
        if allowed is not None and isinstance(value, str) and value not in allowed:
            problems.append(f"{what}: {key}={value!r} is not one of {sorted(allowed)}")


def check_model(what, model, value):
    try:
        model.model_validate(value)
    except Exception as e:  # pydantic.ValidationError
        problems.append(f"{what}: not a valid {model.__name__}: {e}")
    extra = set(value) - set(model.model_fields)
    if extra:
        problems.append(f"{what}: fields {sorted(extra)} are not in {model.__name__}")


def main():
    data = json.load(open(sys.argv[1], encoding="utf-8"))
    for n, fields in enumerate(data["uploads"]):
        given = {f["name"]: f["value"] for f in fields}
        check_params(f"upload {n + 1}", FileCreateParams, given)
        if not any(f["name"] == "file" and f.get("filename") for f in fields):
            problems.append(f"upload {n + 1}: the `file` field carries no file name")
    for n, body in enumerate(data["creates"]):
        check_params(f"batch create {n + 1}", BatchCreateParams, body)
        for key, value in (body.get("metadata") or {}).items():
            if not isinstance(value, str) or len(key) > 64 or len(value) > 512:
                problems.append(f"batch create {n + 1}: metadata {key!r} is not a short string")
    models = {"file": FileObject, "batch": Batch}
    for n, (kind, value) in enumerate(data["replies"]):
        check_model(f"reply {n + 1} ({kind})", models[kind], value)
    for p in problems:
        print(p)
    if problems:
        return 1
    print(
        f"openai {openai.__version__}: {len(data['uploads'])} uploads, {len(data['creates'])} "
        f"batch creates and {len(data['replies'])} replies match its types"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
