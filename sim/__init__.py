"""The sim backend: a deterministic, seeded behavioural simulator of the models an episode's agents call.

It is a product of its own, for tests, dry runs, harness benchmarks and checker calibration: each role's
simulated model reads only the messages its agent receives, applies the condition's transformation
mechanics with the rates of its profile (sim/profiles/<name>.toml), and records what it changed as ground
truth (`SimChatCompletionClient.truth`). Its rates are inputs, never findings; output made with it says
SIMULATED.

The interface to the backends is narrow. A sim client is an AutoGen `ChatCompletionClient` like any other
backend's: `mustmaybe.agents.build_model_client` returns `sim_client(...)` for a `sim:<profile>` spec and
wraps it in the same pipeline. What only the sim is told (the condition, its transform and style, the
hop, the requested and fallback actions) travels in a `SimContext` that the team passes for a sim model
alone; real backends' `ClientContext` carries none of it. This package imports nothing of
`mustmaybe.agents` (which imports it, lazily, in that dispatch) nor of `mustmaybe.teams`.

Why it reads blockers and splits sentences itself (sim/_text.py, sim/_words.py) instead of using the
checker's reader and segmenter: the sim is the ground truth the checker is checked against
(tests/sim/test_sim.py requires the checker to agree with the sim's expected states on over a thousand
simulated artifacts). A sim that read text with the checker's code would agree with the checker by
construction, and a checker defect would be copied into the truth instead of caught, so its transformer,
reviewer and executor paths import nothing of `mustmaybe.checker`. The simulated *judge* (sim/_judge.py)
is the one exception, by design: it models a judge that starts from the rules' reading and departs from
it at its profile's rate, so it calls the checker's public `read_judge_prompt` and `score_view`.

Public API: `SimChatCompletionClient` and its component config `SimClientConfig`, `SimContext`,
`sim_client`, the profiles (`SimProfile`, `load_profile`, `known_profiles`, `parse_profile`, and their
errors). Everything in `_name.py` modules is private.
"""

from ._client import SimChatCompletionClient, SimClientConfig, sim_client
from ._context import SimContext
from ._profile import SimProfile, SimProfileError, UnknownSimProfileError, known_profiles, load_profile, parse_profile

__all__ = [
    "SimChatCompletionClient",
    "SimClientConfig",
    "SimContext",
    "SimProfile",
    "SimProfileError",
    "UnknownSimProfileError",
    "known_profiles",
    "load_profile",
    "parse_profile",
    "sim_client",
]
