"""provider package."""
