# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.16.0
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# (errata-values)=
# # Errata: the computed figures
#
# Every figure that the {ref}`errata page <errata>` states about our own computations (an optimum, a
# count over a family of instances, a value of a paper's display evaluated exactly) is computed on this
# page when the book is built, in every mode, and shown on the errata page from here. The table lists
# them by paper, under the names the errata page uses; the numbers that the errata page quotes from the
# papers are labelled there as the papers' and are not listed here. The computations are those of the
# tests that each errata entry names in its folded "How this is checked" line, and those tests compare
# every figure below with their own computation. The figures of the chapters (Section 5.1 of 001, the
# sizing of 004 Section 7, the lower-bound, ratio and Sorted-F chapters) are shown on the errata page from
# the chapters that compute them.

# %% tags=["parameters"]
mode = "quick"  # the book's mode: "quick" (CI scale) or "full" (paper scale); the figures are the same in both
seed = 0  # unused: every instance of the errata page is fixed or seeded by its own definition

# %%
import time

import pandas as pd

from kvlib.book.chapters.errata_values.values import PAPERS
from kvlib.book.gluing import glue_all

T0 = time.perf_counter()
rows = []
for paper, compute in PAPERS.items():  # kvlib.book.chapters.errata_values.values: one function per paper
    values = compute()
    glue_all(values)
    rows += [{"paper": paper, "name": key, "value": str(value)} for key, value in values.items()]
figures = pd.DataFrame(rows)
glue_all({"errata-values-n": len(figures), "errata-values-seconds": f"{time.perf_counter() - T0:.0f}"})

# %%
from myst_nb import glue

from kvlib.book.tables import offer_csv

offer_csv(figures, "errata_values", "figures")
glue("errata-values-table", figures.style.hide(axis="index"), display=False)

# %% [markdown]
# The {glue:text}`errata-values-n:d` figures were computed in {glue:text}`errata-values-seconds:s` s
# ({download}`CSV </chapters/tables/errata_values-figures.csv>`).
#
# ::::{dropdown} Every figure, by paper
# ```{glue:} errata-values-table
# ```
# ::::
