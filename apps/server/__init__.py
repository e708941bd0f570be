"""The web table: ``wildhorn-solve serve`` (apps.server.app)."""
