"""The base of every tool's parameter model (pydantic; imported only when needed)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Params(BaseModel):
    """Base for tool parameter models: unknown fields are refused with a clear message."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=False)
