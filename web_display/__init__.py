"""The dealer's touch display and the floor's monitoring display (FastAPI)."""
