"""Computing edits as pure functions of (text, arguments): normalisation, the matching
ladder, re-indentation, suggestions for near misses, replace/insert/span edits. No I/O.
"""
