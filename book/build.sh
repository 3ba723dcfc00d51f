#!/usr/bin/env bash
# Build the whole kvbook from a fresh clone, with Python 3.11 and pip only:
#
#   bash book/build.sh              # paper scale, read from the stored results (results/)
#   MODE=quick bash book/build.sh   # quick mode (CI scale, computed live); or --quick
#   MODE=full bash book/build.sh    # regenerate the stored results, then build; or --full
#
# Steps: install the project with its book and test extras; execute every
# chapter with papermill (book/run_chapters.py) into chapters/ (git-ignored);
# build the HTML with Jupyter Book, treating every warning (including missing
# references, -n) as an error.  The site lands in book/_build/html/index.html
# (chapter pages at chapters/NAME.html); python book/check_site.py then opens
# every page in headless Chromium.
#
# Environment: MODE=stored|quick|full (default stored), JOBS=N (parallel chapter executions, default 2),
# SKIP_INSTALL=1 to skip the pip install step, SHARED_DIR=PATH for the shared
# data directory (default ../shared relative to the repository).
set -euo pipefail

MODE="${MODE:-stored}"
for arg in "$@"; do
  case "$arg" in
    --full) MODE=full ;;
    --quick) MODE=quick ;;
    --stored) MODE=stored ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "build.sh: unknown argument: $arg (use --stored, --quick or --full)" >&2; exit 2 ;;
  esac
done
case "$MODE" in
  stored) RUN_MODE=full; STORE=read ;;
  full) RUN_MODE=full; STORE=write ;;
  quick) RUN_MODE=quick; STORE=off ;;
  *) echo "build.sh: MODE must be stored, quick or full, got '$MODE'" >&2; exit 2 ;;
esac

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PYTHON="${PYTHON:-python}"
start=$(date +%s)

if [[ "${SKIP_INSTALL:-0}" != "1" ]]; then
  echo "==> [1/3] pip install -e \".[book,test]\""
  "$PYTHON" -m pip install -e ".[book,test]"
fi

echo "==> [2/3] executing chapters (mode: $MODE)"
runner_args=(--mode "$RUN_MODE" --store "$STORE" --jobs "${JOBS:-2}")
if [[ -n "${SHARED_DIR:-}" ]]; then runner_args+=(--shared-dir "$SHARED_DIR"); fi
"$PYTHON" book/run_chapters.py "${runner_args[@]}"

echo "==> [3/3] jupyter-book build (warnings are errors)"
# A fresh build every time: Sphinx does not repeat the warnings of pages it
# reads from its cache, so an incremental build could hide them.
rm -rf book/_build
# Jupyter Book only exits non-zero on warnings when -W is given; --keep-going
# reports all of them before failing.  Sphinx's exit status is passed through.
if command -v jupyter-book >/dev/null 2>&1; then
  JB=(jupyter-book)
else  # e.g. a --user install whose scripts directory is not on PATH
  JB=("$PYTHON" -c 'from jupyter_book.cli.main import main; main()')
fi
"${JB[@]}" build . --path-output book --builder html -W -n --keep-going

test -f book/_build/html/index.html
# MathJax must be served locally (sphinx-mathjax-offline), never from a CDN.
if grep -rlE '<script[^>]*src="https?://[^"]*mathjax' book/_build/html --include='*.html' >/dev/null; then
  echo "build.sh: a page loads MathJax from the network:" >&2
  grep -rlE '<script[^>]*src="https?://[^"]*mathjax' book/_build/html --include='*.html' >&2
  exit 1
fi
test -f book/_build/html/_static/mathjax/tex-chtml.js

echo "==> done in $(( $(date +%s) - start )) s (mode: $MODE): book/_build/html/index.html"
echo "    (open every page in headless Chromium: python book/check_site.py)"
