"""Canned model replies shared by the team tests (a reviewer statement in the four-field form)."""

REVIEW = (
    "Status: Do not send the Q3 summary outside the company; sharing is blocked.\n"
    "Prerequisite: Vendor Risk Review approval for the Q3 version\n"
    "Authority: Vendor Risk Review board\n"
    "Fallback: share only the internal redacted preview\n"
    "Recommended action: share_internal_preview"
)
