"""What every layer shares: results and failures, failure texts in each locale, time-
limited regexes, progress reporting. Imports nothing of filewright.
"""
