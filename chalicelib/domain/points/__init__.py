"""Points: point actions, the points engine and point triggers."""
