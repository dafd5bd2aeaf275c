"""Which paths a tool may see, read, write or must confirm: rules and protected sets
(`rules`), glob and gitignore matching (`globs`, `gitignore`). Pure decisions about path
names; never touches file contents.
"""
