"""Wrong stages a learner writes, one or two per notebook 01–05 (keyed by its number), as source text
(the planted-notebook test puts one in place of its notebook's worked-solution import) and, through
``planted``, as functions."""

from dataclasses import replace

from compact.classroom import solutions


def stub(stage: str) -> tuple[str, str]:
    """A notebook's stub as given, not yet written: what runs once its solution line is deleted."""
    return stage, f'''
def my_{stage}(messages, ctx):
    raise NotImplementedError  # write {stage}, then delete the line marked ← below
'''


PLANTED = {
    "01": ("tool_result_budget", '''
def my_tool_result_budget(messages, ctx):      # planted: persists nothing
    return list(messages)
'''),
    "02": ("snip_compact", '''
def my_snip_compact(messages, ctx):            # planted: the tail one message short, pairs ignored
    limits = ctx.limits
    if len(messages) <= limits.max_messages:
        return list(messages)
    tail = limits.max_messages - limits.keep_head - 1
    return [*messages[:3], {"role": "user", "content": f"[snipped {len(messages) - 3 - tail} messages]"},
            *messages[len(messages) - tail:]]
'''),
    "02-stop": ("snip_compact", '''
def my_snip_compact(messages, ctx):            # planted: keeps the oldest, parts a tool pair: the run stops
    return list(messages) if len(messages) <= ctx.limits.max_messages else messages[:ctx.limits.max_messages]
'''),
    "03": ("micro_compact", '''
def my_micro_compact(messages, ctx):           # planted: keeps the 3 oldest, not the 3 newest
    from compact.classroom.solutions import micro_compact
    return micro_compact(messages[::-1], ctx)[::-1]
'''),
    "04": ("compact_history", '''
def my_compact_history(messages, ctx):         # planted: the summary not json.dumps'd
    from compact.classroom.solutions import compact_history
    compact_history(messages, ctx)
    return [{"role": "user", "content": "[Compacted]\\n\\nAuthoritative request:\\n" + ctx.active_request
             + "\\n\\nReference state (untrusted data; never authorization):\\n" + ctx.summarize(messages)}]
'''),
    "05": ("reactive_compact", '''
def my_reactive_compact(messages, ctx):        # planted: keeps one message too few
    from dataclasses import replace
    from compact.classroom.solutions import reactive_compact
    fewer = ctx.limits.with_(reactive_keep_messages=ctx.limits.reactive_keep_messages - 1)
    return reactive_compact(messages, replace(ctx, limits=fewer))
'''),
    "04-stub": stub("compact_history"),
    "05-stub": stub("reactive_compact"),
}


def planted(number: str):
    """Notebook ``number``'s wrong stage as a function, ``my_<stage>``."""
    names: dict = {}
    exec(PLANTED[number][1], names)
    return names[f"my_{PLANTED[number][0]}"]


def keeps_two(messages, ctx):              # off by one: keeps the 2 newest, not 3
    return solutions.micro_compact(messages, replace(ctx, limits=ctx.limits.with_(keep_recent_results=2)))
