"""Email addresses: syntax only (no DNS), with email-validator, which loads on first use (it
compiles its patterns when imported)."""


def normalized(address):
    """The address in normal form, or None when it is not a valid email address."""
    from email_validator import EmailNotValidError, validate_email
    try:
        return validate_email(str(address), check_deliverability=False).normalized
    except EmailNotValidError:
        return None
