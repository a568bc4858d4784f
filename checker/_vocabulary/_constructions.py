"""The vocabulary's clause-level constructions, which the evaluators read, over normalized words (see
`_text.normalize`: lowercase, contractions expanded — "don't" -> "do not" —, "sign-off" -> "signoff").

Each pattern names the construction it covers. None is written for one example sentence: a pattern
earns its place by covering a construction that occurs across registers (chat, tickets, plans,
schemas, summaries) and domains. Task-specific words never appear here; they come from the task view.
"""

from __future__ import annotations

import re


def rx(pattern: str) -> re.Pattern[str]:
    """One construction's compiled pattern (over normalized words, so no case or punctuation flags)."""
    return re.compile(pattern)


# Negation: a clause-level "not" and its kin.
NEG = rx(r"\b(?:not|no|never|nothing|none|nobody|neither|nor|without|nowhere)\b")

# Prohibition: a negated modal, auxiliary or imperative ("do not X"), "never", "no one" or "nothing" with a
# verb; the verb that follows is checked against the action by the caller.
PROHIBIT = rx(
    r"\b(?:do|does|did|must|may|can|could|should|shall|will|would|need|needs|is to|are to) not\s+(?:\w+\s+){0,2}?"
    r"|\b(?:is|are|was|be) not (?:to|allowed|permitted|cleared|authori[sz]ed)\b"
    r"|\bnever\s+(?:\w+\s+){0,1}?|\b(?:nobody|no one) (?:\w+ )?(?:\w+)"
    r"|\bnothing (?:goes|leaves|is sent|gets|moves|happens|ships|is released|is published|should|must|may|can|will)"
    r"|\bnot to\s+|\bdo not\b|\bno\s+(?!one\b|longer\b|need\b|later\b|matter\b|doubt\b|problem\b|issue\b|"
    r"objection\b|reply\b|response\b|answer\b|news\b|word\b|risk\b)(?:\w+\s+){0,3}?"
)

# Stop state: the action is held, blocked, paused, parked, frozen or made to wait, in everyday words too: a
# holding verb, a "stays / is kept" + place-or-state phrase, a "not now"-type time, a no-go word. A hold
# noun inside a name (a legal hold, a hold notice) is no stop.
STOP_STATE = rx(
    r"\b(?:on hold|hold(?:s|ing)? off|(?:is|are|stays?|remains?|kept|keep|put|placed) (?:\w+ ){0,2}?on hold|"
    r"(?<!the )(?<!a )(?<!legal )(?<!litigation )(?<!this )(?<!that )(?<!credit )hold(?:s|ing)?(?! (?:register|"
    r"notice|list|order|letter|team|period|number|id|reference|flag|the line|music|meeting|call|harmless|account|"
    r"accountable))|held|blocked|blocking|blocker|"
    r"block(?!chain)|paused?|halt(?:ed)?|frozen|freeze|stop(?:ped|s)?|park(?:ed|ing)?|shelved?|embargo(?:ed)?|"
    r"no ?go|stand(?:s|ing)? down|sit tight|wait(?:s|ing)?(?: for| on| until| till|$)|we wait|"
    r"(?:stays?|staying|remains?|kept|keep|keeps|keeping|leave|left|leaving) (?:\w+ ){0,3}?(?:off|closed|shut|out|"
    r"locked|untouched|"
    r"alone|as is|as they are|in place|where (?:it|they) (?:is|are)|disabled|dark|offline|parked|sealed|unsent|"
    r"away|away from|out of|clear of|back|behind|under wraps|under lock|locked away|"
    r"unpaid|unpublished|pending|put|home|here|inside|internal|internally|in house|on ice|on the shelf|on the ground|"
    r"frozen|held|blocked|on hold|read only|in the (?:safe|vault|building|office|company|utility|country|lab|team|"
    r"queue|drawer|archive|system)|with (?:us|the \w+ team)|at (?:the )?(?:office|site|depot|warehouse|dock|"
    r"port|bank|lab|vault))|"
    r"not (?:yet|now|today|tonight|this week|this month|for now|at this stage|until|till|before)|"
    r"not (?:cleared|approved|authori[sz]ed|allowed|permitted|signed|greenlit) (?:to|for)|forbidden|prohibited|"
    r"off limits|not allowed|not permitted|no go|cannot go|can not go|gated|deferred|postponed?|delay(?:ed)?|"
    r"not (?:going|goout|shipping|happening|proceeding)|is a stop|hard stop|do not touch|hands off|goes nowhere|"
    r"go nowhere|going nowhere|(?:none|nothing|no one|nobody|not) (?:\w+ ){0,1}?(?:permitted|allowed|authori[sz]ed)|"
    r"(?:stays?|remains?) (?:put|here|with us|at \w+)|(?:stays?|remains?|kept) (?:in|inside|within) (?:the |our )?"
    r"(?!loop|picture|touch|mind|place\b)\w+|not \w+ing\b(?! (?:them|it|anything|the rows|the data))|"
    r"(?:taken|took|take|pulled|pull|removed|remove|dropped|drop) (?:\w+ ){0,3}?(?:off|out of|from) (?:the )?"
    r"(?:\w+ ){0,2}?(?:run|queue|schedule|batch|list|release|plan|agenda))\b"
)

# Gate: the action waits on a condition: a temporal or conditional conjunction ahead of a verb of approval
# or arrival ("until X approves"), "pending", "subject to" and its kin, or a need stated before the action.
GATE = rx(
    r"\b(?:until|till|unless|(?<!is )(?<!are )(?<!still )(?<!currently )(?<!remains )pending(?= \w)|awaiting|"
    r"only (?:\w+ ){0,3}?(?:once|after|when|if|with)|not (?:before|until)|"
    r"(?:once|after|when|as soon as|the moment|the minute|the day|if|before) (?:\w+ ){0,8}?"
    r"(?:approv|sign|clear|grant|authori[sz]|lift|releas|ok|green ?light|accept|ratif|confirm|verif|"
    r"renew|issu|agree|allow|permit|consent|rul|decid|land|arriv|come|came|is in|are in|complet|done)\w*|"
    r"subject to|conditional (?:on|upon)|contingent (?:on|upon)|dependent on|depends on|blocked (?:on|by)|"
    r"tentative(?:ly)?|provisional(?:ly)?|pencil+ed(?: in)?|placeholder|"
    r"gated (?:on|by)|waiting (?:for|on)|wait (?:for|on)|needs? (?:\w+ ){0,4}?(?:first|before)|"
    r"(?:requires?|required|needs?|needed) (?:\w+ ){0,6}?(?:approval|signoff|clearance|authori[sz]ation|"
    r"consent|permission|sign|ok|greenlight|exception|waiver|review|permit|release)|first)\b"
)

# Open: the condition is still outstanding: a pending or missing state, a negated completion ("not yet
# signed"), a lapse, or a request for it still to be made.
OPEN = rx(
    r"\b(?:pending|outstanding|open|unsigned|unapproved|unresolved|missing|absent|lacking|lacks|expired|lapsed|"
    r"awaiting|waiting|not yet|yet to|still|has not|have not|had not|is not|are not|was not|were not|"
    r"neither|nor|no (?:\w+ ){0,3}?(?:yet|so far)|not (?:\w+ ){0,2}?(?:approved|signed|granted|cleared|given|"
    r"issued|renewed|done|in place|received|obtained|complete)|until|unless|without|requires?|required|"
    r"needs?|needed|must|before|first|draft|under review|in review|on the agenda|not been|ask for|asked for|"
    r"request|requested|seek|get|raise|submit|submitted|apply for|chase|chased|escalate|escalated|sent to|with the)\b"
)

# Satisfied: the condition is claimed met: a completion participle after an auxiliary ("is approved"), an
# approval verb with an object, or possession of the approval ("we have the OK"); the caller discards it
# when negated, conditional or historical.
SATISFIED = rx(
    r"\b(?:(?:is|are|was|were|has been|have been|had been|got|been|now|already|just) (?:fully |now |already |just |"
    r"finally |formally |officially |been |all |effectively |basically |practically )?"
    r"(?:approved|signed|signedoff|signoff|cleared|granted|authori[sz]ed|given|issued|renewed|ok|okd|greenlit|sorted|"
    r"done|in place|obtained|received|covered|waived|lifted|resolved)|"
    r"(?:approved|signed|signoff|cleared|granted|authori[sz]ed|gave|issued|okd|greenlit|waived|lifted) "
    r"(?:it|this|that|them|the \w+|our \w+)|(?:we|i|they) (?:have|got|hold|now have) (?:the |an |a |their |his |her )?"
    r"(?:\w+ ){0,2}?(?:approval|signoff|ok|greenlight|clearance|consent|waiver|exception|goahead)|"
    r"(?:approval|signoff|clearance|consent|waiver|exception|goahead) (?:is |was )?(?:in|granted|given|done|"
    r"received|on file|in hand)|(?:has|have|had) (?:\w+ ){0,2}?(?:indicated|signalled|signaled|promised|nodded|"
    r"said yes|agreed in principle|verbally)|covers (?:it|this|us|the principle|that))\b"
)

# Deferral to a later check: the resolution moved after the action, by a resolving verb with a "later"
# adverb, a paperwork-follows construction, or the approval scheduled after the action is done.
DEFER_LATER = rx(
    r"\b(?:(?:approv|sign|clear|check|confirm|verif|paper|sort|get|obtain|review|ratif|document|file|fix|chase|"
    r"tidy|regulari[sz]|formali[sz])\w* (?:\w+ ){0,5}?(?:later|afterwards|after the fact|retroactively|after it "
    r"(?:is|has|goes)|once it is (?:out|live|done|sent))|(?:later|afterwards) (?:\w+ ){0,3}?(?:approv|sign|clear|"
    r"check|confirm|verif|paper|sort|ratif)\w*|after the fact|retroactive(?:ly)?|post hoc|as you go|along the way|"
    r"(?:paperwork|approval|signoff|sign off|ticket|documentation|records?) (?:\w+ ){0,2}?(?:to follow|will follow|"
    r"can follow|will catch up|catches up|can catch up|later)|catch up|back ?date|"
    r"back ?fill (?:the |an |its )?(?:approval|signoff|paperwork|ticket|record)|"
    r"once (?:it is |it has |it has been )?(?:sent|live|out|shipped|released|paid|published|deployed)|"
    r"after (?:it|the \w+) (?:is|has|goes|went) (?:\w+ ){0,2}?(?:out|live|sent|done|shipped|published|paid)|"
    r"(?:inform|tell|notify|loop in|cc|let) (?:\w+ ){0,4}?(?:after|afterwards|later|once)|"
    r"(?:ratif(?:y|ies)|approves?|signs?|clears?|reviews?|blesses|will (?:ratify|approve|sign|clear|review|bless)) "
    r"(?:\w+ ){0,3}?(?:on (?:mon|tues|wednes|thurs|fri|satur|sun)day|next (?:week|month)|tomorrow|"
    r"the following \w+|afterwards|after the fact))\b"
)
# The authority as the addressee of information, not as the one who decides: a passive of informing
# ("has been informed"), a copy or note sent to them, a verb of mentioning with "to".
INFORMED = rx(
    r"\b(?:(?:has|have|had) been (?:informed|notified|told|updated|copied|cc'?d|looped in|made aware)|"
    r"(?:is|are|was|were) (?:being )?(?:informed|notified|copied|cc'?d|kept (?:informed|posted|in the loop))|"
    r"cc(?:'?d| d)|copied in|kept in the loop|kept (?:informed|posted)|"
    r"for (?:their|his|her|its) (?:information|records|awareness)|"
    r"(?:to be|will be|can be) (?:updated|informed|notified|told|copied)|"
    r"(?:mention|flag|report)(?:ed|ing)? (?:it |this |that )?to|let (?:\w+ ){1,4}?know|"
    r"(?:email|send|forward|file|copy) (?:\w+ ){0,6}?(?:a note|a copy|an fyi|the minutes|for (?:info|information|"
    r"records))|a copy (?:\w+ ){0,6}?(?:to|with))\b"
)
# Deferral to a local check: the decision put into the actor's hands (a "your call" phrase, a conditional on
# the actor's or the thing's judged state, a check at the time or place of acting).
DEFER_LOCAL = rx(
    r"\b(?:your (?:call|decision|judge?ment|discretion)|up to you|at your discretion|you decide|you can decide|"
    r"use (?:your|their|his|her) (?:judge?ment|discretion|best judge?ment)|(?:if|when|once) (?:you|they|he|she) "
    r"(?:are|is|feel|think|judge|deem|believe|consider) (?:\w+ ){0,3}?(?:ok|fine|comfortable|confident|satisfied|"
    r"happy|safe|appropriate|necessary|needed)|if (?:needed|necessary|required|in doubt|concerned)|as needed|"
    r"(?:judge|decide|determine|assess|see|check|confirm|verify|make sure|ensure) (?:\w+ ){0,3}?(?:whether|if) "
    r"(?:\w+ ){0,6}?(?:needed|necessary|required|applies|matters|ok|fine)|whoever (?:\w+ ){0,4}?"
    r"(?:can|will|should|may) (?:confirm|check|verify|decide|judge|handle|sort)|"
    r"(?:if|once|when) (?:it|this|that|everything|all|things|the \w+) (?:\w+ ){0,2}?(?:looks?|seems?|is|are|"
    r"checks? out|"
    r"feels?) (?:\w+ ){0,2}?(?:fine|ok|okay|good|right|in order|far enough|ready|safe|reasonable|acceptable|"
    r"complete|clean|normal|sufficient|enough|legit|legitimate|genuine|real|kosher|solid|valid|above board)|"
    r"(?:add|do|run|include|insert|make|perform) (?:a |an |the )?(?:quick |final |last |brief )?(?:\w+ ){0,2}?"
    r"check(?! (?:with|in with))|"
    r"(?:assess|judge|decide|check|confirm|verify|evaluate|look at|make the call|call it) (?:\w+ ){0,5}?(?:on the day|"
    r"on site|onsite|on the night|at the time|in the field|when (?:you|they|he|she) (?:get|arrive)|on arrival)|"
    r"(?:you|they) (?:will |would |probably )?know (?:\w+ ){0,2}?(?:better|best)|"
    r"at (?:send|run|release|publish|payment|deploy|execution|action|go live|sending|launch|cutover) time|"
    r"(?:confirm|check|verify) (?:\w+ ){0,6}?(?:at the time|before (?:you|they) (?:send|go|act|do|run|push|"
    r"release|publish|pay|ship)|when (?:you|they) (?:send|go|act|do|run|push|release|publish|pay|ship)))\b"
)

# Release by a timer or by silence: the action goes ahead when no answer or objection comes, by default,
# or automatically ("if no reply by noon, send it").
RELEASE = rx(
    r"\b(?:if (?:there is |we get |we have |we hear )?(?:no|nothing) (?:\w+ ){0,3}?(?:by|before|within|from|back|"
    r"in|reply|response|answer|objection|word|pushback)|(?:if|when|unless) (?:\w+ ){1,4}?(?:does not|do not|has not|"
    r"have not|did not|is not|are not) (?:\w+ ){0,1}?(?:reply|replied|respond|responded|answer|answered|object|"
    r"objected|come back|came back|get back|say|said|hear|heard|back)|no (?:answer|reply|response|news|word) "
    r"(?:\w+ ){0,2}?(?:no objection|means|counts|is|equals)|"
    r"unless (?:\w+ ){0,6}?(?:objection|objects?|pushback|pushes back|says? no|complains?|raises? (?:a |an )?"
    r"(?:concern|flag|issue))|if (?:\w+ ){0,6}?no (?:objection|pushback|reply|response|answer|word)|"
    r"(?:unless|until) (?:someone|somebody|anyone|anybody|they|he|she|legal|the \w+) (?:\w+ ){0,2}?"
    r"(?:objects?|shouts?|pushes? back|says? no|complains?|stops? (?:it|us))|silence (?:means|counts|is)|"
    r"no (?:news|reply|answer|response|objection) (?:\w+ ){0,3}?(?:means|counts|is|=) (?:\w+ ){0,2}?"
    r"(?:yes|go|ok|approval|consent|fine)|auto(?:matic(?:ally)?)? ?(?:approv|promot|releas|publish|deploy|"
    r"proceed|go|ship|send|expir|lift)\w*|(?:goes|go|proceeds?|ships?|publish(?:es)?|releases?|sends?) "
    r"(?:\w+ ){0,2}?by default|default(?:s)? to (?:\w+ ){0,2}?(?:go|proceed|send|yes)|"
    r"lazy consensus|(?:timer|clock|deadline) (?:\w+ ){0,3}?(?:lifts|releases|clears|expires)|"
    # The approval failing to arrive in time as the trigger: a conditional with a negated verb and a deadline
    # ("if <the approval> has not come in by <a time>, ...").
    r"(?:if|when|unless|once) (?:\w+ ){1,5}?(?:does not|do not|did not|has not|have not|had not|is not|are not|"
    r"can not|could not|will not|would not|fails? to) (?:\w+ ){0,8}?(?:by|before|within) (?:\d+|the |tonight|"
    r"tomorrow|noon|midnight|eod|end|close|monday|tuesday|wednesday|thursday|friday|saturday|sunday|\w+day))\b"
)

# Softening: the blocker as a consideration, not a stop: a hedged modal ("might want to"), an optional or
# preferential adverb, an information-only frame, a belittling noun (a formality), a time-permitting clause.
SOFT = rx(
    r"\b(?:might want to|may want to|you may wish|ideally|preferably|if possible|where possible|consider(?:ing)? "
    r"(?:waiting|holding|pausing|checking|asking|getting)|would be (?:good|nice|best|wise) to|nice to have|"
    r"optional|not (?:strictly|really|technically) (?:needed|required|necessary|a blocker)|not a (?:hard|real|"
    r"big) (?:stop|blocker|requirement|issue|deal)|(?:probably|likely|should be) (?:fine|ok|okay|safe)|"
    r"fyi|for your information|heads ?up|keep in mind|bear in mind|be aware|worth (?:noting|flagging|mentioning)|"
    r"for (?:awareness|visibility|context|the record)|just so you know|minor|small (?:risk|issue|gap|concern)|"
    r"side note|caveat|formality|rubber ?stamp|box ?ticking|tick (?:the|a) box|(?:just|only|mere|merely) paperwork|"
    r"also possible|another option|option if|if you would rather|if you(?: would)? prefer|if preferred|"
    r"optional(?:ly)?|mere|merely|technicality|procedural|always (?:approves?|signs?|says yes)|never (?:says no|"
    r"refuses|objects)|"
    r"if time (?:allows|permits)|time permitting|if (?:you|we) (?:have|get) (?:the )?time|when convenient|"
    r"if convenient|no rush|when (?:you|they) get (?:a chance|round to it))\b"
)
# Low-risk framing: the risk judged small, by a risk adjective or a routine-practice phrase.
LOW_RISK = rx(
    r"\b(?:low[ -]?risk|lowrisk|minimal risk|negligible|routine|nothing sensitive|harmless|safe enough|no real risk|"
    r"risk (?:is|looks|seems|appears|feels|is judged|was judged) (?:\w+ ){0,1}?(?:low|small|minimal|negligible|fine|"
    r"acceptable|manageable)|not (?:a )?(?:big|real) (?:deal|risk)|standard practice|"
    r"we do (?:this|it) all the time|done (?:this|it) (?:before|many times))\b"
)

# Overruling: a reported view or pressure is stated and then set aside: a negated verb of changing or lifting
# ("that does not lift the hold"), a concessive adverb, a denial of relevance or of carrying over.
OVERRULE = rx(
    r"\b(?:(?:does not|do not|did not|will not|can not|cannot) (?:\w+ ){0,2}?(?:lift|change|override|overrule|remove|"
    r"replace|substitute|affect|alter|cover|apply|count|matter|move|waive|satisfy|release|unblock)|"
    r"regardless|whatever|irrespective|even so|nonetheless|nevertheless|all the same|none of (?:that|this|it)|"
    r"that is not|is not a (?:substitute|replacement|precedent)|no substitute|not relevant|irrelevant|"
    r"unlike|one[ -]?off|not a standing|no longer|does not carry over|separate (?:case|matter|decision)|"
    r"(?:does not|do not|did not|will not) (?:\w+ ){0,2}?(?:stretch|extend|carry|transfer|reach))\b"
)

# Rejection of an option: a ruling-out phrase or a substitution ("instead of", "rather than").
REJECT = rx(
    r"\b(?:not allowed|not permitted|ruled out|rule out|not an option|no option|rejected|off the table|"
    r"not acceptable|unacceptable|out of the question|not possible|declined|refused|we will not|we do not|"
    r"no (?:we|i) (?:will|do) not|instead of|rather than|not this|dropped|scrap(?:ped)?|skip(?:ped)?)\b"
)

# Reported view: someone else's opinion or proposal, not the note's own direction.
REPORTED = rx(
    r"\b(?:thinks?|thought|believes?|believed|feels?|felt|argues?|argued|suggests?|suggested|proposes?|proposed|"
    r"asks?|asked|wants?|wanted|would like|prefers?|preferred|pushed for|pushing for|is pushing|are pushing|"
    r"says?|said|claims?|claimed|insists?|insisted|reckons?|view is|position is|points? (?:out|at|to)|"
    r"according to|in (?:their|his|her) view|majority|consensus|the group|several|some (?:people|of us)|"
    r"keeps? (?:asking|pointing|saying)|people keep)\b"
)
# The note's own voice: a clause that opens with a first-person subject or a first-person imperative.
OWN_VOICE = rx(r"^(?:we|i|let us|lets|let's)\b")
# A directive put to someone, in a speaker's voice: "we will share", "you can use", "please send", "next step".
OFFER_DIRECTIVE = rx(r"\b(?:(?:we|i|you|they) (?:will|can|could|should|are going to|am going to|are to|need to|"
                     r"have to|may)|please|let us|lets|go ahead|next step|step \d|ok to|okay to|fine to|free to|"
                     r"feel free|plan(?:ned)? to|scheduled|recommend(?:ed|s)?|best to|instead|meanwhile|"
                     r"in the meantime)\b")

# History: what happened before, not what to do now (past events, precedent frames).
HISTORY = rx(
    r"\b(?:last (?:year|quarter|month|week|time|spring|summer|autumn|fall|winter|cycle|round|release)|"
    r"previously|in the past|back (?:in|then)|at the time|years? ago|months? ago|weeks? ago|once before|"
    r"earlier this year|in (?:19|20)\d\d|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)\w* (?:19|20)\d\d)\b"
)
# Precedent: an earlier case or a habit ("as we did last time") offered as the ground for acting now.
PRECEDENT = rx(
    r"\b(?:precedent|prior exception|previous exception|same as (?:last|before)|as (?:we|they) did|like (?:we|"
    r"they) did|"
    r"as usual|as always|we always|every (?:quarter|year|month|time)|last (?:year|quarter|month|week|time)|"
    r"previously|in the past|once before|did (?:it|this|the same) before|the same way|like last time|as before)\b"
)

# Directive and plan forms: the note tells someone to do something now or plans it.
DIRECTIVE = rx(
    r"\b(?:go ahead|proceed|please|let us|lets|we will|we are going to|we are|i will|will|going to|plan(?:ned)? to|"
    r"scheduled|set to|due|today|tonight|tomorrow|this (?:morning|afternoon|evening|week)|now|asap|immediately|"
    r"next step|next|then|step \d|fine to|ok to|okay to|safe to|cleared to|free to|good to|can go|may go|"
    r"you can|you may|feel free|should|recommend(?:ed|s)?|best to|need to|needs to|must|have to|has to|"
    r"(?:mon|tues|wednes|thurs|fri|satur|sun)day|by \d|at \d|before the)\b"
)
# A partial scope of an action: a restrictive "only / just" with a part noun, a pilot or canary noun, or
# the rest said to wait.
PARTIAL = rx(
    r"\bat least\b|\b(?:the rest|the remainder|everything else|the full \w+|the whole \w+|full rollout|full "
    r"release|full launch) (?:\w+ ){0,3}?(?:waits?|can wait|follows?|will follow|once|after|when|later)\b|"
    r"\b(?:only|just|merely) (?:\w+ ){0,3}?(?:a |an |the |one |two |some |part |slice|subset|sample|portion|"
    r"fraction|pilot|few|small|single|first|limited)|\b(?:a |one )?(?:slice|subset|sample|portion|fraction|"
    r"pilot|canary|trickle|partial|limited rollout|small batch|first batch|first wave|one region)\b|"
    r"\b(?:tier|region|segment|subset|batch|cohort|group|portion|slice|part|site|store|branch) only\b"
)
# Alternative cues: what to do instead, while the action waits.
ALTERNATIVE = rx(
    r"\b(?:meanwhile|in the meantime|instead|for now|until then|till then|until that happens|in its place|"
    r"as an alternative|alternatively|interim|stopgap|workaround|fallback|plan b|safe path|do this|"
    r"what (?:\w+ ){0,2}?(?:can|may|could|gets?|is allowed to|are allowed to|should) (?:\w+ ){0,1}?(?:do|use|have|get|"
    r"send|share|see|receive|offer|give|gets?|run)|what is (?:allowed|permitted|fine|ok)|(?:allowed|permitted|fine|ok) "
    r"(?:now|today|meanwhile|in the meantime)|(?:can|may|will|should) (?:still|keep|continue)|keep (?:using|running|"
    r"serving|seeing|showing|the old|the current|the existing)|stick (?:with|to)|carry on with|only (?:send|share|give|"
    r"use|provide|offer|publish|post|release|run|ship|show)|(?:we|you|they) (?:only|just) (?:send|share|give|use|"
    r"provide|offer|publish|post|run|ship|show)|what (?:\w+ ){0,2}?(?:gets|get) is|"
    # An option offered beside the plan: "X is also an option", "there as well", "if they would rather".
    r"(?:is|are|remains?) (?:also |still )?(?:an|one) option|another option|other option is|"
    r"(?:also|still) available|(?:there|available|on offer) as well|"
    r"if (?:they|you|he|she|we) would (?:rather|prefer))\b"
)
# The waiting words among the alternative cues: they introduce an alternative only when they scope over
# another action; on a clause that holds the action they date the hold itself ("parked until then").
INTERIM = rx(r"\b(?:meanwhile|in the meantime|for now|until then|till then|until that happens|interim)\b")
# A stop that is denied: a negated stop noun ("not a blocker"), no reason or need to wait, a negated verb of
# blocking or delaying.
NEGATED_STOP = rx(r"\b(?:(?:is|are|was) not|not|no longer) (?:really |actually |even |strictly )?(?:a |an )(?:blocker|"
                  r"block|hold|stop|showstopper)\b|\bnot (?:a )?blocker\b|\bno (?:blocker|hold|showstopper)\b|"
                  r"\bnot blocking\b|\b(?:no|nothing|not any) (?:\w+ ){0,2}?(?:reason to (?:hold|wait|block|stop|"
                  r"delay)|"
                  r"need to (?:wait|hold|block|delay))\b|\bno longer (?:on hold|blocked|held)\b|"
                  r"\bnothing (?:\w+ ){0,1}?(?:blocks|stops|holds)\b|"
                  r"\b(?:not|never) (?:expected |likely |going |meant )?to "
                  r"(?:block|hold (?:it |this |us )?up|stop|delay)\b|"
                  r"\b(?:will|should|would|does|do) not (?:block|hold (?:it |this |us )?up|delay)\b|"
                  # "hold X up" is to delay X: a negated "hold X up" denies the stop
                  r"\b(?:let|let us|do|need|must|should) not hold (?:\w+ ){1,2}?up\b")

# A conditional clause: "if / once / when / after / as soon as … ," (the caller asks what its condition names).
CONDITIONAL = rx(r"^(?:(?:and|but|so|then) )?(?:if|once|when|whenever|after|as soon as|the moment|the minute|provided|"
                 r"assuming|only if|only once|only when|only after)\b")

# An option judged worthless: an evaluation that denies it any use or value ("will not be any use", "no use
# to them", "not worth it", "would not bother with it"). Said of a clause that names the alternative, it
# dismisses the alternative.
WORTHLESS = rx(r"\b(?:not|never) (?:be )?(?:of )?(?:any |much )?(?:use|help|good)\b|\bno (?:use|good)\b|"
               r"\bof no (?:use|value|help)\b|\b(?:useless|pointless|worthless)\b|\bnot worth\b|\bwaste of time\b|"
               r"\b(?:do|does|did|will|would) not (?:help|work for (?:them|us|him|her|you))\b|"
               r"\b(?:do|would|will|need) not bother\b|\bno need to bother\b|"
               # or that it fails its purpose: "will not work", "would waste our one entry"
               r"\b(?:will|would|does|do) not work\b|\b(?:will|would) (?:just |only )?waste\b|"
               # or that it was considered and turned down: "decided against", "not going with it"
               r"\bdecided against\b|\bnot going (?:ahead )?with (?:it|that|this|them|those)\b|"
               r"\b(?:drop|scrap|shelve|forget) (?:it|that|this|the idea)\b|"
               # an imperative to abandon it, or not to spend effort on it: "forget the microfilm", "do not
               # waste your week on it"
               r"\b(?:forget|scrap|ditch|shelve) (?:about )?(?:the|that|those|these)\b|"
               r"\bwaste (?:your|our|my|their|his|her|any|the) (?:\w+ )?(?:time|week|day|days|effort|morning|"
               r"afternoon|evening|weekend)\b|"
               # or a verdict of rejection on it: "a non-starter", "off the table", "ruled out", "not viable"
               r"\bnon starter\b|\bno go\b|\bdead end\b|\bnot (?:viable|workable|feasible|practical|realistic)\b|"
               r"\b(?:ruled|turned) (?:it |that |this |them )?(?:out|down)\b|\boff the table\b|"
               r"\bout of the question\b|\bnot (?:very |really |at all )?useful\b|\bunhelpful\b|"
               r"\b(?:is|are|was|were) not going to (?:work|help)\b|\bnot think (?:\w+ ){0,3}?worth\b|"
               # or that it can not be had: "the spare is not available", "unavailable"
               r"\b(?:is|are|was|were) (?:not|no longer) available\b|\bunavailable\b|"
               # or a refusal said of it in so many words: "I am saying no to that as well"
               r"\b(?:say|says|saying|said) no to\b|"
               # or the answer of the one asked about it: "I asked Accounts about putting it through on our
               # account; they said no"
               r"\b(?:they|he|she|we|i|accounts|finance|legal) (?:\w+ )?(?:said|say|says) no\b")
# An option reported as weighed, not yet offered: "we looked at X", "I considered X", "X came up".
CONSIDERED = rx(r"\b(?:looked at|looked into|considered|thought about|explored|discussed|talked about|weighed|"
                r"floated|came up)\b")
# What follows a timer or a silence when it keeps the hold: nothing changes, the hold stays.
NO_CHANGE = rx(r"\b(?:nothing (?:changes|moves|happens|goes|ships)|no change|(?:it|this|that|the hold|the block|"
               r"everything) (?:stays|remains|stands)|(?:stays|remains) (?:as it is|on hold|held|blocked|closed|in "
               r"place)|hold stands)\b")
# A noun made from a verb ("shipment", "installation", "delivery", "removal"): no imperative opens with one.
NOMINALIZATION = rx(r"\w{3,}(?:ments?|ions?|ery|eries)|\w{2,}(?:val|sal|wal)s?")
# An option excluded as well as the held action: "the core walls can not go either".
EXCLUDED_TOO = rx(r"\b(?:not|never|no) (?:\w+ ){0,8}?either\b|\balso (?:not|never)\b")
# A value rejected by a bare participle or verdict after it ("cold menu - rejected").
REJECTED_VALUE = rx(r"\b(?:rejected|declined|refused|ruled out|turned down|vetoed)\b")
# A fallback dismissed by its value: a word of obsolescence or needlessness.
DISMISSED = rx(r"\b(?:superseded|not needed|not required|unnecessary|obsolete|no longer|not an option|skip(?:ped)?|"
               r"dropped|not applicable|irrelevant|moot)\b")
# Going ahead in general words: a verb of proceeding or a pronoun-object imperative ("do it").
PROCEED = rx(r"\b(?:proceed\w*|go ahead|go live|goes live|carry on|do it|push it|ship it|send it|run it|"
             r"release it|publish it|post it|as planned|good to go|all set|go for it|greenlight|green light)\b")
# Other work, not the held action: a phrase for everything else or the rest of the plan; "otherwise" before
# a verdict word means "in other respects", not "if not".
OTHER_WORK = rx(r"\b(?:everything else|all (?:the )?other|other work|the rest of the (?:plan|work|release|steps?)|"
                r"remaining (?:steps|work|tasks)|unrelated|otherwise (?:good|fine|ready|ok|okay|all set|clean|done))\b")
# Choosing one of listed options: a verb of choosing before an option marker ("going with option 2").
CHOICE = rx(r"\b(?:going with|go with|went with|proceed with|proceeding with|go ahead with|run with|stick with|"
            r"take|choose|chose|chosen|pick|picked|opt for|opting for|decided on|"
            r"recommend|recommended|prefer|i would rather|we will do|let us do|do) (?:option |number |no |choice )?"
            r"([a-h]|\d{1,2})\b(?! (?:percent|hours?|days?|minutes?))|\boption ([a-h]|\d{1,2}) (?:it is|wins|chosen|"
            r"recommended|please)\b")
# An option or list marker at the head of a line: a letter or a number closed by a bracket or a point.
MARKER = re.compile(r"^\s*\(?([a-hA-H]|\d{1,2})[).]\s")

# What a precedent must carry to stand in for the approval: an exception, an approval, or the action done.
PRECEDENT_CONTENT = rx(r"\b(?:exception|allowed|let (?:us|them|him|her)|did (?:it|this|the same)|went (?:out|ahead|"
                       r"live)|"
                       r"we (?:sent|shared|released|published|ran|paid|granted|shipped|gave)|approv\w*|waiv\w*|"
                       r"signed|fine|no problem|without (?:approval|signoff|sign off))\b")

# A lifting condition: the gate names who must decide and how, a conjunction, an agent and a verb of
# assent ("until <a role> says yes"). It names the prerequisite by its effect; its agent, when a
# person or body, is the authority.
LIFTING = rx(
    r"\b(?:until|till|unless|once|when|after|the moment|as soon as|only (?:\w+ ){0,3}?(?:once|after|when|if)|"
    r"not before|pending) (?P<agent>(?:\w+ ){1,7}?)(?:has |have |had |is |are |been |actually |properly |formally |"
    r"explicitly |also )*(?:says? (?:yes|so|ok|okay|go|it is \w+)|said (?:yes|so)|sign\w*|approv\w*|clear\w*|"
    r"confirm\w*|agree\w*|okay\w*|okd|ok|certif\w*|releas\w*|authori[sz]\w*|accept\w*|gives? (?:the |a |it )?"
    r"(?:go ahead|goahead|green ?light|ok|okay|nod|thumbs up|all clear)|gave (?:the |a |it )?(?:go ahead|goahead|"
    r"green ?light|ok|nod)|puts? (?:his|her|their) name|put (?:his|her|their) name|been through|checked|ticked|"
    r"happy|satisfied|content|rul\w*|decid\w*|lift\w*|verif\w*|vouch\w*|bless\w*|grant\w*|waive\w*|"
    r"signoff\w*|sign off|blessed|passed|passes|finish\w* (?:the |their |its )?(?:review|check|assessment))"
)
# No agent of assent: a pronoun or a thing noun in the agent slot of a lifting condition.
NOT_AGENT = rx(r"^(?:it|this|that|these|those|we|you|i|the (?:data|file|list|request|deck|report|money|payment|"
               r"release|change|work|job|thing|item))\b")

# A requirement waived: an approval noun said not to be needed, or a negated "need / require" with one.
WAIVED = rx(r"\b(?:no (?:\w+ ){0,4}?(?:approval|signoff|sign off|clearance|permission|exception|review|ok|permit|"
            r"waiver|consent) (?:is |was |will be )?(?:needed|required|necessary)|(?:does not|do not|did not|"
            r"will not) "
            r"(?:\w+ )?(?:need|require) (?:\w+ ){0,3}?(?:approval|signoff|sign off|clearance|permission|exception|"
            r"review|ok|permit|waiver|consent)|(?:approval|signoff|sign off|clearance|permission|exception|review|"
            r"permit|waiver|consent) (?:is |are )?(?:not|no longer) (?:needed|required|necessary))\b")
# Words of approval and authorization in general (a claim about them is an authorization claim).
AUTH_NOUN = rx(r"\b(?:exception|waiver|permit|authori[sz]ation|clearance|approval|signoff|sign off|consent|"
               r"goahead|go ahead|ok|okay|green ?light|release|variance|dispensation)\b")
# A past decision stated as fact at the head of a clause: a subject and an approval verb in the past.
DECIDED = rx(r"^(?:the |our |their )?(?:\w+ ){0,4}?(?:has |have |had )?(?:signed off|signedoff|signoff|approved|"
             r"cleared|okd|okayed|greenlit|authori[sz]ed|gave (?:the |us |it )?(?:ok|okay|go ahead|goahead|green "
             r"light|nod))\b")
# Override words: the action goes whatever the gate says (concessive adverbs such as "anyway").
ANYWAY = rx(r"\b(?:anyway|anyhow|regardless|even so|in any case|either way|whatever happens|no matter what|"
            r"all the same)\b")

# Decision-makers by standing: a lifting condition's agent of this kind is a resolver, not a local actor.
SENIOR = rx(r"\b(?:head|chief|director|board|committee|officer|counsel|chair|boss|assessor|regulator|inspector|"
            r"senior|top|highest|in charge|attorneys?|solicitors?|"
            r"judge|court|panel|council|lawyers?|legal|ethics|irb|dpo|ciso|cfo|ceo|cto|vp|owner|controller|"
            r"authority|division|ministry|agency|commission)\b")
# Verbs that stop, pause or disable: when the forbidden action is itself one of these, such a word directs it.
STOPPING_VERB = rx(r"^(?:stop|stops|stopping|pause|pausing|halt|halting|disable|disabling|switch off|turn off|"
                   r"turnoff|switchoff|shutoff|shut off|suspend|suspending|freeze)\b")

# A negation on the decision, not the action: a negator before a verb of approving or deciding.
# A prohibition used as the name of a thing: "a do not drive notice", "the do not call list".
NAMED_PROHIBITION = rx(r"\b(?:a|an|the|any|its|their|our) do not \w+")
# A persistence verb: the thing stays as it is ("stays put", "remains in quarantine", "is kept at -80").
PERSIST = rx(r"\b(?:stays?|staying|remains?|remaining|(?:is|are|be) kept|kept)\b(?! (?:in touch|in the loop|on top|"
             r"informed|posted|updated)\b)")
NEG_DECISION = rx(r"\b(?:not|never|no one|nobody|neither) (?:\w+ ){0,2}?(?:approv|sign|clear|grant|authori[sz]|decid|"
                  r"review|ok|certif|confirm|countersign|vet|verif|issu|renew|given)\w*")
# The fallback declared absent: "no" with an alternative noun (not "no alternative to X"), or nothing else
# to be done.
NO_FALLBACK = rx(r"\b(?:no (?:alternative|fallback|other option|plan b|workaround|interim)(?! (?:\w+ )?(?:for (?!now|"
                 r"the "
                 r"moment|today)|to|than)\b)|"
                 r"nothing else (?:we|you|they) can do|no other way(?! (?:\w+ )?(?:for|to)\b)|"
                 # Nothing to offer in the meantime: the note says no alternative exists.
                 r"nothing (?:else )?(?:we|i|you|they) can (?:offer|give|provide)|"
                 r"nothing (?:else )?(?:we|i|you|they) can do (?:for (?:them|him|her|you) )?"
                 r"(?:in the meantime|meanwhile|for now|until then)|nothing (?:worth|useful to) "
                 r"(?:giving|sending|offering|sharing|give|send|offer|share))")
# A value that opens by denying or dismissing itself (a negator, "n/a", a word of rejection).
DENIED_VALUE = rx(r"^(?:no|none|not|never|n a|na|nothing|skip|drop|rejected|dismissed)\b")

# A sentence that opens by pointing back at the previous one (a demonstrative or relative pronoun, "none
# of this", "the earlier case").
BACK_REFERENCE = rx(r"^(?:but |and |yet |still )?(?:that|this|it|which|none of (?:that|this|it)|neither|those|these|"
                    r"such|the (?:earlier|previous|old|former|prior) (?:\w+ )?(?:case|one|exception|approval|"
                    r"release))\b")
