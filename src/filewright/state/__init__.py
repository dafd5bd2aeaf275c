"""What filewright remembers between calls, kept in the state directory: change history and
backups for undo, the read ledger, per-file locks. Knows nothing of policy or tools.
"""
