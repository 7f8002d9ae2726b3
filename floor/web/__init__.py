"""The floor service: a live display of every table, and the jackpot panel, over the floor store."""
