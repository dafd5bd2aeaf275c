"""editbench: edit tasks built from real files, scored for correct, degraded, refused, wrong."""
