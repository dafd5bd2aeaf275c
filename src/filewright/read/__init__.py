"""Reading files for a model: streamed line-numbered text, images, PDFs and notebooks. Uses
the engine to locate and open files; returns values, never writes.
"""
