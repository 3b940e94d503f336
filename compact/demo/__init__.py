"""The demo course workspace the experiments run in (``workspace.py`` builds it)."""

from .workspace import (
    DOCS_JSON_PATH,
    LESSON_TITLES,
    LESSONS,
    build_docs,
    docs_json_text,
    expected_titles,
    make_workspace,
    static_files,
)

__all__ = ["DOCS_JSON_PATH", "LESSONS", "LESSON_TITLES", "build_docs", "docs_json_text",
           "expected_titles", "make_workspace", "static_files"]
