"""Just enough LaTeX: the main file, ``\\input``/``\\include`` expansion, ``\\graphicspath`` and
the figure environments with their graphics, captions (nested braces), labels and subfigures."""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field

MAX_EXPANDED = 8_000_000
MAX_DEPTH = 12
FIGURE_ENVS = ("figure", "figure*", "wrapfigure", "teaserfigure")
SUBFIGURE_ENVS = ("subfigure", "subfigure*", "minipage")
MAIN_NAMES = ("main.tex", "ms.tex", "paper.tex", "article.tex")
GRAPHIC_EXTENSIONS = (".pdf", ".png", ".jpg", ".jpeg", ".eps", ".ps", ".PDF", ".PNG", ".JPG",
                      ".JPEG", ".EPS")

_COMMENT = re.compile(r"(?<!\\)%.*")
_INPUT = re.compile(r"\\(input|include|subfile)\s*\{([^{}]+)\}|\\input\s+([^\s{}\\]+)")
_IMPORT = re.compile(r"\\(?:sub)?import\*?\s*\{([^{}]*)\}\s*\{([^{}]+)\}")
_BEGIN = re.compile(r"\\begin\s*\{(" + "|".join(re.escape(e) for e in FIGURE_ENVS) + r")\}")


@dataclass(frozen=True)
class Graphic:
    path: str
    options: str


@dataclass
class Figure:
    """One figure environment, in document order."""

    index: int
    env: str
    caption: str
    label: str
    graphics: list[Graphic] = field(default_factory=list)
    subfigures: int = 0


def strip_comments(text: str) -> str:
    return "\n".join(_COMMENT.sub("", line) for line in text.split("\n"))


def decode(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def main_file(files: dict[str, bytes]) -> str | None:
    """The file holding ``\\documentclass`` (and ``\\begin{document}``), preferring usual names."""
    candidates = []
    for name, data in files.items():
        if not name.lower().endswith((".tex", ".ltx")):
            continue
        text = strip_comments(decode(data))
        if "\\documentclass" in text:
            candidates.append((
                "\\begin{document}" in text, posixpath.basename(name).lower() in MAIN_NAMES,
                name.count("/") == 0, len(data), name,
            ))
    return max(candidates)[-1] if candidates else None


def _find(files: dict[str, bytes], name: str, base: str) -> str | None:
    name = name.strip().strip('"')
    for folder in (base, ""):
        path = posixpath.normpath(posixpath.join(folder, name)).removeprefix("./")
        for candidate in (path, path + ".tex"):
            if candidate in files:
                return candidate
    return None


def expand(files: dict[str, bytes], name: str) -> str:
    """The main file with its ``\\input``, ``\\include``, ``\\subfile`` and ``\\import`` inlined."""
    budget = [MAX_EXPANDED]

    def inline(path: str, depth: int, stack: tuple[str, ...]) -> str:
        text = strip_comments(decode(files[path]))
        base = posixpath.dirname(path)

        def replace(match: re.Match[str]) -> str:
            if match.re is _IMPORT:
                folder, target = match[1], match[2]
                found = _find(files, posixpath.join(folder, target), base)
            else:
                found = _find(files, match[2] or match[3], base)
            if found is None or found in stack or depth >= MAX_DEPTH:
                return ""
            body = inline(found, depth + 1, (*stack, found))
            budget[0] -= len(body)
            return body if budget[0] > 0 else ""

        text = _IMPORT.sub(replace, text)
        return _INPUT.sub(replace, text)

    return inline(name, 0, (name,))


def braced(text: str, start: int) -> tuple[str, int] | None:
    """The balanced ``{...}`` group at ``start`` (after spaces): its content and the end index."""
    i = start
    while i < len(text) and text[i] in " \t\n":
        i += 1
    if i >= len(text) or text[i] != "{":
        return None
    depth = 0
    for j in range(i, len(text)):
        c = text[j]
        if c == "\\":
            continue
        if c == "{" and text[j - 1] != "\\":
            depth += 1
        elif c == "}" and text[j - 1] != "\\":
            depth -= 1
            if depth == 0:
                return text[i + 1:j], j + 1
    return None


def bracketed(text: str, start: int) -> tuple[str, int]:
    """An optional ``[...]`` group at ``start``: its content (or "") and the index after it."""
    i = start
    while i < len(text) and text[i] in " \t\n":
        i += 1
    if i >= len(text) or text[i] != "[":
        return "", start
    depth = 0
    for j in range(i, len(text)):
        if text[j] in "[{":
            depth += 1
        elif text[j] in "]}":
            depth -= 1
            if depth == 0:
                return text[i + 1:j], j + 1
    return "", start


def _environment_end(text: str, env: str, start: int) -> int:
    """Index just past the ``\\end{env}`` matching a ``\\begin{env}`` ending at ``start``."""
    pattern = re.compile(r"\\(begin|end)\s*\{" + re.escape(env) + r"\}")
    depth = 1
    for match in pattern.finditer(text, start):
        depth += 1 if match[1] == "begin" else -1
        if depth == 0:
            return match.end()
    return len(text)


def _commands(text: str, name: str) -> list[tuple[str, str, int, int]]:
    """Every ``\\name[opt]{arg}``: (options, argument, start, end)."""
    found = []
    for match in re.finditer(r"\\" + name + r"\*?(?![A-Za-z])", text):
        options, after = bracketed(text, match.end())
        group = braced(text, after)
        if group is not None:
            found.append((options, group[0], match.start(), group[1]))
    return found


def _without_subfigures(body: str) -> tuple[str, int]:
    """The body with subfigure environments and ``\\subfloat`` / ``\\subcaptionbox`` captions
    removed (so the main caption is found), and how many subfigures there were."""
    count = 0
    for env in SUBFIGURE_ENVS:
        pattern = re.compile(r"\\begin\s*\{" + re.escape(env) + r"\}")
        while (match := pattern.search(body)) is not None:
            end = _environment_end(body, env, match.end())
            inner = body[match.start():end]
            if env != "minipage" or "\\caption" in inner:
                count += 1
            graphics = "".join(body[s:e] for _, _, s, e in _commands(inner, "includegraphics"))
            body = body[:match.start()] + graphics + body[end:]
    for name in ("subfloat", "subcaptionbox", "subfigure"):
        for _options, argument, start, end in reversed(_commands(body, name)):
            count += 1
            body = body[:start] + argument + body[end:]
    return body, count


def plain(text: str) -> str:
    """Caption text without LaTeX markup: citations and references dropped, commands unwrapped."""
    text = re.sub(r"\\(cite[a-z]*|ref|eqref|cref|Cref|autoref|label|footnote)\*?\s*(\[[^\]]*\])?"
                  r"\s*\{[^{}]*\}", "", text)
    text = re.sub(r"\\[A-Za-z]+\*?\s*(\[[^\]]*\])?", " ", text)
    text = text.replace("~", " ").replace("\\%", "%").replace("\\&", "&")
    text = re.sub(r"[{}$]", "", text)
    return " ".join(text.split())


def graphic_path(text: str) -> list[str]:
    """Folders named by ``\\graphicspath{{a/}{b/}}``."""
    folders: list[str] = []
    for _, argument, _, _ in _commands(text, "graphicspath"):
        folders += re.findall(r"\{([^{}]*)\}", argument)
    return folders


def figures(text: str) -> list[Figure]:
    """The figure environments of an expanded document."""
    found: list[Figure] = []
    for match in _BEGIN.finditer(text):
        env = match[1]
        end = _environment_end(text, env, match.end())
        body = text[match.end():end]
        top, subfigures = _without_subfigures(body)
        captions = _commands(top, "caption")
        labels = _commands(top, "label")
        found.append(Figure(
            index=len(found), env=env,
            caption=plain(captions[-1][1]) if captions else "",
            label=labels[-1][1].strip() if labels else "",
            graphics=[Graphic(arg.strip(), opts) for opts, arg, _, _ in
                      _commands(body, "includegraphics")],
            subfigures=subfigures,
        ))
    return found


def resolve_graphic(files: dict[str, bytes], graphic: str, folders: list[str],
                    base: str = "") -> str | None:
    """The package file ``\\includegraphics{graphic}`` reads, trying graphicx's extensions."""
    name = graphic.strip().strip('"')
    folders = ["", *folders] if "" not in folders else folders
    lower = {k.lower(): k for k in files}
    for folder in folders:
        path = posixpath.normpath(posixpath.join(base, folder, name)).removeprefix("./")
        for candidate in (path, *(path + ext for ext in GRAPHIC_EXTENSIONS)):
            if candidate in files:
                return candidate
            if candidate.lower() in lower:
                return lower[candidate.lower()]
    return None
