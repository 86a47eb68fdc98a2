"""Administration: users, API settings, API credentials, the email reputation guard and the queues.

    python -m chalicelib.cli [--json] users create --username U --password P --role R [--first-name F ...]
                                     (R: a role's name or id; `administrator` for full access)
    python -m chalicelib.cli [--json] users list
    python -m chalicelib.cli [--json] users disable|enable|revoke-tokens --username U
    python -m chalicelib.cli [--json] users password --username U   (the new password from a prompt or stdin)
    python -m chalicelib.cli [--json] settings show
    python -m chalicelib.cli [--json] settings set [--api on|off] [--basic-auth on|off] [--oauth-mode 2|1a]
                                                   [--access-token-minutes N] [--refresh-token-days N]
    python -m chalicelib.cli [--json] clients create --name N [--redirect-uri URI ...] [--grant G ...] [--user NAME]
    python -m chalicelib.cli [--json] clients list
    python -m chalicelib.cli [--json] clients revoke ID
    python -m chalicelib.cli [--json] permissions reindex   (once, for documents stored before owner feeds)
    python -m chalicelib.cli [--json] email-guard show      (the reputation guard: paused or not, why, rates)
    python -m chalicelib.cli [--json] email-guard resume    (segment sends go out again; counting starts anew)
    python -m chalicelib.cli [--json] queues redrive [--queue NAME]   (dead-letter messages back to their queues)
    python -m chalicelib.cli [--json] storage reshard   (stored items moved to the key layout of the settings)
    python -m chalicelib.cli [--json] storage recount-unlisted   (once, for children stored before lists left them out)
    python -m chalicelib.cli [--json] move-in --from URL --to URL [--dry-run] [--report FILE] ...   (docs/move-in.md)

`--json` may also follow the subcommand (`clients create --name N --json`).
Disabling a user, a new password and `revoke-tokens` make the user's OAuth tokens issued until
then fail (a Basic credential remembered by a warm API container: within a minute).
In the local stage (STAGE unset or `local`) it acts on the running `make run` service found
through DATA_DIR (and PORT, when given); otherwise on the AWS tables named by RESOURCE_PREFIX.
Clients are OAuth2 clients while the OAuth mode is 2 and OAuth1a consumers while it is 1a.
"""

from __future__ import annotations

import argparse
import getpass
import json
import os
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from chalicelib import config

if TYPE_CHECKING:  # imported when a command runs, after the local stack's endpoint is set
    from chalicelib.domain.kernel.context import Context

Doc = dict[str, Any]  # a stored or presented document, as JSON
Result = Doc | list[Doc]  # what a command prints


class CliError(Exception):
    """A failure to report in one line, exit status 1."""


def _attach_local_stack() -> None:
    """Point AWS clients at the running local stack, or fail with a hint."""
    path = os.path.join(os.path.abspath(os.environ.get("DATA_DIR", ".data")), "local-aws.json")
    try:
        with open(path) as handle:
            record = json.load(handle)
        os.kill(record["pid"], 0)
    except (OSError, ValueError, KeyError):
        raise CliError(
            f"no local service is running for DATA_DIR={os.path.dirname(path)} (start it with make run)"
        ) from None
    if os.environ.get("PORT") and str(record.get("port")) != os.environ["PORT"]:
        raise CliError(
            f"the local service of that DATA_DIR listens on port {record.get('port')}, not {os.environ['PORT']}"
        )
    os.environ["AWS_ENDPOINT_URL"] = record["endpoint"]
    for name, value in (
        ("AWS_DEFAULT_REGION", "us-east-1"),
        ("AWS_ACCESS_KEY_ID", "local"),
        ("AWS_SECRET_ACCESS_KEY", "local"),
    ):
        os.environ.setdefault(name, value)


def _install(settings: config.Settings | None) -> None:
    """Install the given settings, or the environment's (after pointing AWS at the local stack)."""
    if settings is None:
        if os.environ.get("STAGE", "local") == "local":
            _attach_local_stack()
        settings = config.Settings.from_environment(os.environ)
    config.install(settings)


def _on_off(value: str) -> bool:
    """An on/off option as a bool."""
    if value not in ("on", "off"):
        raise argparse.ArgumentTypeError("use on or off")
    return value == "on"


def _json_option() -> argparse.ArgumentParser:
    """`--json` after a subcommand too (`clients create --name x --json`); SUPPRESS keeps a subcommand
    from resetting a `--json` given before it."""
    option = argparse.ArgumentParser(add_help=False)
    option.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="print JSON for scripts")
    return option


def _parser() -> argparse.ArgumentParser:
    """The command line: groups (users, settings, clients, permissions) and their actions."""
    parser = argparse.ArgumentParser(prog="python -m chalicelib.cli", description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print JSON for scripts")
    common = [_json_option()]
    groups = parser.add_subparsers(dest="group", required=True)
    users = groups.add_parser("users", parents=common).add_subparsers(dest="action", required=True)
    create = users.add_parser("create", parents=common)
    create.add_argument("--username", required=True)
    create.add_argument("--password", required=True)
    create.add_argument(
        "--role", required=True, help="the user's role, by name or id (`administrator` for full access)"
    )
    for option in ("--first-name", "--last-name", "--email"):
        create.add_argument(option)
    users.add_parser("list", parents=common)
    for action in ("disable", "enable", "revoke-tokens", "password"):
        users.add_parser(action, parents=common).add_argument("--username", required=True)
    settings = groups.add_parser("settings", parents=common).add_subparsers(dest="action", required=True)
    settings.add_parser("show", parents=common)
    change = settings.add_parser("set", parents=common)
    change.add_argument("--api", type=_on_off)
    change.add_argument("--basic-auth", type=_on_off)
    change.add_argument("--oauth-mode", choices=("2", "1a"))
    change.add_argument("--access-token-minutes", type=int)
    change.add_argument("--refresh-token-days", type=int)
    clients = groups.add_parser("clients", parents=common).add_subparsers(dest="action", required=True)
    new_client = clients.add_parser("create", parents=common)
    new_client.add_argument("--name", required=True)
    new_client.add_argument("--redirect-uri", action="append", default=[])
    new_client.add_argument(
        "--grant",
        action="append",
        choices=("authorization_code", "refresh_token", "client_credentials"),
        help="an OAuth2 grant the client may use (default: authorization_code, refresh_token)",
    )
    new_client.add_argument("--user", help="the username client_credentials tokens act as")
    clients.add_parser("list", parents=common)
    revoke = clients.add_parser("revoke", parents=common)
    revoke.add_argument("id", type=int)
    permissions = groups.add_parser("permissions", parents=common).add_subparsers(dest="action", required=True)
    permissions.add_parser("reindex", parents=common)
    guard = groups.add_parser("email-guard", parents=common).add_subparsers(dest="action", required=True)
    guard.add_parser("show", parents=common)
    guard.add_parser("resume", parents=common)
    queues = groups.add_parser("queues", parents=common).add_subparsers(dest="action", required=True)
    queues.add_parser("redrive", parents=common).add_argument("--queue", help="one queue (default: all)")
    storage = groups.add_parser("storage", parents=common).add_subparsers(dest="action", required=True)
    storage.add_parser("reshard", parents=common)
    storage.add_parser("recount-unlisted", parents=common)
    from chalicelib.movein import command as move_in

    move_in.add_parser(groups, common)
    return parser


def _users(args: argparse.Namespace, ctx: Context) -> Result:
    """`users create|list|disable|enable|revoke-tokens|password`: the user(s) concerned."""
    from chalicelib.auth import users
    from chalicelib.auth.declarations import USER
    from chalicelib.domain.kernel.present import present
    from chalicelib.store import port as store

    if args.action == "create":
        if len(args.password) < 8:
            raise CliError("the password needs at least 8 characters")
        if users.by_username(args.username) is not None:
            raise CliError(f"the username {args.username!r} is taken")
        role = users.role_named(args.role, ctx)
        if role is None:
            raise CliError(f"no role named {args.role} (roles: {_role_names(ctx)})")
        doc = users.create_user(args.username, args.password, args.first_name, args.last_name, args.email, role)
        return present(USER, [doc], ctx)[0]
    if args.action == "list":
        return present(USER, store.iterate(USER.kind), ctx)
    if args.action == "revoke-tokens":
        user = users.by_username(args.username)
        if user is not None:
            users.revoke_tokens(user, ctx)
    else:
        changes = {"password": _new_password()} if args.action == "password" else {"enabled": args.action == "enable"}
        user = users.change(args.username, ctx, **changes)
    if user is None:
        raise CliError(f"no user named {args.username}")
    return present(USER, [user], ctx)[0]


def _role_names(ctx: Context) -> str:
    """The roles a user may be given, as `id name` pairs, for an error message."""
    from chalicelib.auth.declarations import ROLE
    from chalicelib.domain.kernel import cached

    roles = cached.documents(ROLE.kind, ctx)
    return ", ".join(f"{role['id']} {role.get('name')}" for role in roles) or "none yet; `administrator` creates it"


def _new_password() -> str:
    """A new password from a prompt (typed twice) or, when stdin is not a terminal, its first line."""
    if sys.stdin.isatty():
        password = getpass.getpass("New password: ")
        if getpass.getpass("Again: ") != password:
            raise CliError("the two passwords differ")
    else:
        password = sys.stdin.readline().rstrip("\n")
    if len(password) < 8:
        raise CliError("the password needs at least 8 characters")
    return password


def _settings(args: argparse.Namespace, ctx: Context) -> Result:
    """`settings show|set`: the API settings (after the change)."""
    from chalicelib.auth import settings

    if args.action == "show":
        return settings.current(ctx)
    names = {
        "api": "apiEnabled",
        "basic_auth": "basicAuthEnabled",
        "oauth_mode": "oauthMode",
        "access_token_minutes": "accessTokenMinutes",
        "refresh_token_days": "refreshTokenDays",
    }
    changes = {key: getattr(args, name) for name, key in names.items() if getattr(args, name) is not None}
    for key in ("accessTokenMinutes", "refreshTokenDays"):
        if key in changes and changes[key] <= 0:
            raise CliError(f"{key} must be positive")
    return settings.update(ctx, changes)


def _clients(args: argparse.Namespace, ctx: Context) -> Result:
    """`clients create|list|revoke`: the client(s) concerned; a new client with its secret, shown once."""
    from chalicelib.auth import clients, settings

    if args.action == "create":
        mode = settings.current(ctx)["oauthMode"]
        if "client_credentials" in (args.grant or ()) and args.user is None:
            raise CliError("--grant client_credentials needs --user: the user its tokens act as")
        try:
            doc, secret = clients.create(
                ctx,
                args.name,
                args.redirect_uri,
                mode,
                user_id=_user_id(args.user),
                grants=tuple(args.grant or clients.DEFAULT_GRANTS),
            )
        except ValueError as error:
            raise CliError(str(error)) from None
        return dict(clients.public(doc), clientSecret=secret)
    if args.action == "list":
        return [clients.public(c) for c in clients.all_clients(ctx)]
    revoked = clients.revoke(ctx, args.id)
    if revoked is None:
        raise CliError(f"no client with id {args.id}")
    return clients.public(revoked)


def _permissions(args: argparse.Namespace, ctx: Context) -> Result:
    """`permissions reindex`: how many documents moved to their owner's feed."""
    from chalicelib.domain.kernel import access, registry

    return {"moved": access.reindex_owners(registry.resources())}


def _email_guard(args: argparse.Namespace, ctx: Context) -> Result:
    """`email-guard show`: the guard's state with the current rates; `resume`: the new state."""
    from chalicelib.domain.messaging import reputation

    if args.action == "resume":
        return reputation.resume(f"cli:{getpass.getuser()}")
    state = reputation.state()
    return dict(state, current=reputation.rates(int(state.get("epoch") or 0)))


def _queues(args: argparse.Namespace, ctx: Context) -> Result:
    """`queues redrive [--queue NAME]`: each dead-letter queue's messages back to its queue; how
    many moved per queue."""
    from chalicelib.store import queues
    from chalicelib.store.schema import QUEUES

    if args.queue is not None and args.queue not in QUEUES:
        raise CliError(f"no queue named {args.queue} (one of {', '.join(QUEUES)})")
    return [{"queue": name, "moved": queues.redrive(name)} for name in ([args.queue] if args.queue else QUEUES)]


def _storage(args: argparse.Namespace, ctx: Context) -> Result:
    """`storage reshard`: items scanned, documents moved to their shard, feed entries re-indexed, emails
    keyed in the `emailhead` index and count shards folded (docs/storage.md, "Sharded keys"); run again
    until it moves nothing.
    `storage recount-unlisted`: per kind whose lists leave children out, how many it found and how far
    their count moved (docs/email.md, "Lists")."""
    if args.action == "recount-unlisted":
        from chalicelib.domain.kernel import registry, unlisted

        return unlisted.recount(registry.resources())
    from chalicelib.store import reshard

    return reshard.reshard()


def _user_id(username: str | None) -> int | None:
    """The id of the user named `username` (None for no name); CliError when there is none."""
    from chalicelib.auth import users

    if username is None:
        return None
    user = users.by_username(username)
    if user is None:
        raise CliError(f"no user named {username}")
    return user["id"]


def _print(result: Result, as_json: bool) -> None:
    """The result as indented JSON, or one `key=value` line per document."""
    if as_json:
        print(json.dumps(result, indent=2))
        return
    for row in result if isinstance(result, list) else [result]:
        print("  ".join(f"{key}={value}" for key, value in row.items()))


def main(argv: Sequence[str] | None = None, settings: config.Settings | None = None) -> int:
    """Run one command; the exit status (1 with a one-line error on stderr). With `settings` (the tests')
    it acts on this process's AWS; else on what the environment's settings name (the local stage: the
    running local stack)."""
    args = _parser().parse_args(argv)
    if args.group == "move-in":  # through both APIs: no local stack, no AWS
        from chalicelib.movein import command as move_in

        return move_in.run(args)
    try:
        _install(settings)
        from chalicelib import aws_adapters, bootstrap
        from chalicelib.domain.kernel.context import Context

        bootstrap.assemble()
        if settings is None:  # the environment's AWS; with the tests' settings, the adapters they installed
            aws_adapters.install()
        bootstrap.ensure_ready()
        handlers: dict[str, Callable[[argparse.Namespace, Context], Result]]
        handlers = {
            "users": _users,
            "settings": _settings,
            "clients": _clients,
            "permissions": _permissions,
            "email-guard": _email_guard,
            "queues": _queues,
            "storage": _storage,
        }
        _print(handlers[args.group](args, Context()), args.json)
    except CliError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
