"""boardzoo's games as other libraries' games (each adapter an optional extra of its own)."""
