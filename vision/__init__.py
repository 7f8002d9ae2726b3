"""Table vision: zones, card detection and recognition, frame-to-frame tracking."""
