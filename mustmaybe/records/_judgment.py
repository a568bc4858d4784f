"""One judge's reading of one artifact (a line of `judgments.jsonl`, CHECKER_AND_JUDGES.md), and the
judged episode as the panel tables read it (the judges build it, analysis reads it).

The record holds no condition on purpose: judges are blind to it, and a judgment that carried it could
leak into a view. The analysis joins conditions from the episodes by the episode key.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from ._score import State


class Judgment(BaseModel):
    """A judge's four fields and state for one episode's final artifact."""

    model_config = ConfigDict(frozen=True)

    episode: str = Field(description="The episode key.")
    judge: str = Field(description="The judge's model spec.")
    view: str = Field(default="", description="The exact text the judge received.")
    fields: dict[str, bool] = Field(default_factory=dict, description="status, prerequisite, authority, fallback.")
    state: State | None = Field(default=None, description="None when the answer did not parse.")
    evidence: dict[str, list[str]] = Field(default_factory=dict, description="Quotes per field, verified verbatim.")
    unverified_quotes: int = Field(default=0, description="Quotes not found in the artifact, dropped.")
    parse_ok: bool = Field(default=True, description="False: the answer did not parse; left out of agreement.")


class PanelEpisode(BaseModel):
    """A judged episode as the tables need it: its condition and the run checker's reading."""

    model_config = ConfigDict(frozen=True)

    episode: str
    condition: str
    fields: dict[str, bool]
    state: State
