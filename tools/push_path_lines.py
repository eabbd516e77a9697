"""The push path's size (issue 43: "from the socket message to every screen's frame, client included"): lines of
each file, and its code lines (no blank line, comment or docstring), and the longest function.

    .venv/bin/python -m tools.push_path_lines
"""

from __future__ import annotations

import ast
import io
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PUSH_PATH = [*sorted((ROOT / "gameplay" / "live").glob("*.py")), *sorted((ROOT / "gameplay" / "screens").glob("*.py")),
             ROOT / "gameplay" / "static" / "js" / "table.js"]


def _docstring_lines(tree: ast.Module) -> set[int]:
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value,
                                                                                                     str):
                lines.update(range(first.lineno, (first.end_lineno or first.lineno) + 1))
    return lines


def python_code_lines(source: str) -> int:
    skipped = _docstring_lines(ast.parse(source))
    code: set[int] = set()
    quiet = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER}
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type not in quiet:
            code.update(line for line in range(token.start[0], token.end[0] + 1) if line not in skipped)
    return len(code)


def script_code_lines(source: str) -> int:
    count, in_comment = 0, False
    for line in (raw.strip() for raw in source.splitlines()):
        if in_comment or line.startswith("/*"):
            in_comment = "*/" not in line
        elif line and not line.startswith("//"):
            count += 1
    return count


def longest_function(source: str) -> tuple[int, str]:
    kinds = ast.FunctionDef | ast.AsyncFunctionDef
    functions = [node for node in ast.walk(ast.parse(source)) if isinstance(node, kinds)]
    return max((((node.end_lineno or node.lineno) - node.lineno + 1, node.name) for node in functions), default=(0, ""))


def main() -> None:
    lines = code = 0
    longest = (0, "")
    for path in PUSH_PATH:
        source = path.read_text()
        count = python_code_lines(source) if path.suffix == ".py" else script_code_lines(source)
        if path.suffix == ".py":
            found = longest_function(source)
            longest = max(longest, (found[0], f"{path.name}:{found[1]}"))
        lines, code = lines + len(source.splitlines()), code + count
        print(f"{len(source.splitlines()):6d} {count:6d}  {path.relative_to(ROOT)}")
    print(f"{lines:6d} {code:6d}  the push path: lines, code lines; longest Python function {longest[0]} lines "
          f"({longest[1]})")


if __name__ == "__main__":
    main()
