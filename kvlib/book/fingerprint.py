"""Which code a stored table's rows executed, and whether that code has changed since.

A stored table is *stale* when the code that computed its rows would now compute something else.
The store answers that from a record taken while the rows ran (:func:`recording`), not from the
files a module imports:

* **functions**: every ``kvlib`` function that ran, by ``FILE::QUALNAME`` of its outermost
  ``def`` (a nested function, lambda or comprehension counts as the ``def`` around it), with a
  fingerprint of its normalised source: the SHA-256 of its AST without docstrings (comments and
  formatting are not in an AST; line numbers are left out);
* **modules**: a fingerprint of the top-level statements (constants, imports, class bodies
  without their methods; no function body, no docstring) of every module one of those functions
  lives in and of every ``kvlib`` module such a module imports;
* **dependencies**: the versions of the numerical libraries (:data:`NUMERICAL_DISTS`) that a
  module of the record imports.

A table is stale exactly when one of these differs from the source in the working tree (or the
installed library): :func:`changes`.  No ``git`` is needed, so a release archive answers the same.

How functions are seen running: every ``kvlib`` function's code gets one first statement, a mark.  A
function of a module or class body calls ``_kvbook_first_("FILE::QUALNAME")``, which notes it and
switches that function to its plain code until the next recording starts, so a recorded row pays
one Python call per function it runs, not per call; a nested function or lambda calls
``_kvbook_mark_(...)``, a set's ``add`` method (one C call).  Measured with
``python benchmarks/regeneration.py --overhead``: within the noise of a loaded machine on three
chapters' rows (a ``sys.settrace`` hook costs about 70 % on the simulator).  Modules imported after
:func:`install` are compiled that way by an import hook (never written to ``__pycache__``);
functions that exist already get their ``__code__`` replaced by the instrumented compilation of
the same source.  Instrumenting changes no result: a mark only adds a string to a set.
"""

from __future__ import annotations

import ast
import gc
import hashlib
import importlib.abc
import importlib.machinery
import importlib.metadata
import importlib.util
import sys
import threading
import types
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

__all__ = ["NUMERICAL_DISTS", "RECORDER", "install", "recording", "record_of", "row_record", "merge", "changes",
           "function_fingerprints", "module_fingerprint", "Sources", "loaded_sources"]

#: libraries whose version is part of a record when a recorded module imports them
NUMERICAL_DISTS = {"numpy": "numpy", "scipy": "scipy", "highspy": "highspy", "ortools": "ortools",
                   "cvxpy": "cvxpy", "pandas": "pandas", "sympy": "sympy", "networkx": "networkx"}
#: the format of a record (stored in the manifest; a record of another format is not compared)
RECORDER = "executed-functions/1"
MARK = "_kvbook_mark_"  # the mark of a nested function or lambda: a C call (set.add)
FIRST = "_kvbook_first_"  # the mark of a module- or class-level function: _first, once per recorded row
PACKAGE_DIR = Path(__file__).resolve().parents[1]  # .../kvlib
SRC_ROOT = PACKAGE_DIR.parent  # the directory holding kvlib/

_SEEN: set[str] = set()
_MARK = _SEEN.add  # the one object every nested instrumented function calls
_PLAIN: dict[Any, Any] = {}  # instrumented code of a module- or class-level function -> its plain code
_FUNCS: dict[Any, list] = {}  # instrumented code -> the function objects that hold it
_OFF: list[tuple[Any, Any]] = []  # (function, instrumented code) switched to plain code since the last start
_LOADED: dict[str, str] = {}  # FILE -> the source text this process compiled that file's kvlib code from
_LOCK = threading.Lock()
_installed = False


# --------------------------------------------------------------------------- normalised source


def _strip_doc(body: list[ast.stmt]) -> list[ast.stmt]:
    if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant) \
            and isinstance(body[0].value.value, str):
        return body[1:]
    return body


class _NoDocstrings(ast.NodeTransformer):
    def _visit_body(self, node):
        self.generic_visit(node)
        node.body = _strip_doc(node.body) or [ast.Pass()]
        return node

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = _visit_body


def _digest(node: ast.AST) -> str:
    return hashlib.sha256(ast.dump(node, include_attributes=False).encode()).hexdigest()[:16]


def _defs(body: list[ast.stmt], prefix: str = "") -> Iterator[tuple[str, ast.AST]]:
    """``(qualname, node)`` of every function defined at module level or in a class body (nested
    classes too), in source order; functions inside functions belong to their outer ``def``."""
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield prefix + node.name, node
        elif isinstance(node, ast.ClassDef):
            yield from _defs(node.body, f"{prefix}{node.name}.")
        elif isinstance(node, (ast.If, ast.Try)):  # e.g. a def under "if sys.version_info ..."
            for part in (getattr(node, "body", []), getattr(node, "orelse", []),
                         getattr(node, "finalbody", []), *[h.body for h in getattr(node, "handlers", [])]):
                yield from _defs(part, prefix)


def function_fingerprints(tree: ast.Module) -> dict[str, str]:
    """Fingerprint of every function of a module (:func:`_defs`); a name defined twice keeps the last."""
    out = {}
    for qual, node in _defs(tree.body):
        out[qual] = _digest(_NoDocstrings().visit(_copy(node)))
    return out


def _top_level(body: list[ast.stmt]) -> list[ast.stmt]:
    kept = []
    for node in _strip_doc(body):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        if isinstance(node, ast.ClassDef):
            node = _copy(node)
            node.body = _top_level(node.body) or [ast.Pass()]
        kept.append(node)
    return kept


def module_fingerprint(tree: ast.Module) -> str:
    """Fingerprint of a module's top-level statements without function bodies and docstrings."""
    return _digest(ast.Module(body=_top_level(tree.body), type_ignores=[]))


def _copy(node: ast.AST) -> ast.AST:
    import copy

    return copy.deepcopy(node)


def imported_names(tree: ast.Module, module: str, is_package: bool) -> list[str]:
    """Every dotted name a module's source imports, anywhere in it (inside functions too), relative imports
    resolved; ``from pkg import x`` gives ``pkg`` and ``pkg.x`` (``x`` may be a module)."""
    parent = module.split(".") if is_package else module.split(".")[:-1]
    out: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = ".".join(parent[: len(parent) - node.level + 1])
                target = f"{base}.{node.module}" if node.module else base
            else:
                target = node.module or ""
            out += [target] + [f"{target}.{a.name}" for a in node.names]
    return out


def _imports(tree: ast.Module, module: str, is_package: bool) -> tuple[set[str], set[str]]:
    """(kvlib modules, top-level external packages) that a module's source imports, anywhere in it."""
    mods: set[str] = set()
    ext: set[str] = set()
    for n in imported_names(tree, module, is_package):
        top = n.split(".")[0]
        if top == "kvlib":
            mods.add(n)
        else:
            ext.add(top)
    return mods, ext


_TEXT_STAMPS: dict[str, tuple[str, str]] = {}  # FILE -> (a source text, its SHA-256)
_PARSED: dict[Path, dict[tuple, dict]] = {}  # root -> {(file, stamp): info}; stamp: (mtime_ns, size) or ("text", SHA-256)


class Sources:
    """The ``kvlib`` sources under ``root`` (the directory holding ``kvlib/``), parsed once per file
    content: fingerprints of functions and modules, and what each module imports."""

    def __init__(self, root: Path | None = None, texts: dict[str, str] | None = None):
        self.root = Path(root) if root else SRC_ROOT
        # ``texts``: FILE -> source text that stands for the file on disk (:func:`loaded_sources`: the
        # text a process compiled, which a later edit of the file does not change)
        self.texts = dict(texts or {})
        # one cache for the process, keyed by file and checked against its size and mtime: a page that
        # judges many tables (each through a new Sources) parses each source file once
        self._cache = _PARSED.setdefault(self.root.resolve(), {})

    def _info(self, rel: str) -> dict | None:
        text = self.texts.get(rel)
        if text is not None:
            memo = _TEXT_STAMPS.get(rel)
            if memo is None or memo[0] is not text:  # one hash per text object, not one per look-up
                memo = _TEXT_STAMPS[rel] = (text, hashlib.sha256(text.encode("utf8")).hexdigest())
            stamp = ("text", memo[1])
        else:
            path = self.root / rel
            try:
                st = path.stat()
            except OSError:
                return None
            stamp = (st.st_mtime_ns, st.st_size)
        hit = self._cache.get((rel, stamp))
        if hit is not None:
            return hit
        tree = ast.parse(text if text is not None else (self.root / rel).read_text(encoding="utf8"))
        module = rel[:-3].replace("/", ".")
        is_pkg = rel.endswith("/__init__.py")
        if is_pkg:
            module = module[: -len(".__init__")]
        info = {"functions": function_fingerprints(tree), "module": module_fingerprint(tree),
                "imports": _imports(tree, module, is_pkg)}
        self._cache[(rel, stamp)] = info
        return info

    def file_of(self, module: str) -> str | None:
        """Repository-relative file of a ``kvlib`` module (or of the package it names), if it exists."""
        base = Path(*module.split("."))
        for cand in (base.with_suffix(".py"), base / "__init__.py"):
            if (self.root / cand).is_file():
                return cand.as_posix()
        return None

    def function(self, ident: str) -> str | None:
        """Fingerprint of ``FILE::QUALNAME`` today (None: the file or the function is gone)."""
        rel, _, qual = ident.partition("::")
        info = self._info(rel)
        if info is None:
            return None
        if qual == "<module>":
            return info["module"]
        return info["functions"].get(qual)

    def module(self, rel: str) -> str | None:
        info = self._info(rel)
        return None if info is None else info["module"]

    def imports(self, rel: str) -> tuple[set[str], set[str]]:
        info = self._info(rel)
        return (set(), set()) if info is None else info["imports"]


# --------------------------------------------------------------------------- instrumentation


class _Marker(ast.NodeTransformer):
    """Puts a mark first in every function body (after its docstring): ``_kvbook_first_("FILE::QUAL")``
    in a function of a module or class body, ``_kvbook_mark_("FILE::QUAL")`` (QUAL: the outermost
    ``def``) in a nested function or a lambda."""

    def __init__(self, rel: str):
        self.rel = rel
        self.stack: list[tuple[str, str]] = []  # (kind, name)

    def _ident(self) -> tuple[str, bool]:
        """(``FILE::QUALNAME`` of the outermost def around this point, whether this point is in it directly)."""
        quals = []
        for depth, (kind, name) in enumerate(self.stack):
            quals.append(name)
            if kind == "def":  # the outermost def; a lambda outside any def belongs to the module
                qual = "<module>" if name == "<lambda>" else ".".join(quals)
                return f"{self.rel}::{qual}", depth == len(self.stack) - 1 and name != "<lambda>"
        return f"{self.rel}::<module>", False

    def _call(self, where: ast.AST) -> ast.Call:
        ident, outermost = self._ident()
        call = ast.Call(func=ast.Name(id=FIRST if outermost else MARK, ctx=ast.Load()), args=[ast.Constant(ident)],
                        keywords=[])
        return ast.copy_location(call, where)

    def visit_ClassDef(self, node):
        self.stack.append(("class", node.name))
        self.generic_visit(node)
        self.stack.pop()
        return node

    def _visit_def(self, node):
        self.stack.append(("def", node.name))
        self.generic_visit(node)
        stmt = ast.copy_location(ast.Expr(self._call(node.body[0])), node.body[0])
        at = 1 if _strip_doc(node.body) is not node.body else 0  # after the docstring
        node.body.insert(at, stmt)
        self.stack.pop()
        return node

    visit_FunctionDef = visit_AsyncFunctionDef = _visit_def

    def visit_Lambda(self, node):
        self.stack.append(("def", "<lambda>"))
        self.generic_visit(node)
        call = self._call(node.body)
        self.stack.pop()
        # (mark, body)[1]: the body's value, after the mark
        pair = ast.Tuple(elts=[call, node.body], ctx=ast.Load())
        node.body = ast.copy_location(ast.Subscript(value=ast.copy_location(pair, node.body),
                                                    slice=ast.Constant(1), ctx=ast.Load()), node.body)
        return node


def _relative(filename: str) -> str | None:
    """``kvlib/...py`` for a file of this ``kvlib`` (this module excepted: it is never instrumented)."""
    try:
        p = Path(filename).resolve()
        if PACKAGE_DIR not in p.parents or p == Path(__file__).resolve():
            return None
        return p.relative_to(SRC_ROOT).as_posix()
    except (OSError, ValueError):
        return None


def _code_tree(code) -> Iterator[Any]:
    yield code
    for c in code.co_consts:
        if hasattr(c, "co_code"):
            yield from _code_tree(c)


def _instrumented_code(path: str, source: str):
    """``(instrumented, plain)``: the module code of ``path`` with the marks, and without them; the plain code
    of each of its marked-first functions is remembered (:data:`_PLAIN`), for :func:`_first` to switch a
    function back after its first call."""
    rel = _relative(path)
    tree = ast.parse(source, filename=path)
    plain = compile(tree, path, "exec", dont_inherit=True)
    code = compile(ast.fix_missing_locations(_Marker(rel).visit(tree)), path, "exec", dont_inherit=True)
    by_place = {(c.co_qualname, c.co_firstlineno): c for c in _code_tree(plain)}
    for c in _code_tree(code):
        if FIRST in c.co_names:
            p = by_place.get((c.co_qualname, c.co_firstlineno))
            if p is not None and p.co_freevars == c.co_freevars:
                _PLAIN[c] = p
    return code, plain


def _register(obj: Any, depth: int = 0) -> None:
    """Index the functions a module or class namespace holds by their (instrumented) code."""
    for v in list(vars(obj).values()):
        for f in (v, getattr(v, "__func__", None), getattr(v, "__wrapped__", None), getattr(v, "fget", None),
                  getattr(v, "fset", None)):
            if isinstance(f, types.FunctionType) and f.__code__ in _PLAIN:
                _FUNCS.setdefault(f.__code__, []).append(f)
        if isinstance(v, type) and depth < 4 and v.__module__ == getattr(obj, "__name__", v.__module__):
            _register(v, depth + 1)
        elif isinstance(v, type) and depth < 4 and isinstance(obj, type) and v.__qualname__.startswith(obj.__qualname__):
            _register(v, depth + 1)


def _first(ident: str) -> None:
    """The mark of a module- or class-level function: note it, and give the function its plain code until
    the next recording starts (so a function costs one Python call per recorded row, not one per call)."""
    _SEEN.add(ident)
    code = sys._getframe(1).f_code
    plain = _PLAIN.get(code)
    for f in _FUNCS.get(code, ()):
        if f.__code__ is code:
            f.__code__ = plain
            _OFF.append((f, code))


class _Loader(importlib.machinery.SourceFileLoader):
    """Compiles a ``kvlib`` module with the marks (and never caches that bytecode)."""

    def get_code(self, fullname):
        path = self.get_filename(fullname)
        text = importlib.util.decode_source(self.get_data(path))
        _LOADED[_relative(path)] = text
        return _instrumented_code(path, text)[0]

    def exec_module(self, module):
        module.__dict__[MARK], module.__dict__[FIRST] = _MARK, _first
        super().exec_module(module)
        with _LOCK:
            _register(module)


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        if fullname != "kvlib" and not fullname.startswith("kvlib."):
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or not isinstance(spec.loader, importlib.machinery.SourceFileLoader):
            return spec
        if _relative(spec.origin or "") is None:
            return spec
        spec.loader = _Loader(spec.loader.name, spec.loader.path)
        return spec


def _swap_loaded() -> list[str]:
    """Give every already-created ``kvlib`` function the instrumented code of the same source; returns
    the functions that could not be matched (``FILE::QUALNAME``): a function whose file no longer
    compiles to the code the function has (the file changed on disk since this process imported it) is
    one of them, so that no row runs code other than the file shows."""
    by_file: dict[str, list] = {}
    for obj in gc.get_objects():
        if isinstance(obj, types.FunctionType):
            co = obj.__code__
            if MARK in co.co_names or FIRST in co.co_names:
                continue
            if _relative(co.co_filename) is not None:
                by_file.setdefault(co.co_filename, []).append(obj)
    missed = []
    for filename, funcs in by_file.items():
        try:
            text = importlib.util.decode_source(Path(filename).read_bytes())
            code, module_plain = _instrumented_code(filename, text)
            plain = {(c.co_qualname, c.co_firstlineno): c for c in _code_tree(module_plain)}
            new = {(c.co_qualname, c.co_firstlineno): c for c in _code_tree(code)}
        except (OSError, SyntaxError, ValueError):  # a source removed or edited into nonsense since it was imported
            text, plain, new = None, {}, {}
        bad = []
        for f in funcs:
            co = f.__code__
            place = (co.co_qualname, co.co_firstlineno)
            cand = new.get(place)
            if cand is None or cand.co_freevars != co.co_freevars or plain.get(place) != co:
                bad.append(f"{_relative(filename)}::{co.co_qualname}")
        if bad:
            missed += bad
            continue
        _LOADED[_relative(filename)] = text
        for f in funcs:
            co = f.__code__
            cand = new[(co.co_qualname, co.co_firstlineno)]
            f.__globals__.setdefault(MARK, _MARK)
            f.__globals__.setdefault(FIRST, _first)
            f.__code__ = cand
            if cand in _PLAIN:
                _FUNCS.setdefault(cand, []).append(f)
    for mod in list(sys.modules.values()):
        name = getattr(mod, "__name__", "")
        if (name == "kvlib" or name.startswith("kvlib.")) and _relative(getattr(mod, "__file__", "") or ""):
            mod.__dict__.setdefault(MARK, _MARK)
            mod.__dict__.setdefault(FIRST, _first)
    return missed


def install() -> list[str]:
    """Instrument ``kvlib`` in this process (once): an import hook for modules imported from now on and
    new code for the functions that exist already.  Returns the functions that could not be
    instrumented (none is expected)."""
    global _installed
    with _LOCK:
        if _installed:
            return []
        sys.meta_path.insert(0, _Finder())
        _installed = True
        return _swap_loaded()


@contextmanager
def recording() -> Iterator[set[str]]:
    """Record the ``kvlib`` functions executed inside the block: yields a set, filled on exit with
    ``FILE::QUALNAME`` of each.  Installs the instrumentation on first use.  One recording at a time
    per process (the store computes one row at a time per process)."""
    missed = install()
    if missed:
        files = sorted({m.partition("::")[0] for m in missed})
        raise RuntimeError(f"cannot record which code runs: {len(missed)} kvlib function(s) in {', '.join(files[:4])}"
                           f"{' and others' if len(files) > 4 else ''} no longer match their source files (e.g. "
                           f"{missed[0]}): a file changed on disk after this process imported it, so the rows would "
                           "run code the files do not show. Restart the run, and leave kvlib/ unchanged while it runs "
                           "(edit in a git worktree instead)")
    out: set[str] = set()
    with _LOCK:  # every function switched to its plain code by its first call gets its marks back
        for f, code in _OFF:
            f.__code__ = code
        _OFF.clear()
        _SEEN.clear()
    try:
        yield out
    finally:
        out |= _SEEN
        _SEEN.clear()


# --------------------------------------------------------------------------- records


def _version(pkg: str, versions: dict[str, str | None] | None = None) -> str | None:
    """The installed version of a numerical library (``versions`` overrides, for tests)."""
    if versions is not None and pkg in versions:
        return versions[pkg]
    try:
        return importlib.metadata.version(NUMERICAL_DISTS.get(pkg, pkg))
    except importlib.metadata.PackageNotFoundError:
        return None


def record_of(executed: set[str], sources: Sources | None = None,
              versions: dict[str, str | None] | None = None) -> dict:
    """The record of one row (what the manifest stores): fingerprints of the executed functions, of
    the modules they live in and of the ``kvlib`` modules those import, and the versions of the
    numerical libraries those modules import."""
    src = sources or Sources()
    functions = {}
    for ident in sorted(executed):
        fp = src.function(ident)
        functions[ident] = fp if fp is not None else "missing"
    touched = {i.partition("::")[0] for i in executed}
    modules: dict[str, str] = {}
    ext: set[str] = set()
    for rel in sorted(touched):
        mods, pk = src.imports(rel)
        ext |= pk
        for rel2 in [rel, *sorted(filter(None, (src.file_of(m) for m in mods)))]:
            if rel2 not in modules:
                modules[rel2] = src.module(rel2) or "missing"
    deps = {pkg: _version(pkg, versions) for pkg in sorted(ext) if pkg in NUMERICAL_DISTS}
    return {"recorder": RECORDER, "functions": functions, "modules": modules, "dependencies": deps,
            "rows": 1, "conflicts": []}


def loaded_sources() -> Sources:
    """The sources as this process compiled them (:func:`install` on): a file edited after this process
    imported it still shows the text its running code came from."""
    return Sources(texts=_LOADED)  # Sources keeps its own copy


def row_record(executed: set[str], versions: dict[str, str | None] | None = None) -> dict:
    """:func:`record_of` from the sources this process runs (:func:`loaded_sources`), to be taken in the
    process that computed the row: an edit of a file while rows run then leaves the record describing the
    code that ran, and :func:`changes` calls the table stale."""
    return record_of(executed, loaded_sources(), versions)


def merge(a: dict | None, b: dict) -> dict:
    """The record of a table from the records of its rows: the union of what they executed.  Where two
    rows recorded different fingerprints for one function or module (the code changed between
    them), the name goes into ``conflicts`` and the table is stale."""
    if not a:
        return {**b, "conflicts": list(b.get("conflicts") or [])}
    out = {"recorder": RECORDER, "rows": int(a.get("rows") or 0) + int(b.get("rows") or 0)}
    conflicts = set(a.get("conflicts") or []) | set(b.get("conflicts") or [])
    for part in ("functions", "modules", "dependencies"):
        merged = dict(a.get(part) or {})
        for k, v in (b.get(part) or {}).items():
            if k in merged and merged[k] != v:
                conflicts.add(f"{part}:{k}")
            merged.setdefault(k, v)
        out[part] = dict(sorted(merged.items()))
    out["conflicts"] = sorted(conflicts)
    return out


def changes(record: dict, sources: Sources | None = None,
            versions: dict[str, str | None] | None = None) -> list[str]:
    """What differs between a table's record and today's sources and libraries (empty: current).  Each
    item is a short sentence naming the function, module or library."""
    if record.get("recorder") != RECORDER:
        return [f"the record is of another format ({record.get('recorder')!r})"]
    src = sources or Sources()
    out = [f"rows were computed with different code: {c}" for c in record.get("conflicts") or []]
    for ident, fp in (record.get("functions") or {}).items():
        now = src.function(ident)
        if now is None:
            out.append(f"{ident.replace('::', ': ')} no longer exists")
        elif now != fp:
            out.append(f"{ident.replace('::', ': ')} changed")
    for rel, fp in (record.get("modules") or {}).items():
        now = src.module(rel)
        if now is None:
            out.append(f"{rel} no longer exists")
        elif now != fp:
            out.append(f"{rel}: its top-level statements changed")
    for pkg, v in (record.get("dependencies") or {}).items():
        now = _version(pkg, versions)
        if now != v:
            out.append(f"{pkg} {v} is now {now}")
    return out
