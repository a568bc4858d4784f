"""The vocabulary's word classes: stopwords, generic words and synonym classes.

Nothing here names a task. The classes let a paraphrase that shares no surface word with the task
still match it ("the <X> board signed off" for "<X> Committee approval"):
every word of a class maps to one concept token, compared after light stemming.
"""

from __future__ import annotations

from functools import lru_cache

STOPWORDS: frozenset[str] = frozenset(
    """
    a an the and or nor of to for in on at by with from into onto about as per via than then
    this that these those it its it's is are was were be been being am do does did done doing
    have has had having will would shall should can could may might must
    i me my we us our you your he him his she her they them their who whom whose which what
    there here where when while if so not no yes any all some each every both either neither
    only just also still yet already now very too more most less least much many such same other
    up out over under again once please kindly let lets get got getting one ones own
    without anything everything nothing something off on back including include includes none
    """.split()
)

# Words too common to identify a field on their own (they never count toward an overlap match).
GENERIC: frozenset[str] = frozenset(
    """
    version copy item thing things time today tomorrow current new existing exact specific full whole
    entire company request process step status case matter work task job use using used make made
    need needs needed required require requires requirement before after until first next last week
    day days month quarter year date deadline pm am hour hours minute minutes end soon ok okay go
    wait waiting hold pending confirm check ensure sure keep take give put set send share
    data information info access tonight morning evening afternoon weekend monday tuesday wednesday
    thursday friday saturday sunday
    """.split()
)

# Synonym classes: concept token -> surface words (single words; stemmed at import).
CLASSES: dict[str, tuple[str, ...]] = {
    "APPROVAL": (
        "approval", "approve", "approved", "approves", "approving", "approvals", "signoff", "signoffs",
        "signedoff", "authorization", "authorisation", "authorize", "authorise", "authorized", "authorised",
        "clearance", "consent", "consents", "consented", "permission", "permissions", "goahead",
        "greenlight", "greenlit", "endorsement", "endorse", "endorsed", "ratification", "ratify",
        "ratified", "blessing", "sanctioned", "okd", "signature", "signatures", "countersign", "countersigned",
        "sign", "signs", "signed", "signing", "unsigned",
    ),
    "REVIEW": ("review", "reviews", "reviewed", "reviewing", "assessment", "vetting", "vetted", "evaluation"),
    "ORG": (
        "board", "committee", "panel", "council", "commission", "forum", "team", "group", "office",
        "desk", "department", "dept", "unit", "function", "org", "organization", "organisation",
    ),
    "MANAGER": (
        "lead", "leads", "manager", "managers", "head", "director", "chief", "supervisor", "vp", "chair",
        "chairperson", "chairman", "chairwoman", "boss", "exec", "executive",
    ),
    "OFFICER": ("officer", "officers"),
    "OWNER": ("owner", "owners", "steward", "custodian"),
    "ADMIN": ("admin", "admins", "administrator", "administrators"),
    "APPROVER": ("approver", "approvers", "signatory", "signatories", "cosigner", "cosigners", "signers"),
    "OPS": ("ops", "operations", "operation"),
    "VERIFY": (
        "verify", "verified", "verifies", "verifying", "verification", "verif", "unverified", "validate",
        "validated", "validation",
    ),
    "DISABLE": ("disable", "disabled", "disabling", "deactivate", "deactivated", "turnoff", "switchoff", "shutoff"),
    "IDENTITY": ("identity", "identities", "id", "identification"),
    "LEGAL": ("legal", "counsel", "lawyer", "lawyers", "attorney", "attorneys"),
    "PRIVACY": ("privacy", "dataprotection", "gdpr"),
    "SECURITY": ("security", "infosec", "secops", "cybersecurity"),
    "CUSTOMER": ("customer", "customers", "client", "clients"),
    "SEND": (
        "send", "sends", "sent", "sending", "share", "shares", "shared", "sharing", "email", "emailed",
        "emailing", "forward", "forwarded", "forwarding", "transmit", "transmitted", "deliver",
        "delivered", "delivery", "distribute", "distributed", "distribution", "disclose", "disclosed",
        "disclosure", "circulate", "circulated", "goout", "handover", "upload", "uploaded", "transfer",
        "transferred", "post", "posted", "publish", "published",
    ),
    "EXPORT": ("export", "exported", "exporting", "download", "downloaded", "extract", "extracted", "dump"),
    "DELETE": (
        "delete", "deleted", "deleting", "deletion", "remove", "removed", "removal", "purge", "purged",
        "erase", "erased", "wipe", "wiped", "truncate", "truncated", "destroy", "destroyed",
    ),
    "CHANGE": (
        "change", "changed", "changing", "modify", "modified", "modification", "edit", "edited",
        "alter", "altered", "alteration", "amend", "amended", "amendment", "rewrite", "rewritten",
        "patch", "patched", "adjust", "adjusted",
    ),
    "GRANT": (
        "grant", "granted", "granting", "provision", "provisioned", "extend", "extended", "enable", "assign",
        "assigned", "hand", "handed",
    ),
    "EXTERNAL": ("external", "externally", "outside", "thirdparty", "outbound"),
    "INTERNAL": ("internal", "internally", "inhouse"),
    "REDACT": (
        "redact", "redacted", "redaction", "sanitize", "sanitized", "sanitise", "sanitised", "mask",
        "masked", "masking", "anonymize", "anonymized", "anonymise", "anonymised", "deidentified",
        "pseudonymized", "pseudonymised", "scrub", "scrubbed", "blinded",
    ),
    "AGGREGATE": (
        "aggregate", "aggregated", "aggregates", "aggregation", "pooled", "combined", "totals", "banded",
        "consolidated", "rollup", "blended", "summarised", "summarized",
    ),
    "FIGURES": ("figures", "tables", "table", "stats", "statistics", "counts", "outputs", "metrics"),
    "DOCUMENT": ("document", "documents", "doc", "docs", "report", "reports", "writeup"),
    "EXCEPTION": ("exception", "exceptions", "waiver", "waivers", "exemption", "exemptions", "carveout"),
    "POLICY": ("policy", "policies", "rule", "rules"),
    "REQUEST": ("request", "requested", "requesting", "ask", "asked", "asking", "seek", "seeking"),
    "ESCALATE": ("escalate", "escalated", "escalation", "refer", "referred", "route", "routed"),
    "NOTIFY": ("notify", "notified", "inform", "informed", "tell", "alert", "alerted"),
    "PROCEED": (
        "proceed", "proceeding", "continue", "execute", "executed", "run", "ship", "shipped", "push",
        "pushed", "release", "released", "launch", "launched", "moveforward",
    ),
}

# Multi-word expressions rewritten to one word before tokenizing (normalized text, spaces around).
PHRASES: tuple[tuple[str, str], ...] = (
    ("sign off", "signoff"),
    ("signed off", "signedoff"),
    ("signs off", "signoff"),
    ("signing off", "signoff"),
    ("green light", "greenlight"),
    ("green lit", "greenlit"),
    ("okayed", "okd"),
    ("data protection", "dataprotection"),
    ("third party", "thirdparty"),
    ("third parties", "thirdparty"),
    ("in house", "inhouse"),
    ("e mail", "email"),
    ("go out", "goout"),
    ("goes out", "goout"),
    ("going out", "goout"),
    ("went out", "goout"),
    ("hand over", "handover"),
    ("carve out", "carveout"),
    ("information security", "infosec"),
    ("de identified", "deidentified"),
    ("move forward", "moveforward"),
    ("turn off", "turnoff"),
    ("turned off", "turnoff"),
    ("turning off", "turnoff"),
    ("switch off", "switchoff"),
    ("switched off", "switchoff"),
    ("switching off", "switchoff"),
    ("shut off", "shutoff"),
    ("shut down", "shutoff"),
    ("moving forward", "moveforward"),
    ("counter sign", "countersign"),
    ("heads up", "headsup"),
    ("roll up", "rollup"),
    ("rolled up", "rollup"),
)

# Low-risk framing: blanked before field matching so "low risk" never counts as naming a
# "Risk" board, and kept as a caveat cue.
LOW_RISK_PHRASES: tuple[str, ...] = (
    "low risk", "risk is low", "risk is minimal", "minimal risk", "little risk", "no risk", "risk free",
    "negligible risk", "risk is negligible", "lower risk", "limited risk", "risk is limited", "no real risk",
    "risk is small", "small risk", "risk low",
)

# Class heads that name who resolves a field rather than what it is.
HEAD_CLASSES: frozenset[str] = frozenset({"ORG", "MANAGER", "OFFICER", "OWNER", "ADMIN", "APPROVER"})
# Verb classes that name an action (what is done), used to split action verbs from objects.
VERB_CLASSES: frozenset[str] = frozenset(
    {"SEND", "EXPORT", "DELETE", "CHANGE", "GRANT", "REQUEST", "ESCALATE", "NOTIFY", "PROCEED", "REDACT", "DISABLE"}
)

# Irregular forms the suffix stripper does not reach.
IRREGULAR: dict[str, str] = {
    "sent": "send", "gave": "give", "given": "give", "took": "take", "taken": "take", "made": "make",
    "went": "go", "gone": "go", "done": "do", "did": "do", "had": "have", "has": "have", "ran": "run",
    "held": "hold", "kept": "keep", "told": "tell", "sold": "sell", "wrote": "write", "written": "write",
    "data": "data", "media": "media", "criteria": "criteria", "analyses": "analysis", "writing": "write",
    "wrote_": "write", "ack": "acknowledg", "acks": "acknowledg", "approx": "approximately",
}

_SUFFIXES: tuple[str, ...] = (
    "ations", "ation", "ements", "ement", "ments", "ment", "ions", "ion", "ings", "ing", "ers", "er",
    "ies", "ied", "ed", "es", "als", "al", "s", "e",
)


def stem(word: str) -> str:
    """A light suffix stripper: enough to unify approve/approved/approval, share/sharing/shared.

    Args:
        word: One lowercase token.

    Returns:
        The stem (the word itself when it is short or has no known suffix).
    """
    if word in IRREGULAR:
        return IRREGULAR[word]
    if len(word) <= 3 or word.isdigit():
        return word
    for suf in _SUFFIXES:
        if word.endswith(suf) and len(word) - len(suf) >= 3:
            base = word[: -len(suf)]
            if suf in ("ies", "ied"):
                base += "y"
            if len(base) > 3 and base[-1] == base[-2] and base[-1] not in "ls":
                base = base[:-1]  # committed -> commit, shipped -> ship
            return base
    return word


def _build_class_maps() -> tuple[dict[str, str], dict[str, str]]:
    surface: dict[str, str] = {}
    stems: dict[str, str] = {}
    for cls, words in CLASSES.items():
        for w in words:
            surface[w] = cls
            stems.setdefault(stem(w), cls)
    return surface, stems


# Every class word, and every class word's stem, mapped to its class.
SURFACE_CLASS, STEM_CLASS = _build_class_maps()


@lru_cache(maxsize=65536)
def concept(word: str) -> str:
    """The concept token for one lowercase word: its synonym class, else its stem."""
    cls = SURFACE_CLASS.get(word)
    if cls is not None:
        return cls
    s = stem(word)
    return STEM_CLASS.get(s, s)


# The concept tokens of the generic words and the stopwords: never evidence of a field on their own.
GENERIC_CONCEPTS: frozenset[str] = frozenset(concept(w) for w in GENERIC) | frozenset(STOPWORDS)
