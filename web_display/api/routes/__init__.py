"""One router per screen or resource."""
