"""Errors a user can fix: the CLI prints the message alone (no traceback) and exits with status 2."""

from __future__ import annotations


class UserError(Exception):
    """Bad input (file, field, endpoint, option) with a message that says what and where."""

    exit_code = 2
