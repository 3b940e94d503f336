"""Tool results holding ``document`` and ``search_result`` blocks (the API accepts both in a
tool_result) pass validation and every stage: stage 1 keeps such a result whole (a text preview
would drop the document), stage 3 compacts an old one by its size, stage 4 summarises them."""

from histories import assistant, user

from compact import Compactor, Limits, validate_history

DOCUMENT = {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "d" * 40_000}}
SEARCH = {"type": "search_result", "source": "https://example.com/a", "title": "A",
          "content": [{"type": "text", "text": "s" * 500}]}


def turn(k: int, blocks: list) -> list:
    call = {"type": "tool_use", "id": f"t{k}", "name": "read_file", "input": {"path": f"{k}.txt"}}
    return [{"role": "assistant", "content": [call]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"t{k}", "content": blocks}]}]


def history() -> list:
    messages = [user("read the documents")]
    for k in range(5):
        messages += turn(k, [DOCUMENT if k % 2 else SEARCH]) + [assistant(f"read {k}")]
    return messages


def test_document_and_search_result_blocks_go_through_every_stage(tmp_path):
    messages = history()
    validate_history(messages)                      # no HistoryError
    compactor = Compactor(tmp_path, Limits().with_(tool_result_budget=10_000, context_limit=30_000),
                          summarize=lambda m: f"Goal: read. Findings: {len(m)} messages.")
    budget_input = messages[:-1]                     # ends with the document batch, 40,000 chars
    assert compactor.tool_result_budget(budget_input) == budget_input     # kept whole
    micro = compactor.micro_compact(messages)
    replaced = [e for e in compactor.events if e.stage == "micro_compact"][-1]
    assert replaced.fired and replaced.placeholders == 2     # the oldest search result and document
    assert micro[2]["content"][0]["content"] == micro[5]["content"][0]["content"] == \
        "[Earlier tool result compacted. Re-run if needed.]"
    assert micro[14]["content"][0]["content"] == [SEARCH]              # the newest three stay
    sent = compactor.prepare(messages, "read the documents")
    assert len(sent) == 1 and sent[0]["content"].startswith("[Compacted]")
