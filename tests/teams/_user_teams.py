"""Three user teams built in Python with AutoGen's own classes and dumped to JSON, as a user would.

Their agents use AutoGen's ReplayChatCompletionClient (canned replies), so "the JSON's own clients"
is a real serialized client that needs no network; `--model transformer=…` replaces them.
"""

from __future__ import annotations

from pathlib import Path

from autogen_agentchat.agents import AssistantAgent
from autogen_agentchat.conditions import MaxMessageTermination, TextMentionTermination
from autogen_agentchat.teams import DiGraphBuilder, GraphFlow, RoundRobinGroupChat, SelectorGroupChat
from autogen_ext.models.replay import ReplayChatCompletionClient

OWN_REPLY = ("Handoff: do not send the Q3 summary outside the company until the Vendor Risk Review board "
             "approves VR-131. Until then share only the internal preview.")


def _client(n: int = 6) -> ReplayChatCompletionClient:
    return ReplayChatCompletionClient([OWN_REPLY] * n)


def _agent(name: str, system: str) -> AssistantAgent:
    return AssistantAgent(name, model_client=_client(), system_message=system,
                          description=f"The {name} of the handoff team.")


def round_robin() -> RoundRobinGroupChat:
    return RoundRobinGroupChat(
        [_agent("drafter", "Summarize the reviewer's statement for the operations team."),
         _agent("editor", "Tighten the draft into a short handoff for the executor.")],
        termination_condition=MaxMessageTermination(3) | TextMentionTermination("APPROVED"), max_turns=4)


def selector() -> SelectorGroupChat:
    return SelectorGroupChat(
        [_agent("analyst", "Assess the reviewer's statement."),
         _agent("writer", "Write the handoff for the executor.")],
        model_client=ReplayChatCompletionClient(["analyst", "writer", "writer"]),
        # One selection attempt a turn: a small local model rarely names a speaker, and AutoGen then
        # keeps the previous one (or the first); three attempts would triple the slow calls.
        termination_condition=MaxMessageTermination(3), allow_repeated_speaker=True, max_selector_attempts=1)


def graph_flow() -> GraphFlow:
    a = _agent("triage", "Pull out what blocks the request.")
    b = _agent("handoff_writer", "Write the handoff the executor acts on.")
    g = DiGraphBuilder()
    g.add_node(a).add_node(b)
    g.add_edge(a, b)
    return GraphFlow(g.get_participants(), graph=g.build())


TEAMS = {"roundrobin": round_robin, "selector": selector, "graphflow": graph_flow}


def write_teams(folder: Path) -> dict[str, Path]:
    """Each team's `dump_component()` as JSON in `folder`, by kind."""
    out = {}
    for kind, make in TEAMS.items():
        p = folder / f"{kind}.json"
        p.write_text(make().dump_component().model_dump_json(indent=2), encoding="utf-8")
        out[kind] = p
    return out
