"""A contact's frequency rules (compat 8.4, 8.5, issue 34): how often and when it may be sent to, per
channel, as Mautic's contact preferences keep them (`LeadModel::setFrequencyRules`).

A payload's `frequencyRules` is what Mautic's API takes (`LeadApiController::preSaveEntity` ->
`FrequencyRuleTrait::getFrequencyRuleFormData`): an object keyed by channel, each
`{frequency_number, frequency_time, pause_from_date, pause_to_date, preferred_channel}` (keys that
are not channels, such as `global_categories`, are ignored); or, so that a contact read and sent
back keeps its rules, the list it is answered with (`{channel, frequencyNumber, frequencyTime,
preferredChannel, pauseFromDate, pauseToDate}`). An empty value changes nothing. Otherwise the
rules are replaced, one per preference channel as Mautic writes them: a number and a time only
together (else both null), the pause dates as dates, and one preferred channel (the last one
flagged, else the first channel). Each value is checked as Mautic's `ContactChannelsType` field
for it (integer, DAY/WEEK/MONTH, date); a bad one is a 400 naming `frequencyRules`.
"""

from calendar import monthrange
from datetime import datetime, timedelta

from chalicelib import config
from chalicelib.domain.contacts.contact_document import Contact
from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel import batching, clock
from chalicelib.domain.kernel.resources import Write
from chalicelib.domain.kernel.types import JSON, Doc

# Mautic's preference channels (`contact_preference` feature): email, and sms when a text message
# transport is enabled (SmsBundle's ChannelSubscriber); text messages are always sent here (SNS).
CHANNELS = ("email", "sms")
TIMES = ("DAY", "WEEK", "MONTH")
LISTED = ("channel", "frequencyNumber", "frequencyTime", "preferredChannel", "pauseFromDate", "pauseToDate")
MAX_NUMBER = 32767  # Mautic's `frequency_number` is a smallint


def _number(value: JSON, channel: str) -> int | None:
    """A frequency number (None for none: Mautic treats an empty or 0 one as unset)."""
    if value in (None, ""):
        return None
    try:
        number = a.as_int(value)
    except a.Invalid:
        number = -1
    if not 0 <= number <= MAX_NUMBER:
        raise a.Invalid(f"{channel}: frequency_number should be a whole number from 0 (none) to {MAX_NUMBER}.")
    return number or None


def _time(value: JSON, channel: str) -> str | None:
    if value in (None, ""):
        return None
    if value not in TIMES:
        raise a.Invalid(f"{channel}: frequency_time should be one of {', '.join(TIMES)}.")
    return str(value)


def _date(value: JSON, channel: str, name: str) -> str | None:
    """A pause date, kept as that day's midnight (UTC) as Mautic's date field gives it."""
    if value in (None, ""):
        return None
    try:
        day = clock.parse(value).date()
    except (ValueError, OverflowError):
        raise a.Invalid(f"{channel}: {name} should be a date (YYYY-MM-DD).") from None
    return clock.iso(clock.parse(day.isoformat()))


def _flag(value: JSON, channel: str) -> bool:
    if value in (None, ""):
        return False
    try:
        return a.as_bool(value)
    except a.Invalid:
        raise a.Invalid(f"{channel}: preferred_channel should be a boolean.") from None


def _one(channel: str, entry: JSON) -> Doc:
    """One channel's rule from its entry (Mautic's snake_case keys or the answered camelCase ones)."""
    if not isinstance(entry, dict):
        raise a.Invalid(f"{channel}: the rule should be an object.")

    def get(snake: str, camel: str) -> JSON:
        return entry.get(snake, entry.get(camel))

    return {
        "frequencyNumber": _number(get("frequency_number", "frequencyNumber"), channel),
        "frequencyTime": _time(get("frequency_time", "frequencyTime"), channel),
        "pauseFromDate": _date(get("pause_from_date", "pauseFromDate"), channel, "pause_from_date"),
        "pauseToDate": _date(get("pause_to_date", "pauseToDate"), channel, "pause_to_date"),
        "preferredChannel": _flag(get("preferred_channel", "preferredChannel"), channel),
    }


def requested(value: JSON) -> dict[str, Doc]:
    """The rules a `frequencyRules` value gives, by channel; Invalid naming what is wrong."""
    if isinstance(value, dict) and not all(a.digits(str(key)) for key in value):
        return {channel: _one(channel, value[channel]) for channel in CHANNELS if channel in value}
    rules: dict[str, Doc] = {}
    for entry in a.as_list(value):
        channel = entry.get("channel") if isinstance(entry, dict) else None
        if channel not in CHANNELS:
            raise a.Invalid(f"Each rule should name its channel: one of {', '.join(CHANNELS)}.")
        rules[str(channel)] = _one(str(channel), entry)
    return rules


def rules(stored: list[Doc], wanted: dict[str, Doc], now: str) -> list[Doc]:
    """The contact's rules after a payload gave `wanted`: one per preference channel, keeping the id
    of the channel's stored rule (a new one's is None until the write is valid), added `now`."""
    ids = {rule.get("channel"): rule.get("id") for rule in stored}
    flagged = [channel for channel in CHANNELS if wanted.get(channel, {}).get("preferredChannel")]
    preferred = flagged[-1] if flagged else CHANNELS[0]
    out = []
    for channel in CHANNELS:
        rule = wanted.get(channel) or {}
        paired = bool(rule.get("frequencyNumber") and rule.get("frequencyTime"))
        out.append(
            {
                "id": ids.get(channel),
                "dateAdded": now,
                "channel": channel,
                "frequencyNumber": rule["frequencyNumber"] if paired else None,
                "frequencyTime": rule["frequencyTime"] if paired else None,
                "preferredChannel": channel == preferred,
                "pauseFromDate": rule.get("pauseFromDate"),
                "pauseToDate": rule.get("pauseToDate"),
            }
        )
    return out


def apply(doc: Contact, write: Write) -> None:
    """Replace the contact document's rules by the payload's (nothing when it gives none); an error
    of the write (`frequencyRules`) when a value is bad."""
    value = write.payload.get("frequencyRules")
    if value in (None, "", [], {}):
        return
    try:
        wanted = requested(value)
    except a.Invalid as error:
        write.errors["frequencyRules"] = [str(error)]
        return
    doc["frequencyRules"] = rules(doc.get("frequencyRules") or [], wanted, write.ctx.now)


def give_ids(doc: Contact) -> None:
    """Give the new rules of a valid write their ids (a batch reserves them in a block)."""
    new = [rule for rule in doc.get("frequencyRules") or [] if rule.get("id") is None]
    for rule, rule_id in zip(new, batching.allocate_ids("frequencyrule", len(new)) if new else [], strict=True):
        rule["id"] = rule_id


def shown(doc: Contact) -> list[Doc]:
    """The rules as Mautic answers them (`frequencyRulesList`: its list properties only)."""
    return [{key: rule.get(key) for key in LISTED} for rule in doc.get("frequencyRules") or []]


# --- the cap a rule sets (on marketing emails and text messages: messaging/frequency_caps.py) ------


def cap(doc: Contact | Doc, channel: str = "email") -> tuple[int, str] | None:
    """(number, DAY/WEEK/MONTH) of the contact's rule on `channel` (email, sms), else the channel's
    configured default's, None when neither sets a cap (Mautic counts only rules with both,
    `FrequencyRuleRepository::getAppliedFrequencyRules`, and the default only for contacts with no
    such rule on any channel)."""
    rules = [
        rule
        for rule in doc.get("frequencyRules") or []
        if rule.get("frequencyNumber") and rule.get("frequencyTime") in TIMES
    ]
    for rule in rules:
        if rule.get("channel") == channel:
            return int(rule["frequencyNumber"]), str(rule["frequencyTime"])
    settings = config.active()
    if channel == "email":
        number, time = settings.EMAIL_FREQUENCY_NUMBER, settings.EMAIL_FREQUENCY_TIME
    else:
        number, time = settings.SMS_FREQUENCY_NUMBER, settings.SMS_FREQUENCY_TIME
    return (number, time) if not rules and number > 0 and time in TIMES else None


def shifted(moment: datetime, time: str, sign: int = 1) -> datetime:
    """One DAY, WEEK or calendar MONTH after (sign 1) or before (-1) `moment`, as MySQL's
    `DATE_SUB(NOW(), INTERVAL 1 MONTH)` counts: the day kept, else the month's last (PHP's `P1M`, which
    Mautic's reschedule adds, would run past a short month's end into the next)."""
    if time == "DAY":
        return moment + sign * timedelta(days=1)
    if time == "WEEK":
        return moment + sign * timedelta(weeks=1)
    month = moment.month - 1 + sign
    year, month = moment.year + month // 12, month % 12 + 1
    return moment.replace(year=year, month=month, day=min(moment.day, monthrange(year, month)[1]))
