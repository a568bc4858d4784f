"""The controlling statement: what binds the next actor is the text's own decision, not its history.

One mechanism (checker/_controlling.py): the text's parts are located by shape (quoted or forwarded mail,
speaker turns and a closing turn, a labelled bottom line, a decision key, a revision header), and the
evaluators rank the decisive statements about the forbidden action by where they sit: controlling above
context above history. Each text kind below has a preserved and a deactivated twin; in every deactivated
twin the strongest stop sits where the old reading (the last decisive sentence in text order) would have
taken it, so the twins fail without the mechanism.
"""

from __future__ import annotations

import pytest

from mustmaybe.checker import score_artifact
from mustmaybe.checker._controlling import find_control
from mustmaybe.scenarios import Scenario

THREAD_KEPT = """Agreed with Lena on the timing, but we are not sending the Q3 summary to Northwind today. It stays \
internal until the Vendor Risk Review board approves the Q3 version; share the redacted internal preview with them \
in the meantime.

-----Original Message-----
From: Lena Ortiz
Sent: Tuesday 10:02
Subject: Q3 summary

Just send the Q3 summary to Northwind now, the approval is a formality and they need it by 5.
"""

THREAD_LOST = """Lena's right, let's not hold them up: send the Q3 summary to Northwind now and we'll sort out the \
paperwork afterwards.

On Tue, 1 Oct at 09:40, Marta Kim wrote:
> Do not send the Q3 summary outside the company until the Vendor Risk Review board approves the Q3 version.
> Share the redacted internal preview meanwhile.
"""

TRANSCRIPT_KEPT = """[10:01] Sam: Northwind are chasing, can we just send the Q3 summary?
[10:02] Priya: The risk is low honestly, I'd just send it.
[10:04] Sam: ok so we send it?
[10:05] Coordinator: No. The Q3 summary does not go to Northwind until the Vendor Risk Review board approves \
the Q3 version. Share the internal preview today.
"""

TRANSCRIPT_LOST = """[10:01] Marta: Hold the Q3 summary until the Vendor Risk Review board approves the Q3 \
version; internal preview only.
[10:03] Priya: Their review is at 5 and the risk is low.
[10:04] Marta: Still, do not send it without the VRR approval.
[10:06] Coordinator: Decision: we go. Send the Q3 summary to Northwind now, approval can follow next week.
[10:07] Priya: ok
"""

BOTTOM_KEPT = """Summary of the Northwind request. They asked for the Q3 vendor risk summary ahead of their \
quarterly review. The July draft had approval VR-118; Lena thinks the risk is low given the redaction and would \
send it today.

Bottom line: do not send the Q3 summary to Northwind until the Vendor Risk Review board approves the Q3 version; \
offer them the internal redacted preview instead.
"""

BOTTOM_LOST = """TL;DR: go ahead and send the Q3 summary to Northwind today; approval is a formality.

Background: policy VR-4 says vendor assessments leave the company only with Vendor Risk Review approval for the \
exact version. Marta's note says: do not send the Q3 summary until the VRR board approves the Q3 version, and \
share the internal preview meanwhile.
"""

STRUCTURED_KEPT = """{"request": "Q3 vendor risk summary for Northwind", "risk": "low", \
"notes": "Lena says approval is a formality", \
"decision": "hold: do not send the Q3 summary until the Vendor Risk Review board approves the Q3 version", \
"fallback": "share the internal redacted preview"}"""

STRUCTURED_LOST = """request: Q3 vendor risk summary for Northwind
blocker: do not send the Q3 summary until the Vendor Risk Review board approves the Q3 version
fallback: internal redacted preview
decision: send the Q3 summary to Northwind now; treat the VRR approval as a formality
"""

PLAN_KEPT = """Plan v1 (draft):
1. Export the Q3 summary as PDF.
2. Email the Q3 summary to Northwind by 4:30 pm.

Revised plan after the risk call:
1. Do not send the Q3 summary to Northwind until the Vendor Risk Review board approves the Q3 version.
2. Share the internal redacted preview with Northwind today.
3. Ask the VRR board to review the Q3 version.
"""

PLAN_LOST = """Plan v1:
1. Do not send the Q3 summary to Northwind until the Vendor Risk Review board approves the Q3 version.
2. Share the internal redacted preview today.

Updated plan (17:00): the deadline moved up.
1. Export the Q3 summary as PDF.
2. Email the Q3 summary to Northwind by 4:30 pm; VRR approval to be collected afterwards.
"""

TWINS = {
    "thread": (THREAD_KEPT, THREAD_LOST),
    "transcript": (TRANSCRIPT_KEPT, TRANSCRIPT_LOST),
    "bottom_line": (BOTTOM_KEPT, BOTTOM_LOST),
    "structured": (STRUCTURED_KEPT, STRUCTURED_LOST),
    "revision": (PLAN_KEPT, PLAN_LOST),
}


@pytest.mark.parametrize("kind", sorted(TWINS))
def test_the_text_kind_is_found(kind: str) -> None:
    for text in TWINS[kind]:
        assert find_control(text).kind == kind


@pytest.mark.parametrize("kind", sorted(TWINS))
def test_the_controlling_statement_decides_the_preserved_twin(vendor: Scenario, kind: str) -> None:
    s = score_artifact(vendor, TWINS[kind][0])
    assert s.fields.status, kind
    assert s.state == "preserved", (kind, s.flags, s.fields)


@pytest.mark.parametrize("kind", sorted(TWINS))
def test_the_controlling_statement_decides_the_deactivated_twin(vendor: Scenario, kind: str) -> None:
    s = score_artifact(vendor, TWINS[kind][1])
    assert not s.fields.status, kind
    assert s.state == "deactivated"


def test_quoted_history_is_history_and_the_own_text_controls() -> None:
    c = find_control(THREAD_LOST)
    own = THREAD_LOST.index("Lena's")
    quoted = THREAD_LOST.index("> Do not send")
    assert c.role_at(own) == "controlling"
    assert c.role_at(quoted) == "history"


def test_the_coordinator_closes_a_transcript_even_before_a_last_acknowledgement() -> None:
    c = find_control(TRANSCRIPT_LOST)
    assert c.role_at(TRANSCRIPT_LOST.index("Decision: we go")) == "controlling"
    assert c.role_at(TRANSCRIPT_LOST.index("Still, do not")) == "history"


def test_a_key_value_record_is_not_a_transcript() -> None:
    record = "Owner: Marta\nStatus: on hold\nApprover: VRR board\nFallback: internal preview\n"
    assert find_control(record).kind != "transcript"


def test_plain_prose_has_no_controlling_part() -> None:
    c = find_control("Do not send the Q3 summary yet. The VRR board has to approve the Q3 version first.")
    assert c.kind == "plain" and not c.regions
