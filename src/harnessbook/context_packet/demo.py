"""The chapter's demo request: the packet the book builds first."""

from __future__ import annotations

from harnessbook.context_packet.request import ContextPacketRequest

__all__ = ["demo_request"]


def demo_request() -> ContextPacketRequest:
    """The chapter's demo request: a failing assertion and a CI log too large for the budget.

    Building it gives ``ready`` / ``assembled`` with ``failure-output`` selected, ``large-ci-log``
    as a pointer and 3 of 8 units used. A fresh dict each call, so callers may change it.
    """
    return {
        "taskAnchor": {
            "goal": "定位单一测试失败",
            "stopCondition": "缺少可追溯的直接证据时停止",
            "verificationTarget": "注入的测试名称",
        },
        "budgetUnits": 8,
        "candidates": [
            {
                "id": "failure-output",
                "kind": "direct-evidence",
                "source": "injected:test-output",
                "capturedAt": "2026-07-15",
                "relevance": "current",
                "freshness": "fresh",
                "sizeUnits": 3,
                "content": "断言失败摘要",
            },
            {
                "id": "large-ci-log",
                "kind": "direct-evidence",
                "source": "injected:ci-log",
                "capturedAt": "2026-07-15",
                "relevance": "background",
                "freshness": "fresh",
                "sizeUnits": 40,
                "content": "完整 CI 日志（很长）",
                "reference": "artifact://ci/large-ci-log.txt",
            },
        ],
    }
