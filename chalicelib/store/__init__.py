"""Storage: PynamoDB models and repositories. The only code that knows tables, keys and indexes."""
