"""The vocabulary's constructions for structured notes (JSON, YAML, `key: value` lines): what a key means and
what its value says, and the titles, decision verbs and "only X can" constructions that name a resolver. Over
normalized words, like `_constructions`.
"""

from __future__ import annotations

from ._constructions import rx

# "None": an empty or denied value in a slot ("n/a", "tbd", "none", "-").
EMPTY_VALUE = rx(r"^(?:none|n ?a|na|tbd|tba|unknown|unclear|nil|null|empty|not applicable|to be (?:decided|"
                 r"determined|confirmed)|no one|nobody|unassigned|open|pending|not stated|not given|not specified|"
                 r"not known|not provided|\?+)?$")
# A condition's value that says it is met (a completion word, "treat as signed", "not required"): the
# condition is presented as satisfied, so the note no longer carries it as unresolved. Participles that
# also describe what is required (a "signed agreement") are not in it.
SATISFIED_VALUE = rx(r"\b(?:done|complete|completed|ok|okay|okd|in place|treat (?:it )?as (?:signed|approved|done|"
                     r"final|cleared)|satisfied|passed|not (?:required|needed|necessary|applicable)|"
                     r"no longer (?:required|needed)|waived)\b")
# A value that is only absent (no rejection of anything): "not stated", "unknown", "tbd".
ABSENT_VALUE = rx(r"^(?:unknown|unclear|tbd|tba|not stated|not given|not specified|not known|not provided|"
                  r"to be (?:decided|determined|confirmed)|\?+)?$")
# An authority that is nobody: responsibility left to whoever acts.
NOBODY = rx(r"\b(?:whoever|anyone|anybody|the executor|executor|the agent|the requester|you|yourself|your team|"
            r"self|on ?call|n a|tbd|unassigned|none)\b")
# Titles and bodies that decide: a paraphrase class for authorities ("the head of X", "the chair", "counsel").
TITLE = rx(
    r"\b(?:head|director|chief|lead|manager|officer|counsel|chair|chairperson|committee|board|panel|council|"
    r"desk|office|owner|controller|authority|regulator|supervisor|principal|president|vp|cfo|ceo|cto|ciso|dpo|"
    r"coo|gc|legal|compliance|security|privacy|audit|ethics|irb|cab|qa|hse|registrar|inspector|commissioner|"
    r"judge|court|team)\b"
)
# The decision given to someone: a "to decide", "make the call", "owns the decision", "has final say" or
# "best placed to judge" construction; whoever the clause names decides.
HANDED = rx(
    r"\b(?:make|makes|making) the (?:final )?call|(?:has|have|gets?) (?:the )?final say|final say|"
    r"owns? (?:the )?(?:\w+ ){0,2}?(?:decision|call)|(?:is|are) (?:the )?(?:decision maker|decider|one to decide)|"
    r"(?:to|will|can|should|gets to) decide (?:whether|if|when|on)|decides (?:whether|if|when)|"
    r"(?:decision|call) (?:is|rests|sits|lies|stays) with|leave (?:it|the decision|the call) (?:to|with)|"
    r"best placed to (?:decide|judge|make)|at (?:his|her|their) discretion"
)
# Decision verbs: the act of resolving a prerequisite.
DECIDES = rx(
    r"\b(?:approv\w*|sign\w*|clear\w*|decid\w*|rule[sd]?|ruling|authori[sz]\w*|grant\w*|lift\w*|waive\w*|releas\w*|"
    r"ok|okay|greenlight|consent\w*|vet\w*|review\w*|accept\w*|endorse\w*|ratif\w*|own\w*|answer\w*)\b"
)
# Slot keys of structured notes, by meaning.
SLOT_STATUS = rx(r"\b(?:status|state|decision|verdict|outcome|go no ?go|gonogo|blocker|stop|hold|action status|"
                 r"recommendation|result)\b")
SLOT_PREREQ = rx(r"\b(?:prerequisite|prereq|condition|conditions|requirement|requires|unresolved|pending|gate|"
                 r"needed|needs|missing|blocked on|open item|what is missing|approval needed|waiting on|waiting for|"
                 r"depends on|awaiting|required)\b")
# A key that names what must not happen (a "not allowed" or "blocked" key): its value is the forbidden
# action, held.
SLOT_FORBIDDEN = rx(r"\b(?:not allowed|not permitted|forbidden|prohibited|blocked action|blocked|do not|don t|"
                    r"must not|stop|held action|on hold|hold|holds|not now|not yet|no go|restricted|frozen|"
                    r"embargoed|blocked items?)\b")
# A key asking whether the action may go ("can_proceed", "ok_to_send", "approved", "cleared"): its
# true/false value is the status.
SLOT_PERMISSION = rx(r"^(?:can|may|ok|okay|allowed|cleared|approved|go|ready|proceed|permitted|safe)\b")
# A bare affirmative value and a bare negative value of such a key.
YES = rx(r"^(?:true|yes|y|ok|go)$")
NO = rx(r"^(?:false|no|n|not yet|nope)$")
# A key that states the condition under which the action may go ("unlocks_when", "release condition").
CONDITION_LABEL = rx(r"\b(?:when|until|unless|unlock\w*|condition|conditions|requires?|required|needs?|thaws?|"
                     r"lifts? when|release condition|prerequisite|gate|waiting on|blocked on|depends)\b")
# A key that names who decides (an owner, approver or escalation key).
SLOT_AUTHORITY = rx(r"\b(?:authority|owner|approver|approvers|decider|resolver|who decides|who can approve|"
                    r"responsible|accountable|sign ?off by|signoff by|escalation|escalate to|contact)\b")
# A key that names what to do instead while the action waits.
SLOT_FALLBACK = rx(r"\b(?:fallback|alternative|meanwhile|in the meantime|interim|instead|safe path|do now|"
                   r"allowed now|what to do|workaround|mitigation|plan b)\b")
# A header key (subject, title, ticket, addressee): its value names the topic, it directs nothing.
SLOT_TOPIC = rx(r"\b(?:subject|re|title|item|task|goal|request|topic|summary|ticket|about|regarding|to|from|cc)\b")
# A value that puts what its key names in a stop state: a hold, block or refusal word, a rule in force.
STOP_VALUE = rx(r"\b(?:blocked|block|hold|on hold|held|stop|stopped|paused|frozen|no ?go|not approved|denied|"
                r"do not|not yet|waiting|pending|gated|embargoed|parked|red|closed|locked|shut|active|not cleared|"
                r"in force|applies|out of scope|not in scope|must (?:stay|remain)|"
                # A negated permission or availability ("not <verb>able", "not allowed", "not for release"): the
                # thing may not be done, which in a status slot is the stop itself.
                r"not (?:\w+able|\w+ible|allowed|permitted|authori[sz]ed|granted|for (?:sale|release|use|hire|rent|"
                r"distribution|publication)))\b")
# A key's whole value is a bare refusal (NO, NO-GO, NOT APPROVED): a key that is not a condition, resolver
# or alternative, answered no, holds what it names.
REFUSAL_VALUE = rx(r"^(?:no|nope|no ?go|not yet|not approved|not cleared|not allowed|not permitted|blocked|on hold|"
                   r"hold|denied|refused|stop|closed|locked)\b")
# A key that states what is needed (a "requires" or "opens if" key): its value describes the condition to be
# met, so a completion word in it is the goal, not a report.
NEEDS_KEY = rx(r"\b(?:requires?|required to|needs?|unlock\w*|unblock\w*|opens? (?:if|when)|lifts? (?:if|when)|"
               r"until|unless|only (?:if|when|after)|release condition|to (?:release|unblock|lift|proceed|reopen))\b")
# "only X can approve / clear / lift it": the resolver named by its exclusive power.
ONLY_CAN = rx(r"\bonly (?:\w+ ){1,7}?(?:can|could|may|is able to|gets to) (?:\w+ ){0,2}?(?:approv|clear|sign|lift|"
              r"releas|authori[sz]|grant|decid|waive|unblock|ok|rule)\w*")
# A value that lets the action go: a ready or approved word, or the stop said to be cleared or lifted.
GO_VALUE = rx(r"^(?:go|ready|approved|green|proceed|ok|okay|cleared|clear|done|complete|completed|scheduled|"
              r"in progress|live|yes|unblocked|good to go|go ahead)\b|\b(?:(?:blocker|block|hold|stop|gate|it|this) "
              r"(?:is |has been |now )?(?:cleared|lifted|resolved|removed|released|gone)|unblocked|go ahead|proceed|"
              r"good to go|green ?light)\b")
