"""Move in from Mautic: copy a running Mautic instance into this service through both APIs
(`python -m chalicelib.cli move-in`, docs/move-in.md). Only HTTP and the standard library: it runs
from an operator's machine against any deployed stage, and imports nothing of the service."""
