"""On-demand prices in us-east-1 (US dollars), as published on AWS's price pages, read on
2026-11-26 (docs/capacity.md cites them): what `cost` multiplies the measured quantities by.

- DynamoDB on-demand, standard table class (aws.amazon.com/dynamodb/pricing/on-demand/): $0.625
  per million write request units, $0.125 per million read request units (since November 2024).
- Lambda (aws.amazon.com/lambda/pricing/): $0.20 per million requests; arm64 $0.0000133334 per
  GB-second (first 7.5 billion GB-seconds a month), x86_64 $0.0000166667.
- API Gateway REST APIs (aws.amazon.com/api-gateway/pricing/): $3.50 per million requests (first
  333 million a month).
- SQS standard queues (aws.amazon.com/sqs/pricing/): $0.40 per million requests (64 KB chunks).
- SES outbound email (aws.amazon.com/ses/pricing/): $0.10 per 1,000 messages.
Free tiers are left out: a service at these volumes is past them.
"""

DYNAMODB_WRITE_UNIT = 0.625 / 1e6
DYNAMODB_READ_UNIT = 0.125 / 1e6
LAMBDA_REQUEST = 0.20 / 1e6
LAMBDA_GB_SECOND = {"arm64": 0.0000133334, "x86_64": 0.0000166667}
API_GATEWAY_REST_REQUEST = 3.50 / 1e6
SQS_REQUEST = 0.40 / 1e6
SES_MESSAGE = 0.10 / 1000
READ_ON = "2026-11-26"
