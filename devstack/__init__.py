"""The service on a developer's machine, never on Lambda: the local stack (`make run`:
`server`, the API Gateway stand-in `gateway`, the `workers` as threads, the embedded AWS with
its `patches`, `capture`, `journal`, `snapshot` and ordered-key `query`) and the tests' in-memory
store (`memory`).

It builds on `chalicelib` and `app`; nothing in `chalicelib` imports it (`.importlinter`), and
`make package` does not ship it (chalice packages `app.py` and `chalicelib/` only). Importing this
package imports nothing else: the unit tier loads `devstack.memory` without moto or boto3.
"""
