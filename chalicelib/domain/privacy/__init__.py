"""Privacy (issue 32): a contact's data export, the retention of anonymous visitors (docs/privacy.md)."""
