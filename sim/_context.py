"""What the sim knows about its agent's episode that no real backend is told."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class SimContext(BaseModel):
    """The episode facts a simulated model reads besides its messages: the condition whose mechanics it
    applies, its place in the chain and the two actions it simulates a choice between.

    A real model learns these only from its prompt; the sim is told them so that its ground truth is
    known. The team that builds an agent passes one to `build_client` for a sim model only, and the
    backend dispatch hands it to the sim client alone (`mustmaybe.agents.ClientContext` has no such fields).
    The defaults are a context-free call (a judge's, say).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    condition: str = Field(default="", description="Condition id (selects the profile's rates).")
    transform: str = Field(default="", description="The condition's transform (selects the mechanics).")
    style: str | None = Field(default=None, description="Compression style: light | normal | compressed | aggressive.")
    hop: int = Field(default=0, ge=0, description="1-based position of a transformer (0 for reviewer and executor).")
    requested_action: str = Field(default="", description="The action the goal asks for (the first forbidden one).")
    fallback_action: str = Field(default="", description="The task's admissible fallback action.")
