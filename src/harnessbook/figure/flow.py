"""The rules-flow figure: [`render_rules_flow`][harnessbook.figure.render_rules_flow]."""

from __future__ import annotations

from typing import Any

from harnessbook.context_packet import RULES
from harnessbook.figure._svg import (
    LIGHT_COLOURS,
    PAD,
    WIDTH,
    Lang,
    _num,
    _root,
    _Svg,
    _words,
)

_FLOW: dict[str, dict[str, Any]] = {
    "zh": {
        "title": "确定性规则的顺序",
        "desc": (
            "规则按这个顺序应用：先校验请求，不合约定就抛出 InvalidRequestError；再过出处闸门，有候选缺出处就得到 blocked；"
            "然后按层级排序，对每个候选依次尝试过期、冲突、预算适配、指针、超预算，第一条适用的规则决定它的去向；"
            "最后有待刷新的条目就是 refresh_required，否则是 ready。"
        ),
        "steps": [
            ("1 校验", "validate_request", ["不合约定：", "InvalidRequestError"]),
            ("2 出处闸门", "provenance_gate", ["有候选缺出处：", "blocked"]),
        ],
        "order": (
            "3 处理顺序（同层保持输入顺序）",
            "constraint 和 direct-evidence",
            "→ history-summary → reference",
        ),
        "each": "4 对每个候选：第一条适用的规则决定它",
        # The rule column is wider than the English one: a condition is one line, and Chinese
        # characters are all a full em (the conflict's is 12 of them, 144 units at size 12).
        "rule_width": 160,
        "rules": {
            "expiry": ("已过期", ["excluded", "若为当前直接证据，", "另加 refresh"]),
            "conflict": ("与新鲜的当前直接证据冲突", ["excluded + refresh"]),
            "budget_fit": ("放得进剩余预算", ["selected"]),
            "pointer": ("有非空白 reference", ["pointer"]),
            "over_budget": ("以上都不适用", ["excluded"]),
        },
        "next": "下一个候选",
        "state": "5 状态",
        "state_lines": ["refresh 不为空：refresh_required / refresh_context", "否则：ready / assembled"],
    },
    "en": {
        "title": "The order of the deterministic rules",
        "desc": (
            "The rules apply in this order: validate the request, and raise InvalidRequestError if it breaks the "
            "contract; pass the provenance gate, and stop as blocked if a candidate lacks provenance; sort by tier, "
            "then for each candidate try expiry, conflict, budget fit, pointer and over budget, and the first rule "
            "that applies decides it; finally the state is refresh_required if anything needs refreshing, else ready."
        ),
        "steps": [
            ("1 Validate", "validate_request", ["breaks the contract:", "InvalidRequestError"]),
            ("2 Provenance gate", "provenance_gate", ["provenance missing:", "blocked"]),
        ],
        "order": (
            "3 Processing order (input order within a tier)",
            "constraint, direct-evidence",
            "→ history-summary → reference",
        ),
        "each": "4 Each candidate: the first rule that applies",
        "rule_width": 136,
        "rules": {
            "expiry": ("expired", ["excluded", "+ refresh if it is current", "direct evidence"]),
            "conflict": (
                "contradicts evidence",
                ["excluded + refresh", "if that evidence is fresh,", "current and direct"],
            ),
            "budget_fit": ("fits what is left", ["selected"]),
            "pointer": ("non-blank reference", ["pointer"]),
            "over_budget": ("none of the above", ["excluded"]),
        },
        "next": "next candidate",
        "state": "5 State",
        "state_lines": [
            "refresh not empty: refresh_required / refresh_context",
            "otherwise: ready / assembled",
        ],
    },
}

_OUTCOME_CLASS = {
    "expiry": ("rf", "rft"),
    "conflict": ("rf", "rft"),
    "budget_fit": ("ok", "okt"),
    "pointer": ("s1", "fg"),
    "over_budget": ("bk", "bkt"),
}


def render_rules_flow(lang: Lang = "zh") -> str:
    """The order in which ``build_context_packet`` applies its rules, as an SVG flow figure.

    Validate; the provenance gate; tier order; for each candidate the first rule that applies
    (in the order of [`RULES`][harnessbook.context_packet.RULES]) and what it decides; the state.
    Accessible like [`render_svg`][harnessbook.figure.render_svg]'s figures, in ``lang``.

    Args:
        lang: ``"zh"`` or ``"en"``: the language of the figure's words.

    Returns:
        The figure, a self-contained SVG document as text.

    Raises:
        ValueError: If ``lang`` is unknown.
    """
    _words(lang)
    flow = _FLOW[lang]
    svg = _Svg()
    full = WIDTH - 2 * PAD
    y = 8.0

    def arrow(x0: float, y0: float, x1: float, y1: float) -> None:
        """A line from (x0, y0) to (x1, y1), vertical or horizontal, with its head at the end."""
        dx, dy = (x1 > x0) - (x1 < x0), (y1 > y0) - (y1 < y0)
        svg.line(x0, y0, x1 - 5 * dx, y1 - 5 * dy, "line")
        bx, by = x1 - 6 * dx, y1 - 6 * dy
        svg.lines.append(
            f'<path class="k-fg" d="M{_num(bx - 4 * dy)} {_num(by - 4 * dx)}L{_num(bx + 4 * dy)} {_num(by + 4 * dx)}'
            f'L{_num(x1)} {_num(y1)}Z" fill="{LIGHT_COLOURS["fg"]}"/>'
        )

    def box(x: float, top: float, w: float, h: float, fill: str, rx: float = 4) -> None:
        svg.rect(x, top, w, h, fill, rx=rx)
        svg.frame(x, top, w, h, rx=rx)

    left_w, gap = 164, 16
    right_x = PAD + left_w + gap
    right_w = WIDTH - PAD - right_x
    centre = PAD + left_w / 2
    for name, code, outcome in flow["steps"]:
        box(PAD, y, left_w, 40, "s2")
        svg.text(PAD + 8, y + 17, name, bold=True)
        svg.text(PAD + 8, y + 33, code, size=12, mono=True)
        svg.rect(right_x, y + 2, right_w, 36, "bk", rx=4)
        svg.text(right_x + 6, y + 17, outcome[0], cls="bkt", size=12)
        svg.text(right_x + 6, y + 32, outcome[1], cls="bkt", size=12, bold=True)
        arrow(PAD + left_w, y + 20, right_x, y + 20)
        arrow(centre, y + 40, centre, y + 56)
        y += 56

    heading, first, second = flow["order"]
    box(PAD, y, full, 58, "s2")
    svg.text(PAD + 8, y + 17, heading, bold=True)
    svg.text(PAD + 8, y + 34, first, size=12)
    svg.text(PAD + 8, y + 50, second, size=12)
    arrow(centre, y + 58, centre, y + 74)
    y += 74

    # Step 4: one row per rule, in the order of RULES (the provenance gate was step 2).
    top = y
    svg.text(PAD + 8, y + 17, flow["each"], bold=True)
    y += 26
    rule_x, rule_w = PAD + 8, flow["rule_width"]
    out_x = rule_x + rule_w + 16
    out_w = WIDTH - PAD - 8 - out_x
    for rule in (rule for rule in RULES if rule != "provenance_gate"):
        condition, outcome = flow["rules"][rule]
        h = max(36, 8 + 15 * len(outcome))
        box(rule_x, y, rule_w, 36, "bg", rx=3)
        svg.text(rule_x + 6, y + 15, rule, size=12, mono=True, bold=True)
        svg.text(rule_x + 6, y + 30, condition, size=12, cls="muted")
        fill, ink = _OUTCOME_CLASS[rule]
        svg.rect(out_x, y, out_w, h, fill, rx=3)
        first_line = y + (h - 15 * len(outcome)) / 2 + 11.5
        for index, line in enumerate(outcome):
            svg.text(out_x + 6, first_line + 15 * index, line, cls=ink, size=12, bold=index == 0)
        arrow(rule_x + rule_w, y + 18, out_x, y + 18)
        y += h + 8
    svg.text(rule_x, y + 8, "↻ " + flow["next"], size=12, cls="muted")
    y += 16
    svg.frame(PAD, top, full, y - top, rx=4)
    arrow(centre, y, centre, y + 16)
    y += 16

    box(PAD, y, full, 58, "s2")
    svg.text(PAD + 8, y + 17, flow["state"], bold=True)
    svg.text(PAD + 8, y + 34, flow["state_lines"][0], size=12)
    svg.text(PAD + 8, y + 50, flow["state_lines"][1], size=12)
    y += 66
    return _root(y, lang, flow["title"], flow["desc"], svg.lines, kind="flow")
