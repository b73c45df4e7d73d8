"""The JSON Schemas in another language's validator: ajv (JavaScript), the one most harness
authors outside Python would reach for.

In strict mode, with ajv-formats, both schemas compile, and on a corpus of requests (the demo
request with each field broken in turn, and every timestamp edge case of tests/test_hostile_input.py)
ajv and the builder give the same verdict, apart from what no JSON Schema can state
(:data:`tests.support.BUILDER_ONLY`). Every result of an accepted request passes the result
schema. Before this file: strict mode refused both schemas, and ajv accepted the year 0000,
which the builder refuses (Python's ``jsonschema`` refused it through its format checker, so
the differential test there could not see it).
"""

from __future__ import annotations

import copy
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from harnessbook import InvalidRequestError, build_context_packet, demo_request, load_schema
from harnessbook.schemas import SCHEMA_FILES
from tests.support import BUILDER_ONLY

ROOT = Path(__file__).resolve().parents[1]
TOOLS = ROOT / "tools"
SCHEMAS = ROOT / "src" / "harnessbook" / "schemas"

# Reads the two schema files and a JSON-lines corpus ({"request": ..., "result": ...|null}),
# prints one JSON array: per line, [request valid, result valid or null, ajv's first errors].
AJV = r"""
const fs = require("fs");
const Ajv2020 = require("ajv/dist/2020").default;
const addFormats = require("ajv-formats").default;
const [requestSchema, resultSchema, corpus] = process.argv.slice(2);
const ajv = new Ajv2020({strict: true, allErrors: true});
addFormats(ajv);  // full mode: dates and times are checked against the calendar
const request = ajv.compile(JSON.parse(fs.readFileSync(requestSchema, "utf8")));
const result = ajv.compile(JSON.parse(fs.readFileSync(resultSchema, "utf8")));
const out = fs.readFileSync(corpus, "utf8").split("\n").filter(Boolean).map((line) => {
  const item = JSON.parse(line);
  const ok = request(item.request);
  const errors = ok ? [] : request.errors.slice(0, 3).map((e) => `${e.instancePath} ${e.message}`);
  return [ok, item.result === null ? null : result(item.result), errors];
});
console.log(JSON.stringify(out));
"""

TIMESTAMPS = [
    "2026-07-15",
    "2026-07-15T09:30:00Z",
    "2026-07-15t09:30:00z",
    "2026-07-15T09:30:00.123456+08:00",
    "2016-12-31T23:59:60Z",
    "2017-01-01T07:59:60+08:00",
    "2016-12-31T12:00:60Z",
    "0000-01-01",
    "0000-01-01T00:00:00Z",
    "0001-01-01",
    "9999-12-31T23:59:59Z",
    "2026-02-29",
    "2024-02-29",
    "2026-02-30",
    "2026-02-30T00:00:00Z",
    "2026-04-31",
    "2026-13-01",
    "2026-07-15T24:00:00Z",
    "2026-07-15T25:00:00Z",
    "2026-07-15T09:30:00+24:00",
    "2026-07-15T09:30:00",
    "2026-07-15 09:30:00Z",
    "2026-07-15\n",
    " 2026-07-15",
    "20260715",
    "",
    " ",
    "\u001c",
    "\ufeff",
    None,
]

BROKEN_VALUES: list[Any] = [
    None,
    True,
    0,
    -1,
    8.0,
    2**53 - 1,
    2**53,
    "",
    " ",
    "\u0085",
    "\ufeff",
    [],
    {},
    "x",
]


def corpus() -> list[Any]:
    """The demo request, then each of its fields (and each candidate's) given each broken value,
    removed, or joined by an unknown key; every timestamp edge case; conflicts and ids."""
    base: Any = demo_request()
    requests: list[Any] = [base, [], "text", {}, {**base, "extra": 1}]
    for key in base:
        for value in BROKEN_VALUES:
            requests.append({**base, key: value})
        requests.append({k: v for k, v in base.items() if k != key})
    for key in base["taskAnchor"]:
        for value in BROKEN_VALUES:
            requests.append({**base, "taskAnchor": {**base["taskAnchor"], key: value}})
    candidate = base["candidates"][0]
    for key in [*candidate, "conflictsWith", "unknownKey"]:
        for value in [*BROKEN_VALUES, "reference", "history-summary", "background", "expired", ["x"]]:
            request = copy.deepcopy(base)
            request["candidates"][0][key] = value
            requests.append(request)
        request = copy.deepcopy(base)
        request["candidates"][0].pop(key, None)
        requests.append(request)
    for stamp in TIMESTAMPS:
        request = copy.deepcopy(base)
        request["candidates"][0]["capturedAt"] = stamp
        requests.append(request)
    ids = [c["id"] for c in base["candidates"]]
    for conflicts in ([ids[1]], [ids[0]], ["ghost"], [ids[1], ids[1]], []):
        for kind in ("history-summary", "direct-evidence"):
            request = copy.deepcopy(base)
            request["candidates"][0].update(kind=kind, conflictsWith=conflicts)
            requests.append(request)
    request = copy.deepcopy(base)
    request["candidates"][1]["id"] = request["candidates"][0]["id"]
    requests.append(request)
    return requests


def verdict(request: Any) -> tuple[bool, list[str], Any]:
    """The builder's verdict: accepted or not, its problems, and its result."""
    try:
        return True, [], build_context_packet(request)
    except InvalidRequestError as error:
        return False, list(error.problems), None


def run_ajv(tmp_path: Path, items: list[dict[str, Any]]) -> list[list[Any]]:
    node = shutil.which("node")
    if node is None or not (TOOLS / "node_modules" / "ajv-formats").is_dir():
        if os.environ.get("CI"):
            pytest.fail(
                "node and tools/node_modules (ajv, ajv-formats) are required under CI: npm ci --prefix tools"
            )
        pytest.skip("node or tools/node_modules/ajv-formats is missing (npm ci --prefix tools)")
    lines = tmp_path / "corpus.jsonl"
    lines.write_text("".join(json.dumps(item) + "\n" for item in items), encoding="utf-8")
    script = tmp_path / "ajv.cjs"
    script.write_text(AJV, encoding="utf-8")
    completed = subprocess.run(
        [
            node,
            str(script),
            str(SCHEMAS / SCHEMA_FILES["request"]),
            str(SCHEMAS / SCHEMA_FILES["result"]),
            str(lines),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env=dict(os.environ, NODE_PATH=str(TOOLS / "node_modules")),
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    return json.loads(completed.stdout)


def test_ajv_in_strict_mode_agrees_with_the_builder(tmp_path):
    requests = corpus()
    verdicts = [verdict(request) for request in requests]
    answers = run_ajv(
        tmp_path, [{"request": r, "result": v[2]} for r, v in zip(requests, verdicts, strict=True)]
    )
    disagreements = []
    for request, (accepted, problems, _result), (ajv_ok, result_ok, ajv_errors) in zip(
        requests, verdicts, answers, strict=True
    ):
        if accepted:
            assert result_ok is True, f"ajv refuses the result of {json.dumps(request)[:300]}"
        if ajv_ok == accepted:
            continue
        if ajv_ok and all(BUILDER_ONLY.search(p) for p in problems):
            continue  # what no schema can state
        disagreements.append(
            (json.dumps(request, ensure_ascii=False)[:300], accepted, problems[:2], ajv_errors)
        )
    assert disagreements == []
    assert sum(accepted for accepted, _, _ in verdicts) > 20
    for page in ("schemas.md", "schemas.en.md"):  # the reference page states the corpus's size
        assert f" {len(requests)} " in (ROOT / "docs" / "reference" / page).read_text(encoding="utf-8"), page


def test_the_year_0000_is_refused_even_where_formats_are_not_checked():
    """JSON Schema 2020-12 makes ``format`` an annotation unless a validator is told otherwise:
    the patterns alone must refuse what the builder refuses."""
    plain = jsonschema.Draft202012Validator(load_schema("request"))  # no format checker
    for stamp, expected in [("0000-01-01", False), ("0000-01-01T00:00:00Z", False), ("0001-01-01", True)]:
        request: Any = demo_request()
        request["candidates"][0]["capturedAt"] = stamp
        assert plain.is_valid(request) is expected, stamp
        assert verdict(request)[0] is expected, stamp
