"""Email and SMS: rendering, sending, segment sends, send records, tracking, dynamic content."""
