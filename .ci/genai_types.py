#!/usr/bin/env python3
"""Check what `glossa batch` sent to the mock Gemini API, and what the mock
answered, against the official Google Gen AI SDK (PyPI `google-genai`):
its pydantic types (extra="forbid": a field they do not know is an error)
and its own converters to the wire, so that glossa sends what the SDK
sends. Run by tests/it/batch_gemini.rs with .ci/genai_types.sh's python:

    python .ci/genai_types.py EXCHANGE.json

EXCHANGE.json: {"upload_starts": [{"body", "content_type", "size"}],
"request_lines": [line], "creates": [{"model", "body"}], "replies":
[["file"|"operation", object]], "result_lines": [line]}.

- each request line is {"key": str, "request": R}, and R equals what the
  SDK's _InlinedRequest_to_mldev makes of an InlinedRequest with R's
  contents (types.Content) and its generationConfig's temperature, seed
  and maxOutputTokens (types.GenerateContentConfig);
- each batch create body equals the SDK's _CreateBatchJobParameters_to_mldev
  of (model, src=the file name, config={display_name});
- each upload start body's `file` is a types.File;
- each File reply is a types.File; each Operation reply converts with the
  SDK's _BatchJob_from_mldev to a types.BatchJob whose state is a JobState
  (and, when done, whose dest names the results file);
- each result line is {"key", "response": types.GenerateContentResponse}
  or {"key", "error": types.JobError}.
Prints each problem and exits 1; prints a summary and exits 0 otherwise.
"""
import json
import sys

import google.genai
from google import genai
from google.genai import batches, types

problems = []


def validate(what, model, value):
    try:
        return model.model_validate(value)
    except Exception as e:  # pydantic.ValidationError
        problems.append(f"{what}: not a valid {model.__name__}: {e}")
        return None


def main():
    data = json.load(open(sys.argv[1], encoding="utf-8"))
    api = genai.Client(api_key="unused")._api_client

    for n, line in enumerate(data["request_lines"]):
        what = f"request line {n + 1}"
        if set(line) != {"key", "request"} or not isinstance(line.get("key"), str):
            problems.append(f"{what}: not {{key: str, request}}: {sorted(line)}")
            continue
        request = line["request"]
        extra = set(request) - {"contents", "generationConfig"}
        if extra:
            problems.append(f"{what}: fields {sorted(extra)} glossa does not mean to send")
        contents = [validate(what, types.Content, c) for c in request.get("contents", [])]
        gen = request.get("generationConfig", {})
        config = validate(
            what,
            types.GenerateContentConfig,
            {
                "temperature": gen.get("temperature"),
                "seed": gen.get("seed"),
                "max_output_tokens": gen.get("maxOutputTokens"),
            },
        )
        if None in contents or config is None:
            continue
        inlined = types.InlinedRequest(contents=contents, config=config)
        expected = batches._InlinedRequest_to_mldev(api, inlined)["request"]
        if expected != request:
            problems.append(f"{what}: {json.dumps(request)} is not what the SDK sends: {json.dumps(expected)}")

    for n, create in enumerate(data["creates"]):
        what = f"batch create {n + 1}"
        body = create["body"]
        batch = body.get("batch", {})
        file_name = batch.get("inputConfig", {}).get("fileName")
        params = types._CreateBatchJobParameters(
            model=create["model"],
            src=file_name,
            config={"display_name": batch.get("displayName")},
        )
        expected = batches._CreateBatchJobParameters_to_mldev(api, params)
        url = expected.pop("_url")
        if url != {"model": f"models/{create['model']}"}:
            problems.append(f"{what}: the SDK would post to {url}")
        if expected != body:
            problems.append(f"{what}: {json.dumps(body)} is not what the SDK sends: {json.dumps(expected)}")

    for n, start in enumerate(data["upload_starts"]):
        what = f"upload {n + 1}"
        if set(start["body"]) != {"file"}:
            problems.append(f"{what}: the start body is not {{file}}: {sorted(start['body'])}")
        validate(what, types.File, start["body"].get("file", {}))
        if start["content_type"] != "application/jsonl":
            problems.append(f"{what}: uploaded as {start['content_type']!r}")

    for n, (kind, value) in enumerate(data["replies"]):
        what = f"reply {n + 1} ({kind})"
        if kind == "file":
            validate(what, types.File, value)
            continue
        job = validate(what, types.BatchJob, batches._BatchJob_from_mldev(value))
        if job is None:
            continue
        if not isinstance(job.state, types.JobState):
            problems.append(f"{what}: state {job.state!r} is not a JobState")
        if value.get("done") and job.state == types.JobState.JOB_STATE_SUCCEEDED:
            if job.dest is None or not job.dest.file_name:
                problems.append(f"{what}: a finished batch whose dest names no results file")

    for n, line in enumerate(data["result_lines"]):
        what = f"result line {n + 1}"
        rest = set(line) - {"key"}
        if not isinstance(line.get("key"), str) or rest not in ({"response"}, {"error"}):
            problems.append(f"{what}: not {{key, response|error}}: {sorted(line)}")
            continue
        if "response" in line:
            validate(what, types.GenerateContentResponse, line["response"])
        else:
            validate(what, types.JobError, line["error"])

    for p in problems:
        print(p)
    if problems:
        return 1
    print(
        f"google-genai {google.genai.__version__}: {len(data['request_lines'])} request lines, "
        f"{len(data['creates'])} batch creates, {len(data['upload_starts'])} uploads, "
        f"{len(data['replies'])} replies and {len(data['result_lines'])} result lines match it"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
