"""The command line: a fast path for `filewright call` (`main`), the typer app for
everything else (`app`), shared call plumbing (`calls`) and the terminal progress bar
(`progress`).
"""
