"""Hardware drivers: the card-reading shoe and the table camera, with simulators for both."""
