"""Shared test settings: hypothesis runs without deadlines (CI machines vary in speed)."""

from hypothesis import settings

settings.register_profile("boardzoo", deadline=None, max_examples=60)
settings.load_profile("boardzoo")
