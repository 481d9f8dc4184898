"""The run folders' crash safety under its former name: it lives in :mod:`farl_agents.safety` now.

That module sits below :mod:`farl_agents.runs` and :mod:`farl_agents.backend`, which both use it; this name is
kept for code written against farl 0.2 (``from farl_agents.runs.safety import StopRequest``).
"""
from farl_agents.safety import RunError, RunLock, StopRequest, ensure_writable, publish_copy

__all__ = ["RunError", "RunLock", "StopRequest", "ensure_writable", "publish_copy"]
