"""Read-only views over what the other capabilities store: reports (`/reports`), dashboard widget
data (`/data`), and the themes emails and pages name (`/themes`, kept in the files bucket)."""
