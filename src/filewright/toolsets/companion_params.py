"""Parameter models of the `companion` toolset, one set per memory switch (pydantic;
imported only when needed). The seed's path description, or, with the toolset option
`list_files`, followed by the files the model may use under the memory switch."""

from __future__ import annotations

from pydantic import Field

from filewright.tools.params import Params
from filewright.toolsets.companion import FILES_MEMORY_OFF, FILES_MEMORY_ON, PATH_DESCRIPTION


def _param_models(files: str) -> tuple[type[Params], type[Params], type[Params]]:
    """The three parameter models, with `files` appended to the path description."""
    path_description = PATH_DESCRIPTION + files

    class ReadParams(Params):
        path: str = Field(description=path_description)

    class WriteParams(Params):
        path: str = Field(description=path_description)
        content: str = Field(description="要写入的完整内容")

    class EditParams(Params):
        path: str = Field(description=path_description)
        oldText: str = Field(description="要查找并替换的精确文本（必须唯一匹配）")
        newText: str = Field(description="替换后的新文本")

    return ReadParams, WriteParams, EditParams


ReadParams, WriteParams, EditParams = _param_models("")  # the seed's descriptions exactly
ReadParamsMemoryOn, WriteParamsMemoryOn, EditParamsMemoryOn = _param_models(FILES_MEMORY_ON)
ReadParamsMemoryOff, WriteParamsMemoryOff, EditParamsMemoryOff = _param_models(FILES_MEMORY_OFF)
