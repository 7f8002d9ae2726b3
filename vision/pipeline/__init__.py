"""The recognizer's stages: plane, masks, outlines, card hypotheses, index reads, decisions, backs, fans."""
