#!/usr/bin/env python
"""List the numbers typed into a chapter's prose, which should have been glued.

Every number a page shows is computed by code and glued (``{glue:text}``); a number typed into the
prose goes stale when the code changes.  This check reads the Markdown cells of ``notebooks/*.py``
(jupytext percent format) and lists every number left after removing what may be typed:

* glued values and every other role (``{glue:text}`...```, ``{ref}``, ``{cite}``, ``{term}``, ...),
  inline code, labels, directive options and code fences;
* the number of a section, equation, figure, table, theorem, lemma, algorithm, appendix, ... (the
  word before it says so: "Section 5.1", "Theorems 4 and 6", "eq. (5)", "Inequalities (2)-(3)");
* years (1900-2099), the papers' ids (001-004), numbers inside names (AM1, A100, Llama-2-70B,
  MC-SF2, EC.1, arXiv:2502.07115), equation numbers in parentheses ("(5)"), the numbers of a Markdown
  list, and 0 and 1 (a first index, a ratio's baseline);
* a paper's number labelled as the paper's in its sentence (the line, or the line before it where
  the sentence runs on, says "the paper's", "the paper reports" or names the paper: 001-004);
* in math, a formula's constants ($2 \\cdot L$, $t = 0, 1, 2$, $3.5M$, $M = 240$) and equation tags; a
  value in math (four digits or more, or three decimals: $M = 16{,}492$, $0.2555\\log u$) is listed like
  one in the prose.

What is left is glued, or justified in ``book/typed_numbers.yml`` (chapter -> list of ``quote``, a
piece of the line holding the number, and ``reason``).  An entry that matches nothing is itself a
finding (the allow-list does not outlive its text).  Under ``pending``, a chapter being rewritten
elsewhere may hold at most the recorded number of typed numbers (the check fails when it holds more).

    python book/check_numbers.py            # exit 1 if a typed number is neither glued nor allowed
    python book/check_numbers.py --all      # list every typed number, allowed ones too
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = REPO_ROOT / "notebooks"
ALLOW = REPO_ROOT / "book" / "typed_numbers.yml"

# words after which a number names a part of a paper or of the book, not a value
REFERENCE_WORDS = (
    r"sections?|§|eqs?\.|equations?|figs?\.|figures?|tables?|theorems?|lemmas?|lemmata|corollar(?:y|ies)|"
    r"propositions?|algorithms?|appendi(?:x|ces)|remarks?|examples?|definitions?|inequalit(?:y|ies)|"
    r"displays?|experiments?|steps?|chapters?|claims?|assumptions?|conditions?|cases?|parts?|phases?|"
    r"observations?|properties|property|constraints?|lines?|version|v|arrival models?|items?|panels?"
)
_NUMBER = r"\(?[A-Z]{0,2}\.?\d+(?:\.\d+)*[a-z]?\)?"
REFERENCE = re.compile(
    rf"\b(?:{REFERENCE_WORDS})\s+{_NUMBER}(?:'s)?(?:\s*(?:,|-|–|and|or|to)\s*{_NUMBER}(?:'s)?)*", re.IGNORECASE)
ROLE = re.compile(r"\{[A-Za-z:-]+\}`[^`]*`")
CODE = re.compile(r"`[^`]*`")
LINK_TARGET = re.compile(r"\]\([^)]*\)")
MATH = re.compile(r"\$\$.*?\$\$|\$[^$]+\$")
NUMBER = re.compile(r"(?<![\w.,:/-])(\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:\{,\}\d{3})*(?![\w-]|\.\d|,\d{3})")
# the words that make a number the paper's, labelled as such in its sentence
PAPER_LABEL = re.compile(r"\bpaper(?:'s|s)?\b|\b00[1-4](?:'s)?\b")
EQUATION_REF = re.compile(r"\((?:EC\.)?\d{1,2}[a-z]?\)")  # "(5)", "(EC.5)": an equation's number
YEAR = re.compile(r"^(19|20)\d\d$")
PAPER_ID = re.compile(r"^00[1-4]$")


@dataclass(frozen=True)
class TypedNumber:
    chapter: str
    line: int  # 1-based line of notebooks/CHAPTER.py
    number: str
    text: str  # the source line, without its comment prefix

    def __str__(self) -> str:
        return f"notebooks/{self.chapter}.py:{self.line}: typed number {self.number!r} in: {self.text.strip()}"


def markdown_lines(source: str) -> list[tuple[int, str, bool]]:
    """(line number, text, inside display math) of every line of the Markdown cells of a jupytext
    percent script (code blocks left out)."""
    out: list[tuple[int, str, bool]] = []
    in_md = False
    fence = ""
    math = False
    env = ""
    for i, line in enumerate(source.splitlines(), 1):
        if line.startswith("# %%"):
            in_md = "[markdown]" in line
            fence, math, env = "", False, ""
            continue
        if not in_md:
            continue
        text = line[2:] if line.startswith("# ") else line[1:] if line.startswith("#") else line
        stripped = text.strip()
        if fence:
            if stripped.startswith(fence) and stripped.strip("`~") == "":
                fence = ""
            elif fence.startswith("`{math"):
                out.append((i, text, True))
            continue
        opener = re.match(r"^(`{3,}|~{3,})(\{[a-z:-]+\})?", stripped)
        if opener and (not opener.group(2) or opener.group(2) in ("{math}", "{code-cell}", "{code}")):
            fence = opener.group(1) + ("{math" if opener.group(2) == "{math}" else "")
            continue
        if stripped.startswith("$$") and stripped.count("$$") == 1:
            math = not math  # a display-math block opens or closes
            out.append((i, text, True))
            continue
        if not math and not env:
            begin = re.match(r"^\\begin\{([a-z*]+)\}", stripped)  # an amsmath environment on its own
            if begin:
                env = begin.group(1)
        if env:
            out.append((i, text, True))
            if stripped.startswith(f"\\end{{{env}}}"):
                env = ""
            continue
        out.append((i, text, math))
    return out


def _in_math_ok(math: str) -> list[str]:
    """The numbers of a math span that are values, not the digits of a formula."""
    body = math.strip("$")
    body = re.sub(r"\\(?:text|mathrm|operatorname|tag|label)\{[^}]*\}", " ", body)
    found = []
    # a value (16{,}492, 0.2555, 8192), not a formula's constant (3.5M, 2^{1.5}, 1/4)
    for m in re.finditer(r"\d+(?:\{,\}\d{3})+|\d+\.\d{3,}|\d{4,}", body):
        found.append(m.group(0).replace("{,}", ","))
    return found


def typed_numbers(chapter: str, source: str) -> list[TypedNumber]:
    """Every number in the prose of ``source`` that is not glued and not exempt (see the module doc)."""
    out: list[TypedNumber] = []
    lines = markdown_lines(source)
    carry = False  # an inline $...$ left open at the end of the previous line
    for k, (lineno, text, in_math) in enumerate(lines):
        if not in_math:
            dollars = len(re.findall(r"(?<![$\\])\$(?!\$)", CODE.sub(" ", ROLE.sub(" ", text))))
            text_carried = ("$" + text) if carry else text
            if dollars % 2:
                carry = not carry
            if carry:
                text_carried += "$"
        else:
            text_carried = text
        text, original = text_carried, text
        s = text.strip()
        if not s or re.match(r"^(\(.*\)=|:[A-Za-z-]+:|```|:::|\{[a-z]+\}|<!--)", s):
            continue  # a label, a directive option, a fence, a comment
        if in_math:
            out += [TypedNumber(chapter, lineno, num, original) for num in _in_math_ok(text)
                    if not _labelled(lines, k)]
            continue
        maths: list[str] = []
        work = ROLE.sub(" ", text)
        work = CODE.sub(" ", work)
        work = LINK_TARGET.sub("]", work)

        def keep_math(m):
            maths.append(m.group(0))
            return " "

        work = MATH.sub(keep_math, work)
        work = REFERENCE.sub(" ", work)
        work = re.sub(r"^\s*(?:[-*]|\d+\.)\s+", " ", work)  # a list item's bullet or number
        work = re.sub(r"arXiv:\S+|https?://\S+", " ", work)
        work = re.sub(r"\b(?:0[0-9]{2})(?:'s)?\b", lambda m: " " if PAPER_ID.match(m.group(0)[:3]) else m.group(0), work)
        work = EQUATION_REF.sub(" ", work)
        if _labelled(lines, k):
            continue
        for m in NUMBER.finditer(work):
            num = m.group(0)
            if YEAR.match(num) or PAPER_ID.match(num) or num in ("0", "1"):
                continue
            out.append(TypedNumber(chapter, lineno, num, original))
        for math in maths:
            for num in _in_math_ok(math):
                out.append(TypedNumber(chapter, lineno, num, original))
    return out


def _labelled(lines: list[tuple[int, str, bool]], k: int) -> bool:
    """Whether line ``k`` is a paper's text labelled as the paper's: the line, or the one before it
    when the sentence runs on, names the paper (``the paper's``, ``003 reports``, ``(001 Section``)."""
    text = lines[k][1]
    prev = lines[k - 1][1] if k and not re.search(r"[.:]\s*$", lines[k - 1][1]) else ""
    return bool(PAPER_LABEL.search(ROLE.sub(" ", prev + " " + text)))


def load_allow(path: Path = ALLOW) -> dict[str, list[dict[str, str]]]:
    import yaml

    data = yaml.safe_load(path.read_text(encoding="utf8")) if path.exists() else {}
    data = data or {}
    for chapter, entries in data.items():
        if chapter == "pending":
            if not isinstance(entries, dict) or not all(isinstance(v, int) for v in entries.values()):
                raise ValueError(f"{path}: 'pending' maps a chapter to its number of typed numbers, got {entries!r}")
            continue
        for e in entries or []:
            if not isinstance(e, dict) or not e.get("quote") or not e.get("reason"):
                raise ValueError(f"{path}: chapter {chapter!r}: every entry needs a 'quote' and a 'reason', got {e!r}")
    return data


def check(chapters: list[str] | None = None, notebooks: Path = NOTEBOOKS,
          allow: dict[str, list[dict[str, str]]] | None = None) -> tuple[list[TypedNumber], list[str]]:
    """(typed numbers neither glued nor allowed, allow-list entries that match no typed number)."""
    allow = load_allow() if allow is None else allow
    pending = allow.get("pending") or {}
    names = chapters or sorted(p.stem for p in notebooks.glob("*.py"))
    left: list[TypedNumber] = []
    unused: list[str] = []
    for name in names:
        found = typed_numbers(name, (notebooks / f"{name}.py").read_text(encoding="utf8"))
        if name in pending:
            # a page being rewritten elsewhere: no more typed numbers than recorded (see the allow-list)
            if len(found) > int(pending[name]):
                left += found
            continue
        entries = allow.get(name) or []
        used = [False] * len(entries)
        for t in found:
            hits = [k for k, e in enumerate(entries)
                    if e["quote"] in " ".join(t.text.split()) and t.number in e["quote"]]
            if not hits:
                left.append(t)
            for k in hits:
                used[k] = True
        unused += [f"book/typed_numbers.yml: {name}: entry {e['quote']!r} matches no typed number"
                   for e, u in zip(entries, used) if not u]
    return left, unused


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("chapters", nargs="*", help="chapters to check (default: all of notebooks/)")
    ap.add_argument("--all", action="store_true", help="list the allowed typed numbers too")
    args = ap.parse_args(argv)
    if args.all:
        for name in args.chapters or sorted(p.stem for p in NOTEBOOKS.glob("*.py")):
            for t in typed_numbers(name, (NOTEBOOKS / f"{name}.py").read_text(encoding="utf8")):
                print(t)
        return 0
    left, unused = check(args.chapters or None)
    for t in left:
        print(t)
    for u in unused:
        print(u)
    if left or unused:
        print(f"check_numbers: {len(left)} typed number(s) neither glued nor allowed, {len(unused)} unused "
              "allow-list entr(ies)", file=sys.stderr)
        return 1
    print("check_numbers: every number in the chapters' prose is glued, exempt or allowed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
