"""Every phrase the offline model writes, in each language it answers in, keyed by name.

The model answers in the language of the request it is sent (``language``: Chinese for a
request with any CJK character), never in a language chosen elsewhere. ``phrase(name, lang,
**values)`` writes one; readers of the model's own earlier text (its notes, its summaries) use
``forms(name)``, every language's form, so a note written in either language is read back.
"""

from __future__ import annotations

import re

LANGUAGES = ("en", "zh")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff]")

PHRASES: dict[str, dict[str, str]] = {
    # how the model labels itself and its own lines (read back by view / summarizer)
    "prefix": {"en": "(offline model) ", "zh": "（离线模型）"},
    "note": {"en": "Note [{key}]: {fact}", "zh": "笔记 [{key}]：{fact}"},
    "next": {"en": "Next: {step}", "zh": "下一步：{step}"},
    "sep": {"en": "; ", "zh": "；"},
    "none": {"en": "none", "zh": "无"},
    # next steps
    "next_read": {"en": "read {path}.", "zh": "读取 {path}。"},
    "next_list_readmes": {"en": "list the chapters' README files.",
                          "zh": "列出各章节的 README 文件。"},
    "next_list_docs": {"en": "list the documentation beside the programs.",
                       "zh": "列出程序旁边的说明文档。"},
    "next_list_folder": {"en": "list {folder}/ to find its program.",
                         "zh": "列出 {folder}/，找出其中的程序。"},
    "next_run": {"en": "run {command}.", "zh": "运行 {command}。"},
    "rereading": {"en": "Re-reading {n} file(s) whose results were compacted away.",
                  "zh": "重新读取 {n} 个结果已被压缩的文件。"},
    "reading": {"en": "Reading {n} file(s).", "zh": "读取 {n} 个文件。"},
    # Markdown notes
    "h1": {"en": "H1 {title}", "zh": "一级标题 {title}"},
    "no_h1": {"en": "no H1", "zh": "没有一级标题"},
    "in_text_seen": {"en": " in the text seen", "zh": "（在所见文本中）"},
    "starts": {"en": "starts {first}", "zh": "开头是 {first}"},
    "front_matter": {"en": "front matter", "zh": "前置元数据"},
    "sections": {"en": "sections:", "zh": "二级标题："},
    "section": {"en": "{name}", "zh": "{quoted}"},       # zh: quoted, the file's own words
    "section_sep": {"en": "; ", "zh": ", "},
    "in_all": {"en": ", … ({n} in all)", "zh": ", …（共 {n} 个）"},
    "code_names": {"en": "code names it explains:", "zh": "讲解的代码名："},
    # what was seen of a result
    "preview_seen": {"en": "only the preview's first {n:,}{total} chars were seen",
                     "zh": "只看到了预览的前 {n:,} 个字符{total}"},
    "of_total": {"en": " of {n:,}", "zh": "，总共 {n:,} 个"},
    "excerpt": {"en": "an excerpt: {seen:,} of {total:,} chars, the middle not seen",
                "zh": "节选：{total:,} 个字符中的 {seen:,} 个，中间部分未看到"},
    "persisted_fact": {"en": "full output{size} persisted at {path}, facts taken from its preview",
                       "zh": "完整输出{size}已保存到 {path}，事实取自其预览"},
    "size_chars": {"en": " ({n} chars)", "zh": "（{n} 个字符）"},
    "error_fact": {"en": "error: {text}", "zh": "错误：{text}"},
    "text_fact": {"en": "{n} chars; first line {line}", "zh": "{n} 个字符；第一行 {line}"},
    # code notes
    "lines": {"en": "{language}, {n:,} lines", "zh": "{language}，{n:,} 行"},
    "parsed_whole": {"en": " (parsed whole)", "zh": "（完整解析）"},
    "partial_paren": {"en": " ({how})", "zh": "（{how}）"},
    "line_by_line": {"en": "partial text: read line by line", "zh": "部分文本：逐行读取"},
    "at_least": {"en": "at least ", "zh": "至少 "},
    "docstring": {"en": 'docstring "{text}"', "zh": '文档字符串 "{text}"'},
    "no_docstring": {"en": "no module docstring", "zh": "没有模块文档字符串"},
    "in_part_seen": {"en": "in the part seen, ", "zh": "所见部分中，"},
    "classes": {"en": "{least}{n} class{s}: {names}", "zh": "{least}{n} 个类：{names}"},
    "methods": {"en": "{name} (methods: {names})", "zh": "{name}（方法：{names}）"},
    "functions": {"en": "{least}{n} top-level function{s}: {names}",
                  "zh": "{least}{n} 个顶层函数：{names}"},
    "no_definitions": {"en": "no function or class definitions",
                       "zh": "没有函数或类的定义"},
    "no_definitions_seen": {"en": "no function or class definitions in the part seen",
                            "zh": "所见部分中没有函数或类的定义"},
    "constants": {"en": "constants:", "zh": "常量："},
    "constant": {"en": "{name} = {value}", "zh": "`{name} = {value}`"},   # zh: code, as code
    "paths_named": {"en": "files and folders it names:", "zh": "提到的文件和文件夹："},
    # what a program does (read_effects)
    "entry": {"en": "entry point:", "zh": "入口："},
    "writes": {"en": "writes:", "zh": "写入："},
    "model_request": {"en": "model request:", "zh": "模型请求："},
    "errors": {"en": "errors:", "zh": "错误处理："},
    "given_path": {"en": "a path it is given", "zh": "传入的路径"},
    "system_from": {"en": "system from {names}", "zh": "system 来自 {names}"},
    "messages_from": {"en": "messages from {names}", "zh": "messages 来自 {names}"},
    "content_texts": {"en": "texts it puts in a content: {texts}", "zh": "放进 content 的文本：{texts}"},
    "catches": {"en": "catches {items}", "zh": "捕获 {items}"},
    "raises": {"en": "raises {items}", "zh": "抛出 {items}"},
    # JSON notes
    "json_unreadable": {"en": "not JSON that can be read (it does not start with a JSON value)",
                        "zh": "无法读取的 JSON（开头不是 JSON 值）"},
    "json_seen": {"en": "only its first {n:,} chars were seen{total}",
                  "zh": "只看到了前 {n:,} 个字符{total}"},
    "json_object": {"en": "JSON object{seen}; top-level keys{keys_seen}: {keys}",
                    "zh": "JSON 对象{seen}；顶层键{keys_seen}：{keys}"},
    "keys_seen": {"en": " seen", "zh": "（所见）"},
    "json_array": {"en": "JSON array{seen}{items}", "zh": "JSON 数组{seen}{items}"},
    "of_items": {"en": " of {n} items", "zh": "，共 {n} 项"},
    "json_single": {"en": "a single JSON {kind}: {value}", "zh": "单个 JSON {kind}：{value}"},
    "no_records": {"en": "no list or map of records in the text seen",
                   "zh": "所见文本中没有记录的列表或映射"},
    "nesting": {"en": "nesting seen: {spine}", "zh": "所见的嵌套：{spine}"},
    "holds": {"en": "{where} holds {count}", "zh": "{where} 包含 {count}"},
    "records_n": {"en": "{n} record{s}", "zh": "{n} 条记录"},
    "keyed": {"en": ", keyed by id ({keys})", "zh": "，以 id 为键（{keys}）"},
    "holds_partial": {"en": "{where} holds the records: {visible}; the total number of records "
                            "is not visible in the text seen",
                      "zh": "{where} 包含这些记录：{visible}；所见文本中看不到记录总数"},
    "complete_visible": {"en": "{n} complete record{s} visible", "zh": "可见 {n} 条完整记录"},
    "nth_cut": {"en": ", the {nth} cut off where the text seen ends",
                "zh": "，第 {n} 条在所见文本结尾处被截断"},
    "fields": {"en": "a record's fields: {fields}", "zh": "一条记录的字段：{fields}"},
    "only_in_cut": {"en": "seen only in the cut-off record: {names}",
                    "zh": "只在被截断的记录中见到：{names}"},
    "fields_from_cut": {"en": "these come from a record the text seen cuts off: more fields "
                              "may follow",
                        "zh": "这些字段来自一条被截断的记录：后面可能还有更多字段"},
    "top_level": {"en": "the top level", "zh": "顶层"},
    "top_level_array": {"en": "the top-level array", "zh": "顶层数组"},
    "cut_off": {"en": " (cut off)", "zh": "（被截断）"},
    "cut_off_field": {"en": ", cut off", "zh": "，被截断"},
    "not_visible": {"en": "value not visible", "zh": "值不可见"},
    "field": {"en": "{name} ({label})", "zh": "{name}（{label}）"},
    "boolean": {"en": "boolean", "zh": "布尔值"},
    "number": {"en": "number", "zh": "数字"},
    "string": {"en": "string", "zh": "字符串"},
    "array": {"en": "array", "zh": "数组"},
    "array_of": {"en": "array of {kinds}", "zh": "{kinds} 数组"},
    "object": {"en": "object", "zh": "对象"},
    # small tasks (chores)
    "writing": {"en": "Writing {path}.", "zh": "写入 {path}。"},
    "writing_compact": {"en": "Writing {path}, then asking for compaction.",
                        "zh": "写入 {path}，然后请求压缩。"},
    "written": {"en": "Done: {path} is written.", "zh": "完成：{path} 已写入。"},
    "written_compacted": {"en": "Done: {path} is written (once) and the finished turn was compacted.",
                          "zh": "完成：{path} 已写入（只写一次），完成的这一轮已被压缩。"},
    "noted": {"en": "Noted: {text}", "zh": "已记下：{text}"},
    "plain": {"en": "I am the offline teaching model. I can list, read, compare and summarise "
                    "files in the workspace; I received: {request}",
              "zh": "我是离线教学模型，可以列出、读取、比较和总结工作区中的文件；我收到的是：{request}"},
    "no_title": {"en": "{path} has no H1 title; {facts}", "zh": "{path} 没有一级标题；{facts}"},
    "title_of": {"en": "The title of {path} is {title}.", "zh": "{path} 的标题是 {title}。"},
    "needs_tool": {"en": "I need a tool to {needed} for this, and the request offers none that "
                         "can (tools offered: {offered}).",
                   "zh": "这件事需要一个能{needed}的工具，而请求中没有提供（提供的工具：{offered}）。"},
    "no_tools": {"en": "none", "zh": "无"},
    "can_read_file": {"en": "read a file", "zh": "读取文件"},
    "can_glob": {"en": "list files by pattern", "zh": "按模式列出文件"},
    "can_bash": {"en": "run a command", "zh": "运行命令"},
    "can_write_file": {"en": "write a file", "zh": "写文件"},
    "can_edit_file": {"en": "edit a file", "zh": "编辑文件"},
    "can_compact": {"en": "compact", "zh": "压缩"},
    "list_sep": {"en": ", ", "zh": "、"},
    "nothing": {"en": "nothing", "zh": "无"},
    # titles
    "no_readme": {"en": "No {readme} matched {pattern} for the chapters asked for; the listing "
                        "had: {files}.",
                  "zh": "没有找到所要求章节的 {readme}（{pattern}）；列出的文件：{files}。"},
    "no_pattern": {"en": "the titles share no single pattern (their separators differ)",
                   "zh": "这些标题没有统一的命名规律（分隔符各不相同）"},
    "every_title": {"en": "every title is `{template}`: {words}",
                    "zh": "每个标题都是 `{template}`：{words}"},
    "some_titles": {"en": "{n} of {of} titles are `{template}`: {words}",
                    "zh": "{of} 个标题中有 {n} 个是 `{template}`：{words}"},
    "title_differs": {"en": "; {folder}'s is not: “{title}”", "zh": "；{folder} 的不同：“{title}”"},
    "title_missing": {"en": "; {path} has no H1 ({facts})", "zh": "；{path} 没有一级标题（{facts}）"},
    "titles_head": {"en": "The {n} H1 titles:", "zh": "{n} 个一级标题："},
    "naming_pattern": {"en": "Naming pattern: {rule}.", "zh": "命名规律：{rule}。"},
    "structure_of": {"en": "Structure of {path}:", "zh": "{path} 的数据结构："},
    "title_line": {"en": "{i}. {folder}: {title}", "zh": "{i}. {folder}：“{title}”"},
    # comparisons
    "only_entry": {"en": "the only one of them with an entry point", "zh": "其中唯一有入口的程序"},
    "has_entry": {"en": "it has an entry point", "zh": "有入口"},
    "named_after_folder": {"en": "named after its folder", "zh": "以所在文件夹命名"},
    "longest": {"en": "the longest ({n:,} lines)", "zh": "最长（{n:,} 行）"},
    "named_in_request": {"en": "named in the request", "zh": "请求中点名"},
    "only_program": {"en": "the only program in {folder}/", "zh": "{folder}/ 中唯一的程序"},
    "beside_it": {"en": "; beside it: {others}", "zh": "；同目录还有：{others}"},
    "too_few_programs": {"en": "I found fewer than two programs to compare in what the request "
                               "names.", "zh": "请求中能找到的程序不足两个，无法比较。"},
    "no_readme_beside": {"en": "no README beside it; its docstring is the explanation",
                         "zh": "旁边没有 README，以其文档字符串为说明"},
    "no_listing_tool": {"en": "no tool to list files was offered, so no README was looked for; "
                              "its docstring is the explanation",
                        "zh": "没有可列出文件的工具，未查找 README；以其文档字符串为说明"},
    "no_name_found": {"en": "none", "zh": "没有"},
    "names_head": {"en": "Names that carry the question's words ({words}):",
                   "zh": "带有问题中词语（{words}）的名字："},
    "names_unmatched": {"en": "No name in either carries: {words}.",
                        "zh": "两者都没有带这些词的名字：{words}。"},
    "from_summary": {"en": " (from the summary's notes)", "zh": "（根据摘要中的笔记）"},
    "comparison": {"en": "Comparison{source}:", "zh": "比较{source}："},
    "programs": {"en": "Programs: {chosen}.", "zh": "比较的程序：{chosen}。"},
    "the_question": {"en": "The question: “{question}”.", "zh": "问题：“{question}”。"},
    "shared": {"en": "Shared by both: {names}.", "zh": "两者共有：{names}。"},
    "no_shared": {"en": "no name", "zh": "没有相同的名字"},
    "facet_writes": {"en": "What each stores, and where (the files it writes):",
                     "zh": "各自保存什么、存在哪里（写入的文件）："},
    "facet_writes_none": {"en": "writes no file", "zh": "不写任何文件"},
    "facet_model_request": {"en": "What each keeps in the prompt (what it sends the model):",
                            "zh": "各自在提示中保留什么（发给模型的内容）："},
    "facet_model_request_none": {"en": "sends no model request", "zh": "不向模型发送请求"},
    "facet_errors": {"en": "How each handles errors (what it catches and raises):",
                     "zh": "各自如何处理错误（捕获和抛出的异常）："},
    "facet_errors_none": {"en": "catches and raises nothing", "zh": "不捕获也不抛出异常"},
    "says_it_is": {"en": "what it says it is: {text}", "zh": "自述：{text}"},
    "structure": {"en": "structure: {text}", "zh": "结构：{text}"},
    "explained_in": {"en": "explained in {path}: {text}", "zh": "说明文档 {path}：{text}"},
    "paths_it_names": {"en": "the paths it names: {paths}", "zh": "代码中出现的路径：{paths}"},
    "readme_names": {"en": "its README names: {names}", "zh": "README 提到：{names}"},
    "no_write_seen": {"en": "no write seen in the part read", "zh": "所见部分中没有写入"},
    "none_seen": {"en": "none in the part seen", "zh": "所见部分中没有"},
    "nothing_noted": {"en": "nothing noted", "zh": "没有笔记"},
    # command output and listings
    "output_lines": {"en": "{n} lines; first: {first}", "zh": "{n} 行；第一行：{first}"},
    "notable": {"en": "; notable: {lines}", "zh": "；值得注意：{lines}"},
    "output_persisted": {"en": "; full output persisted at {path} (facts from its preview)",
                         "zh": "；完整输出已保存到 {path}（事实取自其预览）"},
    "files": {"en": "files: ", "zh": "文件："},
    # summaries (read back by view and summarizer)
    "summary_label": {"en": "(offline extractive summary by offline-compact-1, not Claude)",
                      "zh": "（offline-compact-1 离线抽取式摘要，并非 Claude）"},
    "goal": {"en": "Goal: {goal}", "zh": "目标：{goal}"},
    "not_stated": {"en": "not stated", "zh": "未说明"},
    "goal_cut": {"en": "… ({n:,} chars; the full request is kept beside this summary)",
                 "zh": "…（共 {n:,} 个字符；完整请求保存在本摘要旁边）"},
    "earlier": {"en": "Earlier requests: {requests}", "zh": "更早的请求：{requests}"},
    "findings": {"en": "Findings:", "zh": "发现："},
    "none_recorded": {"en": "(none recorded)", "zh": "（没有记录）"},
    "said": {"en": "Said by the agent: {text}", "zh": "智能体说过：{text}"},
    "files_heading": {"en": "Files:", "zh": "文件："},
    "no_files": {"en": "- none", "zh": "- 无"},
    "remaining": {"en": "Remaining work: {work}", "zh": "剩余工作：{work}"},
    "not_recorded": {"en": "not recorded", "zh": "没有记录"},
    "remaining_done": {"en": "{step} (done: the result of {calls} arrived and is noted above); "
                             "then finish the goal",
                       "zh": "{step}（已完成：{calls} 的结果已返回并记在上面）；然后完成目标"},
    "constraints": {"en": "User constraints: {constraints}", "zh": "用户约束：{constraints}"},
    "none_stated": {"en": "none stated", "zh": "未提出"},
    "source": {"en": "source: {how}", "zh": "来源：{how}"},
    "from_excerpt": {"en": "from an excerpt cut by the summary request's size cap",
                     "zh": "来自被摘要请求的长度上限截断的节选"},
    "by_summariser": {"en": "noted by the summariser, not yet by the agent",
                      "zh": "由摘要器记下，智能体尚未记下"},
    "no_matches": {"en": "(no matches)", "zh": "（没有匹配）"},
}


def language(request: str) -> str:
    """``zh`` when the request is written in Chinese (any CJK character), else ``en``."""
    return "zh" if _CJK.search(request) else "en"


def phrase(key: str, lang: str, /, **values: object) -> str:
    """The phrase ``key`` in ``lang`` (English for a language it has no form in)."""
    forms_of = PHRASES[key]
    return forms_of.get(lang, forms_of["en"]).format(**values)


def offline_label(lang: str) -> str:
    """How the model labels an answer it writes: as the offline model, in ``lang``."""
    return phrase("prefix", lang)


def forms(name: str) -> tuple[str, ...]:
    """Every language's form of a phrase without values (a label), for readers."""
    return tuple(dict.fromkeys(PHRASES[name][lang] for lang in LANGUAGES))


def labelled(key: str, lang: str, text: str) -> str:
    """``label text``: a note part others read back by its label (no space after a full-width colon)."""
    label = phrase(key, lang)
    return f"{label}{text}" if label.endswith("：") else f"{label} {text}"


def after_label(part: str, key: str) -> str | None:
    """What follows ``key``'s label (either language) at the start of ``part``, else None."""
    found = next((f for f in forms(key) if part.startswith(f)), None)
    return part[len(found):].strip() if found is not None else None


def split_parts(fact: str) -> list[str]:
    """A note's parts, split at either language's separator."""
    return [p for p in re.split(r"; |；", fact) if p]
