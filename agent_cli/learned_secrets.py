"""Secret values learned while a run goes on, and which of its records were written before.

Why: recall shows a record this run wrote as it was recorded (`agent_cli.recall`): all of
it was given to the model as it is, so redacting the model's own words again would tell
it which of its guesses is a secret. A value learned mid-session (a dotenv file written
by a command: `tools.dotenv_watch`) breaks that premise for the records written before
it: the view the model is given now has it redacted (`Conversation.redact_view`), so a
page of such a record must have it redacted too, or recall hands back whole what the view
no longer holds. A record written after it was learned holds what the model was given
since, and is shown as it is.

Contract: `LearnedSecrets()` holds nothing; `with_learned(values, from_sequence)` is a
new one that also knows `values`, learned when the transcript's next record was number
`from_sequence` (sequences of one run grow, so learnings come in order).
`forms_before(sequence)` gives the forms of every value learned after record `sequence`
was written (`NO_SECRETS` when none was). The forms for each point are built when a value
is learned, once: the value is immutable, so they are no cache to keep in step. Pure.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from agent_cli.secret_forms import NO_SECRETS, SecretForms


@dataclass(frozen=True)
class LearnedSecrets:
    """(from_sequence, forms of every value learned there or later), oldest first."""

    points: tuple[tuple[int, SecretForms], ...] = ()

    def with_learned(self, values: Iterable[str], from_sequence: int) -> LearnedSecrets:
        """These learnings and `values`, learned before record `from_sequence` was written."""
        added = tuple(values)
        if not added:
            return self
        grown = [
            (start, SecretForms.from_values((*forms.values, *added)))
            for start, forms in self.points
        ]
        return LearnedSecrets((*grown, (from_sequence, SecretForms.from_values(added))))

    def forms_before(self, sequence: int) -> SecretForms:
        """The forms of the values learned after record `sequence` was written."""
        for start, forms in self.points:
            if sequence < start:
                return forms
        return NO_SECRETS
