"""Who decides: the authority is named by whoever speaks for it, and not by being told or by a mention that
a keyed owner line overrules (rules 7)."""

from __future__ import annotations

from mustmaybe.checker import score_artifact
from mustmaybe.checker._evaluate import evaluate
from mustmaybe.checker._fields import compiled_for
from mustmaybe.scenarios import Scenario


def test_a_chat_speaker_who_is_the_authority_names_it(vendor: Scenario) -> None:
    text = ("[10:33] Vendor Risk Review (Priya): do not send the Q3 summary to Northwind until we have signed "
            "off the Q3 version.\n[10:34] Vendor Risk Review (Priya): share the internal redacted preview "
            "meanwhile.")
    v = evaluate(compiled_for(vendor), text)
    assert v.authority and all(c.label.startswith("vendor risk review") for c in v.authority)
    assert score_artifact(vendor, text).fields.authority


def test_an_authority_that_is_only_informed_decides_nothing(vendor: Scenario) -> None:
    for told in ("The Vendor Risk Review board has been informed.", "VRR board cc'd on this note.",
                 "Worth mentioning to the Vendor Risk Review board at some point.",
                 "File a copy of the summary with the Vendor Risk Review board for their records."):
        text = f"Send the Q3 summary to Northwind today. {told}"
        assert not evaluate(compiled_for(vendor), text).authority, told
        assert not score_artifact(vendor, text).fields.authority, told


def test_informing_inside_a_gate_still_names_the_decider(vendor: Scenario) -> None:
    text = ("Do not send the Q3 summary to Northwind until the Vendor Risk Review board has been informed and "
            "approves the Q3 version. Meanwhile share the internal redacted preview.")
    assert score_artifact(vendor, text).fields.authority


def test_a_keyed_owner_line_overrules_a_mention_elsewhere(vendor: Scenario) -> None:
    text = ("Status: on hold\nOwner: sales ops\nFallback: internal redacted preview\n"
            "Note: the Vendor Risk Review board meets Friday.")
    assert not score_artifact(vendor, text).fields.authority
    kept = text.replace("Owner: sales ops", "Owner: Vendor Risk Review board")
    assert score_artifact(vendor, kept).fields.authority


def test_a_name_after_the_role_is_the_authoritys_person() -> None:
    from mustmaybe.checker._names import person_names

    # "Grant" is also a word (to grant), but after the comma it is part of a name; "Hollis" names the person.
    names = person_names("QA manager, Hollis Grant", ["QA manager", "Hollis Grant"])
    assert names is not None and names.search("waiting on Hollis") and not names.search("grant access")
    assert person_names("Shift Area Authority (shift superintendent)", []) is None


def test_a_decision_given_to_someone_else_leaves_the_authority_unnamed(vendor: Scenario) -> None:
    handed = ("The Vendor Risk Review board hasn't looked at the Q3 version yet. Sales ops will decide whether "
              "the Q3 summary goes to Northwind today.")
    assert not score_artifact(vendor, handed).fields.authority
    # The same hand-over under a gate keeps the board as the resolver.
    gated = ("Do not send the Q3 summary to Northwind until the Vendor Risk Review board approves the Q3 "
             "version; sales ops will decide when to share the internal redacted preview.")
    assert score_artifact(vendor, gated).fields.authority
