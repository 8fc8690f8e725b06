"""Rendering: validated values in, SQL text out (dialects, the Jinja templates of sql/, one
evaluation's statement). No connection."""
