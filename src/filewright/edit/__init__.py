"""Computing edits as pure functions of (text, arguments): normalisation, the matching
ladder, what is written at a match (replacement, carry: the model's change carried onto the
real text), cosmetics restored (reindent), omission placeholders, suggestions for near
misses, replace/insert/span edits. No I/O.
"""
