"""Role agents, prompt templates and model backends (sim, local, OpenAI-compatible)."""

__all__: list[str] = []
