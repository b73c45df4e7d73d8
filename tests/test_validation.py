"""Malformed requests: every kind issue 2 lists raises InvalidRequestError naming the JSON path.

Each case starts from one valid request, breaks one thing, and checks that exactly the
expected path is reported (nothing else). Then: all problems at once, ``str()``, the RFC 3339
timestamps, unknown keys at every level, non-string keys.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from harnessbook import InvalidRequestError, build_context_packet, demo_request, validate_request


def valid_request() -> Any:
    return {
        "taskAnchor": {
            "goal": "locate the single failing test",
            "stopCondition": "stop when no traceable direct evidence is left",
            "verificationTarget": "the injected test name",
        },
        "budgetUnits": 8,
        "candidates": [
            {
                "id": "evidence",
                "kind": "direct-evidence",
                "source": "injected:test-output",
                "capturedAt": "2026-07-15",
                "relevance": "current",
                "freshness": "fresh",
                "sizeUnits": 3,
                "content": "assertion failed",
            },
            {
                "id": "summary",
                "kind": "history-summary",
                "source": "injected:memory",
                "capturedAt": "2026-07-14T09:30:00Z",
                "relevance": "background",
                "freshness": "fresh",
                "sizeUnits": 2,
                "content": "the test passed yesterday",
                "reference": "memory://summary",
                "conflictsWith": ["evidence"],
            },
        ],
    }


MISSING = object()


def at(request: Any, path: tuple[str | int, ...]) -> Any:
    """The value at ``path`` inside ``request`` (``request`` itself for the empty path)."""
    target = request
    for key in path:
        target = target[key]
    return target


def mutate(path: tuple[str | int, ...], value: Any) -> Any:
    """A valid request with the value at ``path`` replaced (or removed, for MISSING)."""
    request = valid_request()
    target = at(request, path[:-1])
    if value is MISSING:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return request


def problems_of(request) -> tuple[str, ...]:
    with pytest.raises(InvalidRequestError) as caught:
        build_context_packet(request)
    # validate_request, the public check (step 1 of the rules), reports the very same problems.
    with pytest.raises(InvalidRequestError) as again:
        validate_request(request)
    assert again.value.problems == caught.value.problems
    assert caught.value.problems, "an InvalidRequestError must carry at least one problem"
    return caught.value.problems


def assert_only_path(request, path: str) -> str:
    """Exactly one problem is reported, and it names ``path``; returns its message."""
    problems = problems_of(request)
    assert len(problems) == 1, problems
    assert problems[0].startswith(path + ": "), problems
    return problems[0][len(path) + 2 :]


def test_the_base_request_is_valid():
    assert validate_request(valid_request()) is None
    assert build_context_packet(valid_request())["state"] == "refresh_required"


# ---------------------------------------------------------------------------
# The request and the task anchor
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("value", [None, True, 0, 1.5, "request", [], [valid_request()]])
def test_request_must_be_an_object(value):
    assert "must be an object" in assert_only_path(value, "$")


@pytest.mark.parametrize("key", ["taskAnchor", "budgetUnits", "candidates"])
def test_top_level_key_missing(key):
    assert assert_only_path(mutate((key,), MISSING), f"$.{key}") == "required key is missing"


@pytest.mark.parametrize("value", [None, "goal", 1, [], True])
def test_task_anchor_not_an_object(value):
    assert_only_path(mutate(("taskAnchor",), value), "$.taskAnchor")


@pytest.mark.parametrize("key", ["goal", "stopCondition", "verificationTarget"])
def test_anchor_key_missing(key):
    message = assert_only_path(mutate(("taskAnchor", key), MISSING), f"$.taskAnchor.{key}")
    assert message == "required key is missing"


@pytest.mark.parametrize("key", ["goal", "stopCondition", "verificationTarget"])
@pytest.mark.parametrize("value", [None, 1, 0.5, True, [], {}, ["goal"]])
def test_anchor_key_not_a_string(key, value):
    assert_only_path(mutate(("taskAnchor", key), value), f"$.taskAnchor.{key}")


@pytest.mark.parametrize("key", ["goal", "stopCondition", "verificationTarget"])
@pytest.mark.parametrize("value", ["", " ", "\t\n", "\u3000"])
def test_anchor_key_blank(key, value):
    assert_only_path(mutate(("taskAnchor", key), value), f"$.taskAnchor.{key}")


# ---------------------------------------------------------------------------
# budgetUnits and candidates
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("value", [0, -1, -(10**30), True, False, 8.0, 1.5, "8", None, [], {}, 2**53, 10**30])
def test_budget_must_be_an_integer_greater_than_zero(value):
    assert_only_path(mutate(("budgetUnits",), value), "$.budgetUnits")


@pytest.mark.parametrize("value", [1, 2**53 - 1])
def test_budget_integers_greater_than_zero_are_valid(value):
    assert build_context_packet(mutate(("budgetUnits",), value))["packet"]["budgetUnits"] == value


@pytest.mark.parametrize("value", [None, {}, "candidates", 3, True, {"0": {}}])
def test_candidates_must_be_a_list(value):
    assert_only_path(mutate(("candidates",), value), "$.candidates")


def test_empty_candidates_is_valid():
    assert build_context_packet(mutate(("candidates",), []))["state"] == "ready"


@pytest.mark.parametrize("value", [None, 1, "evidence", [], True])
def test_candidate_must_be_an_object(value):
    assert "must be an object" in assert_only_path(mutate(("candidates", 1), value), "$.candidates[1]")


# ---------------------------------------------------------------------------
# Candidate keys
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("key", ["id", "kind", "relevance", "freshness", "sizeUnits", "content"])
def test_required_candidate_key_missing(key):
    request = mutate(("candidates", 0, key), MISSING)
    if key == "id":
        # The summary's conflict target disappears with the id; drop the declaration too.
        del request["candidates"][1]["conflictsWith"]
    message = assert_only_path(request, f"$.candidates[0].{key}")
    assert message == "required key is missing"


@pytest.mark.parametrize("value", [None, 1, True, [], {}, "", "  ", "\n"])
def test_id_must_be_a_non_blank_string(value):
    request = mutate(("candidates", 0, "id"), value)
    del request["candidates"][1]["conflictsWith"]
    assert_only_path(request, "$.candidates[0].id")


def test_id_must_be_unique():
    request = mutate(("candidates", 1, "id"), "evidence")
    del request["candidates"][1]["conflictsWith"]
    message = assert_only_path(request, "$.candidates[1].id")
    assert "$.candidates[0]" in message


def test_ids_differing_only_in_case_or_space_are_different():
    request = mutate(("candidates", 1, "id"), "Evidence")
    request["candidates"].append(dict(request["candidates"][0], id=" evidence"))
    assert validate_request(request) is None


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("kind", "Constraint"),
        ("kind", "summary"),
        ("kind", "direct_evidence"),
        ("kind", ""),
        ("kind", None),
        ("kind", 1),
        ("kind", ["constraint"]),
        ("relevance", "Current"),
        ("relevance", "past"),
        ("relevance", None),
        ("relevance", True),
        ("freshness", "stale"),
        ("freshness", "FRESH"),
        ("freshness", 0),
        ("freshness", {}),
    ],
)
def test_enums(key, value):
    request = mutate(("candidates", 0, key), value)
    message = assert_only_path(request, f"$.candidates[0].{key}")
    assert message.startswith("must be one of")


@pytest.mark.parametrize("value", [-1, -(10**20), 1.0, 2.5, True, False, "3", None, [], {}, 2**53])
def test_size_units_must_be_an_integer_at_least_zero(value):
    assert_only_path(mutate(("candidates", 0, "sizeUnits"), value), "$.candidates[0].sizeUnits")


@pytest.mark.parametrize("value", [0, 2**53 - 1])
def test_size_units_zero_and_huge_are_valid(value):
    assert validate_request(mutate(("candidates", 0, "sizeUnits"), value)) is None


@pytest.mark.parametrize("value", [None, 1, True, [], {}, ["text"]])
def test_content_must_be_a_string(value):
    assert_only_path(mutate(("candidates", 0, "content"), value), "$.candidates[0].content")


def test_empty_content_is_valid():
    assert validate_request(mutate(("candidates", 0, "content"), "")) is None


@pytest.mark.parametrize("value", [None, 1, True, [], {}, ["ref"]])
def test_reference_present_must_be_a_string(value):
    assert_only_path(mutate(("candidates", 1, "reference"), value), "$.candidates[1].reference")


@pytest.mark.parametrize("value", ["", "  "])
def test_blank_reference_is_valid(value):
    assert validate_request(mutate(("candidates", 1, "reference"), value)) is None


@pytest.mark.parametrize("key", ["source", "capturedAt"])
@pytest.mark.parametrize("value", [1, 0, True, False, 1.5, [], ["s"], {}, {"s": "t"}])
def test_provenance_present_must_be_a_string_or_null(key, value):
    assert_only_path(mutate(("candidates", 0, key), value), f"$.candidates[0].{key}")


@pytest.mark.parametrize("key", ["source", "capturedAt"])
@pytest.mark.parametrize("value", [MISSING, None, "", "   "])
def test_absent_null_or_blank_provenance_is_not_an_input_error(key, value):
    result = build_context_packet(mutate(("candidates", 0, key), value))
    assert result["state"] == "blocked"
    assert result["unknowns"] == [{"id": "evidence", "missing": [key]}]


# ---------------------------------------------------------------------------
# capturedAt: RFC 3339 full-date or date-time with a time zone
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value",
    [
        "2026-07-15",
        "2024-02-29",  # leap year
        "2000-02-29",  # divisible by 400
        "0001-01-01",
        "9999-12-31",
        "2026-07-15T09:30:00Z",
        "2026-07-15t09:30:00z",  # RFC 3339 allows lower case T and Z
        "2026-07-15T09:30:00.5Z",
        "2026-07-15T09:30:00.123456789+08:00",
        "2026-07-15T23:59:59-05:30",
        "2026-07-15T00:00:00+00:00",
        "2026-07-15T00:00:00-00:00",
        "2016-12-31T23:59:60Z",  # leap second
        "2026-07-15T09:30:00+23:59",
    ],
)
def test_rfc3339_timestamps_are_accepted(value):
    request = mutate(("candidates", 0, "capturedAt"), value)
    assert validate_request(request) is None
    assert build_context_packet(request)["packet"]["selected"][0]["capturedAt"] == value


@pytest.mark.parametrize(
    "value",
    [
        pytest.param("2026-02-30", id="february-30"),
        pytest.param("2025-02-29", id="not-a-leap-year"),
        pytest.param("1900-02-29", id="century-not-leap"),
        pytest.param("2026-04-31", id="april-31"),
        pytest.param("2026-13-01", id="month-13"),
        pytest.param("2026-00-10", id="month-0"),
        pytest.param("2026-07-00", id="day-0"),
        pytest.param("2026-07-32", id="day-32"),
        pytest.param("2026-02-30T09:30:00Z", id="date-time-on-february-30"),
        pytest.param("2026-07-15T09:30:00", id="no-time-zone"),
        pytest.param("2026-07-15T09:30:00.5", id="fraction-no-time-zone"),
        pytest.param("2026-07-15T09:30Z", id="no-seconds"),
        pytest.param("2026-07-15 09:30:00Z", id="space-separator"),
        pytest.param("2026-07-15T24:00:00Z", id="hour-24"),
        pytest.param("2026-07-15T09:60:00Z", id="minute-60"),
        pytest.param("2026-07-15T09:30:61Z", id="second-61"),
        pytest.param("2026-07-15T09:30:00+24:00", id="offset-hour-24"),
        pytest.param("2026-07-15T09:30:00+08:60", id="offset-minute-60"),
        pytest.param("2026-07-15T09:30:00+0800", id="offset-without-colon"),
        pytest.param("2026-07-15T09:30:00.Z", id="empty-fraction"),
        pytest.param("2026-7-15", id="one-digit-month"),
        pytest.param("26-07-15", id="two-digit-year"),
        pytest.param("20260715", id="basic-format"),
        pytest.param("2026-W29-3", id="iso-week-date"),
        pytest.param("15/07/2026", id="day-first"),
        pytest.param("yesterday", id="words"),
        pytest.param(" 2026-07-15", id="leading-space"),
        pytest.param("2026-07-15 ", id="trailing-space"),
        pytest.param("2026-07-15\n", id="trailing-newline"),
        pytest.param("２０２６-07-15", id="full-width-digits"),
        pytest.param("٢٠٢٦-07-15", id="arabic-indic-digits"),
        pytest.param("2026-07-15T09:30:00Z\n", id="date-time-trailing-newline"),
    ],
)
def test_malformed_or_impossible_timestamps_are_rejected(value):
    message = assert_only_path(mutate(("candidates", 0, "capturedAt"), value), "$.candidates[0].capturedAt")
    assert "RFC 3339" in message


# ---------------------------------------------------------------------------
# conflictsWith
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["constraint", "direct-evidence", "reference"])
def test_conflicts_only_on_history_summaries(kind):
    request = mutate(("candidates", 1, "kind"), kind)
    message = assert_only_path(request, "$.candidates[1].conflictsWith")
    assert "history-summary" in message


@pytest.mark.parametrize("value", ["summary", ["summary"], ["evidence", "summary"]])
def test_conflicts_cannot_name_the_candidate_itself(value):
    problems = problems_of(mutate(("candidates", 1, "conflictsWith"), value))
    assert len(problems) == 1, problems
    assert problems[0].startswith("$.candidates[1].conflictsWith")
    assert "itself" in problems[0]


@pytest.mark.parametrize(
    ("value", "path"),
    [
        ("nobody", "$.candidates[1].conflictsWith"),
        (["nobody"], "$.candidates[1].conflictsWith[0]"),
        (["evidence", "EVIDENCE"], "$.candidates[1].conflictsWith[1]"),
    ],
)
def test_conflicts_must_name_a_candidate_of_this_request(value, path):
    assert "not a candidate id" in assert_only_path(mutate(("candidates", 1, "conflictsWith"), value), path)


@pytest.mark.parametrize("value", [None, 1, True, {}, {"evidence": True}])
def test_conflicts_must_be_an_id_or_a_list(value):
    assert_only_path(mutate(("candidates", 1, "conflictsWith"), value), "$.candidates[1].conflictsWith")


@pytest.mark.parametrize("value", ["", "  "])
def test_conflicts_id_must_not_be_blank(value):
    assert_only_path(mutate(("candidates", 1, "conflictsWith"), value), "$.candidates[1].conflictsWith")


@pytest.mark.parametrize("item", [None, 1, [], {}, "", " "])
def test_conflicts_list_items_must_be_non_blank_ids(item):
    request = mutate(("candidates", 1, "conflictsWith"), ["evidence", item])
    assert_only_path(request, "$.candidates[1].conflictsWith[1]")


def test_conflicts_list_must_not_repeat_an_id():
    request = mutate(("candidates", 1, "conflictsWith"), ["evidence", "evidence"])
    assert "repeats" in assert_only_path(request, "$.candidates[1].conflictsWith[1]")


def test_conflicts_may_name_any_other_candidate():
    # Naming a candidate that is not fresh current direct evidence is valid; it just is no conflict.
    request = valid_request()
    request["candidates"].append(dict(request["candidates"][0], id="rule", kind="constraint"))
    request["candidates"][1]["conflictsWith"] = "rule"
    assert validate_request(request) is None


# ---------------------------------------------------------------------------
# Unknown and non-string keys, at every level
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "key", "expected"),
    [
        ((), "budget", "$.budget"),
        ((), "typo", "$.typo"),
        (("taskAnchor",), "goals", "$.taskAnchor.goals"),
        (("taskAnchor",), "note", "$.taskAnchor.note"),
        (("candidates", 0), "sizeUnit", "$.candidates[0].sizeUnit"),
        (("candidates", 1), "conflicts_with", "$.candidates[1].conflicts_with"),
        (("candidates", 1), "loadCondition", "$.candidates[1].loadCondition"),
        (("candidates", 0), "odd key", '$.candidates[0]["odd key"]'),
        (("candidates", 0), "", '$.candidates[0][""]'),
        (("candidates", 0), "内容", '$.candidates[0]["内容"]'),
    ],
)
def test_unknown_keys_are_reported_at_every_level(path, key, expected):
    request = valid_request()
    at(request, path)[key] = "surprise"
    assert "unknown key" in assert_only_path(request, expected)


def test_unknown_key_suggests_the_close_name():
    request = mutate(("candidates", 0, "sizeUnit"), 3)
    del request["candidates"][0]["sizeUnits"]
    problems = problems_of(request)
    assert problems == (
        "$.candidates[0].sizeUnit: unknown key; did you mean 'sizeUnits'?",
        "$.candidates[0].sizeUnits: required key is missing",
    )


@pytest.mark.parametrize("key", [1, None, True, 2.5, ("a",)])
@pytest.mark.parametrize(
    ("path", "expected"),
    [((), "$"), (("taskAnchor",), "$.taskAnchor"), (("candidates", 0), "$.candidates[0]")],
)
def test_non_string_keys_are_reported(path, expected, key):
    request = valid_request()
    at(request, path)[key] = "value"
    message = assert_only_path(request, expected)
    assert "not a string" in message


# ---------------------------------------------------------------------------
# Every problem at once, and how they read
# ---------------------------------------------------------------------------


def broken_request() -> Any:
    return {
        "taskAnchor": {"goal": " ", "stopCondition": 1},
        "budgetUnits": True,
        "candidates": [
            "not an object",
            {
                "id": "a",
                "kind": "summary",
                "source": 4,
                "capturedAt": "2026-02-30",
                "relevance": "current",
                "freshness": "fresh",
                "sizeUnits": -1,
                "content": "text",
            },
            {
                "id": "a",
                "kind": "history-summary",
                "relevance": "current",
                "freshness": "fresh",
                "sizeUnits": 1,
                "content": "",
                "conflictsWith": ["ghost"],
            },
        ],
        "extra": 1,
    }


def test_every_problem_is_reported_at_once_in_walk_order():
    problems = problems_of(broken_request())
    assert problems == (
        "$.extra: unknown key (allowed: taskAnchor, budgetUnits, candidates)",
        '$.taskAnchor.goal: must not be blank, got " " (string)',
        "$.taskAnchor.stopCondition: must be a non-blank string, got 1 (integer)",
        "$.taskAnchor.verificationTarget: required key is missing",
        "$.budgetUnits: must be an integer greater than 0, got true (boolean)",
        '$.candidates[0]: a candidate must be an object, got "not an object" (string)',
        "$.candidates[1].kind: must be one of constraint, direct-evidence, history-summary, reference; "
        'got "summary" (string)',
        "$.candidates[1].source: must be a string or null, got 4 (integer)",
        "$.candidates[1].capturedAt: has the RFC 3339 shape but is not a real calendar date or time "
        'of day, got "2026-02-30" (string)',
        "$.candidates[1].sizeUnits: must be an integer >= 0, got -1 (integer)",
        '$.candidates[2].id: repeats id "a" of $.candidates[1]',
        '$.candidates[2].conflictsWith[0]: names "ghost", which is not a candidate id of this request',
    )


def test_within_an_object_unknown_keys_come_before_the_contracts_keys():
    """Whatever the object's own key order: its unknown keys first, then the contract's keys in
    the contract's order (validation's module docstring)."""
    # The objects' own order puts the contract's keys first and the unknown key last.
    anchor = {"goal": "", "stopCondition": "s", "verificationTarget": "v", "gaol": "x"}
    candidate = {
        "id": " ",
        "kind": "bogus",
        "source": "s",
        "capturedAt": "2026-07-15",
        "relevance": "current",
        "freshness": "fresh",
        "sizeUnits": 1,
        "content": "c",
        "sizeUnit": 3,
    }
    request = {"taskAnchor": anchor, "budgetUnits": 8, "candidates": [candidate]}
    assert problems_of(request) == (
        "$.taskAnchor.gaol: unknown key (it resembles 'goal', which this object already has)",
        '$.taskAnchor.goal: must not be blank, got "" (string)',
        "$.candidates[0].sizeUnit: unknown key (it resembles 'sizeUnits', which this object already has)",
        '$.candidates[0].id: must not be blank, got " " (string)',
        '$.candidates[0].kind: must be one of constraint, direct-evidence, history-summary, reference; got "bogus" (string)',
    )


def test_every_problem_names_a_json_path():
    for problem in problems_of(broken_request()):
        assert problem.startswith("$"), problem
        path, _, message = problem.partition(": ")
        assert message, problem
        assert " " not in path, problem


def test_str_lists_every_problem():
    with pytest.raises(InvalidRequestError) as caught:
        build_context_packet(broken_request())
    error = caught.value
    lines = str(error).splitlines()
    assert lines[0] == f"invalid context packet request ({len(error.problems)} problems):"
    assert [line.strip() for line in lines[1:]] == list(error.problems)


def test_str_of_a_single_problem():
    error = InvalidRequestError(["$.budgetUnits: required key is missing"])
    assert (
        str(error) == "invalid context packet request (1 problem):\n  $.budgetUnits: required key is missing"
    )
    assert error.problems == ("$.budgetUnits: required key is missing",)


def test_invalid_request_error_is_a_value_error_with_a_tuple():
    with pytest.raises(ValueError, match="invalid context packet request") as caught:
        build_context_packet({})  # type: ignore[typeddict-item]  # the point of the test
    assert isinstance(caught.value, InvalidRequestError)
    assert isinstance(caught.value.problems, tuple)
    assert caught.value.problems == (
        "$.taskAnchor: required key is missing",
        "$.budgetUnits: required key is missing",
        "$.candidates: required key is missing",
    )


def test_validation_does_not_change_the_request():
    request = broken_request()
    before = copy.deepcopy(request)
    problems_of(request)
    assert request == before


def test_long_values_are_shortened_in_messages():
    problems = problems_of(mutate(("candidates", 0, "content"), ["x" * 10_000]))
    assert len(problems[0]) < 200
    assert problems[0].endswith("... (array)")


def test_a_conflict_that_names_a_look_alike_id_says_so():
    """ "café" written as e + U+0301 is not the id "café" written as é: ids are compared code
    point by code point (the field page says so), and the problem names the look-alike."""
    request = copy.deepcopy(demo_request())
    request["candidates"][0]["id"] = "caf\u00e9"
    request["candidates"][1]["kind"] = "history-summary"
    request["candidates"][1]["conflictsWith"] = ["cafe\u0301"]
    with pytest.raises(InvalidRequestError) as raised:
        validate_request(request)
    assert list(raised.value.problems) == [
        '$.candidates[1].conflictsWith[0]: names "cafe\u0301", which is not a candidate id of this request'
        " ($.candidates[0].id looks the same but is written with other code points:"
        " ids are compared code point by code point)"
    ]
    request["candidates"][0]["id"] = "cafe"
    with pytest.raises(InvalidRequestError) as raised:
        validate_request(request)
    assert list(raised.value.problems) == [
        '$.candidates[1].conflictsWith[0]: names "cafe\u0301", which is not a candidate id of this request'
    ]


@pytest.mark.parametrize(
    ("cid", "target", "hinted"),
    [
        ("K", "\u212a", True),  # KELVIN SIGN: its NFC form is the ASCII letter
        ("\u212a", "K", True),
        ("\u00e9" * 128, "e\u0301" * 128, True),  # a target of 256 characters: the bound
        ("\u00e9" * 128 + "a", "e\u0301" * 128 + "a", False),  # 257: no longer normalized
        ("a" * 256 + "\u00e9", "a" * 256 + "e\u0301", False),  # an id of 257, a target of 258
    ],
)
def test_the_look_alike_hint_covers_an_ascii_side_and_texts_up_to_the_bound(cid, target, hinted):
    """One side may be ASCII (NFC can turn a non-ASCII text into an ASCII one), and the bound is
    on length alone: the id field page says so."""
    request = copy.deepcopy(demo_request())
    request["candidates"][0]["id"] = cid
    request["candidates"][1]["kind"] = "history-summary"
    request["candidates"][1]["conflictsWith"] = target
    with pytest.raises(InvalidRequestError) as raised:
        validate_request(request)
    hint = " ($.candidates[0].id looks the same but is written with other code points: ids are compared code point by code point)"
    assert raised.value.problems[0].endswith(hint) is hinted
    assert raised.value.problems[0].startswith("$.candidates[1].conflictsWith: names ")


def problems_of_validation(request: Any) -> list[str]:
    """The problems of ``request``, validated once (a test that counts work counts one walk)."""
    with pytest.raises(InvalidRequestError) as raised:
        validate_request(request)
    return list(raised.value.problems)


def look_alike_request(ids: list[str], targets: list[str]) -> Any:
    """The demo request's two candidates followed by one with each of ``ids``; the second
    candidate, a history summary, declares ``targets``."""
    request = copy.deepcopy(demo_request())
    first = request["candidates"][0]
    request["candidates"] += [{**first, "id": cid} for cid in ids]
    request["candidates"][1]["kind"] = "history-summary"
    request["candidates"][1]["conflictsWith"] = targets
    return request


LOOK_ALIKE = (
    " looks the same but is written with other code points: ids are compared code point by code point"
)


def test_a_look_alike_of_the_candidates_own_id_says_it_is_its_own():
    """Following a hint that named the summary's own index led to "a candidate cannot conflict
    with itself": the hint says at once that the look-alike is this candidate's own id."""
    request = look_alike_request([], ["cafe\u0301"])
    request["candidates"][1]["id"] = "caf\u00e9"
    assert problems_of_validation(request) == [
        '$.candidates[1].conflictsWith[0]: names "cafe\u0301", which is not a candidate id of this request'
        " (this candidate's own id" + LOOK_ALIKE + ", and a candidate cannot conflict with itself)"
    ]


def test_the_look_alike_hint_names_another_candidate_before_the_own_id():
    """Three spellings of one text: the summary's own id comes first in the table, but the hint
    names the other candidate, which the summary can conflict with."""
    request = look_alike_request(["a\u0301\u0316"], ["\u00e1\u0316"])
    request["candidates"][1]["id"] = "a\u0316\u0301"
    assert problems_of_validation(request) == [
        '$.candidates[1].conflictsWith[0]: names "\u00e1\u0316", which is not a candidate id of this request'
        " ($.candidates[2].id" + LOOK_ALIKE + ")"
    ]


def test_the_look_alike_hint_does_not_normalize_an_id_already_in_nfc(monkeypatch):
    """An id in NFC form is its own form: 2,000 such ids (Chinese, accented) cost no
    normalization when one target is missing."""
    import unicodedata

    normalized: list[str] = []
    real = unicodedata.normalize
    monkeypatch.setattr(
        unicodedata, "normalize", lambda form, text: normalized.append(text) or real(form, text)
    )
    ids = [f"失败输出-{n}" for n in range(1000)] + [f"caf\u00e9-{n}" for n in range(1000)]
    request = look_alike_request(ids, ["ghost", "caf\u00e9-7"])
    assert problems_of_validation(request) == [
        '$.candidates[1].conflictsWith[0]: names "ghost", which is not a candidate id of this request'
    ]
    assert normalized == []


def test_the_look_alike_hint_normalizes_at_most_2_20_characters_of_ids(monkeypatch):
    """60,000 ids of 256 combining marks out of canonical order took 5.5 s to refuse (0.16 s to
    build when valid): the ids not in NFC form are normalized up to 2^20 characters in all, in
    input order, and an id past them gets no hint (the conflictsWith field page says so)."""
    import unicodedata

    normalized: list[int] = []
    real = unicodedata.normalize
    monkeypatch.setattr(
        unicodedata, "normalize", lambda form, text: normalized.append(len(text)) or real(form, text)
    )
    marks = "\u0316\u0301" * 128  # each pair out of canonical order: 230 before 220
    ids = [f"{n:05d}" + marks[5:] for n in range(5000)]  # 256 characters each, 1,280,000 in all
    assert not unicodedata.is_normalized("NFC", ids[0])
    within, past = 2**20 // 256 - 1, 2**20 // 256  # the last id normalized, the first one not
    targets = [real("NFC", ids[within]), real("NFC", ids[past])]
    request = look_alike_request(ids, targets)
    problems = problems_of_validation(request)
    assert problems[0].endswith(f"($.candidates[{within + 2}].id" + LOOK_ALIKE + ")")
    assert problems[1].endswith("which is not a candidate id of this request")
    assert sum(normalized) <= 2**20 + 2 * 256, sum(normalized)  # the ids, and the two targets


@pytest.mark.parametrize(("before", "hinted"), [(2**20 - 100, True), (2**20 - 99, False)])
def test_the_look_alike_id_must_end_within_the_budget(before: int, hinted: bool):
    """The id field page, in both editions: a candidate's id gets the look-alike hint when it
    *ends* within the first 2^20 characters of the ids that are not ASCII. One that starts before
    that mark and ends past it is left out of the table, as every id after it is."""
    fillers = [f"{n:05d}" + "\u00fc" * 251 for n in range(before // 256)]  # 256 characters each
    rest = before - 256 * len(fillers)
    fillers.append("99999" + "\u00fc" * (rest - 5))
    twin = "cafe\u0301" + "x" * 95  # 100 characters, not in NFC form
    request = look_alike_request([*fillers, twin], ["caf\u00e9" + "x" * 95])
    assert sum(len(cid) for cid in fillers) == before
    [problem] = problems_of_validation(request)
    if hinted:
        assert problem.endswith(f"($.candidates[{2 + len(fillers)}].id" + LOOK_ALIKE + ")"), problem
    else:
        assert problem.endswith("which is not a candidate id of this request"), problem


def test_the_look_alike_hint_counts_ids_in_nfc_form_against_its_budget(monkeypatch):
    """``unicodedata.is_normalized`` normalizes in full when its quick check cannot tell (a
    combining mark after a digit), and it ran on every id in NFC form uncounted: 60,000 such
    ids took 1.0 s to refuse, against 0.1 s to build. Every id that is not ASCII counts its
    characters against the 2^20 budget before it is checked."""
    import unicodedata

    read: list[int] = []
    check, normalize = unicodedata.is_normalized, unicodedata.normalize
    monkeypatch.setattr(
        unicodedata, "is_normalized", lambda form, text: read.append(len(text)) or check(form, text)
    )
    monkeypatch.setattr(
        unicodedata, "normalize", lambda form, text: read.append(len(text)) or normalize(form, text)
    )
    ids = [f"{n:05d}0" + "\u0301" * 250 for n in range(5000)]  # 256 characters each, 1,280,000 in all
    assert check("NFC", ids[0])
    request = look_alike_request(ids, ["ghost"])
    assert problems_of_validation(request) == [
        '$.candidates[1].conflictsWith[0]: names "ghost", which is not a candidate id of this request'
    ]
    assert sum(read) <= 2**20, sum(read)


def past_the_budget() -> tuple[list[str], str]:
    """Ids not in NFC form that spend the whole budget (4,096 of 256 characters), then
    another spelling of the summary's own id, "a\u0316\u0301"."""
    marks = "\u0316\u0301" * 128
    return [f"{n:05d}" + marks[5:] for n in range(2**20 // 256)] + ["a\u0301\u0316"], "a\u0316\u0301"


def too_long() -> tuple[list[str], str]:
    """A Hangul id written as 258 jamo, whose NFC form is the summary's own 86 syllables."""
    return ["\u1100\u1161\u11a8" * 86], "\uac01" * 86


@pytest.mark.parametrize(
    ("make", "target"),
    [
        pytest.param(past_the_budget, "\u00e1\u0316", id="past-the-budget"),
        pytest.param(too_long, "\uac00\u11a8" * 86, id="too-long"),
    ],
)
def test_the_own_id_wording_only_when_no_other_id_was_left_out(make, target):
    """Another candidate that looks the same as the target was left out of the hint's table (it
    was past the budget, or longer than 256 characters), and the hint said the summary's own id
    was the look-alike, and that a candidate cannot conflict with itself. The own-id wording
    is given only when every id is in the table; otherwise the problem has no hint."""
    ids, own = make()
    request = look_alike_request(ids, [target])
    request["candidates"][1]["id"] = own
    problems = problems_of_validation(request)
    assert len(problems) == 1 and problems[0].startswith("$.candidates[1].conflictsWith[0]: names "), problems
    assert problems[0].endswith("which is not a candidate id of this request"), problems


def test_the_look_alike_hint_never_normalizes_a_long_id(monkeypatch):
    """NFC sorts a run of combining marks with an insertion sort: a 157 KB id took 12 s to
    validate once the hint normalized every id. Ids longer than 256 characters get no hint."""
    import unicodedata

    normalized: list[int] = []
    real = unicodedata.normalize
    # validation.py calls unicodedata.normalize through the module: patched there for it.
    monkeypatch.setattr(
        unicodedata,
        "normalize",
        lambda form, text: normalized.append(len(text)) or real(form, text),
    )
    marks = "a" + "\u0301" * 20_000 + "\u0316" * 20_000
    request = copy.deepcopy(demo_request())
    request["candidates"][0]["id"] = marks
    request["candidates"][1]["kind"] = "history-summary"
    request["candidates"][1]["conflictsWith"] = [marks + "x", "caf\u00e9"]
    with pytest.raises(InvalidRequestError) as raised:
        validate_request(request)
    assert normalized and max(normalized) <= 256, normalized  # the short target still looked up
    assert raised.value.problems[0].endswith("which is not a candidate id of this request")


@pytest.mark.parametrize(
    ("targets", "path"),
    [
        pytest.param("large-ci-log", "$.candidates[1].conflictsWith", id="one-id"),
        pytest.param(["failure-output", "large-ci-log"], "$.candidates[1].conflictsWith[1]", id="a-list"),
    ],
)
def test_a_candidate_that_conflicts_with_itself_is_named_at_its_target(targets, path):
    """The path of the target: the key itself when it holds one id, its item in a list (a mutant
    that always wrote the item's index, ``conflictsWith[0]`` for one id, passed)."""
    request = look_alike_request([], [])
    request["candidates"][1]["conflictsWith"] = targets
    assert problems_of_validation(request) == [f"{path}: a candidate cannot conflict with itself"]
