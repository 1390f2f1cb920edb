"""Prompts shipped as package data (`agent_cli/prompts/*.md`).

Contract: `load_prompt(name)` returns the text of `<name>.md` from this package, read
through importlib.resources so it works from a wheel as well as a checkout. Prompts are
versioned data next to the code, not strings assembled in functions. A name that is not
a plain file stem, or a prompt that is not shipped, raises `PromptNotFound`.
"""

from __future__ import annotations

import re
from importlib import resources

from agent_cli.errors import PromptNotFound

_PROMPT_NAME = re.compile(r"[a-z][a-z0-9_-]{0,63}")


def load_prompt(name: str) -> str:
    """The text of the prompt `name` ("summary" or "summary.md"), without trailing blanks."""
    stem = name[:-3] if name.endswith(".md") else name
    if not _PROMPT_NAME.fullmatch(stem):
        raise PromptNotFound(stem[:64])
    resource = resources.files(__name__).joinpath(f"{stem}.md")
    if not resource.is_file():
        raise PromptNotFound(stem)
    return resource.read_text(encoding="utf-8").rstrip() + "\n"
