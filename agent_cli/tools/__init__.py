"""The agent's tools: files, search and shell inside one workspace, with permission and spill.

Public API: `Toolbox`, `ToolOutcome`, `PermissionRequest`, `PermissionDecision`,
`TOOL_SCHEMAS`, and `build_interrupted_outcome(tool_name)` for the result to record
when Ctrl-C stopped a tool. See `toolbox.py` for the contract.
"""

from agent_cli.tools.output import ToolOutcome, build_interrupted_outcome
from agent_cli.tools.permissions import PermissionDecision, PermissionRequest
from agent_cli.tools.schemas import TOOL_SCHEMAS
from agent_cli.tools.toolbox import Toolbox

__all__ = [
    "TOOL_SCHEMAS",
    "PermissionDecision",
    "PermissionRequest",
    "ToolOutcome",
    "Toolbox",
    "build_interrupted_outcome",
]
