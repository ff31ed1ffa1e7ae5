"""What manage.py reprocess's kinds share on the command side: the arguments every kind
takes, the owner they name, and the wave run (documents/upkeep/waves.py) printed to the
command's output. Each kind's own arguments and first lines are in a module beside this.
"""

from django.contrib.auth.models import User
from django.core.management.base import BaseCommand, CommandError, CommandParser

from documents.upkeep import waves


def add_common_arguments(parser: CommandParser, *, wave_help: str) -> None:
    parser.add_argument("--owner", metavar="USERNAME", help="Only this user's documents.")
    parser.add_argument("--wave", type=int, default=None, help=wave_help)
    parser.add_argument(
        "--poll",
        type=float,
        default=2.0,
        metavar="SECONDS",
        help="How often to look at the jobs (default: %(default)s).",
    )
    parser.add_argument(
        "--dry-run", action="store_true", help="Print what would be queued; change nothing."
    )


def owner_id(username: str | None) -> int | None:
    if username is None:
        return None
    try:
        return User.objects.get(username=username).pk
    except User.DoesNotExist:
        raise CommandError(f"No user {username!r}.") from None


def wave_size(given: int | None, default: int) -> int:
    wave = default if given is None else given
    if wave < 1:
        raise CommandError("--wave must be at least 1.")
    return wave


def run_waves(
    command: BaseCommand, kind: waves.Kind, *, wave: int, poll: float, total: int
) -> None:
    """Queue `kind`'s documents a wave at a time, printing progress; a CommandError when
    the workers turn out to run with other settings than the command."""
    command.stdout.write(f"waves: at most {wave} jobs in flight on the {kind.lane} lane")
    run = waves.Run(
        kind,
        wave=wave,
        poll=poll,
        total=total,
        say=command.stdout.write,
        warn=command.stderr.write,
    )
    try:
        run.go()
    except waves.WrongSettings as error:
        raise CommandError(str(error)) from None
