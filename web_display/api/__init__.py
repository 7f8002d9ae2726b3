"""The HTTP and websocket API: routers per screen or resource, dependencies as ``Annotated`` aliases."""
