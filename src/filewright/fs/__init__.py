"""The disk: the sandbox that resolves paths inside the roots (`paths`), descriptor-walk
I/O and atomic writes (`fsio`), and lossless decoding and encoding of text files
(`textfile`). Knows nothing of policy, history or tools.
"""
