"""The lifecycle services: the decay job (`decay`) and its daily schedule (`scheduler`).

The math lives in `bridge.core.lifecycle`, the records in `bridge.state`.
"""
