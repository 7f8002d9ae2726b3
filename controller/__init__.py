"""Rules engine (pure) and the live table service for dealer-assist."""
