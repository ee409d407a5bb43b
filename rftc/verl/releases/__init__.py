"""The bundled veRL releases and how they differ: each release's composed default config (schema.py, read from
schemas/<release>.json.gz), release numbers and their order (order.py), which release a launch is checked
against (selection.py), a launch composed on one (compose.py), how each release behaves where releases differ
(semantics.py), and the legacy reward keys verl 0.9 ignores (legacy.py)."""
