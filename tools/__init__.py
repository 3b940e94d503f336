"""The repository's build tooling, not part of the installed package: ``make book``, ``make
figures``, ``make translation``, ``make budgets``, ``make lab`` / ``notebook`` / ``present``, the
notebooks' set-up cell and the repository's links. It may import ``compact``; ``compact`` never
imports it."""
