"""Settings and security primitives of the web display."""
