"""Parameter model of the `apply_patch` toolset (pydantic; imported only when needed)."""

from __future__ import annotations

from pydantic import Field

from filewright.tools.params import Params


class ApplyPatchParams(Params):
    input: str = Field(
        description="The whole patch, from '*** Begin Patch' to '*** End Patch'; it may "
        "change several files."
    )
