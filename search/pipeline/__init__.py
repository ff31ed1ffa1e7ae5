"""The processing steps, each a small module: extract → clean → split → embed → store."""
