"""Choosing the model mid-session (`/model`), and listing the models one can choose.

Contract: `switch_model(provider, log, model_id)` records a `model_changed` record first
(write-ahead: a refused write leaves the model as it was and raises the store's error),
then points the provider at the new model; every request after it, summaries included,
names that model, and `--resume` goes on with it (unless `--model` names another at
start: `opening.open_session`). The offline demo model cannot switch
(`ModelSwitchRefused("offline")`); an id that cannot be a model id is refused before
anything is recorded (`ModelSwitchRefused("bad_model_id")`), and so is one that holds a
secret of the session (`"secret_model_id"`: an API key pasted as the model would be
written to the transcript and shown in the banner and `stats`). An id the model table does
not know is accepted: the API is the judge of what exists, and a 404 says how to choose
again; the table only decides the window and the prices.

`list_models(provider, secrets=...)` asks the provider's Models API when it has one (a
short timeout) and falls back to the model table, saying why, with the URL of a request
that failed, redacted of the session's secrets as a turn's failure is (`shown_errors`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agent_cli.errors import ModelSwitchRefused, ProviderError, ProviderRequestFailed
from agent_cli.models import MODEL_ID, MODEL_TABLE, ModelInfo, lookup_model
from agent_cli.secret_forms import NO_SECRETS, SecretForms
from agent_cli.session.log import MODEL_CHANGED, SessionLog
from agent_cli.session.shown_errors import without_secrets

if TYPE_CHECKING:
    from agent_cli.provider.base import Provider

LIST_TIMEOUT_SECONDS = 5.0


@dataclass(frozen=True)
class ListedModel:
    model_id: str
    display_name: str
    lifecycle: str | None  # "active", "deprecated", ... as the API says; None from the table
    priced: bool  # the model table has prices for it


@dataclass(frozen=True)
class ModelListing:
    models: tuple[ListedModel, ...]
    source: str  # "api" (the Models API) or "table" (the built-in model table)
    problem: str | None = None  # why the Models API was not used, as a failure kind
    url: str | None = None  # where its request went (shown, no secret), when it failed


def switch_model(
    provider: Provider, log: SessionLog, model_id: str, secrets: SecretForms = NO_SECRETS
) -> ModelInfo:
    """Point `provider` at `model_id`, recorded in `log` first; see the module contract."""
    if provider.name == "offline":
        raise ModelSwitchRefused("offline")
    model_id = model_id.strip()
    if not MODEL_ID.fullmatch(model_id):
        raise ModelSwitchRefused("bad_model_id")
    if secrets.redact(model_id) != model_id:
        raise ModelSwitchRefused("secret_model_id")
    log.append(MODEL_CHANGED, {"model": model_id, "previous": provider.model})
    provider.model = model_id
    return lookup_model(model_id)


def list_models(
    provider: Provider,
    timeout_seconds: float = LIST_TIMEOUT_SECONDS,
    secrets: SecretForms = NO_SECRETS,
) -> ModelListing:
    """The models to choose from: the Models API's list, else the model table, with why
    and, for a failed request, its URL redacted of the session's `secrets`."""
    url = None
    try:
        entries = provider.list_models(timeout_seconds)
    except ProviderRequestFailed as failed:
        problem = failed.kind
        shown = without_secrets(failed, secrets)
        url = shown.url if isinstance(shown, ProviderRequestFailed) else None
    except ProviderError:
        problem = "failed"
    else:
        if entries is not None:
            return ModelListing(tuple(_from_api(entries)), "api")
        problem = "not_offered"
    table = tuple(ListedModel(info.model_id, info.display_name, None, True) for info in MODEL_TABLE)
    return ModelListing(table, "table", problem, url)


def _from_api(entries: list[dict[str, Any]]) -> list[ListedModel]:
    listed = []
    for entry in entries:
        model_id = str(entry.get("id") or "")
        info = lookup_model(model_id)
        listed.append(
            ListedModel(
                model_id,
                str(entry.get("display_name") or info.display_name),
                entry.get("lifecycle"),
                info.prices is not None,
            )
        )
    return listed
