"""Threads (``thread``, beta ``message-threads-2026-08-12``): the server keeps a conversation by reply id.

SDK 2.14's tool runner sends ``thread: {"type": "create"}`` on its first turn, then
``{"type": "continue", "previous_message_id": <the last reply's id>}`` with only the new
messages, and without ``system`` and ``tools`` (the thread keeps them). The offline server
keeps the last ``MAX_THREADS`` replies' conversations; a continue from one it no longer
holds is refused with the API's ``thread_not_found`` error, on which the SDK sends the
whole history again under a new thread. This is the one state the server keeps between
requests, and it is the client's conversation, as the API keeps it: the model still decides
only from the messages of the request (with the thread's in front).
"""

from __future__ import annotations

import copy
from collections import OrderedDict
from dataclasses import dataclass, field

from .validation import error_answer

MAX_THREADS = 256
CREATE_ONLY = ("system", "tools")


@dataclass
class Threads:
    held: OrderedDict = field(default_factory=OrderedDict)   # reply id → the request it ends

    def resolve(self, payload: dict) -> tuple[dict, tuple[int, dict] | None]:
        """(the request with the thread's conversation in front, None) or (payload, the error)."""
        thread = payload.get("thread")
        if thread is None:
            return payload, None
        if not isinstance(thread, dict) or thread.get("type") not in ("create", "continue"):
            return payload, error_answer(400, "invalid_request_error", "thread.type: Input "
                                         "should be 'create' or 'continue'")
        if thread["type"] == "create":
            return payload, None
        previous = thread.get("previous_message_id")
        held = self.held.get(previous) if isinstance(previous, str) else None
        if held is None:
            status, body = error_answer(404, "not_found_error", f"thread.previous_message_id: "
                                        f"no thread ends at {previous!r} (this server keeps the "
                                        f"last {MAX_THREADS}); send the whole conversation")
            body["error"]["details"] = {"error_code": "thread_not_found"}
            return payload, (status, body)
        repeated = [f for f in CREATE_ONLY if f in payload]
        if repeated:
            return payload, error_answer(400, "invalid_request_error", f"{repeated[0]}: a thread "
                                         "continue takes it from the thread; leave it out")
        messages = payload.get("messages")
        if not isinstance(messages, list):
            return payload, None            # validation refuses it in the API's words
        whole = {**payload, **{f: held[f] for f in CREATE_ONLY if f in held},
                 "messages": [*held["messages"], *messages]}
        return whole, None

    def record(self, payload: dict, reply: dict) -> None:
        """Keep the conversation a threaded request ended in, under the reply's id. The messages
        are shared with later requests of the thread, not copied (nothing changes a request's
        messages in place: every edit works on copies), so a thread costs one history."""
        if payload.get("thread") is None:
            return
        self.held[reply["id"]] = {
            **{f: payload[f] for f in CREATE_ONLY if f in payload},
            "messages": [*payload["messages"],
                         {"role": "assistant", "content": copy.deepcopy(reply["content"])}]}
        self.held.move_to_end(reply["id"])
        while len(self.held) > MAX_THREADS:
            self.held.popitem(last=False)

