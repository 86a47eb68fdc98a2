"""The public web: forms and their submissions and actions, landing pages, hits, assets."""
