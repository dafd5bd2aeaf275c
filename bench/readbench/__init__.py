"""Read benchmark: streamed ranges and tails of a ~1 GB file vs sed and tail."""
