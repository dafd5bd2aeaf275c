"""Large-file change benchmark: streamed changes of 100 MB - 4 GB files vs sed, perl, Python."""
