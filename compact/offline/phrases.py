"""Every phrase the offline model writes, in English and Chinese, keyed by name.

The model answers in the language of the request it is sent; readers of its own earlier text use
``forms(name)``, every language's form, so a note written in either language is read back.
"""

from __future__ import annotations

import re

LANGUAGES = ("en", "zh")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff]")

PHRASES: dict[str, tuple[str, str]] = {      # name → (English, Chinese)
    # how the model labels itself and its own lines (read back by view / summarizer)
    "prefix": ("(offline model) ", "（离线模型）"),
    "note": ("Note [{key}]: {fact}", "笔记 [{key}]：{fact}"),
    "next": ("Next: {step}", "下一步：{step}"),
    "sep": ("; ", "；"),
    "none": ("none", "无"),
    # next steps
    "next_read": ("read {path}.", "读取 {path}。"),
    "next_list_readmes": ("list the chapters' README files.", "列出各章节的 README 文件。"),
    "next_list_docs": ("list the documentation beside the programs.", "列出程序旁边的说明文档。"),
    "next_run": ("run {command}.", "运行 {command}。"),
    "rereading": ("Re-reading {n} file(s) whose results were compacted away.",
                  "重新读取 {n} 个结果已被压缩的文件。"),
    "reading": ("Reading {n} file(s).", "读取 {n} 个文件。"),
    # Markdown notes
    "h1": ("H1 {title}", "一级标题 {title}"),
    "no_h1": ("no H1", "没有一级标题"),
    "in_text_seen": (" in the text seen", "（在所见文本中）"),
    "starts": ("starts {first}", "开头是 {first}"),
    "front_matter": ("front matter", "前置元数据"),
    "sections": ("sections:", "二级标题："),
    "section": ("{name}", "{quoted}"),   # zh: quoted, the file's own words
    "section_sep": ("; ", ", "),
    "in_all": (", … ({n} in all)", ", …（共 {n} 个）"),
    "code_names": ("code names it explains:", "讲解的代码名："),
    # what was seen of a result
    "preview_seen": ("only the preview's first {n:,}{total} chars were seen",
                     "只看到了预览的前 {n:,} 个字符{total}"),
    "of_total": (" of {n:,}", "，总共 {n:,} 个"),
    "excerpt": ("an excerpt: {seen:,} of {total:,} chars, the middle not seen",
                "节选：{total:,} 个字符中的 {seen:,} 个，中间部分未看到"),
    "persisted_fact": ("full output{size} persisted at {path}, facts taken from its preview",
                       "完整输出{size}已保存到 {path}，事实取自其预览"),
    "size_chars": (" ({n} chars)", "（{n} 个字符）"),
    "error_fact": ("error: {text}", "错误：{text}"),
    "text_fact": ("{n} chars; first line {line}", "{n} 个字符；第一行 {line}"),
    "text_fact_seen": ("first line {line}", "第一行 {line}"),    # part seen: its size is not the file's
    # code notes
    "lines": ("{language}, {n:,} lines", "{language}，{n:,} 行"),
    "lines_seen": ("{language}, {n:,} lines seen", "{language}，所见 {n:,} 行"),   # of a part, not the file
    "parsed_whole": (" (parsed whole)", "（完整解析）"),
    "partial_paren": (" ({how})", "（{how}）"),
    "line_by_line": ("partial text: read line by line", "部分文本：逐行读取"),
    "at_least": ("at least ", "至少 "),
    "docstring": ("docstring \"{text}\"", "文档字符串 \"{text}\""),
    "no_docstring": ("no module docstring", "没有模块文档字符串"),
    "in_part_seen": ("in the part seen, ", "所见部分中，"),
    "classes": ("{least}{n} class{s}: {names}", "{least}{n} 个类：{names}"),
    "methods": ("{name} (methods: {names})", "{name}（方法：{names}）"),
    "functions": ("{least}{n} top-level function{s}: {names}", "{least}{n} 个顶层函数：{names}"),
    "no_definitions": ("no function or class definitions", "没有函数或类的定义"),
    "no_definitions_seen": ("no function or class definitions in the part seen",
                            "所见部分中没有函数或类的定义"),
    "constants": ("constants:", "常量："),
    "constant": ("{name} = {value}", "`{name} = {value}`"),   # zh: code, as code
    "paths_named": ("files and folders it names:", "提到的文件和文件夹："),
    # what a program does (read_effects)
    "entry": ("entry point:", "入口："),
    "writes": ("writes:", "写入："),
    "model_request": ("model request:", "模型请求："),
    "errors": ("errors:", "错误处理："),
    "given_path": ("a path it is given", "传入的路径"),
    "system_from": ("system from {names}", "system 来自 {names}"),
    "messages_from": ("messages from {names}", "messages 来自 {names}"),
    "content_texts": ("texts it puts in a content: {names}", "放进 content 的文本：{names}"),
    "catches": ("catches {items}", "捕获 {items}"),
    "raises": ("raises {items}", "抛出 {items}"),
    # JSON notes
    "json_unreadable": ("not JSON that can be read (it does not start with a JSON value)",
                        "无法读取的 JSON（开头不是 JSON 值）"),
    "json_seen": ("only its first {n:,} chars were seen{total}", "只看到了前 {n:,} 个字符{total}"),
    "json_object": ("JSON object{seen}; top-level keys{keys_seen}: {keys}",
                    "JSON 对象{seen}；顶层键{keys_seen}：{keys}"),
    "keys_seen": (" seen", "（所见）"),
    "json_array": ("JSON array{seen}{items}", "JSON 数组{seen}{items}"),
    "of_items": (" of {n} items", "，共 {n} 项"),
    "json_single": ("a single JSON {kind}: {value}", "单个 JSON {kind}：{value}"),
    "no_records": ("no list or map of records in the text seen", "所见文本中没有记录的列表或映射"),
    "holds": ("{where} holds {count}", "{where} 包含 {count}"),
    "records_n": ("{n} record{s}", "{n} 条记录"),
    "keyed": (", keyed by id ({keys})", "，以 id 为键（{keys}）"),
    "holds_partial": ("{where} holds the records: {visible}; the total number of records is not visible in "
                      "the text seen",
                      "{where} 包含这些记录：{visible}；所见文本中看不到记录总数"),
    "complete_visible": ("{n} complete record{s} visible", "可见 {n} 条完整记录"),
    "nth_cut": (", the {nth} cut off where the text seen ends", "，第 {n} 条在所见文本结尾处被截断"),
    "fields": ("a record's fields: {fields}", "一条记录的字段：{fields}"),
    "only_in_cut": ("seen only in the cut-off record: {names}", "只在被截断的记录中见到：{names}"),
    "fields_from_cut": ("these come from a record the text seen cuts off: more fields may follow",
                        "这些字段来自一条被截断的记录：后面可能还有更多字段"),
    "top_level": ("the top level", "顶层"),
    "top_level_array": ("the top-level array", "顶层数组"),
    "cut_off": (" (cut off)", "（被截断）"),
    "cut_off_field": (", cut off", "，被截断"),
    "not_visible": ("value not visible", "值不可见"),
    "field": ("{name} ({label})", "{name}（{label}）"),
    "boolean": ("boolean", "布尔值"),
    "number": ("number", "数字"),
    "string": ("string", "字符串"),
    "array": ("array", "数组"),
    "array_of": ("array of {kinds}", "{kinds} 数组"),
    "object": ("object", "对象"),
    # small tasks (chores)
    "writing": ("Writing {path}.", "写入 {path}。"),
    "writing_compact": ("Writing {path}, then asking for compaction.", "写入 {path}，然后请求压缩。"),
    "written": ("Done: {path} is written.", "完成：{path} 已写入。"),
    "written_compacted": ("Done: {path} is written (once) and the finished turn was compacted.",
                          "完成：{path} 已写入（只写一次），完成的这一轮已被压缩。"),
    "noted": ("Noted: {text}", "已记下：{text}"),
    "plain": ("I am the offline teaching model. I can list, read, compare and summarise files in the "
              "workspace; I received: {request}",
              "我是离线教学模型，可以列出、读取、比较和总结工作区中的文件；我收到的是：{request}"),
    "no_title": ("{path} has no H1 title; {facts}", "{path} 没有一级标题；{facts}"),
    "title_of": ("The title of {path} is {title}.", "{path} 的标题是 {title}。"),
    "needs_tool": ("I need a tool to {needed} for this, and the request offers none that can (tools "
                   "offered: {offered}).",
                   "这件事需要一个能{needed}的工具，而请求中没有提供（提供的工具：{offered}）。"),
    "no_tools": ("none", "无"),
    "can_read_file": ("read a file", "读取文件"),
    "can_glob": ("list files by pattern", "按模式列出文件"),
    "can_bash": ("run a command", "运行命令"),
    "can_write_file": ("write a file", "写文件"),
    "can_edit_file": ("edit a file", "编辑文件"),
    "can_compact": ("compact", "压缩"),
    "list_sep": (", ", "、"),
    "nothing": ("nothing", "无"),
    # titles
    "no_readme": ("No {readme} matched {pattern} for the chapters asked for; the listing had: {files}.",
                  "没有找到所要求章节的 {readme}（{pattern}）；列出的文件：{files}。"),
    "no_pattern": ("the titles share no single pattern (their separators differ)",
                   "这些标题没有统一的命名规律（分隔符各不相同）"),
    "every_title": ("every title is `{template}`: {words}", "每个标题都是 `{template}`：{words}"),
    "some_titles": ("{n} of {of} titles are `{template}`: {words}",
                    "{of} 个标题中有 {n} 个是 `{template}`：{words}"),
    "title_differs": ("; {folder}'s is not: “{title}”", "；{folder} 的不同：“{title}”"),
    "title_missing": ("; {path} has no H1 ({facts})", "；{path} 没有一级标题（{facts}）"),
    "titles_head": ("The {n} H1 titles:", "{n} 个一级标题："),
    "naming_pattern": ("Naming pattern: {rule}.", "命名规律：{rule}。"),
    "structure_of": ("Structure of {path}:", "{path} 的数据结构："),
    "title_line": ("{i}. {folder}: {title}", "{i}. {folder}：“{title}”"),
    # comparisons
    "named_in_request": ("named in the request", "请求中点名"),
    "no_readme_beside": ("no README beside it; its docstring is the explanation",
                         "旁边没有 README，以其文档字符串为说明"),
    "no_listing_tool": ("no tool to list files was offered, so no README was looked for; its docstring is "
                        "the explanation",
                        "没有可列出文件的工具，未查找 README；以其文档字符串为说明"),
    "no_name_found": ("none", "没有"),
    "names_head": ("Names that carry the question's words ({words}):", "带有问题中词语（{words}）的名字："),
    "names_unmatched": ("No name in either carries: {words}.", "两者都没有带这些词的名字：{words}。"),
    "from_summary": (" (from the summary's notes)", "（根据摘要中的笔记）"),
    "comparison": ("Comparison{source}:", "比较{source}："),
    "programs": ("Programs: {chosen}.", "比较的程序：{chosen}。"),
    "the_question": ("The question: “{question}”.", "问题：“{question}”。"),
    "shared": ("Shared by both: {names}.", "两者共有：{names}。"),
    "no_shared": ("no name", "没有相同的名字"),
    "facet_writes": ("What each stores, and where (the files it writes):",
                     "各自保存什么、存在哪里（写入的文件）："),
    "facet_writes_none": ("writes no file", "不写任何文件"),
    "facet_model_request": ("What each keeps in the prompt (what it sends the model):",
                            "各自在提示中保留什么（发给模型的内容）："),
    "facet_model_request_none": ("sends no model request", "不向模型发送请求"),
    "facet_errors": ("How each handles errors (what it catches and raises):",
                     "各自如何处理错误（捕获和抛出的异常）："),
    "facet_errors_none": ("catches and raises nothing", "不捕获也不抛出异常"),
    "says_it_is": ("what it says it is: {text}", "自述：{text}"),
    "structure": ("structure: {text}", "结构：{text}"),
    "explained_in": ("explained in {path}: {text}", "说明文档 {path}：{text}"),
    "paths_it_names": ("the paths it names: {paths}", "代码中出现的路径：{paths}"),
    "readme_names": ("its README names: {names}", "README 提到：{names}"),
    "no_write_seen": ("no write seen in the part read", "所见部分中没有写入"),
    "none_seen": ("none in the part seen", "所见部分中没有"),
    "nothing_noted": ("nothing noted", "没有笔记"),
    # command output and listings
    "output_lines": ("{n} lines; first: {first}", "{n} 行；第一行：{first}"),
    "output_lines_seen": ("{n} lines seen; first: {first}", "所见 {n} 行；第一行：{first}"),
    "notable": ("; notable: {lines}", "；值得注意：{lines}"),
    "output_persisted": ("; full output persisted at {path} (facts from its preview)",
                         "；完整输出已保存到 {path}（事实取自其预览）"),
    "files": ("files: ", "文件："),
    # summaries (read back by view and summarizer)
    "summary_label": ("(offline extractive summary by offline-compact-1, not Claude)",
                      "（offline-compact-1 离线抽取式摘要，并非 Claude）"),
    "goal": ("Goal: {goal}", "目标：{goal}"),
    "not_stated": ("not stated", "未说明"),
    "goal_cut": ("… ({n:,} chars; the full request is kept beside this summary)",
                 "…（共 {n:,} 个字符；完整请求保存在本摘要旁边）"),
    "earlier": ("Earlier requests: {requests}", "更早的请求：{requests}"),
    "findings": ("Findings:", "发现："),
    "none_recorded": ("(none recorded)", "（没有记录）"),
    "said": ("Said by the agent: {text}", "智能体说过：{text}"),
    "files_heading": ("Files:", "文件："),
    "no_files": ("- none", "- 无"),
    "remaining": ("Remaining work: {work}", "剩余工作：{work}"),
    "not_recorded": ("not recorded", "没有记录"),
    "remaining_done": ("{step} (done: the result of {calls} arrived and is noted above); then finish the "
                       "goal",
                       "{step}（已完成：{calls} 的结果已返回并记在上面）；然后完成目标"),
    "constraints": ("User constraints: {constraints}", "用户约束：{constraints}"),
    "none_stated": ("none stated", "未提出"),
    "source": ("source: {how}", "来源：{how}"),
    "from_excerpt": ("from an excerpt cut by the summary request's size cap",
                     "来自被摘要请求的长度上限截断的节选"),
    "by_summariser": ("noted by the summariser, not yet by the agent", "由摘要器记下，智能体尚未记下"),
    "no_matches": ("(no matches)", "（没有匹配）"),
}


def language(request: str) -> str:
    """``zh`` when the request is written in Chinese (any CJK character), else ``en``."""
    return "zh" if _CJK.search(request) else "en"


def phrase(key: str, lang: str, /, **values: object) -> str:
    """The phrase ``key`` in ``lang`` (English for a language it has no form in)."""
    return PHRASES[key][LANGUAGES.index(lang) if lang in LANGUAGES else 0].format(**values)


def offline_label(lang: str) -> str:
    """How the model labels an answer it writes: as the offline model, in ``lang``."""
    return phrase("prefix", lang)


def forms(name: str) -> tuple[str, ...]:
    """Every language's form of a phrase without values (a label), for readers."""
    return tuple(dict.fromkeys(PHRASES[name]))


def labelled(key: str, lang: str, text: str) -> str:
    """``label text``: a note part others read back by its label (no space after a full-width colon)."""
    label = phrase(key, lang)
    return f"{label}{text}" if label.endswith("：") else f"{label} {text}"


def after_label(part: str, key: str) -> str | None:
    """What follows ``key``'s label (either language) at the start of ``part``, else None."""
    found = next((f for f in forms(key) if part.startswith(f)), None)
    return part[len(found):].strip() if found is not None else None


def listed(items: list[str], limit: int) -> str:
    """The first ``limit`` items, joined; ", …" when there are more."""
    return ", ".join(items[:limit]) + (", …" if len(items) > limit else "")


def split_parts(fact: str) -> list[str]:
    """A note's parts, split at either language's separator."""
    return [p for p in re.split(r"; |；", fact) if p]
