"""`make capacity`: how far the service goes on DynamoDB's per-key limits, and what a million
requests cost (issue 29, docs/capacity.md).

A workload runs in process over moto through the local gateway (authorizer included); a meter on
botocore's events bills every DynamoDB call the way on-demand DynamoDB does, per item and per
partition key (tables and indexes), and the report names the hottest keys with the request rate at
which each would throttle, and the cost per million requests at on-demand prices.

Modules: `units` (DynamoDB's unit arithmetic), `meter` (the botocore hooks), `images` (items as moto
stores them), `stack` (moto, the app, the gateway), `workloads` (the mixes), `prices` and `cost`
(the cost model), `report` (tables and JSON), `__main__` (the command line).
"""
