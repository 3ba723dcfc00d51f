"""One package per chapter (``notebooks/NAME.py`` -> ``kvlib.book.chapters.NAME``): the code only that chapter uses.

A chapter package imports :mod:`kvlib.book`'s shared modules and the science below them (``core`` ...
``theory``), never another chapter's package (``tests/test_layout.py``); a module two chapters need
belongs in :mod:`kvlib.book`.
"""
