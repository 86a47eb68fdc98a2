"""Rate limits of the API per user and per API client, in fixed windows of a minute counted in
the rate windows port (`ports/window_counters.py`: on AWS one UpdateItem per limit and request), answered with the IETF
`RateLimit-Policy` / `RateLimit` fields and, past a limit, 429 with `Retry-After`."""

from chalicelib import config
from chalicelib.api.errors import ApiError
from chalicelib.domain.kernel.context import Context
from chalicelib.ports import window_counters

WINDOW = 60


def _policies(ctx: Context) -> list[tuple[str, str, int]]:
    """[(policy name, counter name, quota)] that apply to the caller."""
    policies = []
    if config.active().RATE_LIMIT_PER_MINUTE > 0 and ctx.user_id is not None:
        policies.append(("user", f"api:user:{ctx.user_id}", config.active().RATE_LIMIT_PER_MINUTE))
    if config.active().RATE_LIMIT_CLIENT_PER_MINUTE > 0 and ctx.client:
        policies.append(("client", f"api:client:{ctx.client}", config.active().RATE_LIMIT_CLIENT_PER_MINUTE))
    return policies


def admit(ctx: Context) -> dict[str, str]:
    """Count the request against the caller's limits: the headers every answer carries, or
    ApiError 429 (with them and `Retry-After`) past a limit. No limits, no headers."""
    policies = _policies(ctx)
    if not policies:
        return {}
    counts = [(name, quota, *window_counters.count(counter, WINDOW)) for name, counter, quota in policies]
    headers = {
        "RateLimit-Policy": ", ".join(f'"{name}";q={quota};w={WINDOW}' for name, quota, _, _ in counts),
        "RateLimit": ", ".join(f'"{name}";r={max(0, quota - used)};t={left}' for name, quota, used, left in counts),
    }
    waits = [left for _, quota, used, left in counts if used > quota]
    if waits:
        wait = max(waits)
        raise ApiError(
            429, f"Too many requests. Try again in {wait} seconds.", headers=dict(headers, **{"Retry-After": str(wait)})
        )
    return headers
