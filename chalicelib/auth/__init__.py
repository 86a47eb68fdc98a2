"""One authentication core for every `/api` request (Basic now; OAuth plugs in here)."""
