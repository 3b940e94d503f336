"""A stage that waits for a trigger, as the API's context editing does (``clear_tool_uses``
acts only once the prompt is over its ``trigger`` of input tokens)::

    Compactor(stages=("micro_compact",),
              functions={"micro_compact": functools.partial(micro_compact_above, 400_000)})
"""

from __future__ import annotations

from ..pipeline.context import Context
from ..pipeline.messages import estimate_size
from ..pipeline.micro_compact import micro_compact


def micro_compact_above(trigger: int, messages: list, ctx: Context) -> list:
    """micro_compact, once the context is over ``trigger`` chars (until then, nothing)."""
    return messages if estimate_size(messages) <= trigger else micro_compact(messages, ctx)
