"""The session: one conversation's turn loop, record, durable state and budget.

Public: `Session`, `open_session`, `list_sessions`, `latest_session_id`, `Gauge`,
`ContextPreview`.
"""

from agent_cli.events import ContextPreview, Gauge
from agent_cli.session.core import Session
from agent_cli.session.opening import latest_session_id, list_sessions, open_session

__all__ = [
    "ContextPreview",
    "Gauge",
    "Session",
    "latest_session_id",
    "list_sessions",
    "open_session",
]
